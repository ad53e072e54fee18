"""Issue 45, items 5 and 6 — /verificar's limits hold when the requests arrive together (the real service).

Reproductions (each failed before the fix):
- item 5: the limit was read before a lookup and counted after it, so 200 unknown codes sent together from one
  address were ~110 lookups (the rule: 5 failures, then waiting); now a lookup is counted before it is made and
  an address has at most `limiter.LOOKUPS_IN_FLIGHT` in flight. Every 429 says when to come back
  (`Retry-After`; issue 43, item 12: it had none).
- issue 43, item 12 (decided here): the hourly cap of 60 lookups counted codes a citizen found; codes found are
  not capped any more (SECURITY.md says why) — 70 lookups of a known code in a row are 70 answers.
- item 6: 40 uploads of 25 MB sent together from one address took the service from 296 to 924 MB; an address
  may now have `limiter.UPLOADS_IN_FLIGHT` uploads in flight and everyone together `limiter.UPLOADS_IN_ALL`,
  and the next one is refused before its body is read (the test sends the headers and the first bytes only).
"""
from __future__ import annotations

import shutil
import socket
import threading
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import FIGURES, LIMITS  # noqa: E402
from tests.support.service import running_service  # noqa: E402
from valuation.accounts.login import PRINCIPAL_COLUMNS, principal_from_row  # noqa: E402
from valuation.authenticity import limiter  # noqa: E402
from valuation.db.store import Store  # noqa: E402
from valuation.deadlines.wreck_map import wreck_map_pdf  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, _world_template: tuple[Path, dict[str, int]]) -> Any:
    db = tmp_path_factory.mktemp("verificar") / "servico.duckdb"
    shutil.copyfile(_world_template[0], db)
    with Store(db) as store:
        dpc = principal_from_row(store.fetch_one(f"SELECT {PRINCIPAL_COLUMNS} FROM users WHERE username = ?",
                                                 ["dpc.silva"]) or {})
        wreck_map_pdf(store, dpc, office="CPRJ", year=2025)          # one registered document
        code = str(store.scalar("SELECT code FROM issued_documents ORDER BY id DESC LIMIT 1"))
    with running_service(db) as svc:
        svc.code = f"{code[:5]}-{code[5:]}"
        yield svc


def _get(svc: Any, path: str, address: str) -> tuple[int, str | None]:
    req = urllib.request.Request(svc.base + path, headers={"X-Forwarded-For": address})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            resp.read()
            return resp.status, resp.headers.get("Retry-After")
    except urllib.error.HTTPError as exc:
        exc.read()
        return exc.code, exc.headers.get("Retry-After")


def _together(n: int, fn: Any) -> list[Any]:
    gate = threading.Barrier(n)
    out: list[Any] = [None] * n

    def run(i: int) -> None:
        gate.wait()
        out[i] = fn(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return out


def test_unknown_codes_sent_together_are_counted_before_they_are_looked_up(service: Any) -> None:
    answers = _together(200, lambda i: _get(service, f"/verificar?codigo=ZZZZZ-{i:05d}", "203.0.113.5"))
    looked_up = sum(1 for status, _ in answers if status == 404)
    for status, retry in answers:
        LIMITS.count("verificar:concurrent_unknown", outcome=str(status))
        assert status in (404, 429)
        assert status == 404 or (retry is not None and retry.isdigit() and int(retry) >= 1), (status, retry)
    FIGURES.record("/verificar: 200 unknown codes sent together from one address, looked up", looked_up)
    assert 1 <= looked_up <= limiter.FAILURES.free, answers
    status, retry = _get(service, "/verificar?codigo=" + service.code, "203.0.113.5")
    assert status == 429 and retry is not None and int(retry) >= 1       # the address waits, a known code too


def test_codes_found_are_not_capped_per_hour(service: Any) -> None:
    answers = [_get(service, "/verificar?codigo=" + service.code, "203.0.113.6")[0] for _ in range(70)]
    for status in answers:
        LIMITS.count("verificar:found_in_a_row", outcome=str(status))
    assert answers == [200] * 70, answers


def _upload_head(port: int, address: str, size: int) -> tuple[socket.socket, bytes]:
    """Open an upload of a `size`-byte file: its headers and the first 64 KiB are sent; returns the socket and the
    rest of the body."""
    boundary = uuid.uuid4().hex
    pre = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"codigo\"\r\n\r\nZZZZZ-00000\r\n"
           f"--{boundary}\r\nContent-Disposition: form-data; name=\"arquivo\"; filename=\"doc.pdf\"\r\n"
           "Content-Type: application/pdf\r\n\r\n").encode()
    body = pre + b"%PDF-1.7\n" + b"0" * size + f"\r\n--{boundary}--\r\n".encode()
    head = (f"POST /verificar HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Forwarded-For: {address}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n").encode()
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(head + body[:65536])
    return s, body[65536:]


def _status_within(s: socket.socket, seconds: float) -> int | None:
    """The response's status if one comes within `seconds` (None: the service is reading the body)."""
    s.settimeout(seconds)
    try:
        line = s.recv(4096).split(b"\r\n", 1)[0]
    except TimeoutError:
        return None
    finally:
        s.settimeout(60)
    return int(line.split()[1]) if line else -1


def test_uploads_in_flight_are_bounded_per_address_and_in_all(service: Any) -> None:
    size = 3 * 1024 * 1024
    mine = [_upload_head(service.port, "198.51.100.10", size) for _ in range(10)]
    others = [_upload_head(service.port, f"198.51.100.{20 + i}", size) for i in range(10)]
    try:
        first = [_status_within(s, 3.0) for s, _ in mine]
        then = [_status_within(s, 3.0) for s, _ in others]
        held = [c for c, status in zip(mine + others, first + then) if status is None]
        for status in first + then:
            LIMITS.count("verificar:concurrent_uploads", outcome="held" if status is None else str(status))
        FIGURES.record("/verificar: uploads sent together (10 from one address + 10 from ten), held / refused "
                       "unread", f"{len(held)} / {20 - len(held)}")
        assert first.count(None) == limiter.UPLOADS_IN_FLIGHT, first        # 2 from one address
        assert len(held) == limiter.UPLOADS_IN_ALL, first + then            # 6 in all
        assert all(status == 429 for status in first + then if status is not None), first + then
        for s, rest in held:                                                # the held ones are answered
            s.sendall(rest)
            assert _status_within(s, 60) == 404                            # the code is unknown
    finally:
        for s, _ in mine + others:
            s.close()
