"""Fixtures for the real-browser tests: the club as a subprocess, Chromium, pages.

The server runs exactly as people run it (``python -m gameclub.server``) on a
free port with a temporary SQLite database, so a test can kill it (SIGKILL)
and start it again on the same port and database. Chromium is Debian's
(``/usr/bin/chromium``, installed by ``scripts/install-browser.sh``), driven
by Playwright's synchronous API. Every page records its JavaScript errors; a
test fails if its pages threw any.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SKIP_REASON = (
    f"BROWSER TESTS SKIPPED: {CHROMIUM} is missing. Install it with "
    "`sh scripts/install-browser.sh` (apt-get install chromium) to run tests/e2e."
)
#: Seconds to wait for the server to answer after a start.
START_TIMEOUT_S = 60.0



def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say it in capitals at the end of the run when the browser tests did not run."""
    skipped = terminalreporter.stats.get("skipped", [])
    if any("BROWSER TESTS SKIPPED" in str(getattr(report, "longrepr", "")) for report in skipped):
        terminalreporter.write_sep("!", SKIP_REASON, red=True, bold=True)
    for report in skipped:
        text = str(getattr(report, "longrepr", ""))
        if "CLUSTER TESTS SKIPPED" in text:
            reason = text[text.index("CLUSTER TESTS SKIPPED"):].split("'")[0].split('"')[0]
            terminalreporter.write_sep("!", reason, red=True, bold=True)
            break


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ClubServer:
    """``python -m gameclub.server`` on ``port`` with the SQLite file ``database``."""

    port: int
    database: Path
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0
    _log: Any = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert self.process is None or self.process.poll() is not None, "already running"
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()/kill()
        self._log.write(f"\n=== start {self.starts + 1} ===\n".encode())
        self._log.flush()
        # Every page of the suite comes from 127.0.0.1: the per-address budgets of a
        # real club would take the whole suite for one abusive client.
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "GAMECLUB_GUESTS_PER_ADDRESS_PER_HOUR": "100000",
            "GAMECLUB_API_BURST": "100000",
        }
        env.pop("GAMECLUB_DATABASE_URL", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gameclub.server", "--host", "127.0.0.1",
             "--port", str(self.port), "--database", f"sqlite:///{self.database}"],
            stdout=self._log, stderr=subprocess.STDOUT, env=env,
            start_new_session=True,
        )
        self.starts += 1
        self.wait_ready()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                code = self.process.returncode
                raise RuntimeError(f"the server exited ({code}):\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/options", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer in {START_TIMEOUT_S} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no goodbye frames (a crash)."""
        if self.process is not None and self.process.poll() is None:
            # Its whole process group: the engine's worker processes go too.
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self._close_log()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 40) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""


def _new_server(directory: Path) -> ClubServer:
    directory.mkdir(parents=True, exist_ok=True)
    return ClubServer(free_port(), directory / "club.sqlite", directory / "server.log")


@pytest.fixture(scope="session")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClubServer]:
    """One server for the tests that do not restart it."""
    server = _new_server(tmp_path_factory.mktemp("club"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def own_club(tmp_path: Path) -> Iterator[ClubServer]:
    """A server of the test's own (for tests that kill and restart it)."""
    server = _new_server(tmp_path / "club")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(SKIP_REASON)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture()
def new_page(
    browser: Any, request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[..., Any]]:
    """``new_page(base_url)``: a page in a context of its own (its own cookies: another person).

    JavaScript errors thrown by the page fail the test. When a test fails, a
    screenshot, the console and the socket frames of each page are kept in the
    test's tmp_path, and the end of each console and socket record is printed
    with the failure (a CI run keeps only what it printed).
    """
    contexts: list[Any] = []
    errors: list[str] = []
    consoles: list[list[str]] = []
    sockets: list[list[str]] = []

    def make(base_url: str, **options: Any) -> Any:
        context = browser.new_context(base_url=base_url, **options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
        console: list[str] = []
        consoles.append(console)
        page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
        frames: list[str] = []
        sockets.append(frames)

        def record(direction: str, payload: str | bytes) -> None:
            text = payload if isinstance(payload, str) else repr(payload)
            frames.append(f"{time.monotonic():.3f} {direction} {text[:400]}")

        def watch(ws: Any) -> None:
            frames.append(f"{time.monotonic():.3f} open {ws.url}")
            ws.on("framesent", lambda payload: record(">", payload))
            ws.on("framereceived", lambda payload: record("<", payload))
            ws.on("close", lambda _: frames.append(f"{time.monotonic():.3f} closed"))

        page.on("websocket", watch)
        return page

    yield make
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        for number, context in enumerate(contexts):
            for page in context.pages:
                with contextlib.suppress(Exception):
                    page.screenshot(path=str(tmp_path / f"page{number}.png"), full_page=True)
            (tmp_path / f"page{number}.console.txt").write_text("\n".join(consoles[number]))
            (tmp_path / f"page{number}.socket.txt").write_text("\n".join(sockets[number]))
            print(f"--- page {number}: the end of its console:", *consoles[number][-20:],
                  f"--- page {number}: the end of its socket frames:", *sockets[number][-30:],
                  sep="\n")
        print(f"browser test failed: screenshots, consoles and sockets in {tmp_path}")
    for context in contexts:
        with contextlib.suppress(Exception):
            context.close()
    assert not errors, "JavaScript errors in the page:\n" + "\n".join(errors)


# -- playing through the page ----------------------------------------------------------


class GameUI:
    """What a person does on a game page, by the page's own controls.

    The board's squares carry ``data-square`` and state classes (``movable``,
    ``dest-clone``, ``dest-jump``); ``.board.can-play`` means it is this
    page's turn; ``#move-list li`` are the moves played.
    """

    @staticmethod
    def move_count(page: Any) -> int:
        return int(page.locator("#move-list li").count())

    @staticmethod
    def wait_moves(page: Any, at_least: int, timeout_ms: int = 30_000) -> None:
        page.wait_for_function(
            "n => document.querySelectorAll('#move-list li').length >= n", arg=at_least,
            timeout=timeout_ms,
        )

    @staticmethod
    def wait_turn(page: Any, timeout_ms: int = 30_000) -> None:
        page.wait_for_selector(".board.can-play", timeout=timeout_ms)

    @classmethod
    def play_one_move(cls, page: Any) -> str:
        """Play a clone if any piece has one, else the last piece's first jump.

        Clones first so that a game always moves towards its end: jumping one
        piece back and forth while the other side passes never fills the board.
        """
        cls.wait_turn(page)
        before = cls.move_count(page)
        pieces = page.locator(".board.can-play .sq.movable")
        clone = page.locator(".sq.dest-clone")
        for index in range(pieces.count()):
            pieces.nth(index).click()
            if clone.count():
                break
        target = clone.first if clone.count() else page.locator(".sq.dest-jump").first
        square = str(target.get_attribute("data-square"))
        target.click()
        cls.wait_moves(page, before + 1)
        return square


@pytest.fixture()
def ui() -> type[GameUI]:
    return GameUI


# -- several nodes behind the proxy ----------------------------------------------------

PG_ADMIN_URL = os.environ.get("GAMECLUB_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_SERVER = Path("/usr/bin/redis-server")
PROXY_SKIP_REASON = (
    "CLUSTER TESTS SKIPPED: HAProxy is missing. Install it with "
    "`sh scripts/install-proxy.sh` as root (apt-get install haproxy) to run them."
)


@pytest.fixture(scope="session")
def cluster_database() -> Iterator[str]:
    """A PostgreSQL database created for this session (dropped at the end): its URL."""
    import secrets

    import psycopg

    try:
        admin = psycopg.connect(PG_ADMIN_URL, connect_timeout=3, autocommit=True)
    except psycopg.Error as exc:
        pytest.skip(f"CLUSTER TESTS SKIPPED: PostgreSQL not reachable at {PG_ADMIN_URL} ({exc})")
    name = f"gameclub_cluster_{secrets.token_hex(4)}"
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``redis-server`` of this session's own on a free port, keeping nothing on disk."""
    if not REDIS_SERVER.exists():
        pytest.skip(f"CLUSTER TESTS SKIPPED: {REDIS_SERVER} is missing (apt-get install redis)")
    port = free_port()
    directory = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [str(REDIS_SERVER), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(directory)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


#: Environment of the nodes in the tests: every page comes from 127.0.0.1.
TEST_NODE_ENV = {
    "GAMECLUB_GUESTS_PER_ADDRESS_PER_HOUR": "100000",
    "GAMECLUB_API_BURST": "100000",
}


@pytest.fixture(scope="module")
def two_nodes(
    cluster_database: str, private_redis: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """Two club nodes behind HAProxy (``gameclub.cluster.Cluster``), pinning allowed:
    a ``gc_node=node1`` cookie sends a page's requests and socket to node1."""
    from gameclub.cluster import Cluster, find_haproxy

    if find_haproxy() is None:
        pytest.skip(PROXY_SKIP_REASON)
    cluster = Cluster(
        nodes=2, port=free_port(), database_url=cluster_database, redis_url=private_redis,
        pinning=True, log_dir=tmp_path_factory.mktemp("cluster"), node_env=TEST_NODE_ENV,
    )
    with cluster:
        yield cluster
