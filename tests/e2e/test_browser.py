"""Real-browser tests of the club's front end (Chromium + Playwright, the real server).

1. A guest plays the simple computer to the end and sees the result banner.
2. Two people play each other through an invitation link and see each other's moves.
3. A third person watches live: moves and the spectator count.
4. The server is killed mid-game and started again: the same pages carry on.
5. A spectator's page that misses a move's delta resyncs by itself.
6. The page's own rule for applying a delta (socket.js), on made-up messages.
"""

from __future__ import annotations

import json
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

#: A valid Blocs-Config with 24 blocks: 21 empty squares, so a game is short.
SMALL_BOARD = "acdefg"


def game_id_of(page) -> str:
    match = re.search(r"/game/([A-Za-z0-9]+)$", page.url)
    assert match, page.url
    return match.group(1)


def start_friend_game(club, new_page):
    """Ann invites by link, Bob opens it and accepts: both land on the game."""
    ann = new_page(club.url)
    bob = new_page(club.url)
    ann.goto("/invite")
    ann.locator("#inv-color").select_option("x")
    ann.locator("#create-invite-link").click()
    link = ann.locator("#invite-link")
    expect(link).to_have_value(re.compile(r"/invite/[A-Za-z0-9]+$"))
    bob.goto(link.input_value())
    expect(bob.locator("#invitation")).to_contain_text("Invitation from")
    bob.locator("#invite-accept").click()
    bob.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    game = game_id_of(bob)
    ann.wait_for_url(f"**/game/{game}")  # told over the socket ("start")
    for page in (ann, bob):
        expect(page.locator(".board .sq")).to_have_count(49)
    return ann, bob, game


def test_guest_plays_the_computer_to_the_end(club, new_page, ui):
    page = new_page(club.url)
    page.goto("/")
    expect(page.locator("#lobby-counts")).to_contain_text(re.compile(r"\d+ online · \d+ searching"))
    expect(page.locator("#identity")).to_contain_text("Guest-")
    page.locator("#ai-details summary").click()
    page.locator("#ai-level").select_option("simple")
    page.locator("#ai-color").select_option("x")
    page.locator("#ai-rules").select_option("ataxx")
    page.locator("#ai-blocks-mode").select_option("code")
    page.locator("#ai-blocks-code").fill(SMALL_BOARD)
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))

    # Accessible squares: a label for each, the corner pieces and the blocks.
    for square, piece in (("a7", "red piece"), ("g7", "blue piece"), ("d4", "empty")):
        expect(page.locator(f'[data-square="{square}"]')).to_have_attribute(
            "aria-label", re.compile(f"^{square}, {piece}"))
    expect(page.locator(".sq.block")).to_have_count(24)
    ui.wait_turn(page)

    # Selecting a piece shows its destinations; Escape cancels. (On this board
    # the corners have no free neighbour: their first moves are all jumps.)
    page.locator('[data-square="a7"]').click()
    expect(page.locator('[data-square="a7"]')).to_have_class(re.compile(r"\bselected\b"))
    jumps = page.locator(".sq.dest-jump")
    assert jumps.count() > 0
    expect(page.locator(".sq.dest-clone")).to_have_count(0)
    first_jump = "a7" + str(jumps.first.get_attribute("data-square"))
    expect(jumps.first).to_have_attribute("aria-label", re.compile("jump destination"))
    page.mouse.move(1, 1)  # no longer pointing at a7 (pointing alone shows its destinations)
    page.keyboard.press("Escape")
    expect(page.locator(".sq.selected")).to_have_count(0)
    expect(page.locator(".sq.dest-jump")).to_have_count(0)

    # Arrow keys move the cursor over the squares.
    page.locator('[data-square="a7"]').focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator('[data-square="b7"]')).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(page.locator('[data-square="b6"]')).to_be_focused()

    # The first move typed as text, the way a UAI engine writes it.
    page.locator("#move-input").fill(first_jump)
    page.locator("#move-input").press("Enter")
    ui.wait_moves(page, 2)  # ours, then the computer's answer
    expect(page.locator("#announcer")).not_to_be_empty()
    expect(page.locator(".sq.last-to")).to_have_count(1)

    # Then by clicking, until the game is over.
    banner = page.locator("#result-banner")
    for _ in range(40):
        page.wait_for_function(
            "() => document.querySelector('.board.can-play') || "
            "!document.getElementById('result-banner').hidden", timeout=30_000)
        if banner.is_visible():
            break
        ui.play_one_move(page)
    expect(banner).to_be_visible(timeout=20_000)
    expect(banner).to_contain_text(re.compile(r"You win|You lose|Draw"))
    rules_endings = re.compile(r"board-full|no-pieces|no-moves|stuck|early-fill")
    expect(banner).to_have_attribute("data-reason", rules_endings)
    expect(page.locator("#announcer")).to_contain_text("Game over")
    expect(page.locator(".board.can-play")).to_have_count(0)
    expect(page.locator("#rematch")).to_be_visible()


def test_two_players_through_an_invitation_link(club, new_page, ui):
    ann, bob, _game = start_friend_game(club, new_page)
    expect(ann.locator(".player-card.x .name")).to_contain_text("Guest-")
    expect(ann.locator("#game-status")).to_have_text("Your turn.")
    expect(bob.locator("#game-status")).to_contain_text("Waiting for")
    for turn in range(4):
        mover, other = (ann, bob) if turn % 2 == 0 else (bob, ann)
        square = ui.play_one_move(mover)
        ui.wait_moves(other, turn + 1)
        expect(other.locator(f'[data-square="{square}"]')).to_have_class(re.compile(r"\blast-to\b"))
        expect(other.locator(".board.can-play")).to_have_count(1)
    assert ui.move_count(ann) == ui.move_count(bob) == 4
    expect(ann.locator("#abort")).to_have_count(0)  # both have moved: no more aborting
    expect(bob.locator("#draw-offer")).to_be_visible()


def test_a_spectator_watches_live(club, new_page, ui):
    ann, bob, game = start_friend_game(club, new_page)
    ui.play_one_move(ann)
    ui.play_one_move(bob)  # the Watch page lists games once both sides have moved
    carl = new_page(club.url)
    carl.goto("/watch")
    carl.locator(f'tr[data-game="{game}"] a.watch-link').click()
    carl.wait_for_url(f"**/game/{game}")
    ui.wait_moves(carl, 2)
    expect(carl.locator("#game-notice")).to_contain_text("You are watching")
    expect(carl.locator("#move-input")).to_be_disabled()
    for page in (carl, ann, bob):
        expect(page.locator("#spectators")).to_have_text("1 watching")
    square = ui.play_one_move(ann)
    ui.wait_moves(carl, 3)
    expect(carl.locator(f'[data-square="{square}"]')).to_have_class(re.compile(r"\blast-to\b"))
    expect(carl.locator("#announcer")).to_contain_text("Red")
    carl.goto("/")
    expect(ann.locator("#spectators")).to_have_text("0 watching")


def test_the_game_goes_on_after_the_server_is_killed(own_club, new_page, ui):
    page = new_page(own_club.url)
    page.goto("/")
    page.locator("#play-computer").click()  # the newcomer's one click
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    ui.play_one_move(page)
    ui.wait_moves(page, 2, timeout_ms=60_000)  # the first computer move starts its worker
    page.evaluate("window.__samePage = true")

    own_club.kill()
    expect(page.locator("#conn-banner")).to_be_visible()
    expect(page.locator("#conn-banner")).to_contain_text("reconnecting")
    # A move made while the server is down is sent again after the resync, once.
    page.locator(".board.can-play .sq.movable").first.click()
    clone = page.locator(".sq.dest-clone")
    (clone.first if clone.count() else page.locator(".sq.dest-jump").first).click()

    own_club.start()
    expect(page.locator("#conn-banner")).to_be_hidden(timeout=30_000)
    ui.wait_moves(page, 4, timeout_ms=60_000)  # the queued move, then the computer's answer
    ui.play_one_move(page)
    ui.wait_moves(page, 6, timeout_ms=60_000)
    assert page.evaluate("window.__samePage") is True, "the page was reloaded"
    expect(page.locator("#result-banner")).to_be_hidden()


def test_a_missed_delta_is_repaired_by_a_resync(club, new_page, ui):
    ann, bob, game = start_friend_game(club, new_page)
    carl = new_page(club.url)
    # Carl's socket goes through a relay that loses the first move's delta.
    sent: list[dict] = []
    dropped: list[dict] = []

    def relay(ws) -> None:
        server = ws.connect_to_server()

        def to_server(message) -> None:
            sent.append(json.loads(message))
            server.send(message)

        def to_page(message) -> None:
            data = json.loads(message)
            if data.get("t") == "delta" and not dropped:
                dropped.append(data)
                return
            ws.send(message)

        ws.on_message(to_server)
        server.on_message(to_page)

    carl.route_web_socket(re.compile(r"/ws$"), relay)
    carl.goto(f"/game/{game}")
    expect(carl.locator(".board .sq")).to_have_count(49)
    expect(carl.locator("#game-notice")).to_contain_text("You are watching")
    ui.play_one_move(ann)
    for _ in range(100):  # the relay's handlers run while Playwright waits
        if dropped:
            break
        carl.wait_for_timeout(50)
    assert len(dropped) == 1 and dropped[0]["ply"] == 0
    assert ui.move_count(carl) == 0  # the move never reached the page
    square = ui.play_one_move(bob)
    # The next delta does not follow: the page asks for the full state and shows both moves.
    ui.wait_moves(carl, 2)
    expect(carl.locator(f'[data-square="{square}"]')).to_have_class(re.compile(r"\blast-to\b"))
    resyncs = [m for m in sent if m.get("t") == "sub" and m.get("v")]
    assert resyncs and resyncs[-1]["game"] == game and resyncs[-1]["v"] == dropped[0]["v"] - 1
    # Later moves arrive as deltas again and are drawn.
    ui.play_one_move(ann)
    ui.wait_moves(carl, 3)
    assert ui.move_count(carl) == ui.move_count(ann) == ui.move_count(bob) == 3


def test_the_page_applies_deltas_by_the_protocol(club, new_page):
    page = new_page(club.url)
    page.goto("/")
    result = page.evaluate(
        """async () => {
        const { applyDelta, cellsOfFen } = await import("/static/socket.js");
        const state = {
          t: "state", game: "g1", v: 7, hotseat: true, you: "x", turn: "x", status: "started",
          moves: ["f2"], fen: "x5o/7/2-1-2/7/2-1-2/5x1/o5x o 0 1",
          cells: cellsOfFen("x5o/7/2-1-2/7/2-1-2/5x1/o5x o 0 1"),
          counts: {x: 3, o: 2}, dests: {}, last: null, clocks: null, draw_offer: "o",
          takeback_offer: null, abortable: true, claim_at: null, players: {}, spectators: 1,
        };
        const delta = {
          t: "delta", game: "g1", v: 8, ply: 1,
          plies: [{move: "a1b2", by: "o", flipped: ["a2"], auto: false},
                  {move: "0000", by: "x", flipped: [], auto: true}],
          fen: "x5o/7/2-1-2/7/2-1-2/oo3x1/1o4x o 0 2", turn: "o", counts: {x: 2, o: 4},
          dests: {b2: {clone: ["c2"], jump: []}}, clocks: null, draw_offer: null,
          takeback_offer: null, abortable: false, claim_at: null,
        };
        const next = applyDelta(state, delta);
        return {
          next,
          gap: applyDelta(state, {...delta, v: 9}),
          misaligned: applyDelta(state, {...delta, ply: 2}),
          unchanged: state.moves.length,
        };
      }"""
    )
    after = result["next"]
    assert after["v"] == 8 and after["moves"] == ["f2", "a1b2", "0000"]
    assert after["last"] == {"move": "0000", "by": "x", "flipped": [], "auto": True}
    assert after["cells"] == ["x.....o", ".......", "..#.#..", ".......", "..#.#..",
                              "oo...x.", ".o....x"]
    assert after["turn"] == "o" and after["you"] == "o"  # the hot seat follows the turn
    assert after["draw_offer"] is None and after["abortable"] is False
    assert after["dests"] == {"b2": {"clone": ["c2"], "jump": []}}
    assert after["spectators"] == 1 and after["status"] == "started"
    assert result["gap"] is None and result["misaligned"] is None
    assert result["unchanged"] == 1  # the state held is not changed in place
