"""The replay shows the endgame tables' values where a table covers the position: a
loaded 3x4 record without the move limit gets the exact value of every move, and a
7x7 game (no table) shows none. The server runs with a table directory of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from gameclub.ataxx import ATAXX, Board
from gameclub.tablebase.ataxx import AtaxxProbe, AtaxxTables
from gameclub.tablebase.build import build
from gameclub.tablebase.values import decode

from .conftest import _new_server

RECORD = '[Rules "ataxx"]\n[RuleOptions "fifty=off"]\n[FEN "x1o/3/3/o1x x 0 1"]\n\n1. b2 c4a2 *\n'


def value_text(value: int) -> str:
    result, margin = decode(value)
    if result == 0:
        return "draw"
    return f"{'win' if result > 0 else 'loss'} {margin:+d}"


@pytest.fixture
def table_club(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = tmp_path / "tables"
    build(AtaxxTables(3, 4, "ataxx"), root)
    monkeypatch.setenv("GAMECLUB_TABLEBASES", str(root))
    server = _new_server(tmp_path / "club")
    server.start()
    try:
        yield server, AtaxxProbe.open(root, 3, 4, "ataxx")
    finally:
        server.stop()


def test_a_small_board_replay_shows_every_moves_exact_value(table_club, new_page):
    server, probe = table_club
    page = new_page(server.url)
    page.goto("/load")
    page.locator("#record-text").fill(RECORD)
    page.locator("#record-load").click()
    # A server of its own: its engine workers (which read records) start cold.
    expect(page.locator("#replay")).to_be_visible(timeout=180_000)
    rules = ATAXX.replace(width=3, height=4, fifty_move_limit=None)
    board = Board("x1o/3/3/o1x x 0 1", rules)
    for ply, move in enumerate(["", "b2", "c4a2"]):
        if move:
            board.push_uci(move)
        page.locator("#replay-slider").fill(str(ply))
        found = probe.probe(board)
        panel = page.locator("#table-analysis")
        expect(panel).to_be_visible()
        expect(page.locator("#table-value")).to_contain_text(value_text(found.value))
        items = page.locator("#table-moves li")
        expect(items).to_have_count(len(found.moves))
        for m in found.moves:
            item = page.locator(f'#table-moves li[data-move="{m.move.uci()}"]')
            expect(item.locator(".table-move-value")).to_have_text(value_text(m.value))
        best = found.best
        assert best is not None
        expect(page.locator('#table-moves li[data-best="true"]')).to_have_attribute(
            "data-move", best.uci())
        # Without the move limit every value is exact: no warning.
        expect(page.locator("#table-limit")).to_have_count(0)


def test_a_7x7_replay_shows_no_table(table_club, new_page):
    server, _ = table_club
    page = new_page(server.url)
    page.goto("/load")
    page.locator("#record-text").fill('[Rules "ataxx"]\n\n1. g2 a1a3 *\n')
    page.locator("#record-load").click()
    expect(page.locator("#replay")).to_be_visible(timeout=180_000)
    expect(page.locator("#replay-position")).to_contain_text("2")
    expect(page.locator("#table-analysis")).to_be_hidden()
