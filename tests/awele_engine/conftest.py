"""The exact endgame tables ``master`` builds go to a directory of the test session,
shared by the engine processes the tests start, never to the user's cache."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _exact_table_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    before = os.environ.get("GAMECLUB_CACHE_DIR")
    os.environ["GAMECLUB_CACHE_DIR"] = str(tmp_path_factory.mktemp("exact-tables"))
    yield
    if before is None:
        del os.environ["GAMECLUB_CACHE_DIR"]
    else:
        os.environ["GAMECLUB_CACHE_DIR"] = before
