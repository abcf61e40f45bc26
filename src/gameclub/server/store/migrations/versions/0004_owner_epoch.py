"""Each game's owner epoch: the fencing token of the node that owns it in a cluster.

A node that takes over a live game increments ``owner_epoch`` and stores
every later change of that game only ``WHERE owner_epoch`` is still its own,
so a node that lost the game without knowing it (paused past its lease) can
no longer write to it. A single-process club leaves it at 0.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A constant default: no table copy, on SQLite either.
    op.add_column(
        "games", sa.Column("owner_epoch", sa.BigInteger(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    # In place (SQLite 3.35 and later too): a batch copy of ``games`` would drop the
    # old table and, through ON DELETE CASCADE, every move.
    op.execute("ALTER TABLE games DROP COLUMN owner_epoch")
