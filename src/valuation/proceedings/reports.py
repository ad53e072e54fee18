"""The documents a DPC office files about the requests of its process (issue 26, section 4).

- `authority_sections`: the Authority's own deadlines in an office's requests (overdue, due soon) and the
  parties' (Lei 9.784/1999 art. 44), as sections of the office's deadlines PDF
  (`valuation.deadlines.office_report.office_deadlines_pdf(..., extra=...)`): each row with its article and who
  owes it;
- `case_history_pdf`: one request's history — its NUP, office, parties, steps with their days, and the
  deadlines each step started with their bases and how they stand — as an issued PDF (verification code and CRC
  on every page, registered as 'case_history'); further sections (the case's decisions and appeals) come in
  `extra`, printed after the steps and deadlines, as `office_report.Section`s.

Access as the request's history (`requests.request_history`): DPC any case, an explorer its own organisation's
requests only (another's answers as missing); the requester's name only for those who may read the owners.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from valuation.authenticity import registry
from valuation.core.money import format_date_br
from valuation.db.access import Principal
from valuation.db.annulments import annulment_text
from valuation.deadlines.calendars import office_calendars
from valuation.deadlines.office_report import Section, office_label, print_sections
from valuation.deadlines.rules import deadline_state
from valuation.deadlines.states import STATE_HEADINGS, STATE_LABELS
from valuation.deadlines.views import due_text
from valuation.exports import PdfReport
from valuation.policies.defaults import PROCESS_KEYS
from valuation.policies.values import timelines, values_in_force
from valuation.proceedings import periods as pr
from valuation.proceedings import requests

if TYPE_CHECKING:
    from valuation.db.store import Store

NUP_SUBJECT = "request"       # the requests' subject in valuation.process.numbers
OWED_COLUMNS = ("O que fazer", "Requerimento / naufrágio", "Empresa", "Quem deve", "Vencimento", "Fundamento")
OWED_WIDTHS = (2.6, 2.6, 2.0, 1.5, 2.0, 3.6)
STEP_COLUMNS = ("Data", "Etapa", "Comparecimento ou diligência", "Motivação / observação")
STEP_WIDTHS = (1.2, 3.0, 1.8, 5.0)
DEADLINE_COLUMNS = ("Iniciado por", "Prazo", "Quem deve", "Vencimento", "Situação", "Fundamento")
DEADLINE_WIDTHS = (2.2, 2.4, 1.5, 1.7, 2.4, 3.4)
COUNT_COLUMNS = ("Prazo", "Contagem")
COUNT_WIDTHS = (2.2, 7.8)
PROCESS_COUNTING = ("Prazos do processo administrativo (Lei 9.784/1999): atos sem prazo específico em 5 dias (art. "
                    "24), parecer em 15 dias (art. 42), intimação com antecedência mínima de 3 dias úteis (arts. 26 "
                    "§2 e 41), alegações em 10 dias (art. 44), decisão em 30 dias da conclusão da instrução, "
                    "prorrogável uma vez por igual período com motivação (art. 49); contados na forma do art. 66.")


def nup_text(db: Store, user: Principal, request_id: int) -> tuple[str | None, str]:
    """(the request's NUP or None, what a document prints for it: the NUP, or why it has none) — the request's own
    or, for a licence request of the responsible, its licence's (`requests.request_history`: one document, one
    number)."""
    req = requests.request_history(db, user, request_id)["request"]
    return req["nup"], str(req["nup_shown"])


# -- the office's deadlines PDF: the Authority's own and the parties' in its requests ---------------------------
def _matter(matter_pt: str) -> str:
    return matter_pt.split(" (", 1)[0]


def owed_row(r: dict[str, Any], nup: str | None = None) -> tuple[str, ...]:
    """One `authority_deadlines` row as the office report prints it (OWED_COLUMNS)."""
    head = f"Requerimento nº {r['request_id']}" if r["request_id"] is not None else str(r["case_pt"]).capitalize()
    case = head + (f", NUP {nup}" if nup else "") + f" — {_matter(str(r['matter_pt']))} / {r['wreck']}"
    late = int(r.get("days_late") or 0)
    due = format_date_br(r["due"]) + (f" ({late} dia{'s' if late != 1 else ''} de atraso)" if late else "")
    return (str(r["label"]), case, str(r.get("organisation") or "—"), str(r["owed_by_pt"]), due, str(r["basis"]))


def owed_sections(rows: Sequence[dict[str, Any]], nups: dict[int, str] | None = None) -> list[Section]:
    """The Authority's overdue and due-soon deadlines, then the parties' (both states), by due date."""
    nups = nups or {}

    def section(heading: str, part: list[dict[str, Any]]) -> Section:
        part = sorted(part, key=lambda r: (r["due"], r["case_pt"]))
        return Section(f"{heading} ({len(part)})", tuple(owed_row(r, nups.get(r["request_id"])) for r in part),
                       OWED_COLUMNS, OWED_WIDTHS)

    busy = [r for r in rows if r["state"] in ("overdue", "due_soon")]
    mine = [r for r in busy if r["owed_by"] == pr.AUTHORITY]
    return [*(section(f"{STATE_HEADINGS[state]} — a Autoridade Naval deve, nos requerimentos e recursos",
                      [r for r in mine if r["state"] == state]) for state in ("overdue", "due_soon")),
            section("Prazos dos interessados nos requerimentos e recursos, vencidos e a vencer em breve",
                    [r for r in busy if r["owed_by"] == pr.PARTY])]


def authority_sections(store: Store, user: Principal, *, office: str, as_of: date) -> list[Section]:
    """The sections of `office`'s requests for its deadlines PDF on `as_of` (`owed_sections` of
    `requests.authority_deadlines`, the Authority's and the parties')."""
    rows = requests.authority_deadlines(store, user, as_of=as_of, office=office, owed_by=None)
    return owed_sections(rows, {r["request_id"]: r["nup"] for r in rows if r["request_id"] is not None and r["nup"]})


# -- one case's history ---------------------------------------------------------------------------------------
def _policy(store: Store) -> pr.PolicyAt:
    lines = timelines(store, PROCESS_KEYS)
    return lambda key, day: lines[key].at(day).legal()


def _started(d: pr.ProcessDeadline, filed_on: date) -> str:
    if d.started is None:
        return f"{pr.FILED_LABEL} em {format_date_br(filed_on)}"
    return f"{pr.STEP_LABELS[d.started.kind]} em {format_date_br(d.started.day)}"


def situation(d: pr.ProcessDeadline, as_of: date, decided_on: date | None, due_soon_days: int) -> str:
    """How one deadline of the case stands on `as_of` (pt-BR): met (on time or late), moot (the request was
    decided first), or its state with the days late."""
    due = d.deadline.due
    if d.met_on is not None and d.met_on <= as_of:
        late = (d.met_on - due).days if due is not None else 0
        return f"Cumprido em {format_date_br(d.met_on)}" + (f", com {late} dia{'s' if late != 1 else ''} de atraso"
                                                           if late > 0 else ", no prazo")
    if decided_on is not None and decided_on <= as_of:
        return f"Sem objeto: requerimento decidido em {format_date_br(decided_on)}"
    if due is None:
        return "Sem data"
    state = deadline_state(due, as_of, due_soon_days=due_soon_days)
    late = (as_of - due).days
    return STATE_LABELS[state].capitalize() + (f" há {late} dia{'s' if late != 1 else ''}" if state == "overdue"
                                               else "")


def history_sections(history: dict[str, Any], deadlines: Sequence[pr.ProcessDeadline], *, as_of: date,
                     due_soon_days: int) -> list[Section]:
    """The steps of the request (the filing first) and the deadlines each started, with their bases, how they
    stand on `as_of` and how each was counted."""
    req, steps = history["request"], history["steps"]
    filed = req["requested_on"]
    rows = [(format_date_br(filed), pr.FILED_LABEL, "—", str(req.get("note") or "—"))]
    rows += [(format_date_br(s["day"]), str(s["label"]),
              format_date_br(s["reference_day"]) if s.get("reference_day") else "—",
              " — ".join(str(v) for v in (s.get("reason"), s.get("note")) if v) or "—") for s in steps]
    # the steps annulled by mistake stay in the record, with their annulment (Lei 9.784/1999 art. 53)
    rows += [(format_date_br(s["day"]), f"{s['label']} (anulada; não conta)",
              format_date_br(s["reference_day"]) if s.get("reference_day") else "—",
              annulment_text(s["annulment"])) for s in history.get("annulled_steps", ())]
    decided_on = next((s["day"] for s in steps if s["kind"] == "decided"), None)
    owed = [(_started(d, filed), pr.PERIOD_LABELS[d.kind], pr.OWED_BY_LABELS[d.owed_by],
             due_text(d.deadline.due, d.deadline.moved_from), situation(d, as_of, decided_on, due_soon_days),
             d.deadline.basis) for d in deadlines]
    counted = [(f"{pr.PERIOD_LABELS[d.kind]} ({_started(d, filed)})", "\n".join(d.deadline.steps))
               for d in deadlines]
    return [Section(f"Etapas do processo ({len(rows)})", tuple(rows), STEP_COLUMNS, STEP_WIDTHS),
            Section(f"Prazos iniciados pelas etapas — situação em {format_date_br(as_of)} ({len(owed)})",
                    tuple(owed), DEADLINE_COLUMNS, DEADLINE_WIDTHS, note=PROCESS_COUNTING),
            Section("Contagem de cada prazo (Lei 9.784/1999 art. 66)", tuple(counted), COUNT_COLUMNS, COUNT_WIDTHS)]


def _parties(req: dict[str, Any]) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    if req.get("requester_id") is not None:
        out.append(("Responsável requerente", req.get("requester") or "responsável pelo bem (nome não exibido)"))
    if req.get("organisation_id") is not None:
        out.append(("Empresa requerente", req.get("organisation") or "—"))
    return out


def case_history_pdf(store: Store, user: Principal, request_id: int, *, as_of: date,
                     extra: Iterable[Section] = (), nup: str | None = None,
                     generated_at: datetime | None = None) -> bytes:
    """The history of request `request_id` on `as_of` as an issued PDF (kind 'case_history', its NUP in every
    page's footer when it has one); `extra` sections (decisions, appeals) follow the steps and deadlines. `nup`
    overrides the NUP looked up. Access: `requests.request_history`."""
    history = requests.request_history(store, user, request_id)
    req = history["request"]
    office = str(req["office_code"])
    label = office_label(store, office)
    given, printed = (nup, nup) if nup else (req["nup"], str(req["nup_shown"]))
    cal = office_calendars(store, [office], on=as_of)[office]
    deadlines = pr.request_deadlines(req["requested_on"], pr.as_steps(history["steps"]), cal, _policy(store))
    soon = int(values_in_force(store, ("due_soon_days",), as_of=as_of)["due_soon_days"])
    sections = [*history_sections(history, deadlines, as_of=as_of, due_soon_days=soon), *extra]
    stamp = registry.new_stamp(nup=given)
    report = PdfReport("Histórico do processo administrativo",
                       f"Requerimento nº {req['id']}" + (f" — NUP {given}" if given else "")
                       + f" — situação em {format_date_br(as_of)}",
                       orientation="L", generated_at=generated_at, stamp=stamp)
    report.key_values([("NUP", printed), ("Requerimento nº", str(req["id"])), ("Organização Militar", label),
                       ("Naufrágio", " — ".join(str(v) for v in (req["wreck"], req.get("wreck_name")) if v)),
                       ("Assunto", req["matter_pt"]), ("Protocolado em", req["requested_on"]), *_parties(req),
                       ("Etapa atual", pr.current_step(pr.as_steps([s for s in history["steps"]
                                                                    if s["day"] <= as_of]))),
                       ("Data de referência", as_of)])
    print_sections(report, sections)
    pdf = report.bytes()
    return registry.issue(store, user.username, stamp, pdf, kind="case_history",
                          record=("requests", int(req["id"]), None), office=label)
