"""From a company's filing to its appeal, one process, in Debian's Chromium on the real service (issue 42, "Done when").

The database is the demo's copy; the people are README's demo logins: the representative of Arqueonautas
(exp.arqueonautica) and the officer of the Capitania dos Portos da Bahia (om.cpba). A local SMTP server (aiosmtpd)
receives the e-mails the service sends by itself (the job `notices_mail`, every minute here).

1. The representative files a request for a research licence on BA-001 with a PDF and gets the receipt: its code is
   verifiable at /verificar, and the file downloaded from "Meus protocolos" is the registered one.
2. The office sees it in its queue and asks for information with an intimation generated on Protocolo → Intimar.
3. The representative opens it — ciência expressa, recorded with the day and the person — and answers with a file.
4. The office decides (Prazos → Registrar etapa → Decidido) and intimates the decision.
5. The e-mails: the office told of each filing, the company of each intimation; read, with the NUP, no position.
6. Twelve days later (the service's clock moved forward; the machine's scheduler runs the day's job): the decision's
   intimation, never opened, has its ciência tácita on the tenth day (Lei 11.419/2006 art. 5 §3) and the appeal's 10
   days run from it; the company files its appeal on Protocolo, on time.
7. The NUP search opens the case: one NUP, its seven documents in order, from the first filing to the appeal.
"""
from __future__ import annotations

import re
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import duckdb
import pytest

from tests.support.attachments import pdf
from tests.support.browser import readme_password, wait_idle
from tests.support.db_copies import copy_database
from tests.support.service import running_service, smtp_env, smtp_server
from tests.support.walk import Walk, choose, fill, go, open_box, submit, walking

pytestmark = pytest.mark.browser
CODE = re.compile(r"\b([0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5})\b")
NUP = re.compile(r"\b(\d{5}\.\d{6}/\d{4}-\d{2})\b")
REP, OFFICER = "exp.arqueonautica", "om.cpba"
WRECK = "BA-001"                         # a wreck of the Capitania dos Portos da Bahia in the demo
LATER = 12                               # days the service's clock moves: past the 10 of the tacit ciência


def _upload(page: Any, name: str) -> None:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(
        {"name": name, "mimeType": "application/pdf", "buffer": pdf()})
    wait_idle(page)


def _tab(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    wait_idle(page)


def _file(page: Any, kind: str, subject: str, name: str, *, request_id: int | None = None) -> str:
    """On Protocolo → Protocolar: what is filed, its process (or the new request's wreck and matter), the subject and a
    PDF; the page's answer."""
    _tab(page, "Protocolar")
    choose(page, "O que é protocolado", kind)
    wait_idle(page)
    if request_id is None:
        fill(page, "Naufrágio", WRECK)
        choose(page, "Assunto do requerimento", "Licença de pesquisa")
    else:
        choose(page, "Processo (requerimento)", f"nº {request_id} ")
    wait_idle(page)
    fill(page, "Assunto", subject)
    _upload(page, name)
    submit(page, "Protocolar", "registrado: documento")
    return " ".join(page.get_by_text("registrado: documento").first.inner_text().split())


def _intimate(page: Any, request_id: int, act: str, text: str) -> str:
    go(page, "Protocolo")
    _tab(page, "Intimar")
    choose(page, "Processo (requerimento)", f"nº {request_id} ")
    choose(page, "Ato", act)
    page.get_by_role("textbox", name="O que a intimação comunica ou pede", exact=True).fill(text)
    choose(page, "Entrega", "Na caixa da empresa")
    submit(page, "Emitir a intimação", "emitida, código de verificação")
    return " ".join(page.get_by_text("emitida, código de verificação").first.inner_text().split())


def _grid(page: Any) -> str:
    """The text of the page's first table (a canvas: read from its cells' accessible elements)."""
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.locator('[role="gridcell"]').first.wait_for(state="attached")
    return " ".join(" ".join(grid.locator('[role="gridcell"], [role="columnheader"]').all_text_contents()).split())


def _intimations(page: Any) -> str:
    """The representative's intimations as its picker lists them: number, act and ciência."""
    go(page, "Protocolo")
    _tab(page, "Intimações")
    page.get_by_label("Intimação", exact=True).click()
    page.locator('[role="option"]').first.wait_for()
    said = " ".join(" ".join(page.locator('[role="option"]').all_text_contents()).split())
    page.keyboard.press("Escape")
    wait_idle(page)
    return said


def test_a_filing_its_intimations_the_decision_and_the_appeal_are_one_process(full_demo_db: Path,
                                                                              tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "walk.duckdb")
    shots = tmp_path / "shots"
    shots.mkdir()
    with walking(shots) as walk:
        with smtp_server() as box, running_service(db, env={**smtp_env(box), "VALUATION_NOTICES_EVERY": "1"}) as svc:
            walk.base = svc.base
            request_id, nup, issued_on = _first_days(walk, svc.base, tmp_path)
            _read_mails(box, nup)
        # the day's job (tacit ciências) at a time of the machine's clock after the start (a loaded machine starts
        # the service in ~10–30 s; a time already past when the scheduler starts would never fire)
        at = (datetime.now(ZoneInfo("America/Sao_Paulo")) + timedelta(seconds=70)).strftime("%H:%M:%S")
        with running_service(db, env={"VALUATION_NOTICES_AT": at}, clock_days=LATER) as svc:
            walk.base = svc.base
            _twelve_days_later(walk, request_id, nup, issued_on)
    _check_the_record(db, request_id, issued_on)


def _first_days(walk: Walk, base: str, tmp: Path) -> tuple[int, str, Any]:
    rep = walk.person(REP, readme_password(REP))
    go(rep, "Protocolo")
    said = _file(rep, "Requerimento (abre", "Licença de pesquisa no naufrágio BA-001", "pedido.pdf")
    request_id = int(re.search(r"requerimento nº (\d+)", said).group(1))          # type: ignore[union-attr]
    nup, code = NUP.search(said).group(1), CODE.search(said).group(1)                # type: ignore[union-attr]
    assert "documento 1 do requerimento" in said, said
    walk.shot(rep, "representante-protocolou")
    _tab(rep, "Meus protocolos")
    choose(rep, "Recibo de protocolo", "Protocolo nº ")
    with rep.expect_download() as got:
        rep.get_by_role("button", name="Baixar o recibo (PDF)").click()
    receipt = tmp / "recibo.pdf"
    got.value.save_as(str(receipt))
    verify = walk.person(REP, readme_password(REP))
    verify.goto(f"{base}/verificar?codigo={code}")
    verify.locator('input[name="arquivo"]').set_input_files(str(receipt))
    verify.get_by_role("button", name="Conferir", exact=True).click()
    verify.locator("table").wait_for()
    checked = " ".join(verify.locator("body").inner_text().split())
    assert "é o documento registrado com este código" in checked and "NÃO é o documento registrado" not in checked
    assert nup in checked, checked
    verify.context.close()

    office = walk.person(OFFICER, readme_password(OFFICER))
    go(office, "Protocolo")
    queue = _grid(office)
    assert "protocolo nº" in queue and f"requerimento nº {request_id}" in queue and nup in queue, queue
    walk.shot(office, "om-fila-de-protocolos")
    said = _intimate(office, request_id, "Pedido de informações", "Apresente as plantas do casco e o plano de "
                                                                  "mergulho.")
    assert "Intimação nº" in said, said

    listed = _intimations(rep)
    assert "aguardando ciência (tácita em" in listed, listed
    choose(rep, "Intimação", "Intimação nº")
    rep.get_by_role("button", name="Abrir a intimação").click()
    rep.get_by_role("button", name="Baixar a intimação (PDF)").wait_for()
    wait_idle(rep)
    listed = _intimations(rep)
    today = datetime.now(ZoneInfo("America/Sao_Paulo")).date()
    assert f"ciência expressa em {today:%d/%m/%Y}" in listed, listed
    walk.shot(rep, "representante-ciencia-expressa")
    said = _file(rep, "Informações ou documentos", "Plantas do casco e plano de mergulho", "plantas.pdf",
                 request_id=request_id)
    assert f"documento 3 do requerimento nº {request_id}, NUP {nup}" in said, said

    go(office, "Prazos")
    _tab(office, "O que a Autoridade deve")
    open_box(office, "Registrar etapa")
    choose(office, "Requerimento", f"nº {request_id} ")
    choose(office, "Etapa", "Decidido")
    submit(office, "Registrar etapa", f"Etapa registrada no requerimento nº {request_id}")
    said = _intimate(office, request_id, "Decisão do requerimento", "Licença de pesquisa deferida por 12 meses.")
    issued_on = today
    walk.shot(office, "om-intimou-a-decisao")
    office.context.close()
    rep.context.close()
    return request_id, nup, issued_on


OFFICE_MAIL, REP_MAIL = "m.peixoto@marinha.example", "teresa.vilasboas@arqueonautica.example"


def _read_mails(box: Any, nup: str) -> None:
    """The office's officer was told of the filings, the company's representative of the intimations (the job sends
    every minute: waited for, up to three runs)."""
    def text(msg: Any) -> str:
        return " ".join(msg.get_body(preferencelist=("plain",)).get_content().split())

    to: dict[str, list[str]] = {}
    for _ in range(36):
        to = {}
        for rcpt, msg in list(box.messages):
            for address in rcpt:
                to.setdefault(address, []).append(text(msg))
        if OFFICE_MAIL in to and "Decisão do requerimento" in " ".join(to.get(REP_MAIL, [])):
            break
        time.sleep(5)
    office, rep = " ".join(to.get(OFFICE_MAIL, [])), " ".join(to.get(REP_MAIL, []))
    assert "protocol" in office.lower() and nup in office, to
    assert "intimação" in rep.lower() and nup in rep, to
    for body in (office, rep):        # never a position
        assert not re.search(r"\d+°\s*\d", body) and "latitude" not in body.lower()


def _twelve_days_later(walk: Walk, request_id: int, nup: str, issued_on: Any) -> None:
    tacit = issued_on + timedelta(days=10)
    rep = walk.person(REP, readme_password(REP))
    for _ in range(60):                 # the day's job runs a few seconds after the start (VALUATION_NOTICES_AT)
        listed = _intimations(rep)
        if f"ciência tácita em {tacit:%d/%m/%Y}" in listed:
            break
        rep.wait_for_timeout(2000)
        rep.reload()
        wait_idle(rep)
    assert f"ciência tácita em {tacit:%d/%m/%Y}" in listed, listed
    walk.shot(rep, "representante-ciencia-tacita")
    said = _file(rep, "Recurso contra a decisão", "Recurso quanto ao prazo da licença", "recurso.pdf",
                 request_id=request_id)
    assert f"documento 6 do requerimento nº {request_id}, NUP {nup}" in said, said
    walk.shot(rep, "representante-recorreu")
    go(rep, "Prazos")
    open_box(rep, "Buscar processo pelo NUP")
    fill(rep, "NUP do processo", nup)
    rep.keyboard.press("Enter")
    rep.get_by_text(f"NUP {nup}").first.wait_for()
    wait_idle(rep)
    table = _grid(rep)
    order = [table.find(w) for w in ("Protocolo", "Intimação", "Decisão", "Recurso")]
    assert all(i >= 0 for i in order) and order == sorted(order), table
    walk.shot(rep, "representante-processo-pelo-nup")
    rep.context.close()


def _check_the_record(db: Path, request_id: int, issued_on: Any) -> None:
    """Read after the walk: one NUP, seven documents; the decision notified on the tacit day; the appeal on time."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        docs = con.execute("SELECT document_no, subject FROM process_documents WHERE process_subject = 'request' AND "
                           "process_id = ? ORDER BY document_no", [request_id]).fetchall()
        assert docs == [(1, "filing"), (2, "intimation"), (3, "filing"), (4, "intimation"),
                        (5, "administrative_decision"), (6, "filing"), (7, "appeal")]
        row = con.execute(
            "SELECT d.notified_on, a.on_time FROM administrative_decisions d JOIN appeals a ON a.decision_id = d.id "
            "WHERE d.record_table = 'requests' AND d.record_id = ?", [request_id]).fetchone()
        assert row is not None
        notified, on_time = row
        assert notified == issued_on + timedelta(days=10) and on_time is True
        kinds = [r[0] for r in con.execute("SELECT c.kind FROM intimation_ciencias c JOIN intimations i ON "
                                           "i.id = c.intimation_id WHERE i.request_id = ? ORDER BY i.id",
                                           [request_id]).fetchall()]
        assert kinds == ["expressa", "tácita"]
    finally:
        con.close()
