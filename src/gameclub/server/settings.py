"""One place for the club's configuration: database URL, host, port, limits.

Every knob the server reads lives in :class:`Settings`; ``Settings.from_env()``
reads the few that come from the environment (``GAMECLUB_DATABASE_URL``,
``GAMECLUB_HOST``, ``GAMECLUB_PORT``, ``GAMECLUB_SECURE_COOKIES``,
``GAMECLUB_TRUSTED_PROXIES``, and for a club of several nodes ``GAMECLUB_REDIS_URL``,
``GAMECLUB_NODE_ID``, ``GAMECLUB_LEASE_SECONDS``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

DEFAULT_DATABASE_PATH = Path("var") / "gameclub.db"


def default_database_url() -> str:
    """The embedded SQLite database under ``./var`` (created on first start)."""
    return f"sqlite:///{DEFAULT_DATABASE_PATH.as_posix()}"


@dataclass(frozen=True)
class Settings:
    """Configuration of one club instance; frozen so nothing changes it behind our back."""

    database_url: str = field(default_factory=default_database_url)
    host: str = "127.0.0.1"
    port: int = 8000
    #: Set the ``Secure`` flag on cookies (behind HTTPS).
    secure_cookies: bool = False
    #: Addresses (or networks, ``10.0.0.0/8``) of the reverse proxies in front of the
    #: club: only a request coming from one of them is believed about the client's
    #: address (``X-Forwarded-For``) and scheme. None by default: every address the
    #: limits count is the peer's own.
    trusted_proxies: tuple[str, ...] = ()
    #: Argon2id cost; the defaults are argon2-cffi's (RFC 9106 low-memory profile).
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    argon2_parallelism: int = 4
    session_days: int = 60
    #: Login / sign-up attempts a minute per client address.
    auth_attempts_per_minute: int = 10
    #: Failed logins for one name from one address before each next one doubles the
    #: wait (from ``auth_backoff_s`` up to ``auth_backoff_max_s``); forgotten
    #: ``auth_failure_window_s`` after the last one.
    auth_free_failures: int = 5
    auth_backoff_s: float = 2.0
    auth_backoff_max_s: float = 900.0
    auth_failure_window_s: float = 3600.0
    #: WebSocket limits: largest frame accepted, and the per-connection budget.
    ws_max_message_bytes: int = 4096
    ws_burst: int = 30
    ws_rate_per_s: float = 10.0
    #: A connection this many messages beyond its budget is closed.
    ws_close_after_overdraft: int = 100
    #: Seconds a disconnected player keeps the game before the opponent may claim it.
    disconnect_grace_s: float = 30.0
    #: Engine worker processes (0 = one per CPU but one).
    ai_workers: int = 0
    #: Upper bound on the computer's thinking time per move, seconds.
    ai_max_movetime_s: float = 2.0
    max_seeks_per_user: int = 3
    # -- availability: what one client may cost everyone else (docs/server.md, "Limits") --
    #: HTTP requests to ``/api`` and WebSocket handshakes per client address: a
    #: token bucket (burst, then a steady rate); beyond it, 429 without further work.
    api_burst: int = 200
    api_rate_per_s: float = 20.0
    #: Largest request body (JSON) and largest PGN record upload, in bytes.
    max_body_bytes: int = 16 * 1024
    max_record_bytes: int = 64 * 1024
    #: Most moves a record may hold (a 7x7 game rarely reaches 300).
    max_record_plies: int = 1000
    #: New guest sessions per client address per hour.
    guests_per_address_per_hour: int = 60
    #: A guest's session ends after this long without a visit (then the guest is
    #: deleted if it has no games); accounts keep ``session_days``.
    guest_idle_days: float = 14.0
    #: Unfinished games a player may have: against the computer, and in all.
    max_ai_games_per_player: int = 3
    max_open_games_per_player: int = 20
    #: Games a player may start (any kind) per ten minutes, and open invitations held.
    games_per_player_per_10min: int = 30
    max_open_invitations_per_player: int = 10
    #: Engine requests waiting for a worker beyond which new games against the
    #: computer are refused (the queue serves players in turn, not first come).
    ai_queue_limit: int = 64
    #: A game in which a person to move has not made the first move of their side
    #: within this time is aborted (as on lichess); ``0`` = never.
    abort_unstarted_after_s: float = 120.0
    #: Games in progress listed by ``GET /api/me`` (the newest).
    me_games_limit: int = 50
    #: WebSockets open at once per user (tabs and devices).
    max_sockets_per_user: int = 20
    #: Finished games kept in memory for rematches and late spectators (the store
    #: keeps them all); beyond this the oldest unwatched ones are dropped.
    max_finished_rounds: int = 500
    #: Seconds between sweeps of expired sessions, idle guests and abandoned games.
    sweep_interval_s: float = 600.0
    #: Directory of the static front end; ``None`` = the ``gameclub/web`` package folder.
    web_dir: Path | None = None
    # -- several nodes (docs/server.md, "Several nodes") --
    #: Redis between the nodes of one club; ``None``: a club of one process, no Redis.
    redis_url: str | None = None
    #: This node's name among the club's nodes (``None``: made up at start, unique).
    node_id: str | None = None
    #: How long a node's hold on a live game lasts unless renewed (renewed every third
    #: of it): after a node dies, its games are taken over within about this long.
    lease_s: float = 5.0
    #: How long a node waits for the owner of a game to answer a forwarded action.
    forward_timeout_s: float = 3.0
    #: PostgreSQL: acknowledge the moves once committed, without waiting for the commit
    #: to reach the disk (``synchronous_commit = off`` for the group commits). A node's
    #: crash still loses nothing; a crash of PostgreSQL or of its machine may lose the
    #: last fraction of a second. (SQLite's ``synchronous=NORMAL`` is alike.)
    async_commit: bool = False
    #: Tune the process's garbage collector for serving (``serve()`` sets it; see
    #: :func:`gameclub.server.app.tune_gc`). Off for apps built in another process (tests).
    tune_gc: bool = False

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Settings from the environment, then ``overrides`` (``None`` values ignored)."""
        settings = cls()
        env = os.environ
        if env.get("GAMECLUB_DATABASE_URL"):
            settings = replace(settings, database_url=env["GAMECLUB_DATABASE_URL"])
        if env.get("GAMECLUB_HOST"):
            settings = replace(settings, host=env["GAMECLUB_HOST"])
        if env.get("GAMECLUB_PORT"):
            settings = replace(settings, port=int(env["GAMECLUB_PORT"]))
        if env.get("GAMECLUB_SECURE_COOKIES", "").lower() in ("1", "true", "yes"):
            settings = replace(settings, secure_cookies=True)
        if env.get("GAMECLUB_TRUSTED_PROXIES"):
            proxies = env["GAMECLUB_TRUSTED_PROXIES"].split(",")
            trusted = tuple(proxy.strip() for proxy in proxies if proxy.strip())
            settings = replace(settings, trusted_proxies=trusted)
        if env.get("GAMECLUB_REDIS_URL"):
            settings = replace(settings, redis_url=env["GAMECLUB_REDIS_URL"])
        if env.get("GAMECLUB_NODE_ID"):
            settings = replace(settings, node_id=env["GAMECLUB_NODE_ID"])
        asynchronous = env.get("GAMECLUB_ASYNC_COMMIT", "").strip().lower()
        if asynchronous:
            if asynchronous not in _YES + _NO:
                raise ValueError(
                    f"GAMECLUB_ASYNC_COMMIT must be one of {', '.join(_YES + _NO)},"
                    f" not {env['GAMECLUB_ASYNC_COMMIT']!r}"
                )
            settings = replace(settings, async_commit=asynchronous in _YES)
        settings = replace(settings, **_numbers_from_env(env))  # type: ignore[arg-type]
        given = {key: value for key, value in overrides.items() if value is not None}
        return replace(settings, **given)  # type: ignore[arg-type]

    def engine_workers(self) -> int:
        if self.ai_workers > 0:
            return self.ai_workers
        return max(1, (os.cpu_count() or 2) - 1)


_YES = ("1", "true", "yes", "on")
_NO = ("0", "false", "no", "off")

#: Numeric settings that the environment may set as ``GAMECLUB_<NAME>`` (the limits
#: and budgets a host tunes without code: ``GAMECLUB_API_BURST=500``).
ENV_NUMBERS = (
    "api_burst",
    "api_rate_per_s",
    "guests_per_address_per_hour",
    "games_per_player_per_10min",
    "max_open_games_per_player",
    "max_ai_games_per_player",
    "ai_queue_limit",
    "max_body_bytes",
    "ai_workers",
    "lease_s",
    "forward_timeout_s",
)


#: Environment names that are not simply ``GAMECLUB_`` and the setting's name.
_ENV_NAMES = {"lease_s": "LEASE_SECONDS", "forward_timeout_s": "FORWARD_TIMEOUT_SECONDS"}


def _numbers_from_env(env: Mapping[str, str]) -> dict[str, int | float]:
    """The ``ENV_NUMBERS`` the environment sets, read strictly (ASCII digits, finite)."""
    defaults = Settings()
    found: dict[str, int | float] = {}
    for name in ENV_NUMBERS:
        variable = "GAMECLUB_" + _ENV_NAMES.get(name, name.upper())
        text = env.get(variable, "").strip()
        if not text:
            continue
        kind = type(getattr(defaults, name))
        pattern = r"[0-9]+" if kind is int else r"[0-9]+(\.[0-9]+)?"
        if re.fullmatch(pattern, text) is None:
            what = "a whole number" if kind is int else "a number"
            raise ValueError(f"{variable} must be {what} (ASCII digits), not {text!r}")
        found[name] = kind(text)
    return found
