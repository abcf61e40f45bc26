"""Set-up positions for invitations, takeback offers, players' piece colours.

Revision ID: 0002
Revises: 0001
Create Date: 2024-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ADD COLUMN of a nullable column needs no table copy, on SQLite either.
    op.add_column("invitations", sa.Column("start_fen", sa.String(200), nullable=True))
    op.add_column("games", sa.Column("takeback_offer", sa.String(1), nullable=True))
    op.add_column("users", sa.Column("piece_colors", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("piece_colors")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("takeback_offer")
    with op.batch_alter_table("invitations") as batch:
        batch.drop_column("start_fen")
