"""Reading helpers for the Commission's pages (issue 3) — what `rounds`, `entries` and
`decisions` do not offer: the contracts a round can be chosen from, a member's own trail for one
item, a sheet template holding the round's item codes, the members' progress, a
president's override with its reason, and the published-decision totals/exports.

Access through `valuation.db.access` as everywhere: members (commission,
commission_president) read their own entries; the president and dpc see who has
entered how much (never a value before the close); explorers and the admin get
nothing here except `decision_totals`/`decisions_xlsx`, which only format a frame the
store already scoped (`decisions.published_decisions`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pandas as pd

from valuation.commission.decisions import (
    LATEST_SQL,
    PUBLISHED_COLUMNS,
    DecisionInput,
    DecisionsResult,
    published_contract,
    record_decisions,
)
from valuation.commission.rounds import fetch_round
from valuation.commission.sheet import MAX_VALUE_BRL, SOURCES
from valuation.core import money
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.problems import problems_frame  # re-exported for the pages (the one definition)
from valuation.db.access import COMMISSION_BODY_LABELS, COMMISSION_ROLES, Principal, require, users_with_roles
from valuation.db.paging import check_page
from valuation.exports import to_csv_bytes, to_xlsx_bytes

if TYPE_CHECKING:
    from valuation.db.store import Store

BODY_LABELS: dict[str, str] = COMMISSION_BODY_LABELS  # one definition, in valuation.accounts.login
VOTE_LABELS: dict[object, str] = {True: "histórico", False: "não histórico", None: "não votou"}
# The sheet's headers as a person reads them; the import folds case and accents ('Data do preço' →
# data_do_preco, one of its aliases), so the template round-trips.
TEMPLATE_COLUMNS = ("Código", "Descrição", "Histórico", "Valor", "Moeda", "Data do preço", "Significância",
                    "Manter", "Fonte", "Observação")
TEMPLATE_MAX_ITEMS = 100_000     # a template larger than this is cut (the CSV stays fast; XLSX is slower)
XLSX_TEMPLATE_MAX_ITEMS = 20_000
OVERRIDE_PREFIX = "Decisão do presidente, divergente do consenso"


@dataclass(frozen=True)
class ContractChoice:
    code: str
    wreck: str
    organisation: str
    items: int
    rounds: int
    open_round: int | None       # number of the open round, if any

    @property
    def label(self) -> str:
        tail = f" · rodada {self.open_round} aberta" if self.open_round else ""
        return f"{self.code} — {self.wreck} ({self.items:,} itens){tail}".replace(",", ".")


def round_contracts(store: Store, user: Principal) -> list[ContractChoice]:
    """Contracts with recovered items (the ones a round can be opened on) and those that
    already have rounds: those with an open round first, then with rounds, then the rest."""
    require(user, "read_rounds")
    rows = store.fetch(
        """WITH n AS (SELECT contract_id, count(*) AS items FROM items GROUP BY contract_id),
                r AS (SELECT contract_id, count(*) AS rounds,
                             max(number) FILTER (WHERE status = 'aberta') AS open_round
                      FROM assessment_rounds GROUP BY contract_id)
           SELECT c.code, w.name AS wreck, o.name AS organisation, coalesce(n.items, 0) AS items,
                  coalesce(r.rounds, 0) AS rounds, r.open_round
           FROM contracts c JOIN wrecks w ON w.id = c.wreck_id JOIN organisations o ON o.id = c.organisation_id
           LEFT JOIN n ON n.contract_id = c.id LEFT JOIN r ON r.contract_id = c.id
           WHERE n.items > 0 OR r.rounds > 0
           ORDER BY r.open_round IS NULL, coalesce(r.rounds, 0) = 0, c.code""")
    return [ContractChoice(code=r["code"], wreck=r["wreck"], organisation=r["organisation"], items=int(r["items"]),
                           rounds=int(r["rounds"]), open_round=None if r["open_round"] is None
                           else int(r["open_round"])) for r in rows]


def known_currencies(store: Store, user: Principal) -> list[str]:
    """BRL and every currency with a stored rate (what a value may be entered in)."""
    require(user, "read_rates")
    rows = store.fetch("SELECT DISTINCT currency FROM fx_rates ORDER BY currency")
    return ["BRL", *[r["currency"] for r in rows if r["currency"] != "BRL"]]


def my_item_history(store: Store, user: Principal, round_id: int, item_id: int) -> pd.DataFrame:
    """The member's own entries for one item of a round, newest first (the whole trail:
    corrections keep the rows they replace). Columns: log_id, entered_at, historical,
    amount, currency, price_date, rate, rate_date, value_brl, significance, must_keep,
    source, source_note, supersedes, in_force."""
    require(user, "read_own_assessments")
    fetch_round(store, round_id, count=False)
    return store.fetch_df(
        """SELECT l.id AS log_id, l.entered_at, l.historical, l.amount, l.currency, l.price_date, l.rate,
                  coalesce(l.conversion_rate_date, l.rate_date) AS rate_date, l.conversion_date, l.value_brl,
                  l.significance, l.must_keep, l.source, l.source_note, l.supersedes,
                  c.log_id IS NOT NULL AS in_force
           FROM assessment_log l LEFT JOIN assessment_current c ON c.log_id = l.id
           WHERE l.round_id = ? AND l.item_id = ? AND l.member_id = ?
           ORDER BY l.id DESC""", [round_id, item_id, user.id])


def round_item(store: Store, user: Principal, round_id: int, item_code: str) -> dict[str, Any]:
    """{item_id, item_code, description} of an item of the round, by its code; NotFound otherwise."""
    require(user, "read_rounds")
    row = fetch_round(store, round_id, count=False)
    code = (item_code or "").strip()
    found = store.fetch_one(
        "SELECT i.id AS item_id, i.item_code, i.description FROM round_items ri JOIN items i ON i.id = ri.item_id "
        "WHERE ri.round_id = ? AND i.item_code = ?", [round_id, code])
    if found is None:
        raise NotFound(f"Item {code or '(vazio)'} não faz parte da rodada {row['number']} do contrato "
                       f"{row['contract_code']}.", what="item", key=code)
    return found


def round_progress(store: Store, user: Principal, round_id: int) -> pd.DataFrame:
    """How many items each member has entered (counts only, never values) — for the
    president deciding when to close, and for dpc. Columns: member, body, entries, items."""
    require(user, "follow_round_progress")
    row = fetch_round(store, round_id)
    members, params = users_with_roles(COMMISSION_ROLES, "u")
    df = store.fetch_df(
        f"""SELECT u.full_name AS member, u.commission_body AS body, count(c.item_id) AS entries
           FROM users u LEFT JOIN assessment_current c ON c.member_id = u.id AND c.round_id = ?
           WHERE ({members} AND u.active) OR c.item_id IS NOT NULL
           GROUP BY u.id, u.full_name, u.commission_body ORDER BY u.commission_body DESC, u.full_name""",
        [round_id, *params])
    df["body"] = [BODY_LABELS.get(b, "—") if isinstance(b, str) else "—" for b in df["body"].tolist()]
    df["items"] = int(row["item_count"])
    return df


def round_template(store: Store, user: Principal, round_id: int, fmt: str = "csv") -> bytes:
    """A sheet for `sheet_import.import_assessments`: one row per item of the round (by code,
    with its description, which the import ignores), pre-filled with the member's own
    entries in force — download, fill in, upload. `fmt` 'csv' (`;`, decimal comma) or 'xlsx'."""
    require(user, "enter_assessments")
    if fmt not in ("csv", "xlsx"):
        raise InputError(Problem("fmt", "Formato: csv ou xlsx."))
    fetch_round(store, round_id, count=False)
    limit = XLSX_TEMPLATE_MAX_ITEMS if fmt == "xlsx" else TEMPLATE_MAX_ITEMS
    rows = store.fetch(
        """SELECT i.item_code, i.description, l.historical, l.amount, l.currency, l.price_date, l.significance,
                  l.must_keep, l.source, l.source_note
           FROM round_items ri JOIN items i ON i.id = ri.item_id
           LEFT JOIN assessment_current c ON c.round_id = ri.round_id AND c.item_id = ri.item_id AND c.member_id = ?
           LEFT JOIN assessment_log l ON l.id = c.log_id
           WHERE ri.round_id = ? ORDER BY i.item_code LIMIT ?""", [user.id, round_id, limit])

    def yn(v: object) -> str:
        return "sim" if v is True else "não" if v is False else ""

    def amount(v: object) -> str:
        return "" if v is None else format(v, "f").replace(".", ",")

    data = [[r["item_code"], r["description"], yn(r["historical"]), amount(r["amount"]), r["currency"] or "",
             "" if r["price_date"] is None else r["price_date"].strftime("%d/%m/%Y"),
             "" if r["significance"] is None else str(r["significance"]), yn(r["must_keep"]) if r["historical"]
             else "", source_sheet_value(r["source"]), r["source_note"] or ""] for r in rows]
    frame = pd.DataFrame(data, columns=list(TEMPLATE_COLUMNS))
    if fmt == "xlsx":
        return to_xlsx_bytes({"Avaliações": frame})
    return to_csv_bytes(frame)


def parse_brl(text: object, field: str = "value_brl", label: str = "Valor (R$)") -> Decimal:
    """A money amount typed in a form ('1.234,56', '1234.56', 'R$ 10'), ≥ 0, at most 2 places; mixed
    separators ('1001.76,41') are refused, never guessed (`core.money.parse_brl`)."""
    return money.parse_brl(text, path=field, label=label, minimum=Decimal(0), maximum=MAX_VALUE_BRL)


def override_decision(store: Store, user: Principal, round_id: int, item_code: str, *, historical: bool | None,
                      value: object, significance: int | None, must_keep: bool, reason: str) -> DecisionsResult:
    """The president overrides the consensus of one item (Lei 7.542 art. 20 §3), with the
    reason written into the decision's basis; `decisions.record_decisions` keeps it
    append-only (a later decision supersedes). Every problem is reported at once."""
    require(user, "record_decisions")
    problems: list[Problem] = []
    if not isinstance(historical, bool):
        problems.append(Problem("historical", "Classificação: escolha histórico ou não histórico."))
    amount: Decimal | None = None
    try:
        amount = parse_brl(value)
    except InputError as exc:
        problems += exc.problems
    text = (reason or "").strip()
    if len(text) < 5:
        problems.append(Problem("reason", "Motivo: explique por que a decisão diverge do consenso."))
    item: Mapping[str, Any] | None = None
    try:
        item = round_item(store, user, round_id, item_code)
    except NotFound as exc:
        problems.append(Problem("item_code", f"Código do item: {str(exc)[:1].lower()}{str(exc)[1:]}"))
    if problems:
        raise InputError(problems)
    assert item is not None and amount is not None
    sig = significance if historical else None
    return record_decisions(store, user, round_id, [DecisionInput(
        item_id=int(item["item_id"]), historical=bool(historical), value_brl=amount, significance=sig,
        must_keep=bool(must_keep) and bool(historical), basis=f"{OVERRIDE_PREFIX}: {text}")])


# -- published decisions (the frame comes from decisions.published_decisions) -------------
@dataclass(frozen=True)
class DecisionTotals:
    items: int
    historical: int
    historical_value: Decimal
    other: int
    other_value: Decimal
    must_keep: int

    @property
    def total_value(self) -> Decimal:
        return self.historical_value + self.other_value


def decision_totals(df: pd.DataFrame) -> DecisionTotals:
    """Counts and exact sums (Decimal) of published decisions: historical / other — over
    the frame's Arrow columns (a million decisions, no Python object per row)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(df):
        return DecisionTotals(items=0, historical=0, historical_value=Decimal("0.00"), other=0,
                              other_value=Decimal("0.00"), must_keep=0)
    hist = pc.fill_null(pa.array(df["historical"].array, from_pandas=True).cast(pa.bool_()), False)
    keep = pc.fill_null(pa.array(df["must_keep"].array, from_pandas=True).cast(pa.bool_()), False)
    values = pa.array(df["value_brl"].array, from_pandas=True)
    if not pa.types.is_decimal(values.type):          # a frame built by hand: exact Decimals
        values = pa.array([Decimal(str(v)) for v in df["value_brl"].tolist()], type=pa.decimal128(38, 2))

    def total(mask: pa.Array) -> Decimal:
        got = pc.sum(pc.filter(values, mask)).as_py()
        return Decimal("0.00") if got is None else got + Decimal("0.00")

    n_hist = int(pc.sum(hist.cast(pa.int64())).as_py() or 0)
    return DecisionTotals(items=len(df), historical=n_hist, historical_value=total(hist), other=len(df) - n_hist,
                          other_value=total(pc.invert(hist)), must_keep=int(pc.sum(keep.cast(pa.int64())).as_py() or 0))


def decisions_summary(store: Store, user: Principal, contract_code: str) -> DecisionTotals:
    """`decision_totals` of a contract's published decisions, summed in SQL (no frame of a
    million rows): what the decisions page shows above its table."""
    cid = published_contract(store, user, contract_code)
    row = store.fetch_one(   # the decisions in force alone: no item or round column is summed
        f"{LATEST_SQL} SELECT count(*) AS items, count(*) FILTER (WHERE p.historical) AS historical, "
        f"coalesce(sum(p.value_brl) FILTER (WHERE p.historical), 0) AS hv, "
        f"coalesce(sum(p.value_brl) FILTER (WHERE NOT p.historical), 0) AS ov, "
        f"count(*) FILTER (WHERE p.must_keep) AS keep FROM latest JOIN decisions p ON p.id = latest.id", [cid]) or {}
    items, hist = int(row.get("items") or 0), int(row.get("historical") or 0)
    return DecisionTotals(items=items, historical=hist, historical_value=Decimal(row.get("hv") or 0) + Decimal("0.00"),
                          other=items - hist, other_value=Decimal(row.get("ov") or 0) + Decimal("0.00"),
                          must_keep=int(row.get("keep") or 0))


def selection_size(totals: DecisionTotals, historical: bool | None) -> int:
    """How many decisions `decisions_page` keeps without a search, from the contract's totals:
    all of them, the historical ones or the others (`historical` is NOT NULL)."""
    return totals.items if historical is None else totals.historical if historical else totals.other


def decisions_page(store: Store, user: Principal, contract_code: str, *, historical: bool | None = None,
                   search: str = "", page: int = 1, page_size: int = 100,
                   total: int | None = None) -> tuple[pd.DataFrame, int]:
    """One page of a contract's published decisions in item-code order, filtered in SQL —
    `historical` True/False keeps that group, `search` (case-insensitive) the items whose
    code or description holds it — and how many decisions the filter keeps. The columns of
    `decisions.published_decisions`. `total`: that count when the caller already has it
    (`selection_size` of the summary, no search): its query is not run again."""

    check_page(page, page_size)
    cid = published_contract(store, user, contract_code)
    clauses: list[str] = ["TRUE"]
    params: list[Any] = [cid]
    if historical is not None:
        clauses.append("d.historical = ?")
        params.append(bool(historical))
    text = (search or "").strip().lower()
    if text:
        clauses.append("contains(lower(i.item_code || ' ' || i.description), ?)")
        params.append(text)
    where = " AND ".join(clauses)
    # The count joins the items only to search their text; the page is chosen on (id, code) alone and
    # its 100 rows read afterwards — not every decision's columns sorted (0.23 → 0.10 s at 1M items).
    items = "JOIN items i ON i.id = d.item_id" if text else ""
    if total is None:
        total = int(store.scalar(f"{LATEST_SQL} SELECT count(*) FROM latest JOIN decisions d ON d.id = latest.id "
                                 f"{items} WHERE {where}", params))
    rows = store.fetch_df(
        f"""{LATEST_SQL}, page AS (SELECT d.id, i.item_code FROM latest JOIN decisions d ON d.id = latest.id
                                   JOIN items i ON i.id = d.item_id WHERE {where}
                                   ORDER BY i.item_code LIMIT ? OFFSET ?)
            SELECT {PUBLISHED_COLUMNS}
            FROM page JOIN decisions d ON d.id = page.id JOIN assessment_rounds r ON r.id = d.round_id
            JOIN items i ON i.id = d.item_id ORDER BY page.item_code""",
        [*params, page_size, (page - 1) * page_size])
    return rows, total


DECISION_LABELS: dict[str, str] = {
    "item_code": "Item", "description": "Descrição", "historical": "Histórico", "value_brl": "Valor (R$)",
    "significance": "Significância", "must_keep": "Manter na União", "basis": "Fundamento",
    "round_number": "Rodada", "decided_at": "Decidido em", "published_at": "Publicado em",
}


def decisions_xlsx(df: pd.DataFrame, contract_code: str) -> bytes:
    """The published decisions of a contract as an XLSX workbook (values exact, R$ format)."""
    cols = [c for c in DECISION_LABELS if c in df.columns]
    out = pd.DataFrame({DECISION_LABELS[c]: df[c].tolist() for c in cols})
    for c in ("Histórico", "Manter na União"):
        if c in out.columns:
            out[c] = ["sim" if v is True else "não" if v is False else "" for v in out[c].tolist()]
    t = decision_totals(df)
    summary = pd.DataFrame({
        "Contrato": [contract_code] * 3,
        "Grupo": ["Históricos", "Demais", "Total"],
        "Itens": [t.historical, t.other, t.items],
        "Valor (R$)": [t.historical_value, t.other_value, t.total_value],
    })
    return to_xlsx_bytes({"Decisões": out, "Totais": summary}, money_columns={"Decisões": ["Valor (R$)"],
                                                                             "Totais": ["Valor (R$)"]})


def vote_label(vote: object) -> str:
    """A member's vote in words ('histórico', 'não histórico', 'não votou')."""
    return VOTE_LABELS[vote if isinstance(vote, bool) else None]


def source_label(code: object) -> str:
    return SOURCES.get(code, str(code)) if isinstance(code, str) else "—"


def source_sheet_value(code: object) -> str:
    """What a sheet holds for a value source: its label without the legal note ('avaliação externa'),
    which the import reads back (accents and case folded)."""
    return SOURCES[code].split(" (")[0] if isinstance(code, str) and code in SOURCES else ""


SHEET_SOURCE_VALUES = tuple(source_sheet_value(code) for code in SOURCES)


__all__ = ["BODY_LABELS", "ContractChoice", "DECISION_LABELS", "DecisionTotals", "OVERRIDE_PREFIX", "VOTE_LABELS",
           "decision_totals", "decisions_page", "decisions_summary", "decisions_xlsx", "known_currencies",
           "my_item_history", "override_decision", "parse_brl", "problems_frame", "round_contracts", "round_item",
           "round_progress", "round_template", "SHEET_SOURCE_VALUES", "source_label", "source_sheet_value",
           "vote_label"]
