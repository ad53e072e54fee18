"""Issue 45, items 10 and 11 — the WebSocket's Origin is this very origin, and a garbage frame is one log line.

Reproduction (failed before the fix), against the real service:
- item 10: Streamlit's Origin check compares host *names* only (and lets every loopback name through), so a
  page of `http://127.0.0.1:9999` — another program on the same machine — or of `https://127.0.0.1:PORT` had
  its WebSocket to the dashboard accepted. Now an Origin, when the browser sends one, must be exactly the
  request's own origin: its scheme (https behind the TLS proxy, from X-Forwarded-Proto), its host and port.
- item 11: a frame that is not a Streamlit message (random bytes, a text frame), sent before any login, wrote a
  full traceback to the log each time; now one line each, and the connection is closed.
"""
from __future__ import annotations

import base64
import os
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import UPLOADS  # noqa: E402
from tests.support.service import running_service  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
PUBLIC = "valuation.dpc.example"


def _handshake(port: int, host: str, origin: str | None, *, proto: str | None = None) -> int:
    key = base64.b64encode(os.urandom(16)).decode()
    lines = ["GET /_stcore/stream HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: streamlit",
             *([f"Origin: {origin}"] if origin is not None else []),
             *([f"X-Forwarded-Proto: {proto}"] if proto is not None else []), "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall("\r\n".join(lines).encode("latin-1"))
        status = s.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
    return int(status.split()[1])


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, _world_template: tuple[Path, dict[str, int]]) -> Any:
    db = tmp_path_factory.mktemp("ws") / "servico.duckdb"
    shutil.copyfile(_world_template[0], db)
    with running_service(db, env={"VALUATION_ALLOWED_HOSTS": PUBLIC}) as svc:
        yield svc


def test_the_websocket_origin_must_be_the_requests_own_origin(service: Any) -> None:
    port = service.port
    own = f"127.0.0.1:{port}"
    accepted = {(own, f"http://{own}", None), (f"localhost:{port}", f"http://localhost:{port}", None),
                (own, None, None),                                         # no Origin: not a browser
                (PUBLIC, f"https://{PUBLIC}", "https"), (f"{PUBLIC}:8443", f"https://{PUBLIC}:8443", "https")}
    refused = {(own, "http://127.0.0.1:9999", None), (own, f"https://{own}", None), (own, f"http://localhost:{port}",
                                                                                     None),
               (own, "null", None), (own, "http://evil.example", None), (own, f"http://{own}.evil.example", None),
               (own, f"ws://{own}", None), (PUBLIC, f"http://{PUBLIC}", "https"), (PUBLIC, f"https://{PUBLIC}", None),
               (PUBLIC, f"https://{PUBLIC}:444", "https"), (own, f"http://{own}/", None), (own, f"HTTP://{own}x", None)}
    for host, origin, proto in accepted:
        assert _handshake(port, host, origin, proto=proto) == 101, (host, origin, proto)
        UPLOADS.count("websocket_origin:allowed", outcome="accepted")
    for host, origin, proto in refused:
        assert _handshake(port, host, origin, proto=proto) == 403, (host, origin, proto)
        UPLOADS.count("websocket_origin:refused", outcome="refused")


def test_a_garbage_frame_before_login_is_one_log_line(service: Any) -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    garbage = [os.urandom(64), b"\xff" * 200, b"\x0a\x05hello\x12", "texto em vez de protobuf"]
    mark = service.log.stat().st_size
    for frame in garbage:
        with connect(f"ws://127.0.0.1:{service.port}/_stcore/stream", subprotocols=["streamlit"],
                     origin=f"http://127.0.0.1:{service.port}", open_timeout=30) as ws:
            ws.send(frame)
            with pytest.raises(ConnectionClosed) as closed:       # the service closes the connection
                while True:
                    ws.recv(timeout=30)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == (1003 if isinstance(frame, str)
                                                                                 else 1002)
        UPLOADS.count("websocket_garbage", outcome="closed")
    time.sleep(1.0)
    with service.log.open("rb") as fh:
        fh.seek(mark)
        written = fh.read().decode("utf-8", "replace")
    assert "Traceback" not in written, written[-3000:]
    frames = [ln for ln in written.splitlines() if "WebSocket" in ln and "frame" in ln]
    assert len(frames) == len(garbage), written[-3000:]
