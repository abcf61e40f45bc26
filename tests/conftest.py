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


@pytest.fixture(scope="session", autouse=True)
def _exact_table_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The exact endgame tables Awele's ``master`` builds go to a directory of the test
    session, shared by the engines and servers the tests start, never to the user's
    cache (so every run also builds them once)."""
    before = os.environ.get("GAMECLUB_CACHE_DIR")
    os.environ["GAMECLUB_CACHE_DIR"] = str(tmp_path_factory.mktemp("exact-tables"))
    yield
    if before is None:
        del os.environ["GAMECLUB_CACHE_DIR"]
    else:
        os.environ["GAMECLUB_CACHE_DIR"] = before


@pytest.fixture(scope="session", autouse=True)
def _no_installed_tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The engines' default endgame tables are an empty directory of the test session,
    so tables installed on the machine never change what a test sees; tests of the
    tables point ``GAMECLUB_TABLEBASES`` at the ones they build."""
    before = os.environ.get("GAMECLUB_TABLEBASES")
    os.environ["GAMECLUB_TABLEBASES"] = str(tmp_path_factory.mktemp("no-tables"))
    yield
    if before is None:
        del os.environ["GAMECLUB_TABLEBASES"]
    else:
        os.environ["GAMECLUB_TABLEBASES"] = before
