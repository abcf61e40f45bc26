"""Real-browser tests of what a first-time player met (Chromium + Playwright, the real server).

1. The board editor: a code that means no board leaves no board to play.
2. Piece colours chosen in the preferences name the sides everywhere: the counts
   under the board and the home page's promise.
3. The board is drawn from the viewer's side, with a button to turn it round,
   for players and spectators.
4. The Watch page lists only games really being played.
5. A guest who opens a rated invitation is offered to sign up, then comes back to accept.
6. A phone-sized screen (390 px): a short header before the board, every item of
   its menu in sight and within reach in English, French and Russian, the Watch
   list within the screen; at 1280 px the header, every menu item and the
   language picker included, on one line.
7. Moves are animated, and not for people who ask for reduced motion; move sounds
   can be turned off.
8. The game page names its board's code, checks typed moves against the board's
   own files and ranks (one message at a time), offers no draw on the hot seat
   and no pointless link to spectators.
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
PHONE = {"width": 390, "height": 844}


def box(page, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not shown"
    return dict(found)


def invite_by_link(club, new_page, *, color: str = "x", rated: bool = False, **guest_options):
    """Ann invites by link (playing ``color``), Bob opens the link: both pages and the link."""
    ann = new_page(club.url)
    bob = new_page(club.url, **guest_options)
    ann.goto("/invite")
    ann.locator("#inv-color").select_option(color)
    if rated:
        ann.locator("#inv-rated").check()
    ann.locator("#create-invite-link").click()
    link = ann.locator("#invite-link")
    expect(link).to_have_value(re.compile(r"/invite/[A-Za-z0-9]+$"))
    url = link.input_value()
    bob.goto(url)
    return ann, bob, url


def start_game(club, new_page, *, color: str = "x", **guest_options):
    """Ann (playing ``color``) and Bob in a game of their own, both on its page."""
    ann, bob, _ = invite_by_link(club, new_page, color=color, **guest_options)
    bob.locator("#invite-accept").click()
    bob.wait_for_url(GAME_URL)
    ann.wait_for_url(bob.url)
    for page in (ann, bob):
        expect(page.locator(".board .sq")).to_have_count(49)
    return ann, bob, bob.url


def sign_up(page, name: str) -> None:
    page.locator("#account-name").fill(name)
    page.locator("#account-password").fill("correct horse battery")
    page.locator("#account-submit").click()


def test_an_invalid_editor_code_leaves_no_board_to_play(club, new_page):
    page = new_page(club.url)
    page.goto("/editor")
    code = page.locator("#editor-code")
    code.fill("3ghx")
    expect(page.locator("#editor-canonical")).to_have_text("3ghx")
    expect(page.locator("#editor-valid")).to_have_text("yes")
    play = page.locator("#editor-play-ai")
    expect(play).to_be_enabled()
    for bad in ("3ghz", "1z"):
        code.fill(bad)
        expect(page.locator("#editor-message")).not_to_be_empty()
        # Nothing of 3ghx stays on offer: its panel is gone and no button plays it.
        expect(page.locator("#editor-canonical")).not_to_have_text("3ghx")
        expect(page.locator("#editor-valid")).not_to_have_text("yes")
        for button in ("#editor-play-ai", "#editor-hotseat", "#editor-seek", "#editor-invite"):
            expect(page.locator(button)).to_be_disabled()
    # A good code again: playable again.
    code.fill("g")
    expect(page.locator("#editor-canonical")).to_have_text("g")
    expect(page.locator("#editor-message")).to_be_empty()
    expect(play).to_be_enabled()
    play.click()
    page.wait_for_url(GAME_URL)
    expect(page.locator(".board .sq.block")).to_have_count(4)


def test_chosen_colours_name_the_sides_everywhere(club, new_page):
    page = new_page(club.url)
    page.goto("/prefs")
    page.locator("#pref-x").select_option("yellow")
    page.locator("#pref-o").select_option("black")
    page.locator("#prefs-save").click()
    expect(page.locator("#prefs-error")).to_be_empty()
    page.goto("/")
    expect(page.locator(".hero")).to_contain_text("You play yellow")
    expect(page.locator(".hero")).not_to_contain_text("You play red")
    page.locator("#play-computer").click()
    page.wait_for_url(GAME_URL)
    expect(page.locator("#piece-counts")).to_have_text("Yellow 2 · Black 2")
    game = page.url.rsplit("/", 1)[1]
    page.goto(f"/replay/{game}")
    expect(page.locator("#replay")).to_contain_text("Yellow 2 · Black 2")
    page.goto("/")
    page.locator("#ai-details summary").click()
    expect(page.locator('#ai-color option[value="x"]')).to_have_text("Yellow (moves first)")
    expect(page.locator('#ai-color option[value="o"]')).to_have_text("Black")


def rank_order(page) -> str:
    """"up" when rank 7 is drawn above rank 1 (x's side at the bottom), else "down"."""
    top7 = box(page, '[data-square="a7"]')["y"]
    top1 = box(page, '[data-square="a1"]')["y"]
    return "up" if top7 < top1 else "down"


def bottom_card(page) -> str:
    """The colour of the player card drawn below the board."""
    board_y = box(page, ".board")["y"]
    for color in ("x", "o"):
        if box(page, f".player-card.{color}")["y"] > board_y:
            return color
    raise AssertionError("no player card below the board")


def test_the_board_is_drawn_from_the_viewers_side(club, new_page):
    ann, bob, url = start_game(club, new_page, color="o")  # Ann plays the second colour
    # Each player sees their own side nearest them, their name card at the bottom.
    expect(ann.locator(".board")).to_have_class(re.compile(r"\bflipped\b"))
    assert rank_order(ann) == "down" and bottom_card(ann) == "o"
    assert rank_order(bob) == "up" and bottom_card(bob) == "x"
    # The coordinates follow: rank 1 at the top for Ann, file a on the right.
    label_y = ann.evaluate("""() => Object.fromEntries(
        [...document.querySelectorAll('.board .coords text')]
          .map((t) => [t.textContent, Number(t.getAttribute('y'))]))""")
    assert label_y["1"] < label_y["7"], label_y
    # A button turns it round, and back.
    ann.locator("#flip-board").click()
    assert rank_order(ann) == "up" and bottom_card(ann) == "x"
    ann.locator("#flip-board").click()
    assert rank_order(ann) == "down" and bottom_card(ann) == "o"
    # A spectator sees the first player's side at the bottom, and can turn it too.
    carl = new_page(club.url)
    carl.goto(url)
    expect(carl.locator(".board .sq")).to_have_count(49)
    assert rank_order(carl) == "up" and bottom_card(carl) == "x"
    expect(carl.locator("#flip-board")).to_have_attribute("aria-pressed", "false")
    carl.locator("#flip-board").click()
    expect(carl.locator("#flip-board")).to_have_attribute("aria-pressed", "true")
    assert rank_order(carl) == "down" and bottom_card(carl) == "o"
    # Turned round, a move is still played by clicking its squares.
    bob.locator(".board.can-play .sq.movable").first.click()
    target = bob.locator(".sq.dest-clone").first
    square = str(target.get_attribute("data-square"))
    target.click()
    expect(ann.locator(f'[data-square="{square}"]')).to_have_class(re.compile(r"\bhas-x\b"))
    ann.locator(".board.can-play .sq.movable").first.click()
    mine = ann.locator(".sq.dest-clone").first
    square = str(mine.get_attribute("data-square"))
    mine.click()
    expect(carl.locator(f'[data-square="{square}"]')).to_have_class(re.compile(r"\bhas-o\b"))


def test_watch_lists_only_games_really_being_played(club, new_page, ui):
    carl = new_page(club.url)
    ann, bob, url = start_game(club, new_page)
    game = url.rsplit("/", 1)[1]
    carl.goto("/watch")
    row = carl.locator(f'#live-games tr[data-game="{game}"]')
    expect(carl.locator("#live-games")).not_to_contain_text("Loading")
    expect(row).to_have_count(0)  # nobody has moved yet
    ui.play_one_move(ann)
    ui.play_one_move(bob)
    # The list refreshes by itself: both sides have moved, the game is listed.
    expect(row).to_have_count(1, timeout=10_000)
    expect(row).to_contain_text("2")


def test_a_guest_opening_a_rated_invitation_is_offered_to_sign_up(club, new_page):
    ann = new_page(club.url)
    ann.goto("/signup")
    sign_up(ann, "AnnRated")
    expect(ann.locator("#identity")).to_contain_text("AnnRated")
    ann.goto("/invite")
    ann.locator("#inv-rated").check()
    ann.locator("#create-invite-link").click()
    link = ann.locator("#invite-link")
    expect(link).to_have_value(re.compile(r"/invite/[A-Za-z0-9]+$"))
    url = link.input_value()
    path = re.search(r"/invite/[A-Za-z0-9]+$", url).group(0)  # type: ignore[union-attr]

    bob = new_page(club.url)
    bob.goto(url)
    expect(bob.locator("#invitation")).to_contain_text("rated")
    # No Accept that can only fail: the reason and the way in.
    expect(bob.locator("#invite-accept")).to_have_count(0)
    expect(bob.locator("#invite-needs-account")).to_be_visible()
    signup = bob.locator("#invite-signup")
    expect(signup).to_have_attribute("href", re.compile(r"^/signup\?next="))
    signup.click()
    bob.wait_for_url(re.compile(r"/signup\?next="))
    sign_up(bob, "BobRated")
    # Back on the invitation, now with an account: accept it.
    bob.wait_for_url(f"**{path}")
    bob.locator("#invite-accept").click()
    bob.wait_for_url(GAME_URL)
    ann.wait_for_url(bob.url)
    expect(bob.locator("#game-settings")).to_contain_text("rated")


def test_a_phone_sized_screen(club, new_page, ui):
    ann, bob, url = start_game(club, new_page, viewport=PHONE)
    # Little above the board: the header and the game's heading leave it in sight.
    assert box(bob, "#site-header")["height"] <= 110, box(bob, "#site-header")
    assert box(bob, ".board")["y"] <= 250, box(bob, ".board")
    assert bob.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    ui.play_one_move(ann)
    ui.play_one_move(bob)
    # The Watch list fits the screen, its buttons within reach.
    bob.goto("/watch")
    game = url.rsplit("/", 1)[1]
    button = bob.locator(f'#live-games tr[data-game="{game}"] .watch-link')
    expect(button).to_be_visible(timeout=10_000)
    assert bob.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    right = box(bob, f'#live-games tr[data-game="{game}"] .watch-link')
    assert right["x"] >= 0 and right["x"] + right["width"] <= PHONE["width"], right
    button.click()
    bob.wait_for_url(url)


#: The header's menu, in order: every page a newcomer may look for.
NAV = ["/", "/invite", "/watch", "/editor", "/leaderboard", "/rules", "/awele/rules"]

#: What the point at the middle of a menu link shows: the link itself, or what covers it.
TOP_AT_CENTRE = """a => {
  const r = a.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return top === a || a.contains(top);
}"""


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_the_header_is_one_line_on_a_desktop_screen(club, new_page, lang):
    page = new_page(club.url, viewport={"width": 1280, "height": 800})
    page.add_init_script(f"localStorage.setItem('gameclub.lang', '{lang}')")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#signup-link")).to_be_visible()
    brand, picker = box(page, ".brand"), box(page, "#lang-select")
    centre = lambda b: b["y"] + b["height"] / 2  # noqa: E731
    assert abs(centre(brand) - centre(picker)) < 12, (brand, picker)
    assert box(page, "#site-header")["height"] <= 60, box(page, "#site-header")  # one line
    # A guest's name is drawn at random and glyphs differ in width: the widest name the club
    # allows (20 capital Ws) must keep the line too, cut short, its whole text in the tooltip.
    page.evaluate("document.getElementById('my-name').textContent = 'W'.repeat(20)")
    assert box(page, "#site-header")["height"] <= 60, box(page, "#site-header")
    assert page.get_attribute("#my-name", "title", timeout=1000).startswith("Guest-")
    # Every menu item on that line, Awele's included; the phone's Colours link is not in the menu.
    for href in NAV:
        link = page.locator(f'.site-nav a[href="{href}"]')
        expect(link).to_be_visible()
        assert abs(centre(box(page, f'.site-nav a[href="{href}"]')) - centre(brand)) < 12, href
    expect(page.locator('.site-nav a[href="/prefs"]')).to_be_hidden()
    expect(page.locator("#prefs-link")).to_be_visible()


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_every_header_item_is_in_sight_on_a_phone(club, new_page, lang):
    page = new_page(club.url, viewport=PHONE)
    page.add_init_script(f"localStorage.setItem('gameclub.lang', '{lang}')")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#signup-link")).to_be_visible()
    nav = page.locator(".site-nav")
    # The menu wraps into rows: nothing hidden past its edge, nothing to scroll sideways.
    widths = nav.evaluate("n => [n.scrollWidth, n.clientWidth]")
    assert widths[0] <= widths[1], widths
    links = page.locator(".site-nav a")
    hrefs = links.evaluate_all("els => els.map(a => a.getAttribute('href'))")
    assert hrefs == [*NAV, "/prefs"], hrefs  # on a phone Colours ends the menu
    first_row = box(page, ".brand")
    for href in hrefs:
        link = page.locator(f'.site-nav a[href="{href}"]')
        expect(link).to_be_visible()
        found = box(page, f'.site-nav a[href="{href}"]')
        assert found["x"] >= 0 and found["x"] + found["width"] <= PHONE["width"], (href, found)
        # Below the logo's row, tall enough to tap.
        assert found["y"] >= first_row["y"] + first_row["height"] - 2, (href, found)
        assert found["height"] >= 18, (href, found)
        assert link.evaluate(TOP_AT_CENTRE), f"{href} is covered"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # Still a short header: the menu takes at most two rows.
    assert box(page, "#site-header")["height"] <= 100, box(page, "#site-header")
    # The last item (the first to be cut off before) is reached with a tap.
    links.last.click()
    page.wait_for_url("**/prefs")
    expect(page.locator('.site-nav a[href="/prefs"]')).to_have_attribute("aria-current", "page")


WATCH_MOVERS = """() => {
  window.moversSeen = 0;
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (node.classList && node.classList.contains("mover")) window.moversSeen += 1;
      }
    }
  }).observe(document.querySelector(".board"), { childList: true, subtree: true });
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_moves_are_animated_unless_reduced_motion_is_asked(club, new_page, ui, motion):
    page = new_page(club.url, reduced_motion=motion)
    page.goto("/")
    page.locator("#ai-details summary").click()
    page.locator("#ai-level").select_option("random")
    page.locator("#ai-color").select_option("x")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(GAME_URL)
    ui.wait_turn(page)
    page.evaluate(WATCH_MOVERS)
    ui.play_one_move(page)
    ui.wait_moves(page, 2)  # the computer's reply is animated too
    page.wait_for_timeout(600)
    seen = page.evaluate("window.moversSeen")
    if motion == "reduce":
        assert seen == 0
    else:
        assert seen >= 2, seen
    # Either way the pieces end as the server says, nothing left in flight.
    expect(page.locator(".board .mover")).to_have_count(0)
    for square in ("a7", "g1"):
        expect(page.locator(f'[data-square="{square}"] .piece')).to_have_class(re.compile(r"\bx\b"))


def test_the_game_page_speaks_of_its_own_board(club, new_page):
    page = new_page(club.url)
    page.goto("/editor?blocks=g")
    expect(page.locator("#editor-canonical")).to_have_text("g")
    page.locator("#editor-hotseat").click()
    page.wait_for_url(GAME_URL)
    # The board's Blocs-Config code, with a link to draw it.
    expect(page.locator("#game-blocks")).to_have_text("g")
    expect(page.locator("#game-blocks")).to_have_attribute("href", "/editor?blocks=g")
    # On the hot seat both sides are you: no draw to offer to yourself.
    expect(page.locator("#resign")).to_be_visible()
    expect(page.locator("#draw-offer")).to_have_count(0)
    # Typed moves are checked against this board's files and ranks, one message at a time.
    move = page.locator("#move-input")
    for text in ("zz", "h9"):
        move.fill(text)
        move.press("Enter")
        expect(page.locator("#move-error")).to_contain_text(text)
        expect(page.locator("#move-error")).to_contain_text("a-g")
        expect(page.locator("#move-error")).to_contain_text("1-7")
    expect(page.locator("#move-error")).not_to_contain_text("zz")
    move.fill("d4")  # a square of the board, but no piece can get there
    move.press("Enter")
    expect(page.locator("#move-error")).to_contain_text("d4")
    expect(page.locator(".toast.error")).to_have_count(0)
    # A spectator is told they are watching, with no link to the page they came from.
    carl = new_page(club.url)
    carl.goto(page.url)
    expect(carl.locator("#watching-notice")).to_be_visible()
    expect(carl.locator('#game-notice a[href="/watch"]')).to_have_count(0)


def test_move_sounds_can_be_turned_off(club, new_page):
    page = new_page(club.url)
    page.goto("/prefs")
    sounds = page.locator("#pref-sounds")
    expect(sounds).to_be_checked()
    sounds.uncheck()
    page.reload()
    expect(page.locator("#pref-sounds")).not_to_be_checked()
    assert page.evaluate("localStorage.getItem('gameclub.sounds')") == "off"
