"""One live game: the single owner of its board, clock, result and events.

Every action on a game (a move, a resignation, a draw offer, a flag falling,
the computer's reply) goes through its :class:`Round` under the round's
asyncio lock, in this order: check everything, change the state, store it
(moves and game row in one transaction), bump the version, then tell the
subscribers. If storing fails, the in-memory state is put back: a refused or
failed action changes nothing.

:class:`Rounds` holds the live rounds of the process, creates games, loads
stored ones on demand and resumes games in progress after a restart.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.exc import DBAPIError

from gameclub.games import Color, GameError
from gameclub.server import jsontext
from gameclub.server.ai import EnginePool
from gameclub.server.clock import GameClock, new_id, now_ms
from gameclub.server.errors import ClubError
from gameclub.server.fields import key
from gameclub.server.limits import TokenBuckets, rate_limited
from gameclub.server.options import GameOptions
from gameclub.server.ratings import Rating
from gameclub.server.settings import Settings
from gameclub.server.store import games as store
from gameclub.server.store.db import Database
from gameclub.server.store.models import Game, MoveRow, User

if TYPE_CHECKING:
    from gameclub.server.cluster import Cluster

log = logging.getLogger(__name__)

COLORS = (Color.X, Color.O)
#: What a player may do to a game: the methods :meth:`Round.act_as` calls.
PLAYER_ACTIONS = frozenset(
    {"play", "resign", "draw", "draw_decline", "abort", "claim", "rematch",
     "rematch_decline", "takeback", "takeback_decline"}
)
#: Finished rounds stay in memory this long for rematches and late spectators.
KEEP_FINISHED_S = 600.0
#: A game is listed for spectators (``GET /api/games/live``) while its last move is this recent.
WATCHABLE_IDLE_MS = 10 * 60 * 1000


class Subscriber(Protocol):
    """A connection that receives a game's events (see :mod:`gameclub.server.ws`)."""

    user_id: int

    def send_text(self, text: str) -> None:
        """Queue ``text`` for sending; never blocks."""


Notify = Callable[[int, dict[str, Any]], None]


class Followed(Protocol):
    """A game followed by a connection: a :class:`Round`, or a stand-in for one owned
    by another node (:class:`gameclub.server.cluster.RemoteRound`)."""

    id: str

    def unsubscribe(self, sub: Subscriber) -> None: ...


@dataclass(frozen=True)
class Seat:
    """Who plays one side: a user (guest or account) or the computer at a level."""

    user_id: int | None
    name: str
    guest: bool = False
    ai: str | None = None
    rating: Rating | None = None

    @classmethod
    def computer(cls, level: str) -> Seat:
        return cls(None, f"Computer ({level})", ai=level)

    @classmethod
    def of_user(cls, user: User, rating: Rating | None = None) -> Seat:
        """``user``'s seat, with their rating in the game played (default: a new player's)."""
        return cls(user.id, user.name, user.guest, None, rating or Rating())

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.user_id,
            "name": self.name,
            "guest": self.guest,
            "ai": self.ai,
            "rating": round(self.rating.rating) if self.rating else None,
            "rating_text": self.rating.text() if self.rating else None,
        }


class Round:
    """The live state of one game; all changes go through its methods under ``lock``."""

    def __init__(
        self,
        hub: Rounds,
        game_id: str,
        options: GameOptions,
        start_fen: str,
        seats: dict[Color, Seat],
        created_at: int,
    ) -> None:
        self.hub = hub
        self.id = game_id
        self.options = options
        self.start_fen = start_fen
        #: The position, in the rules of the game played (see :mod:`gameclub.games`).
        self.board = options.position(start_fen)
        self.start_turn = self.board.turn
        self.seats = seats
        self.created_at = created_at
        self.moves: list[str] = []
        self.autos: list[bool] = []
        #: When the last move was played (epoch ms); None before the first.
        self.last_move_at: int | None = None
        self.status = store.STARTED
        self.winner: Color | None = None
        self.reason: str | None = None
        self.score: tuple[int, int] | None = None
        self.ended_at: int | None = None
        self.version = 1
        self.clock = (
            GameClock.new(options.clock_base_ms, options.clock_inc_ms or 0)
            if options.clock_base_ms is not None
            else None
        )
        self.draw_offer: Color | None = None
        self.rematch_offer: Color | None = None
        self.takeback_offer: Color | None = None
        #: Bumped by every takeback: a computer move chosen before one is dropped.
        self.epoch = 0
        self.start_label = options.start()
        self.rematch_id: str | None = None
        self.rematch_of: str | None = None
        self.rating_diffs: dict[Color, float] | None = None
        self.last: dict[str, Any] | None = None
        self.lock = asyncio.Lock()
        self.subscribers: dict[Subscriber, Color | None] = {}
        #: When each human side's last connection went away (``None``: connected).
        self.disconnected_since: dict[Color, int | None] = {
            color: created_at if seats[color].ai is None else None for color in COLORS
        }
        #: After a restart, the side to move whose clock waits for it to come back.
        self.waiting_for: Color | None = None
        self._timer: asyncio.TimerHandle | None = None
        #: Since when the side to move has had the turn (ms), for games not yet started.
        self.turn_since = created_at
        self._abort_timer: asyncio.TimerHandle | None = None
        #: Answers about the whole game (its record, its PGN) by kind, with the
        #: version they were made from: see api.game_record.
        self.record_cache: dict[str, tuple[Any, bytes]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: The computer's task for its current turn, and the epoch it was started in.
        self._thinking: tuple[asyncio.Task[None], int] | None = None
        #: Several nodes: this node's owner epoch of the game, the fence of its every
        #: write (``None``: a club of one process, nothing to fence).
        self.owner_epoch: int | None = None

    # -- reading ----------------------------------------------------------------------

    @property
    def live(self) -> bool:
        return self.status == store.STARTED

    def watchable(self, now: int) -> bool:
        """Really being played: live, both sides have made a move, and one was made lately.

        Games abandoned before they started, or left alone for long, are not
        worth a spectator's click.
        """
        last = self.last_move_at
        if not self.live or last is None or now - last > WATCHABLE_IDLE_MS:
            return False
        movers: set[Color] = set()
        for ply, auto in enumerate(self.autos):
            if not auto:
                movers.add(self._mover_at(ply))
                if len(movers) == 2:
                    return True
        return False

    @property
    def abortable(self) -> bool:
        return self.live and len(self.moves) < 2

    @property
    def hotseat(self) -> bool:
        """Both sides played by the same person on one device."""
        x_id = self.seats[Color.X].user_id
        return x_id is not None and x_id == self.seats[Color.O].user_id

    def color_of(self, user_id: int) -> Color | None:
        for color in COLORS:
            if self.seats[color].user_id == user_id:
                return color
        return None

    def _colors_of(self, user_id: int) -> list[Color]:
        return [color for color in COLORS if self.seats[color].user_id == user_id]

    def player_color(self, user_id: int) -> Color:
        """The colour ``user_id`` plays, or ``not-a-player`` for a spectator.

        In a hot-seat game the player acts for the side to move.
        """
        color = self.color_of(user_id)
        if color is None:
            raise ClubError(
                "not-a-player", "you are watching this game: spectators cannot act", 403
            )
        return self.board.turn if self.hotseat and self.live else color

    def _you(self, color: Color | None) -> Color | None:
        if color is not None and self.hotseat and self.live:
            return self.board.turn
        return color

    def spectator_count(self) -> int:
        return sum(1 for color in self.subscribers.values() if color is None)

    def online(self) -> dict[str, bool]:
        return {
            color.char: self.seats[color].ai is not None or self.disconnected_since[color] is None
            for color in COLORS
        }

    def claim_at(self) -> int | None:
        """When the connected player may claim the game of a disconnected opponent."""
        if not self.live or self.abortable:
            return None
        for color in COLORS:
            since = self.disconnected_since[color]
            other = color.other
            if (
                since is not None
                and self.seats[other].ai is None
                and self.disconnected_since[other] is None
            ):
                return since + int(self.hub.settings.disconnect_grace_s * 1000)
        return None

    def result_json(self) -> dict[str, Any] | None:
        if self.reason is None:
            return None
        return {
            "winner": self.winner.char if self.winner is not None else None,
            "reason": self.reason,
            "score": list(self.score) if self.score else None,
            "rating_diff": (
                {c.char: round(d, 1) for c, d in self.rating_diffs.items()}
                if self.rating_diffs
                else None
            ),
        }

    def players_json(self) -> dict[str, Any]:
        online = self.online()
        return {
            color.char: {**self.seats[color].to_json(), "online": online[color.char]}
            for color in COLORS
        }

    def summary_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.options.game,
            "players": self.players_json(),
            "rules": self.options.rules,
            "blocks": self.options.blocks,
            "clock": self.options.clock_json(),
            "rated": self.options.rated,
            "plies": len(self.moves),
            **self.board.summary(),
            "spectators": self.spectator_count(),
        }

    def state_json(self, now: int | None = None) -> dict[str, Any]:
        """The full state message (without the per-connection ``you``)."""
        now = now_ms() if now is None else now
        board = self.board
        return {
            "t": "state",
            "game": self.id,
            "kind": self.options.game,
            "v": self.version,
            "status": self.status,
            "rules": self.options.rules,
            "blocks": self.options.blocks,
            "rated": self.options.rated,
            "clock": self.options.clock_json(),
            "players": self.players_json(),
            **board.view(live=self.live),
            "start_position": self.start_fen,
            "turn": board.turn.char,
            "moves": list(self.moves),
            "last": self.last,
            "clocks": self.clock.to_json(now) if self.clock is not None else None,
            "draw_offer": self.draw_offer.char if self.draw_offer is not None else None,
            "abortable": self.abortable,
            "claim_at": self.claim_at(),
            "rematch_offer": self.rematch_offer.char if self.rematch_offer is not None else None,
            "rematch": self.rematch_id,
            "takeback_offer": (
                self.takeback_offer.char if self.takeback_offer is not None else None
            ),
            "takebacks": not self.options.rated,
            "hotseat": self.hotseat,
            "start": self.start_label,
            "result": self.result_json(),
            "spectators": self.spectator_count(),
        }

    # -- subscribers ----------------------------------------------------------------------

    def _frame(self, base: str, color: Color | None) -> str:
        # The state is serialised once per change; only "you" differs per connection.
        color = self._you(color)
        you = jsontext.dumps(color.char if color is not None else None)
        return f'{base[:-1]},"you":{you}}}'

    def subscribe(self, sub: Subscriber) -> str:
        """Add a connection; returns the state message for it."""
        color = self.color_of(sub.user_id)
        self.subscribers[sub] = color
        for mine in self._colors_of(sub.user_id):
            self.disconnected_since[mine] = None
        waiting = self.waiting_for
        if (
            waiting is not None
            and self.live
            and waiting in self._colors_of(sub.user_id)
            and self.clock is not None
        ):
            if not self.lock.locked():
                # Nothing in flight: the change is whole before anything else runs.
                self._come_back(waiting)
                return self._frame(jsontext.dumps(self.state_json()), color)
            # An action is being stored: the clock starts after it, under the lock.
            self._spawn(self._come_back_locked(waiting))
        frame = self._frame(jsontext.dumps(self.state_json()), color)
        self._broadcast_presence(exclude=sub)
        return frame

    def _come_back(self, color: Color) -> None:
        """Back after a restart: ``color``'s clock starts again now. (Not stored: a
        crash before the next move restores the same time left.)"""
        assert self.clock is not None
        self.waiting_for = None
        self.clock.start(color, now_ms())
        self.version += 1
        self._arm_flag_timer()
        self.broadcast()

    async def _come_back_locked(self, color: Color) -> None:
        async with self.lock:
            if self.waiting_for is color and self.live:
                self._come_back(color)

    async def act_as(self, user_id: int, action: str, *args: Any) -> int:
        """The player ``user_id``'s ``action`` (a method: ``play``, ``resign``, ...) for
        their colour; returns the new version. Spectators get ``not-a-player``."""
        if action not in PLAYER_ACTIONS:
            raise ClubError("bad-message", f"no action {action[:20]!r}")
        color = self.player_color(user_id)
        result: int = await getattr(self, action)(color, *args)
        return result

    def unsubscribe(self, sub: Subscriber) -> None:
        if sub not in self.subscribers:
            return
        color = self.subscribers.pop(sub)
        if color is not None and color not in self.subscribers.values():
            for mine in self._colors_of(sub.user_id):
                self.disconnected_since[mine] = now_ms()
        self._broadcast_presence()

    def _broadcast_presence(self, exclude: Subscriber | None = None) -> None:
        text = jsontext.dumps(
            {
                "t": "presence",
                "game": self.id,
                "spectators": self.spectator_count(),
                "online": self.online(),
                "claim_at": self.claim_at(),
            }
        )
        for sub in list(self.subscribers):
            if sub is not exclude:
                sub.send_text(text)

    def broadcast(self) -> None:
        base = jsontext.dumps(self.state_json())
        for sub, color in list(self.subscribers.items()):
            sub.send_text(self._frame(base, color))

    def delta_json(
        self, ply: int, plies: list[dict[str, Any]], now: int | None = None
    ) -> dict[str, Any]:
        """The ``delta`` message of a move: what changed since the previous version.

        ``plies`` are the moves played from index ``ply`` on (the player's
        move, then any forced passes), each in the form of ``last``. Every
        other field is the new value of the state field of the same name;
        the fields a move cannot change are left out.
        """
        now = now_ms() if now is None else now
        board = self.board
        clock = self.clock
        return {
            "t": "delta",
            "game": self.id,
            "v": self.version,
            "ply": ply,
            "plies": plies,
            **board.delta_view(),
            "turn": board.turn.char,
            "clocks": clock.to_json(now) if clock is not None else None,
            "draw_offer": self.draw_offer.char if self.draw_offer is not None else None,
            "takeback_offer": (
                self.takeback_offer.char if self.takeback_offer is not None else None
            ),
            "abortable": self.abortable,
            "claim_at": self.claim_at(),
        }

    def broadcast_delta(self, ply: int, plies: list[dict[str, Any]]) -> None:
        """Send a move's ``delta``: encoded once, the same text to every subscriber."""
        if not self.subscribers:
            return
        text = jsontext.dumps(self.delta_json(ply, plies))
        for sub in list(self.subscribers):
            sub.send_text(text)

    # -- persistence ------------------------------------------------------------------------

    def _fields(self) -> dict[str, Any]:
        """All of the game row's fields that change during a game."""
        return {
            **self._move_fields(),
            "status": self.status,
            "winner": self.winner.char if self.winner is not None else None,
            "reason": self.reason,
            "score_x": self.score[0] if self.score else None,
            "score_o": self.score[1] if self.score else None,
            "rematch_offer": self.rematch_offer.char if self.rematch_offer is not None else None,
            "rematch_id": self.rematch_id,
            "ended_at": self.ended_at,
        }

    def _move_fields(self) -> dict[str, Any]:
        """The game row's fields that a move changes (while the game goes on)."""
        clock = self.clock
        return {
            "plies": len(self.moves),
            "version": self.version,
            "x_ms": clock.remaining[Color.X] if clock else None,
            "o_ms": clock.remaining[Color.O] if clock else None,
            "turn_started_at": clock.started_at if clock and clock.running is not None else None,
            "draw_offer": self.draw_offer.char if self.draw_offer is not None else None,
            "takeback_offer": (
                self.takeback_offer.char if self.takeback_offer is not None else None
            ),
        }

    _SNAPSHOT = (
        "status",
        "winner",
        "reason",
        "score",
        "ended_at",
        "version",
        "draw_offer",
        "rematch_offer",
        "takeback_offer",
        "epoch",
        "rematch_id",
        "rating_diffs",
        "last",
        "waiting_for",
    )

    async def _commit(
        self,
        now: int,
        mutate: Callable[[], list[dict[str, Any]]],
        *,
        delete_from: int | None = None,
        rollback: Callable[[], None] | None = None,
        plies: list[dict[str, Any]] | None = None,
    ) -> None:
        """Apply ``mutate`` (which returns the new move rows), store it, or undo it all.

        ``delete_from``: the stored moves from this ply on are deleted (a
        takeback); ``rollback`` puts back what ``mutate`` took away.
        ``plies``: filled by ``mutate`` with the moves it played (see
        :meth:`delta_json`); when given and the game goes on, subscribers get
        a ``delta`` instead of the full state.
        """
        saved = {name: getattr(self, name) for name in self._SNAPSHOT}
        saved_plies = len(self.moves)
        saved_clock = (
            (dict(self.clock.remaining), self.clock.running, self.clock.started_at)
            if self.clock
            else None
        )
        was_live = self.live
        try:
            rows = mutate()
            self.version += 1
            rate = None
            # Rated once: on the change to finished, never again (rematch offers, ...).
            if was_live and self.status == store.FINISHED and self.options.rated:
                x_id, o_id = self.seats[Color.X].user_id, self.seats[Color.O].user_id
                if x_id is not None and o_id is not None:
                    x_score = 0.5 if self.winner is None else float(self.winner is Color.X)
                    rate = (x_id, o_id, x_score, self.options.game)
            # A move of a game that goes on changes only some of the row's fields.
            fields = self._move_fields() if plies and self.live else self._fields()
            change = await store.save_progress(
                self.hub.db,
                self.id,
                fields,
                rows,
                rate=rate,
                now=now,
                delete_from=delete_from,
                fence=self.owner_epoch,
            )
        except Exception as exc:
            # Not on cancellation: a write in flight is shielded and may land.
            for name, value in saved.items():
                setattr(self, name, value)
            while len(self.moves) > saved_plies:
                self.moves.pop()
                self.autos.pop()
                self.board.pop()
            if rollback is not None:
                rollback()
            if self.clock and saved_clock:
                self.clock.remaining, self.clock.running, self.clock.started_at = (
                    dict(saved_clock[0]),
                    saved_clock[1],
                    saved_clock[2],
                )
            if isinstance(exc, store.Fenced):
                # Another node has taken the game over: this one lets go of it.
                log.warning("%s: stepping down", exc)
                self.hub.lost(self)
                raise ClubError(
                    "moved", "this game has moved to another server: nothing was stored,"
                    " send it again", 503
                ) from exc
            if isinstance(exc, DBAPIError):
                log.error("game %s: the database refused or did not answer: %s", self.id, exc)
                raise ClubError(
                    "unavailable", "the club's database is not answering: nothing was stored,"
                    " try again in a moment", 503
                ) from exc
            raise
        if change is not None:
            self.rating_diffs = {Color.X: change.x_diff, Color.O: change.o_diff}
            self.seats = {
                Color.X: _with_rating(self.seats[Color.X], change.x),
                Color.O: _with_rating(self.seats[Color.O], change.o),
            }
        if plies and self.live:
            self.broadcast_delta(saved_plies, plies)
        else:
            # Anything but a move (an offer, a takeback, the end of the game and
            # the ratings it changes) is rare: a full state says it all.
            self.broadcast()
        self._arm_flag_timer()
        self._arm_abort_timer()
        self._maybe_ai()
        if was_live and not self.live:
            self.hub.finished(self)
        elif self.live and not was_live:
            self.hub.on_change()  # reopened by a takeback

    # -- clock ------------------------------------------------------------------------

    def _arm_flag_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        clock = self.clock
        if not self.live or clock is None or clock.running is None:
            return
        delay = clock.time_left(clock.running, now_ms()) / 1000 + 0.01
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(delay, self._on_flag_timer)

    def _on_flag_timer(self) -> None:
        self._timer = None
        self._spawn(self._flag_check())

    async def _flag_check(self) -> None:
        async with self.lock:
            now = now_ms()
            if self.live and self.clock is not None:
                flagged = self.clock.flagged(now)
                if flagged is not None:
                    await self._commit(now, lambda: self._finish(now, flagged.other, "timeout"))
                else:
                    self._arm_flag_timer()

    # -- games abandoned before they started -------------------------------------------------

    def _unstarted_deadline(self) -> float | None:
        """When this game aborts itself (seconds, wall clock), if it is waiting for a
        person's first move of their side; ``None`` when it is not."""
        after = self.hub.settings.abort_unstarted_after_s
        if after <= 0 or not self.abortable or self.seats[self.board.turn].ai is not None:
            return None
        return self.turn_since / 1000 + after

    def _arm_abort_timer(self) -> None:
        if self._abort_timer is not None:
            self._abort_timer.cancel()
            self._abort_timer = None
        deadline = self._unstarted_deadline()
        if deadline is None:
            return
        delay = max(0.0, deadline - now_ms() / 1000)
        loop = asyncio.get_running_loop()
        self._abort_timer = loop.call_later(
            delay, lambda: self._spawn(self._abort_if_unstarted())
        )

    async def _abort_if_unstarted(self) -> None:
        """Abort a game nobody started in time (as lichess does): it was never played."""
        async with self.lock:
            self._abort_timer = None
            deadline = self._unstarted_deadline()
            if deadline is None:
                return
            if now_ms() / 1000 < deadline:
                self._arm_abort_timer()
                return
            now = now_ms()
            log.info("game %s: aborted, its first moves were not played in time", self.id)
            await self._commit(
                now, lambda: self._finish(now, None, "aborted", status=store.ABORTED)
            )

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("game %s: background task failed", self.id, exc_info=task.exception())

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._abort_timer is not None:
            self._abort_timer.cancel()
        for task in list(self._tasks):
            task.cancel()

    # -- the game ------------------------------------------------------------------------

    def _finish(
        self, now: int, winner: Color | None, reason: str, *, status: str = store.FINISHED
    ) -> list[dict[str, Any]]:
        if self.clock is not None:
            self.clock.stop(now)
        self.waiting_for = None  # a finished game's clocks never start again
        self.status = status
        self.winner = winner
        self.reason = reason
        self.score = self.board.score()
        self.ended_at = now
        self.draw_offer = None
        self.takeback_offer = None
        return []

    def _push(
        self, move: str, color: Color, now: int, plies: list[dict[str, Any]], *, auto: bool
    ) -> dict[str, Any]:
        """Push one move; it becomes ``last`` and is added to ``plies``; returns its row."""
        self.last = last = self.board.push(move, auto=auto)
        self.moves.append(move)
        self.autos.append(auto)
        self.last_move_at = now
        plies.append(last)
        clock = self.clock
        return {
            "ply": len(self.moves) - 1,
            "uci": move,
            "color": color.char,
            "auto": auto,
            "x_ms": clock.time_left(Color.X, now) if clock else None,
            "o_ms": clock.time_left(Color.O, now) if clock else None,
            "played_at": now,
        }

    def _apply(
        self, color: Color, move: str, now: int, plies: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Play ``move`` and the forced passes after it; ``plies`` gets each one's ``last``."""
        clock = self.clock
        if clock is not None:
            clock.moved(color, now, charge=clock.running is color)
        # The clocks go on from this move: nobody waits to be back any more (a
        # player may move after a restart without subscribing first).
        self.waiting_for = None
        rows = [self._push(move, color, now, plies, auto=False)]
        self.turn_since = now
        if self.draw_offer is color.other:
            self.draw_offer = None  # moving declines the opponent's offer
        self.takeback_offer = None  # a move answers (declines) any takeback request
        board = self.board
        # Forced moves (Ataxx's passes) are played by the server at once; they cost no time.
        forced = board.forced_move()
        while forced is not None:
            rows.append(self._push(forced, board.turn, now, plies, auto=True))
            forced = board.forced_move()
        outcome = board.outcome()
        if outcome is not None:
            self._finish(now, outcome.winner, outcome.reason)
            self.score = outcome.score
        elif clock is not None and len(self.moves) >= 2:
            # Clocks start once both sides have made their first move.
            clock.start(board.turn, now)
        return rows

    async def play(self, color: Color, text: Any, ply: Any, *, epoch: int | None = None) -> int:
        """Play ``text`` for ``color`` as move number ``ply``; returns the new version.

        ``epoch`` (the computer's moves): refused if a takeback happened since.
        """
        if not isinstance(text, str) or len(text) > 8:
            raise ClubError(
                "invalid-move",
                f"a move is text (in {self.options.kind.name}, e.g. "
                f"{'C' if self.options.game == 'awele' else 'b2 or a1a3'}), not {str(text)[:20]!r}",
            )
        if isinstance(ply, bool) or not isinstance(ply, int):
            raise ClubError("bad-field", f"ply must be the move's index, not {ply!r}")
        move = self.board.parse_move(text)  # invalid-move when it names no move of this game
        async with self.lock:
            if epoch is not None and epoch != self.epoch:
                raise ClubError("stale", "a move was taken back meanwhile", 409)
            if ply < len(self.moves) and ply >= 0:
                # A resend of an acknowledged move (after a reconnect): ack it again.
                if (
                    self.moves[ply] == move
                    and not self.autos[ply]
                    and self._mover_at(ply) is color
                ):
                    return self.version
                raise ClubError("stale", f"move {ply} has been played already: resync", 409)
            if not self.live:
                raise ClubError("game-over", "the game is over", 409)
            if self.board.turn is not color:
                raise ClubError("not-your-turn", "it is not your turn", 409)
            if ply != len(self.moves):
                raise ClubError(
                    "stale", f"the game is at move {len(self.moves)}, not {ply}: resync", 409
                )
            now = now_ms()
            if self.clock is not None and self.clock.flagged(now) is color:
                await self._commit(now, lambda: self._finish(now, color.other, "timeout"))
                raise ClubError("game-over", "your time ran out", 409)
            illegal = self.board.illegal(move)
            if illegal is not None:
                raise ClubError("illegal-move", illegal)
            plies: list[dict[str, Any]] = []
            await self._commit(now, lambda: self._apply(color, move, now, plies), plies=plies)
            return self.version

    def _mover_at(self, ply: int) -> Color:
        # Every ply, passes included, hands the turn to the other side.
        return Color((self.start_turn + ply) % 2)

    async def resign(self, color: Color) -> int:
        async with self.lock:
            self._require_live()
            now = now_ms()
            await self._commit(now, lambda: self._finish(now, color.other, "resign"))
            return self.version

    async def abort(self, color: Color) -> int:
        async with self.lock:
            self._require_live()
            if not self.abortable:
                raise ClubError(
                    "not-allowed", "a game can be aborted only before both sides have moved", 409
                )
            now = now_ms()
            await self._commit(
                now, lambda: self._finish(now, None, "aborted", status=store.ABORTED)
            )
            return self.version

    async def draw(self, color: Color) -> int:
        """Offer a draw, or accept the opponent's offer."""
        async with self.lock:
            self._require_live()
            if self.seats[color.other].ai is not None:
                raise ClubError("not-allowed", "the computer does not accept draws", 409)
            if self.draw_offer is color and not self.hotseat:
                return self.version
            now = now_ms()
            if self.draw_offer is color.other or self.hotseat:
                await self._commit(now, lambda: self._finish(now, None, "agreement"))
            else:
                await self._commit(now, lambda: self._set("draw_offer", color))
            return self.version

    async def draw_decline(self, color: Color) -> int:
        async with self.lock:
            self._require_live()
            if self.draw_offer is not color.other:
                raise ClubError("not-allowed", "there is no draw offer to decline", 409)
            await self._commit(now_ms(), lambda: self._set("draw_offer", None))
            return self.version

    async def claim(self, color: Color) -> int:
        async with self.lock:
            self._require_live()
            claim_at = self.claim_at()
            other = color.other
            if claim_at is None or self.disconnected_since[other] is None or now_ms() < claim_at:
                raise ClubError(
                    "not-allowed",
                    "you can claim the game only when your opponent has been away"
                    f" for {self.hub.settings.disconnect_grace_s:.0f} seconds",
                    409,
                )
            now = now_ms()
            await self._commit(now, lambda: self._finish(now, color, "abandon"))
            return self.version

    async def rematch(self, color: Color) -> int:
        """Offer a rematch, or accept the opponent's offer (then the new game starts)."""
        async with self.lock:
            if self.live:
                raise ClubError("not-allowed", "the game is still going on", 409)
            if self.rematch_id is not None:
                return self.version
            if self.rematch_offer is color:
                return self.version
            now = now_ms()
            if (
                self.seats[color.other].ai is not None
                or self.rematch_offer is color.other
                or self.hotseat
            ):
                game = await self.hub.create(
                    self.options,
                    {Color.X: self.seats[Color.O], Color.O: self.seats[Color.X]},
                    rematch_of=self.id,
                    by=self.seats[color].user_id,
                )
                await self._commit(now, lambda: self._set("rematch_id", game.id))
                for seat in self.seats.values():
                    if seat.user_id is not None:
                        self.hub.notify(seat.user_id, {"t": "start", "game": game.id})
            else:
                await self._commit(now, lambda: self._set("rematch_offer", color))
            return self.version

    async def rematch_decline(self, color: Color) -> int:
        async with self.lock:
            if self.rematch_offer is not color.other:
                raise ClubError("not-allowed", "there is no rematch offer to decline", 409)
            await self._commit(now_ms(), lambda: self._set("rematch_offer", None))
            return self.version

    # -- takebacks ------------------------------------------------------------------------

    def _takeback_ply(self, color: Color | None) -> int:
        """Where a takeback of ``color``'s last move goes back to (any side's if ``None``)."""
        for ply in range(len(self.moves) - 1, -1, -1):
            if not self.autos[ply] and (color is None or self._mover_at(ply) is color):
                return ply
        raise ClubError("not-allowed", "there is no move to take back", 409)

    def _check_takeback(self, color: Color, *, at_once: bool) -> None:
        if self.options.rated:
            raise ClubError("not-allowed", "there are no takebacks in rated games", 409)
        if self.live:
            return
        reopenable = self.reason in self.options.kind.rules_endings
        if not at_once or not reopenable or self.rematch_id is not None:
            raise ClubError("game-over", "the game is over", 409)

    async def takeback(self, color: Color) -> int:
        """Take back a move: at once against the computer and on the hot seat, else ask.

        Against the computer the player's last move goes, with the computer's
        reply; on the hot seat the last move; against a person this asks, and
        the opponent's ``takeback`` accepts (the asker's last move goes, with
        the reply if there is one). Never in rated games.
        """
        async with self.lock:
            at_once = self.hotseat or self.seats[color.other].ai is not None
            self._check_takeback(color, at_once=at_once)
            now = now_ms()
            if at_once:
                target = self._takeback_ply(None if self.hotseat else color)
            elif self.takeback_offer is color.other:
                target = self._takeback_ply(color.other)
            else:
                self._takeback_ply(color)  # is there anything to take back?
                if self.takeback_offer is not color:
                    await self._commit(now, lambda: self._set("takeback_offer", color))
                return self.version
            popped: list[tuple[str, bool]] = []

            def mutate() -> list[dict[str, Any]]:
                while len(self.moves) > target:
                    self.board.pop()
                    popped.append((self.moves.pop(), self.autos.pop()))
                self._reopen(now)
                self.turn_since = now
                return []

            def rollback() -> None:
                for uci, auto in reversed(popped):
                    self.board.push(uci, auto=auto)
                    self.moves.append(uci)
                    self.autos.append(auto)
                popped.clear()

            await self._commit(now, mutate, delete_from=target, rollback=rollback)
            return self.version

    async def takeback_decline(self, color: Color) -> int:
        async with self.lock:
            self._require_live()
            if self.takeback_offer is not color.other:
                raise ClubError("not-allowed", "there is no takeback request to decline", 409)
            await self._commit(now_ms(), lambda: self._set("takeback_offer", None))
            return self.version

    def _reopen(self, now: int) -> None:
        """After a takeback: the game goes on from the board as it now stands."""
        self.epoch += 1
        self.takeback_offer = None
        self.draw_offer = None
        self.status = store.STARTED
        self.winner = None
        self.reason = None
        self.score = None
        self.ended_at = None
        self.rematch_offer = None
        self.waiting_for = None  # the clock of the side to move starts again here
        self.last = self._last_of_board()
        clock = self.clock
        if clock is not None:
            clock.stop(now)
            if len(self.moves) >= 2:
                clock.start(self.board.turn, now)

    def _last_of_board(self) -> dict[str, Any] | None:
        """The ``last`` field for the board's last move (what it did recomputed)."""
        last = self.board.last()
        if last is not None and self.autos:
            last = {**last, "auto": bool(self.autos[-1])}
        return last

    def _set(self, name: str, value: Any) -> list[dict[str, Any]]:
        setattr(self, name, value)
        return []

    def _require_live(self) -> None:
        if not self.live:
            raise ClubError("game-over", "the game is over", 409)

    # -- the computer ------------------------------------------------------------------------

    def _maybe_ai(self) -> None:
        thinking = self._thinking
        if (
            thinking is not None
            and thinking[1] != self.epoch
            and not thinking[0].done()
            and thinking[0] is not asyncio.current_task()
        ):
            # Taken back: what the computer is thinking about is no longer the game.
            thinking[0].cancel()
        if self.live and self.seats[self.board.turn].ai is not None:
            ply, epoch = len(self.moves), self.epoch
            task = self._spawn(self._ai_turn(ply, epoch))
            self._thinking = (task, epoch)

    async def _ai_turn(self, ply: int, epoch: int) -> None:
        """The computer's move number ``ply``, chosen off the event loop and played.

        The task starts after the action that created it has let go of the lock,
        and another action (a takeback, a resignation) may come first: what to
        think about is read under the lock, and only if it is still the
        computer's turn at ``ply`` in the same ``epoch``.
        """
        async with self.lock:
            if not self.live or self.epoch != epoch or len(self.moves) != ply:
                return
            color = self.board.turn
            level = self.seats[color].ai
            if level is None:
                return
            settings = self.hub.settings
            movetime = settings.ai_max_movetime_s
            if self.clock is not None:
                left = self.clock.time_left(color, now_ms()) / 1000
                movetime = min(movetime, max(0.05, left / 30 + self.clock.increment_ms / 2000))
            args = (
                self.options.game,
                self.options.rules,
                self.options.blocks,
                self.start_fen,
                list(self.moves),
            )
            # The engine's queue serves players in turn: this game's turn is its player's.
            owner = self.seats[color.other].user_id
        try:
            text = await self.hub.engines.choose(
                *args, level, seed=random.getrandbits(32), movetime=movetime, owner=owner
            )
        except Exception:
            # A level that fails must not hang the game: play a simple level instead.
            fallback = self.options.kind.fallback_level
            log.exception("game %s: the %s engine failed; playing %r", self.id, level, fallback)
            text = await self.hub.engines.choose(
                *args, fallback, seed=random.getrandbits(32), owner=owner
            )
        try:
            await self.play(color, text, ply, epoch=epoch)
        except GameError as exc:
            # The game moved on meanwhile (resigned, aborted, flagged): nothing to do.
            log.info("game %s: computer move %s dropped: %s", self.id, text, exc.message)


def _check_id(game_id: Any) -> None:
    if key(game_id) is None or len(game_id) > 16:
        raise ClubError("no-such-game", f"no game {str(game_id)[:20]!r}", 404)


def _with_rating(seat: Seat, rating: Rating) -> Seat:
    return Seat(seat.user_id, seat.name, seat.guest, seat.ai, rating)


class Rounds:
    """The rounds of this process: create, find, resume, list."""

    def __init__(self, db: Database, settings: Settings, engines: EnginePool) -> None:
        self.db = db
        self.settings = settings
        self.engines = engines
        self.rounds: dict[str, Round] = {}
        self._loading: dict[str, asyncio.Future[Round | None]] = {}
        #: Finished rounds held in memory, oldest first.
        self._finished: OrderedDict[str, None] = OrderedDict()
        self.notify: Notify = lambda user_id, message: None
        #: Called when the set of live games changes (for the lobby's counts).
        self.on_change: Callable[[], None] = lambda: None
        #: Several nodes: the club's cluster, which owns games by lease and forwards
        #: actions on games owned elsewhere (``None``: a club of one process).
        self.cluster: Cluster | None = None
        #: New games each player may still start (a budget per ten minutes).
        self.creations = TokenBuckets(
            settings.games_per_player_per_10min, settings.games_per_player_per_10min / 600
        )

    async def check_quota(self, user_id: int, *, ai: bool) -> None:
        """Refuse a new game asked for by ``user_id`` beyond what one player may hold or start.

        Caps on unfinished games (in all, against the computer), a budget of
        new games, and, for a game against the computer, room in the engine's
        queue. Checked when the game is asked for, so nothing has changed yet.
        """
        settings = self.settings
        if ai and self.engines.busy:
            raise ClubError(
                "busy", "the computer is busy with other games: try again in a minute", 503
            )
        open_games, ai_games = await store.open_game_counts(self.db, user_id)
        if open_games >= settings.max_open_games_per_player:
            raise ClubError(
                "too-many-games",
                f"you have {open_games} unfinished games, the most a player may have:"
                " finish, resign or abort some first",
                409,
            )
        if ai and ai_games >= settings.max_ai_games_per_player:
            raise ClubError(
                "too-many-games",
                f"you have {ai_games} unfinished games against the computer, the most a"
                " player may have: finish, resign or abort one first",
                409,
            )
        wait = await self.creations.spend(user_id)
        if wait > 0:
            raise rate_limited("new games", wait)

    async def create(
        self,
        options: GameOptions,
        seats: dict[Color, Seat],
        *,
        rematch_of: str | None = None,
        by: int | None = None,
    ) -> Round:
        """A new game; ``by``: the player who asked for it, whose quota it counts against."""
        if by is not None:
            await self.check_quota(by, ai=any(seat.ai is not None for seat in seats.values()))
        # Each player's rating in the game played (each game has its own; guests
        # have none but a new player's, and cost no read).
        accounts = [
            seat.user_id for seat in seats.values() if seat.user_id is not None and not seat.guest
        ]
        if accounts:
            ratings = await store.ratings_of(self.db, accounts, options.game)
            seats = {
                color: _with_rating(seat, ratings[seat.user_id])
                if seat.user_id in ratings
                else seat
                for color, seat in seats.items()
            }
        now = now_ms()
        start_fen = options.start_fen()
        game_id = new_id()
        rnd = Round(self, game_id, options, start_fen, seats, now)
        rnd.rematch_of = rematch_of
        x, o = seats[Color.X], seats[Color.O]
        owned: dict[str, Any] = {}
        if self.cluster is not None:
            # The node that creates a game owns it first, in epoch 1.
            rnd.owner_epoch = await self.cluster.own_new(game_id)
            owned["owner_epoch"] = rnd.owner_epoch
        await store.insert_game(
            self.db,
            {
                "id": game_id,
                "game": options.game,
                "rules": options.rules,
                "blocks": options.blocks,
                "start_fen": start_fen,
                "clock_base_ms": options.clock_base_ms,
                "clock_inc_ms": options.clock_inc_ms,
                "rated": options.rated,
                "x_user_id": x.user_id,
                "o_user_id": o.user_id,
                "x_ai": x.ai,
                "o_ai": o.ai,
                "x_rating": x.rating.rating if x.rating and options.rated else None,
                "o_rating": o.rating.rating if o.rating and options.rated else None,
                "rematch_of": rematch_of,
                "created_at": now,
                **owned,
                **rnd._fields(),
            },
        )
        self.rounds[game_id] = rnd
        rnd._maybe_ai()
        rnd._arm_abort_timer()
        self.on_change()
        return rnd

    async def act(self, game_id: Any, user_id: int, action: str, *args: Any) -> int:
        """The player ``user_id``'s ``action`` on ``game_id`` (see :meth:`Round.act_as`),
        wherever the game is owned; returns the game's new version once stored."""
        if self.cluster is not None:
            return await self.cluster.act(game_id, user_id, action, *args)
        rnd = await self.get(game_id)
        return await rnd.act_as(user_id, action, *args)

    async def follow(self, game_id: Any, sub: Subscriber) -> Followed:
        """Subscribe ``sub`` to ``game_id``'s events, wherever the game is owned; the
        state message is queued to ``sub`` first. Returns the round (or its stand-in)."""
        if self.cluster is not None:
            return await self.cluster.follow(game_id, sub)
        rnd = await self.get(game_id)
        sub.send_text(rnd.subscribe(sub))
        return rnd

    async def read(self, game_id: Any) -> Round:
        """``game_id`` for reading only: the live round if this node owns it, else (on a
        node of several) the game as stored, which is what every node has acknowledged."""
        if self.cluster is None:
            return await self.get(game_id)
        _check_id(game_id)
        rnd = self.rounds.get(game_id)
        if rnd is not None:
            return rnd
        loaded = await store.load_game(self.db, game_id)
        if loaded is None:
            raise ClubError("no-such-game", f"no game {game_id!r}", 404)
        game, moves = loaded
        ids = [uid for uid in (game.x_user_id, game.o_user_id) if uid is not None]
        users = await store.users_by_id(self.db, ids)
        ratings = await store.ratings_of(self.db, ids, game.game)
        rnd = self._rebuild(game, moves, users, ratings)
        # Whether its players are here: connected to any node of the club (as the
        # nodes last shared it), which is what the owner's pages would show.
        online = self.cluster.online_users()
        now = now_ms()
        for color in COLORS:
            seat = rnd.seats[color]
            if seat.ai is None:
                rnd.disconnected_since[color] = None if seat.user_id in online else now
        return rnd

    def lost(self, rnd: Round) -> None:
        """Another node has taken ``rnd`` over (its write was fenced): let it go."""
        if self.rounds.get(rnd.id) is rnd:
            del self.rounds[rnd.id]
            self._finished.pop(rnd.id, None)
        rnd.close()
        if self.cluster is not None:
            self.cluster.lost(rnd)
        self.on_change()

    async def get(self, game_id: Any) -> Round:
        """The round of ``game_id`` (loaded from the store if needed) or ``no-such-game``.

        On a node of several, only a game this node owns or can take over (see
        :class:`gameclub.server.cluster.Cluster`); use :meth:`act`, :meth:`follow`
        and :meth:`read` for any game.
        """
        _check_id(game_id)
        rnd = self.rounds.get(game_id)
        if rnd is not None:
            return rnd
        pending = self._loading.get(game_id)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._loading[game_id] = pending
            try:
                loaded = await self._load(game_id)
                pending.set_result(loaded)
            except BaseException as exc:
                pending.set_exception(exc)
                raise
            finally:
                del self._loading[game_id]
        found = await asyncio.shield(pending)
        if found is None:
            raise ClubError("no-such-game", f"no game {game_id!r}", 404)
        return found

    async def _load(self, game_id: str) -> Round | None:
        epoch: int | None = None
        if self.cluster is not None:
            # Taken over: this node's epoch fences out every earlier owner's writes.
            epoch = await self.cluster.take_over(game_id)
            if epoch is None:
                return None
        loaded = await store.load_game(self.db, game_id)
        if loaded is None:
            return None
        game, moves = loaded
        ids = [uid for uid in (game.x_user_id, game.o_user_id) if uid is not None]
        users = await store.users_by_id(self.db, ids)
        ratings = await store.ratings_of(self.db, ids, game.game)
        rnd = self._rebuild(game, moves, users, ratings)
        rnd.owner_epoch = epoch
        if rnd.live:
            await self._resume(rnd)
        else:
            self.finished(rnd)
        self.rounds[game_id] = rnd
        return rnd

    def _rebuild(
        self,
        game: Game,
        moves: list[MoveRow],
        users: dict[int, User],
        ratings: dict[int, Rating],
    ) -> Round:
        def seat(user_id: int | None, ai: str | None) -> Seat:
            if ai is not None:
                return Seat.computer(ai)
            user = users.get(user_id) if user_id is not None else None
            if user is None:
                return Seat(user_id, "?")
            return Seat.of_user(user, ratings.get(user.id))

        options = GameOptions(
            game.rules,
            game.blocks,
            game.clock_base_ms,
            game.clock_inc_ms,
            "random",
            game.rated,
            game=game.game,
        )
        if game.start_fen != options.start_fen():
            options = replace(options, setup=game.start_fen)
        seats = {Color.X: seat(game.x_user_id, game.x_ai), Color.O: seat(game.o_user_id, game.o_ai)}
        rnd = Round(self, game.id, options, game.start_fen, seats, game.created_at)
        for row in moves:
            rnd.board.push(row.uci, auto=row.auto)
            rnd.moves.append(row.uci)
            rnd.autos.append(row.auto)
            rnd.last_move_at = row.played_at
        rnd.status = game.status
        rnd.winner = Color.X if game.winner == "x" else Color.O if game.winner == "o" else None
        rnd.reason = game.reason
        rnd.score = (
            (game.score_x, game.score_o)
            if game.score_x is not None and game.score_o is not None
            else None
        )
        rnd.ended_at = game.ended_at
        rnd.version = game.version
        rnd.draw_offer = (
            Color.X if game.draw_offer == "x" else Color.O if game.draw_offer == "o" else None
        )
        rnd.rematch_offer = (
            Color.X if game.rematch_offer == "x" else Color.O if game.rematch_offer == "o" else None
        )
        rnd.takeback_offer = (
            Color.X
            if game.takeback_offer == "x"
            else Color.O
            if game.takeback_offer == "o"
            else None
        )
        rnd.rematch_id = game.rematch_id
        rnd.rematch_of = game.rematch_of
        rnd.turn_since = moves[-1].played_at if moves else game.created_at
        if game.x_rating_diff is not None and game.o_rating_diff is not None:
            rnd.rating_diffs = {Color.X: game.x_rating_diff, Color.O: game.o_rating_diff}
        if rnd.clock is not None and game.x_ms is not None and game.o_ms is not None:
            rnd.clock.remaining = {Color.X: game.x_ms, Color.O: game.o_ms}
        # The flips of the last move are not stored: recomputed from the board.
        rnd.last = rnd._last_of_board()
        return rnd

    async def _resume(self, rnd: Round) -> None:
        """A game in progress found in the store (after a restart): set it going again.

        The side to move gets back the time of the outage: its clock has what
        it had when its turn began, and starts again when that player is back
        (the computer at once). Players get a fresh grace period.
        """
        now = now_ms()
        turn = rnd.board.turn
        if rnd.clock is not None and len(rnd.moves) >= 2:
            if rnd.seats[turn].ai is None:
                rnd.waiting_for = turn
            else:
                rnd.clock.start(turn, now)
        for color in COLORS:
            if rnd.seats[color].ai is None:
                rnd.disconnected_since[color] = now
        async with rnd.lock:
            await rnd._commit(now, list)

    async def abort_abandoned(self) -> int:
        """Abort stored games that nobody started and nobody has loaded since start-up.

        Games in progress are resumed lazily (when someone asks for one), so
        start-up costs nothing per stored game; a game that was never started
        and that nobody came back to is closed here instead. Loaded games have
        their own timer (:meth:`Round._arm_abort_timer`). Returns how many.
        """
        after = self.settings.abort_unstarted_after_s
        if after <= 0:
            return 0
        # Well past the deadline: a game not loaded since the last start has not
        # been touched since, but the last start may have been a moment ago.
        cutoff = now_ms() - int(10 * after * 1000)
        aborted = 0
        while True:
            ids = await store.unstarted_game_ids(self.db, cutoff, limit=500)
            ids = [game_id for game_id in ids if game_id not in self.rounds]
            if self.cluster is not None:
                ids = await self.cluster.unowned(ids)
            if not ids:
                return aborted
            done = await store.abort_games(self.db, ids, now_ms())
            if not done:
                return aborted
            aborted += done

    def finished(self, rnd: Round) -> None:
        """A round has ended: forget it after a while (the store keeps it), or sooner
        when more than ``max_finished_rounds`` are kept (the oldest unwatched first)."""
        self.on_change()
        loop = asyncio.get_running_loop()
        loop.call_later(KEEP_FINISHED_S, self._evict, rnd.id)
        self._finished[rnd.id] = None
        self._finished.move_to_end(rnd.id)
        excess = len(self._finished) - self.settings.max_finished_rounds
        for game_id in list(self._finished)[: max(0, excess)]:
            self._evict(game_id)

    def _evict(self, game_id: str) -> None:
        rnd = self.rounds.get(game_id)
        if rnd is None or rnd.live:
            self._finished.pop(game_id, None)
        elif not rnd.subscribers:
            rnd.close()
            del self.rounds[game_id]
            self._finished.pop(game_id, None)
            if self.cluster is not None:
                self.cluster.lost(rnd)

    def live_rounds(self) -> list[Round]:
        return [rnd for rnd in self.rounds.values() if rnd.live]

    def watchable_rounds(self, now: int | None = None) -> list[Round]:
        """The games really being played now (see :meth:`Round.watchable`)."""
        now = now_ms() if now is None else now
        return [rnd for rnd in self.rounds.values() if rnd.watchable(now)]

    def close(self) -> None:
        for rnd in self.rounds.values():
            rnd.close()
