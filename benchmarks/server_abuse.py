"""Abuse benchmark of the club: the load benchmark's games while clients try to stall the server.

Starts a server as ``server_load.py`` does, sets up ``--games`` human-vs-human
games between simulated players (each from its own loopback address) and lets
them play at the load benchmark's pace. Then it measures three phases of
``--seconds`` each: without abuse, with abuse, and after it. During the abuse
a separate process runs, at once and each from its own address (on the same
machine: the attacker's CPU is taken from the server's, the worst case):

1. 8 clients looping anonymous ``GET /api/options`` (and ``/api/lobby``);
2. 6 clients of one guest posting 400 MB bodies, chunked and announced;
3. a guest opening 40 games against ``master``, then asking for more;
4. a guest creating hot-seat games in a loop, and a client creating guests;
5. 4 clients of one guest looping record uploads (a long game, a 12,000-move one);
6. a guest's sockets sending binary frames that are not UTF-8, reconnecting when closed.

For each phase it prints the moves' p50/p99 round trip (move sent -> ack),
moves per second, the players' errors, the server's CPU share and its RSS at
the end of the phase, and the load average; for the abuse phase also how the
server answered each attack, and how long another player's game against the
computer (``random``) waited for its first reply.

    .venv/bin/python benchmarks/server_abuse.py --games 100 --seconds 15

Target: p99 under 100 ms with the abuse, and no growth of the server's memory
beyond what the games need.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2 as httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import (
    Player,
    Stats,
    cpu_seconds,
    http_client,
    loop_factory,
    loopback_addresses,
    pair_up,
    running_server,
)

#: Each attack comes from its own address (127.2.0.x); players are on 127.1.x.y.
ATTACK_ADDRESSES = loopback_addresses(2)


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (Linux ``/proc``)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# -- the attacks (run in their own process) ------------------------------------------------


class Attack:
    """One attacker: a counter of how the server answered, and a deadline."""

    def __init__(self, base: str, name: str, until: float, counts: Counter[str]) -> None:
        self.base = base
        self.name = name
        self.until = until
        self.counts = counts
        self.address = next(ATTACK_ADDRESSES)

    @property
    def on(self) -> bool:
        return time.monotonic() < self.until

    def count(self, what: object) -> None:
        self.counts[f"{self.name}: {what}"] += 1

    def client(self) -> httpx.AsyncClient:
        return http_client(self.base, self.address, timeout=30)

    async def guest(self, client: httpx.AsyncClient) -> str:
        """A guest session for ``client``; its CSRF token."""
        while self.on:
            response = await client.get("/api/me")
            if response.status_code == 200:
                return str(response.json()["csrf"])
            self.count(f"guest refused {response.status_code}")
            await asyncio.sleep(1)
        return ""

    async def looping(self, step: Callable[[httpx.AsyncClient], Awaitable[None]]) -> None:
        """Run ``step`` until the deadline; a failed connection is counted and reopened."""
        client = self.client()
        while self.on:
            try:
                await step(client)
            except httpx.HTTPError as exc:
                self.count(type(exc).__name__)
                await client.aclose()
                client = self.client()
        await client.aclose()


async def flood_options(attack: Attack) -> None:
    async def step(client: httpx.AsyncClient) -> None:
        for path in ("/api/options", "/api/options", "/api/options", "/api/lobby"):
            attack.count((await client.get(path)).status_code)

    await attack.looping(step)


async def huge_uploads(attack: Attack, csrf: str, cookie: str, announce: bool) -> None:
    """400 MB bodies, over raw connections: a body is written until the server answers
    or drops the connection, then the next one starts."""
    host, port = attack.base.removeprefix("http://").split(":")
    length = "Content-Length: 419430400" if announce else "Transfer-Encoding: chunked"
    head = (
        f"POST /api/games/hotseat HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nX-CSRF-Token: {csrf}\r\n"
        f"Cookie: gc_session={cookie}\r\n{length}\r\n\r\n"
    ).encode()
    chunk = b" " * (1 << 20)
    if not announce:
        chunk = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    while attack.on:
        try:
            reader, writer = await asyncio.open_connection(
                host, int(port), local_addr=(attack.address, 0)
            )
        except OSError as exc:
            attack.count(type(exc).__name__)
            await asyncio.sleep(0.05)
            continue
        answer = asyncio.ensure_future(reader.readline())
        sent = 0
        try:
            writer.write(head)
            while attack.on and sent < 400 and not answer.done():
                writer.write(chunk)
                await writer.drain()
                sent += 1
            status = (await asyncio.wait_for(answer, 5)).split(b" ")
            attack.count(f"{status[1].decode() if len(status) > 1 else 'closed'}"
                         f" after {sent} MB sent")
        except (TimeoutError, OSError) as exc:
            attack.count(f"{type(exc).__name__} after {sent} MB sent")
        finally:
            answer.cancel()
            writer.close()


async def engine_hog(attack: Attack) -> None:
    async with attack.client() as client:
        csrf = await attack.guest(client)
        for _ in range(40):
            response = await client.post(
                "/api/games/ai",
                json={"level": "master", "color": "o"},
                headers={"X-CSRF-Token": csrf},
            )
            attack.count(response.status_code)
        while attack.on:
            response = await client.post(
                "/api/games/ai",
                json={"level": "master", "color": "o"},
                headers={"X-CSRF-Token": csrf},
            )
            attack.count(response.status_code)
            await asyncio.sleep(0.2)


async def game_creator(attack: Attack) -> None:
    async with attack.client() as client:
        csrf = await attack.guest(client)

        async def step(client: httpx.AsyncClient) -> None:
            response = await client.post(
                "/api/games/hotseat", json={}, headers={"X-CSRF-Token": csrf}
            )
            attack.count(response.status_code)

        while attack.on:
            try:
                await step(client)
            except httpx.HTTPError as exc:
                attack.count(type(exc).__name__)


async def guest_creator(attack: Attack) -> None:
    async def step(client: httpx.AsyncClient) -> None:
        client.cookies.clear()
        attack.count((await client.get("/api/me")).status_code)

    await attack.looping(step)


def long_records() -> list[str]:
    """The longest random game found in a few tries, and a 12,000-move record."""
    from gameclub.ataxx import Board
    from gameclub.ataxx.notation import GameRecord

    rng = random.Random(12)
    longest = Board()
    for _ in range(20):
        board = Board()
        while board.outcome() is None:
            board.push(rng.choice(board.legal_moves))
        if len(board.move_stack) > len(longest.move_stack):
            longest = board
    moves = " ".join(f"{n}. g1 a7" for n in range(1, 6001))
    return [GameRecord.from_board(longest).to_pgn(), f'[Rules "ataxx"]\n\n{moves} *\n']


async def record_uploads(attack: Attack, csrf: str, cookie: str, records: list[str]) -> None:
    async def step(client: httpx.AsyncClient) -> None:
        for record in records:
            response = await client.post(
                "/api/records",
                json={"pgn": record},
                headers={"X-CSRF-Token": csrf, "Cookie": f"gc_session={cookie}"},
            )
            attack.count(response.status_code)

    await attack.looping(step)


async def binary_frames(attack: Attack, cookie: str) -> None:
    url = attack.base.replace("http", "ws", 1) + "/ws"
    while attack.on:
        try:
            async with websockets.connect(
                url,
                additional_headers={"Cookie": f"gc_session={cookie}"},
                local_addr=(attack.address, 0),
                compression=None,
            ) as ws:
                attack.count("socket opened")

                async def read() -> None:
                    # Read what comes back, so that the server's close gets through.
                    async for _ in ws:
                        attack.count("answer read")

                reader = asyncio.create_task(read())
                try:
                    while attack.on:
                        await ws.send(b"\xff\xfe\xfd")
                        attack.count("frame sent")
                        await asyncio.sleep(0)  # a send that need not wait never yields
                finally:
                    reader.cancel()
        except websockets.exceptions.ConnectionClosed:
            attack.count("socket closed by the server")
        except (websockets.exceptions.InvalidStatus, OSError) as exc:
            attack.count(f"handshake refused ({type(exc).__name__})")
            await asyncio.sleep(0.05)


async def session_of(attack: Attack) -> tuple[str, str]:
    """A guest session from the attack's address: ``(csrf, cookie)``."""
    async with attack.client() as client:
        csrf = await attack.guest(client)
        return csrf, client.cookies.get("gc_session", "")


async def abuse(base: str, seconds: float, ready: Any) -> Counter[str]:
    """Set up every attack (sessions, records), say so on ``ready``, then attack for
    ``seconds`` and return how the server answered."""
    counts: Counter[str] = Counter()
    until = time.monotonic() + 3600.0  # until set up
    records = await asyncio.to_thread(long_records)
    attacks: list[Attack] = []

    def attack(name: str) -> Attack:
        attacks.append(Attack(base, name, until, counts))
        return attacks[-1]

    options = attack("1 options flood")
    uploads = attack("2 400 MB uploads")
    upload_session = await session_of(uploads)
    pgn = attack("5 record uploads")
    pgn_session = await session_of(pgn)
    frames = attack("6 binary frames")
    frames_session = await session_of(frames)
    jobs = [
        *(flood_options(options) for _ in range(8)),
        *(huge_uploads(uploads, *upload_session, announce=n % 2 == 0) for n in range(6)),
        engine_hog(attack("3 master games")),
        game_creator(attack("4 hot-seat games")),
        guest_creator(attack("4 new guests")),
        *(record_uploads(pgn, *pgn_session, records) for _ in range(4)),
        binary_frames(frames, frames_session[1]),
    ]
    counts.clear()  # the set-up is not part of the attack
    for each in attacks:
        each.until = time.monotonic() + seconds
    ready.set()
    await asyncio.gather(*jobs, return_exceptions=True)
    return counts


def abuse_process(base: str, seconds: float, ready: Any, out: Any) -> None:
    # Under ``chrt`` (the server and the players first), the attacker takes what is
    # left: an attacker's CPU is not normally the server's.
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        counts = runner.run(abuse(base, seconds, ready))
    out.put(dict(counts))


# -- the measured side ------------------------------------------------------------------------


async def first_reply_waits(base: str, stats: Stats, until: float) -> list[float]:
    """Another player's games against the computer (``random``, the computer first):
    how long each waited for the computer's first move. A new player each time."""
    waits = []
    while time.monotonic() < until:
        player = Player(base, stats, 0)
        try:
            await player.start()
            response = await player.http.post(
                "/api/games/ai",
                json={"level": "random", "color": "o"},
                headers={"X-CSRF-Token": player.csrf},
            )
            if response.status_code != 201:
                waits.append(float("inf"))
                continue
            game = response.json()["game"]
            started = time.perf_counter()
            while True:
                record = (await player.http.get(f"/api/games/{game}")).json()
                if record["moves"]:
                    break
                await asyncio.sleep(0.01)
            waits.append(time.perf_counter() - started)
        finally:
            await player.close()
        await asyncio.sleep(0.5)
    return waits


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def measure(
    name: str,
    stats: Stats,
    players: list[Player],
    seconds: float,
    server_pid: int,
    probe: str | None = None,
) -> dict[str, Any]:
    """Round trips of the moves sent in the next ``seconds``. A move still waiting for
    its ack at the end counts with the time it has waited so far (a stalled server
    must not look fast because its slowest moves never came back)."""
    stats.rtts.clear()
    stats.moves = stats.errors = stats.resyncs = 0
    load = os.getloadavg()[0]
    stats.measuring = True
    started = time.perf_counter()
    cpu = cpu_seconds(server_pid)
    waits_task = (
        asyncio.create_task(first_reply_waits(probe, stats, time.monotonic() + seconds))
        if probe
        else None
    )
    await asyncio.sleep(seconds)
    stats.measuring = False
    now = time.perf_counter()
    waiting = [now - sent for p in players for sent in p.sent.values() if sent >= started]
    stats.rtts.extend(waiting)
    elapsed = now - started
    waits = await waits_task if waits_task else []
    return {
        "phase": name,
        "moves_per_s": stats.moves / elapsed,
        "p50_ms": percentile(stats.rtts, 0.50),
        "p99_ms": percentile(stats.rtts, 0.99),
        "mean_ms": 1000 * statistics.fmean(stats.rtts) if stats.rtts else float("nan"),
        "errors": stats.errors,
        "unanswered": len(waiting),
        "server_cpu": (cpu_seconds(server_pid) - cpu) / elapsed,
        "rss_mib": rss_mib(server_pid),
        "load": load,
        "first_reply_ms": [1000 * w for w in waits],
    }


async def run(base: str, games: int, seconds: float, think_ms: float, pid: int) -> None:
    stats = Stats()
    rss_empty = rss_mib(pid)
    players: list[Player] = []
    for first in range(0, games, 25):
        for pair in await asyncio.gather(
            *(pair_up(base, stats, think_ms) for _ in range(first, min(games, first + 25)))
        ):
            players += pair
    await asyncio.gather(*(p.connect() for p in players))
    tasks = [asyncio.create_task(p.play()) for p in players]
    await asyncio.sleep(3.0)  # warm-up, not measured
    print(f"server RSS: {rss_empty:.0f} MiB at start, {rss_mib(pid):.0f} MiB with the games")
    print(
        f"{'phase':<14} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'unacked':>7}"
        f" {'server':>7} {'RSS MiB':>8} {'load':>5}  computer's first reply (ms)"
    )
    results = [await measure("without abuse", stats, players, seconds, pid, probe=base)]
    spawn = multiprocessing.get_context("spawn")
    out: Any = spawn.Queue()
    ready: Any = spawn.Event()
    attacker = spawn.Process(target=abuse_process, args=(base, seconds + 2.0, ready, out))
    attacker.start()
    await asyncio.to_thread(ready.wait)  # sessions opened, records built
    await asyncio.sleep(1.0)  # the attacks get going
    results.append(await measure("with abuse", stats, players, seconds, pid, probe=base))
    counts = await asyncio.to_thread(out.get)
    await asyncio.to_thread(attacker.join)
    await asyncio.sleep(2.0)
    results.append(await measure("after abuse", stats, players, seconds, pid, probe=base))
    for r in results:
        waits = r["first_reply_ms"]
        reply = (
            f"p50 {percentile([w / 1000 for w in waits], 0.5):.0f}, max {max(waits):.0f}"
            f" ({len(waits)} games)"
            if waits
            else "-"
        )
        print(
            f"{r['phase']:<14} {r['moves_per_s']:>8.0f} {r['p50_ms']:>7.1f} {r['p99_ms']:>7.1f}"
            f" {r['errors']:>6} {r['unanswered']:>7} {r['server_cpu']:>7.0%}"
            f" {r['rss_mib']:>8.0f} {r['load']:>5.1f}"
            f"  {reply}"
        )
    print("how the server answered the attacks (during the abuse phase):")
    for key, value in sorted(counts.items()):
        print(f"  {key}: {value}")
    for p in players:
        await p.close()
    await asyncio.gather(*tasks, return_exceptions=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=15.0, help="measured time per phase")
    parser.add_argument("--think-ms", type=float, default=150.0, help="players' mean think time")
    parser.add_argument("--database", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    with running_server(args.database) as (base, server, database):
        print(
            f"server: {database}; {args.games} games, think time {args.think_ms:.0f} ms;"
            f" {args.seconds:.0f} s per phase"
        )
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(run(base, args.games, args.seconds, args.think_ms, server.pid))
    return 0


if __name__ == "__main__":
    sys.exit(main())
