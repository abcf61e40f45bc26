"""Two games: which game each game and invitation is, and a rating per player and game.

Every stored game and invitation is Ataxx's (``game`` defaults to
``"ataxx"``); each player's rating, which was Ataxx's, is copied into
``ratings`` as their Ataxx rating (players whose rating never moved from a new
player's get no row: no row reads as a new player's rating), and the rating
history says which game each entry is of.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

#: A new player's rating (gameclub.server.ratings), which needs no row.
_NEW = (1500.0, 500.0, 0.09)


def upgrade() -> None:
    # ADD COLUMN with a constant default fills every row and needs no table
    # copy, on SQLite either.
    op.add_column("games", sa.Column("game", sa.String(16), nullable=False, server_default="ataxx"))
    op.create_index("ix_games_game", "games", ["game"])
    op.add_column(
        "invitations", sa.Column("game", sa.String(16), nullable=False, server_default="ataxx")
    )
    op.add_column(
        "rating_history",
        sa.Column("game", sa.String(16), nullable=False, server_default="ataxx"),
    )
    op.create_table(
        "ratings",
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("rated_games", sa.Integer, nullable=False),
    )
    op.create_index("ix_ratings_game_rating", "ratings", ["game", "rating"])
    op.execute(
        sa.text(
            "INSERT INTO ratings (user_id, game, rating, rd, volatility, rated_games)"
            " SELECT id, 'ataxx', rating, rd, volatility, rated_games FROM users"
            " WHERE rated_games > 0 OR rating <> :rating OR rd <> :rd OR volatility <> :vol"
        ).bindparams(rating=_NEW[0], rd=_NEW[1], vol=_NEW[2])
    )


def downgrade() -> None:
    # Ataxx's ratings go back to the users' rows; other games' are lost.
    op.execute(
        sa.text(
            "UPDATE users SET"
            " rating = (SELECT r.rating FROM ratings r WHERE r.user_id = users.id"
            "  AND r.game = 'ataxx'),"
            " rd = (SELECT r.rd FROM ratings r WHERE r.user_id = users.id AND r.game = 'ataxx'),"
            " volatility = (SELECT r.volatility FROM ratings r WHERE r.user_id = users.id"
            "  AND r.game = 'ataxx'),"
            " rated_games = (SELECT r.rated_games FROM ratings r WHERE r.user_id = users.id"
            "  AND r.game = 'ataxx')"
            " WHERE EXISTS (SELECT 1 FROM ratings r WHERE r.user_id = users.id"
            "  AND r.game = 'ataxx')"
        )
    )
    op.drop_index("ix_ratings_game_rating", table_name="ratings")
    op.drop_table("ratings")
    op.drop_index("ix_games_game", table_name="games")
    # ALTER TABLE ... DROP COLUMN in place (SQLite 3.35 and later too): a batch
    # copy of ``games`` would drop the old table, and with it, through ON DELETE
    # CASCADE, every move.
    for table in ("rating_history", "invitations", "games"):
        op.execute(f"ALTER TABLE {table} DROP COLUMN game")
