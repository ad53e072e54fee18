"""Migration 085 numbers the acts already recorded as documents of their processes (issue 42 item 2), in the order
they were recorded: a request opened by the office is its process's first document, one opened by a filing has that
filing first; the decision on a request and its appeal follow in the request's process; a decision on a record of its
own (a preference ruling) opens its process."""
from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import duckdb
import pytest

from tests.support.seals_at import seals_of_schema
from valuation.db.store import Store
from valuation.process import documents

BEFORE = 84   # the last migration before 085


def test_the_acts_recorded_before_085_become_numbered_documents(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.duckdb"
    seals_of_schema(monkeypatch, BEFORE)
    with Store(path, migrate=False) as store:
        store.migrate(up_to=BEFORE)
    monkeypatch.undo()
    con = duckdb.connect(str(path))
    at = [datetime(2026, 3, d, 10) for d in range(1, 10)]
    con.execute("INSERT INTO offices (code, name, kind, state, city, naval_district) VALUES ('CPRJ', "
                "'Capitania dos Portos do Rio de Janeiro', 'CP', 'RJ', 'Rio de Janeiro', 1)")
    con.execute("INSERT INTO wrecks (id, code, name, hull_material, casualty_year, casualty_precision, casualty_type, "
                "lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, position_approximate, office_code, "
                "situation, visible_high_tide, visible_low_tide, protected_area, created_at) VALUES (1, 'NAU-1', "
                "'Vapor', 'ferro', 1890, 'year', 'naufrágio', 22, 0, 'S', 43, 0, 'W', 'WGS84', false, 'CPRJ', "
                "'soçobrada', false, false, false, ?)", [at[0]])
    for rid, when in ((1, at[0]), (2, at[1])):
        con.execute("INSERT INTO requests (id, office_code, wreck_id, matter, organisation_id, filed_on, recorded_by, "
                    "recorded_at) VALUES (?, 'CPRJ', 1, 'pesquisa', 1, ?, 'om', ?)", [rid, when.date(), when])
    # request 2 was opened by a filing (document 1 of its filings); request 1 by the office, then answered
    for fid, rid, no, kind, when in ((1, 2, 1, "requerimento", at[1]), (2, 1, 1, "informações", at[3])):
        con.execute("INSERT INTO filings (id, request_id, document_no, kind, subject, office_code, channel, "
                    "received_on, filed_by, filed_at) VALUES (?, ?, ?, ?, 'x', 'CPRJ', 'sistema', ?, 'exp', ?)",
                    [fid, rid, no, kind, when.date(), when])
    con.execute("INSERT INTO intimations (id, request_id, act, text, delivery, office_code, issued_by, issued_at, "
                "issued_on) VALUES (1, 1, 'information_requested', 'Plantas', 'sistema', 'CPRJ', 'om', ?, ?)",
                [at[2], at[2].date()])
    for did, kind, table, record, when in ((1, "request", "requests", 1, at[4]), (2, "preference", None, None, at[5])):
        con.execute("INSERT INTO administrative_decisions (id, kind, record_table, record_id, office_code, summary, "
                    "authority, decided_on, notice, notified_on, recorded_by, recorded_at) VALUES (?, ?, ?, ?, 'CPRJ', "
                    "'d', 'CP', ?, 'notificação', ?, 'dpc', ?)", [did, kind, table, record, when.date(), when.date(),
                                                                    when])
    for aid, did, when in ((1, 1, at[6]), (2, 2, at[7])):
        con.execute("INSERT INTO appeals (id, decision_id, instance, filed_on, appellant, grounds, on_time, "
                    "suspensive, recorded_by, recorded_at) VALUES (?, ?, 1, ?, 'Beta', 'g', true, false, 'dpc', ?)",
                    [aid, did, when.date(), when])
    con.close()
    with Store(path) as store:            # 085 applied
        def listed(process: documents.Process) -> list[tuple[int, str, int]]:
            return [(d["document_no"], d["subject"], d["subject_id"]) for d in documents.documents(store, process)]

        assert listed(("request", 1)) == [(1, "request", 1), (2, "intimation", 1), (3, "filing", 2),
                                          (4, "administrative_decision", 1), (5, "appeal", 1)]
        assert listed(("request", 2)) == [(1, "filing", 1)]
        assert listed(("administrative_decision", 2)) == [(1, "administrative_decision", 2), (2, "appeal", 2)]
        assert documents.documents(store, ("request", 1))[0]["day"] == date(2026, 3, 1)
        # an act loaded later as a plain row (the demo's) is filed after what its process has, once
        store.write("demo", lambda tx: tx.execute(
            "INSERT INTO appeals (id, decision_id, instance, filed_on, appellant, grounds, on_time, suspensive, "
            "recorded_by, recorded_at) VALUES (3, 1, 2, ?, 'Beta', 'g', true, false, 'dpc', ?)", [at[8].date(), at[8]]))
        assert store.write("demo", documents.document_missing) == 1
        assert store.write("demo", documents.document_missing) == 0
        assert listed(("request", 1))[-1] == (6, "appeal", 3)
