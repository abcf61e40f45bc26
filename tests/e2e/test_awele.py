"""Awele in the club, in a real browser (Chromium + Playwright, the real server).

1. A guest plays Awele against the computer (level random) to the end by
   clicking pits: the result line, and every seed of the 48 accounted for;
   the game on the player's page (filtered by game), the leaderboard's tabs.
2. Two people play Awele through an invitation link: each sees the other's
   moves (the pit played marked), a spectator finds it on the Watch list and
   follows it, then one resigns.
3. On a 390 px phone: the board fits, South's row at the bottom, the pits big
   enough to tap, and a move is sown seed by seed (then nothing moves when the
   reader asks for reduced motion); the arrow keys and Enter play a pit.
4. The Awele rules page: the three rule sets, and the guide's live board
   capturing two pits.
5. An OGN record is loaded (a wrong one refused), replayed, and continued on
   the hot seat from one of its positions; the new game's record starts there.
6. The sides are South and North on the player cards (not the piece colours
   chosen for Ataxx), and every capture shows in the move list, live, after a
   reload and in the replay; the result line names the ending in English,
   French and Russian.
7. The header's rating is that of the page's game: Awele's on Awele's pages,
   Ataxx's on Ataxx's, both on a player's page.
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

#: The endings of an Awele game by its rules (docs/protocol.md, "Awele").
RULES_ENDINGS = re.compile(r"^(majority|draw-24|stuck|no-feed|repetition)$")


def game_id_of(page) -> str:
    match = re.search(r"/game/([A-Za-z0-9]+)$", page.url)
    assert match, page.url
    return match.group(1)


def board_seeds(page) -> dict[str, int]:
    """The pits and stores as the page draws them: {"A": 4, ..., "store-x": 0, "store-o": 0}.

    Read in one evaluation, so that a state drawn by the computer's reply cannot fall
    between the pits and the stores."""
    return dict(page.evaluate(
        """() => [
            ...[...document.querySelectorAll('.board.awele .pit')]
                .map(e => [e.dataset.pit, Number(e.dataset.seeds)]),
            ...[...document.querySelectorAll('.board.awele .store')]
                .map(e => ['store-' + e.dataset.store, Number(e.dataset.seeds)]),
        ]"""))


def play_one_pit(page, ui, choose: str = "first") -> str:
    """Click a pit the page offers (the first or the last of them); wait for the move listed."""
    ui.wait_turn(page)
    before = ui.move_count(page)
    legal = page.locator(".board.can-play .pit.legal")
    pit = legal.first if choose == "first" else legal.last
    letter = str(pit.get_attribute("data-pit"))
    pit.click()
    ui.wait_moves(page, before + 1)
    return letter


def start_awele_invitation(club, new_page):
    """Ann (South) invites by link to Awele, Bob opens it and accepts: both land on the game."""
    ann = new_page(club.url, reduced_motion="reduce")
    bob = new_page(club.url, reduced_motion="reduce")
    ann.goto("/invite")
    ann.locator("#inv-game").select_option("awele")
    expect(ann.locator("#inv-blocks-mode")).to_be_hidden()  # Ataxx's board options go away
    expect(ann.locator("#inv-rules")).to_have_value("awele")
    ann.locator("#inv-color").select_option("x")
    ann.locator("#create-invite-link").click()
    link = ann.locator("#invite-link")
    expect(link).to_have_value(re.compile(r"/invite/[A-Za-z0-9]+$"))
    bob.goto(link.input_value())
    expect(bob.locator("#invitation")).to_contain_text("Awele")
    expect(bob.locator("#invitation")).to_contain_text("South")
    bob.locator("#invite-accept").click()
    bob.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    game = game_id_of(bob)
    ann.wait_for_url(f"**/game/{game}")
    for page in (ann, bob):
        expect(page.locator(".board.awele .pit")).to_have_count(12)
    return ann, bob, game


def test_awele_guest_plays_the_computer_to_the_end(club, new_page, ui):
    page = new_page(club.url, reduced_motion="reduce")
    page.goto("/")
    page.locator("#ai-details summary").click()
    page.locator("#ai-game").select_option("awele")
    expect(page.locator("#ai-blocks-mode")).to_be_hidden()
    expect(page.locator("#ai-start")).to_be_hidden()
    levels = page.locator("#ai-level option").evaluate_all("els => els.map(e => e.value)")
    assert levels == ["random", "greedy", "master"]
    page.locator("#ai-level").select_option("random")
    page.locator("#ai-color").select_option("x")
    page.locator("#ai-rules").select_option("awele")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))

    # The start: four seeds in every pit, South's six pits to play, named for screen readers.
    expect(page.locator(".board.awele .pit")).to_have_count(12)
    ui.wait_turn(page)
    assert board_seeds(page) == {**{p: 4 for p in "ABCDEFabcdef"}, "store-x": 0, "store-o": 0}
    expect(page.locator(".pit.legal")).to_have_count(6)
    legal = page.locator(".pit.legal").evaluate_all("els => els.map(e => e.dataset.pit)")
    assert set(legal) == set("ABCDEF")
    expect(page.locator('[data-pit="C"]')).to_have_attribute(
        "aria-label", re.compile(r"^C, 4 seeds, South"))
    expect(page.locator("#game-settings")).to_contain_text("Awele")

    # The first move typed ("c" is South's C), then by clicking pits until the game ends.
    page.locator("#move-input").fill("c")
    page.locator("#move-input").press("Enter")
    ui.wait_moves(page, 2)  # ours, then the computer's answer
    expect(page.locator("#move-list li").first).to_contain_text("C")
    expect(page.locator("#announcer")).not_to_be_empty()
    banner = page.locator("#result-banner")
    for turn in range(400):
        page.wait_for_function(
            "() => document.querySelector('.board.can-play') || "
            "!document.getElementById('result-banner').hidden", timeout=30_000)
        if banner.is_visible():
            break
        # Alternate ends of the row, so that the game does not circle for ever.
        play_one_pit(page, ui, "first" if turn % 3 else "last")
        seeds = board_seeds(page)
        assert sum(seeds.values()) == 48, seeds  # sowing and capturing lose no seed
    expect(banner).to_be_visible(timeout=20_000)
    expect(banner).to_have_attribute("data-reason", RULES_ENDINGS)
    expect(banner).to_contain_text(re.compile(r"You win|You lose|Draw"))
    # The result line gives the final score in seeds; with the seeds left on the board
    # the 48 are all there.
    text = str(banner.locator(".result-text").text_content())
    score = re.search(r"(\d+)–(\d+) seeds", text)
    assert score, text
    seeds = board_seeds(page)
    assert sum(seeds.values()) == 48, seeds
    south, north = int(score.group(1)), int(score.group(2))
    assert south + north <= 48
    assert south >= seeds["store-x"] and north >= seeds["store-o"]
    expect(page.locator("#announcer")).to_contain_text("Game over")
    expect(page.locator(".board.can-play")).to_have_count(0)
    # The record of the game is an OGN file.
    expect(page.locator("#download-pgn")).to_have_attribute("href", re.compile(r"/record$"))
    expect(page.locator("#download-pgn")).to_have_attribute("download", re.compile(r"\.ogn$"))

    # The player's page lists the game under its name, with a filter by game.
    game = game_id_of(page)
    page.locator("#my-name").click()
    expect(page.locator("#profile-ratings")).to_contain_text("Awele")
    row = page.locator(f'#game-history tr[data-game="{game}"]')
    expect(row).to_have_attribute("data-kind", "awele")
    expect(row).to_contain_text("Awele")
    page.locator("#games-filter").select_option("ataxx")
    expect(row).to_have_count(0)
    page.locator("#games-filter").select_option("awele")
    expect(row).to_have_count(1)
    page.locator("#profile-awele").click()
    expect(page.locator("#profile-awele")).to_have_attribute("aria-current", "page")
    # The leaderboard has a tab per game.
    page.goto("/leaderboard")
    page.locator("#leaderboard-awele").click()
    expect(page.locator("#leaderboard-game")).to_have_text("Awele")


def test_two_players_play_awele_through_an_invitation_link(club, new_page, ui):
    ann, bob, game = start_awele_invitation(club, new_page)
    # Each sees his own row at the bottom: Bob (North) has the board turned round.
    expect(ann.locator(".board.awele")).not_to_have_class(re.compile(r"\bflipped\b"))
    expect(bob.locator(".board.awele")).to_have_class(re.compile(r"\bflipped\b"))
    expect(ann.locator("#game-status")).to_have_text("Your turn.")
    expect(bob.locator("#game-status")).to_contain_text("Waiting for")
    expect(bob.locator(".pit.legal")).to_have_count(0)
    for turn in range(6):
        mover, other = (ann, bob) if turn % 2 == 0 else (bob, ann)
        letter = play_one_pit(mover, ui, "last")
        assert letter in ("ABCDEF" if mover is ann else "abcdef")
        ui.wait_moves(other, turn + 1)
        expect(other.locator(f'[data-pit="{letter}"]')).to_have_class(re.compile(r"\blast-move\b"))
        expect(other.locator(f'[data-pit="{letter}"]')).to_have_attribute("data-seeds", "0")
        expect(other.locator("#move-list li").last).to_contain_text(letter)
        expect(other.locator(".board.can-play")).to_have_count(1)
        assert board_seeds(ann) == board_seeds(bob)
    assert ui.move_count(ann) == ui.move_count(bob) == 6

    # The Watch list names the game; a spectator sees the same pits, then the next move.
    carl = new_page(club.url, reduced_motion="reduce")
    carl.goto("/watch")
    row = carl.locator(f'tr[data-game="{game}"]')
    expect(row).to_have_attribute("data-kind", "awele")
    expect(row).to_contain_text("Awele")
    row.locator("a.watch-link").click()
    carl.wait_for_url(f"**/game/{game}")
    ui.wait_moves(carl, 6)
    expect(carl.locator("#watching-notice")).to_be_visible()
    expect(carl.locator(".pit.legal")).to_have_count(0)
    assert board_seeds(carl) == board_seeds(ann)
    letter = play_one_pit(ann, ui, "first")
    ui.wait_moves(carl, 7)
    expect(carl.locator(f'[data-pit="{letter}"]')).to_have_class(re.compile(r"\blast-move\b"))
    expect(carl.locator("#announcer")).to_contain_text(f"South sows from {letter}")

    # Bob resigns (the button asks to confirm): both see the result.
    bob.locator("#resign").click()
    bob.locator("#resign").click()
    for page in (ann, bob):
        expect(page.locator("#result-banner")).to_be_visible()
        expect(page.locator("#result-banner")).to_have_attribute("data-reason", "resign")
    expect(ann.locator("#result-banner")).to_contain_text("You win")
    expect(ann.locator("#result-banner")).to_contain_text("South wins")
    expect(bob.locator("#result-banner")).to_contain_text("You lose")


def test_the_awele_board_on_a_phone(club, new_page, ui):
    page = new_page(
        club.url, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto("/")
    page.locator("#quick-awele").click()
    expect(page.locator("#quick-hint")).to_contain_text("South")
    page.locator("#play-computer").click()
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    ui.wait_turn(page)
    board = page.locator(".board.awele")
    box = board.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    pits = {p: page.locator(f'[data-pit="{p}"]').bounding_box() for p in "ABCDEFabcdef"}
    for name, pit in pits.items():
        assert pit and pit["width"] >= 40 and pit["height"] >= 40, (name, pit)
    # South's row at the bottom, A on South's left; North's a above South's F.
    assert pits["A"]["y"] > pits["a"]["y"] + 20
    assert pits["A"]["x"] < pits["F"]["x"]
    assert abs(pits["a"]["x"] - pits["F"]["x"]) < 2
    # South's store at South's right hand, North's at the left.
    store_x = page.locator('[data-store="x"]').bounding_box()
    store_o = page.locator('[data-store="o"]').bounding_box()
    assert store_x and store_o and store_x["x"] > pits["F"]["x"] and store_o["x"] < pits["A"]["x"]

    # A tap sows seed by seed: the board animates, then shows the server's position.
    page.locator('[data-pit="C"]').tap()
    page.wait_for_selector(".board.awele.animating", timeout=5_000)
    ui.wait_moves(page, 1)
    expect(page.locator("#move-list li").first).to_contain_text("C")
    ui.wait_turn(page)  # the computer's answer, sown in turn
    page.wait_for_selector(".board.awele:not(.animating)", timeout=10_000)
    assert sum(board_seeds(page).values()) == 48
    # The flip button turns the board round: then North's row is at the bottom.
    page.locator("#flip-board").click()
    a_box = page.locator('[data-pit="a"]').bounding_box()
    c_box = page.locator('[data-pit="C"]').bounding_box()
    assert a_box and c_box and a_box["y"] > c_box["y"] + 20


def test_reduced_motion_sows_at_once_and_the_keyboard_plays(club, new_page, ui):
    page = new_page(club.url, reduced_motion="reduce")
    page.goto("/")
    page.locator("#quick-awele").click()
    page.locator("#play-computer").click()
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    ui.wait_turn(page)
    page.evaluate("""() => {
      window.sawAnimation = false;
      new MutationObserver(() => {
        if (document.querySelector('.board.awele.animating')) window.sawAnimation = true;
      }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ['class'] });
    }""")
    # Played from the keyboard: the arrows move along the row as drawn, Enter sows.
    page.locator('[data-pit="A"]').focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.locator('[data-pit="C"]')).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(page.locator('[data-pit="d"]')).to_be_focused()  # North's d is above South's C
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    ui.wait_moves(page, 2)
    expect(page.locator("#move-list li").first).to_contain_text("C")
    assert page.evaluate("window.sawAnimation") is False


def test_the_awele_rules_page(club, new_page):
    page = new_page(club.url, reduced_motion="reduce")
    page.goto("/")
    page.locator("#awele-rules-link").click()
    page.wait_for_url("**/awele/rules")
    expect(page.locator("h1")).to_have_text("Awele: the rules")
    for name in ("awele", "awari", "oware"):
        expect(page.locator(f"#ruleset-{name}")).to_be_visible()
    expect(page.locator("#ruleset-awele")).to_contain_text("third time")
    # The guide's capture: D's four seeds end in b, which makes 3, and a before it 2.
    scene = page.locator('figure[data-scene="capture"]')
    scene.locator('[data-pit="D"]').click()
    expect(scene.locator(".guide-caption")).to_contain_text("5 seeds captured")
    expect(scene.locator(".guide-score")).to_have_text("South 15 · North 10")
    expect(scene.locator('[data-pit="a"]')).to_have_class(re.compile(r"\bcaptured\b"))
    expect(scene.locator('[data-pit="b"]')).to_have_class(re.compile(r"\bcaptured\b"))
    scene.locator(".guide-reset").click()
    expect(scene.locator(".guide-score")).to_have_text("South 10 · North 10")
    # The same guide in French, and the Ataxx pages are still there.
    page.locator("#lang-select").select_option("fr")
    expect(page.locator("h1")).to_have_text("Awélé : les règles")
    page.goto("/awele/learn")
    expect(page.locator("h1")).to_have_text("Comment jouer à l'Awélé")
    page.goto("/rules")
    expect(page.locator("#ruleset-pressibus")).to_be_visible()


#: Four moves from the start, sown by hand:
#: C (D, E, F, a), a (b-f), D (E, F, a, b, c), b (c-f, A, B).
OGN_RECORD = '[Variant "awele"]\n[South "ann"]\n[North "bob"]\n[Result "*"]\n\n1. C a 2. D b *\n'


def test_an_awele_record_is_loaded_replayed_and_continued(club, new_page, ui):
    page = new_page(club.url, reduced_motion="reduce")
    page.goto("/load")
    # A record with an illegal move is refused with the reason, and nothing is shown.
    page.locator("#record-text").fill('[Variant "awele"]\n\n1. C C *\n')
    page.locator("#record-load").click()
    expect(page.locator("#record-error")).not_to_be_empty()
    expect(page.locator("#record-viewer .board")).to_have_count(0)

    page.locator("#record-text").fill(OGN_RECORD)
    page.locator("#record-load").click()
    viewer = page.locator("#record-viewer")
    expect(viewer.locator(".board.awele .pit")).to_have_count(12)
    expect(viewer).to_contain_text("ann")

    def pits() -> list[int]:
        seeds = board_seeds(page)
        return [seeds[p] for p in "ABCDEFabcdef"]

    assert pits() == [5, 5, 0, 0, 6, 6, 1, 0, 7, 6, 6, 6]
    expect(viewer.locator('[data-pit="b"]')).to_have_class(re.compile(r"\blast-move\b"))
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay-position")).to_contain_text("move 3")
    assert pits() == [4, 4, 0, 0, 6, 6, 1, 6, 6, 5, 5, 5]
    page.keyboard.press("ArrowLeft")
    assert pits() == [4, 4, 0, 5, 5, 5, 0, 5, 5, 5, 5, 5]

    # Go on from there on the hot seat: the game starts from that position, South to move.
    page.locator("#continue-hotseat").click()
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    expect(page.locator(".board.awele .pit")).to_have_count(12)
    expect(page.locator("#game-settings")).to_contain_text("4-4-0-5-5-5-0-5-5-5-5-5-0-0-S")
    ui.wait_turn(page)
    assert pits() == [4, 4, 0, 5, 5, 5, 0, 5, 5, 5, 5, 5]
    play_one_pit(page, ui)
    # The game's record is an OGN file that starts from the loaded position.
    href = page.locator("#download-pgn").get_attribute("href")
    record = page.request.get(str(href))
    assert record.ok
    assert record.text().startswith('[Variant "awele"]')
    assert "4-4-0-5-5-5-0-5-5-5-5-5-0-0-S" in record.text()


def new_hotseat(page, position: str) -> str:
    """A hot-seat Awele game from ``position`` (Aalina text), made by the page's own session."""
    me = page.request.get("/api/me").json()
    answer = page.request.post("/api/games/hotseat", headers={"X-CSRF-Token": me["csrf"]}, data={
        "game": "awele", "rules": "awele", "clock": None, "start": "custom", "position": position})
    assert answer.ok, answer.text()
    game = str(answer.json()["game"])
    page.goto(f"/game/{game}")
    expect(page.locator(".board.awele .pit")).to_have_count(12)
    return game


def computed(page, selector: str, prop: str) -> str:
    return str(page.locator(selector).first.evaluate(f"e => getComputedStyle(e).{prop}"))


def colour_of(page, css_value: str) -> str:
    """What the browser makes of a colour (``var(--red)``), as getComputedStyle writes it."""
    return str(page.evaluate("""value => {
      const probe = document.createElement("span");
      probe.style.color = value;
      document.body.append(probe);
      const colour = getComputedStyle(probe).color;
      probe.remove();
      return colour;
    }""", css_value))


#: South's F (2 seeds) ends in North's b: b and a make 2 each, both captured (4 seeds).
CAPTURE_START = "4-4-4-4-4-2-1-1-4-4-4-4-0-0-S"


def test_awele_sides_are_south_and_north_and_captures_are_listed(club, new_page, ui):
    page = new_page(club.url, reduced_motion="reduce")
    # Piece colours chosen for Ataxx: they must not colour Awele's sides.
    page.goto("/prefs")
    page.locator("#pref-x").select_option("yellow")
    page.locator("#pref-o").select_option("black")
    page.locator("#prefs-save").click()
    expect(page.locator("#prefs-error")).to_be_empty()
    game = new_hotseat(page, CAPTURE_START)
    ui.wait_turn(page)

    for side, name in (("x", "South"), ("o", "North")):
        card = page.locator(f".player-card.{side}")
        expect(card.locator(".side-marker")).to_have_text(name)
        expect(card.locator(".swatch")).to_have_count(0)
    south = computed(page, ".player-card.x .side-marker", "backgroundColor")
    north = computed(page, ".player-card.o .side-marker", "backgroundColor")
    assert south != colour_of(page, "var(--red)") and north != colour_of(page, "var(--blue)")
    expect(page.locator("#game")).not_to_contain_text("Yellow")
    # The marker is drawn like the board: in its wood colours.
    assert south == colour_of(page, "var(--wood)") and north == colour_of(page, "var(--pit)")

    page.locator('[data-pit="F"]').click()
    ui.wait_moves(page, 1)
    first = page.locator("#move-list li").first
    expect(first).to_have_attribute("data-captured", "4")
    expect(first).to_contain_text("F ×4")
    expect(first.locator("[aria-label]")).to_have_attribute(
        "aria-label", "Move 1, South: F, 4 seeds captured")
    assert computed(page, "#move-list li.x", "borderLeftColor") != colour_of(page, "var(--red)")
    expect(page.locator('[data-store="x"]')).to_have_attribute("data-seeds", "4")
    # North's c (4 seeds: d, e, f, A) captures nothing: no mark, and South's stays.
    ui.wait_turn(page)
    page.locator('[data-pit="c"]').click()
    ui.wait_moves(page, 2)
    second = page.locator("#move-list li").nth(1)
    expect(second).to_have_text(re.compile(r"^2\.\s*c$"))
    expect(second).not_to_have_attribute("data-captured", re.compile(r"."))
    expect(first).to_contain_text("F ×4")
    # Opened again, the page learns the earlier captures from the game's record.
    page.reload()
    ui.wait_moves(page, 2)
    expect(page.locator("#move-list li").first).to_contain_text("F ×4")
    expect(page.locator("#move-list li[data-captured]")).to_have_count(1)

    # The replay lists the capture and says it at that move.
    page.goto(f"/replay/{game}")
    expect(page.locator("#move-list li").first).to_contain_text("F ×4")
    expect(page.locator("#replay-players .side-marker")).to_have_text(["South", "North"])
    page.locator("#move-list li").first.locator("button").click()
    expect(page.locator("#replay-position")).to_have_text(
        "After move 1 of 2: South F, 4 seeds captured.")
    expect(page.locator('.board.awele [data-pit="a"]')).to_have_class(re.compile(r"\bcaptured\b"))
    page.locator("#lang-select").select_option("ru")
    page.locator("#move-list li").first.locator("button").click()
    expect(page.locator("#replay-position")).to_have_text(
        "После хода 1 из 2: Юг F, взято 4 зерна.")
    expect(page.locator("#move-list li").first).to_contain_text("F ×4")


#: South has 22 seeds in store; F's capture of 4 makes 26: the game ends by majority.
MAJORITY_START = "0-0-0-0-0-2-1-1-4-0-0-0-22-0-S"


@pytest.mark.parametrize(("lang", "line"), [
    ("en", "South wins — 25 seeds captured — "),
    ("fr", "Sud gagne — 25 graines capturées — "),
    ("ru", "Юг побеждает — взято 25 зёрен — "),
])
def test_the_awele_result_line_names_the_ending(club, new_page, ui, lang, line):
    page = new_page(club.url, reduced_motion="reduce")
    page.add_init_script(f"localStorage.setItem('gameclub.lang', '{lang}')")
    game = new_hotseat(page, MAJORITY_START)
    ui.wait_turn(page)
    page.locator('[data-pit="F"]').click()
    banner = page.locator("#result-banner")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("data-reason", "majority")
    expect(banner.locator(".result-text")).to_contain_text(line)
    expect(page.locator("#move-list li").first).to_contain_text("F ×4")
    page.goto(f"/replay/{game}")
    expect(page.locator("#replay-result")).to_contain_text(line)


def sign_up(page, name: str) -> None:
    page.goto("/signup")
    page.locator("#account-name").fill(name)
    page.locator("#account-password").fill("correct horse battery")
    page.locator("#account-submit").click()
    expect(page.locator("#my-name")).to_have_text(name)


def test_the_header_shows_the_rating_of_the_pages_game(club, new_page, ui):
    ann = new_page(club.url, reduced_motion="reduce")
    bob = new_page(club.url, reduced_motion="reduce")
    sign_up(ann, "AnnAwele")
    sign_up(bob, "BobAwele")
    # A rated Awele game that Bob resigns: Ann's Awele rating moves, her Ataxx rating does not.
    ann.goto("/invite")
    ann.locator("#inv-game").select_option("awele")
    ann.locator("#inv-color").select_option("x")
    ann.locator("#inv-rated").check()
    ann.locator("#create-invite-link").click()
    link = ann.locator("#invite-link")
    expect(link).to_have_value(re.compile(r"/invite/[A-Za-z0-9]+$"))
    bob.goto(link.input_value())
    bob.locator("#invite-accept").click()
    bob.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    game = game_id_of(bob)
    ann.wait_for_url(f"**/game/{game}")
    for turn in range(4):
        mover, other = (ann, bob) if turn % 2 == 0 else (bob, ann)
        play_one_pit(mover, ui)
        ui.wait_moves(other, turn + 1)
    bob.locator("#resign").click()
    bob.locator("#resign").click()
    expect(ann.locator("#result-banner")).to_have_attribute("data-reason", "resign")

    ann.goto("/")  # the header loads the identity again
    ratings = ann.request.get("/api/me").json()["ratings"]
    awele, ataxx = ratings["awele"]["rating_text"], ratings["ataxx"]["rating_text"]
    assert awele != ataxx, ratings
    rating = ann.locator("#my-rating")
    ann.locator("#quick-ataxx").click()
    expect(rating).to_have_text(f" ({ataxx})")
    ann.goto("/awele/rules")
    expect(rating).to_have_text(f" ({awele})")
    expect(rating).to_have_attribute("title", "Your Awele rating")
    ann.goto("/rules")
    expect(rating).to_have_text(f" ({ataxx})")
    ann.goto("/leaderboard?game=awele")
    expect(rating).to_have_text(f" ({awele})")
    ann.goto(f"/game/{game}")
    expect(ann.locator(".board.awele")).to_be_visible()
    expect(rating).to_have_text(f" ({awele})")
    ann.goto(f"/replay/{game}")
    expect(ann.locator(".board.awele")).to_be_visible()
    expect(rating).to_have_text(f" ({awele})")
    # Home with Awele chosen: Awele's.
    ann.goto("/")
    ann.locator("#quick-awele").click()
    expect(rating).to_have_text(f" ({awele})")
    # A player's page is about both games: both ratings, each named.
    ann.goto("/player/AnnAwele")
    expect(rating.locator('[data-game="ataxx"]')).to_have_text(f"Ataxx {ataxx}")
    expect(rating.locator('[data-game="awele"]')).to_have_text(f"Awele {awele}")
    # The one-line desktop header keeps its one line with both.
    header = ann.locator("#site-header").bounding_box()
    assert header and header["height"] <= 60, header
