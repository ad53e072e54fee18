"""Issue 24, item 3 — the audit log's visible text never holds a position, nor the free text of a
confidential record; the chain still covers the full values, through a keyed digest.

Reproduction (failed before the fix): a wreck's `notes` and `signalling` went into its audit row as
typed (only latitude/longitude were masked), so the admin read a buoy's coordinates on Auditoria and
in its export. Now every audit row is redacted where it is written (`db.audit.append`, for every
caller): the position fields anywhere in the record, and the free texts that may describe a spot
(a wreck's notes and signalling, a found thing's place and notes) read "sigilosa"; the row keeps
`sigilo`, an HMAC-SHA256 of the masked values under a secret of the database (never shown, never
in the log), so whoever holds the database can still prove what was written. Rows written before
the fix are masked when read (page, detail, export).
"""
from __future__ import annotations

import io
import json
import zipfile
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import page_as, texts
from valuation.db import audit, audit_log
from valuation.db.store import Store
from valuation.exports import to_csv_bytes, to_xlsx_bytes
from valuation.inventory import found_things
from valuation.oversight import audit_text
from valuation.registry import wrecks

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]

SPOT = "23°41,37'S 042°12,86'W"                 # what a buoy's description says
WRECK = {"code": "NAU-2020-77", "name": "Balsa Teste", "hull_material": "aço", "casualty_year": 2020,
         "casualty_type": "naufrágio", "lat_deg": 23, "lat_min": "41.37", "lat_hem": "S", "lon_deg": 42,
         "lon_min": "12.86", "lon_hem": "W", "datum": "WGS-84", "office_code": "CPRJ", "situation": "soçobrada",
         "notes": f"Casco a 30 m a NE da boia em {SPOT}.", "signalling": f"Boia cardinal norte em {SPOT}"}
FOUND = {"office_code": "CPRJ", "description": "Ânfora de cerâmica", "place": f"Praia, a 200 m de {SPOT}",
         "collected_on": date(2025, 5, 2), "finder_name": "José Pescador", "notes": f"Achada perto de {SPOT}."}
LEAKS = ("23°41", "41,37", "41.37", "12,86", "12.86")


def _leaks(text: str) -> list[str]:
    return [w for w in LEAKS if w in text]


def _write(world: Any) -> None:
    wrecks.create_wreck(world.store, world.principal("dpc"), WRECK)
    found_things.register_found_thing(world.store, world.principal("dpc"), FOUND, today=date(2025, 6, 1))


def _surfaces(world: Any) -> dict[str, str]:
    """Everything the admin can read of the log: the stored rows (the page's source), the readable
    table, the detail of each record, and the CSV and XLSX exports."""
    s, admin = world.store, world.principal("admin")
    rows = audit_log.export_audit(s, admin)
    frame = audit_text.readable(rows, names={}, with_hash=True)
    details = [" ".join(" ".join(c) for c in audit_text.changes(r["action"], r["before_json"], r["after_json"],
                                                                entity=r["entity"]))
               for r in rows.to_dict("records")]
    with zipfile.ZipFile(io.BytesIO(to_xlsx_bytes({"Auditoria": frame}))) as z:
        xlsx = z.read("xl/sharedStrings.xml").decode("utf-8")
    return {"stored rows": rows.to_csv(), "readable table": frame.to_csv(), "record detail": "\n".join(details),
            "CSV export": to_csv_bytes(frame).decode("utf-8-sig"), "XLSX export": xlsx}


def test_a_position_in_free_text_never_reaches_what_the_admin_reads(small_world: Any) -> None:
    _write(small_world)
    for surface, text in _surfaces(small_world).items():
        TAMPER.count(f"audit-redaction:{surface}", outcome="masked" if not _leaks(text) else "leaked")
        assert not _leaks(text), (surface, _leaks(text))
    row = small_world.store.fetch_one("SELECT action, entity, after_json FROM audit_log WHERE entity = 'wreck'")
    shown = dict((label, after) for label, _b, after in audit_text.changes(row["action"], None, row["after_json"],
                                                                        entity=row["entity"]))
    assert shown["Observações"] == shown["Sinalização"] == shown["Latitude (graus)"] == "sigilosa"
    assert shown["Nome"] == "Balsa Teste"                     # what is not confidential still reads


def test_the_auditoria_page_shows_no_position(small_world: Any) -> None:
    _write(small_world)
    small_world.store.close()
    page = page_as(small_world.path, small_world.principal("admin"), "audit")
    shown = "\n".join([texts(page), *[t.value.to_csv() for t in page.table]])
    assert "Coisa achada registrada" in shown and "Cadastro" in shown and not _leaks(shown), _leaks(shown)


def test_the_chain_still_covers_the_masked_values(small_world: Any) -> None:
    _write(small_world)
    s = small_world.store
    after = json.loads(s.scalar("SELECT after_json FROM audit_log WHERE entity = 'wreck'"))
    assert after["notes"] == after["signalling"] == after["lat_min"] == "sigilosa"
    masked = {k: v for k, v in {"notes": WRECK["notes"], "signalling": WRECK["signalling"]}.items()}
    cur = s.cursor()
    try:
        expected = audit.confidential_digest(cur, {**_stored_positions(s), **masked})
        other = audit.confidential_digest(cur, {**_stored_positions(s), **masked, "notes": "outra coisa"})
    finally:
        cur.close()
    assert after[audit.SIGILO_KEY] == expected != other
    assert audit.verify_chain(s)[0]
    shown = audit_text.summary("create", None, json.dumps(after), limit=50, entity="wreck")
    assert after[audit.SIGILO_KEY][:12] not in shown and "Sigilo" not in shown       # the digest is never shown


def _stored_positions(s: Store) -> dict[str, Any]:
    """The wreck's position as validated and stored (the values the audit row masked)."""
    row = s.fetch_one("SELECT lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, position_approximate "
                      "FROM wrecks WHERE code = ?", [WRECK["code"]])
    assert row is not None
    return dict(row)


def test_rows_written_before_the_fix_read_masked(small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log written by the previous version holds the notes in clear: the page and the exports mask them."""
    with monkeypatch.context() as m:
        m.setattr(audit, "redact", lambda _cur, _entity, record: record)
        _write(small_world)
    raw = small_world.store.fetch_one("SELECT after_json FROM audit_log WHERE entity = 'wreck'")["after_json"]
    assert SPOT in raw                                         # the old row, as it was written
    for surface, text in _surfaces(small_world).items():
        if surface == "stored rows":
            continue                                           # the chain keeps what it has; reading masks it
        TAMPER.count(f"audit-redaction:old rows:{surface}", outcome="masked" if not _leaks(text) else "leaked")
        assert not _leaks(text), (surface, _leaks(text))


def test_the_secret_is_kept_by_a_backup_and_never_in_the_log(small_world: Any, tmp_path: Path) -> None:
    from valuation.db import backup

    _write(small_world)
    s = small_world.store
    secret = s.scalar(f"SELECT secret FROM {audit.SECRET_TABLE}")
    assert secret and not s.scalar("SELECT count(*) FROM audit_log WHERE contains(coalesce(after_json, '') || "
                                   "coalesce(before_json, ''), ?)", [secret])
    backup.backup(s, tmp_path / "b")
    s.close()
    backup.restore(tmp_path / "b", tmp_path / "r.duckdb")
    with Store(tmp_path / "r.duckdb", read_only=True) as r:
        assert r.scalar(f"SELECT secret FROM {audit.SECRET_TABLE}") == secret
