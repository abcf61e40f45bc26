"""Persistence: SQLAlchemy models, Alembic migrations (run on start-up) and repositories."""
