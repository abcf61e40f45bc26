"""Shared test configuration."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


def _session_env(name: str, value: str) -> Iterator[None]:
    """``name`` set to ``value`` for the test session, then as it was."""
    before = os.environ.get(name)
    os.environ[name] = value
    yield
    if before is None:
        del os.environ[name]
    else:
        os.environ[name] = before


@pytest.fixture(scope="session", autouse=True)
def _exact_table_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The exact endgame tables Awele's ``master`` builds go to a directory of the test
    session, shared by the engines and servers the tests start, never to the user's
    cache (so every run also builds them once)."""
    yield from _session_env("GAMECLUB_CACHE_DIR", str(tmp_path_factory.mktemp("exact-tables")))


@pytest.fixture(scope="session", autouse=True)
def _no_installed_tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The engines' default endgame tables are an empty directory of the test session,
    so tables installed on the machine never change what a test sees; tests of the
    tables point ``GAMECLUB_TABLEBASES`` at the ones they build."""
    yield from _session_env("GAMECLUB_TABLEBASES", str(tmp_path_factory.mktemp("no-tables")))
