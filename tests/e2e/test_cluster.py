"""Real-browser tests through HAProxy in front of two club nodes (PostgreSQL, Redis).

1. A guest plays the computer to the end through the proxy.
2. Two players whose pages and sockets are on different nodes play each other
   while a third person, on a node of their own choosing, watches: all three
   see the same moves.

The cluster is ``gameclub.cluster.Cluster`` with pinning on: a page's
``gc_node`` cookie sends all its requests, and its socket, to that node; each
node names itself in ``/api/me``'s ``node`` and in the ``X-Gameclub-Node``
header of its answers, which is how a test checks where a page landed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        f"BROWSER TESTS SKIPPED: {CHROMIUM} is missing. Install it with "
        "`sh scripts/install-browser.sh` (apt-get install chromium) to run tests/e2e.",
        allow_module_level=True,
    )

from playwright.sync_api import expect  # noqa: E402

from gameclub.cluster import PIN_COOKIE  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.postgres]

#: A valid Blocs-Config with 24 blocks: 21 empty squares, so a game is short.
SMALL_BOARD = "acdefg"


@pytest.fixture(autouse=True)
def node_logs_on_failure(two_nodes: Any, request: pytest.FixtureRequest) -> Iterator[None]:
    """When a test fails, the end of each node's and the proxy's log is printed with it:
    what the nodes said to each other is the first thing to look at."""
    yield
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed and two_nodes.log_dir is not None:
        for path in sorted(Path(two_nodes.log_dir).glob("*.log")):
            lines = path.read_text(errors="replace").splitlines()[-60:]
            print(f"--- the end of {path}:", *lines, sep="\n")


def node_of(page: Any) -> tuple[str, str]:
    """The node that answers this page's requests: (``/api/me``'s ``node``, the header's).

    Only once the page shows who it is: before, its own first ``/api/me`` may not
    have set the session cookie yet, and this one would make a second guest."""
    expect(page.locator("#identity")).to_contain_text(re.compile(r"\S"))
    answer = page.evaluate(
        """async () => {
            const response = await fetch('/api/me', {cache: 'no-store'});
            return [(await response.json()).node, response.headers.get('X-Gameclub-Node')];
        }"""
    )
    return answer[0], answer[1]


def pinned_page(two_nodes: Any, new_page: Any, node: str) -> Any:
    """A guest's page, on the home page, whose requests and socket all go to ``node``."""
    page = new_page(two_nodes.url)
    page.context.add_cookies([{"name": PIN_COOKIE, "value": node, "url": two_nodes.url}])
    page.goto("/")
    expect(page.locator("#identity")).to_contain_text("Guest-")
    assert node_of(page) == (node, node)
    return page


def game_id_of(page: Any) -> str:
    match = re.search(r"/game/([A-Za-z0-9]+)$", page.url)
    assert match, page.url
    return match.group(1)


def test_guest_plays_the_computer_to_the_end_through_the_proxy(two_nodes, new_page, ui):
    page = new_page(two_nodes.url)  # no pinning: wherever the proxy sends it
    page.goto("/")
    expect(page.locator("#identity")).to_contain_text("Guest-")
    assert node_of(page)[0] in two_nodes.node_names
    page.locator("#ai-details summary").click()
    page.locator("#ai-level").select_option("simple")
    page.locator("#ai-color").select_option("x")
    page.locator("#ai-rules").select_option("ataxx")
    page.locator("#ai-blocks-mode").select_option("code")
    page.locator("#ai-blocks-code").fill(SMALL_BOARD)
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r"/game/[A-Za-z0-9]+$"))
    expect(page.locator(".sq.block")).to_have_count(24)

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
    expect(page.locator("#rematch")).to_be_visible()
    # Stored as played: the record the club serves has every move the page shows.
    moves = ui.move_count(page)
    game = game_id_of(page)
    record = page.evaluate(
        "async game => (await (await fetch(`/api/games/${game}`)).json())", game
    )
    assert record["status"] != "started"
    assert len(record["moves"]) == moves


def test_players_on_two_nodes_and_a_spectator_see_the_same_moves(two_nodes, new_page, ui):
    ann = pinned_page(two_nodes, new_page, "node1")
    bob = pinned_page(two_nodes, new_page, "node2")
    carl = pinned_page(two_nodes, new_page, "node2")
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
    ann.wait_for_url(f"**/game/{game}")  # told over ann's socket, on the other node
    for page in (ann, bob):
        expect(page.locator(".board .sq")).to_have_count(49)

    squares = [ui.play_one_move(ann)]
    ui.wait_moves(bob, 1)
    squares.append(ui.play_one_move(bob))
    ui.wait_moves(ann, 2)
    carl.goto(f"/game/{game}")
    ui.wait_moves(carl, 2)
    expect(carl.locator("#game-notice")).to_contain_text("You are watching")
    for page in (ann, bob, carl):
        expect(page.locator("#spectators")).to_have_text("1 watching")

    for turn in range(2, 8):
        mover = ann if turn % 2 == 0 else bob
        squares.append(ui.play_one_move(mover))
        for page in (ann, bob, carl):
            ui.wait_moves(page, turn + 1)
            expect(page.locator(f'[data-square="{squares[-1]}"]')).to_have_class(
                re.compile(r"\blast-to\b"))
    lists = [page.locator("#move-list li").all_inner_texts() for page in (ann, bob, carl)]
    assert lists[0] == lists[1] == lists[2]
    assert len(lists[0]) == 8
    # The pages were where they were pinned all along.
    assert [node_of(page)[0] for page in (ann, bob, carl)] == ["node1", "node2", "node2"]
