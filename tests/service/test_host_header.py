"""Issue 24, item 13 — a request naming another host is refused on every route, the WebSocket included.

Reproduction (failed before the fix): `server.allowedHosts` was not set and `/sessao` compared Origin
with the request's own Host, so a WebSocket with `Host: evil.example` was accepted — the door a DNS
rebinding attack uses (a page of evil.example whose name is made to resolve to the server). Now the
service knows its names (the loopback names, the address it listens on, `VALUATION_ALLOWED_HOSTS` for
the name the reverse proxy serves) and refuses any other Host on every HTTP route and WebSocket, and
sets Streamlit's own `server.allowedHosts` to the same list.
"""
from __future__ import annotations

import base64
import http.client
import os
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from service.hosts import allowed_hosts, host_allowed  # noqa: E402
from tests.support.fuzz_report import FIGURES, UPLOADS  # noqa: E402
from tests.support.service import running_service  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
PUBLIC = "valuation.dpc.example"
HOSTILE = ["evil.example", "127.0.0.1.evil.example", "evil.example:80", "localhost.evil.example",
           f"{PUBLIC}.evil.example", "evil.example@127.0.0.1", "[::1].evil.example", "", "127.0.0.1 evil"]


def _websocket(port: int, host: str | None) -> int:
    """The status of a WebSocket handshake to Streamlit's stream with this Host header."""
    key = base64.b64encode(os.urandom(16)).decode()
    lines = ["GET /_stcore/stream HTTP/1.1", *([f"Host: {host}"] if host is not None else []),
             "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
             f"Origin: http://{host or 'nenhum'}", "Sec-WebSocket-Protocol: streamlit", "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall("\r\n".join(lines).encode("latin-1"))
        status = s.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
    return int(status.split()[1])


def _http(port: int, method: str, path: str, host: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.putheader("Content-Length", "0")
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read().decode("utf-8", "replace")
    finally:
        conn.close()


ROUTES = [("GET", "/"), ("GET", "/_stcore/health"), ("GET", "/saude"), ("GET", "/calendario/x.ics"),
          ("POST", "/sessao"), ("POST", "/sessao/sair"), ("POST", "/servico/cli"), ("GET", "/app/static/anchor.png")]


def test_another_host_is_refused_on_every_route_and_the_websocket(small_world: Any, tmp_path: Path) -> None:
    small_world.store.close()
    db = tmp_path / "servico.duckdb"
    shutil.copyfile(small_world.path, db)
    refused = accepted = 0
    with running_service(db, env={"VALUATION_ALLOWED_HOSTS": PUBLIC}) as svc:
        own = f"127.0.0.1:{svc.port}"
        for host in (own, f"localhost:{svc.port}", PUBLIC, f"{PUBLIC.upper()}:443"):
            assert _websocket(svc.port, host) == 101, host
            assert _http(svc.port, "GET", "/saude", host)[0] == 200, host
            accepted += 2
        for host in HOSTILE:
            assert _websocket(svc.port, host) != 101, host
            refused += 1
            for method, path in ROUTES:
                status, body = _http(svc.port, method, path, host,
                                     {"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"})
                assert status == 400 and "Host" in body, (host, path, status, body[:200])
                refused += 1
        assert _websocket(svc.port, None) != 101                       # no Host at all
        refused += 1
    for _ in range(refused):
        UPLOADS.count("host_header:refused", outcome="refused")
    for _ in range(accepted):
        UPLOADS.count("host_header:allowed", outcome="accepted")
    FIGURES.record("Host headers: requests refused / allowed (every route and the WebSocket)",
                   f"{refused} / {accepted}")


@pytest.mark.parametrize("env, expected", [
    ({}, {"127.0.0.1", "localhost", "::1"}),
    ({"VALUATION_HOST": "10.0.0.5"}, {"127.0.0.1", "localhost", "::1", "10.0.0.5"}),
    ({"VALUATION_ALLOWED_HOSTS": "painel.dpc.mar.mil.br, Outro.Example."},
     {"127.0.0.1", "localhost", "::1", "painel.dpc.mar.mil.br", "outro.example"}),
])
def test_the_allowed_hosts_come_from_the_configuration(env: dict[str, str], expected: set[str]) -> None:
    assert set(allowed_hosts(env)) == expected


def test_a_wildcard_address_allows_the_machines_own_names() -> None:
    names = set(allowed_hosts({"VALUATION_HOST": "0.0.0.0"}))
    assert socket.gethostname().lower() in names and "0.0.0.0" not in names


@pytest.mark.parametrize("host", [*HOSTILE, "127.0.0.1\n", "localhost\t", "localhost:0", "localhost:65536"])
def test_host_allowed_refuses_lookalikes(host: str) -> None:
    assert not host_allowed(host, ("127.0.0.1", "localhost", "::1", PUBLIC))
