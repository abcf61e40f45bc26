"""What one node's publisher sends the others: the bundles of ``cluster.bundle``.

Each receiving node reads its own channel and the club's, and must see the
messages of each in the order they were queued; the tests here decode the
payloads as the receiving node does (one JSON array per publish).
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from gameclub.server.cluster import USERS_CHANNEL, _Outgoing, bundle, node_channel

from .conftest import run_in_own_loop


def message(node: str, body: dict[str, Any], listened: Any = None) -> _Outgoing:
    return (node_channel(node), orjson.dumps(body), listened, None, None)


def frame(node: str, conn: str, text: str) -> _Outgoing:
    return (node_channel(node), None, None, conn, text)


def club(body: dict[str, Any]) -> _Outgoing:
    return (USERS_CHANNEL, orjson.dumps(body), None, None, None)


def decoded(bundles: list[tuple[str, bytes, list[Any]]]) -> list[tuple[str, list[Any]]]:
    return [(channel, orjson.loads(data)) for channel, data, _ in bundles]


def test_what_goes_to_one_node_is_one_publish_in_the_order_queued():
    state = '{"t":"delta","game":"g1","v":7}'
    other = '{"t":"delta","game":"g2","v":3}'
    batch = [
        message("b", {"k": "req", "id": 1}),
        frame("b", "4", state),
        frame("c", "9", state),
        message("c", {"k": "reply", "id": 5}),
        frame("b", "5", other),
        message("b", {"k": "reply", "id": 2}),
    ]
    assert decoded(bundle(batch)) == [
        ("gc:node:b", [
            {"k": "req", "id": 1},
            {"k": "push", "c": ["4"], "x": state},
            {"k": "push", "c": ["5"], "x": other},
            {"k": "reply", "id": 2},
        ]),
        ("gc:node:c", [{"k": "push", "c": ["9"], "x": state}, {"k": "reply", "id": 5}]),
    ]


def test_a_frame_for_several_connections_of_a_node_in_a_row_is_one_push():
    text = '{"t":"delta","game":"g1","v":8}'
    later = '{"t":"presence","game":"g1"}'
    batch = [
        frame("b", "1", text),
        frame("b", "2", text),
        frame("b", "3", text),
        frame("b", "1", later),
        frame("b", "2", later),
    ]
    assert decoded(bundle(batch)) == [
        ("gc:node:b", [
            {"k": "push", "c": ["1", "2", "3"], "x": text},
            {"k": "push", "c": ["1", "2"], "x": later},
        ]),
    ]


def test_messages_to_the_club_keep_their_place_among_those_to_nodes():
    # Every node reads the club's channel too: nothing queued for a node after a
    # message to the club may reach it before that message, nor the other way round.
    batch = [
        message("b", {"n": 1}),
        message("c", {"n": 2}),
        club({"u": 7, "m": {"t": "started"}}),
        club({"u": 8, "m": {"t": "started"}}),
        message("b", {"n": 3}),
        club({"u": 9, "end": "s"}),
    ]
    assert decoded(bundle(batch)) == [
        ("gc:node:b", [{"n": 1}]),
        ("gc:node:c", [{"n": 2}]),
        (USERS_CHANNEL, [{"u": 7, "m": {"t": "started"}}, {"u": 8, "m": {"t": "started"}}]),
        ("gc:node:b", [{"n": 3}]),
        (USERS_CHANNEL, [{"u": 9, "end": "s"}]),
    ]


def test_each_request_learns_the_publish_of_its_own_node():
    async def main() -> None:
        loop = asyncio.get_running_loop()
        to_b, to_c = loop.create_future(), loop.create_future()
        bundles = bundle([
            message("b", {"k": "req", "id": 1}, to_b),
            message("c", {"k": "req", "id": 2}, to_c),
            frame("b", "1", "{}"),
        ])
        assert [(channel, futures) for channel, _, futures in bundles] == [
            ("gc:node:b", [to_b]),
            ("gc:node:c", [to_c]),
        ]

    run_in_own_loop(main())
