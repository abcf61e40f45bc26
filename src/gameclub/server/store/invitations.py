"""Repository of invitations (challenges to a named friend or to anyone with the link)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, insert, or_, select, update

from gameclub.server.store.db import Database
from gameclub.server.store.models import Invitation

OPEN = "open"


async def insert_invitation(db: Database, fields: dict[str, Any]) -> None:
    async with db.write() as session:
        await session.execute(insert(Invitation).values(**fields))


async def get_invitation(db: Database, invitation_id: str) -> Invitation | None:
    async with db.read() as session:
        return await session.get(Invitation, invitation_id)


async def close_invitation(
    db: Database, invitation_id: str, status: str, game_id: str | None = None
) -> bool:
    """Move an open invitation to ``status``; ``False`` if it was no longer open.

    The ``status = 'open'`` condition makes this the one place where two
    people accepting the same link at once are told apart: one update wins.
    """
    async with db.write() as session:
        result = await session.execute(
            update(Invitation)
            .where(Invitation.id == invitation_id, Invitation.status == OPEN)
            .values(status=status, game_id=game_id)
        )
        return bool(getattr(result, "rowcount", 0))


async def set_game(db: Database, invitation_id: str, game_id: str) -> None:
    async with db.write() as session:
        await session.execute(
            update(Invitation).where(Invitation.id == invitation_id).values(game_id=game_id)
        )


async def open_invitation_count(db: Database, user_id: int) -> int:
    """How many open invitations ``user_id`` has sent."""
    async with db.read() as session:
        count = (
            await session.execute(
                select(func.count()).where(
                    Invitation.status == OPEN, Invitation.from_user_id == user_id
                )
            )
        ).scalar_one()
    return int(count)


async def open_invitations_of(db: Database, user_id: int) -> list[Invitation]:
    async with db.read() as session:
        return list(
            (
                await session.execute(
                    select(Invitation)
                    .where(
                        Invitation.status == OPEN,
                        or_(Invitation.from_user_id == user_id, Invitation.to_user_id == user_id),
                    )
                    .order_by(Invitation.created_at.desc())
                    .limit(100)
                )
            ).scalars()
        )
