"""``gameclub cluster``: several club nodes behind HAProxy on one machine, in one command.

The launcher starts ``--nodes`` club nodes (``python -m gameclub serve``) on free
loopback ports, all on the same database and Redis, writes HAProxy's
configuration into a temporary directory from :data:`HAPROXY_TEMPLATE`, and
runs HAProxy in the foreground on the public address. Ctrl-C or SIGTERM stops
the proxy first (no new requests), then the nodes.

Nothing is restarted by the launcher: a node that exits is reported, and the
proxy's health checks take it out of the rotation within a few seconds (its
players' sockets reconnect to the others). When the proxy exits, or the last
node does, the launcher stops what is left and exits with status 1. A
supervisor (systemd, one unit per node) is the tool for restarts; see
docs/cluster.md.

:class:`Cluster` is the same thing as an object, for the browser tests and the
load benchmark.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

#: Where each node says whether it can serve (200) or not (503): the proxy's health check.
HEALTH_PATH = "/healthz"
#: The cookie that names the node a request must go to, when pinning is on.
PIN_COOKIE = "gc_node"
#: Balancing algorithms the launcher accepts (HAProxy's names).
BALANCES = ("leastconn", "roundrobin")
#: Seconds to wait for every node, then the proxy, to answer after a start.
START_TIMEOUT_S = 90.0
#: Seconds a stopped process gets to finish before it is killed.
STOP_TIMEOUT_S = 10.0

HAPROXY_TEMPLATE = string.Template("""\
# HAProxy configuration of a gameclub cluster, written by `gameclub cluster`.
global
    maxconn $maxconn
    log stdout format raw local0 notice

defaults
    mode http
    log global
    option httplog
    # Only errors and abnormal ends are logged: one line per request is noise at club scale.
    option dontlog-normal
    maxconn $maxconn
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout http-request 10s
    timeout http-keep-alive 10s
    timeout queue 10s
    # An upgraded connection (a WebSocket) lives as long as its page: the nodes ping
    # every socket every 20 s, so only a dead one stays silent for an hour.
    timeout tunnel 1h
    timeout client-fin 10s
    timeout server-fin 10s

frontend club
    bind $bind
    # This proxy is the club's edge: a client's own X-Forwarded-For or
    # X-Forwarded-Proto is dropped, never believed; `option forwardfor` then
    # adds the address the connection came from. The nodes believe it only from
    # the proxy's address (GAMECLUB_TRUSTED_PROXIES).
    http-request del-header X-Forwarded-For
    http-request del-header X-Forwarded-Proto
    option forwardfor
    default_backend nodes

backend nodes
    balance $balance
    option httpchk
    http-check send meth GET uri $health_path
    http-check expect status 200
    # A node that fails two checks in a row is out until it passes two; its
    # sockets are closed at once so that their pages reconnect to another node.
    default-server check inter 2s fall 2 rise 2 on-marked-down shutdown-sessions
$pin_rules$servers
""")


def free_port(host: str = "127.0.0.1") -> int:
    """A port that nothing listens on now (the OS's choice)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def haproxy_config(
    bind: str,
    servers: list[tuple[str, str]],
    *,
    balance: str = "leastconn",
    pinning: bool = False,
    health_path: str = HEALTH_PATH,
    maxconn: int = 8000,
) -> str:
    """HAProxy's configuration: ``bind`` (``host:port``) in front of ``servers``
    (``(name, host:port)`` pairs).

    With ``pinning``, a request carrying the cookie ``gc_node=<name>`` goes to
    that node while it is up (to put two players of a game on two nodes in
    tests and benchmarks); every other request is balanced.
    """
    if balance not in BALANCES:
        raise ValueError(f"balance must be one of {', '.join(BALANCES)}, not {balance!r}")
    if not servers:
        raise ValueError("a cluster needs at least one node")
    for name, _address in servers:
        if not name.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"node names are letters, digits, - and _, not {name!r}")
    pin_rules = ""
    if pinning:
        rules = "".join(
            f"    use-server {name} if {{ req.cook({PIN_COOKIE}) -m str {name} }}\n"
            for name, _address in servers
        )
        pin_rules = "    # Pinning: the gc_node cookie picks the node (while it is up).\n" + rules
    lines = "".join(f"    server {name} {address}\n" for name, address in servers)
    return HAPROXY_TEMPLATE.substitute(
        bind=bind,
        balance=balance,
        health_path=health_path,
        maxconn=maxconn,
        pin_rules=pin_rules,
        servers=lines,
    )


def find_haproxy() -> str | None:
    """The ``haproxy`` program (Debian installs it in /usr/sbin, often not on a user's PATH)."""
    found = shutil.which("haproxy")
    if found:
        return found
    return "/usr/sbin/haproxy" if os.access("/usr/sbin/haproxy", os.X_OK) else None


@dataclass
class Child:
    """A process of the cluster (a node or the proxy) and where its output goes."""

    name: str
    process: subprocess.Popen[bytes]
    port: int
    log: IO[bytes] | None = None
    copier: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def running(self) -> bool:
        return self.process.poll() is None

    def signal(self, signum: int) -> None:
        """``signum`` to its whole process group (a node and its engine workers)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signum)

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        if self.running():
            # The process itself: a node stops its own engine workers on the way out.
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.process.wait(timeout=timeout_s)
        # Whatever of its group is left (workers of a node that was killed).
        self.signal(signal.SIGKILL)
        if self.copier is not None:
            self.copier.join(timeout=2)
        if self.log is not None:
            self.log.close()
            self.log = None


def _copy_lines(source: IO[bytes], prefix: bytes, target: Any) -> None:
    """Each line of ``source`` to ``target`` (a binary stream) after ``prefix``."""
    for line in iter(source.readline, b""):
        target.write(prefix + line)
        target.flush()


@dataclass
class Cluster:
    """``nodes`` club nodes and HAProxy in front of them on ``host:port``.

    ``log_dir``: each process writes ``<name>.log`` there; without it, their
    lines go to this process's stdout, each after ``[name]``. ``node_env``:
    more environment for the nodes (limits for tests, say).
    """

    nodes: int
    port: int
    database_url: str
    redis_url: str
    host: str = "127.0.0.1"
    balance: str = "leastconn"
    pinning: bool = False
    log_dir: Path | None = None
    node_env: dict[str, str] = field(default_factory=dict)
    haproxy: str | None = None
    children: list[Child] = field(default_factory=list)
    proxy: Child | None = None
    config_path: Path | None = None
    _workdir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    @property
    def node_names(self) -> list[str]:
        return [f"node{number}" for number in range(1, self.nodes + 1)]

    def node(self, name: str) -> Child:
        for child in self.children:
            if child.name == name:
                return child
        raise KeyError(name)

    def start(self) -> None:
        """Start the nodes, wait until each is healthy, then start the proxy and wait for it."""
        if self.nodes < 1:
            raise ValueError(f"a cluster needs at least one node, not {self.nodes}")
        haproxy = self.haproxy or find_haproxy()
        if haproxy is None:
            raise RuntimeError(
                "HAProxy is not installed: run `sh scripts/install-proxy.sh` as root "
                "(apt-get install haproxy)"
            )
        self._workdir = tempfile.TemporaryDirectory(prefix="gameclub-cluster-")
        workdir = Path(self._workdir.name)
        try:
            for name in self.node_names:
                self.children.append(self._start_node(name, free_port()))
            for child in self.children:
                self._wait_healthy(child, child.url + HEALTH_PATH)
            self.config_path = workdir / "haproxy.cfg"
            self.config_path.write_text(
                haproxy_config(
                    f"{self.host}:{self.port}",
                    [(child.name, f"127.0.0.1:{child.port}") for child in self.children],
                    balance=self.balance,
                    pinning=self.pinning,
                )
            )
            check = subprocess.run(
                [haproxy, "-c", "-q", "-f", str(self.config_path)],
                capture_output=True, text=True, check=False,
            )
            if check.returncode != 0:
                raise RuntimeError(f"HAProxy refused its configuration:\n{check.stderr}")
            # -db: in the foreground, not a daemon; the launcher is its supervisor.
            self.proxy = self._spawn("proxy", [haproxy, "-db", "-f", str(self.config_path)],
                                     self.port, dict(os.environ))
            self._wait_healthy(self.proxy, self.url + HEALTH_PATH)
        except BaseException:
            self.stop()
            raise

    def _start_node(self, name: str, port: int) -> Child:
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            # The proxy connects to the nodes from the loopback address.
            "GAMECLUB_TRUSTED_PROXIES": "127.0.0.1",
            "GAMECLUB_NODE_ID": name,
            **self.node_env,
        }
        env.pop("GAMECLUB_DATABASE_URL", None)
        command = [
            sys.executable, "-m", "gameclub", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--database-url", self.database_url, "--redis-url", self.redis_url,
        ]
        return self._spawn(name, command, port, env)

    def _spawn(self, name: str, command: list[str], port: int, env: dict[str, str]) -> Child:
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - closed in Child.stop
            process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
            return Child(name, process, port, log=log)
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
            start_new_session=True,
        )
        assert process.stdout is not None
        copier = threading.Thread(
            target=_copy_lines, args=(process.stdout, f"[{name}] ".encode(), sys.stdout.buffer),
            daemon=True,
        )
        copier.start()
        return Child(name, process, port, copier=copier)

    def _wait_healthy(self, child: Child, url: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not child.running():
                raise RuntimeError(
                    f"{child.name} exited ({child.process.returncode}) before it was ready"
                    + self._log_hint(child)
                )
            with (
                contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError),
                urllib.request.urlopen(url, timeout=2) as response,
            ):
                if response.status == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(
            f"{child.name} did not answer {url} in {START_TIMEOUT_S:.0f} s" + self._log_hint(child)
        )

    def _log_hint(self, child: Child) -> str:
        if self.log_dir is None:
            return " (its output is above)"
        path = self.log_dir / f"{child.name}.log"
        with contextlib.suppress(OSError):
            return ":\n" + "\n".join(path.read_text(errors="replace").splitlines()[-30:])
        return ""

    def stop(self) -> None:
        """The proxy first (no new requests), then the nodes together."""
        if self.proxy is not None:
            self.proxy.stop()
        for child in self.children:
            if child.running():
                child.process.send_signal(signal.SIGTERM)
        for child in self.children:
            child.stop()
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None

    def __enter__(self) -> Cluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run(cluster: Cluster) -> int:
    """Run ``cluster`` until Ctrl-C or SIGTERM (status 0), or until the proxy or the last
    node exits (status 1). Restarts nothing."""
    stopping = threading.Event()
    started = False

    def on_signal(signum: int, frame: object) -> None:
        if not started:
            raise KeyboardInterrupt  # start() stops what it started
        stopping.set()

    previous = {
        signum: signal.signal(signum, on_signal) for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        try:
            cluster.start()
        except KeyboardInterrupt:
            return 0
        started = True
        print(
            f"gameclub cluster: {cluster.url} -> {cluster.nodes} node(s) "
            + ", ".join(f"{child.name} on :{child.port}" for child in cluster.children)
            + f"; HAProxy ({cluster.balance}) config {cluster.config_path}",
            flush=True,
        )
        reported: set[str] = set()
        status = 0
        while not stopping.wait(0.5):
            assert cluster.proxy is not None
            if not cluster.proxy.running():
                print(f"gameclub cluster: the proxy exited ({cluster.proxy.process.returncode});"
                      " stopping the nodes", file=sys.stderr, flush=True)
                status = 1
                break
            for child in cluster.children:
                if not child.running() and child.name not in reported:
                    reported.add(child.name)
                    print(f"gameclub cluster: {child.name} exited ({child.process.returncode});"
                          " the proxy takes it out of the rotation, nothing restarts it",
                          file=sys.stderr, flush=True)
            if len(reported) == len(cluster.children):
                print("gameclub cluster: no node is left; stopping", file=sys.stderr, flush=True)
                status = 1
                break
        return status
    finally:
        cluster.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
