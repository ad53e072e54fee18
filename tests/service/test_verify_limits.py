"""Issue 45, item 5 — /verificar's limits hold when the requests arrive together (the real service).

Reproductions (each failed before the fix):
- item 5: the limit was read before a lookup and counted after it, so 200 unknown codes sent together from one
  address were ~110 lookups (the rule: 5 failures, then waiting); now a lookup is counted before it is made and
  an address has at most `limiter.LOOKUPS_IN_FLIGHT` in flight. Every 429 says when to come back
  (`Retry-After`; issue 43, item 12: it had none).
- issue 43, item 12 (decided here): the hourly cap of 60 lookups counted codes a citizen found; codes found are
  not capped any more (SECURITY.md says why) — 70 lookups of a known code in a row are 70 answers.
"""
from __future__ import annotations

import shutil
import threading
import urllib.request
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
