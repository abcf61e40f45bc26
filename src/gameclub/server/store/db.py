"""The database handle: async engine from a plain URL, start-up migrations, write sessions.

URLs are given the plain way (``sqlite:///var/gameclub.db``,
``postgresql://postgres@127.0.0.1:5432/gameclub``) and mapped to SQLAlchemy's
asyncio drivers (aiosqlite, psycopg 3). The database file's folder is created
on first start, and Alembic brings the schema to the newest revision.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker, create_async_engine

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
#: Most pieces of work that one group commit takes.
MAX_BATCH = 200

T = TypeVar("T")
Work = Callable[[AsyncSession], Awaitable[Any]]


@dataclass(frozen=True)
class Mergeable:
    """Work that runs together with its kind in one statement per table.

    Successive ``Mergeable`` items of a group commit that share ``kind`` are
    handed to ``run`` as one list, so that a hundred games' moves cost one
    ``executemany`` instead of a hundred statements. Their result is ``None``.
    """

    kind: str
    item: Any
    run: Callable[[AsyncSession, list[Any]], Awaitable[None]]


def async_url(url: str) -> str:
    """``url`` with the asyncio driver of its database; ``ValueError`` for other databases."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return parsed.set(drivername="sqlite+aiosqlite").render_as_string(hide_password=False)
    if backend == "postgresql":
        return parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    raise ValueError(f"unsupported database {url!r}: use sqlite:///FILE or postgresql://...")


def _sqlite_pragmas(dbapi_connection: Any, _record: object) -> None:
    # WAL lets readers go on while the single writer commits; NORMAL sync is
    # still durable across a process kill (only an OS crash can lose the tail).
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _upgrade(connection: Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


class Database:
    """An async engine plus the one rule of writing: on SQLite, one writer at a time.

    SQLite locks the whole file for a write; letting two transactions race for
    that lock ends in "database is locked", so writes queue on an asyncio lock
    instead. PostgreSQL needs no such queue.
    """

    def __init__(self, url: str) -> None:
        self.url = async_url(url)
        parsed = make_url(self.url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite and parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        self.engine = create_async_engine(self.url, pool_pre_ping=not self.is_sqlite)
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._write_lock = asyncio.Lock() if self.is_sqlite else None
        self._queue: list[tuple[Work | Mergeable, asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None

    async def migrate(self) -> None:
        """Create or upgrade the schema to the newest Alembic revision."""
        async with self.engine.begin() as conn:
            await conn.run_sync(_upgrade)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for reading (nothing committed)."""
        async with self._sessions() as session:
            yield session

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A session in a transaction, committed on leaving, rolled back on an error."""
        if self._write_lock is None:
            async with self._sessions() as session, session.begin():
                yield session
            return
        async with self._write_lock, self._sessions() as session, session.begin():
            yield session

    async def commit_soon(self, work: Callable[[AsyncSession], Awaitable[T]] | Mergeable) -> T:
        """Run ``work`` in a transaction shared with other waiting work (a group commit).

        Returns ``work``'s result once its transaction is committed. Under load
        one commit carries many games' moves, which is what lets SQLite keep up
        with hundreds of games; alone, a piece of work commits at once. If a
        shared transaction fails, each piece is retried alone, so one bad
        piece fails only its own caller. The write itself is shielded: a caller
        cancelled meanwhile does not undo a commit in flight.
        """
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue.append((work, future))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.ensure_future(self._commit_queued())
        return await asyncio.shield(future)

    async def _commit_queued(self) -> None:
        while self._queue:
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
            try:
                results = await self._run(batch)
            except Exception:
                if len(batch) == 1:
                    _settle(batch[0][1], exception=_current_exception())
                    continue
                for item in batch:
                    try:
                        (result,) = await self._run([item])
                    except Exception as exc:
                        _settle(item[1], exception=exc)
                    else:
                        _settle(item[1], result=result)
            else:
                for (_, future), result in zip(batch, results, strict=True):
                    _settle(future, result=result)

    async def _run(self, batch: list[tuple[Work | Mergeable, asyncio.Future[Any]]]) -> list[Any]:
        results: list[Any] = []
        async with self.write() as session:
            # Runs of mergeable items are flushed before any other work, so
            # that the writes keep the order in which they were asked for.
            pending: dict[str, tuple[Mergeable, list[Any]]] = {}
            for work, _ in batch:
                if isinstance(work, Mergeable):
                    pending.setdefault(work.kind, (work, []))[1].append(work.item)
                    results.append(None)
                    continue
                await _flush(session, pending)
                results.append(await work(session))
            await _flush(session, pending)
        return results

    async def close(self) -> None:
        if self._committer is not None:
            with contextlib.suppress(Exception):
                await self._committer
        await self.engine.dispose()


async def _flush(session: AsyncSession, pending: dict[str, tuple[Mergeable, list[Any]]]) -> None:
    for first, items in pending.values():
        await first.run(session, items)
    pending.clear()


def _current_exception() -> BaseException:
    import sys

    exc = sys.exc_info()[1]
    assert exc is not None
    return exc


def _settle(
    future: asyncio.Future[Any], *, result: Any = None, exception: BaseException | None = None
) -> None:
    if future.done():
        return
    if exception is not None:
        future.set_exception(exception)
    else:
        future.set_result(result)
