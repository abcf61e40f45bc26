"""Fuzzing the club: every HTTP endpoint and every WebSocket message type, with hypothesis.

The endpoints are the app's own routes (a route added tomorrow is fuzzed, or
this test fails until it is) and must be those that docs/protocol.md
documents; the WebSocket message types are those of the protocol's table,
which must be the server's handlers. Requests are made of the documented
fields, with plausible values, values of the wrong type, and values that
strict parsers must refuse (``NaN``, ``1e999``, huge integers, non-ASCII
digits, NUL bytes, lone surrogates), sent with and without the CSRF token.

Whatever comes in, the club answers with a 4xx or a success, never a 500,
logs no error, keeps every socket open that broke no rule, and plays a game
normally afterwards. ``GAMECLUB_FUZZ_EXAMPLES`` sets the number of requests
and of messages on SQLite (default 1000 each); PostgreSQL, slower, gets a
quarter of them (its own faults, such as a NUL byte in a key, are among the
hostile values tried often).
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Mount, Route, WebSocketRoute

from gameclub.server import ws as ws_protocol
from gameclub.server.app import create_app
from gameclub.server.settings import Settings

PROTOCOL = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
EXAMPLES = int(os.environ.get("GAMECLUB_FUZZ_EXAMPLES", "1000"))

# -- what the protocol documents --------------------------------------------------------


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def documented_endpoints() -> set[tuple[str, str]]:
    """``(method, path shape)`` of every endpoint heading in docs/protocol.md."""
    found = set()
    for line in PROTOCOL.splitlines():
        if line.startswith("### "):
            for method, path in re.findall(r"`(GET|POST|DELETE|PUT|PATCH) (/api/[^`?\s]*)", line):
                found.add((method, _shape(path)))
    return found


def documented_message_types() -> list[str]:
    """The client message types of the protocol's table (``| `{"t": "sub", ...`)."""
    return re.findall(r'^\| `\{"t": "([a-z-]+)"', PROTOCOL, re.M)


def documented_queries() -> dict[str, list[dict[str, str]]]:
    """The example queries of the protocol's GET headings, by path shape."""
    found: dict[str, list[dict[str, str]]] = {}
    for line in PROTOCOL.splitlines():
        if line.startswith("### "):
            for path, query in re.findall(r"`GET (/api/[^`?\s]*)\?([^`\s]+)`", line):
                found.setdefault(_shape(path), []).append(dict(parse_qsl(query)))
    return found


def documented_fields() -> set[str]:
    """Field names the protocol shows in request bodies and queries (backquoted)."""
    return set(re.findall(r'`"?([a-z_]+)"?`', PROTOCOL)) | set(
        re.findall(r'"([a-z_]+)":', PROTOCOL)
    )


# -- values ------------------------------------------------------------------------------

#: Numbers and text that strict parsers must refuse, or that broke them before.
HOSTILE = st.sampled_from(
    [
        float("nan"),
        float("inf"),
        float("-inf"),
        10**30,
        -(10**30),
        2**64,
        1e300,
        -1,
        0,
        0.5,
        "",
        " ",
        "\x00",
        "a\x00b",
        "\ud800",
        "²",
        "①",
        "٣",
        "３",
        "🙂",
        "null",
        "NaN",
        "1e999",
        "<script>",
        "x" * 300,
        "'; DROP TABLE games; --",
    ]
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | HOSTILE,
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=6,
)
FENS = [
    "x5o/7/7/7/7/7/o5x x 0 1",
    "x5o/7/2-1-2/7/2-1-2/7/o5x o 0 1",
    "xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/xxxxx1o x 0 1",
    "-5o/7/7/7/7/7/o5x x 0 1",
    "x3o/5/5/5/o3x x 0 1",
    "x5o/7/7/7/7/7/o5x x 0 99999999999999999999",
]
PGNS = [
    '[Rules "ataxx"]\n\n1. g2 a1a3 *\n',
    '[FEN "x5o/7/7/7/7/7/o5x x 0 1"]\n\n1. f2 *\n',
    '[FEN "-5o/7/7/7/7/7/o5x x 0 1"]\n\n*\n',
    "[Broken tag\n\n*\n",
    '[Rules "pressibus"]\n\n1. g2 0000 2. f1 *\n',
]


POSITIONS = [
    "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S",
    "0-0-0-0-0-1-1-0-0-0-0-0-23-23-S",
    "0-0-0-0-0-0-4-4-4-4-4-4-24-0-S",
    "4-4-4-4-4-4-4-4-4-4-4-4-0-S",
    "9-9-9-9-9-9-4-4-4-4-4-4-0-0-N",
]
OGNS = [
    '[Variant "awele"]\n\n1. C a 2. D *\n',
    '[Variant "oware"]\n[FEN "0-0-0-0-0-1-1-0-0-0-0-0-23-23-S"]\n\n1. F+2 25-23\n',
    '[Variant "chess"]\n\n1. A\n',
    "1. G\n",
    "1. A a 2. A\n",
]
#: The positions with one character changed.
POSITION_VARIANTS = st.builds(
    lambda position, at, char: position[:at] + char + position[at + 1 :],
    st.sampled_from(POSITIONS),
    st.integers(0, 30),
    st.sampled_from(["²", "٥", "0", "9", "-", " ", "\x00", "S", "N", "X"]),
)


#: The FENs with one character changed (a digit that is not ASCII, a separator, ...).
FEN_VARIANTS = st.builds(
    lambda fen, at, char: fen[:at] + char + fen[at + 1 :],
    st.sampled_from(FENS),
    st.integers(0, 30),
    st.sampled_from(["²", "①", "٥", "３", "0", "9", "-", "/", " ", "\x00", "x", "o", "#"]),
)


def plausible(*values: Any) -> st.SearchStrategy[Any]:
    """Mostly one of ``values``; sometimes any JSON value or a hostile one."""
    return st.one_of(st.sampled_from(values), st.sampled_from(values), JSON, HOSTILE)


def clock() -> st.SearchStrategy[Any]:
    number = st.integers(-5, 20_000) | st.floats(allow_nan=True, allow_infinity=True) | HOSTILE
    fields = st.fixed_dictionaries({"base": number}, optional={"increment": number})
    return st.none() | fields | JSON


#: Body fields of the protocol's requests, each with values worth trying.
BODY_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "game": plausible("ataxx", "awele", "chess", None),
    "rules": plausible("ataxx", "pressibus", "site-2005", "awele", "awari", "oware", "chess", None),
    "blocks": plausible(None, "none", "random", "3ghx", "g", "6bch", "zz", "0", "a1"),
    "clock": clock(),
    "color": plausible("x", "o", "random", "red"),
    "rated": plausible(True, False),
    "start": plausible("standard", "four-corners", "two-corners", "custom"),
    "fen": plausible(*FENS) | FEN_VARIANTS,
    "position": plausible(*POSITIONS) | POSITION_VARIANTS,
    "level": plausible("random", "simple", "hard", "expert", "master", "greedy"),
    "to": plausible(None, "fuzzother", "nobody", "Guest-zzzz"),
    "pgn": plausible(*PGNS),
    "ogn": plausible(*OGNS),
    "name": plausible("fuzzer", "fuzzother", "newname", "Guest-abc"),
    "password": plausible("correct horse battery", "short", "x" * 201),
    "colors": st.none()
    | st.fixed_dictionaries({"x": plausible("red", "green"), "o": plausible("blue", "green")})
    | JSON,
}
#: Query parameters of the protocol's GET endpoints.
QUERY_FIELDS = ("code", "squares", "min", "max", "blocks", "offset", "limit", "rules", "start",
                "fen", "game", "position")
QUERY_VALUE = st.one_of(
    st.sampled_from(["0", "1", "4", "12", "24", "25", "200", "3ghx", "c4,e4", "custom", "ataxx",
                     "awele", "oware"]),
    st.text(max_size=8),
    st.sampled_from(["²", "①", "٣", "-1", "+1", " 1", "9" * 5000, "1e3", "0x10", "\x00"]),
    st.sampled_from(FENS),
    FEN_VARIANTS,
    st.sampled_from(POSITIONS),
    POSITION_VARIANTS,
)


#: A request the protocol shows for each endpoint with a body (the fuzz changes a field
#: or two of it, so that the other fields pass and the changed one is what is checked).
EXAMPLE_BODIES: dict[str, dict[str, Any]] = {
    "/api/signup": {"name": "newname", "password": "correct horse"},
    "/api/login": {"name": "fuzzer", "password": "correct horse battery"},
    "/api/logout": {},
    "/api/prefs": {"colors": {"x": "green", "o": "yellow"}},
    "/api/games/ai": {"level": "simple", "color": "x", "rules": "ataxx", "blocks": "random",
                      "clock": None},
    "/api/games/hotseat": {"rules": "pressibus", "blocks": "3ghx",
                           "clock": {"base": 300, "increment": 5}},
    "/api/games/{game_id}/again": {},
    "/api/records": {"pgn": PGNS[0]},
    "/api/seeks": {"clock": {"base": 300, "increment": 5}, "color": "random", "rated": False},
    "/api/seeks/{seek_id}/accept": {},
    "/api/invitations": {"to": None, "color": "x", "start": "custom", "fen": FENS[0]},
    "/api/invitations/{invitation_id}/accept": {},
    "/api/invitations/{invitation_id}/decline": {},
}
#: Where a change may go: a field of the body, or one of the clock's.
MUTABLE = [*sorted(BODY_FIELDS), "clock.base", "clock.increment"]
NUMBER = st.integers() | st.floats(allow_nan=True, allow_infinity=True) | HOSTILE


@st.composite
def mutated_body(draw: Any, example: dict[str, Any]) -> bytes:
    """``example`` with a field or two changed, added or removed, as JSON text (NaN too)."""
    body = dict(example)
    for _ in range(draw(st.integers(1, 2))):
        field = draw(st.sampled_from(MUTABLE))
        if field.startswith("clock."):
            clock = body.get("clock")
            clock = dict(clock) if isinstance(clock, dict) else {"base": 60}
            clock[field.split(".")[1]] = draw(NUMBER)
            body["clock"] = clock
        elif draw(st.integers(0, 5)) == 0:
            body.pop(field, None)
        else:
            body[field] = draw(BODY_FIELDS[field])
    return json.dumps(body, allow_nan=True).encode()


def body_text() -> st.SearchStrategy[bytes]:
    fields = st.dictionaries(st.sampled_from(sorted(BODY_FIELDS)), st.none(), max_size=6).flatmap(
        lambda chosen: st.fixed_dictionaries({name: BODY_FIELDS[name] for name in chosen})
    )
    as_json = fields.map(lambda body: json.dumps(body, allow_nan=True).encode())
    return st.one_of(
        as_json,
        as_json,
        as_json,
        JSON.map(lambda value: json.dumps(value, allow_nan=True).encode()),
        st.binary(max_size=40),
        st.sampled_from([b"", b"{", b"[]", b'{"clock": {"base": 1e999}}', b"[" * 5000]),
    )


# -- the club under fuzz -----------------------------------------------------------------


class World:
    """A club with a few of everything, for path parameters to name."""

    def __init__(self, club: Any) -> None:
        self.club = club
        self.fuzzer = club.browser()
        self.fuzzer.sign_up("fuzzer")
        self.other = club.browser()
        self.other.sign_up("fuzzother")
        self.guest = club.browser()
        games = [
            self.fuzzer.post("/api/games/hotseat", {}).json()["game"],
            self.fuzzer.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"],
            self.fuzzer.post("/api/games/hotseat", {"game": "awele"}).json()["game"],
            self.fuzzer.post(
                "/api/games/ai", {"game": "awele", "level": "random", "color": "x"}
            ).json()["game"],
        ]
        inv = self.other.post("/api/invitations", {"to": "fuzzer", "color": "x"})
        invitation = inv.json()["invitation"]["id"]
        games.append(self.fuzzer.post(f"/api/invitations/{invitation}/accept").json()["game"])
        link = self.other.post("/api/invitations", {"to": None}).json()["invitation"]["id"]
        seek = self.other.post("/api/seeks", {}).json()["seek"]["id"]
        awele_seek = self.other.post("/api/seeks", {"game": "awele"}).json()["seek"]["id"]
        inv = self.other.post("/api/invitations", {"to": "fuzzer", "game": "awele"})
        awele_invitation = inv.json()["invitation"]["id"]
        self.keys: dict[str, list[str]] = {
            "game_id": games,
            "invitation_id": [invitation, link, awele_invitation],
            "seek_id": [seek, awele_seek],
            "name": ["fuzzer", "fuzzother", self.guest.user["name"]],
        }
        self.routes = [
            route
            for route in club.app.routes
            if isinstance(route, Route) and route.path.startswith("/api/")
        ]

    def path_value(self, name: str) -> st.SearchStrategy[str]:
        known = self.keys.get(name, ["x"])
        return st.one_of(st.sampled_from(known), st.sampled_from(known), st.text(max_size=20),
                         HOSTILE.map(str))


def _fill(path: str, values: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        # Lone surrogates become bytes that are not UTF-8: worth sending too.
        return quote(values[match.group(1)].encode("utf-8", "surrogatepass"), safe="")

    return re.sub(r"\{([a-z_]+)(:[a-z]+)?\}", value, path)


@pytest.fixture
def examples(database_url: str) -> int:
    return EXAMPLES if database_url.startswith("sqlite") else max(1, EXAMPLES // 4)


@pytest.fixture
def fuzz_club(make_club: Any, settings: Settings) -> Any:
    # Budgets out of the way (the fuzz sends fast); the computer thinks briefly.
    return make_club(
        replace(
            settings,
            ws_burst=1_000_000,
            ws_rate_per_s=1_000_000.0,
            auth_attempts_per_minute=1_000_000,
            api_burst=1_000_000,
            api_rate_per_s=1_000_000.0,
            guests_per_address_per_hour=1_000_000,
            ai_max_movetime_s=0.02,
        )
    )


def _server_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f"{record.name}: {record.getMessage()}"
        for record in caplog.records
        if record.levelno >= logging.ERROR
    ]


def test_the_protocol_documents_every_route_and_message_type():
    routes = set()
    for route in create_app(Settings()).routes:
        if isinstance(route, Route) and route.path.startswith("/api/"):
            if route.path == "/api/{rest:path}":
                continue  # the API's own 404 for everything else
            for method in route.methods - {"HEAD"}:
                routes.add((method, _shape(route.path)))
        else:
            # Besides the API: the socket, the static files and the pages.
            assert isinstance(route, WebSocketRoute | Mount | Route), route
    assert routes == documented_endpoints()
    assert set(documented_message_types()) == set(ws_protocol.HANDLERS)
    missing = {name for name in BODY_FIELDS if name not in documented_fields()}
    assert not missing, f"fuzzed fields the protocol does not document: {missing}"


def test_fuzz_every_http_endpoint(fuzz_club, examples, caplog, first_move):
    caplog.set_level(logging.WARNING)
    world = World(fuzz_club)
    routes = world.routes
    browsers = [world.fuzzer, world.other, world.guest]
    seen: set[tuple[str, str]] = set()
    calls = [0]
    queries = documented_queries()
    posts = {route.path for route in routes if "POST" in route.methods}
    assert posts - {"/api/{rest:path}"} == set(EXAMPLE_BODIES), "an example body per POST"

    @st.composite
    def requests(draw: Any) -> tuple[Any, str, str, bytes | None, dict[str, str]]:
        route = draw(st.sampled_from(routes))
        method = draw(st.sampled_from(sorted(route.methods - {"HEAD"})))
        params = {name: draw(world.path_value(name)) for name in route.param_convertors}
        if "rest" in params:
            params["rest"] = draw(st.text(max_size=20))
        path = _fill(route.path, params)
        examples = queries.get(_shape(route.path), [{}])
        query = dict(draw(st.sampled_from(examples)))
        if draw(st.integers(0, 3)):
            for _ in range(draw(st.integers(1, 2))):
                name = draw(st.sampled_from(sorted(set(QUERY_FIELDS) | set(query))))
                query[name] = draw(QUERY_VALUE)
        if query and (method == "GET" or draw(st.booleans())):
            path += "?" + urlencode(query)
        body = None
        if method in ("POST", "PUT", "PATCH"):
            example = EXAMPLE_BODIES.get(route.path, {})
            body = draw(st.one_of(*[mutated_body(example)] * 4, body_text()))
        browser = draw(st.sampled_from(browsers))
        headers = {"Content-Type": "application/json"}
        if draw(st.integers(0, 9)):
            headers["X-CSRF-Token"] = browser.csrf
        seen.add((method, route.path))
        return browser, method, path, body, headers

    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(requests())
    def fuzz(request: tuple[Any, str, str, bytes | None, dict[str, str]]) -> None:
        browser, method, path, body, headers = request
        calls[0] += 1
        response = browser.client.request(method, path, content=body, headers=headers)
        assert response.status_code < 500, (method, path, body, response.text)
        if response.status_code >= 400:
            error = response.json()["error"]
            assert isinstance(error["code"], str) and isinstance(error["message"], str)
        elif path.split("?")[0] in ("/api/login", "/api/signup", "/api/logout"):
            # A new session: the browser takes its token, as the page does.
            browser.csrf = response.json()["csrf"]
        assert _server_errors(caplog) == []

    # Every route and method once for sure, with the keys that exist, from everyone.
    for route in routes:
        params = {name: world.keys.get(name, ["x"])[0] for name in route.param_convertors}
        for method in sorted(route.methods - {"HEAD"}):
            for browser in browsers:
                body = b"{}" if method in ("POST", "PUT", "PATCH") else None
                headers = {"Content-Type": "application/json", "X-CSRF-Token": browser.csrf}
                fuzz.hypothesis.inner_test(  # type: ignore[attr-defined]
                    (browser, method, _fill(route.path, params), body, headers)
                )
                seen.add((method, route.path))
    fuzz()
    assert _server_errors(caplog) == []
    every = {(method, route.path) for route in routes for method in route.methods - {"HEAD"}}
    assert every - seen == set(), "routes never fuzzed"
    _still_plays(fuzz_club, first_move)


def test_fuzz_every_websocket_message_type(fuzz_club, examples, caplog, first_move):
    caplog.set_level(logging.WARNING)
    world = World(fuzz_club)
    sockets = [world.fuzzer.socket(), world.other.socket(), world.guest.socket()]
    kinds = documented_message_types()
    game = world.path_value("game_id")
    seen: set[str] = set()

    @st.composite
    def messages(draw: Any) -> tuple[int, str]:
        kind = draw(st.sampled_from(kinds) | st.text(max_size=10))
        message: dict[str, Any] = {"t": kind}
        optional = {
            "game": game,
            "move": plausible(
                "b6", "f2", "a7a5", "0000", "g1", "zz", "a1a1a1a1a1", "A", "C", "a", "f", "G"
            ),
            "ply": st.integers(-2, 6) | JSON,
            "id": st.integers() | st.text(max_size=70) | JSON,
            "v": st.integers() | JSON,
        }
        for name, strategy in optional.items():
            if draw(st.integers(0, 3)):
                message[name] = draw(strategy)
        text = json.dumps(message, allow_nan=True)
        if draw(st.integers(0, 9)) == 0:
            text = draw(
                st.text(max_size=30)
                | st.sampled_from(['{"t": NaN}', "[]", '{"t": 1}', '{"t": "ping", "id": 1e999}'])
            )
        seen.add(kind)
        return draw(st.integers(0, len(sockets) - 1)), text

    pings = iter(range(10**9))

    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(messages())
    def fuzz(sent: tuple[int, str]) -> None:
        which, text = sent
        socket = sockets[which]
        socket.send_text(text)
        # A ping after it: its pong comes once the message has been dealt with.
        ping = f"fuzz-{next(pings)}"
        socket.send({"t": "ping", "id": ping})
        for _ in range(500):
            reply = socket.receive(timeout=10)
            assert reply["t"] != "error" or reply["code"] not in ("session-ended",), reply
            if reply["t"] == "pong" and reply.get("id") == ping:
                break
        else:
            raise AssertionError("no pong")
        assert _server_errors(caplog) == []

    # Every message type once for sure, about a game that exists, from everyone.
    for kind in kinds:
        for which in range(len(sockets)):
            message = {"t": kind, "game": world.keys["game_id"][0], "move": "f2", "ply": 0}
            fuzz.hypothesis.inner_test((which, json.dumps(message)))  # type: ignore[attr-defined]
            seen.add(kind)
    fuzz()
    assert _server_errors(caplog) == []
    assert set(kinds) <= seen, "message types never fuzzed"
    _still_plays(fuzz_club, first_move)


def _still_plays(club: Any, first_move: Any) -> None:
    """A newcomer plays the computer: two moves, two replies."""
    player = club.browser()
    game = player.post("/api/games/ai", {"level": "random", "color": "x"}).json()["game"]
    ws, state = player.watch(game)
    for ply in (0, 2):
        ws.send({"t": "move", "game": game, "move": first_move(state), "ply": ply, "id": ply})
        state = ws.expect(lambda m, n=ply: m["t"] == "state" and len(m["moves"]) >= n + 2)
    assert state["status"] == "started" and len(state["moves"]) == 4
