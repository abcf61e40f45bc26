"""Load benchmark of the club: simulated players in human-vs-human games over real WebSockets.

Starts ``python -m gameclub.server`` on a fresh database (SQLite unless
``--database`` says otherwise), pairs up guests with link invitations, and
lets every pair play on loopback: each player answers its turn after a think
time, picking a legal move from the state's hints. Finished games are
followed by a rematch, so the load stays constant. For each number of
concurrent games it prints moves per second and the p50/p99 round trip
(move sent -> its ack received).

    .venv/bin/python benchmarks/server_load.py --games 50 200 500 --seconds 15

Target: 1,000 moves/s with p99 < 100 ms at 200 games.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Stats:
    rtts: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    games_finished: int = 0
    measuring: bool = False


class Player:
    def __init__(self, base: str, stats: Stats, think_ms: float) -> None:
        self.http = httpx.AsyncClient(base_url=base, timeout=30)
        self.base = base
        self.stats = stats
        self.think_ms = think_ms
        self.csrf = ""
        self.ws: Any = None
        self.game = ""
        self.sent: dict[int, float] = {}
        self.next_id = 0
        self.rng = random.Random()

    async def start(self) -> None:
        me = (await self.http.get("/api/me")).json()
        self.csrf = me["csrf"]

    async def post(self, path: str, body: Any = None) -> Any:
        response = await self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf})
        response.raise_for_status()
        return response.json()

    async def connect(self) -> None:
        token = self.http.cookies["gc_session"]
        url = self.base.replace("http", "ws", 1) + "/ws"
        self.ws = await websockets.connect(
            url, additional_headers={"Cookie": f"gc_session={token}"}, max_size=2**22
        )
        await self.ws.recv()  # welcome

    async def play(self, stop: asyncio.Event) -> None:
        await self.ws.send(json.dumps({"t": "sub", "game": self.game}))
        moved_at_ply = -1
        rematch_sent = ""
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(self.ws.recv(), timeout=1.0)
            except TimeoutError:
                continue
            message = json.loads(text)
            kind = message["t"]
            if kind == "ack":
                sent = self.sent.pop(message["id"], None)
                if sent is not None and self.stats.measuring:
                    self.stats.rtts.append(time.perf_counter() - sent)
                    self.stats.moves += 1
            elif kind == "error":
                self.stats.errors += 1
            elif kind == "state" and message["game"] == self.game:
                if message["status"] != "started":
                    if message["rematch"]:
                        self.game = message["rematch"]
                        moved_at_ply = -1
                        await self.ws.send(json.dumps({"t": "sub", "game": self.game}))
                    elif rematch_sent != self.game:
                        rematch_sent = self.game
                        if message["you"] == "x":
                            self.stats.games_finished += 1
                        await self.ws.send(json.dumps({"t": "rematch", "game": self.game}))
                    continue
                ply = len(message["moves"])
                if message["turn"] == message["you"] and ply != moved_at_ply:
                    moved_at_ply = ply
                    if self.think_ms:
                        await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think_ms / 1000)
                    move = self.pick(message["dests"])
                    self.next_id += 1
                    self.sent[self.next_id] = time.perf_counter()
                    await self.ws.send(
                        json.dumps(
                            {
                                "t": "move",
                                "game": self.game,
                                "move": move,
                                "ply": ply,
                                "id": self.next_id,
                            }
                        )
                    )

    def pick(self, dests: dict[str, dict[str, list[str]]]) -> str:
        src = self.rng.choice(sorted(dests))
        options = [(d, d) for d in dests[src]["clone"]] + [(d, src + d) for d in dests[src]["jump"]]
        return self.rng.choice(options)[1]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        await self.http.aclose()


async def run_level(base: str, games: int, seconds: float, think_ms: float) -> dict[str, Any]:
    stats = Stats()
    players: list[Player] = []
    for _ in range(games):
        host, guest = Player(base, stats, think_ms), Player(base, stats, think_ms)
        await host.start()
        await guest.start()
        invitation = await host.post("/api/invitations", {"to": None, "color": "x"})
        game = (await guest.post(f"/api/invitations/{invitation['invitation']['id']}/accept"))[
            "game"
        ]
        host.game = guest.game = game
        players += [host, guest]
    await asyncio.gather(*(p.connect() for p in players))
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.play(stop)) for p in players]
    await asyncio.sleep(min(3.0, seconds / 3))  # warm-up, not measured
    stats.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    stats.measuring = False
    elapsed = time.perf_counter() - started
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.gather(*(p.close() for p in players), return_exceptions=True)
    rtts = sorted(stats.rtts)

    def pct(q: float) -> float:
        return 1000 * rtts[min(len(rtts) - 1, int(q * len(rtts)))] if rtts else float("nan")

    return {
        "games": games,
        "moves_per_s": stats.moves / elapsed,
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "mean_ms": 1000 * statistics.fmean(rtts) if rtts else float("nan"),
        "errors": stats.errors,
        "games_finished": stats.games_finished,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--seconds", type=float, default=15.0, help="measured time per level")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=150.0,
        help="mean think time of a player before each move (0: none)",
    )
    parser.add_argument("--database", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        database = args.database or f"sqlite:///{tmp}/bench.db"
        port = free_port()
        env = {**os.environ, "GAMECLUB_DATABASE_URL": database}
        log = open(os.path.join(tmp, "server.log"), "w")  # noqa: SIM115
        server = subprocess.Popen(
            [sys.executable, "-m", "gameclub.server", "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(base + "/api/options", timeout=1)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        print("the server did not start", file=sys.stderr)
                        return 1
                    time.sleep(0.2)
            print(
                f"server: {database}; think time {args.think_ms:.0f} ms; "
                f"{args.seconds:.0f} s measured per level"
            )
            print(f"{'games':>6} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
            for games in args.games:
                result = asyncio.run(run_level(base, games, args.seconds, args.think_ms))
                print(
                    f"{result['games']:>6} {result['moves_per_s']:>9.0f} "
                    f"{result['p50_ms']:>8.1f} {result['p99_ms']:>8.1f} {result['errors']:>7}",
                    flush=True,
                )
        finally:
            server.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(10)
            if server.poll() is None:
                server.kill()
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
