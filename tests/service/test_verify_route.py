"""The public route /verificar against the real service (uvicorn), without login (issue 27, section 1):
a known code, an unknown and a malformed one (the same answer), the genuine PDF and an altered one
uploaded, the rate limit per address; and the answer never shows the statement's amounts, company,
contract or a position."""
from __future__ import annotations

import shutil
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tests.support.partition import AS_OF, T1, prepare, ready_a1
from tests.support.service import running_service
from valuation.core.money import format_brl
from valuation.partition import statement_reads, statements


def _post(base: str, code: str, data: bytes) -> Any:
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"codigo\"\r\n\r\n{code}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"arquivo\"; filename=\"doc.pdf\"\r\n"
            f"Content-Type: application/pdf\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(base + "/verificar", data=body, method="POST",
                                 headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    try:
        return urllib.request.urlopen(req, timeout=60)
    except urllib.error.HTTPError as exc:
        return exc


def _read(resp: Any) -> tuple[int, str, Any]:
    return resp.status, resp.read().decode("utf-8"), resp.headers


def _issue(world: Any) -> dict[str, Any]:
    prepare(world)
    ready_a1(world)
    dpc = world.principal("dpc")
    draft = statements.create_draft(world.store, dpc, "A-1", as_of=AS_OF, now=T1)
    doc = statements.issue_statement(world.store, dpc, draft, now=T1)
    code = world.store.scalar("SELECT code FROM issued_documents WHERE record_id = ?", [doc.id])
    secrets_of_doc = [doc.organisation_name, f"Contrato {doc.contract_code}", doc.wreck_name, format_brl(doc.net),
                      format_brl(doc.gross), "R$", "°"]
    return {"doc": doc, "code": f"{code[:5]}-{code[5:]}", "pdf": statement_reads.statement_pdf(world.store, dpc,
                                                                                                  doc.id),
            "secrets": secrets_of_doc}


def test_the_public_route_answers_codes_and_uploads_and_limits_guessing(small_world: Any, tmp_path: Path) -> None:
    issued = _issue(small_world)
    small_world.store.close()
    db = tmp_path / "served.duckdb"
    shutil.copyfile(small_world.path, db)
    code, pdf = issued["code"], issued["pdf"]
    with running_service(db) as svc:
        status, page, headers = _read(svc.get("/verificar"))
        assert status == 200 and "Informe o código de verificação" in page and "<script" not in page
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"] and headers["X-Frame-Options"] == "DENY"
        assert headers["Cache-Control"] == "no-store"

        status, page, _ = _read(svc.get("/verificar?codigo=" + urllib.parse.quote(code.lower())))
        assert status == 200, page
        for shown in ("Demonstrativo de partilha", "Diretoria de Portos e Costas", issued["doc"].pdf_sha256,
                      "assinado por 0 de 1", code):
            assert shown in page, shown
        for hidden in issued["secrets"]:
            assert hidden not in page, hidden

        status, genuine, _ = _read(_post(svc.base, code, pdf))
        assert status == 200 and "é o documento registrado com este código, na sua primeira revisão" in genuine
        altered = pdf + b"\n% uma linha acrescentada depois da emissao\n"
        status, page, _ = _read(_post(svc.base, code, altered))
        assert status == 200 and "NÃO é o documento registrado" in page
        for hidden in issued["secrets"]:
            assert hidden not in genuine and hidden not in page, hidden

        status, unknown, _ = _read(svc.get("/verificar?codigo=ZZZZZ-ZZZZZ"))
        status2, malformed, _ = _read(svc.get("/verificar?codigo=" + urllib.parse.quote("<b>x</b>")))
        assert status == status2 == 404
        assert "Código não encontrado" in unknown and "Código não encontrado" in malformed
        assert "<b>x</b>" not in malformed and "&lt;b&gt;x&lt;/b&gt;" in malformed      # escaped, never markup

        answers = [_read(svc.get(f"/verificar?codigo=ZZZZZ-ZZZZ{n}"))[0] for n in range(4)]
        assert answers[:2] == [404, 404] and 429 in answers, answers            # 5 failures: the address waits
        status, page, _ = _read(svc.get("/verificar?codigo=" + urllib.parse.quote(code)))
        assert status == 429 and "Muitas consultas deste endereço" in page      # a known code too, meanwhile
        assert issued["doc"].pdf_sha256 not in page
