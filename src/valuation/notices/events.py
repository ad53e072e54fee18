"""The events people are told of, each one notice per person and event (docs/decisions/060-notices.md). Every
function takes the open write `tx` of the act (so the notice commits with it), writes through `notify` and
returns how many notices it wrote. The text says what happened and where to look — never a position, an amount
or an open round's values —, in pt-BR, its times in the office's time zone.

Wired in the acts:
    round_opened(tx, round_id=…, items=…, opened_by=…)        commission.rounds.open_round — the members
    minutes_to_sign(tx, round_id=…, signers=…)                 commission.minutes (the first issue) — its signers
    decision_published(tx, round_id=…)                         commission.rounds.publish_round — the company
    statement_issued(tx, statement_id=…)                       partition.statements.issue_statement — the company
    request_received(tx, request_id=…, office_code=…, …)       proceedings.requests.file_request — the office
Wired in the daily job (valuation.jobs.notices_daily):
    values_missing(tx, round_id=…, missing={member: items})    a round open `REMINDER_DAYS` days — each member behind
    deadline_near(tx, deadline_key=…, organisation_id=…, …)    a company's deadline due soon — the company
    authority_deadline_near(tx, case_key=…, office_code=…, …)  what the Authority owes, due soon — the office
Hooks for the acts of issue 42's items 1–3 (their writer calls them in its write):
    intimation_issued(tx, intimation_key=…, organisation_id=…, act=…, nup=…, period=…, link=…)   the company
    filing_received(tx, filing_key=…, office_code=…, what=…, nup=…, filer=…, link=…)             the office
    decision_notified(tx, decision_key=…, organisation_id=…, decision=…, nup=…, link=…)         the company
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any

from valuation.core import clock
from valuation.core.money import format_count, format_date_br
from valuation.notices import recipients
from valuation.notices.notify import notify
from valuation.notices.text import confidential, event_key, one_line

REMINDER_DAYS = 7   # a round open this many days: each member still missing items is reminded, once per round
_PAGE_NAMES = {"commission": "Avaliação da Comissão", "decisions": "Decisões publicadas",
               "statements": "Demonstrativos", "deadlines": "Prazos"}


def _name(text: object, fallback: str) -> str:
    """A name a user wrote, on one line — or `fallback` when it reads like an amount or a position (a notice
    never carries one; the name is no reason to refuse the act)."""
    flat = one_line(text or "", 120)
    return flat if flat and confidential(flat) is None else fallback


def _when(at: datetime) -> str:
    return clock.moment_text(at, zone=True)


def _items(n: int) -> str:
    return f"{format_count(n)} {'item' if n == 1 else 'itens'}"


def _round(tx: Any, round_id: int) -> dict[str, Any]:
    row = tx.fetch_one("SELECT r.number, r.opened_at, r.contract_id, c.code, c.organisation_id, w.name AS wreck "
                       "FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id "
                       "JOIN wrecks w ON w.id = c.wreck_id WHERE r.id = ?", [int(round_id)])
    if row is None:
        raise ValueError(f"no round {round_id}")
    row["code"] = _name(row["code"], f"nº {row['contract_id']}")
    row["wreck"] = _name(row["wreck"], "do contrato")
    return row


# -- the Commission's members ----------------------------------------------------------------------------------
def round_opened(tx: Any, *, round_id: int, items: int, opened_by: int | None = None) -> int:
    """Round `round_id` (of `items` items) was opened: every member of the panel but the one who opened it."""
    r = _round(tx, round_id)
    who = [m for m in recipients.commission_members(tx) if m != opened_by]
    return notify(tx, event_key("round_opened", int(round_id)), who, "round_opened",
                  f"Rodada {r['number']} aberta — contrato {r['code']}",
                  f"A Presidência da Comissão abriu em {_when(r['opened_at'])} a rodada {r['number']} de avaliação "
                  f"do contrato {r['code']} (naufrágio {r['wreck']}), com {_items(items)}. Registre o seu voto e o "
                  f"seu valor de cada item na página {_PAGE_NAMES['commission']}.", "commission")


def values_missing(tx: Any, *, round_id: int, missing: Mapping[int, tuple[int, int]]) -> int:
    """Round `round_id` has been open `REMINDER_DAYS` days and each member of `missing` (user id → (items without
    their entry, items of the round)) has not assessed every item: one reminder per round and member."""
    r = _round(tx, round_id)
    opened = format_date_br(clock.today_brasilia(clock.aware(r["opened_at"])))
    written = 0
    for member, (left, total) in sorted(missing.items()):
        if left <= 0:
            continue
        written += notify(tx, event_key("values_missing", int(round_id)), [member], "values_missing",
                          f"Rodada {r['number']} do contrato {r['code']}: avaliações pendentes",
                          f"A rodada {r['number']} do contrato {r['code']} está aberta desde {opened}, e você ainda "
                          f"não registrou voto nem valor em {format_count(left)} de {_items(total)}. Registre-os na "
                          f"página {_PAGE_NAMES['commission']} antes do encerramento da rodada.", "commission")
    return written


def minutes_to_sign(tx: Any, *, round_id: int, signers: Iterable[int]) -> int:
    """The minutes of round `round_id` were issued: each required signer (its president and the members who took
    part) is told once that they await their signature — later issues of the same minutes write nothing."""
    r = _round(tx, round_id)
    return notify(tx, event_key("minutes_to_sign", int(round_id)), list(signers), "act_to_sign",
                  f"Ata da rodada {r['number']} do contrato {r['code']}: assinatura pendente",
                  f"A ata da rodada {r['number']} de avaliação do contrato {r['code']} foi emitida em "
                  f"{_when(tx.store.now())} e aguarda a sua assinatura eletrônica. Baixe-a na página "
                  f"{_PAGE_NAMES['commission']} (aba Ata), assine-a com o seu certificado digital e envie o arquivo "
                  "assinado na mesma aba.", "commission")


# -- the companies ---------------------------------------------------------------------------------------------
def decision_published(tx: Any, *, round_id: int) -> int:
    """The decisions of round `round_id` were published: the people of the company that holds its contract."""
    r = _round(tx, round_id)
    who = recipients.company_people(tx, r["organisation_id"])
    return notify(tx, event_key("decision_published", int(round_id)), who, "decision_published",
                  f"Decisões da Comissão publicadas — contrato {r['code']}",
                  f"A Comissão de Avaliação publicou em {_when(tx.store.now())} as decisões da rodada {r['number']} "
                  f"sobre os bens do contrato {r['code']} (naufrágio {r['wreck']}). A classificação e o valor de "
                  f"cada bem estão na página {_PAGE_NAMES['decisions']}.", "decisions")


def statement_issued(tx: Any, *, statement_id: int) -> int:
    """Partition statement `statement_id` was issued: the people of the company that holds its contract."""
    s = tx.fetch_one("SELECT s.number, s.version, s.created_at, s.contract_id, c.code, c.organisation_id "
                     "FROM statements s JOIN contracts c ON c.id = s.contract_id WHERE s.id = ?", [int(statement_id)])
    if s is None:
        raise ValueError(f"no statement {statement_id}")
    code, number = _name(s["code"], f"nº {s['contract_id']}"), _name(s["number"], "")
    replaces = f", que substitui a versão {int(s['version']) - 1}" if int(s["version"]) > 1 else ""
    who = recipients.company_people(tx, s["organisation_id"])
    return notify(tx, event_key("statement_issued", int(statement_id)), who, "statement_issued",
                  f"Demonstrativo de partilha {number} v{s['version']} emitido — contrato {code}",
                  f"A DPC emitiu em {_when(s['created_at'])} o demonstrativo de partilha {number}, versão "
                  f"{s['version']}{replaces}, do contrato {code}. O demonstrativo e o seu PDF estão na página "
                  f"{_PAGE_NAMES['statements']}.", "statements")


def deadline_near(tx: Any, *, deadline_key: str, organisation_id: int, label: str, subject: str, due: date,
                  reason: str, basis: str) -> int:
    """A deadline of the company `organisation_id` is due soon (the engine's state 'due_soon'): its people, once per
    deadline (its engine key) and state."""
    label, what = _name(label, "Prazo"), _name(subject, "")
    who = recipients.company_people(tx, organisation_id)
    return notify(tx, event_key("deadline", deadline_key, "due_soon"), who, "deadline_near",
                  f"Prazo a vencer em {format_date_br(due)}: {label}",
                  f"{label}{' — ' + what if what else ''}. Vence em {format_date_br(due)} ({_name(reason, '')}). "
                  f"Fundamento: {_name(basis, '—')}. Veja a página {_PAGE_NAMES['deadlines']}.", "deadlines")


# -- the offices -------------------------------------------------------------------------------------------
def authority_deadline_near(tx: Any, *, case_key: str, office_code: str, label: str, case: str, due: date,
                            basis: str) -> int:
    """Something the Authority owes in a case of `office_code` is due soon: the office's officers and the DPC
    users who follow it, once per case key (request, appeal, decision or act, and the period) and state."""
    label, case = _name(label, "Prazo da Autoridade"), _name(case, "")
    who = recipients.office_people(tx, office_code)
    return notify(tx, event_key("authority", case_key, "due_soon"), who, "authority_deadline_near",
                  f"Prazo da Autoridade a vencer em {format_date_br(due)}: {label}",
                  f"{label}{' — ' + case if case else ''}. Vence em {format_date_br(due)}. Fundamento: "
                  f"{_name(basis, '—')}. Veja “O que a Autoridade deve” na página {_PAGE_NAMES['deadlines']}.",
                  "deadlines")


def request_received(tx: Any, *, request_id: int, office_code: str, matter: str, wreck_code: str,
                     nup: str | None, recorded_by: int | None = None) -> int:
    """Request `request_id` on `matter` (its pt-BR label) about wreck `wreck_code` was recorded at office
    `office_code` (proceedings.requests.file_request): the office's officers and DPC — but the one who recorded
    it —, once per request. Its periods are the Authority's from then on."""
    matter, wreck = _name(matter, "requerimento"), _name(wreck_code, "")
    who = [p for p in recipients.office_people(tx, office_code) if p != recorded_by]
    number = f"nº {int(request_id)}" + (f" (NUP {_name(nup, '')})" if nup and _name(nup, "") else "")
    return notify(tx, event_key("request_received", int(request_id)), who, "filing_received",
                  f"Requerimento recebido: {matter}",
                  f"O requerimento {number} — {matter}{', naufrágio ' + wreck if wreck else ''} — foi registrado "
                  f"em {_when(tx.store.now())} na Capitania {_name(office_code, '')}. Os prazos da Autoridade "
                  f"correm a partir do protocolo: veja “O que a Autoridade deve” na página "
                  f"{_PAGE_NAMES['deadlines']}.", "deadlines")


def filing_received(tx: Any, *, filing_key: str, office_code: str, what: str, nup: str | None, filer: str,
                    link: str = "deadlines") -> int:
    """HOOK (issue 42 item 1): a filing `what` ('Requerimento de autorização', 'Resposta à intimação nº 3') by
    `filer` (the company's name) reached office `office_code`, in process `nup`: the office's officers and the DPC
    users who follow it. `filing_key` is the filing's own stable id ('filing:57'); `link` the page of the office's
    queue."""
    what, filer = _name(what, "Documento protocolado"), _name(filer, "uma empresa")
    who = recipients.office_people(tx, office_code)
    return notify(tx, event_key("filing_received", filing_key), who, "filing_received",
                  f"Protocolo recebido: {what}",
                  f"{filer} protocolou em {_when(tx.store.now())}: {what}"
                  f"{' (NUP ' + _name(nup, '') + ')' if nup else ''}. O recibo foi emitido; o documento aguarda "
                  "exame na fila da Capitania.", link)


def intimation_issued(tx: Any, *, intimation_key: str, organisation_id: int, act: str, nup: str | None,
                      period: str | None = None, link: str = "deadlines") -> int:
    """HOOK (issue 42 item 3): an intimation of `act` ('Pedido de informações', 'Decisão do requerimento nº 12')
    was issued to company `organisation_id`, in process `nup`, opening `period` ('10 dias para recorrer, contados
    da ciência'): the company's people. The notice is not the ciência — opening the intimation is; it says so.
    `intimation_key` is the intimation's own stable id; `link` the page where it is opened."""
    act = _name(act, "Ato da Autoridade Naval")
    period_text = f" Prazo: {_name(period, '')}." if period and _name(period, "") else ""
    who = recipients.company_people(tx, organisation_id)
    return notify(tx, event_key("intimation_issued", intimation_key), who, "intimation_issued",
                  f"Intimação: {act}",
                  f"A Autoridade Naval expediu em {_when(tx.store.now())} uma intimação à sua empresa: {act}"
                  f"{' (NUP ' + _name(nup, '') + ')' if nup else ''}.{period_text} Abra a intimação no painel: a "
                  "ciência é registrada quando um representante a abre (ou, se ninguém a abrir, ao fim do prazo "
                  "que a lei fixa), e é dela que o prazo corre.", link)


def decision_notified(tx: Any, *, decision_key: str, organisation_id: int, decision: str, nup: str | None,
                      link: str = "deadlines") -> int:
    """HOOK (issue 42 item 3): `decision` ('Decisão do requerimento nº 12: deferido') was notified to company
    `organisation_id` in process `nup`: the company's people. `decision_key` is the decision's own stable id
    ('decision:9'); `link` the page where it is read."""
    decision = _name(decision, "Decisão da Autoridade Naval")
    who = recipients.company_people(tx, organisation_id)
    return notify(tx, event_key("decision_notified", decision_key), who, "decision_notified",
                  f"Decisão notificada: {decision}",
                  f"A Autoridade Naval notificou em {_when(tx.store.now())} à sua empresa: {decision}"
                  f"{' (NUP ' + _name(nup, '') + ')' if nup else ''}. Do recurso cabe o prazo que a decisão indica, "
                  "contado da ciência.", link)
