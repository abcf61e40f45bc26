"""The computer's moves, chosen in worker processes so the event loop never waits on a search.

A worker gets the game as plain data (rule set name, blocks, start FEN and
moves, so repetitions are known to the engine), rebuilds the board and asks
:func:`gameclub.ataxx.engine.choose_move`. Workers are spawned, not forked:
forking a process that runs threads (the event loop, database drivers) can
copy a held lock into the child.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor

from gameclub.ataxx import RULESETS, Board
from gameclub.ataxx.engine import choose_move

log = logging.getLogger(__name__)


def choose_in_worker(
    rules: str,
    blocks: str | None,
    start_fen: str,
    moves: Sequence[str],
    level: str,
    seed: int | None,
    movetime: float | None,
) -> str:
    """Rebuild the game and choose a move (runs in a worker process)."""
    ruleset = RULESETS[rules]
    if blocks:
        ruleset = ruleset.with_blocks(blocks)
    board = Board(start_fen, ruleset)
    for move in moves:
        board.push_uci(move)
    return choose_move(board, level, seed=seed, movetime=movetime).uci()


def warm_up() -> bool:
    """Import the engine in a worker ahead of the first real request."""
    return bool(
        choose_in_worker("ataxx", None, RULESETS["ataxx"].start_fen(), [], "random", 0, None)
    )


def _warmed(future: Future[bool]) -> None:
    if future.cancelled():
        return
    if future.exception() is not None:
        log.error("warming up the engine workers failed", exc_info=future.exception())
    else:
        log.info("engine workers ready")


def new_process_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


class EnginePool:
    """Runs engine searches in an executor (a process pool unless one is handed in)."""

    def __init__(self, workers: int, executor: Executor | None = None) -> None:
        self._owned = executor is None
        self._workers = workers
        self._executor = executor
        self._warming: Future[bool] | None = None

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

    async def choose(
        self,
        rules: str,
        blocks: str | None,
        start_fen: str,
        moves: Sequence[str],
        level: str,
        *,
        seed: int | None = None,
        movetime: float | None = None,
    ) -> str:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._pool(),
            choose_in_worker,
            rules,
            blocks,
            start_fen,
            list(moves),
            level,
            seed,
            movetime,
        )

    def close(self) -> None:
        if self._owned and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
