"""One place for the club's configuration: database URL, host, port, limits.

Every knob the server reads lives in :class:`Settings`; ``Settings.from_env()``
reads the few that come from the environment (``GAMECLUB_DATABASE_URL``,
``GAMECLUB_HOST``, ``GAMECLUB_PORT``, ``GAMECLUB_SECURE_COOKIES``,
``GAMECLUB_TRUSTED_PROXIES``).
"""

from __future__ import annotations

import os
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
    #: Directory of the static front end; ``None`` = the ``gameclub/web`` package folder.
    web_dir: Path | None = None
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
        given = {key: value for key, value in overrides.items() if value is not None}
        return replace(settings, **given)  # type: ignore[arg-type]

    def engine_workers(self) -> int:
        if self.ai_workers > 0:
            return self.ai_workers
        return max(1, (os.cpu_count() or 2) - 1)
