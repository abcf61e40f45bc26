"""The interface's languages (English, French, Russian) and the rules page's guide.

Without a browser:
1. the three tables of ``src/gameclub/web/i18n.js`` have exactly the same keys,
   and every text with a count has the plural forms its language needs;
2. (with node) ``t()`` picks Russian plurals with ``Intl.PluralRules``, and the
   guide's tiny rules module (``guide/mini.js``) clones, jumps, flips and passes.

In Chromium (``-m browser``):
3. the switcher changes the visible texts and ``<html lang>`` in place (no
   reload), and the choice survives a reload;
4. the browser's language picks the first language (``locale="ru-RU"``);
5. the rules page shows the three rule sets;
6. the guide's boards play a clone, a jump, the eight flips, a pass, a loss
   when stuck (site-2005) and a last move answered by the computer.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[2] / "src" / "gameclub" / "web"
I18N = WEB / "i18n.js"
MINI = WEB / "guide" / "mini.js"
NODE = shutil.which("node")

#: Plural categories each language needs for integer counts (CLDR).
PLURALS = {"en": {"one", "other"}, "fr": {"one", "other"}, "ru": {"one", "few", "many", "other"}}


def tables() -> dict[str, dict[str, str]]:
    """Each table's top-level keys and their raw source (``const en = {...};``)."""
    source = I18N.read_text(encoding="utf-8")
    found: dict[str, dict[str, str]] = {}
    for match in re.finditer(r"^const (\w+) = \{\n(.*?)^\};", source, re.S | re.M):
        name, body = match.groups()
        entries: dict[str, str] = {}
        key = None
        for line in body.splitlines():
            top = re.match(r'^  "([^"]+)": (.*)$', line)
            if top:
                key = top.group(1)
                assert key not in entries, f"{name}: {key} twice"
                entries[key] = top.group(2)
            elif key and line.startswith("    "):
                entries[key] += " " + line.strip()
        found[name] = entries
    return found


def test_every_language_has_every_key() -> None:
    found = tables()
    assert set(found) >= {"en", "fr", "ru"}, sorted(found)
    english = set(found["en"])
    assert len(english) > 300
    for lang in ("fr", "ru"):
        keys = set(found[lang])
        assert not english - keys, f"{lang} lacks {sorted(english - keys)}"
        assert not keys - english, f"{lang} has unknown keys {sorted(keys - english)}"
        assert found[lang]['app.lang'] == f'"{lang}",'


def test_counted_texts_have_their_plural_forms() -> None:
    found = tables()
    for lang, needed in PLURALS.items():
        for key, raw in found[lang].items():
            if not raw.startswith("{"):
                continue
            forms = set(re.findall(r"\b(zero|one|two|few|many|other):", raw))
            assert needed <= forms, f"{lang} {key}: {sorted(forms)}, needs {sorted(needed)}"
    # The counts that differ in Russian are plural objects there.
    for key in ("game.pieces", "game.spectators", "announce.moveFlips", "guide.cap.flips",
                "profile.rating", "profile.plotLabel"):
        assert found["ru"][key].startswith("{"), key


def run_module(source: str, script: str) -> object:
    """Run ``source`` (an ES module without imports) with ``script`` appended; its JSON output."""
    assert NODE
    done = subprocess.run(
        [NODE, "--input-type=module"], input=source + "\n" + script, capture_output=True,
        text=True, timeout=60, check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_t_uses_intl_plural_rules() -> None:
    out = run_module(I18N.read_text(encoding="utf-8"), """
        const said = {};
        for (const lang of ["en", "fr", "ru"]) {
          setLocale(lang);
          said[lang] = [1, 2, 5, 21, 22, 111].map((n) => t("game.pieces", { n }));
          said[lang + "-games"] = t("profile.rating", { rating: "1500", games: 3 });
        }
        setLocale("ru-RU");
        said.locale = getLocale();
        setLocale("de-DE");
        said.fallback = getLocale();
        console.log(JSON.stringify(said));
    """)
    assert isinstance(out, dict)
    assert out["ru"] == ["1 фишка", "2 фишки", "5 фишек", "21 фишка", "22 фишки", "111 фишек"]
    assert out["en"][:2] == ["1 piece", "2 pieces"]
    assert out["fr"][:2] == ["1 pièce", "2 pièces"]
    assert out["ru-games"] == "Рейтинг 1500 · 3 рейтинговые партии"
    assert out["locale"] == "ru" and out["fallback"] == "en"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_guide_rules_module() -> None:
    out = run_module(MINI.read_text(encoding="utf-8"), """
        const centre = [".....", ".....", "..x..", ".....", "....."];
        const d = destinations(centre, "x").c3;
        const ring = ["x....", ".ooo.", ".o.o.", ".ooo.", "....x"];
        const jump = play(ring, "x", "a5c3");
        const clone = play(centre, "x", "d4");
        const stuckRows = play(["oxx.", "xxx.", "xx..", "...."], "x", "c2").rows;
        console.log(JSON.stringify({
          clones: d.clone.length, jumps: d.jump.length,
          clone: clone.rows, jump: jump.rows, flipped: jump.flipped.length,
          end: turn(jump.rows, "o"),
          pass: turn(stuckRows, "o", "ataxx"), lose: turn(stuckRows, "o", "site-2005"),
          reply: reply(play(["xxxo", "o.oo", "xxxo", "ooxo"], "x", "c1b3").rows, "o"),
        }));
    """)
    assert isinstance(out, dict)
    assert (out["clones"], out["jumps"]) == (8, 16)
    assert out["clone"] == [".....", "...x.", "..x..", ".....", "....."]
    assert out["jump"] == [".....", ".xxx.", ".xxx.", ".xxx.", "....x"]
    assert out["flipped"] == 8
    assert out["end"] == {"state": "over", "reason": "no-pieces", "winner": "x"}
    assert out["pass"] == {"state": "pass"}
    assert out["lose"] == {"state": "over", "reason": "stuck", "winner": "x"}
    assert out["reply"] == "c1"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_sides_and_rule_sets_are_named_in_every_language() -> None:
    """Every colour a player may choose names a side, and a Russian verb agrees with it;
    every rule set the server offers, of either game, is described in every language."""
    from gameclub.server.options import options_json

    RULESETS = {ruleset["name"] for game in options_json()["games"] for ruleset in game["rulesets"]}
    assert {"ataxx", "awele", "oware"} <= RULESETS

    palette = re.findall(r"^  (\w+): \"#", (WEB / "prefs.js").read_text(encoding="utf-8"), re.M)
    assert len(palette) == 8, palette
    script = """
        const said = {};
        for (const lang of ["en", "fr", "ru"]) {
          setLocale(lang);
          said[lang] = {
            wins: Object.fromEntries(PALETTE.map((c) =>
              [c, t("result.wins", { color: t(`side.${c}`) })])),
            rules: Object.fromEntries(RULESETS.map((r) => [r, t(`settings.rulesDesc.${r}`)])),
          };
        }
        console.log(JSON.stringify(said));
    """
    names = f"const PALETTE = {json.dumps(palette)};"
    names += f"const RULESETS = {json.dumps(sorted(RULESETS))};"
    out = run_module(I18N.read_text(encoding="utf-8"), names + script)
    assert isinstance(out, dict)
    # Russian: the side is the plural colour ("Синие"), and so is the verb ("побеждают").
    for color, line in out["ru"]["wins"].items():
        side, verb = line.split(" ")
        assert side.endswith(("ые", "ие")) and verb == "побеждают", (color, line)
    assert out["en"]["wins"]["blue"] == "Blue wins" and out["fr"]["wins"]["blue"] == "Bleu gagne"
    for lang in ("en", "fr", "ru"):
        for name, text in out[lang]["rules"].items():
            assert not text.startswith("settings."), (lang, name)
    assert out["fr"]["rules"] != out["en"]["rules"] != out["ru"]["rules"]


# -- in the browser ------------------------------------------------------------------------

browser = pytest.mark.browser


def classes(page, square_css: str) -> str:
    return str(page.locator(square_css).get_attribute("class"))


@browser
def test_language_switcher_changes_the_page_in_place_and_is_remembered(club, new_page) -> None:
    from playwright.sync_api import expect

    page = new_page(club.url, locale="en-US")
    page.goto("/rules")
    html = page.locator("html")
    rules_link = page.locator('.site-nav a[data-nav="/rules"]')
    expect(html).to_have_attribute("lang", "en")
    expect(rules_link).to_have_text("Rules")
    expect(page.locator("h1")).to_have_text("How to play Ataxx")
    switcher = page.locator("#lang-select")
    expect(switcher).to_be_visible()
    expect(switcher).to_have_value("en")

    page.evaluate("window.__sameDocument = true")
    switcher.select_option("fr")
    expect(html).to_have_attribute("lang", "fr")
    expect(rules_link).to_have_text("Règles")
    expect(page.locator("h1")).to_have_text("Ataxx — Comment jouer")
    expect(page.locator('.site-nav a[data-nav="/"]')).to_have_text("Jouer")
    expect(page.locator("#skip-link")).to_have_text("Aller au contenu")
    expect(page.locator('figure[data-scene="cloneJump"] .guide-reset')).to_have_text("Recommencer")
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
    assert page.evaluate("localStorage.getItem('gameclub.lang')") == "fr"

    page.reload()
    expect(html).to_have_attribute("lang", "fr")
    expect(rules_link).to_have_text("Règles")
    expect(page.locator("#lang-select")).to_have_value("fr")

    page.evaluate("window.__sameDocument = true")
    page.locator("#lang-select").select_option("ru")
    expect(html).to_have_attribute("lang", "ru")
    expect(rules_link).to_have_text("Правила")
    expect(page.locator("h1")).to_have_text("Как играть в Ataxx")
    assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"

    page.reload()
    expect(html).to_have_attribute("lang", "ru")
    expect(page.locator("h1")).to_have_text("Как играть в Ataxx")
    page.goto("/")
    expect(page.locator('.site-nav a[data-nav="/invite"]')).to_have_text("Пригласить друга")
    expect(page.locator("main")).to_contain_text("Играть с компьютером")

    page.locator("#lang-select").select_option("en")
    expect(html).to_have_attribute("lang", "en")
    expect(page.locator("main")).to_contain_text("Play the computer")


@browser
@pytest.mark.parametrize(("locale", "lang", "rules"), [
    ("ru-RU", "ru", "Правила"), ("fr-FR", "fr", "Règles"), ("de-DE", "en", "Rules"),
])
def test_the_browser_language_picks_the_default(club, new_page, locale, lang, rules) -> None:
    from playwright.sync_api import expect

    page = new_page(club.url, locale=locale)
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator('.site-nav a[data-nav="/rules"]')).to_have_text(rules)
    expect(page.locator("#lang-select")).to_have_value(lang)


@browser
def test_rules_page_shows_the_three_rule_sets(club, new_page) -> None:
    from playwright.sync_api import expect

    page = new_page(club.url, locale="en-US")
    page.goto("/rules")
    ataxx = page.locator("#ruleset-ataxx")
    pressibus = page.locator("#ruleset-pressibus")
    site = page.locator("#ruleset-site-2005")
    for article in (ataxx, pressibus, site):
        expect(article).to_be_visible()
    expect(ataxx).to_contain_text("passes (0000)")
    expect(ataxx).to_contain_text("reaches 100")
    expect(pressibus).to_contain_text("early fill")
    expect(pressibus).to_contain_text("Threefold repetition")
    expect(pressibus).to_contain_text("Blocs-Config")
    expect(site).to_contain_text("loses at once")
    expect(site).to_contain_text("tie goes to the second player")
    expect(site.locator('[data-rule="repetition"]')).to_contain_text(
        "gameclub adds threefold repetition to this rule set")
    # The guide: its boards are labelled like the real board.
    expect(page.locator("#guide .guide-scene")).to_have_count(4)
    expect(page.locator("#tips .guide-scene")).to_have_count(3)
    board = page.locator('figure[data-scene="cloneJump"] svg.board')
    expect(board).to_have_attribute("aria-label", "Example board: clone or jump")
    expect(board).to_have_attribute("role", "grid")
    expect(board.locator('[data-square="c3"]')).to_have_attribute(
        "aria-label", "c3, red piece, can move")
    # And in Russian.
    page.locator("#lang-select").select_option("ru")
    expect(page.locator("#ruleset-site-2005")).to_contain_text("сразу проигрывает")
    expect(page.locator("#ruleset-pressibus")).to_contain_text("Троекратное повторение")


@browser
def test_guide_board_plays_a_clone_and_a_jump(club, new_page) -> None:
    from playwright.sync_api import expect

    page = new_page(club.url, locale="en-US")
    page.goto("/rules")
    scene = page.locator('figure[data-scene="cloneJump"]')
    sq = lambda name: scene.locator(f'[data-square="{name}"]')  # noqa: E731
    scene.scroll_into_view_if_needed()
    expect(scene).to_have_attribute("data-state", "your-turn")

    sq("c3").click()
    expect(sq("c3")).to_have_class(re.compile(r"\bselected\b"))
    expect(scene.locator(".sq.dest-clone")).to_have_count(8)
    expect(scene.locator(".sq.dest-jump")).to_have_count(16)
    expect(sq("d4")).to_have_attribute("aria-label", re.compile("clone destination"))
    expect(sq("e5")).to_have_attribute("aria-label", re.compile("jump destination"))
    sq("d4").click()
    expect(scene.locator(".guide-caption")).to_contain_text("Red clones to d4")
    expect(scene.locator(".sq.has-x")).to_have_count(2)
    for name in ("c3", "d4"):
        expect(sq(name)).to_have_class(re.compile(r"\bhas-x\b"))
    expect(sq("d4")).to_have_class(re.compile(r"\blast-to\b"))
    expect(scene).to_have_attribute("data-state", "over")
    expect(scene.locator(".sq.dest-clone")).to_have_count(0)

    scene.locator(".guide-reset").click()
    expect(scene.locator(".sq.has-x")).to_have_count(1)
    sq("c3").click()
    sq("e5").click()
    expect(scene.locator(".guide-caption")).to_contain_text("Red jumps from c3 to e5")
    expect(scene.locator(".sq.has-x")).to_have_count(1)
    expect(sq("e5")).to_have_class(re.compile(r"\bhas-x\b"))
    expect(sq("c3")).not_to_have_class(re.compile(r"\bhas-x\b"))
    expect(sq("c3")).to_have_class(re.compile(r"\blast-from\b"))


@browser
def test_guide_boards_flip_pass_lose_and_answer(club, new_page) -> None:
    from playwright.sync_api import expect

    page = new_page(club.url, locale="en-US")
    page.goto("/rules")

    def scene_of(name):
        scene = page.locator(f'figure[data-scene="{name}"]')
        scene.scroll_into_view_if_needed()
        return scene, lambda square: scene.locator(f'[data-square="{square}"]')

    # Eight flips: a jump into the blue ring; Blue has no pieces left.
    flip, sq = scene_of("flip")
    sq("a5").click()
    sq("c3").click()
    expect(flip.locator(".sq.has-x")).to_have_count(10)
    expect(flip.locator(".sq.has-o")).to_have_count(0)
    expect(flip.locator(".guide-caption")).to_contain_text("8 pieces flipped.")
    expect(flip.locator(".guide-caption")).to_contain_text("Red wins")

    # Passing: Blue is stuck after c2 and passes; Red plays again.
    passing, sq = scene_of("pass")
    sq("c2").click()  # an empty square some piece clones to: played at once, as on the real board
    expect(passing.locator(".guide-caption")).to_contain_text("Blue has no legal move and passes")
    expect(passing).to_have_attribute("data-state", "your-turn")
    expect(sq("a4")).to_have_class(re.compile(r"\bhas-o\b"))

    # site-2005: the same move wins at once.
    stuck, sq = scene_of("stuck")
    sq("c2").click()
    expect(stuck.locator(".guide-caption")).to_contain_text("loses at once")
    expect(stuck).to_have_attribute("data-state", "over")

    # The last move: a jump leaves c1 to Blue, who answers there and wins 9-7.
    last, sq = scene_of("last")
    sq("c1").click()
    expect(last.locator(".sq.dest-jump")).to_have_count(1)
    sq("b3").click()
    expect(sq("c1")).to_have_class(re.compile(r"\bhas-o\b"), timeout=5000)
    expect(last).to_have_attribute("data-state", "over")
    expect(last.locator(".guide-score")).to_have_text("Red 7 · Blue 9")
    expect(last.locator(".guide-caption")).to_contain_text("Blue wins")
    last.locator(".guide-reset").click()
    sq("b3").click()
    expect(last.locator(".guide-score")).to_have_text("Red 10 · Blue 6")

    # In Russian, with Russian plurals.
    page.locator("#lang-select").select_option("ru")
    flip, sq = scene_of("flip")
    sq("e1").click()
    sq("c3").click()
    expect(flip.locator(".guide-caption")).to_contain_text("Перекрашено 8 фишек.")
    expect(flip.locator(".guide-caption")).to_contain_text("Красные побеждают")
