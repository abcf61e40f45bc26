"""The computer's moves, chosen in worker processes so the event loop never waits on a search.

The same workers take other CPU-heavy work of the server (reading uploaded
records), in the same fair queue: players take turns (:class:`EnginePool`).

A worker gets the game as plain data (which game, rule set name, blocks,
start position and moves, so repetitions are known to the engine) and asks
that game's entry in :mod:`gameclub.games` for the engine's move. Workers are spawned, not forked:
forking a process that runs threads (the event loop, database drivers) can
copy a held lock into the child.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from gameclub.games import GAMES, Setup

log = logging.getLogger(__name__)

T = TypeVar("T")
#: Players whose last turn is remembered (the least recent are forgotten first).
_SERVED_KEPT = 10_000


def choose_in_worker(
    game: str,
    rules: str,
    blocks: str | None,
    start: str,
    moves: Sequence[str],
    level: str,
    seed: int | None,
    movetime: float | None,
) -> str:
    """Rebuild the game and choose a move (runs in a worker process)."""
    return GAMES[game].choose_move(rules, blocks, start, moves, level, seed, movetime)


def warm_up() -> bool:
    """Import every game's engine in a worker ahead of the first real request."""
    for kind in GAMES.values():
        start = kind.start_text(Setup(kind.default_rules))
        choose_in_worker(kind.id, kind.default_rules, None, start, [], kind.levels[0], 0, None)
        kind.prepare_engine()
    return True


def _warmed(future: Future[bool]) -> None:
    if future.cancelled():
        return
    if future.exception() is not None:
        log.error("warming up the engine workers failed", exc_info=future.exception())
    else:
        log.info("engine workers ready")


def _exit_with_parent(parent: int) -> None:
    """(In a worker.) End the worker when the server that started it is gone.

    A server killed outright (``kill -9``, out of memory) cannot stop its pool:
    without this, each of its workers would live on, holding its memory, waiting
    for work that never comes.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def new_process_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_exit_with_parent,
        initargs=(os.getpid(),),
    )


@dataclass(eq=False)
class _Job:
    call: Callable[..., Any]
    args: tuple[Any, ...]
    future: asyncio.Future[Any]


class EnginePool:
    """Runs engine searches (and other CPU-heavy work) in worker processes, fairly.

    Jobs wait in one queue per player; each free worker takes the next job of
    the player served least recently, so that one player's many games (or
    uploads) take turns with everyone else's instead of going first. At most
    one job per worker is in the executor at a time: the executor's own queue,
    first come first served, never fills up. A job whose caller gave up
    (a game that ended, a closed request) is dropped before it runs.
    """

    def __init__(
        self, workers: int, executor: Executor | None = None, queue_limit: int = 64
    ) -> None:
        self._owned = executor is None
        self._workers = workers
        self._executor = executor
        self._warming: Future[bool] | None = None
        self.queue_limit = queue_limit
        self._queues: dict[Hashable, deque[_Job]] = {}
        #: When each player was last served (a counter), for the turn order.
        self._served: OrderedDict[Hashable, int] = OrderedDict()
        self._turn = 0
        self._running = 0
        self._waiting = 0

    @property
    def waiting(self) -> int:
        """Jobs queued, not yet running."""
        return self._waiting

    @property
    def busy(self) -> bool:
        """Whether the queue is full: new games against the computer are refused."""
        return self._waiting >= self.queue_limit

    def start_warm_up(self) -> None:
        """Start the workers and load the engine in them, in the background.

        Plain executor futures, not asyncio ones: nothing waits for them, and
        a server stopped meanwhile leaves them to finish in the pool by themselves.
        """
        if self._warming is not None:
            return
        try:
            pool = self._pool()
            futures = [pool.submit(warm_up) for _ in range(self._workers)]
        except Exception:
            log.exception("could not start the engine workers")
            return
        self._warming = futures[-1]
        self._warming.add_done_callback(_warmed)

    @property
    def warmed(self) -> bool:
        return self._warming is not None and self._warming.done()

    def _pool(self) -> Executor:
        # Spawning is slow (each worker imports the engine): only on first use.
        if self._executor is None:
            self._executor = new_process_pool(self._workers)
        return self._executor

    async def run(self, owner: Hashable, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` in a worker, in ``owner``'s turn (``call`` must be picklable)."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        job = _Job(call, args, future)
        self._queues.setdefault(owner, deque()).append(job)
        self._waiting += 1
        self._dispatch()
        try:
            return await future
        finally:
            if future.cancelled():
                self._forget(owner, job)

    def _forget(self, owner: Hashable, job: _Job) -> None:
        """Take a job whose caller gave up out of the queue (if it is still there)."""
        queue = self._queues.get(owner)
        if queue is not None and job in queue:
            queue.remove(job)
            self._waiting -= 1
            if not queue:
                del self._queues[owner]

    def _dispatch(self) -> None:
        while self._running < self._workers and self._queues:
            served = self._served
            owner = min(self._queues, key=lambda key: served.get(key, -1))
            queue = self._queues[owner]
            job = queue.popleft()
            self._waiting -= 1
            if not queue:
                del self._queues[owner]
            if job.future.done():
                continue  # its caller gave up while it waited
            self._turn += 1
            served[owner] = self._turn
            served.move_to_end(owner)
            if len(served) > _SERVED_KEPT:
                served.popitem(last=False)
            try:
                running = asyncio.wrap_future(self._pool().submit(job.call, *job.args))
            except Exception as exc:
                job.future.set_exception(exc)
                continue
            self._running += 1
            running.add_done_callback(functools.partial(self._done, job))

    def _done(self, job: _Job, running: asyncio.Future[Any]) -> None:
        self._running -= 1
        if not job.future.done():
            if running.cancelled():
                job.future.cancel()
            elif running.exception() is not None:
                job.future.set_exception(running.exception())  # type: ignore[arg-type]
            else:
                job.future.set_result(running.result())
        self._dispatch()

    async def choose(
        self,
        game: str,
        rules: str,
        blocks: str | None,
        start: str,
        moves: Sequence[str],
        level: str,
        *,
        seed: int | None = None,
        movetime: float | None = None,
        owner: Hashable = None,
    ) -> str:
        """The computer's move; ``owner`` (the player it answers) decides its turn."""
        return await self.run(
            owner,
            choose_in_worker,
            game,
            rules,
            blocks,
            start,
            list(moves),
            level,
            seed,
            movetime,
        )

    def close(self) -> None:
        if self._owned and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
