"""The services of one running club, wired together in the app's lifespan."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

from gameclub.server.accounts import Accounts
from gameclub.server.ai import EnginePool
from gameclub.server.lobby import Lobby
from gameclub.server.round import Rounds
from gameclub.server.settings import Settings
from gameclub.server.store.db import Database
from gameclub.server.ws import Connections


@dataclass
class Club:
    settings: Settings
    db: Database
    accounts: Accounts
    engines: EnginePool
    rounds: Rounds
    lobby: Lobby
    connections: Connections

    @classmethod
    async def start(cls, settings: Settings, ai_executor: Executor | None = None) -> Club:
        """Open the database (migrating it), then resume the games in progress."""
        db = Database(settings.database_url)
        await db.migrate()
        engines = EnginePool(settings.engine_workers(), ai_executor, settings.ai_queue_limit)
        rounds = Rounds(db, settings, engines)
        connections = Connections()
        lobby = Lobby(db, settings, rounds, connections.online_count, connections.notify)
        rounds.notify = connections.notify
        rounds.on_change = lobby.changed
        club = cls(settings, db, Accounts(db, settings), engines, rounds, lobby, connections)
        await rounds.resume_all()
        # The engine's workers start in the background: the first computer move
        # need not wait for them, and start-up does not either.
        engines.start_warm_up()
        return club

    async def stop(self) -> None:
        self.lobby.close()
        self.rounds.close()
        self.engines.close()
        await self.db.close()
