"""Every upload of a signed file is recorded with its outcome (issue 43, item 4): the uploads refused as "não é um
documento emitido para este registro" — an altered issued part, another document, a re-saved file, exactly the
substitution attempts — appeared nowhere (page, signatures table, audit). Each refusal now leaves a sealed row
(`signed_upload_refusals`, written by `valuation.signatures.records.record_refusal`), an audit entry, and a line on
the act's page. Real minutes and statement, the test PKI."""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pypdf
import pytest

from tests.signatures.conftest import issued_pdf
from tests.support.commission import run_round
from tests.support.partition import AS_OF, T1, prepare, ready_a1
from tests.support.pki import TestPki, sign
from tests.support.ui import open_tab, page_as, texts
from ui import signatures as signatures_ui
from valuation.attachments.kinds import MAX_FILE_BYTES
from valuation.commission import minutes
from valuation.db import seals
from valuation.partition import statement_reads, statements
from valuation.signatures import listing, uploads


def _resaved(data: bytes) -> bytes:
    """The issued PDF opened and saved again by a PDF tool: the same pages, other bytes."""
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _altered(data: bytes) -> bytes:
    """One byte of the issued part changed (inside the first page's content), then signed on top."""
    at = data.index(b"stream") + 40
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]


@pytest.fixture
def act(small_world: Any, pki: TestPki, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.delenv("VALUATION_TRUST_DIR", raising=False)
    panel, rid = run_round(small_world)
    pki.install(Path(small_world.path).resolve().parent / "trust")
    data = minutes.round_minutes_pdf(small_world.store, panel["pres"], rid)
    return {"panel": panel, "rid": rid, "pdf": data, "store": small_world.store, "world": small_world}


def test_the_substitution_attempts_are_recorded_audited_and_shown(act: dict[str, Any], pki: TestPki) -> None:
    store, pres, rid = act["store"], act["panel"]["pres"], act["rid"]
    attempts = {"outro documento": sign(issued_pdf(code="ZZZZZ99999"), pki.person("ana")),
                "regravado": sign(_resaved(act["pdf"]), pki.person("ana")),
                "parte emitida alterada": sign(_altered(act["pdf"]), pki.person("ana"))}
    for data in attempts.values():
        outcome = uploads.submit(store, pres, "assessment_rounds", rid, data)
        assert not outcome.accepted and outcome.lines == (uploads.NOT_THIS,)
    rows = store.fetch("SELECT record_table, record_id, document_id, code, reason, file_size, uploaded_by FROM "
                       "signed_upload_refusals ORDER BY id")
    assert [(r["record_table"], r["record_id"], r["document_id"], r["reason"], r["uploaded_by"]) for r in rows] == \
        [("assessment_rounds", rid, None, uploads.NOT_THIS, pres.username)] * 3
    assert [r["file_size"] for r in rows] == [len(d) for d in attempts.values()]
    audits = store.fetch("SELECT after_json FROM audit_log WHERE action = 'signed_upload_refused' ORDER BY id")
    assert len(audits) == 3 and json.loads(audits[0]["after_json"])["reasons"] == [uploads.NOT_THIS]
    assert seals.verify(store)[0]
    shown = listing.refusals_of(store, pres, "assessment_rounds", rid)
    assert len(shown) == 3 and {r.code for r in shown} == {"—"}
    assert listing.refusals_of(store, act["world"].principal("explorer_a"), "assessment_rounds", rid) == []
    store.close()
    at = page_as(act["world"].path, pres, "commission")
    open_tab(at, "commission", "Ata")
    assert not at.exception, [e.value for e in at.exception]
    assert "Envios recusados antes da conferência das assinaturas" in texts(at)
    frames = [df.value for df in at.dataframe if "Motivo" in df.value.columns and "Documento" in df.value.columns]
    assert frames and len(frames[0]) == 3


def test_a_file_too_large_is_recorded_too(act: dict[str, Any]) -> None:
    outcome = uploads.submit(act["store"], act["panel"]["pres"], "assessment_rounds", act["rid"],
                             act["pdf"] + b"\0" * MAX_FILE_BYTES)
    assert not outcome.accepted and "acima do limite de 25 MB" in outcome.lines[0]
    assert act["store"].scalar("SELECT count(*) FROM signed_upload_refusals") == 1


def test_a_refusal_raised_while_recording_names_the_act(small_world: Any, pki: TestPki) -> None:
    """An explorer may read its statement but not send it signed: the refusal is recorded with the act's code."""
    prepare(small_world)
    ready_a1(small_world)
    dpc, explorer = small_world.principal("dpc"), small_world.principal("explorer_a")
    draft = statements.create_draft(small_world.store, dpc, "A-1", as_of=AS_OF, now=T1)
    doc = statements.issue_statement(small_world.store, dpc, draft, now=T1)
    data = sign(statement_reads.statement_pdf(small_world.store, dpc, doc.id), pki.person("ana"))
    outcome = uploads.submit(small_world.store, explorer, "statements", doc.id, data)
    assert not outcome.accepted
    row = small_world.store.fetch_one("SELECT code, document_id, uploaded_by FROM signed_upload_refusals")
    assert row is not None and row["uploaded_by"] == explorer.username and row["document_id"] is not None
    assert row["code"] == small_world.store.scalar("SELECT code FROM issued_documents WHERE record_table = "
                                                   "'statements'")


def test_the_upload_box_lets_a_file_over_the_limit_reach_the_check_and_names_the_limit(act: dict[str, Any]) -> None:
    """Issue 43, item 8: a file over 25 MB showed only the browser's red icon and, on "Enviar", "Escolha o arquivo
    PDF assinado". The box now takes up to the server's 50 MB, so such a file reaches `uploads.submit` (refused,
    naming the limit: test above), and the empty box's warning says the limit."""
    act["store"].close()
    at = page_as(act["world"].path, act["panel"]["pres"], "commission")
    open_tab(at, "commission", "Ata")
    (box,) = at.get("file_uploader")
    assert box.proto.max_upload_size_mb * 1024 * 1024 > MAX_FILE_BYTES
    assert box.proto.max_upload_size_mb == signatures_ui.BOX_MB          # what the warning says is what the box takes
    next(b for b in at.button if b.label == "Enviar PDF assinado").click().run()
    warnings = " ".join(str(w.value) for w in at.warning)
    assert "até 25 MB" in warnings and "vermelho" in warnings, warnings
