"""``gameclub cluster`` as people run it: HAProxy's configuration, the launcher's processes.

1. The configuration written from the template is one HAProxy accepts (``haproxy -c``),
   for each balancing and with pinning; bad arguments are refused by name.
2. The command starts two nodes and the proxy; requests through the proxy reach
   both nodes; each client's own address reaches the nodes (a budget per address
   counts it, not the proxy) and an X-Forwarded-For the client sends is not
   believed; a node killed leaves the rotation while the other serves;
   SIGTERM stops everything and the command exits 0.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx
import pytest

from gameclub.cluster import BALANCES, HEALTH_PATH, find_haproxy, haproxy_config

from .conftest import PROXY_SKIP_REASON, TEST_NODE_ENV, free_port

pytestmark = pytest.mark.postgres

HAPROXY = find_haproxy()
needs_haproxy = pytest.mark.skipif(HAPROXY is None, reason=PROXY_SKIP_REASON)


@needs_haproxy
@pytest.mark.parametrize("balance", BALANCES)
@pytest.mark.parametrize("pinning", [False, True])
def test_haproxy_accepts_the_configuration(tmp_path: Path, balance: str, pinning: bool) -> None:
    assert HAPROXY is not None
    config = haproxy_config(
        "127.0.0.1:8000", [("node1", "127.0.0.1:8001"), ("node2", "127.0.0.1:8002")],
        balance=balance, pinning=pinning,
    )
    path = tmp_path / "haproxy.cfg"
    path.write_text(config)
    check = subprocess.run([HAPROXY, "-c", "-f", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"balance {balance}" in config
    assert ("use-server node2 if { req.cook(gc_node) -m str node2 }" in config) is pinning
    assert f"http-check send meth GET uri {HEALTH_PATH}" in config


def test_bad_configurations_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="balance must be one of leastconn, roundrobin"):
        haproxy_config("127.0.0.1:8000", [("node1", "127.0.0.1:8001")], balance="first")
    with pytest.raises(ValueError, match="at least one node"):
        haproxy_config("127.0.0.1:8000", [])
    with pytest.raises(ValueError, match="node names are letters"):
        haproxy_config("127.0.0.1:8000", [("node 1", "127.0.0.1:8001")])


def test_the_command_refuses_bad_arguments() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gameclub", "cluster", "--nodes", "0",
         "--database-url", "postgresql://x/y", "--redis-url", "redis://127.0.0.1:1/0"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert "nodes must be 1 to 64, not 0" in result.stderr


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@needs_haproxy
def test_the_launcher_runs_two_nodes_behind_the_proxy_and_stops_them(
    cluster_database: str, private_redis: str, tmp_path: Path
) -> None:
    port = free_port()
    log = open(tmp_path / "cluster.log", "wb")  # noqa: SIM115 - closed below
    launcher = subprocess.Popen(
        [sys.executable, "-m", "gameclub", "cluster", "--nodes", "2", "--port", str(port),
         "--database-url", cluster_database, "--redis-url", private_redis,
         "--balance", "roundrobin"],
        stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, **TEST_NODE_ENV, "GAMECLUB_GUESTS_PER_ADDRESS_PER_HOUR": "3"},
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"

    def output() -> str:
        return (tmp_path / "cluster.log").read_text(errors="replace")

    def new_guest(address: str, **headers: str) -> httpx.Response:
        """``GET /api/me`` from ``address`` without a cookie: a new guest there."""
        transport = httpx.HTTPTransport(local_address=address)
        with httpx.Client(base_url=base, timeout=10, transport=transport) as client:
            return client.get("/api/me", headers=headers)

    try:
        deadline = time.monotonic() + 180
        while "gameclub cluster: " not in output():
            assert launcher.poll() is None, output()
            assert time.monotonic() < deadline, output()
            time.sleep(0.2)
        node_ports = {
            name: int(number) for name, number in re.findall(r"(node\d) on :(\d+)", output())
        }
        assert sorted(node_ports) == ["node1", "node2"]

        # Round robin over fresh connections: both nodes answer, each naming itself.
        seen = set()
        for number in range(1, 7):
            response = new_guest(f"127.0.1.{number}")
            assert response.status_code == 200, response.text
            seen.add(response.json()["node"])
            assert response.headers["X-Gameclub-Node"] == response.json()["node"]
        assert seen == {"node1", "node2"}

        # Three new guests an hour per address: eight from one address are too many
        # on either node, while another address still has its own three. Were the
        # nodes counting the proxy's address, that one would be refused too.
        statuses = [new_guest("127.0.2.1").status_code for _ in range(8)]
        assert statuses.count(429) >= 2 and set(statuses) == {200, 429}, statuses
        assert new_guest("127.0.2.2").status_code == 200
        # A client naming another address of its own is not believed.
        for _ in range(2):
            spoofed = new_guest("127.0.2.1", **{"X-Forwarded-For": "203.0.113.7"})
            assert spoofed.status_code == 429, spoofed.text

        # A node killed: the health checks take it out, the other serves everything.
        victim = subprocess.run(
            ["fuser", f"{node_ports['node1']}/tcp"], capture_output=True, text=True
        ).stdout.split()
        for pid in victim:
            os.kill(int(pid), signal.SIGKILL)
        time.sleep(6)  # two failed checks, 2 s apart
        for number in range(1, 5):
            assert new_guest(f"127.0.3.{number}").json()["node"] == "node2"
        assert launcher.poll() is None  # one node left: the cluster runs on
        assert "node1 exited" in output() or not _port_open(node_ports["node1"])

        launcher.send_signal(signal.SIGTERM)
        assert launcher.wait(timeout=60) == 0, output()
        for number in (port, *node_ports.values()):
            assert not _port_open(number), f"port {number} still open after the launcher stopped"
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait(timeout=10)
        log.close()
