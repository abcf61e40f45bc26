"""The record page offers to continue only from positions a game can start from."""

from __future__ import annotations

from playwright.sync_api import expect

FULL = "xxxxxxx/" * 6


def test_continuing_is_offered_only_where_a_game_can_start(club, new_page):
    page = new_page(club.url)
    page.goto("/load")
    # x takes the last empty square: the game is over after its one move.
    page.locator("#record-text").fill(f'[FEN "{FULL}xxxxx1o x 0 1"]\n\n1. f1 1-0\n')
    page.locator("#record-load").click()
    expect(page.locator("#replay")).to_be_visible()
    # The page opens on the last position: over, nothing to continue.
    expect(page.locator("#continue-at")).to_contain_text("already over")
    expect(page.locator("#continue-ai")).to_be_disabled()
    expect(page.locator("#continue-hotseat")).to_be_disabled()
    # The start can be continued.
    page.locator("#replay-slider").fill("0")
    expect(page.locator("#continue-at")).to_contain_text("after move 0")
    expect(page.locator("#continue-ai")).to_be_enabled()
    expect(page.locator("#continue-hotseat")).to_be_enabled()
