"""Guests, accounts and sessions: sign-up, login, logout, CSRF tokens, rate limits.

A session is an opaque random token in an HttpOnly cookie; the database holds
only its SHA-256, so a leaked table opens no session. Each session has its own
CSRF token, which every state-changing request must echo in a header.
Passwords are hashed with Argon2id in a worker thread (hashing is slow on
purpose and must not stall the event loop).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import string
import time
from collections import defaultdict, deque
from dataclasses import dataclass

import anyio.to_thread
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, exists, or_, select, update
from sqlalchemy.exc import IntegrityError

from gameclub.server import fields
from gameclub.server.clock import now_ms
from gameclub.server.errors import ClubError, bad_field
from gameclub.server.limits import SharedBudgets, TokenBuckets
from gameclub.server.ratings import DEFAULT_RATING, DEFAULT_RD, DEFAULT_VOLATILITY, Rating
from gameclub.server.settings import Settings
from gameclub.server.store.db import Database
from gameclub.server.store.models import Game, Invitation, PlayerRating, Session, User

SESSION_COOKIE = "gc_session"
CSRF_HEADER = "x-csrf-token"
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]{2,19}")
MIN_PASSWORD = 8
MAX_PASSWORD = 200
_GUEST_ALPHABET = string.ascii_lowercase + string.digits


@dataclass(frozen=True)
class Identity:
    """Who is asking: a guest or an account, with the session that proves it."""

    user_id: int
    name: str
    guest: bool
    #: The Ataxx rating (each game has its own: ``gameclub.server.store.games.ratings_of``).
    rating: Rating
    rated_games: int = 0
    csrf: str = ""
    token_hash: str = ""
    #: When the session ends (ms since the epoch; 0: unknown).
    expires_at: int = 0

    def to_json(self) -> dict[str, object]:
        return user_json(self.user_id, self.name, self.guest, self.rating)


def user_json(user_id: int, name: str, guest: bool, rating: Rating) -> dict[str, object]:
    return {
        "id": user_id,
        "name": name,
        "guest": guest,
        "rating": round(rating.rating),
        "rd": round(rating.rd, 1),
        "provisional": rating.provisional,
        "rating_text": rating.text(),
    }


def ataxx_rating(row: PlayerRating | None) -> tuple[Rating, int]:
    """The rating and rated games of an Ataxx rating row (``None``: a new player's)."""
    if row is None:
        return Rating(), 0
    return Rating(row.rating, row.rd, row.volatility), row.rated_games


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _rate_limited(what: str, wait: float) -> ClubError:
    error = ClubError("rate-limited", f"too many {what}; try again in {wait:.0f} seconds", 429)
    error.retry_after = wait  # type: ignore[attr-defined]
    return error


#: Keys a limiter holds before it sweeps out those it no longer needs.
_SWEEP_AT = 10_000


class RateLimiter:
    """At most ``limit`` events per ``window`` seconds for each key (a sliding window)."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._events: dict[str, deque[float]] = defaultdict(deque)

    def _sweep(self, now: float) -> None:
        for stale in [k for k, events in self._events.items() if events[-1] <= now - self.window]:
            del self._events[stale]

    def _trim(self, key: str, now: float) -> deque[float]:
        events = self._events[key]
        while events and events[0] <= now - self.window:
            events.popleft()
        return events

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may act again; 0 when it may now."""
        now = time.monotonic()
        events = self._trim(key, now)
        if len(events) < self.limit:
            if not events:
                del self._events[key]
            return 0.0
        return max(0.1, events[0] + self.window - now)

    def hit(self, key: str) -> None:
        now = time.monotonic()
        if len(self._events) >= _SWEEP_AT:
            self._sweep(now)
        self._trim(key, now).append(now)

    def check(self, key: str, what: str) -> None:
        """Raise ``rate-limited`` (429) if ``key`` is over its limit."""
        wait = self.retry_after(key)
        if wait > 0:
            raise _rate_limited(what, wait)

    #: Several nodes: the club-wide budgets and this limiter's name among them.
    shared: tuple[SharedBudgets, str] | None = None

    async def check_shared(self, key: str, what: str) -> None:
        """:meth:`check`, against the club-wide window when there is one."""
        if self.shared is None:
            self.check(key, what)
            return
        budgets, name = self.shared
        wait = await budgets.window(name, key, self.limit, self.window, hit=False)
        if wait > 0:
            raise _rate_limited(what, wait)

    async def hit_shared(self, key: str) -> None:
        """:meth:`hit`, in the club-wide window when there is one."""
        if self.shared is None:
            self.hit(key)
            return
        budgets, name = self.shared
        await budgets.window(name, key, self.limit, self.window, hit=True)


class Backoff:
    """Failures per key, each one past the first ``free`` doubling the wait before the
    next try (``base`` seconds, then twice that, ... at most ``cap``). A key's failures
    are forgotten ``forget`` seconds after its last one, or when it succeeds."""

    def __init__(self, free: int, base: float, cap: float, forget: float) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.forget = forget
        #: key -> (failures, time of the last one)
        self._failures: dict[str, tuple[int, float]] = {}

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may try again; 0 when it may now."""
        entry = self._failures.get(key)
        if entry is None:
            return 0.0
        count, last = entry
        now = time.monotonic()
        if now - last >= self.forget:
            del self._failures[key]
            return 0.0
        if count < self.free:
            return 0.0
        wait = min(self.cap, self.base * 2 ** min(count - self.free, 30))
        return max(0.0, last + wait - now)

    def check(self, key: str, what: str) -> None:
        wait = self.retry_after(key)
        if wait > 0:
            raise _rate_limited(what, max(wait, 0.1))

    def fail(self, key: str) -> None:
        now = time.monotonic()
        if len(self._failures) >= _SWEEP_AT:
            for stale in [k for k, (_, t) in self._failures.items() if now - t >= self.forget]:
                del self._failures[stale]
        count = self._failures.get(key, (0, now))[0]
        self._failures[key] = (count + 1, now)

    def succeed(self, key: str) -> None:
        self._failures.pop(key, None)

    #: Several nodes: the club-wide budgets and this back-off's name among them.
    shared: tuple[SharedBudgets, str] | None = None

    def _limits(self) -> tuple[int, float, float, float]:
        return self.free, self.base, self.cap, self.forget

    async def check_shared(self, key: str, what: str) -> None:
        if self.shared is None:
            self.check(key, what)
            return
        budgets, name = self.shared
        wait = await budgets.backoff(name, key, self._limits(), fail=False)
        if wait > 0:
            raise _rate_limited(what, max(wait, 0.1))

    async def fail_shared(self, key: str) -> None:
        if self.shared is None:
            self.fail(key)
            return
        budgets, name = self.shared
        await budgets.backoff(name, key, self._limits(), fail=True)

    async def succeed_shared(self, key: str) -> None:
        if self.shared is None:
            self.succeed(key)
            return
        budgets, name = self.shared
        await budgets.forget(name, key)


class Accounts:
    """Everything about who a request comes from."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.settings = settings
        self.hasher = PasswordHasher(
            time_cost=settings.argon2_time_cost,
            memory_cost=settings.argon2_memory_kib,
            parallelism=settings.argon2_parallelism,
            type=Type.ID,
        )
        self.attempts = RateLimiter(settings.auth_attempts_per_minute, 60.0)
        # Failed logins slow down the name *from that address* only: someone else
        # failing from elsewhere never locks the owner out of their account.
        self.failures = Backoff(
            settings.auth_free_failures,
            settings.auth_backoff_s,
            settings.auth_backoff_max_s,
            settings.auth_failure_window_s,
        )
        # A hash to verify against when the name is unknown, so that a wrong
        # name costs as long as a wrong password (no name probing by timing).
        self._dummy_hash: str | None = None
        #: New guest sessions each client address may still open (a budget per hour).
        per_hour = settings.guests_per_address_per_hour
        self.new_guests = TokenBuckets(per_hour, per_hour / 3600)

    # -- sessions -------------------------------------------------------------------

    async def resolve(self, token: str | None) -> Identity | None:
        """The identity of a session cookie, or ``None`` if it is unknown or expired."""
        if not token or len(token) > 200:
            return None
        token_hash = hash_token(token)
        async with self.db.read() as db:
            row = (
                await db.execute(
                    select(Session, User, PlayerRating)
                    .join(User, User.id == Session.user_id)
                    .outerjoin(
                        PlayerRating,
                        (PlayerRating.user_id == User.id) & (PlayerRating.game == "ataxx"),
                    )
                    .where(Session.token_hash == token_hash, Session.expires_at > now_ms())
                )
            ).first()
        if row is None:
            return None
        session, user, rating_row = row
        expires_at = await self._keep_guest(session) if user.guest else session.expires_at
        rating, rated_games = ataxx_rating(rating_row)
        return Identity(
            user.id,
            user.name,
            user.guest,
            rating,
            rated_games,
            session.csrf,
            token_hash,
            expires_at,
        )

    def _guest_idle_ms(self) -> int:
        return int(self.settings.guest_idle_days * 86_400_000)

    async def _keep_guest(self, session: Session) -> int:
        """A guest's session lasts ``guest_idle_days`` from the last visit: pushed back
        at most once a day (or a tenth of that time), not written on every request.
        Returns the session's expiry as it now stands (its sockets close then)."""
        idle = self._guest_idle_ms()
        now = now_ms()
        if session.expires_at - now > idle - min(86_400_000, idle // 10):
            return session.expires_at
        async with self.db.write() as db:
            await db.execute(
                update(Session)
                .where(Session.token_hash == session.token_hash)
                .values(expires_at=now + idle)
            )
        return now + idle

    async def sweep(self) -> int:
        """Delete expired sessions, then guests idle for ``guest_idle_days`` with no
        session left and nothing that refers to them (games, invitations);
        returns how many guests went. (Only old guests: a new one is stored a
        moment before its session.)"""
        now = now_ms()
        async with self.db.write() as db:
            await db.execute(delete(Session).where(Session.expires_at <= now))
            result = await db.execute(
                delete(User).where(
                    User.guest.is_(True),
                    User.created_at < now - self._guest_idle_ms(),
                    ~exists().where(Session.user_id == User.id),
                    ~exists().where(or_(Game.x_user_id == User.id, Game.o_user_id == User.id)),
                    ~exists().where(
                        or_(Invitation.from_user_id == User.id, Invitation.to_user_id == User.id)
                    ),
                )
            )
        return int(getattr(result, "rowcount", 0) or 0)

    async def _new_session(self, user: User) -> tuple[str, Identity]:
        token = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(24)
        now = now_ms()
        lifetime = (
            self._guest_idle_ms() if user.guest else self.settings.session_days * 86_400_000
        )
        expires_at = now + lifetime
        async with self.db.write() as db:
            db.add(
                Session(
                    token_hash=hash_token(token),
                    user_id=user.id,
                    csrf=csrf,
                    created_at=now,
                    expires_at=expires_at,
                )
            )
            rating_row = await db.get(PlayerRating, (user.id, "ataxx"))
        rating, rated_games = ataxx_rating(rating_row)
        identity = Identity(
            user.id,
            user.name,
            user.guest,
            rating,
            rated_games,
            csrf,
            hash_token(token),
            expires_at,
        )
        return token, identity

    async def end_session(self, identity: Identity) -> None:
        """Delete the session (its open sockets are the caller's to close: ``Connections``)."""
        async with self.db.write() as db:
            await db.execute(delete(Session).where(Session.token_hash == identity.token_hash))

    # -- guests and accounts ---------------------------------------------------------

    async def create_guest(self) -> tuple[str, Identity]:
        """A new guest ``Guest-xxxx`` with a session; returns the cookie token too."""
        for length in (4, 4, 4, 6, 6, 8, 10):
            name = "Guest-" + "".join(secrets.choice(_GUEST_ALPHABET) for _ in range(length))
            user = await self._insert_user(name, None, guest=True)
            if user is not None:
                return await self._new_session(user)
        raise ClubError("busy", "could not find a free guest name; try again", 503)

    async def _insert_user(
        self, name: str, password_hash: str | None, *, guest: bool
    ) -> User | None:
        """Insert a user; ``None`` if the name (in any case) is taken."""
        user = User(
            name=name,
            name_key=name.lower(),
            password_hash=password_hash,
            guest=guest,
            created_at=now_ms(),
            rating=DEFAULT_RATING,
            rd=DEFAULT_RD,
            volatility=DEFAULT_VOLATILITY,
            rated_games=0,
        )
        try:
            async with self.db.write() as db:
                db.add(user)
        except IntegrityError:
            return None
        return user

    @staticmethod
    def check_credentials_shape(name: object, password: object) -> tuple[str, str]:
        if not isinstance(name, str) or not isinstance(password, str):
            raise bad_field("name and password must be strings")
        return name, password

    async def sign_up(self, name: object, password: object, client: str) -> tuple[str, Identity]:
        name, password = self.check_credentials_shape(name, password)
        if not NAME_PATTERN.fullmatch(name) or name.lower().startswith("guest"):
            raise bad_field(
                "name: 3-20 letters, digits, '_' or '-', starting with a letter"
                " and not starting with 'Guest'"
            )
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise bad_field(
                f"password: between {MIN_PASSWORD} and {MAX_PASSWORD} characters, please"
            )
        await self.attempts.check_shared(f"ip:{client}", "sign-up and login attempts")
        await self.attempts.hit_shared(f"ip:{client}")
        if await self._find_user(name) is not None:
            raise ClubError("name-taken", f"the name {name!r} is taken", 409)
        password_hash = await anyio.to_thread.run_sync(self.hasher.hash, password)
        user = await self._insert_user(name, password_hash, guest=False)
        if user is None:
            raise ClubError("name-taken", f"the name {name!r} is taken", 409)
        return await self._new_session(user)

    async def _find_user(self, name: str) -> User | None:
        async with self.db.read() as db:
            return (
                await db.execute(select(User).where(User.name_key == name.lower()))
            ).scalar_one_or_none()

    async def log_in(self, name: object, password: object, client: str) -> tuple[str, Identity]:
        name, password = self.check_credentials_shape(name, password)
        if len(name) > 40 or len(password) > MAX_PASSWORD:
            raise ClubError("bad-credentials", "wrong name or password", 401)
        await self.attempts.check_shared(f"ip:{client}", "sign-up and login attempts")
        failures = f"{name.lower()} from {client}"
        await self.failures.check_shared(failures, "failed logins for this name")
        await self.attempts.hit_shared(f"ip:{client}")
        # A name that no account can have (odd characters) is not looked up.
        user = await self._find_user(name) if fields.key(name) else None
        if user is None or user.guest or user.password_hash is None:
            await anyio.to_thread.run_sync(self._verify_dummy, password)
            await self.failures.fail_shared(failures)
            raise ClubError("bad-credentials", "wrong name or password", 401)
        try:
            await anyio.to_thread.run_sync(self.hasher.verify, user.password_hash, password)
        except (VerificationError, InvalidHashError):
            await self.failures.fail_shared(failures)
            raise ClubError("bad-credentials", "wrong name or password", 401) from None
        await self.failures.succeed_shared(failures)
        return await self._new_session(user)

    def _verify_dummy(self, password: str) -> None:
        if self._dummy_hash is None:
            self._dummy_hash = self.hasher.hash(secrets.token_hex(8))
        with contextlib.suppress(VerificationError):
            self.hasher.verify(self._dummy_hash, password)
