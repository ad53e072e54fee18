"""The public route /verificar (issue 27, section 1): anyone, without login, checks a document's code.

    GET  /verificar                    the form (code, and a PDF to compare)
    GET  /verificar?codigo=XXXXX-XXXXX what the registry says of the code
    POST /verificar                    multipart: codigo + arquivo (a PDF, at most MAX_UPLOAD bytes):
                                       the same, and what the file is: the registered bytes (the first
                                       revision), a signed revision of them (its signatures listed: issue 43),
                                       or not the registered document (`valuation.signatures.file_check`)

It answers only the kind of document, its NUP, the issue date, the issuing office, the sha256, the CRC and
the signature status (`valuation.authenticity.registry.Answer`; SECURITY.md says why nothing more). An
unknown and a malformed code get the same Portuguese page, status and database round trip. Each address
is rate-limited (`valuation.authenticity.limiter`, like the login's throttle: a lookup is counted as a
failure before it is made, and given back when its code is found), and the lookups it has in flight are
bounded (issue 45, item 5), and so are the uploads, per address and in all — refused before a byte of the
body is read (item 6). Every 429 says when to come back (`Retry-After`). Every value shown is
HTML-escaped; the service's strict headers (service/middleware.py) apply, and the page has no script.
"""
from __future__ import annotations

import dataclasses
import hashlib
import html
import math
from datetime import datetime
from typing import Any

from anyio import to_thread
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from service import state
from valuation.attachments.kinds import MAX_FILE_BYTES
from valuation.authenticity import limiter, registry
from valuation.authenticity.codes import grouped, parse_code
from valuation.authenticity.limiter import Limiter, Slots
from valuation.core import clock
from valuation.core.money import format_date_br
from valuation.partition import statement_reads
from valuation.signatures import file_check
from valuation.signatures import records as signature_records

MAX_UPLOAD = MAX_FILE_BYTES          # 25 MiB, as any attachment
UNKNOWN = ("Código não encontrado. Confira o código impresso no rodapé do documento "
           "(dez caracteres, por exemplo ABCDE-12345) e tente de novo.")
LIMITED = "Muitas consultas deste endereço. Tente novamente a partir de {at} (horário de Brasília)."
TOO_BIG = f"Arquivo grande demais: o limite é {MAX_UPLOAD // (1024 * 1024)} MB."
NO_LENGTH = "Envie o arquivo pelo formulário desta página (tamanho do envio não informado)."
BUSY = ("Há consultas demais deste endereço em andamento, ou arquivos demais sendo conferidos agora. Tente de novo "
        "em alguns segundos.")
LIMITER = Limiter()
LOOKUPS = Slots(limiter.LOOKUPS_IN_FLIGHT)
UPLOADS = Slots(limiter.UPLOADS_IN_FLIGHT, limiter.UPLOADS_IN_ALL)
_NO_CODE = "##########"              # looked up for a malformed code: the same round trip, never found


def page_document(body: str) -> str:
    """The whole page around `body`: the Navy's and the DPC's heading (issue 43, item 12), no script."""
    return ("<!doctype html><html lang=\"pt-BR\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
           "content=\"width=device-width, initial-scale=1\"><title>Verificação de documento</title>"
           "<style>body{font-family:sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}"
           "th{text-align:left;padding-right:1rem;vertical-align:top}td{word-break:break-all}"
           ".aviso{padding:.6rem;border:1px solid #b00;color:#800}.ok{padding:.6rem;border:1px solid #070}"
           ".orgao{margin:0;color:#444;font-size:.95rem;letter-spacing:.02em}"
           "</style></head><body><header><p class=\"orgao\"><strong>MARINHA DO BRASIL</strong></p>"
           "<p class=\"orgao\">Diretoria de Portos e Costas (DPC)</p></header>"
           "<h1>Verificação de autenticidade de documento</h1>" + body + "</body></html>")


def _page(body: str, status: int = 200) -> Response:
    response = HTMLResponse(page_document(body), status_code=status)
    response.headers["Cache-Control"] = "no-store"
    return response


def _forms(code: str) -> str:
    value = html.escape(code, quote=True)
    return ("<form method=\"get\" action=\"/verificar\"><p><label>Código de verificação "
            f"<input name=\"codigo\" value=\"{value}\" maxlength=\"64\" required></label> "
            "<button>Consultar</button></p></form>"
            "<form method=\"post\" action=\"/verificar\" enctype=\"multipart/form-data\">"
            f"<input type=\"hidden\" name=\"codigo\" value=\"{value}\"><p><label>Conferir o arquivo (PDF) "
            "<input type=\"file\" name=\"arquivo\" accept=\"application/pdf\" required></label> "
            "<button>Conferir</button></p></form>")


def answer_html(answer: registry.Answer) -> str:
    rows = [("Código", grouped(answer.code)), ("Documento", answer.kind_label), ("NUP", answer.nup or "—"),
            ("Emitido em", format_date_br(answer.issued_on)), ("Emitido por", answer.office),
            ("Resumo SHA-256 do arquivo", answer.sha256), ("CRC", answer.crc),
            ("Assinatura eletrônica", answer.signature)]
    if answer.standing is not None:
        rows.insert(2, ("Situação", answer.standing))
    cells = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return f"<p>Este código corresponde a um documento emitido por este sistema.</p><table>{cells}</table>"


def _limited(until: datetime, now: datetime) -> Response:
    at = clock.brasilia(until)
    response = _page(f"<p class=\"aviso\">{html.escape(LIMITED.format(at=f'{at:%d/%m/%Y %H:%M:%S}'))}</p>", 429)
    response.headers["Retry-After"] = str(max(1, math.ceil((until - now).total_seconds())))
    return response


def _busy() -> Response:
    response = _page(f"<p class=\"aviso\">{html.escape(BUSY)}</p>", 429)
    response.headers["Retry-After"] = str(limiter.BUSY_RETRY_S)
    return response


def _store() -> Any:
    svc = state.current()
    if svc is None:
        raise RuntimeError("the service is not running")
    return svc.store


async def _lookup(typed: str) -> registry.Answer | None:
    store = _store()
    probe = typed if parse_code(typed) is not None else _NO_CODE
    return await to_thread.run_sync(lambda: with_standing(store, with_signatures(store, registry.lookup(store, probe))))


def with_standing(store: Any, answer: registry.Answer | None) -> registry.Answer | None:
    """A statement's answer says whether it is in force or was replaced by a later version (issue 43, item 12: a
    superseded statement read as any other); only the version and its day, nothing of what it says."""
    if answer is None or answer.kind != "statement":
        return answer
    record = registry.record_of(store, answer.code)
    later = None if record is None else statement_reads.superseding_version(store, record[1])
    if later is None:
        return dataclasses.replace(answer, standing="em vigor (nenhuma versão posterior emitida)")
    return dataclasses.replace(answer, standing=f"SUBSTITUÍDO pela versão {later[0]} deste demonstrativo, emitida em "
                                                f"{format_date_br(later[1])}: este documento não está mais em vigor")


def with_signatures(store: Any, answer: registry.Answer | None) -> registry.Answer | None:
    """The answer with the document's signature status ('assinado por N de M', valuation.signatures.records):
    authenticity does not know the signatures, the route joins them. Only the count: no signer's name."""
    if answer is None:
        return None
    status = signature_records.signature_status(store, answer.code)
    if status is None or not status.required:
        return answer
    return dataclasses.replace(answer, signature=status.text + (" (completo)" if status.complete else ""))


async def verify_page(request: Request) -> Response:
    client = request.client.host if request.client else None
    if request.method == "POST":
        return await _verify_upload(request, client)
    typed = request.query_params.get("codigo")
    if typed is None:
        return _page("<p>Informe o código de verificação impresso no rodapé do documento, ou leia o QR.</p>"
                     + _forms(""))
    if not LOOKUPS.take(client):
        return _busy()
    try:
        now = clock.now_utc()
        ticket = LIMITER.reserve(client, now)
        if isinstance(ticket, datetime):
            return _limited(ticket, now)
        answer = None
        try:
            answer = await _lookup(typed[:64])
        finally:
            LIMITER.settle(ticket, failed=answer is None)
    finally:
        LOOKUPS.give(client)
    if answer is None:
        return _page(f"<p class=\"aviso\">{html.escape(UNKNOWN)}</p>" + _forms(typed[:64]), 404)
    return _page(answer_html(answer) + _forms(grouped(answer.code)))


async def _read_upload(request: Request) -> tuple[str, bytes] | str:
    """(typed code, file bytes) of the form, or the Portuguese refusal."""
    length = request.headers.get("content-length")
    if length is None or not length.isdigit():
        return NO_LENGTH
    if int(length) > MAX_UPLOAD + 64 * 1024:
        return TOO_BIG
    async with request.form(max_files=1, max_fields=2, max_part_size=1024) as form:
        typed, upload = form.get("codigo"), form.get("arquivo")
        if not isinstance(typed, str) or not isinstance(upload, UploadFile):
            return "Informe o código e escolha o arquivo PDF."
        data = await upload.read(MAX_UPLOAD + 1)
    if len(data) > MAX_UPLOAD:
        return TOO_BIG
    return typed[:64], data


async def _verify_upload(request: Request, client: str | None) -> Response:
    if not LOOKUPS.take(client):
        return _busy()
    try:
        if not UPLOADS.take(client):          # before a byte of the body is read
            return _busy()
        try:
            return await _checked_upload(request, client)
        finally:
            UPLOADS.give(client)
    finally:
        LOOKUPS.give(client)


async def _checked_upload(request: Request, client: str | None) -> Response:
    now = clock.now_utc()
    ticket = LIMITER.reserve(client, now)
    if isinstance(ticket, datetime):
        return _limited(ticket, now)
    answer, looked_up = None, False
    try:
        read = await _read_upload(request)
        if isinstance(read, str):                          # no code was looked up: nothing counted
            return _page(f"<p class=\"aviso\">{html.escape(read)}</p>" + _forms(""), 413 if read == TOO_BIG else 400)
        typed, data = read
        looked_up = True
        answer = await _lookup(typed)
    finally:
        LIMITER.settle(ticket, failed=looked_up and answer is None)
    if answer is None:
        return _page(f"<p class=\"aviso\">{html.escape(UNKNOWN)}</p>" + _forms(typed), 404)
    store = _store()
    checked = await to_thread.run_sync(lambda: file_check.check_file(store, answer.code, data))
    return _page(verdict_html(checked, hashlib.sha256(data).hexdigest()) + answer_html(answer)
                 + _forms(grouped(answer.code)))


def verdict_html(checked: file_check.FileVerdict | None, digest: str) -> str:
    """What the page says of the file sent (issue 43, item 2: a valid signed revision is the registered act)."""
    if checked is not None and checked.kind == file_check.REGISTERED:
        return ("<p class=\"ok\">O arquivo enviado é o documento registrado com este código, na sua primeira "
                "revisão: os bytes emitidos pelo sistema, antes de qualquer assinatura (o resumo SHA-256 registrado "
                "na emissão).</p>")
    lines = "" if checked is None or not checked.signatures else (
        "<p>Assinaturas contidas no arquivo enviado:</p><ul>"
        + "".join(f"<li>{html.escape(line)}</li>" for line in checked.signatures) + "</ul>")
    if checked is not None and checked.kind == file_check.SIGNED and checked.progress is not None:
        return ("<p class=\"ok\">O arquivo enviado é o documento registrado com este código, com assinaturas "
                f"eletrônicas acrescentadas sem alterar o conteúdo: {html.escape(checked.progress.text)}.</p>"
                + lines)
    why = "" if checked is None or not checked.reasons else (
        " Motivo: " + html.escape("; ".join(checked.reasons)) + ".")
    return ("<p class=\"aviso\">O arquivo enviado NÃO é o documento registrado com este código: seu resumo "
            f"SHA-256 é {html.escape(digest)}. Ele pode ter sido alterado depois da emissão.{why}</p>" + lines)
