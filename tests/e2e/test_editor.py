"""Real-browser tests of the board editor, starting pieces, colours, undo, save/restore,
playing a board again and the hot seat (Chromium + Playwright, the real server).

1. The editor: squares and their symmetric copies, the code field both ways, bad
   boards refused with the reason, random board, gallery, share link, play it.
2. Pieces placed freely, checked by the server; a game from that position.
3. Undo against the computer, and on the hot seat.
4. A game downloaded as PGN, loaded again, replayed and continued; a corrupt record.
5. Piece colours: a preference that survives a reload and never changes who starts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        f"BROWSER TESTS SKIPPED: {CHROMIUM} is missing. Install it with "
        "`sh scripts/install-browser.sh` (apt-get install chromium) to run tests/e2e.",
        allow_module_level=True,
    )

from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser

GAME_URL = re.compile(r"/game/[A-Za-z0-9]+$")


def blocks_on(page) -> int:
    return int(page.locator(".board .sq.block").count())


def test_the_board_editor(club, new_page):
    page = new_page(club.url)
    page.goto("/editor")
    code = page.locator("#editor-code")
    expect(code).to_have_value("0")
    expect(page.locator("#editor-valid")).to_have_text("yes")
    # A click places a block and its three mirror images; the code follows.
    page.locator('[data-square="b6"]').click()
    expect(code).to_have_value("g")
    for square in ("b6", "f6", "b2", "f2"):
        expect(page.locator(f'[data-square="{square}"]')).to_have_class(re.compile(r"\bblock\b"))
    expect(page.locator("#editor-count")).to_contain_text("4")
    # Clicking again removes the four.
    page.locator('[data-square="f2"]').click()
    expect(code).to_have_value("0")
    expect(page.locator(".board .sq.block")).to_have_count(0)
    # Typing a code draws it, with its preferred form and twin.
    code.fill("6ghx")
    expect(page.locator(".board .sq.block")).to_have_count(11)
    expect(page.locator("#editor-canonical")).to_have_text("6ghx")
    expect(page.locator("#editor-preferred")).to_have_text("3ghx")
    expect(page.locator("#editor-twin")).to_have_text("3ghx")
    code.fill("3ghx")
    expect(page.locator("#editor-preferred")).to_contain_text("3ghx (this one)")
    # A corner cannot be blocked: a clear message, and the board does not change.
    page.locator('[data-square="a1"]').click()
    expect(page.locator("#editor-message")).to_contain_text("corner")
    expect(page.locator(".board .sq.block")).to_have_count(11)
    expect(code).to_have_value("3ghx")
    # An over-full board is drawn, said to be unplayable, and cannot be played.
    code.fill("abcdefg")
    expect(page.locator("#editor-valid")).to_contain_text("at most 24")
    expect(page.locator("#setup-message")).to_contain_text("cannot be played")
    expect(page.locator("#editor-play-ai")).to_be_disabled()
    # A random valid board.
    page.locator("#editor-random").click()
    expect(page.locator("#editor-valid")).to_have_text("yes")
    expect(page.locator("#editor-play-ai")).to_be_enabled()
    # The gallery by block count.
    count = page.locator("#gallery-count")
    expect(count).to_have_value("4")
    expect(page.locator("#gallery-list .gallery-code")).to_have_count(14)
    count.select_option("2")
    expect(page.locator("#gallery-list .gallery-code")).to_have_count(3)
    page.locator('#gallery-list .gallery-code[data-code="3"]').click()
    expect(code).to_have_value("3")
    expect(page.locator(".board .sq.block")).to_have_count(2)
    # The share link opens the same board elsewhere.
    code.fill("3ghx")
    link = page.locator("#editor-link")
    expect(link).to_have_value(re.compile(r"/editor\?.*blocks=3ghx"))
    other = new_page(club.url)
    other.goto(link.input_value())
    expect(other.locator("#editor-code")).to_have_value("3ghx")
    expect(other.locator(".board .sq.block")).to_have_count(11)
    # Play it against the computer.
    page.locator("#ed-level").select_option("random")
    page.locator("#ed-color").select_option("x")
    page.locator("#editor-play-ai").click()
    page.wait_for_url(GAME_URL)
    expect(page.locator(".board .sq.block")).to_have_count(11)


def test_pieces_placed_freely(club, new_page, ui):
    page = new_page(club.url)
    page.goto("/editor?blocks=3ghx")
    expect(page.locator(".board .sq.block")).to_have_count(11)
    page.locator("#editor-start").select_option("two-corners")
    expect(page.locator(".board .sq.has-x")).to_have_count(1)
    expect(page.locator(".board .sq.has-o")).to_have_count(1)
    page.locator("#editor-start").select_option("custom")
    page.locator("#tool-x").check()
    # On a block: refused with the square named.
    page.locator('[data-square="d4"]').click()
    expect(page.locator("#setup-message")).to_contain_text("a piece stands on a block (d4)")
    expect(page.locator("#editor-play-ai")).to_be_disabled()
    page.locator("#tool-empty").check()
    page.locator('[data-square="d4"]').click()
    expect(page.locator("#setup-message")).to_contain_text("Ready to play")
    # Red's only piece taken away: the game would be over at once.
    page.locator('[data-square="a7"]').click()
    expect(page.locator("#setup-message")).to_contain_text("already over")
    page.locator("#tool-x").check()
    page.locator('[data-square="c6"]').click()
    page.locator("#tool-o").check()
    page.locator('[data-square="e2"]').click()
    page.locator("#editor-turn").select_option("o")
    expect(page.locator("#setup-message")).to_contain_text("Ready to play")
    expect(page.locator("#editor-link")).to_have_value(re.compile(r"fen="))
    page.locator("#ed-level").select_option("random")
    page.locator("#ed-color").select_option("x")
    page.locator("#editor-play-ai").click()
    page.wait_for_url(GAME_URL)
    ui.wait_moves(page, 1)  # blue (the computer) moves first in this position
    expect(page.locator('[data-square="c6"]')).to_have_class(re.compile(r"\bhas-x\b"))


def test_undo_against_the_computer(club, new_page, ui):
    page = new_page(club.url)
    page.goto("/")
    page.locator("#ai-details summary").click()
    page.locator("#ai-level").select_option("random")
    page.locator("#ai-color").select_option("x")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(GAME_URL)
    expect(page.locator("#takeback")).to_be_disabled()
    ui.play_one_move(page)
    ui.wait_moves(page, 2)
    ui.play_one_move(page)
    ui.wait_moves(page, 4)
    cells = page.locator(".board .sq.has-x").count()
    page.locator("#takeback").click()
    page.wait_for_function("() => document.querySelectorAll('#move-list li').length === 2")
    ui.wait_turn(page)
    assert page.locator(".board .sq.has-x").count() <= cells
    expect(page.locator("#download-pgn")).to_have_attribute("href", re.compile(r"/pgn$"))


def test_hot_seat_and_its_undo(club, new_page, ui):
    page = new_page(club.url)
    page.goto("/")
    page.locator("#play-hotseat").click()
    page.wait_for_url(GAME_URL)
    expect(page.locator("#hotseat-notice")).to_be_visible()
    for n in range(1, 4):  # both sides, from the same page
        ui.play_one_move(page)
        ui.wait_moves(page, n)
    expect(page.locator("#game-status")).to_contain_text("Blue to move")
    page.locator("#takeback").click()
    page.wait_for_function("() => document.querySelectorAll('#move-list li').length === 2")
    expect(page.locator("#game-status")).to_contain_text("Red to move")


def test_save_and_restore(club, new_page, ui, tmp_path):
    page = new_page(club.url)
    page.goto("/editor?blocks=g")
    page.locator("#ed-level").select_option("random")
    page.locator("#ed-color").select_option("x")
    page.locator("#editor-play-ai").click()
    page.wait_for_url(GAME_URL)
    for n in (2, 4):
        ui.play_one_move(page)
        ui.wait_moves(page, n)
    with page.expect_download() as download_info:
        page.locator("#download-pgn").click()
    saved = tmp_path / "game.pgn"
    download_info.value.save_as(saved)
    text = saved.read_text()
    assert '[Blocks "g"]' in text and '[Black "Guest-' in text and '[White "Computer' in text

    page.goto("/load")
    # A corrupt record: the reason, and nothing shown.
    page.locator("#record-text").fill(text.replace(" 2. ", " 2. a1a1 "))
    page.locator("#record-load").click()
    expect(page.locator("#record-error")).to_contain_text("cannot be read")
    expect(page.locator("#replay")).to_have_count(0)
    # From a file.
    page.locator("#record-file").set_input_files(str(saved))
    expect(page.locator("#replay")).to_be_visible()
    expect(page.locator("#record-error")).to_be_empty()
    expect(page.locator("#move-list li")).to_have_count(4)
    expect(page.locator(".board .sq.block")).to_have_count(4)
    # Step back to move 2 and go on from there against the computer.
    page.locator('#move-list li[data-ply="1"] button').click()
    expect(page.locator("#continue-at")).to_contain_text("after move 2")
    cells = page.evaluate(
        "() => [...document.querySelectorAll('.board .sq')].map(s => s.getAttribute('class'))"
    )
    page.locator("#continue-level").select_option("random")
    page.locator("#continue-ai").click()
    page.wait_for_url(GAME_URL)
    expect(page.locator(".board .sq.block")).to_have_count(4)
    ui.wait_turn(page)
    now = page.evaluate(
        "() => [...document.querySelectorAll('.board .sq')].map(s => s.getAttribute('class'))"
    )
    piece_classes = re.compile(r"\b(has-x|has-o|block)\b")
    assert [piece_classes.findall(c) for c in now] == [piece_classes.findall(c) for c in cells]


def test_piece_colours_are_remembered(club, new_page):
    page = new_page(club.url)
    page.goto("/prefs")
    page.locator("#pref-x").select_option("green")
    page.locator("#pref-o").select_option("green")
    page.locator("#prefs-save").click()
    expect(page.locator("#prefs-error")).to_contain_text("different colours")
    page.locator("#pref-o").select_option("yellow")
    page.locator("#prefs-save").click()
    expect(page.locator("#prefs-error")).to_be_empty()
    page.reload()
    expect(page.locator("#pref-x")).to_have_value("green")
    page.goto("/")
    page.locator("#play-computer").click()
    page.wait_for_url(GAME_URL)
    a7 = page.locator('[data-square="a7"]')
    expect(a7).to_have_attribute("aria-label", re.compile(r"^a7, green piece"))
    fill = a7.locator(".piece").evaluate("el => getComputedStyle(el).fill")
    assert fill == "rgb(46, 157, 91)"
    # The rules do not change: the first player (x, now green) moves first.
    expect(page.locator("#game-status")).to_have_text("Your turn.")
