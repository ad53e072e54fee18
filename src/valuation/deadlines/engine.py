"""The deadline engine over the database: every deadline of rules.md §7, with its state.

The rules themselves are the pure functions of `valuation.deadlines.rules` (one per rule,
each returning `Deadline(rule, due, basis, moved_from, steps)`); this module only
gathers their inputs from the store and states where each deadline stands on `as_of`.

Where the inputs come from
    contracts        starts_on / signed_on, expires_on, work_ended_on, cancelled_on, status, kind, office
    wrecks           casualty date (with its precision), owner_declared_lost,
                     owner_licence_requested, court_known_on; wreck_suspensions
    deadline_events  append-only events (EVENT_KINDS): monthly and final reports delivered,
                     start of operations, extension requested, notices published, recoveries on the
                     owner's account, excursions notified, wreck maps sent, the Maritime Court steps,
                     and `deadline_met` for any other deadline. A correction is a new row with
                     `supersedes` (and `voided` to withdraw).
    found_things     things found and handed in (`valuation.inventory.found_things`, migration 005):
                     collected_on starts the 30 unclaimed days; found_thing_events settle it
                     (reclaimed, declared lost, sold, sent to the Federal Revenue) and a sale starts
                     the 6 months of the proceeds (closed by proceeds_claimed / proceeds_to_union)
    deadline_waivers waivers (dispensas) with their reason, by deadline key
    policies         `due_soon_days`, `policy_days`, `court_pending_suspends_lapse`
                     (latest row; defaults in `valuation.policies.defaults`)

Nothing is materialised: every call recomputes from the current rows, so a new event
changes the result of the next call ("recompute when events change") and there is no
cache to invalidate. Speed comes from reading each table once (grouped in SQL), one
`BusinessCalendar` per office (`valuation.deadlines.calendars`, cached by content) and
memoising each rule per (calendar, input date): the monthly report of March at CPRJ is
computed once for all contracts of CPRJ.

States (rules.md §7): `upcoming`, `due_soon` (policy `due_soon_days`), `overdue`, `met`
(with the date; `late` when met after the due date), `waived` (a DPC waiver or a fact
that makes the deadline moot, with the reason) and `suspended` (a suspended contract, or
a suspension of the five-year lapse running on `as_of`, with the reason). The first
five come from `valuation.deadlines.rules.deadline_state`.

Access: dpc reads every deadline; an explorer only the deadlines of its own
organisation's contracts (`valuation.db.access.contract_scope`) and of the excursions
it notified; every other role is refused (AccessDenied). Events and waivers are written
by `valuation.deadlines.events` (explorers: their own reports only).
"""
from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import AccessDenied, StoreError
from valuation.db.access import Principal, contract_scope
from valuation.deadlines import rules as dl
from valuation.deadlines.calendars import office_calendars, policy_values
from valuation.registry.domain.status import casualty_bounds, is_wooden

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store

# -- vocabulary ------------------------------------------------------------------------------
RULE_LABELS: dict[str, str] = {
    "monthly_report": "Relatório mensal de atividades",
    "final_report": "Relatório final",
    "extension_request": "Pedido de prorrogação",
    "start_of_operations": "Início das operações",
    "automatic_cancellation": "Cancelamento automático",
    "preference_notice": "Edital de preferência",
    "owner_reclaim": "Reclamação pelo responsável",
    "found_unclaimed": "Coisa achada não reclamada",
    "found_proceeds": "Produto da venda de coisa achada",
    "five_year_lapse": "Prazo de 5 anos do responsável",
    "tourism_notice": "Comunicação de turismo subaquático",
    "wreck_map": "Mapa anual de embarcações naufragadas",
    "court_inquiry_opening": "Abertura do inquérito",
    "court_inquiry_report": "Relatório do inquérito",
    "court_prior_defence": "Defesa prévia",
    "court_private_representation": "Representação da parte ao Tribunal Marítimo",
}
COURT_RULES: tuple[str, ...] = ("court_inquiry_opening", "court_inquiry_report", "court_prior_defence",
                                "court_private_representation")
CONTRACT_RULES: tuple[str, ...] = ("monthly_report", "final_report", "extension_request", "start_of_operations",
                                   "automatic_cancellation")
WRECK_RULES: tuple[str, ...] = ("five_year_lapse", *COURT_RULES)
EVENT_RULES: dict[str, str] = {  # rule keyed by the event that starts it ("rule:e{event id}")
    "notice_published": "preference_notice",
    "recovery_for_owner": "owner_reclaim",
    "excursion_notified": "tourism_notice",
}
# Periods the law lets run rather than acts someone owes: "met" reads "closed", never late.
PERIOD_RULES: frozenset[str] = frozenset({"preference_notice", "owner_reclaim", "found_unclaimed", "found_proceeds"})
_FOUND_SETTLED: dict[str, str] = {
    "reclaimed": "devolvida ao dono", "declared_lost": "declarada perdida", "sold": "vendida",
    "sent_to_revenue": "encaminhada à Receita Federal", "proceeds_claimed": "produto entregue ao dono",
    "proceeds_to_union": "produto recolhido à União",
}
STATES: tuple[str, ...] = ("overdue", "due_soon", "upcoming", "suspended", "met", "waived")
STATE_LABELS: dict[str, str] = {
    "upcoming": "a vencer",
    "due_soon": "vence em breve",
    "overdue": "vencido",
    "met": "cumprido",
    "waived": "dispensado",
    "suspended": "suspenso",
}
CLOSED_LABEL = "encerrado"  # state_pt of a 'met' period that closed (PERIOD_RULES, a lapse that ran out)
PENDING_STATES: tuple[str, ...] = ("overdue", "due_soon", "upcoming", "suspended")

COLUMNS: tuple[str, ...] = (
    "key", "rule", "label_pt", "contract_code", "organisation", "wreck", "wreck_name", "office_code", "uf",
    "naval_district", "start", "due", "raw_due", "moved_from", "state", "state_pt", "met_on", "late", "reason",
    "basis", "steps", "contract_id", "wreck_id", "organisation_id",
)

_DUE = COLUMNS.index("due")
FINAL_REPORT_KINDS: tuple[str, ...] = ("pesquisa", "remoção", "demolição")  # NORMAM-10 0301 c; 0302 b 3
_ACTIVE = ("vigente", "suspenso")
_FINISHED = ("concluído", "cancelado", "expirado")
_ONE = timedelta(days=1)


@dataclass(frozen=True)
class EventKind:
    """A kind of deadline event: what it is about (`subject`: contract, wreck or office), what its
    `reference` holds (None, 'month' YYYY-MM, 'year' YYYY, 'date' YYYY-MM-DD, 'expiry', 'key', 'text',
    'text?' optional text) and whether an explorer may record it for its own contracts."""

    key: str
    label: str
    subject: str
    reference: str | None = None
    explorer: bool = False
    reference_label: str = "Referência"


EVENT_KINDS: tuple[EventKind, ...] = (
    EventKind("monthly_report_delivered", "Relatório mensal entregue", "contract", "month", True,
              "Mês de referência (AAAA-MM)"),
    EventKind("final_report_delivered", "Relatório final entregue", "contract", None, True),
    EventKind("operations_started", "Início das operações", "contract"),
    EventKind("extension_requested", "Prorrogação requerida", "contract", "expiry", False,
              "Vencimento da autorização a prorrogar"),
    EventKind("notice_published", "Edital de preferência publicado", "wreck", "text?", False, "Veículo/observação"),
    EventKind("recovery_for_owner", "Resgate por conta do responsável (art. 12)", "wreck", "text?", False,
              "Bens resgatados"),
    EventKind("excursion_notified", "Excursão de turismo subaquático comunicada", "wreck", "date", False,
              "Data da excursão"),
    EventKind("wreck_map_sent", "Mapa anual de naufrágios enviado", "office", "year", False, "Ano do mapa"),
    EventKind("court_inquiry_opened", "Inquérito instaurado (Lei 2.180 art. 33)", "wreck"),
    EventKind("court_steps_concluded", "Diligências do inquérito concluídas (art. 37)", "wreck"),
    EventKind("court_report_done", "Relatório do inquérito concluído (art. 37)", "wreck"),
    EventKind("court_parties_notified", "Ciência das conclusões aos possíveis responsáveis (art. 38)", "wreck"),
    EventKind("court_defence_filed", "Defesa prévia apresentada (art. 38)", "wreck"),
    EventKind("court_inquiry_sent", "Inquérito entrou no Tribunal Marítimo (art. 39)", "wreck"),
    EventKind("court_representation_filed", "Representação apresentada ao Tribunal (art. 41 §1 a)", "wreck"),
    EventKind("court_decided", "Decisão do Tribunal Marítimo", "wreck"),
    EventKind("deadline_met", "Prazo cumprido ou encerrado", "key", "key", False, "Prazo"),
)
EVENT_KIND_BY_KEY: dict[str, EventKind] = {k.key: k for k in EVENT_KINDS}

# Current rows of the append-only tables: not withdrawn and not replaced by a later row.
CURRENT_EVENTS = ("(SELECT * FROM deadline_events e WHERE NOT e.voided AND NOT EXISTS "
                  "(SELECT 1 FROM deadline_events s WHERE s.supersedes = e.id))")
CURRENT_WAIVERS = ("(SELECT * FROM deadline_waivers w WHERE NOT w.revoked AND NOT EXISTS "
                   "(SELECT 1 FROM deadline_waivers s WHERE s.supersedes = w.id))")


# -- access -------------------------------------------------------------------------------------
def require_reader(user: Principal) -> None:
    """Deadlines are read by dpc (all) and explorers (their own); AccessDenied for the others."""
    if user.role not in ("dpc", "explorer"):
        raise AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite consultar prazos.",
                           user=user.username, action="read_deadlines")


def require_schema(store: Store) -> None:
    """StoreError when the database predates migration 004 (e.g. opened read-only, unmigrated)."""
    if not store.has_table("deadline_events"):
        raise StoreError(f"the database {store.path} has no deadline tables (migration 004): open it once "
                         f"with write access to migrate it, e.g. python -m valuation db init --db {store.path}")


# -- memoised rules ---------------------------------------------------------------------------------
_MEMO_LIMIT = 500_000
_memo: dict[tuple[Any, ...], tuple[dl.Deadline, str]] = {}
_memo_lock = threading.Lock()


def _rule(fn: Callable[..., dl.Deadline], arg: Any, cal: BusinessCalendar) -> tuple[dl.Deadline, str]:
    """fn(arg, cal) with its steps joined, memoised per (calendar instance, rule, input).

    Calendars are cached by content (valuation.deadlines.calendars), so an edited local
    holiday or policy gives a new calendar instance and therefore new entries (the
    calendar is part of the key by identity: the memo keeps it alive)."""
    key = (cal, fn.__name__, arg)
    hit = _memo.get(key)
    if hit is not None:
        return hit
    d = fn(arg, cal)
    value = (d, "\n".join(d.steps))
    with _memo_lock:
        if len(_memo) >= _MEMO_LIMIT:
            _memo.clear()
        _memo[key] = value
    return value


@functools.lru_cache(maxsize=65536)
def month_key(d: date) -> str:
    """'2025-03' for any day of March 2025 (the `reference` of a monthly report)."""
    return f"{d.year:04d}-{d.month:02d}"


@functools.lru_cache(maxsize=65536)
def _fmt(d: date | None) -> str:
    return "—" if d is None else dl.fmt(d)


@functools.lru_cache(maxsize=4096)
def _month_label(month: date) -> str:
    return f"Relatório mensal ({dl.fmt_month(month)})"


@functools.lru_cache(maxsize=65536)
def _months(first: date, last: date) -> tuple[date, ...]:
    """The first day of every month from `first`'s to `last`'s (inclusive)."""
    out: list[date] = []
    m = date(first.year, first.month, 1)
    end = date(last.year, last.month, 1)
    while m <= end:
        out.append(m)
        m = date(m.year + (m.month == 12), m.month % 12 + 1, 1)
    return tuple(out)


# -- the builder ---------------------------------------------------------------------------------------
class _Rows:
    """Collects deadline rows (tuples in COLUMNS order) and states them on `as_of`."""

    def __init__(self, as_of: date, due_soon_days: int, waivers: Mapping[str, str], met_keys: Mapping[str, date],
                 offices: Mapping[str, dict[str, Any]]) -> None:
        self.as_of = as_of
        self.due_soon_days = due_soon_days
        self.waivers = waivers
        self.met_keys = met_keys
        self.offices = offices
        self.rows: list[tuple[Any, ...]] = []

    def subject(self, office_code: str, *, contract: Mapping[str, Any] | None = None,
                wreck: tuple[int | None, str | None, str | None] = (None, None, None),
                organisation: tuple[int | None, str | None] = (None, None)) -> _Subject:
        """Who/where a deadline is about, computed once per contract, wreck or event."""
        office = self.offices.get(office_code) or {}
        c = contract or {}
        return ((c.get("code"), c.get("organisation") or organisation[1], wreck[1], wreck[2], office_code,
                 office.get("state"), office.get("naval_district")),
                (c.get("id"), wreck[0], c.get("organisation_id") or organisation[0]))

    def add(self, key: str, rule: str, label: str, d: dl.Deadline | dl.Window, steps: str, subject: _Subject,
            start: date | None, met_on: date | None = None, *, moot: str | None = None,
            suspended: str | None = None, overdue_reason: str | None = None, closed_by: str | None = None,
            lapses: tuple[date, str, str] | None = None) -> None:
        """`lapses` (closed on, state_pt, reason): a period that ends by running out (the five-year
        lapse of arts. 6–7): once past due it is a state ('met' on the day it closed, read as
        `state_pt`, e.g. 'encerrado — União desde …'), not an overdue task."""
        due = d.end if isinstance(d, dl.Window) else d.due
        if met_on is None:
            met_on = self.met_keys.get(key)
        if met_on is not None and met_on > self.as_of:
            met_on = None  # recorded for a later day: not met yet on as_of
        waived = self.waivers.get(key) or (moot if met_on is None else None)
        state_pt: str | None = None
        if due is None:  # a clock stopped with no end (open suspension): no due date yet
            state = "waived" if waived else ("met" if met_on is not None else "suspended")
            suspended = suspended or "prazo suspenso, sem data final"
        else:
            state = dl.deadline_state(due, self.as_of, met_on, waived, self.due_soon_days)
        late = False
        if state == "met" and rule in PERIOD_RULES:
            reason = f"encerrado em {_fmt(met_on)}" + (f" ({closed_by})" if closed_by else "")
        elif state == "met":
            late = due is not None and met_on > due  # type: ignore[operator]
            reason = f"cumprido em {_fmt(met_on)}"
            if late:
                reason += f", com atraso de {(met_on - due).days} dia(s)"  # type: ignore[operator]
        elif state == "waived":
            reason = str(waived)
        elif suspended:
            state, reason = "suspended", suspended
        elif state == "overdue" and lapses is not None:
            state, (met_on, state_pt, reason) = "met", lapses
        elif state == "overdue":
            reason = overdue_reason or f"vencido há {(self.as_of - due).days} dia(s)"
        else:
            days = (due - self.as_of).days
            reason = "vence hoje" if days == 0 else f"vence em {days} dia(s)"
        moved = d.moved_from
        if state_pt is None:
            state_pt = CLOSED_LABEL if state == "met" and rule in PERIOD_RULES else STATE_LABELS[state]
        self.rows.append((key, rule, label, *subject[0], start, due, moved or due, moved, state, state_pt,
                          met_on, late, reason, d.basis, steps, *subject[1]))


_Subject = tuple[tuple[Any, ...], tuple[Any, ...]]


# -- loading ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Scope:
    dpc: bool
    office: str | None
    contract_code: str | None
    organisation_id: int | None
    contract_sql: str
    contract_params: list[Any]


def _scope(user: Principal, office: str | None, contract_code: str | None,
           organisation_id: int | None) -> _Scope:
    require_reader(user)
    sql, params = contract_scope(user, "c")
    clauses, params = [sql], list(params)
    if office:
        clauses.append("c.office_code = ?")
        params.append(office)
    if contract_code:
        clauses.append("c.code = ?")
        params.append(contract_code)
    org = user.organisation_id if user.role == "explorer" else organisation_id
    if org is not None:
        clauses.append("c.organisation_id = ?")
        params.append(org)
    return _Scope(user.role == "dpc", office or None, contract_code or None, org, " AND ".join(clauses), params)


def _contracts(store: Store, sc: _Scope) -> list[dict[str, Any]]:
    return store.fetch(
        "SELECT c.id, c.code, c.kind, c.status, c.organisation_id, o.name AS organisation, c.wreck_id, "
        "w.code AS wreck_code, w.name AS wreck_name, c.office_code, c.signed_on, c.starts_on, c.expires_on, "
        "c.work_ended_on, c.cancelled_on FROM contracts c JOIN organisations o ON o.id = c.organisation_id "
        f"JOIN wrecks w ON w.id = c.wreck_id WHERE {sc.contract_sql} ORDER BY c.code", sc.contract_params)


def _contract_events(store: Store, sc: _Scope) -> dict[tuple[str, int, str | None], tuple[date, date]]:
    """(kind, contract_id, reference) → (first, last) event date, for the contracts in scope."""
    kinds = [k.key for k in EVENT_KINDS if k.subject == "contract"]
    rows = store.cursor()
    try:
        result = rows.execute(
            f"SELECT e.kind, e.contract_id, e.reference, min(e.event_date), max(e.event_date) FROM {CURRENT_EVENTS} e "
            f"WHERE e.kind IN ({', '.join('?' for _ in kinds)}) AND e.contract_id IN "
            f"(SELECT c.id FROM contracts c WHERE {sc.contract_sql}) GROUP BY ALL",
            [*kinds, *sc.contract_params]).fetchall()
    finally:
        rows.close()
    return {(k, cid, ref): (first, last) for k, cid, ref, first, last in result}


# -- the engine --------------------------------------------------------------------------------------------
def compute_deadlines(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                      contract_code: str | None = None, organisation_id: int | None = None) -> pd.DataFrame:
    """Every deadline of rules.md §7 that the user may read, stated on `as_of`.

    One row per deadline, ordered by due date, with the columns of `COLUMNS`:
    key (stable: 'monthly_report:A-1:2025-03', also the iCalendar UID), rule, label_pt,
    contract_code, organisation, wreck (code), wreck_name, office_code, uf and
    naval_district (of the office), start (the day the count starts, for timelines), due,
    raw_due (before any move for a non-business day), moved_from (None when not moved),
    state (`STATES`), state_pt, met_on, late, reason (pt-BR: days left/late, the waiver's
    or suspension's reason), basis (the articles), steps (the explanation, one line per
    step: the raw date and every move), contract_id, wreck_id, organisation_id.

    Filters: `office` (the office's code), `contract_code` (only that contract's
    deadlines), `organisation_id` (dpc: one explorer's deadlines; an explorer always
    gets its own). Raises AccessDenied for roles other than dpc and explorer.
    """
    import pandas as pd

    sc = _scope(user, office, contract_code, organisation_id)
    require_schema(store)
    policies = policy_values(store, ("due_soon_days", "court_pending_suspends_lapse"))
    due_soon = policies["due_soon_days"] if isinstance(policies["due_soon_days"], int) else 15
    court_suspends = policies["court_pending_suspends_lapse"] is True
    offices = {r["code"]: r for r in store.fetch("SELECT code, name, state, naval_district FROM offices")}
    cals = office_calendars(store)
    waivers = {r["deadline_key"]: r["reason"] for r in store.fetch(
        f"SELECT deadline_key, arg_max(reason, id) AS reason FROM {CURRENT_WAIVERS} w GROUP BY deadline_key")}
    met_keys = {r["reference"]: r["first"] for r in store.fetch(
        f"SELECT reference, min(event_date) AS first FROM {CURRENT_EVENTS} e WHERE kind = 'deadline_met' "
        "GROUP BY reference")}
    rows = _Rows(as_of, due_soon, waivers, met_keys, offices)

    _contract_rows(rows, _contracts(store, sc), _contract_events(store, sc), cals, as_of)
    whole = sc.contract_code is None and (sc.dpc and sc.organisation_id is None)
    if whole:
        _wreck_rows(rows, store, sc, cals, as_of, court_suspends)
        _wreck_map_rows(rows, store, sc, cals, as_of)
    if sc.contract_code is None:
        _event_rows(rows, store, sc, cals, wreck_level=whole)
    if whole and store.has_table("found_things"):
        _found_rows(rows, store, sc, cals, as_of)

    # stable: equal dues keep the (deterministic) build order; a due date not known yet goes last
    rows.rows.sort(key=lambda row: row[_DUE] or date.max)
    # object columns: dates stay `date`, a missing code stays None (pandas 3 would infer str + NaN)
    return pd.DataFrame(rows.rows, columns=list(COLUMNS), dtype=object)



def _contract_rows(rows: _Rows, contracts: list[dict[str, Any]],
                   events: dict[tuple[str, int, str | None], tuple[date, date]],
                   cals: Mapping[str, BusinessCalendar], as_of: date) -> None:
    for c in contracts:
        status = c["status"]
        if status not in _ACTIVE and status not in _FINISHED:
            continue  # 'solicitado': nothing is owed before the act
        cal = cals[c["office_code"]]
        cid, code = c["id"], c["code"]
        subject = rows.subject(c["office_code"], contract=c, wreck=(c["wreck_id"], c["wreck_code"], c["wreck_name"]))
        active = status in _ACTIVE
        suspended = "contrato suspenso" if status == "suspenso" else None
        ended = c["work_ended_on"]

        # Monthly reports (NORMAM-10 0301 c, 0303 e; removal/demolition over 60 days: 0302 b 2)
        begin = c["starts_on"] or c["signed_on"]
        owes = c["kind"] in ("pesquisa", "exploração")
        if c["kind"] in ("remoção", "demolição"):
            owes = (c["starts_on"] is not None and c["expires_on"] is not None
                    and (c["expires_on"] - c["starts_on"]).days > law.REMOVAL_MONTHLY_REPORT_MIN_DAYS.value)
        if owes and begin is not None:
            stops = [d for d in (ended, c["cancelled_on"], c["expires_on"], as_of) if d is not None]
            last = min(stops)
            reported: list[date] = []
            owed: list[date] = []
            for month in (_months(date(begin.year, begin.month, 1), last) if begin <= last else ()):
                d, steps = _rule(dl.monthly_report, month, cal)
                ref = month_key(month)
                hit = events.get(("monthly_report_delivered", cid, ref))
                met_on = hit[0] if hit else None
                rows.add(f"monthly_report:{code}:{ref}", "monthly_report", _month_label(month), d, steps, subject,
                         month, met_on, suspended=suspended)
                if d.due < as_of:
                    owed.append(month)
                    if met_on is not None and met_on <= d.due:
                        reported.append(month)
            # Automatic cancellation: second consecutive month without the report (NORMAM-10 0305 f)
            # (fewer than two missing months cannot make two consecutive ones: no need to ask the rule)
            if status == "vigente" and len(owed) - len(reported) >= 2:
                cand = _cancellation(cal, owed, reported)
                if cand is not None:
                    rows.add(f"automatic_cancellation:{code}", "automatic_cancellation", RULE_LABELS[
                        "automatic_cancellation"], cand, "\n".join(cand.steps), subject, cand.due,
                        overdue_reason="2º mês consecutivo sem relatório mensal: autorização automaticamente "
                                       "cancelada (NORMAM-10 0305 f)")

        # Final report: 90 days after the end of the work, for surveys (0301 c) and removals or
        # demolitions (0302 b 3) only: NORMAM-10 0303 asks an exploration for monthly reports alone
        if ended is not None and c["kind"] in FINAL_REPORT_KINDS:
            d, steps = _rule(dl.final_report, ended, cal)
            hit = events.get(("final_report_delivered", cid, None))
            rows.add(f"final_report:{code}", "final_report", RULE_LABELS["final_report"], d, steps, subject,
                     ended, hit[0] if hit else None,
                     suspended=suspended)

        if not active:
            continue
        # Start of operations on the date fixed in the act (art. 22 I; 0305 a)
        if c["starts_on"] is not None:
            d, steps = _rule(dl.start_of_operations, c["starts_on"], cal)
            hit = events.get(("operations_started", cid, None))
            rows.add(f"start_of_operations:{code}", "start_of_operations", RULE_LABELS["start_of_operations"], d,
                     steps, subject, c["signed_on"] or c["starts_on"], hit[0] if hit else None, suspended=suspended,
                     overdue_reason="operações não iniciadas na data fixada: cancelamento (NORMAM-10 0305 a)")
        # Extension request at least 60 days before expiry (0304)
        if c["expires_on"] is not None and ended is None:
            d, steps = _rule(dl.extension_request, c["expires_on"], cal)
            ref = c["expires_on"].isoformat()
            hit = events.get(("extension_requested", cid, ref))
            rows.add(f"extension_request:{code}:{ref}", "extension_request", RULE_LABELS["extension_request"], d,
                     steps, subject, c["starts_on"] or c["signed_on"], hit[0] if hit else None, suspended=suspended,
                     overdue_reason=f"prazo para pedir prorrogação encerrado; a autorização expira em "
                                    f"{_fmt(c['expires_on'])}")


_cancel_memo: dict[tuple[Any, ...], dl.Deadline | None] = {}


def _cancellation(cal: BusinessCalendar, owed: list[date], reported: list[date]) -> dl.Deadline | None:
    """`valuation.deadlines.rules.automatic_cancellation` over the owed months, asked from the first
    missing one (the months before it were all reported, so the answer is the same) and
    memoised: contracts of one office with the same gap share the answer."""
    done = set(reported)
    first_missing = next(m for m in owed if m not in done)
    window = tuple(m for m in reported if m > first_missing)
    key = (cal, first_missing, owed[-1], window)
    if key not in _cancel_memo:
        if len(_cancel_memo) >= _MEMO_LIMIT:
            _cancel_memo.clear()
        _cancel_memo[key] = dl.automatic_cancellation(window, first_missing, owed[-1], cal)
    return _cancel_memo[key]


def _wreck_rows(rows: _Rows, store: Store, sc: _Scope, cals: Mapping[str, BusinessCalendar], as_of: date,
                court_suspends: bool) -> None:
    where, params = ("WHERE w.office_code = ?", [sc.office]) if sc.office else ("", [])
    wrecks = store.fetch(
        "SELECT w.id, w.code, w.name, w.office_code, w.hull_material, w.casualty_year, w.casualty_month, "
        "w.casualty_day, w.casualty_precision, w.owner_declared_lost, w.owner_licence_requested, w.court_known_on "
        f"FROM wrecks w {where} ORDER BY w.code", params)
    suspensions: dict[int, list[tuple[date, date, str]]] = {}
    for r in store.fetch("SELECT wreck_id, ground, starts_on, ends_on, reason FROM wreck_suspensions "
                         "ORDER BY wreck_id, starts_on"):
        if r["ground"] == "tribunal" and not court_suspends:
            continue  # Maritime Court pending suspends the lapse only under the policy (rules.md §1)
        suspensions.setdefault(r["wreck_id"], []).append((r["starts_on"], r["ends_on"],
                                                          f"{r['ground']}: {r['reason']}"))
    events: dict[tuple[str, int], tuple[date, date]] = {}
    court = [k.key for k in EVENT_KINDS if k.key.startswith("court_")]
    for r in store.fetch(f"SELECT kind, wreck_id, min(event_date) AS first, max(event_date) AS last "
                         f"FROM {CURRENT_EVENTS} e WHERE kind IN ({', '.join('?' for _ in court)}) "
                         "AND wreck_id IS NOT NULL GROUP BY ALL", court):
        events[(r["kind"], r["wreck_id"])] = (r["first"], r["last"])
    published: date = law.LAW_PUBLISHED.value
    old: date = law.ART32_OLD_CASUALTY_BEFORE.value
    for w in wrecks:
        cal = cals[w["office_code"]]
        wid = w["id"]
        subject = rows.subject(w["office_code"], wreck=(wid, w["code"], w["name"]))
        try:
            earliest, latest = casualty_bounds(w["casualty_year"], w["casualty_month"], w["casualty_day"],
                                               w["casualty_precision"])
        except ValueError:
            continue  # an incomplete casualty date: the wreck page shows it
        decided = events.get(("court_decided", wid))
        decided_on = decided[0] if decided and decided[0] <= as_of else None

        # Five-year lapse (arts. 6 and 7), for casualties outside art. 32
        lo, hi = law.ART32_WOODEN_HULL_YEARS.value
        # art. 32: every casualty before 29/09/1966 (the wooden hulls of 1501–1800 of §1 included)
        art32 = latest < old or (is_wooden(w["hull_material"]) and lo <= earliest.year and latest.year <= hi)
        if not art32 and latest <= as_of:
            intervals = [(s, e) for s, e, _ in suspensions.get(wid, ())]
            running = [why for s, e, why in suspensions.get(wid, ()) if s <= as_of and (e is None or as_of <= e)]
            if court_suspends and w["court_known_on"] is not None and w["court_known_on"] <= as_of:
                end = decided_on  # None while pending: the clock is stopped with no end (art. 20)
                intervals.append((w["court_known_on"], end))
                if decided_on is None:
                    running.append(f"processo pendente no Tribunal Marítimo ({law.COURT_PENDING_SUSPENDS})")
            d = dl.five_year_lapse(latest, intervals, cal)
            steps = list(d.steps)
            if w["casualty_precision"] != "day":
                steps.insert(0, f"Data do sinistro conhecida até {_PRECISION_PT[w['casualty_precision']]}: "
                                f"contado do último dia possível, {_fmt(latest)} (o mais favorável ao responsável)")
            declared = w["owner_declared_lost"]
            requested = w["owner_licence_requested"]
            # the earliest event wins (arts. 3 I, 6, 7): a declaration after the lapse ended changes nothing
            moot = (f"o responsável declarou a coisa perdida em {_fmt(declared)} (art. 3 I): domínio da União"
                    if declared is not None and declared <= as_of and (d.due is None or declared <= d.due)
                    else None)
            since = max(d.due + _ONE, published) if d.due is not None else None
            timely = requested is not None and (d.due is None or requested <= d.due)
            late = (f"; pedido de licença em {_fmt(requested)}, fora do prazo" if requested is not None
                    and not timely else "")
            rows.add(f"five_year_lapse:{w['code']}", "five_year_lapse", RULE_LABELS["five_year_lapse"], d,
                     "\n".join(steps), subject, latest,
                     requested if timely else None, moot=moot,
                     suspended=("prazo suspenso (art. 6 parágrafo único): " + "; ".join(running)) if running else None,
                     lapses=(since, f"{CLOSED_LABEL} — União desde {_fmt(since)}",
                             f"prazo esgotado sem pedido de licença (art. 7){late}"))

        # Maritime Court track (Lei 2.180 arts. 33 §2, 37, 38, 41 §1 a): casualties the office learned
        # of, that happened under Lei 2.180 (a wreck of 1686 found today opens no inquiry deadline)
        known = w["court_known_on"]
        if known is None or earliest < law.L2180_DATE.value:
            continue
        moot = f"o Tribunal Marítimo decidiu o caso em {_fmt(decided_on)}" if decided_on else None

        def hit(kind: str, after: date | None = None, pick: int = 0) -> date | None:
            found = events.get((kind, wid))
            if found is None:
                return None
            day = found[pick]
            return day if after is None or day >= after else None

        d, steps = _rule(dl.court_inquiry_opening, known, cal)
        rows.add(f"court_inquiry_opening:{w['code']}", "court_inquiry_opening", RULE_LABELS["court_inquiry_opening"],
                 d, steps, subject, known, hit("court_inquiry_opened"), moot=moot,
                 overdue_reason="inquérito não instaurado em 5 dias: providência pelo Comandante da Marinha ou "
                                "pelo Tribunal Marítimo (art. 33 §2)")
        concluded = hit("court_steps_concluded", pick=1)
        if concluded is not None:
            d, steps = _rule(dl.court_inquiry_report, concluded, cal)
            rows.add(f"court_inquiry_report:{w['code']}", "court_inquiry_report", RULE_LABELS["court_inquiry_report"],
                     d, steps, subject, concluded, hit("court_report_done", concluded, 1), moot=moot)
        notified = hit("court_parties_notified", pick=1)
        if notified is not None:
            d, steps = _rule(dl.court_prior_defence, notified, cal)
            rows.add(f"court_prior_defence:{w['code']}", "court_prior_defence", RULE_LABELS["court_prior_defence"],
                     d, steps, subject, notified, hit("court_defence_filed", notified, 1), moot=moot)
        # art. 41 §1 a was included by Lei 5.056/1966: casualties from then on, dated to the day
        if w["casualty_precision"] == "day" and law.L5056_DATE.value <= earliest <= as_of:
            win = dl.court_private_representation(earliest, cal)
            sent = hit("court_inquiry_sent")
            day_180 = win.start - _ONE
            reached = (f"o inquérito entrou no Tribunal em {_fmt(sent)}, dentro dos 180 dias: "
                       "representação do art. 41 §1 a não cabe") if sent is not None and sent <= day_180 else None
            filed = hit("court_representation_filed", win.start)
            rows.add(f"court_private_representation:{w['code']}", "court_private_representation",
                     RULE_LABELS["court_private_representation"], win, "\n".join(win.steps),
                     subject, win.start, filed if filed is not None and filed <= win.end else None,
                     moot=reached or moot,
                     overdue_reason="janela de 30 dias encerrada sem representação (art. 41 §1 a e §4)")


_PRECISION_PT = {"day": "o dia", "month": "o mês", "year": "o ano", "century": "o século"}


def _wreck_map_rows(rows: _Rows, store: Store, sc: _Scope, cals: Mapping[str, BusinessCalendar],
                    as_of: date) -> None:
    """The annual map of each office: the previous year's (due 15 February) and this year's (NORMAM-10 0404)."""
    sent = {(r["office_code"], r["reference"]): r["first"] for r in store.fetch(
        f"SELECT office_code, reference, min(event_date) AS first FROM {CURRENT_EVENTS} e "
        "WHERE kind = 'wreck_map_sent' GROUP BY ALL")}
    for code in sorted(cals):
        if sc.office and code != sc.office:
            continue
        for year in (as_of.year - 1, as_of.year):
            d, steps = _rule(dl.wreck_map, year, cals[code])
            rows.add(f"wreck_map:{code}:{year}", "wreck_map", f"Mapa anual de naufrágios de {year}", d, steps,
                     rows.subject(code), date(year + 1, 1, 1), sent.get((code, str(year))))


def _event_rows(rows: _Rows, store: Store, sc: _Scope, cals: Mapping[str, BusinessCalendar], *,
                wreck_level: bool) -> None:
    """Deadlines started by one event each: notices, recoveries, found things, excursions."""
    kinds = list(EVENT_RULES) if wreck_level else ["excursion_notified"]
    clauses = [f"e.kind IN ({', '.join('?' for _ in kinds)})"]
    params: list[Any] = list(kinds)
    if sc.organisation_id is not None:
        clauses.append("e.organisation_id = ?")
        params.append(sc.organisation_id)
    events = store.fetch(
        "SELECT e.id, e.kind, e.event_date, e.reference, e.organisation_id, o.name AS organisation, "
        "w.id AS wreck_id, w.code AS wreck_code, w.name AS wreck_name, coalesce(e.office_code, w.office_code) AS office "
        f"FROM {CURRENT_EVENTS} e LEFT JOIN wrecks w ON w.id = e.wreck_id "
        f"LEFT JOIN organisations o ON o.id = e.organisation_id WHERE {' AND '.join(clauses)} ORDER BY e.id", params)
    fns: dict[str, Callable[[date, BusinessCalendar], dl.Deadline]] = {
        "preference_notice": dl.preference_notice, "owner_reclaim": dl.owner_reclaim,
        "tourism_notice": dl.tourism_notice,
    }
    for e in events:
        office = e["office"]
        if office not in cals or (sc.office and office != sc.office):
            continue
        rule = EVENT_RULES[e["kind"]]
        label = RULE_LABELS[rule] + (f" — {e['reference']}" if e["reference"] and rule != "tourism_notice" else "")
        subject = rows.subject(office, wreck=(e["wreck_id"], e["wreck_code"], e["wreck_name"]),
                               organisation=(e["organisation_id"], e["organisation"]))
        if rule == "tourism_notice":
            excursion = date.fromisoformat(e["reference"])
            d, steps = _rule(dl.tourism_notice, excursion, cals[office])
            rows.add(f"tourism_notice:e{e['id']}", rule, f"{RULE_LABELS[rule]} ({_fmt(excursion)})", d, steps,
                     subject, e["event_date"], e["event_date"])
            continue
        d, steps = _rule(fns[rule], e["event_date"], cals[office])
        rows.add(f"{rule}:e{e['id']}", rule, label, d, steps, subject, e["event_date"])


def _found_rows(rows: _Rows, store: Store, sc: _Scope, cals: Mapping[str, BusinessCalendar], as_of: date) -> None:
    """Found things (Lei 7.542 art. 29 §§2–3): 30 days unclaimed from the collection, then 6 months
    of the proceeds from a sale; settled by the found-thing events of `valuation.inventory.found_things`."""
    where, params = ("AND f.office_code = ?", [sc.office]) if sc.office else ("", [])
    found = store.fetch(
        "WITH ev AS (SELECT found_id, kind, event_date FROM found_thing_events) "
        "SELECT f.id, f.office_code, f.description, f.collected_on, w.id AS wreck_id, w.code AS wreck_code, "
        "w.name AS wreck_name, s.settled_on, s.settled_kind, p.sold_on, q.closed_on, q.closed_kind "
        "FROM found_things f LEFT JOIN wrecks w ON w.id = f.wreck_id "
        "LEFT JOIN (SELECT found_id, min(event_date) AS settled_on, arg_min(kind, event_date) AS settled_kind FROM ev "
        "  WHERE kind IN ('reclaimed', 'declared_lost', 'sold', 'sent_to_revenue') GROUP BY found_id) s "
        "  ON s.found_id = f.id "
        "LEFT JOIN (SELECT found_id, min(event_date) AS sold_on FROM ev WHERE kind = 'sold' GROUP BY found_id) p "
        "  ON p.found_id = f.id "
        "LEFT JOIN (SELECT found_id, min(event_date) AS closed_on, arg_min(kind, event_date) AS closed_kind FROM ev "
        "  WHERE kind IN ('proceeds_claimed', 'proceeds_to_union') GROUP BY found_id) q ON q.found_id = f.id "
        f"WHERE f.collected_on <= ? {where} ORDER BY f.id", [as_of, *params])
    for f in found:
        cal = cals.get(f["office_code"])
        if cal is None:
            continue
        subject = rows.subject(f["office_code"], wreck=(f["wreck_id"], f["wreck_code"], f["wreck_name"]))
        what = f" — {f['description']}"
        d, steps = _rule(dl.found_unclaimed, f["collected_on"], cal)
        rows.add(f"found_unclaimed:f{f['id']}", "found_unclaimed", RULE_LABELS["found_unclaimed"] + what, d, steps,
                 subject, f["collected_on"], f["settled_on"], closed_by=_FOUND_SETTLED.get(f["settled_kind"] or ""),
                 overdue_reason="30 dias sem reclamação: a coisa pode ser declarada perdida (art. 29 §2)")
        if f["sold_on"] is not None and f["sold_on"] <= as_of:
            d, steps = _rule(dl.found_proceeds, f["sold_on"], cal)
            rows.add(f"found_proceeds:f{f['id']}", "found_proceeds", RULE_LABELS["found_proceeds"] + what, d, steps,
                     subject, f["sold_on"], f["closed_on"], closed_by=_FOUND_SETTLED.get(f["closed_kind"] or ""),
                     overdue_reason="6 meses da venda: o produto passa a receita da União (art. 29 §3)")


# -- derived views for the dashboard -------------------------------------------------------------------------
def cancellation_candidates(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                            frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """Contracts automatically cancelled for a second consecutive missing monthly report
    (NORMAM-10 0305 f) and not waived: contract_code, organisation, office_code, due (the
    cancellation date), reason, steps. Pass `frame` (a compute_deadlines result) to reuse it."""
    df = frame if frame is not None else compute_deadlines(store, user, as_of=as_of, office=office)
    if df.empty:
        return df
    sel = df[(df["rule"] == "automatic_cancellation") & (df["state"] != "waived")]
    return sel[["key", "contract_code", "organisation", "office_code", "uf", "naval_district", "due", "state",
                "reason", "steps"]].reset_index(drop=True)


def summary_by_office(frame: pd.DataFrame) -> pd.DataFrame:
    """Counts per office and naval district of overdue and due-soon deadlines (for the dashboard)."""
    import pandas as pd

    cols = ["naval_district", "office_code", "uf", "overdue", "due_soon", "upcoming", "suspended", "met", "waived"]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    counts = (frame.groupby(["naval_district", "office_code", "uf", "state"], dropna=False).size()
              .unstack("state", fill_value=0))
    for s in STATES:
        if s not in counts.columns:
            counts[s] = 0
    out = counts.reset_index()[cols]
    return out.sort_values(["overdue", "due_soon", "office_code"], ascending=[False, False, True], ignore_index=True)


def heatmap_frame(frame: pd.DataFrame, year: int) -> pd.DataFrame:
    """Pending deadlines due in `year` counted per day, with ISO week and weekday (calendar heat map)."""
    import pandas as pd

    cols = ["day", "week", "weekday", "count"]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    pending = frame[frame["state"].isin(PENDING_STATES)]
    days = [d for d in pending["due"].tolist() if d is not None and d.year == year]
    if not days:
        return pd.DataFrame(columns=cols)
    counts = pd.Series(days).value_counts().sort_index()
    return pd.DataFrame({
        "day": list(counts.index),
        "week": [(d - date(year, 1, 1)).days // 7 + 1 for d in counts.index],
        "weekday": [d.weekday() for d in counts.index],
        "count": counts.to_numpy(),
    })


def timeline_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows for a Gantt chart (plotly `px.timeline`): task, start and finish as timestamps
    (finish is the day after `due`, so that a bar covers the due day), state_pt."""
    import pandas as pd

    cols = ["task", "start", "finish", "state", "state_pt", "contract_code", "key"]
    frame = frame[frame["due"].notna()] if not frame.empty else frame  # no bar without a due date
    if frame.empty:
        return pd.DataFrame(columns=cols)
    starts = [s if s is not None and not pd.isna(s) and s <= d else d for s, d in zip(frame["start"], frame["due"])]
    return pd.DataFrame({
        "task": frame["label_pt"].to_numpy(),
        "start": pd.to_datetime(starts),
        "finish": pd.to_datetime([d + _ONE for d in frame["due"]]),
        "state": frame["state"].to_numpy(),
        "state_pt": frame["state_pt"].to_numpy(),
        "contract_code": frame["contract_code"].to_numpy(),
        "key": frame["key"].to_numpy(),
    })


# -- iCalendar feeds -------------------------------------------------------------------------------------------
def deadlines_ics(store: Store, user: Principal, *, as_of: date, office: str | None = None,
                  organisation_id: int | None = None, now: datetime | None = None,
                  frame: pd.DataFrame | None = None, alarm_days: tuple[int, ...] = ()) -> bytes:
    """An iCalendar (.ics) feed of the pending deadlines (not met, not waived) the user may
    read: per office (`office`) or per explorer (`organisation_id`; an explorer always gets
    its own). One all-day event per deadline on its due day; the UID is the deadline's key,
    so a calendar app updates an event rather than duplicating it."""
    from valuation.exports import CalendarEvent, to_ics

    df = frame if frame is not None else compute_deadlines(store, user, as_of=as_of, office=office,
                                                            organisation_id=organisation_id)
    events: list[CalendarEvent] = []
    if not df.empty:
        for r in df[df["state"].isin(PENDING_STATES) & df["due"].notna()].itertuples(index=False):
            who = " — ".join(x for x in (r.contract_code and f"contrato {r.contract_code}",
                                         r.wreck and f"naufrágio {r.wreck}", r.office_code) if x)
            description = "\n".join([f"Situação em {_fmt(as_of)}: {r.state_pt} ({r.reason})",
                                     f"Fundamento: {r.basis}", "", r.steps])
            events.append(CalendarEvent(f"{r.key}@valuation", r.due, f"{r.label_pt} — {who}", description))
    stamp = now or store.now()
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)  # the store's clock is naive UTC
    if office:
        name = f"Prazos — {office}"
    elif user.role == "explorer" or organisation_id is not None:
        org = user.organisation_id if user.role == "explorer" else organisation_id
        row = store.fetch_one("SELECT name FROM organisations WHERE id = ?", [org])
        name = f"Prazos — {row['name'] if row else org}"
    else:
        name = "Prazos — DPC"
    return to_ics(events, calendar_name=name, dtstamp=stamp, alarm_days=alarm_days)


def digest(store: Store, user: Principal, *, as_of: date, office: str | None = None) -> dict[str, Any]:
    """The daily digest (JSON-ready): counts per state and the overdue and due-soon deadlines,
    plus the automatic-cancellation candidates, for a scheduler (see deadline_digest)."""
    df = compute_deadlines(store, user, as_of=as_of, office=office)
    counts = {s: int((df["state"] == s).sum()) if not df.empty else 0 for s in STATES}
    items = []
    if not df.empty:
        for r in df[df["state"].isin(("overdue", "due_soon"))].itertuples(index=False):
            items.append({
                "key": r.key, "rule": r.rule, "label": r.label_pt, "state": r.state, "due": r.due.isoformat(),
                "raw_due": r.raw_due.isoformat(), "moved_from": r.moved_from.isoformat() if r.moved_from else None,
                "contract": r.contract_code, "organisation": r.organisation, "wreck": r.wreck,
                "office": r.office_code, "naval_district": None if r.naval_district is None else int(r.naval_district),
                "reason": r.reason, "basis": r.basis,
            })
    cancel = cancellation_candidates(store, user, as_of=as_of, office=office, frame=df)
    return {
        "as_of": as_of.isoformat(),
        "office": office,
        "counts": counts,
        "deadlines": items,
        "cancellation_candidates": [{"contract": r.contract_code, "office": r.office_code, "since": r.due.isoformat()}
                                    for r in cancel.itertuples(index=False)] if not cancel.empty else [],
    }


__all__ = [
    "COLUMNS", "EVENT_KINDS", "RULE_LABELS", "STATES", "STATE_LABELS", "cancellation_candidates", "compute_deadlines",
    "deadlines_ics", "digest", "heatmap_frame", "summary_by_office", "timeline_frame",
]

