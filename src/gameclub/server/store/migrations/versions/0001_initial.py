"""Initial schema: users, sessions, games, moves, invitations, rating history.

Revision ID: 0001
Revises:
Create Date: 2024-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text, nullable=True),
        sa.Column("guest", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("rated_games", sa.Integer, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "games",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("rules", sa.String(20), nullable=False),
        sa.Column("blocks", sa.String(16), nullable=True),
        sa.Column("start_fen", sa.String(200), nullable=False),
        sa.Column("clock_base_ms", sa.BigInteger, nullable=True),
        sa.Column("clock_inc_ms", sa.BigInteger, nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("x_user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("o_user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("x_ai", sa.String(10), nullable=True),
        sa.Column("o_ai", sa.String(10), nullable=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("winner", sa.String(1), nullable=True),
        sa.Column("reason", sa.String(24), nullable=True),
        sa.Column("score_x", sa.Integer, nullable=True),
        sa.Column("score_o", sa.Integer, nullable=True),
        sa.Column("plies", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("x_ms", sa.BigInteger, nullable=True),
        sa.Column("o_ms", sa.BigInteger, nullable=True),
        sa.Column("turn_started_at", sa.BigInteger, nullable=True),
        sa.Column("draw_offer", sa.String(1), nullable=True),
        sa.Column("rematch_offer", sa.String(1), nullable=True),
        sa.Column("rematch_id", sa.String(16), nullable=True),
        sa.Column("rematch_of", sa.String(16), nullable=True),
        sa.Column("x_rating", sa.Float, nullable=True),
        sa.Column("o_rating", sa.Float, nullable=True),
        sa.Column("x_rating_diff", sa.Float, nullable=True),
        sa.Column("o_rating_diff", sa.Float, nullable=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("ended_at", sa.BigInteger, nullable=True),
    )
    op.create_index("ix_games_status", "games", ["status"])
    op.create_index("ix_games_x_user", "games", ["x_user_id"])
    op.create_index("ix_games_o_user", "games", ["o_user_id"])
    op.create_table(
        "moves",
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("ply", sa.Integer, primary_key=True),
        sa.Column("uci", sa.String(5), nullable=False),
        sa.Column("color", sa.String(1), nullable=False),
        sa.Column("auto", sa.Boolean, nullable=False),
        sa.Column("x_ms", sa.BigInteger, nullable=True),
        sa.Column("o_ms", sa.BigInteger, nullable=True),
        sa.Column("played_at", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("from_user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("to_user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("rules", sa.String(20), nullable=False),
        sa.Column("blocks", sa.String(16), nullable=True),
        sa.Column("clock_base_ms", sa.BigInteger, nullable=True),
        sa.Column("clock_inc_ms", sa.BigInteger, nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("color", sa.String(6), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("game_id", sa.String(16), nullable=True),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_invitations_from_user_id", "invitations", ["from_user_id"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("game_id", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_rating_history_user_id", "rating_history", ["user_id"])


def downgrade() -> None:
    op.drop_table("rating_history")
    op.drop_table("invitations")
    op.drop_table("moves")
    op.drop_table("games")
    op.drop_table("sessions")
    op.drop_table("users")
