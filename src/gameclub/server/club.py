"""The services of one running club, wired together in the app's lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from concurrent.futures import Executor
from dataclasses import dataclass, field

from gameclub.server.accounts import Accounts
from gameclub.server.ai import EnginePool
from gameclub.server.cluster import Cluster
from gameclub.server.limits import SharedBudgets
from gameclub.server.lobby import Lobby
from gameclub.server.round import Rounds
from gameclub.server.settings import Settings
from gameclub.server.store.db import Database
from gameclub.server.ws import Connections

log = logging.getLogger(__name__)


@dataclass
class Club:
    settings: Settings
    db: Database
    accounts: Accounts
    engines: EnginePool
    rounds: Rounds
    lobby: Lobby
    connections: Connections
    #: This node's part in a club of several nodes (``None``: a club of one process).
    cluster: Cluster | None = None
    #: Several nodes: the request and rate budgets, kept in Redis for the whole club.
    shared_budgets: SharedBudgets | None = None
    _sweeper: asyncio.Task[None] | None = field(default=None, repr=False)

    @classmethod
    async def start(cls, settings: Settings, ai_executor: Executor | None = None) -> Club:
        """Open the database (migrating it) and start the periodic sweep.

        Games in progress are not loaded here: each is resumed when someone
        asks for it (:meth:`Rounds.get`), so start-up does not grow with them.
        """
        db = Database(settings.database_url, async_commit=settings.async_commit)
        await db.migrate()
        engines = EnginePool(settings.engine_workers(), ai_executor, settings.ai_queue_limit)
        rounds = Rounds(db, settings, engines)
        connections = Connections()
        lobby = Lobby(db, settings, rounds, connections.online_count, connections.notify)
        rounds.notify = connections.notify
        rounds.on_change = lobby.changed
        cluster = None
        if settings.redis_url is not None:
            # One node of several: games by lease, club-wide messages and counts.
            cluster = Cluster(settings, rounds, connections)
            try:
                await cluster.start()
            except BaseException:
                await cluster.close()
                engines.close()
                await db.close()
                raise
            rounds.cluster = cluster
            rounds.notify = lobby.notify = cluster.notify
            lobby.online_count = cluster.online_count
            lobby.playing_count = cluster.playing_count
            cluster.on_shares = lobby.changed
            cluster.lobby = lobby
            lobby.cluster = cluster
        accounts = Accounts(db, settings)
        club = cls(settings, db, accounts, engines, rounds, lobby, connections)
        club.cluster = cluster
        if cluster is not None:
            # Every budget of a client or player is the club's, wherever requests land.
            shared = club.shared_budgets = SharedBudgets(cluster.redis)
            accounts.attempts.shared = (shared, "attempts")
            accounts.failures.shared = (shared, "failures")
            accounts.new_guests.shared = (shared, "guests")
            rounds.creations.shared = (shared, "games")
        club._sweeper = asyncio.create_task(club._sweep_every(settings.sweep_interval_s))
        # The engine's workers start in the background: the first computer move
        # need not wait for them, and start-up does not either.
        engines.start_warm_up()
        return club

    async def sweep(self) -> None:
        """Expired sessions and idle guests out; stored games nobody started aborted."""
        guests = await self.accounts.sweep()
        games = await self.rounds.abort_abandoned()
        if guests or games:
            log.info("sweep: %d idle guests deleted, %d unstarted games aborted", guests, games)

    async def _sweep_every(self, interval: float) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:
                log.exception("the sweep of sessions and games failed; trying again later")
            await asyncio.sleep(interval)

    async def stop(self) -> None:
        if self._sweeper is not None:
            # Finished before the database closes under it.
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        self.lobby.close()
        if self.cluster is not None:
            await self.cluster.close()
        self.rounds.close()
        self.engines.close()
        await self.db.close()
