"""Alembic environment for the club's schema, run by :func:`gameclub.server.store.db.migrate`.

The server hands over an open connection in ``config.attributes["connection"]``;
run by hand (``alembic -x url=sqlite:///var/gameclub.db upgrade head`` with
``script_location`` pointing here) it opens its own from ``-x url=...``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from gameclub.server.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_with(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things in place: batch mode copies tables.
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run_with(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("give the database with: alembic -x url=... upgrade head")
    engine = create_engine(url)
    with engine.begin() as conn:
        run_with(conn)
    engine.dispose()
