"""Repository of games: creation, every move as it is played, results and ratings, queries.

Each function is one transaction. Moves go in with the game row's new state
in the same transaction, so after a crash the stored game is exactly the
last acknowledged one; ``(game_id, ply)`` being the primary key of a move
makes applying a move twice impossible even across processes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import (
    Select,
    Table,
    and_,
    bindparam,
    case,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from gameclub.server.ratings import Rating, rate_game
from gameclub.server.store.db import Database, Mergeable, Query, Statements
from gameclub.server.store.models import Game, MoveRow, PlayerRating, RatingHistory, User

FINISHED = "finished"
STARTED = "started"
ABORTED = "aborted"


@dataclass(frozen=True)
class RatingChange:
    x: Rating
    o: Rating
    x_diff: float
    o_diff: float


async def insert_game(db: Database, fields: dict[str, Any]) -> None:
    """Store a new game (merged with other games' writes, like its moves)."""
    await db.commit_soon(Mergeable("insert-game", fields, _insert_games))


def _insert_games(rows: list[dict[str, Any]]) -> Statements:
    by_keys: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in rows:
        by_keys.setdefault(tuple(sorted(row)), []).append(row)
    return [(_INSERT_GAME, same) for same in by_keys.values()]


class Fenced(Exception):
    """A write refused because another node has taken the game over (its owner epoch
    is no longer the writer's): nothing of it was stored."""


async def take_ownership(db: Database, game_id: str) -> int | None:
    """Increment ``game_id``'s owner epoch; the new epoch, or ``None`` if there is no such game.

    The caller holds the game's lease: from now on only writes fenced with this
    epoch are stored, and those of any earlier owner are refused.
    """

    async def work(session: AsyncSession) -> int | None:
        result = await session.execute(
            update(_GAMES_TABLE)
            .where(_GAMES_TABLE.c.id == game_id)
            .values(owner_epoch=_GAMES_TABLE.c.owner_epoch + 1)
            .returning(_GAMES_TABLE.c.owner_epoch)
        )
        epoch = result.scalar_one_or_none()
        return None if epoch is None else int(epoch)

    return await db.commit_soon(work)


async def save_progress(
    db: Database,
    game_id: str,
    fields: dict[str, Any],
    moves: Sequence[dict[str, Any]] = (),
    *,
    rate: tuple[int, int, float, str] | None = None,
    now: int = 0,
    delete_from: int | None = None,
    fence: int | None = None,
) -> RatingChange | None:
    """Store new moves and the game's new state; rate the game if ``rate`` is given.

    ``rate`` is ``(x_user_id, o_user_id, x_score, game)``: both players' ratings
    in that game are read, updated and written inside this transaction. ``delete_from`` deletes
    the moves from that ply on first (a takeback). ``fence`` (several nodes): the
    writer's owner epoch; if the game's is another, nothing is stored and
    :class:`Fenced` is raised.
    """

    if delete_from is None and rate is None:
        # The common case, one move played: merged with other games' saves. Fenced
        # (several nodes), the batch first checks every game's epoch in one query.
        if fence is None:
            await db.commit_soon(Mergeable("save-progress", (game_id, fields, moves), _save_many))
        else:
            await db.commit_soon(
                Mergeable(
                    "save-fenced", (game_id, fields, moves, fence), _save_many_fenced,
                    screen=_screen_fences,
                )
            )
        return None

    async def work(session: AsyncSession) -> RatingChange | None:
        if fence is not None:
            # First, and in the same transaction: the row stays locked (PostgreSQL)
            # until the commit, so a takeover's increment comes before or after
            # this whole write, never in the middle of it.
            held = await session.execute(
                update(_GAMES_TABLE)
                .where(_GAMES_TABLE.c.id == game_id, _GAMES_TABLE.c.owner_epoch == fence)
                .values(owner_epoch=fence)
            )
            if held.rowcount != 1:  # type: ignore[attr-defined]
                raise Fenced(f"game {game_id}: owner epoch {fence} is not the game's any more")
        if delete_from is not None:
            await session.execute(
                delete(MoveRow).where(MoveRow.game_id == game_id, MoveRow.ply >= delete_from)
            )
        return await _save(session, game_id, fields, moves, rate, now)

    return await db.commit_soon(work)


async def _save(
    session: AsyncSession,
    game_id: str,
    fields: dict[str, Any],
    moves: Sequence[dict[str, Any]],
    rate: tuple[int, int, float, str] | None,
    now: int,
) -> RatingChange | None:
    change: RatingChange | None = None
    if moves:
        await session.execute(_INSERT_MOVES, [{"game_id": game_id, **move} for move in moves])
    if rate is not None:
        x_id, o_id, x_score, game = rate
        # The players' rows are locked first (they always exist), so that two
        # games ending at once rate one after the other even when a player has
        # no rating row in this game yet.
        await session.execute(select(User.id).where(User.id.in_((x_id, o_id))).with_for_update())
        rows = {
            row.user_id: row
            for row in (
                await session.execute(
                    select(PlayerRating)
                    .where(PlayerRating.user_id.in_((x_id, o_id)), PlayerRating.game == game)
                    .with_for_update()
                )
            ).scalars()
        }
        for user_id in (x_id, o_id):
            if user_id not in rows:
                new = Rating()
                rows[user_id] = PlayerRating(
                    user_id=user_id,
                    game=game,
                    rating=new.rating,
                    rd=new.rd,
                    volatility=new.volatility,
                    rated_games=0,
                )
                session.add(rows[user_id])
        x_row, o_row = rows[x_id], rows[o_id]
        before_x = Rating(x_row.rating, x_row.rd, x_row.volatility)
        before_o = Rating(o_row.rating, o_row.rd, o_row.volatility)
        after_x, after_o = rate_game(before_x, before_o, x_score)
        for row, after in ((x_row, after_x), (o_row, after_o)):
            row.rating, row.rd, row.volatility = after.rating, after.rd, after.volatility
            row.rated_games += 1
            session.add(
                RatingHistory(
                    user_id=row.user_id,
                    game=game,
                    game_id=game_id,
                    rating=after.rating,
                    rd=after.rd,
                    volatility=after.volatility,
                    at=now,
                )
            )
        change = RatingChange(
            after_x, after_o, after_x.rating - before_x.rating, after_o.rating - before_o.rating
        )
        fields = {**fields, "x_rating_diff": change.x_diff, "o_rating_diff": change.o_diff}
    await session.execute(_UPDATE_GAME, {"game_key": game_id, **fields})
    return change


def _save_many(saves: list[tuple[str, dict[str, Any], Sequence[dict[str, Any]]]]) -> Statements:
    """Several games' new moves and states: one executemany per table and field set."""
    statements: Statements = []
    move_rows = [{"game_id": game_id, **move} for game_id, _, moves in saves for move in moves]
    if move_rows:
        statements.append((_INSERT_MOVES, move_rows))
    by_keys: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for game_id, fields, _ in saves:
        by_keys.setdefault(tuple(sorted(fields)), []).append({"game_key": game_id, **fields})
    statements += [(_UPDATE_GAME, rows) for rows in by_keys.values()]
    return statements


def _save_many_fenced(
    saves: list[tuple[str, dict[str, Any], Sequence[dict[str, Any]], int]],
) -> Statements:
    return _save_many([(game_id, fields, moves) for game_id, fields, moves, _ in saves])


def _screen_fences(
    query: Query, saves: list[tuple[str, dict[str, Any], Sequence[dict[str, Any]], int]]
) -> list[BaseException | None]:
    """The fence of a batch of saves: each game's owner epoch read in one statement, its
    rows locked until the batch commits (PostgreSQL), so that a takeover's increment
    comes before or after the whole batch, never in the middle of it. A save whose
    epoch is not its game's any more is refused with :class:`Fenced` and writes
    nothing; the others are written as usual."""
    ids = sorted({game_id for game_id, *_ in saves})
    # A few statement shapes, not one per batch size: the list is padded to a power
    # of two by repeating its last id (each shape is compiled and prepared once).
    size = 1 << (len(ids) - 1).bit_length()
    params = {f"g{k}": ids[min(k, len(ids) - 1)] for k in range(size)}
    epochs = {game_id: epoch for game_id, epoch in query(_fence_query(size), params)}
    return [
        None
        if epochs.get(game_id) == fence
        else Fenced(f"game {game_id}: owner epoch {fence} is not the game's any more")
        for game_id, _, _, fence in saves
    ]


@functools.cache
def _fence_query(size: int) -> Select[Any]:
    # Locked in the order of the ids: two batches (or a batch and a sweep) that share
    # games take their locks in the same order and cannot deadlock on them.
    return (
        select(_GAMES_TABLE.c.id, _GAMES_TABLE.c.owner_epoch)
        .where(_GAMES_TABLE.c.id.in_([bindparam(f"g{k}") for k in range(size)]))
        .order_by(_GAMES_TABLE.c.id)
        .with_for_update()
    )


# Core statements built once, with every value bound at execution: they are
# compiled once and cached, where ORM statements with inline values would be
# rebuilt and re-keyed on every move (the hot path of the club).
_MOVES_TABLE = cast(Table, MoveRow.__table__)
_GAMES_TABLE = cast(Table, Game.__table__)
_INSERT_MOVES = insert(_MOVES_TABLE)
_INSERT_GAME = insert(_GAMES_TABLE)
_UPDATE_GAME = update(_GAMES_TABLE).where(_GAMES_TABLE.c.id == bindparam("game_key"))


async def load_game(db: Database, game_id: str) -> tuple[Game, list[MoveRow]] | None:
    async with db.read() as session:
        game = await session.get(Game, game_id)
        if game is None:
            return None
        moves = list(
            (
                await session.execute(
                    select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.ply)
                )
            ).scalars()
        )
    return game, moves


async def started_game_ids(db: Database) -> list[str]:
    async with db.read() as session:
        return list(
            (await session.execute(select(Game.id).where(Game.status == STARTED))).scalars()
        )


async def unstarted_game_ids(db: Database, created_before: int, *, limit: int) -> list[str]:
    """Games in progress without both first moves, created before ``created_before`` (ms)."""
    async with db.read() as session:
        return list(
            (
                await session.execute(
                    select(Game.id)
                    .where(
                        Game.status == STARTED, Game.plies < 2, Game.created_at < created_before
                    )
                    .limit(limit)
                )
            ).scalars()
        )


async def abort_games(db: Database, ids: Sequence[str], now: int) -> int:
    """Abort the games of ``ids`` that are still in progress; returns how many were.

    Their owner epoch moves on: a node of several that took one over meanwhile
    can store nothing more of it (see :func:`save_progress`'s ``fence``).
    """
    async with db.write() as session:
        result = await session.execute(
            update(Game)
            .where(Game.id.in_(list(ids)), Game.status == STARTED)
            .values(
                owner_epoch=Game.owner_epoch + 1,
                status=ABORTED,
                reason="aborted",
                ended_at=now,
                draw_offer=None,
                takeback_offer=None,
                turn_started_at=None,
            )
        )
        return int(getattr(result, "rowcount", 0) or 0)


async def users_by_id(db: Database, ids: Sequence[int]) -> dict[int, User]:
    if not ids:
        return {}
    async with db.read() as session:
        rows = (await session.execute(select(User).where(User.id.in_(set(ids))))).scalars()
        return {user.id: user for user in rows}


async def user_by_name(db: Database, name: str) -> User | None:
    async with db.read() as session:
        return (
            await session.execute(select(User).where(User.name_key == name.lower()))
        ).scalar_one_or_none()


async def ratings_of(db: Database, user_ids: Sequence[int], game: str) -> dict[int, Rating]:
    """The ratings in ``game`` of ``user_ids`` (a new player's for those without one)."""
    found: dict[int, Rating] = {}
    if user_ids:
        async with db.read() as session:
            rows = (
                await session.execute(
                    select(PlayerRating).where(
                        PlayerRating.user_id.in_(set(user_ids)), PlayerRating.game == game
                    )
                )
            ).scalars()
            found = {row.user_id: Rating(row.rating, row.rd, row.volatility) for row in rows}
    return {user_id: found.get(user_id, Rating()) for user_id in user_ids}


async def ratings_of_user(db: Database, user_id: int) -> dict[str, tuple[Rating, int]]:
    """``user_id``'s rating and rated games in each game they have a rating in."""
    async with db.read() as session:
        rows = (
            await session.execute(select(PlayerRating).where(PlayerRating.user_id == user_id))
        ).scalars()
        return {
            row.game: (Rating(row.rating, row.rd, row.volatility), row.rated_games) for row in rows
        }


async def games_of_user(
    db: Database, user_id: int, *, offset: int = 0, limit: int = 20, game: str | None = None
) -> tuple[list[Game], int]:
    """Games of a user (of one game, or of every game), finished or in progress (not
    aborted), newest first, and how many."""
    where = and_(
        or_(Game.x_user_id == user_id, Game.o_user_id == user_id),
        Game.status.in_((FINISHED, STARTED)),
        *([Game.game == game] if game is not None else []),
    )
    async with db.read() as session:
        total = int((await session.execute(select(func.count()).where(where))).scalar_one())
        games = list(
            (
                await session.execute(
                    select(Game)
                    .where(where)
                    .order_by(Game.created_at.desc(), Game.id)
                    .offset(offset)
                    .limit(limit)
                )
            ).scalars()
        )
    return games, total


async def open_game_counts(db: Database, user_id: int) -> tuple[int, int]:
    """How many unfinished games ``user_id`` plays: in all, and against the computer."""
    against_computer = case((or_(Game.x_ai.is_not(None), Game.o_ai.is_not(None)), 1))
    async with db.read() as session:
        row = (
            await session.execute(
                select(func.count(), func.count(against_computer)).where(
                    or_(Game.x_user_id == user_id, Game.o_user_id == user_id),
                    Game.status == STARTED,
                )
            )
        ).one()
    return int(row[0]), int(row[1])


async def active_game_ids_of_user(db: Database, user_id: int, limit: int = 50) -> list[str]:
    """The newest ``limit`` games in progress of ``user_id``."""
    async with db.read() as session:
        return list(
            (
                await session.execute(
                    select(Game.id)
                    .where(
                        or_(Game.x_user_id == user_id, Game.o_user_id == user_id),
                        Game.status == STARTED,
                    )
                    .order_by(Game.created_at.desc())
                    .limit(limit)
                )
            ).scalars()
        )


@dataclass
class Tally:
    win: int = 0
    loss: int = 0
    draw: int = 0

    def add(self, score: float, games: int = 1) -> None:
        if score == 1.0:
            self.win += games
        elif score == 0.0:
            self.loss += games
        else:
            self.draw += games

    def to_json(self) -> dict[str, int]:
        return {"win": self.win, "loss": self.loss, "draw": self.draw}


@dataclass
class BoardTally:
    """Results on one board (or under one rule set): all games, against the computer, people."""

    all: Tally = field(default_factory=Tally)
    ai: Tally = field(default_factory=Tally)
    people: Tally = field(default_factory=Tally)

    def add(self, score: float, vs_ai: bool, games: int = 1) -> None:
        self.all.add(score, games)
        (self.ai if vs_ai else self.people).add(score, games)

    def to_json(self) -> dict[str, Any]:
        return {**self.all.to_json(), "ai": self.ai.to_json(), "people": self.people.to_json()}


async def user_stats(db: Database, user_id: int, game: str = "ataxx") -> dict[str, Any]:
    """Wins, losses and draws in ``game`` overall, per computer level, per human opponent,
    per board (Blocs-Config) and per rule set. Hot-seat games (one person on both sides)
    do not count.

    Counted by the database (one row per kind of game, not per game): the work
    done here does not grow with the number of games played."""
    columns = (
        Game.x_user_id,
        Game.o_user_id,
        Game.x_ai,
        Game.o_ai,
        Game.winner,
        Game.blocks,
        Game.rules,
    )
    async with db.read() as session:
        rows = (
            await session.execute(
                select(*columns, func.count())
                .where(
                    or_(Game.x_user_id == user_id, Game.o_user_id == user_id),
                    Game.status == FINISHED,
                    Game.game == game,
                )
                .group_by(*columns)
            )
        ).all()
    overall = Tally()
    per_level: dict[str, Tally] = {}
    per_opponent: dict[int, Tally] = {}
    per_board: dict[str, BoardTally] = {}
    per_rules: dict[str, BoardTally] = {}
    for x_id, o_id, x_ai, o_ai, winner, blocks, rules, games in rows:
        if x_id == o_id:
            continue  # hot seat
        mine = "x" if x_id == user_id else "o"
        score = 0.5 if winner is None else (1.0 if winner == mine else 0.0)
        overall.add(score, games)
        their_ai = o_ai if mine == "x" else x_ai
        their_id = o_id if mine == "x" else x_id
        if their_ai is not None:
            per_level.setdefault(their_ai, Tally()).add(score, games)
        elif their_id is not None:
            per_opponent.setdefault(their_id, Tally()).add(score, games)
        per_board.setdefault(blocks or "0", BoardTally()).add(score, their_ai is not None, games)
        per_rules.setdefault(rules, BoardTally()).add(score, their_ai is not None, games)
    names = await users_by_id(db, list(per_opponent))
    ranked = sorted(
        ((names[uid].name, tally) for uid, tally in per_opponent.items() if uid in names),
        key=lambda pair: (-(pair[1].win + pair[1].loss + pair[1].draw), pair[0]),
    )
    opponents = [{"name": name, **tally.to_json()} for name, tally in ranked]
    return {
        "kind": game,
        "overall": overall.to_json(),
        "ai": {level: tally.to_json() for level, tally in sorted(per_level.items())},
        "opponents": opponents,
        "boards": [
            {"blocks": code, **tally.to_json()}
            for code, tally in sorted(
                per_board.items(),
                key=lambda pair: (
                    -(pair[1].all.win + pair[1].all.loss + pair[1].all.draw),
                    pair[0],
                ),
            )
        ],
        "rules": {name: tally.to_json() for name, tally in sorted(per_rules.items())},
    }


async def board_stats(db: Database, limit: int = 200) -> list[dict[str, Any]]:
    """Club-wide: how people fare against the computer on each board (Blocs-Config).

    Counted by the database, one row per board, side and result: the work done
    here does not grow with the number of games played."""
    computer_is_x = Game.x_ai.is_not(None)
    async with db.read() as session:
        rows = (
            await session.execute(
                select(Game.blocks, computer_is_x, Game.winner, func.count())
                .where(
                    Game.status == FINISHED,
                    Game.game == "ataxx",  # boards are Ataxx's Blocs-Configs
                    or_(
                        and_(Game.x_ai.is_not(None), Game.o_user_id.is_not(None)),
                        and_(Game.o_ai.is_not(None), Game.x_user_id.is_not(None)),
                    ),
                )
                .group_by(Game.blocks, computer_is_x, Game.winner)
            )
        ).all()
    boards: dict[str, Tally] = {}
    for blocks, x_is_computer, winner, games in rows:
        human = "o" if x_is_computer else "x"
        score = 0.5 if winner is None else (1.0 if winner == human else 0.0)
        boards.setdefault(blocks or "0", Tally()).add(score, games)
    ranked = sorted(
        boards.items(), key=lambda pair: (-(pair[1].win + pair[1].loss + pair[1].draw), pair[0])
    )
    return [{"blocks": code, **tally.to_json()} for code, tally in ranked[:limit]]


async def set_piece_colors(db: Database, user_id: int, colors: str | None) -> None:
    async with db.write() as session:
        await session.execute(update(User).where(User.id == user_id).values(piece_colors=colors))


async def piece_colors(db: Database, user_id: int) -> str | None:
    async with db.read() as session:
        return (
            await session.execute(select(User.piece_colors).where(User.id == user_id))
        ).scalar_one_or_none()


async def rating_history(
    db: Database, user_id: int, game: str = "ataxx"
) -> list[RatingHistory]:
    async with db.read() as session:
        return list(
            (
                await session.execute(
                    select(RatingHistory)
                    .where(RatingHistory.user_id == user_id, RatingHistory.game == game)
                    .order_by(RatingHistory.at, RatingHistory.id)
                )
            ).scalars()
        )


async def leaderboard(
    db: Database, game: str = "ataxx", limit: int = 100
) -> list[tuple[User, PlayerRating]]:
    """The accounts with at least one rated game of ``game``, best rated first."""
    async with db.read() as session:
        rows = (
            await session.execute(
                select(User, PlayerRating)
                .join(PlayerRating, PlayerRating.user_id == User.id)
                .where(
                    User.guest.is_(False), PlayerRating.game == game, PlayerRating.rated_games > 0
                )
                .order_by(PlayerRating.rating.desc(), User.id)
                .limit(limit)
            )
        ).all()
        return [(user, rating) for user, rating in rows]
