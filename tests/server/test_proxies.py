"""The client's address: the peer's own, unless the peer is a configured proxy.

The per-address limits count it, so a client that may name its own address
(``X-Forwarded-For``) dodges them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import replace
from typing import Any

import httpx2 as httpx
import pytest

from gameclub.server.settings import Settings


def _login_codes(browser: Any, count: int, forwarded: bool = True) -> list[int]:
    codes = []
    for n in range(count):
        headers = {"X-Forwarded-For": f"198.51.100.{n}"} if forwarded else {}
        response = browser.post(
            "/api/login", {"name": f"nobody{n}", "password": "not this one"}, headers=headers
        )
        codes.append(response.status_code)
    return codes


def test_forwarded_addresses_are_ignored_by_default(make_club, settings: Settings):
    club = make_club(replace(settings, auth_attempts_per_minute=4))
    local = club.browser("127.0.0.1")
    assert _login_codes(local, 6) == [401] * 4 + [429] * 2


def test_forwarded_addresses_are_believed_from_configured_proxies(make_club, settings: Settings):
    club = make_club(
        replace(settings, auth_attempts_per_minute=4, trusted_proxies=("10.1.0.0/16",))
    )
    proxy = club.browser("10.1.2.3")
    # Each client behind the proxy has its own limit...
    assert _login_codes(proxy, 6) == [401] * 6
    # ... and one client behind it is limited like any other.
    one = [
        proxy.post(
            "/api/login",
            {"name": "nobody", "password": "not this one"},
            headers={"X-Forwarded-For": "203.0.113.9"},
        ).status_code
        for _ in range(6)
    ]
    assert one == [401] * 4 + [429] * 2
    # A client that is not the proxy is not believed, even naming it.
    other = club.browser("192.0.2.1")
    spoofed = [
        other.post(
            "/api/login",
            {"name": "nobody", "password": "not this one"},
            headers={"X-Forwarded-For": f"10.1.2.3, 198.51.100.{n}"},
        ).status_code
        for n in range(6)
    ]
    assert spoofed == [401] * 4 + [429] * 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_served_club_does_not_believe_local_clients(tmp_path: Any):
    """``python -m gameclub.server`` (uvicorn) with the default settings: a client on
    127.0.0.1 cannot name another address."""
    port = _free_port()
    env = {**os.environ, "GAMECLUB_DATABASE_URL": f"sqlite:///{tmp_path}/club.db"}
    env.pop("GAMECLUB_TRUSTED_PROXIES", None)
    with open(tmp_path / "server.log", "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gameclub.server", "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp_path,
        )
        try:
            http = httpx.Client(base_url=f"http://127.0.0.1:{port}")
            deadline = time.monotonic() + 60
            while True:
                try:
                    me = http.get("/api/me", timeout=1).json()
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline and process.poll() is None
                    time.sleep(0.2)
            codes = []
            for n in range(12):
                response = http.post(
                    "/api/login",
                    json={"name": f"nobody{n}", "password": "not this one"},
                    headers={"X-CSRF-Token": me["csrf"], "X-Forwarded-For": f"198.51.100.{n}"},
                )
                codes.append(response.status_code)
            assert codes == [401] * 10 + [429] * 2
        finally:
            process.terminate()
            process.wait(20)


def test_limits_come_from_the_environment_strictly(monkeypatch):
    from gameclub.server.settings import Settings

    monkeypatch.setenv("GAMECLUB_API_BURST", "500")
    monkeypatch.setenv("GAMECLUB_API_RATE_PER_S", "2.5")
    monkeypatch.setenv("GAMECLUB_GUESTS_PER_ADDRESS_PER_HOUR", "7")
    settings = Settings.from_env()
    assert (settings.api_burst, settings.api_rate_per_s) == (500, 2.5)
    assert settings.guests_per_address_per_hour == 7
    for bad in ("²", "1e3", "-5", "ten", "1.5"):
        monkeypatch.setenv("GAMECLUB_API_BURST", bad)
        with pytest.raises(ValueError, match="GAMECLUB_API_BURST"):
            Settings.from_env()
