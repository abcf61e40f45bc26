"""The lobby: seeks (open offers to anyone), invitations to friends, presence counts.

Seeks live in memory only: they belong to a player who is looking at the page
right now, and they go when that player's last connection does. Invitations
are stored, because a link sent to a friend must outlive a restart. (Several
nodes: the seeks of a node that dies are taken over by the node its players'
pages reconnect to; see :meth:`Lobby.adopt`.)
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gameclub.games import Color
from gameclub.server import jsontext
from gameclub.server.accounts import Identity
from gameclub.server.clock import new_id, now_ms
from gameclub.server.errors import ClubError, bad_field
from gameclub.server.fields import key
from gameclub.server.options import GameOptions
from gameclub.server.ratings import Rating
from gameclub.server.round import Round, Rounds, Seat, Subscriber
from gameclub.server.settings import Settings
from gameclub.server.store import games as game_store
from gameclub.server.store import invitations as store
from gameclub.server.store.db import Database
from gameclub.server.store.models import Invitation, User

if TYPE_CHECKING:
    from gameclub.server.cluster import Cluster

#: Lobby updates are coalesced: at most one broadcast per this many seconds.
LOBBY_DEBOUNCE_S = 0.25


@dataclass(frozen=True)
class Seek:
    id: str
    seat: Seat
    options: GameOptions
    created_at: int

    def to_json(self, viewer: int | None = None) -> dict[str, Any]:
        """The seek as ``viewer`` (a user id) sees it: ``mine`` says whether it is theirs."""
        return {
            "id": self.id,
            "user": self.seat.to_json(),
            **self.options.to_json(),
            "mine": viewer is not None and viewer == self.seat.user_id,
        }


def seek_record(seek: Seek) -> dict[str, Any]:
    """Everything :func:`seek_of_record` needs to make ``seek`` again on another node."""
    seat = seek.seat
    rating = seat.rating
    return {
        "id": seek.id,
        "user": seat.user_id,
        "name": seat.name,
        "guest": seat.guest,
        "rating": None if rating is None else [rating.rating, rating.rd, rating.volatility],
        "options": dataclasses.asdict(seek.options),
        "created_at": seek.created_at,
    }


def seek_of_record(record: dict[str, Any]) -> Seek:
    """The seek that :func:`seek_record` wrote (``ValueError`` if it is not one)."""
    try:
        rating = record["rating"]
        seat = Seat(
            int(record["user"]), str(record["name"]), bool(record["guest"]), None,
            None if rating is None else Rating(*map(float, rating)),
        )
        return Seek(
            str(record["id"]), seat, GameOptions(**record["options"]), int(record["created_at"])
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a seek: {exc}") from exc


def seat_of(identity: Identity) -> Seat:
    return Seat(identity.user_id, identity.name, identity.guest, None, identity.rating)


def assign_colors(creator: Seat, joiner: Seat, choice: str) -> dict[Color, Seat]:
    """Seats by colour; ``choice`` is the creator's ``x``, ``o`` or ``random``."""
    if choice == "random":
        choice = random.choice(("x", "o"))
    if choice == "x":
        return {Color.X: creator, Color.O: joiner}
    return {Color.X: joiner, Color.O: creator}


class Lobby:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        rounds: Rounds,
        online_count: Callable[[], int],
        notify: Callable[[int, dict[str, Any]], None],
    ) -> None:
        self.db = db
        self.settings = settings
        self.rounds = rounds
        self.online_count = online_count
        self.notify = notify
        self.seeks: dict[str, Seek] = {}
        self.subscribers: set[Subscriber] = set()
        self._pending: asyncio.TimerHandle | None = None
        #: This node's part in a club of several (``None``: a club of one process).
        self.cluster: Cluster | None = None
        #: Games being played (on a node of several: in the whole club).
        self.playing_count: Callable[[], int] = lambda: len(self.rounds.live_rounds())

    # -- presence and updates ---------------------------------------------------------

    def to_json(self, viewer: int | None = None, game: str | None = None) -> dict[str, Any]:
        """The lobby as ``viewer`` (a user id, or ``None``) sees it; the seeks of one
        ``game`` only, or of every game (``None``)."""
        seeks = [
            seek.to_json(viewer)
            for seek in self.seeks.values()
            if game is None or seek.options.game == game
        ]
        searching = len(self.seeks)
        if self.cluster is not None:
            # The other nodes' seeks, as they last shared them.
            others = self.cluster.remote_seeks()
            searching += len(others)
            seeks += [
                {**found, "mine": viewer is not None and found["user"]["id"] == viewer}
                for found, _ in others
                if game is None or found["kind"] == game
            ]
        return {
            "online": self.online_count(),
            "searching": searching,
            "playing": self.playing_count(),
            "seeks": seeks,
        }

    def changed(self) -> None:
        """Something the lobby shows changed: tell its subscribers, soon."""
        if self._pending is not None or not self.subscribers:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._pending = loop.call_later(LOBBY_DEBOUNCE_S, self._broadcast)

    def _broadcast(self) -> None:
        self._pending = None
        # "mine" differs per viewer: one text for those without seeks, one each for the others.
        base = jsontext.dumps({"t": "lobby", **self.to_json()})
        seekers = {seek.seat.user_id for seek in self.seeks.values()}
        for sub in list(self.subscribers):
            if sub.user_id in seekers:
                sub.send_text(jsontext.dumps({"t": "lobby", **self.to_json(sub.user_id)}))
            else:
                sub.send_text(base)

    def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()

    # -- seeks ---------------------------------------------------------------------------

    async def create_seek(self, identity: Identity, options: GameOptions) -> Seek:
        if options.rated and identity.guest:
            raise ClubError(
                "accounts-only", "guests play casual games only: sign up to play rated", 403
            )
        mine = [s for s in self.seeks.values() if s.seat.user_id == identity.user_id]
        if len(mine) >= self.settings.max_seeks_per_user:
            raise ClubError(
                "not-allowed", f"you may hold at most {self.settings.max_seeks_per_user} seeks", 409
            )
        # The seek shows its creator's rating in the game sought.
        rating = (await game_store.ratings_of(self.db, [identity.user_id], options.game))[
            identity.user_id
        ]
        seat = Seat(identity.user_id, identity.name, identity.guest, None, rating)
        mine = [s for s in self.seeks.values() if s.seat.user_id == identity.user_id]
        if len(mine) >= self.settings.max_seeks_per_user:  # checked again after the read
            raise ClubError(
                "not-allowed", f"you may hold at most {self.settings.max_seeks_per_user} seeks", 409
            )
        seek = Seek(new_id(6), seat, options, now_ms())
        self.seeks[seek.id] = seek
        self.changed()
        return seek

    def cancel_seek(self, identity: Identity, seek_id: str) -> None:
        seek = self.seeks.get(seek_id)
        if seek is None:
            raise ClubError("gone", "this seek is no longer open", 410)
        if seek.seat.user_id != identity.user_id:
            raise ClubError("not-allowed", "only its creator can cancel a seek", 403)
        del self.seeks[seek_id]
        self.changed()

    def adopt(self, seek: Seek) -> bool:
        """Hold ``seek``, left by a node that died, as this node's own (its creator's
        page has reconnected here); ``False`` if its creator may hold no more seeks."""
        mine = [s for s in self.seeks.values() if s.seat.user_id == seek.seat.user_id]
        if seek.id in self.seeks or len(mine) >= self.settings.max_seeks_per_user:
            return False
        self.seeks[seek.id] = seek
        self.changed()
        return True

    def drop_seeks_of(self, user_id: int) -> None:
        for seek_id in [k for k, s in self.seeks.items() if s.seat.user_id == user_id]:
            del self.seeks[seek_id]
        self.changed()

    async def accept_seek(self, identity: Identity, seek_id: str) -> Round:
        seek = self.seeks.get(seek_id)
        if seek is None:
            raise ClubError("gone", "this seek is no longer open", 410)
        if seek.seat.user_id == identity.user_id:
            raise ClubError("not-allowed", "you cannot accept your own seek", 409)
        if seek.options.rated and identity.guest:
            raise ClubError(
                "accounts-only", "guests play casual games only: sign up to play rated", 403
            )
        # Taken out before the first await: a second taker finds it gone.
        del self.seeks[seek_id]
        try:
            seats = assign_colors(seek.seat, seat_of(identity), seek.options.color)
            rnd = await self.rounds.create(seek.options, seats, by=identity.user_id)
        except BaseException:
            self.seeks[seek_id] = seek
            raise
        # The creator holds at most a few seeks; once playing, they are withdrawn.
        self.drop_seeks_of(identity.user_id)
        assert seek.seat.user_id is not None
        self.notify(seek.seat.user_id, {"t": "start", "game": rnd.id})
        self.changed()
        return rnd

    async def accept_anywhere(self, identity: Identity, seek_id: Any) -> str:
        """Accept a seek held by this node or (several nodes) another; the new game's id."""
        if self.cluster is None or seek_id in self.seeks or not isinstance(seek_id, str):
            return (await self.accept_seek(identity, seek_id)).id
        return await self.cluster.accept_remote_seek(identity, seek_id)

    async def cancel_anywhere(self, identity: Identity, seek_id: Any) -> None:
        """Cancel a seek held by this node or (several nodes) another."""
        if self.cluster is None or seek_id in self.seeks or not isinstance(seek_id, str):
            self.cancel_seek(identity, seek_id)
            return
        await self.cluster.cancel_remote_seek(identity, seek_id)

    # -- invitations ---------------------------------------------------------------------

    async def invitation_json(self, invitation: Invitation) -> dict[str, Any]:
        ids = [uid for uid in (invitation.from_user_id, invitation.to_user_id) if uid is not None]
        users = await game_store.users_by_id(self.db, ids)
        ratings = await game_store.ratings_of(self.db, ids, invitation.game)
        return invitation_json(invitation, users, ratings)

    async def invite(self, identity: Identity, to: Any, options: GameOptions) -> Invitation:
        target: User | None = None
        if to is not None:
            if not isinstance(to, str) or not 1 <= len(to) <= 40:
                raise bad_field(f"to must be a user name or null, not {to!r}")
            target = await game_store.user_by_name(self.db, to) if key(to) else None
            if target is None:
                raise ClubError("not-found", f"there is no player called {to!r}", 404)
            if target.id == identity.user_id:
                raise ClubError("not-allowed", "you cannot invite yourself", 409)
        if options.rated and (identity.guest or (target is not None and target.guest)):
            raise ClubError(
                "accounts-only", "rated games are for two accounts; guests play casual games", 403
            )
        limit = self.settings.max_open_invitations_per_player
        if await store.open_invitation_count(self.db, identity.user_id) >= limit:
            raise ClubError(
                "too-many-invitations",
                f"you have {limit} open invitations, the most a player may have:"
                " cancel one first",
                409,
            )
        invitation = Invitation(
            id=new_id(10),
            from_user_id=identity.user_id,
            to_user_id=target.id if target is not None else None,
            game=options.game,
            rules=options.rules,
            blocks=options.blocks,
            clock_base_ms=options.clock_base_ms,
            clock_inc_ms=options.clock_inc_ms,
            rated=options.rated,
            color=options.color,
            start_fen=options.setup,
            status=store.OPEN,
            game_id=None,
            created_at=now_ms(),
        )
        await store.insert_invitation(
            self.db, {c.name: getattr(invitation, c.name) for c in Invitation.__table__.columns}
        )
        if target is not None:
            self.notify(
                target.id, {"t": "invited", "invitation": await self.invitation_json(invitation)}
            )
        return invitation

    async def get_invitation(self, invitation_id: Any) -> Invitation:
        if key(invitation_id) is None:
            raise ClubError("not-found", "no such invitation", 404)
        invitation = await store.get_invitation(self.db, invitation_id)
        if invitation is None:
            raise ClubError("not-found", "no such invitation", 404)
        return invitation

    def _check_invitee(self, identity: Identity, invitation: Invitation) -> None:
        if invitation.status != store.OPEN:
            raise ClubError("gone", f"this invitation is {invitation.status}", 410)
        if invitation.from_user_id == identity.user_id:
            raise ClubError("not-allowed", "this is your own invitation", 409)
        if invitation.to_user_id is not None and invitation.to_user_id != identity.user_id:
            raise ClubError("not-allowed", "this invitation is for someone else", 403)

    async def accept_invitation(self, identity: Identity, invitation_id: Any) -> Round:
        invitation = await self.get_invitation(invitation_id)
        self._check_invitee(identity, invitation)
        if invitation.rated and identity.guest:
            raise ClubError(
                "accounts-only", "guests play casual games only: sign up to play rated", 403
            )
        # Checked before the invitation closes: a refusal leaves it open.
        await self.rounds.check_quota(identity.user_id, ai=False)
        if not await store.close_invitation(self.db, invitation.id, "accepted"):
            raise ClubError("gone", "this invitation is no longer open", 410)
        sender = (await game_store.users_by_id(self.db, [invitation.from_user_id]))[
            invitation.from_user_id
        ]
        options = options_of(invitation)
        seats = assign_colors(Seat.of_user(sender), seat_of(identity), invitation.color)
        rnd = await self.rounds.create(options, seats)
        await store.set_game(self.db, invitation.id, rnd.id)
        self.notify(invitation.from_user_id, {"t": "start", "game": rnd.id})
        return rnd

    async def decline_invitation(self, identity: Identity, invitation_id: Any) -> None:
        invitation = await self.get_invitation(invitation_id)
        self._check_invitee(identity, invitation)
        if not await store.close_invitation(self.db, invitation.id, "declined"):
            raise ClubError("gone", "this invitation is no longer open", 410)
        self.notify(invitation.from_user_id, {"t": "declined", "invitation": invitation.id})

    async def cancel_invitation(self, identity: Identity, invitation_id: Any) -> None:
        invitation = await self.get_invitation(invitation_id)
        if invitation.from_user_id != identity.user_id:
            raise ClubError("not-allowed", "only its sender can cancel an invitation", 403)
        if not await store.close_invitation(self.db, invitation.id, "cancelled"):
            raise ClubError("gone", "this invitation is no longer open", 410)

    async def invitations_of(self, identity: Identity) -> dict[str, list[dict[str, Any]]]:
        rows = await store.open_invitations_of(self.db, identity.user_id)
        ids = {uid for row in rows for uid in (row.from_user_id, row.to_user_id) if uid is not None}
        users = await game_store.users_by_id(self.db, list(ids))
        # Each invitation shows its players' ratings in its own game.
        ratings = {
            game: await game_store.ratings_of(self.db, list(ids), game)
            for game in {row.game for row in rows}
        }
        return {
            "incoming": [
                invitation_json(r, users, ratings[r.game])
                for r in rows
                if r.to_user_id == identity.user_id
            ],
            "outgoing": [
                invitation_json(r, users, ratings[r.game])
                for r in rows
                if r.from_user_id == identity.user_id
            ],
        }


def invitation_json(
    invitation: Invitation, users: dict[int, User], ratings: dict[int, Rating]
) -> dict[str, Any]:
    def who(user_id: int | None) -> dict[str, Any] | None:
        if user_id is None or user_id not in users:
            return None
        return Seat.of_user(users[user_id], ratings.get(user_id)).to_json()

    options = options_of(invitation)
    return {
        "id": invitation.id,
        "url": f"/invite/{invitation.id}",
        "from": who(invitation.from_user_id),
        "to": who(invitation.to_user_id),
        **options.to_json(),
        "status": invitation.status,
        "game": invitation.game_id,
        "created_at": invitation.created_at,
    }


def options_of(invitation: Invitation) -> GameOptions:
    return GameOptions(
        invitation.rules,
        invitation.blocks,
        invitation.clock_base_ms,
        invitation.clock_inc_ms,
        invitation.color,
        invitation.rated,
        invitation.start_fen,
        invitation.game,
    )
