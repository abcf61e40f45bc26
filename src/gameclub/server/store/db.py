"""The database handle: async engine from a plain URL, start-up migrations, write sessions.

URLs are given the plain way (``sqlite:///var/gameclub.db``,
``postgresql://postgres@127.0.0.1:5432/gameclub``) and mapped to SQLAlchemy's
asyncio drivers (aiosqlite, psycopg 3). The database file's folder is created
on first start, and Alembic brings the schema to the newest revision.

The hot path, a group commit of merged writes (every move of every game), goes
another way: its statements run in one call on a dedicated writer thread with
a plain (synchronous) engine on the same database. Through the asyncio
drivers each statement, cursor and commit is a round trip between the event
loop and a driver thread (aiosqlite) or the network (psycopg), eight or so per
batch, and those hops cost more CPU than the writes themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Connection, Dialect, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql.expression import Executable

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
#: Most pieces of work that one group commit takes.
MAX_BATCH = 200

T = TypeVar("T")
Work = Callable[[AsyncSession], Awaitable[Any]]
#: Core statements, each with the rows of parameters it is executed with (executemany).
Statements = list[tuple[Executable, list[dict[str, Any]]]]
#: Runs one statement with one row of parameters in the batch's transaction; its rows.
Query = Callable[[Executable, dict[str, Any]], list[tuple[Any, ...]]]
#: For each item of a kind: ``None`` (it is written) or the exception its caller gets.
Screen = Callable[[Query, list[Any]], list[BaseException | None]]


@dataclass(frozen=True)
class Mergeable:
    """A write that runs together with its kind in one statement per table.

    Successive ``Mergeable`` items of a group commit that share ``kind`` are
    handed to ``plan`` as one list, which returns the statements that write
    them all, so that a hundred games' moves cost one ``executemany`` instead
    of a hundred statements. Their result is ``None``. A batch made only of
    them (the usual case under load) runs on the writer thread, without a
    session. With a ``screen``, each item's result is its own (written, or refused).
    """

    kind: str
    item: Any
    plan: Callable[[list[Any]], Statements]
    #: Optional check of the kind's items, run first in the batch's transaction (one
    #: query for them all, such as the owner epochs of their games): the items it
    #: refuses are not planned, and their callers get its exception; the others
    #: commit as usual.
    screen: Screen | None = None


def _with_driver(url: str, sqlite_driver: str) -> str:
    """``url`` with the given SQLite driver, or psycopg 3 for PostgreSQL (which serves
    both asyncio and plain use); ``ValueError`` for other databases."""
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise ValueError(f"unsupported database {url!r}: use sqlite:///FILE or postgresql://...")
    driver = f"sqlite+{sqlite_driver}" if backend == "sqlite" else "postgresql+psycopg"
    return parsed.set(drivername=driver).render_as_string(hide_password=False)


def async_url(url: str) -> str:
    """``url`` with the asyncio driver of its database; ``ValueError`` for other databases."""
    return _with_driver(url, "aiosqlite")


def sync_url(url: str) -> str:
    """``url`` with the plain (synchronous) driver of its database (pysqlite, psycopg 3)."""
    return _with_driver(url, "pysqlite")


#: Seconds between two checkpoints of the SQLite write-ahead log (see ``Checkpointer``).
CHECKPOINT_EVERY_S = 1.0


def _sqlite_pragmas(dbapi_connection: Any, _record: object) -> None:
    # WAL lets readers go on while the single writer commits; NORMAL sync is
    # still durable across a process kill (only an OS crash can lose the tail).
    # No commit checkpoints the log by itself (that would make the commit that
    # crosses the threshold copy pages and fsync while every game waits on
    # it): the Checkpointer thread does it.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA wal_autocheckpoint=0")
    cursor.close()


class Checkpointer:
    """A thread that copies the SQLite write-ahead log into the database file now and then.

    Passive checkpoints wait for no reader or writer and no writer waits for
    them: the writes of the games never pay for copying pages or for the
    ``fsync`` of a checkpoint. It uses a connection of its own.
    """

    def __init__(self, connect: Callable[[], Any], every_s: float) -> None:
        self._connect = connect
        self._every_s = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gameclub-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        conn = None
        while not self._stop.wait(self._every_s):
            try:
                if conn is None:
                    conn = self._connect()
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except Exception:
                # Next time, with a fresh connection; a failed checkpoint loses nothing.
                log.warning("WAL checkpoint failed", exc_info=True)
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()
                conn = None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


#: The PostgreSQL advisory lock taken while migrating (any constant of the club's own).
MIGRATE_LOCK = 0x6761_6D65_636C_7562  # "gameclub"


def _upgrade(connection: Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


class Database:
    """An async engine plus the one rule of writing: on SQLite, one writer at a time.

    SQLite locks the whole file for a write; letting two transactions race for
    that lock ends in "database is locked", so writes queue on an asyncio lock
    instead. PostgreSQL needs no such queue. Merged writes run on the writer
    thread (:meth:`write_statements`); on SQLite a checkpoint thread keeps the
    write-ahead log short (:class:`Checkpointer`).
    """

    def __init__(self, url: str, *, async_commit: bool = False) -> None:
        self.url = async_url(url)
        #: PostgreSQL: the group commits (moves, new games) do not wait for their WAL
        #: to reach the disk (``synchronous_commit = off``; see docs/server.md).
        self.async_commit = async_commit
        parsed = make_url(self.url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        #: The SQLite database file (``None``: PostgreSQL, or SQLite in memory).
        self._sqlite_file: str | None = None
        if self.is_sqlite and parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            self._sqlite_file = parsed.database
        self.engine = create_async_engine(self.url, pool_pre_ping=not self.is_sqlite)
        # The writer thread's own engine: one connection, used by that thread only.
        self.sync_engine = create_engine(
            sync_url(url), pool_pre_ping=not self.is_sqlite, pool_size=1, max_overflow=0
        )
        if self.is_sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
            event.listen(self.sync_engine, "connect", _sqlite_pragmas)
        self._checkpointer: Checkpointer | None = None
        # The writer thread (started on first use), its jobs, its connection and its
        # compiled statements (the last two are that thread's only).
        self._writer: threading.Thread | None = None
        self._jobs: queue.SimpleQueue[tuple[Callable[[], None], asyncio.Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self._raw: PoolProxiedConnection | None = None
        self._prepared: dict[tuple[Executable, frozenset[str]], _Prepared] = {}
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._write_lock = asyncio.Lock() if self.is_sqlite else None
        self._queue: list[tuple[Work | Mergeable, asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None

    async def migrate(self) -> None:
        """Create or upgrade the schema to the newest Alembic revision (then, on SQLite,
        start checkpointing the write-ahead log)."""
        async with self.engine.begin() as conn:
            if not self.is_sqlite:
                # Several nodes starting at once: one migrates, the others wait for its
                # commit (the lock is the transaction's) and then find nothing to do.
                lock = text("SELECT pg_advisory_xact_lock(:key)")
                await conn.execute(lock, {"key": MIGRATE_LOCK})
            await conn.run_sync(_upgrade)
        if self._sqlite_file is not None and self._checkpointer is None:
            self._checkpointer = Checkpointer(self._connect_checkpointer, CHECKPOINT_EVERY_S)

    async def ping(self) -> None:
        """Raise unless the database answers a trivial query."""
        async with self.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for reading (nothing committed)."""
        async with self._sessions() as session:
            yield session

    async def write_statements(self, statements: Statements) -> None:
        """Run ``statements`` in one transaction on the writer thread (one hop, not one each).

        Same rule as :meth:`write`: on SQLite, only while no other write is under way.
        """
        await self.write_planned(lambda _query: statements)

    async def write_planned(self, plan: Callable[[Query], Statements]) -> None:
        """Like :meth:`write_statements`, with the statements made by ``plan`` inside the
        transaction, where it may first read (and lock) what they depend on with the
        query function it is given. (It may be called twice: see :meth:`_execute_sync`.)
        """
        async with self._write_lock or contextlib.nullcontext():
            await self._on_writer(lambda: self._execute_sync(plan))

    async def _on_writer(self, job: Callable[[], None]) -> None:
        """Run ``job`` on the writer thread and wait for it.

        A queue and a future: about a third of the cost of a hop through an
        executor (``run_in_executor``), and this hop is taken for every batch.
        """
        if self._writer is None:
            self._writer = threading.Thread(
                target=self._writer_main, name="gameclub-writer", daemon=True
            )
            self._writer.start()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._jobs.put((job, future))
        await future

    def _writer_main(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, future = item
            error: BaseException | None = None
            try:
                job()
            except BaseException as exc:
                error = exc
            # The loop may be gone already (closed without ``close()``): nobody waits.
            with contextlib.suppress(RuntimeError):
                future.get_loop().call_soon_threadsafe(_settle_job, future, error)

    def _execute_sync(self, plan: Callable[[Query], Statements]) -> None:
        """(On the writer thread.) One transaction on the writer's own DBAPI connection.

        Each statement is compiled for the database once (:meth:`_prepare`) and
        run with the driver's ``executemany``: the rows of the hot path need
        no more of SQLAlchemy's per-execution machinery than their bind
        processors. A connection that fails is dropped; when it had been lost
        (a database restart) the batch is tried once more on a fresh one, which
        the pool checks out as usual (pragmas, pre-ping). Errors are raised as
        SQLAlchemy raises them (``IntegrityError``, ...).
        """
        reused = self._raw is not None
        try:
            self._run_sync(plan)
        except DBAPIError as exc:
            if not (reused and exc.connection_invalidated):
                raise
            self._run_sync(plan)

    def _run_sync(self, plan: Callable[[Query], Statements]) -> None:
        conn = self._raw
        dialect = self.sync_engine.dialect
        if conn is None:
            base = dialect.loaded_dbapi.Error
            try:
                conn = self._raw = self.sync_engine.raw_connection()
                if self.async_commit and not self.is_sqlite:
                    setting = conn.cursor()
                    setting.execute("SET synchronous_commit = off")
                    setting.close()
                    conn.commit()
            except base as exc:
                # Raised as every other database error is (the database is away).
                raise DBAPIError.instance(None, None, exc, base, dialect=dialect) from exc
        sql: str | None = None
        cursor = None
        try:
            cursor = conn.cursor()
            live = cursor

            def query(statement: Executable, row: dict[str, Any]) -> list[tuple[Any, ...]]:
                nonlocal sql
                prepared = self._prepare(statement, row)
                sql = prepared.sql
                live.execute(sql, prepared.params(row))
                return [tuple(found) for found in live.fetchall()]

            statements = plan(query)
            for statement, rows in statements:
                if rows:
                    prepared = self._prepare(statement, rows[0])
                    sql = prepared.sql
                    params: list[Any] = [prepared.params(row) for row in rows]
                    cursor.executemany(sql, params)
            cursor.close()
            sql = None
            conn.commit()
        except BaseException as exc:
            self._raw = None
            lost = False
            base = dialect.loaded_dbapi.Error
            if isinstance(exc, base):
                with contextlib.suppress(Exception):
                    lost = dialect.is_disconnect(exc, conn.dbapi_connection, cursor)
            # Let go of the transaction before the connection: a SQLite connection
            # closed with a statement still open would keep the file locked.
            if cursor is not None:
                with contextlib.suppress(Exception):
                    cursor.close()
            with contextlib.suppress(Exception):
                conn.rollback()
            with contextlib.suppress(Exception):
                conn.invalidate()
            if isinstance(exc, base):
                raise DBAPIError.instance(
                    sql, None, exc, base, connection_invalidated=lost, dialect=dialect
                ) from exc
            raise

    def _prepare(self, statement: Executable, row: dict[str, Any]) -> _Prepared:
        key = (statement, frozenset(row))
        prepared = self._prepared.get(key)
        if prepared is None:
            prepared = self._prepared[key] = _Prepared.compile(
                statement, sorted(row), self.sync_engine.dialect
            )
        return prepared

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncSession]:
        """A session in a transaction, committed on leaving, rolled back on an error."""
        async with (self._write_lock or contextlib.nullcontext(), self._sessions() as session,
                    session.begin()):
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
                        _settle_result(item[1], result)
            else:
                for (_, future), result in zip(batch, results, strict=True):
                    _settle_result(future, result)

    async def _run(self, batch: list[tuple[Work | Mergeable, asyncio.Future[Any]]]) -> list[Any]:
        results: list[Any] = []
        # Runs of mergeable items are flushed before any other work, so
        # that the writes keep the order in which they were asked for.
        pending: _Pending = {}
        if all(isinstance(work, Mergeable) for work, _ in batch):
            for index, (work, _) in enumerate(batch):
                assert isinstance(work, Mergeable)
                pending.setdefault(work.kind, (work, []))[1].append((index, work.item))
            results = [None] * len(batch)
            await self.write_planned(lambda query: _plan(pending, query, results))
            return results
        async with self.write() as session:
            for work, _ in batch:
                if isinstance(work, Mergeable):
                    pending.setdefault(work.kind, (work, []))[1].append((len(results), work.item))
                    results.append(None)
                    continue
                if pending:
                    await _flush(await session.connection(), pending, results)
                results.append(await work(session))
            if pending:
                await _flush(await session.connection(), pending, results)
        return results

    async def close(self) -> None:
        if self._committer is not None:
            with contextlib.suppress(Exception):
                await self._committer
        if self._checkpointer is not None:
            await asyncio.to_thread(self._checkpointer.stop)
        await self.engine.dispose()
        if self._writer is not None:
            await self._on_writer(self._close_sync)
            self._jobs.put(None)
        else:
            self.sync_engine.dispose()

    def _connect_checkpointer(self) -> sqlite3.Connection:
        """(On the checkpoint thread.) A plain connection of its own, outside the pools."""
        assert self._sqlite_file is not None
        return sqlite3.connect(self._sqlite_file, timeout=10)

    def _close_sync(self) -> None:
        if self._raw is not None:
            self._raw.close()
            self._raw = None
        self.sync_engine.dispose()


@dataclass(frozen=True)
class _Prepared:
    """A statement compiled for one database and one set of row keys, ready for the driver."""

    sql: str
    #: The row key of each parameter, in the driver's order.
    keys: tuple[str, ...]
    #: The parameters' names for a driver that takes them by name; ``None``: by position.
    names: tuple[str, ...] | None
    #: Each parameter's bind processor (``Boolean`` to an integer on SQLite, ...), if any.
    processors: tuple[Callable[[Any], Any] | None, ...]

    @classmethod
    def compile(cls, statement: Executable, keys: list[str], dialect: Dialect) -> _Prepared:
        compiled = statement.compile(dialect=dialect, column_keys=keys)  # type: ignore[attr-defined]
        binds = compiled.binds
        order = list(compiled.positiontup) if dialect.positional else list(binds)
        return cls(
            str(compiled),
            tuple(binds[name].key for name in order),
            None if dialect.positional else tuple(order),
            tuple(binds[name].type.bind_processor(dialect) for name in order),
        )

    def params(self, row: dict[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        values = tuple(
            row[key] if process is None else process(row[key])
            for key, process in zip(self.keys, self.processors, strict=True)
        )
        return values if self.names is None else dict(zip(self.names, values, strict=True))


#: Mergeable items by kind: the kind's first item, and each item with its place in the batch.
_Pending = dict[str, tuple[Mergeable, list[tuple[int, Any]]]]


@dataclass(frozen=True)
class _Refused:
    """The result of a mergeable item that its screen refused: its caller gets ``error``."""

    error: BaseException


def _plan(pending: _Pending, query: Query, results: list[Any]) -> Statements:
    """The statements of the pending items, screened first; each refused item's
    result becomes :class:`_Refused` (the others' ``None``)."""
    statements: Statements = []
    for first, indexed in pending.values():
        items = [item for _, item in indexed]
        verdicts: list[BaseException | None] = (
            [None] * len(items) if first.screen is None else first.screen(query, items)
        )
        kept = []
        for (index, item), error in zip(indexed, verdicts, strict=True):
            results[index] = None if error is None else _Refused(error)
            if error is None:
                kept.append(item)
        if kept:
            statements += first.plan(kept)
    return statements


async def _flush(conn: AsyncConnection, pending: _Pending, results: list[Any]) -> None:
    def run(sync_conn: Connection) -> None:
        def query(statement: Executable, row: dict[str, Any]) -> list[tuple[Any, ...]]:
            return [tuple(found) for found in sync_conn.execute(statement, row)]

        for statement, rows in _plan(pending, query, results):
            sync_conn.execute(statement, rows)

    await conn.run_sync(run)
    pending.clear()


def _current_exception() -> BaseException:
    import sys

    exc = sys.exc_info()[1]
    assert exc is not None
    return exc


def _settle_result(future: asyncio.Future[Any], result: Any) -> None:
    if isinstance(result, _Refused):
        _settle(future, exception=result.error)
    else:
        _settle(future, result=result)


def _settle_job(future: asyncio.Future[None], exception: BaseException | None) -> None:
    _settle(future, exception=exception)


def _settle(
    future: asyncio.Future[Any], *, result: Any = None, exception: BaseException | None = None
) -> None:
    if future.done():
        return
    if exception is not None:
        future.set_exception(exception)
    else:
        future.set_result(result)
