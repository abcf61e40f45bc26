"""Load benchmark of the club: simulated players in human-vs-human games over real WebSockets.

Starts ``python -m gameclub.server`` on a fresh database (SQLite unless
``--database`` says otherwise), pairs up guests with link invitations, and
lets every pair play on loopback: each player follows its game as the browser
does (full ``state``, then ``delta`` after ``delta``, a resync on a gap) and
answers its turn after a think time, picking a legal move from the
destinations the server sent. Finished games are followed by a rematch, so
the load stays constant. For each number of concurrent games it prints moves
per second and the p50/p99 round trip (move sent -> its ack received, which
comes after the move's delta), errors and resyncs, the share of one core
used by the server process and by this client while measuring, the server's
CPU time per move, and the load average when the level started (other work
on the machine shows there). Each simulated player comes from its own loopback
address (127.1.x.y), as people do from their own machines: the server budgets
requests and new guests per address.

    .venv/bin/python benchmarks/server_load.py --games 50 200 500 --seconds 15

Target: 1,000 moves/s with p99 < 100 ms at 200 games.

With ``--nodes 1 2 3`` it measures clusters instead (``gameclub.cluster``:
that many nodes behind HAProxy, a fresh PostgreSQL database and a private
``redis-server`` for each size). ``--placement split`` (the default) puts the
two players of a game on different nodes: each player's requests and socket
carry the proxy's pinning cookie (``gc_node=nodeK``), host on node k, guest on
node k+1. ``--placement proxy`` pins nothing and lets HAProxy balance
(``--balance leastconn`` or ``roundrobin``). The proxy forwards each player's
address (X-Forwarded-For), which the nodes trust from the loopback. The
``server`` column is then the CPU of all nodes together, ``proxy`` HAProxy's.
The one-process server on SQLite is measured first in the same run (``peer``;
``--no-peer`` leaves it out); ``--repeat N`` measures everything N times and
prints the medians; ``--async-commit`` starts the nodes with
``GAMECLUB_ASYNC_COMMIT=1``. The PostgreSQL backends of the run's own database
get the benchmark's priority (``chrt``/``nice``), as its children do.

    chrt -r 10 .venv/bin/python benchmarks/server_load.py --nodes 1 2 3 --games 200 500 \
        --seconds 15 --repeat 3

Target: 2 nodes at 500 games, 2,300 moves/s or more with p99 < 150 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
import orjson
import websockets

from gameclub.cluster import PIN_COOKIE, Cluster


def loopback_addresses(first: int = 1) -> Iterator[str]:
    """Distinct loopback addresses, ``127.<first>.0.1`` on (Linux routes all of 127/8 to lo)."""
    for high in range(first, 255):
        for middle in range(256):
            for low in range(1, 255):
                yield f"127.{high}.{middle}.{low}"


#: The address of each new simulated player.
PLAYER_ADDRESSES = loopback_addresses(1)


def http_client(base: str, address: str | None, **kwargs: Any) -> httpx.AsyncClient:
    """An HTTP client whose requests come from ``address`` (any loopback address)."""
    transport = httpx.AsyncHTTPTransport(local_address=address) if address else None
    return httpx.AsyncClient(base_url=base, transport=transport, **kwargs)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Stats:
    rtts: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    #: How many errors of each code (``moved``, ``unavailable``, ...).
    error_codes: Counter[str] = field(default_factory=Counter)
    resyncs: int = 0
    games_finished: int = 0
    measuring: bool = False


class Player:
    """One simulated person: a real session, a real socket, real moves.

    It follows its game the way the browser does: the full ``state`` answers
    ``sub``; each ``delta`` applies only to the version before it, and a gap
    asks for the full state again (``sub`` with the version held). It keeps
    only what it needs to play: version, number of moves, side to move,
    destinations.
    """

    def __init__(
        self,
        base: str,
        stats: Stats,
        think_ms: float,
        address: str | None = None,
        node: str | None = None,
    ) -> None:
        self.address = address if address is not None else next(PLAYER_ADDRESSES)
        self.http = http_client(base, self.address, timeout=30)
        # Through a proxy that pins: every request and the socket go to ``node``.
        self.node = node
        if node is not None:
            self.http.cookies.set(PIN_COOKIE, node)
        self.base = base
        self.stats = stats
        self.think_ms = think_ms
        self.csrf = ""
        self.ws: Any = None
        self.game = ""
        self.sent: dict[int, float] = {}
        self.next_id = 0
        self.rng = random.Random()
        # The game as followed: None until the answer to ``sub`` comes.
        self.v: int | None = None
        self.plies = 0
        self.turn = ""
        self.you: str | None = None
        self.dests: dict[str, Any] = {}

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
        cookie = f"gc_session={token}"
        if self.node is not None:
            cookie += f"; {PIN_COOKIE}={self.node}"
        self.ws = await websockets.connect(
            url,
            additional_headers={"Cookie": cookie},
            max_size=2**22,
            compression=None,
            local_addr=(self.address, 0),
        )
        await self.ws.recv()  # welcome

    async def send(self, message: dict[str, Any]) -> None:
        # Text frames, as a browser sends them.
        await self.ws.send(orjson.dumps(message).decode())

    async def subscribe(self) -> None:
        self.v = None
        await self.send({"t": "sub", "game": self.game})

    async def play(self) -> None:
        """Play until the socket is closed."""
        await self.subscribe()
        moved_at_ply = -1
        rematch_sent = ""
        stats = self.stats
        async for text in self.ws:
            message = orjson.loads(text)
            kind = message["t"]
            if kind == "ack":
                sent = self.sent.pop(message["id"], None)
                if sent is not None and stats.measuring:
                    stats.rtts.append(time.perf_counter() - sent)
                    stats.moves += 1
                continue
            if kind == "error":
                stats.errors += 1
                stats.error_codes[str(message.get("code"))] += 1
                continue
            if message.get("game") != self.game:
                continue
            if kind == "delta":
                if self.v is None or message["v"] <= self.v:
                    continue  # waiting for the full state, or older than it
                if message["v"] != self.v + 1 or message["ply"] != self.plies:
                    stats.resyncs += 1
                    await self.send({"t": "sub", "game": self.game, "v": self.v})
                    self.v = None
                    continue
                self.v = message["v"]
                self.plies += len(message["plies"])
                self.turn = message["turn"]
                self.dests = message["dests"]
            elif kind == "state":
                if self.v is not None and message["v"] <= self.v:
                    continue
                if message["status"] != "started":
                    if message["rematch"]:
                        self.game = message["rematch"]
                        moved_at_ply = -1
                        await self.subscribe()
                    elif rematch_sent != self.game:
                        rematch_sent = self.game
                        if message["you"] == "x":
                            stats.games_finished += 1
                        await self.send({"t": "rematch", "game": self.game})
                    continue
                self.v = message["v"]
                self.plies = len(message["moves"])
                self.turn = message["turn"]
                self.you = message["you"]
                self.dests = message["dests"]
            else:
                continue
            ply = self.plies
            if self.turn == self.you and ply != moved_at_ply and self.dests:
                moved_at_ply = ply
                if self.think_ms:
                    await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think_ms / 1000)
                move = self.pick(self.dests)
                self.next_id += 1
                self.sent[self.next_id] = time.perf_counter()
                await self.send(
                    {"t": "move", "game": self.game, "move": move, "ply": ply, "id": self.next_id}
                )

    def pick(self, dests: dict[str, dict[str, list[str]]]) -> str:
        src = self.rng.choice(sorted(dests))
        options = [(d, d) for d in dests[src]["clone"]] + [(d, src + d) for d in dests[src]["jump"]]
        return self.rng.choice(options)[1]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        await self.http.aclose()


def loop_factory() -> Any:
    """uvloop's event loop when it is installed (it is with ``uvicorn[standard]``), as the
    server uses: the load client shares the server's cores, so it should be light."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def cpu_seconds(pid: int | list[int]) -> float:
    """User + system CPU time of process ``pid``, or of all of a list (Linux ``/proc``;
    NaN elsewhere)."""
    if isinstance(pid, list):
        return sum(cpu_seconds(one) for one in pid)
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pids_named(name: str) -> list[int]:
    """The processes whose command name is ``name`` (Linux ``/proc``)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/comm") as f:
                if f.read().strip() == name:
                    found.append(int(entry))
    return found


def backends_of(database: str) -> list[int]:
    """The PostgreSQL server processes serving ``database`` (Linux ``/proc``)."""
    found = []
    for pid in pids_named("postgres"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
            words = f.read().replace(b"\0", b" ").decode(errors="replace").split()
            if words[:1] == ["postgres:"] and database in words:
                found.append(pid)
    return found


def share_priority(pids: list[int]) -> None:
    """Give ``pids`` this process's scheduling (``chrt``'s policy, or ``nice``'s level).

    The nodes, HAProxy and Redis are this benchmark's children and inherit it; the
    backends of the database are PostgreSQL's: without this, a benchmark run under
    ``chrt -r`` on a busy machine would measure PostgreSQL waiting for a core behind
    everything else (where the one-process server's SQLite runs inside the server).
    Only the backends of the run's own database are touched."""
    policy = os.sched_getscheduler(0)
    for pid in pids:
        with contextlib.suppress(OSError):
            if policy in (os.SCHED_RR, os.SCHED_FIFO):
                os.sched_setscheduler(pid, policy, os.sched_getparam(0))
            else:
                os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, 0))


def cpu_by_pid(pids: list[int]) -> dict[int, float]:
    return {pid: cpu_seconds(pid) for pid in pids}


async def pair_up(
    base: str, stats: Stats, think_ms: float, nodes: tuple[str | None, str | None] = (None, None)
) -> list[Player]:
    """Two guests and a game between them, by a link invitation (each on its node, if any)."""
    host = Player(base, stats, think_ms, node=nodes[0])
    guest = Player(base, stats, think_ms, node=nodes[1])
    await host.start()
    await guest.start()
    invitation = await host.post("/api/invitations", {"to": None, "color": "x"})
    game = (await guest.post(f"/api/invitations/{invitation['invitation']['id']}/accept"))["game"]
    host.game = guest.game = game
    return [host, guest]


async def run_level(
    base: str,
    games: int,
    seconds: float,
    think_ms: float,
    server_pid: int | list[int],
    pins: list[str] | None = None,
    proxy_pid: int | None = None,
    store_pids: Callable[[], list[int]] | None = None,
    backends: Callable[[], list[int]] | None = None,
) -> dict[str, Any]:
    """One level: ``games`` games for ``seconds``. ``pins``: the nodes to spread the
    players over, the two of game k on nodes k and k+1 (None: no pinning).
    ``store_pids``: the processes of the database and Redis, whose CPU is counted too.
    ``backends``: the database's processes for this run, given this process's
    scheduling every second (:func:`share_priority`)."""
    stats = Stats()
    players: list[Player] = []

    async def prioritise() -> None:
        while backends is not None:
            share_priority(backends())
            await asyncio.sleep(1.0)

    prioritising = asyncio.create_task(prioritise())

    def placement(game: int) -> tuple[str | None, str | None]:
        if not pins:
            return None, None
        return pins[game % len(pins)], pins[(game + 1) % len(pins)]

    for first in range(0, games, 25):
        for pair in await asyncio.gather(
            *(
                pair_up(base, stats, think_ms, placement(game))
                for game in range(first, min(games, first + 25))
            )
        ):
            players += pair
    await asyncio.gather(*(p.connect() for p in players))
    # The set-up's objects live until the end: keep this client's own garbage
    # collections short, so that they do not show up in the round trips.
    gc.collect()
    gc.freeze()
    tasks = [asyncio.create_task(p.play()) for p in players]
    await asyncio.sleep(min(3.0, seconds / 3))  # warm-up, not measured
    stats.measuring = True
    started = time.perf_counter()
    server_cpu, client_cpu = cpu_seconds(server_pid), time.process_time()
    proxy_cpu = cpu_seconds(proxy_pid) if proxy_pid is not None else float("nan")
    store_before = cpu_by_pid(store_pids()) if store_pids is not None else {}
    await asyncio.sleep(seconds)
    stats.measuring = False
    elapsed = time.perf_counter() - started
    server_cpu = cpu_seconds(server_pid) - server_cpu
    if proxy_pid is not None:
        proxy_cpu = cpu_seconds(proxy_pid) - proxy_cpu
    store_cpu = float("nan")
    if store_pids is not None:
        # Processes that started while measuring count from zero: a new database
        # backend's whole CPU time is recent.
        store_after = cpu_by_pid(store_pids())
        store_cpu = sum(
            max(0.0, used - store_before.get(pid, 0.0)) for pid, used in store_after.items()
        )
    client_cpu = time.process_time() - client_cpu
    await asyncio.gather(*(p.close() for p in players), return_exceptions=True)
    await asyncio.gather(*tasks, return_exceptions=True)
    prioritising.cancel()
    gc.unfreeze()
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
        "error_codes": dict(stats.error_codes),
        "resyncs": stats.resyncs,
        "games_finished": stats.games_finished,
        # Share of one core used while measuring, by the server and by this client.
        "server_cpu": server_cpu / elapsed,
        "client_cpu": client_cpu / elapsed,
        "proxy_cpu": proxy_cpu / elapsed,
        "store_cpu": store_cpu / elapsed,
        "server_cpu_ms_per_move": 1000 * server_cpu / stats.moves if stats.moves else float("nan"),
    }


@contextlib.contextmanager
def running_server(database: str | None) -> Iterator[tuple[str, subprocess.Popen[bytes], str]]:
    """``python -m gameclub.server`` on a free port (a fresh SQLite file unless
    ``database`` is given), until the block ends: ``(base URL, process, database)``."""
    with tempfile.TemporaryDirectory() as tmp:
        database = database or f"sqlite:///{tmp}/bench.db"
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
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.2)
            yield base, server, database
        finally:
            server.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(10)
            if server.poll() is None:
                server.kill()
            log.close()


@contextlib.contextmanager
def fresh_postgres(admin_url: str) -> Iterator[str]:
    """A PostgreSQL database made for this run (dropped at the end): its URL."""
    import psycopg

    name = f"gameclub_bench_{random.randrange(16**8):08x}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{admin_url.rsplit('/', 1)[0]}/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def private_redis() -> Iterator[tuple[str, int]]:
    """``redis-server`` of this run's own on a free port, keeping nothing on disk:
    ``(URL, process id)``."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", tmp],
            stdout=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 10
            while True:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0", redis.pid
        finally:
            redis.terminate()
            redis.wait(10)


@contextlib.contextmanager
def running_cluster(
    nodes: int, balance: str, admin_url: str, redis_url: str | None
) -> Iterator[tuple[Cluster, int | None, str]]:
    """``nodes`` nodes behind HAProxy (pinning allowed) on a fresh PostgreSQL database
    and, unless ``redis_url`` is given, a private Redis: ``(cluster, Redis's pid,
    the database's name)``."""
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(fresh_postgres(admin_url))
        redis_pid = None
        if redis_url is None:
            redis_url, redis_pid = stack.enter_context(private_redis())
        logs = stack.enter_context(tempfile.TemporaryDirectory())
        cluster = Cluster(
            nodes=nodes, port=free_port(), database_url=database, redis_url=redis_url,
            balance=balance, pinning=True, log_dir=Path(logs),
        )
        stack.enter_context(cluster)
        yield cluster, redis_pid, database.rsplit("/", 1)[1]


HEADER = (
    f"{'games':>6} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}"
    f" {'resyncs':>8} {'server':>7} {'client':>7} {'ms/move':>8} {'load':>5}"
)


def result_line(result: dict[str, Any], load: float) -> str:
    return (
        f"{result['games']:>6} {result['moves_per_s']:>9.0f} "
        f"{result['p50_ms']:>8.1f} {result['p99_ms']:>8.1f} {result['errors']:>7}"
        f" {result['resyncs']:>8} {result['server_cpu']:>7.0%}"
        f" {result['client_cpu']:>7.0%} {result['server_cpu_ms_per_move']:>8.2f}"
        f" {load:>5.1f}"
    )


def main_cluster(args: argparse.Namespace) -> int:
    print(
        f"clusters of {', '.join(map(str, args.nodes))} node(s) behind HAProxy "
        f"(balance {args.balance}, placement {args.placement}); PostgreSQL, Redis; "
        f"think time {args.think_ms:.0f} ms; {args.seconds:.0f} s measured per level"
        + ("; commits not waiting for the disk" if args.async_commit else "")
        + ("; 'peer': one process on SQLite, no proxy" if args.peer else "")
    )
    print(f"{'nodes':>5} {HEADER} {'proxy':>6} {'pg+redis':>8}")
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}

    def measure(label: str, games: int, level: Any) -> None:
        load = os.getloadavg()[0]
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            result = runner.run(level)
        result["load"] = load
        runs.setdefault((label, games), []).append(result)
        codes = ", ".join(f"{code} x{n}" for code, n in result["error_codes"].items())
        print(
            f"{label:>5} {result_line(result, load)} {result['proxy_cpu']:>6.0%}"
            f" {result['store_cpu']:>8.0%}" + (f"  ({codes})" if codes else ""),
            flush=True,
        )

    for _ in range(args.repeat):
        if args.peer:
            with running_server(None) as (base, server, _database):
                for games in args.games:
                    measure(
                        "peer", games,
                        run_level(base, games, args.seconds, args.think_ms, server.pid),
                    )
        for nodes in args.nodes:
            with running_cluster(
                nodes, args.balance, args.postgres_admin, args.redis_url
            ) as (cluster, redis_pid, database):
                pins = cluster.node_names if args.placement == "split" else None
                assert cluster.proxy is not None

                def store_pids() -> list[int]:
                    # Every PostgreSQL process of the machine (other work's too, if any).
                    return pids_named("postgres") + ([redis_pid] if redis_pid else [])

                def backends(database: str = database) -> list[int]:
                    return backends_of(database)

                for games in args.games:
                    measure(
                        str(nodes), games,
                        run_level(
                            cluster.url, games, args.seconds, args.think_ms,
                            [child.process.pid for child in cluster.children],
                            pins=pins, proxy_pid=cluster.proxy.process.pid,
                            store_pids=store_pids, backends=backends,
                        ),
                    )
    if args.repeat > 1:
        print(f"medians of {args.repeat} runs (each column on its own)")
        print(f"{'nodes':>5} {'games':>6} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'load':>5}")
        for (label, games), results in runs.items():
            def median(key: str, results: list[dict[str, Any]] = results) -> float:
                return statistics.median(result[key] for result in results)

            print(
                f"{label:>5} {games:>6} {median('moves_per_s'):>9.0f} {median('p50_ms'):>8.1f}"
                f" {median('p99_ms'):>8.1f} {median('load'):>5.1f}"
            )
    return 0


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
    parser.add_argument(
        "--nodes", type=int, nargs="+",
        help="measure clusters of these sizes behind HAProxy instead of one server",
    )
    parser.add_argument("--balance", choices=("leastconn", "roundrobin"), default="leastconn")
    parser.add_argument(
        "--placement", choices=("split", "proxy"), default="split",
        help="split: a game's two players pinned to different nodes; proxy: HAProxy balances",
    )
    parser.add_argument(
        "--postgres-admin", default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="where to create each cluster's fresh database",
    )
    parser.add_argument("--redis-url", help="the clusters' Redis (default: a private redis-server)")
    parser.add_argument(
        "--repeat", type=int, default=1,
        help="with --nodes: measure everything this many times and print the medians too",
    )
    parser.add_argument(
        "--async-commit", action="store_true",
        help="with --nodes: the nodes commit moves without waiting for the disk"
        " (GAMECLUB_ASYNC_COMMIT=1)",
    )
    parser.add_argument(
        "--no-peer", dest="peer", action="store_false",
        help="with --nodes: leave out the one-process server on SQLite measured first",
    )
    args = parser.parse_args()
    if args.async_commit:
        os.environ["GAMECLUB_ASYNC_COMMIT"] = "1"  # the nodes inherit it
    if args.nodes:
        return main_cluster(args)

    with running_server(args.database) as (base, server, database):
        print(
            f"server: {database}; think time {args.think_ms:.0f} ms; "
            f"{args.seconds:.0f} s measured per level"
        )
        print(HEADER)
        for games in args.games:
            load = os.getloadavg()[0]
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                result = runner.run(
                    run_level(base, games, args.seconds, args.think_ms, server.pid)
                )
            print(result_line(result, load), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
