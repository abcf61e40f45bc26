"""The club's tables as SQLAlchemy 2 declarative models.

Times are integer milliseconds since the Unix epoch, so they read the same on
SQLite and PostgreSQL. The schema is created and changed only by the Alembic
migrations in ``migrations/versions``; keep the two in step.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class User(Base):
    """An account or a guest; guests have no password and play casual games only."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40))
    #: ``name`` folded to lower case: names are unique without regard to case.
    name_key: Mapped[str] = mapped_column(String(40), unique=True)
    password_hash: Mapped[str | None] = mapped_column(Text, nullable=True)
    guest: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[int] = mapped_column(BigInteger)
    #: The Ataxx rating as it stood before each game had its own (migration
    #: 0003 copied it to ``ratings``); no longer read or written.
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    rated_games: Mapped[int] = mapped_column(Integer, default=0)
    #: Preferred piece colours, ``"red,blue"`` (x first); ``None``: the default.
    piece_colors: Mapped[str | None] = mapped_column(String(40), nullable=True)


class Session(Base):
    """A login session; only the SHA-256 of the cookie's token is stored."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[int] = mapped_column(BigInteger)


class Game(Base):
    """One game: its settings, players, clock state, result and event version."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    #: Which game (``ataxx``, ``awele``: a key of ``gameclub.games.GAMES``).
    game: Mapped[str] = mapped_column(String(16), default="ataxx", server_default="ataxx")
    rules: Mapped[str] = mapped_column(String(20))
    blocks: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: The start position in the game's own notation (an Ataxx FEN, an Awele position).
    start_fen: Mapped[str] = mapped_column(String(200))
    clock_base_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    clock_inc_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    x_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    o_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    x_ai: Mapped[str | None] = mapped_column(String(10), nullable=True)
    o_ai: Mapped[str | None] = mapped_column(String(10), nullable=True)
    #: ``started``, ``finished`` or ``aborted``.
    status: Mapped[str] = mapped_column(String(10))
    winner: Mapped[str | None] = mapped_column(String(1), nullable=True)
    reason: Mapped[str | None] = mapped_column(String(24), nullable=True)
    score_x: Mapped[int | None] = mapped_column(Integer, nullable=True)
    score_o: Mapped[int | None] = mapped_column(Integer, nullable=True)
    plies: Mapped[int] = mapped_column(Integer, default=0)
    version: Mapped[int] = mapped_column(Integer, default=0)
    #: The fencing token of the node that owns the game in a cluster (docs/server.md,
    #: "Several nodes"): incremented by each takeover, checked by each write.
    owner_epoch: Mapped[int] = mapped_column(BigInteger, server_default="0")
    #: Time left to each side when the running clock last started (``turn_started_at``).
    x_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    o_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    turn_started_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    draw_offer: Mapped[str | None] = mapped_column(String(1), nullable=True)
    rematch_offer: Mapped[str | None] = mapped_column(String(1), nullable=True)
    #: The side asking to take back its last move (casual games only).
    takeback_offer: Mapped[str | None] = mapped_column(String(1), nullable=True)
    rematch_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    rematch_of: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: Ratings at the start of a rated game, and their change at its end.
    x_rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    o_rating: Mapped[float | None] = mapped_column(Float, nullable=True)
    x_rating_diff: Mapped[float | None] = mapped_column(Float, nullable=True)
    o_rating_diff: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[int] = mapped_column(BigInteger)
    ended_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)

    __table_args__ = (
        Index("ix_games_status", "status"),
        Index("ix_games_x_user", "x_user_id"),
        Index("ix_games_o_user", "o_user_id"),
        Index("ix_games_game", "game"),
    )


class MoveRow(Base):
    """One move (or forced pass) of a game, stored when played; ``(game, ply)`` is unique."""

    __tablename__ = "moves"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    uci: Mapped[str] = mapped_column(String(5))
    color: Mapped[str] = mapped_column(String(1))
    auto: Mapped[bool] = mapped_column(Boolean, default=False)
    x_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    o_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    played_at: Mapped[int] = mapped_column(BigInteger)


class Invitation(Base):
    """A challenge to one named user, or to anyone holding the link."""

    __tablename__ = "invitations"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    from_user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    to_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    game: Mapped[str] = mapped_column(String(16), default="ataxx", server_default="ataxx")
    rules: Mapped[str] = mapped_column(String(20))
    blocks: Mapped[str | None] = mapped_column(String(16), nullable=True)
    clock_base_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    clock_inc_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    color: Mapped[str] = mapped_column(String(6))
    #: A set-up start position (FEN), ``None`` for the rule set's own.
    start_fen: Mapped[str | None] = mapped_column(String(200), nullable=True)
    #: ``open``, ``accepted``, ``declined`` or ``cancelled``.
    status: Mapped[str] = mapped_column(String(10))
    game_id: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[int] = mapped_column(BigInteger)


class PlayerRating(Base):
    """A player's Glicko-2 rating in one game (each game has its own); no row: a new player's."""

    __tablename__ = "ratings"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    rated_games: Mapped[int] = mapped_column(Integer, default=0)

    __table_args__ = (Index("ix_ratings_game_rating", "game", "rating"),)


class RatingHistory(Base):
    """A player's rating in one game after each rated game of it."""

    __tablename__ = "rating_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    game: Mapped[str] = mapped_column(String(16), default="ataxx", server_default="ataxx")
    game_id: Mapped[str] = mapped_column(String(16))
    rating: Mapped[float] = mapped_column(Float)
    rd: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    at: Mapped[int] = mapped_column(BigInteger)
