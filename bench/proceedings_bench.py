"""The inbox and the office's queue at the bench file's scale (issue 42, "Done when": ≤ 0.3 s on the 1M-item file).

    python bench/proceedings_bench.py --db bench/out/bench_main.duckdb --items 1000000   # prints the figures
    (bench/run.py calls `measure_on` on its N-item file, after the other figures)

Untimed, in bulk (`INSERT … SELECT` over `range`): N notices spread over the file's people, one in a hundred of them
to the DPC user measured (its inbox holds N/100), and N/10 filings spread over the file's requests, all of them
examined but one in fifty (an office's queue is what is still open; its history grows). Timed (median of
`repeat`):

- `inbox_page_s`: `notices.inbox.inbox` — the DPC user's first page (50) and counts;
- `filings_queue_dpc_s`: `proceedings.filings.deadline_rows` as DPC — every filing not examined, with the period of
  Lei 9.784/1999 art. 24 computed on each office's calendar;
- `filings_queue_office_s`: the same as the officer of the office with the most filings.

Baseline (the same run): `notices_scan_s`, every notice of the file read into pandas (what a page that filtered in
Python would pay). The figures are checked against a count made in SQL, or they would mean nothing.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parent / "src"), str(HERE.parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

KEYS: tuple[str, ...] = ("inbox_page_s", "filings_queue_dpc_s", "filings_queue_office_s", "notices_scan_s")
LABELS: dict[str, str] = {
    "inbox_page_s": "Avisos: first page of a person's inbox (N notices in the file)",
    "filings_queue_dpc_s": "Protocolo: the queue of filings not examined, as DPC (N/10 filings)",
    "filings_queue_office_s": "Protocolo: the queue of one office, as its officer",
    "notices_scan_s": "baseline: every notice read into pandas",
}
LIMIT_S = 0.3


def targets(r: dict[str, Any]) -> dict[str, tuple[str, bool | None]]:
    ratio = r["notices_scan_s"] / r["inbox_page_s"] if r["inbox_page_s"] > 0 else float("inf")
    return {"inbox_page_s": (f"≤ {LIMIT_S:g} s and faster than the scan", r["inbox_page_s"] <= LIMIT_S and ratio > 1),
            "filings_queue_dpc_s": (f"≤ {LIMIT_S:g} s", r["filings_queue_dpc_s"] <= LIMIT_S),
            "filings_queue_office_s": (f"≤ {LIMIT_S:g} s", r["filings_queue_office_s"] <= LIMIT_S),
            "notices_scan_s": ("baseline", None)}


def _median(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    runs, out = [], None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t0)
    return statistics.median(runs), out


def populate(store: Any, items: int) -> dict[str, Any]:
    """N notices and N/10 filings (one in fifty not examined), in bulk; the DPC user measured and the busiest office."""
    n_notices, n_filings = max(items, 1000), max(items // 10, 100)
    dpc = store.fetch_one("SELECT id, username FROM users WHERE role = 'dpc' AND active ORDER BY id LIMIT 1")
    assert dpc is not None, "the bench file has no DPC user"
    requests = store.scalar("SELECT count(*) FROM requests")
    assert requests, "the bench file has no request"

    def write(tx: Any) -> None:
        now = tx.store.now()
        tx.execute("""
            INSERT INTO notices (user_id, event_key, kind, title, body, link, created_at, mail, read_at, emailed_at)
            SELECT CASE WHEN i % 100 = 0 THEN ? ELSE u.id END, 'bench:' || i, 'filing_received',
                   'Documento protocolado nº ' || i, 'Um documento foi protocolado.', 'filings',
                   ? - to_seconds(i), 'none', CASE WHEN i % 3 = 0 THEN ? END, NULL
            FROM range(?) t(i)
            JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k, count(*) OVER () AS n FROM users) u
              ON u.k = i % u.n""", [dpc["id"], now, now, n_notices])
        tx.execute("""
            INSERT INTO filings (request_id, document_no, kind, subject, organisation_id, office_code, channel,
                                 received_on, filed_by, filed_at)
            SELECT q.id, 100000 + i, 'documento', 'Documento de bancada nº ' || i, q.organisation_id, q.office_code,
                   'sistema', CAST(? AS DATE) - CAST(i % 30 AS INTEGER), 'bench', ? - to_seconds(i)
            FROM range(?) t(i)
            JOIN (SELECT id, organisation_id, office_code, row_number() OVER (ORDER BY id) - 1 AS k,
                         count(*) OVER () AS n FROM requests) q ON q.k = i % q.n""",
                   [tx.store.today(), now, n_filings])
        tx.execute("INSERT INTO filing_reviews (filing_id, note, reviewed_by, reviewed_at) SELECT id, 'Examinado.', "
                   "'bench', ? FROM filings WHERE filed_by = 'bench' AND id % 50 <> 0", [now])

    store.write("bench", write, bookkeeping=True)
    office = store.fetch_one("SELECT f.office_code, count(*) AS n FROM filings f WHERE f.id NOT IN "
                             "(SELECT filing_id FROM filing_reviews) GROUP BY ALL ORDER BY n DESC LIMIT 1")
    assert office is not None
    return {"notices": n_notices, "filings": n_filings, "dpc": dpc["username"], "office": office["office_code"],
            "office_open": int(office["n"])}


def principal_of(store: Any, username: str) -> Any:
    from valuation.accounts.login import PRINCIPAL_COLUMNS, principal_from_row

    row = store.fetch_one(f"SELECT {PRINCIPAL_COLUMNS} FROM users WHERE username = ?", [username])
    assert row is not None, username
    return principal_from_row(row)


def _officer(store: Any, office: str) -> Any:
    """The office's officer (made for the bench when the file has none)."""
    row = store.fetch_one("SELECT username FROM users WHERE role = 'officer' AND office_code = ? AND active LIMIT 1",
                          [office])
    if row is None:
        store.write("bench", lambda tx: tx.execute(
            "INSERT INTO users (username, full_name, role, active, created_at, office_code, password_hash) "
            "VALUES ('om.bancada', 'Oficial de bancada', 'officer', true, ?, ?, '!sem-senha')",
            [tx.store.now(), office]),
            bookkeeping=True)
        row = {"username": "om.bancada"}
    return principal_of(store, row["username"])


def measure_on(db_path: Path | str, items: int, repeat: int, say: Callable[[str], None] = print) -> dict[str, Any]:
    from valuation.db.store import Store
    from valuation.notices import inbox
    from valuation.proceedings import filings

    with Store(db_path) as store:
        made = populate(store, items)
        dpc = principal_of(store, made["dpc"])
        officer = _officer(store, made["office"])
        today = store.today()
        inbox_s, page = _median(lambda: inbox.inbox(store, dpc), repeat)
        expected = store.scalar("SELECT count(*) FROM notices WHERE user_id = ?", [dpc.id])
        assert page.total == expected and len(page.rows) == min(50, expected), (page.total, expected)
        dpc_s, rows = _median(lambda: filings.deadline_rows(store, dpc, as_of=today), repeat)
        open_all = store.scalar("SELECT count(*) FROM filings WHERE id NOT IN (SELECT filing_id FROM filing_reviews)")
        assert len(rows) == open_all, (len(rows), open_all)
        office_s, mine = _median(lambda: filings.deadline_rows(store, officer, as_of=today), repeat)
        assert len(mine) == made["office_open"] and {r["office_code"] for r in mine} == {made["office"]}
        scan_s, frame = _median(lambda: store.fetch_df("SELECT * FROM notices"), repeat)
        assert len(frame) >= made["notices"]
    result = {"inbox_page_s": inbox_s, "filings_queue_dpc_s": dpc_s, "filings_queue_office_s": office_s,
              "notices_scan_s": scan_s}
    for key, value in result.items():
        say(f"{key} = {value:.3f}")
    return {**result, "details": {"proceedings": {**made, "dpc_inbox": expected, "open_filings": open_all}}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, help="a copy of the bench file (rows are added to it)")
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    measure_on(args.db, args.items, args.repeat)


if __name__ == "__main__":
    main()
