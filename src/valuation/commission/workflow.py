"""The Interministerial Commission's assessment rounds — store side (issue 3; rules.md §2).

The Commission (3 Navy/DPHCM + 3 Ministry of Culture members, presided by a Navy
member: NORMAM-10 0303 c 1 I) classifies each recovered item as of artistic,
historical or archaeological value or not, and attributes its value considering
international market prices (Lei 7.542/1986 art. 20 §3; art. 21 §2).

The workflow (Delphi-style rounds):

1. `open_round` — the president opens a round over items of a contract (all of
   them, a chosen set, or the items flagged in a previous round). The round takes a
   snapshot of the policies (`consensus_method`, `quorum`, `spread_threshold`: the
   latest `policies` row per key, else `valuation.policies.defaults` defaults) and of its
   president, whose vote breaks ties (Lei 2.180/1954 art. 70, by analogy).
2. `record_assessment` / `import_assessments` — each member enters, per item, a
   vote, a value (currency + price date, converted with the stored rate on or
   before the price date: never a later one) and, for a historical vote, a
   significance 1–5 and a "must keep" proposal, with the source of the value.
   Every entry is a new `assessment_log` row (who, when, the rate used, the exact
   BRL value); a second entry for the same item is a correction pointing at the
   row it replaces (`supersedes`). `assessment_current` holds the entry in force
   and the item's consensus is recomputed at once (`item_consensus`).
   While the round is open a member sees only his or her own entries.
3. `close_round` — the president closes it; the whole round's consensus is
   recomputed in SQL (`valuation.commission.consensus_sql`) and members then see, per
   item, the anonymous median and spread; flagged items can go to a new round.
4. `record_decisions` — the president records the decisions (by default the
   stored consensus of every decided item); `decisions` is append-only (a
   correction supersedes) and `item_valuation` holds the decision in force.
5. `publish_round` — decisions become visible to the explorer of the contract.

Access (`commission_access`): members (commission, commission_president) enter their
own values; the president opens, closes, decides and publishes; dpc reads everything;
explorers read only published decisions of their own contracts; the admin reads
nothing. Every write is audited (`Tx.audit`).

Neighbours: the consensus SQL is `consensus_sql`, the rate table `fx_rates`, the
agreement statistics `commission_agreement` (re-exported here), the parsing and
checking of entries `valuation.commission.sheet`.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.commission import comparables, consensus_pivot
from valuation.commission.access import (
    ITEM_COUNT_SQL,
    MEMBERS,
    PRESIDENT,
    PSEUDONYM_SQL,
    READERS,
    ROUND_SQL,
    STATUS_LABELS,
    YOU,
    fetch_round,
    require_lawful_panel,
    require_role,
)
from valuation.commission.agreement_queries import (
    MemberDeviation,
    RoundAgreement,
    agreement,
    alpha_from_vote_patterns,
)
from valuation.commission.consensus_sql import (
    INLINE_IDS,
    compute_round_consensus,
    insert_consensus,
    score_code,
    score_code_sql,
    update_consensus,
    vote_code,
    vote_code_sql,
)
from valuation.commission.fx import EXACT
from valuation.commission.rates import add_rate, attach_rates, import_rates, list_rates
from valuation.commission.sheet import (
    AMOUNT_TYPE,
    LABELS,
    MAX_VALUE_BRL,
    Entries,
    Problems,
    check_entries,
    parse_sheet,
    single_entry,
)
from valuation.core.errors import (
    AccessDenied,
    ConflictError,
    InputError,
    NotFound,
    Problem,
)
from valuation.core.money import to_cents
from valuation.db.access import Principal
from valuation.db.paging import check_page
from valuation.policies.defaults import ConsensusPolicy

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

__all__ = [
    "AssessmentImport", "DecisionInput", "DecisionsResult", "MemberDeviation", "RecordedEntry", "Round",
    "RoundAgreement", "RoundOverview", "STATUS_LABELS", "add_rate", "agreement", "close_round",
    "compute_round_consensus", "get_round", "import_assessments", "import_rates", "list_rates", "list_rounds",
    "alpha_from_vote_patterns", "current_policy", "my_assessments", "open_round", "publish_round",
    "published_decisions", "record_assessment",
    "record_assessments_bulk", "record_decisions", "round_entries", "round_overview",
]

VALUES_AFTER_CLOSE = ("Rodada aberta: a DPC acompanha o andamento (quantos itens cada membro avaliou); os valores "
                      "e votos de cada membro aparecem no encerramento, como para os membros.")
METHOD_LABELS: dict[str, str] = {"median": "mediana", "mean": "média", "trimmed_mean": "média aparada"}
IMPORT_KIND = "avaliacoes_comissao"
MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50
BASIS_DEFAULT = "Lei 7.542/1986 art. 20 §3"


# ======================================================================================
# Records
# ======================================================================================
@dataclass(frozen=True)
class Round:
    id: int
    contract_id: int
    contract_code: str
    number: int
    previous_round_id: int | None
    status: str                  # aberta | encerrada | decidida | publicada
    method: str                  # median | mean | trimmed_mean (snapshot of the policy)
    quorum: int
    spread_threshold: Decimal
    president_id: int | None
    opened_by: str | None
    opened_at: datetime
    closed_by: str | None
    closed_at: datetime | None
    decided_by: str | None
    decided_at: datetime | None
    published_by: str | None
    published_at: datetime | None
    item_count: int

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.status, self.status)

    @property
    def policy(self) -> ConsensusPolicy:
        return ConsensusPolicy(method=self.method, quorum=self.quorum, spread_threshold=self.spread_threshold)


@dataclass(frozen=True)
class RecordedEntry:
    """One row of the trail (assessment_log)."""

    log_id: int
    round_id: int
    item_id: int
    member_id: int
    historical: bool | None
    amount: Decimal | None
    currency: str | None
    price_date: date | None
    rate: Decimal | None          # the rate used (1 for BRL)
    rate_date: date | None        # its date, never after price_date (None for BRL)
    value_brl: Decimal | None     # amount × rate, exact
    significance: int | None
    must_keep: bool | None
    source: str | None
    source_note: str | None
    supersedes: int | None
    entered_by: str
    entered_at: datetime


@dataclass(frozen=True)
class AssessmentImport:
    round_id: int
    import_id: int
    file_name: str
    sha256: str
    rows: int
    new: int
    corrections: int
    ignored_columns: tuple[str, ...]


@dataclass(frozen=True)
class DecisionInput:
    """A decision the president records for one item (Lei 7.542 art. 20 §3)."""

    item_id: int
    historical: bool
    value_brl: Decimal
    significance: int | None = None
    must_keep: bool = False
    basis: str | None = None


@dataclass(frozen=True)
class DecisionsResult:
    round_id: int
    written: int
    skipped: int          # default mode: round items left without a decision (undecided or without value)
    corrections: int      # decisions that supersede an earlier one of the same item


@dataclass(frozen=True, eq=False)
class RoundOverview:
    """One page of a round's items as `user` may see them.

    visibility: 'own' (a member while the round is open: own entry only), 'progress' (dpc while
    the round is open: how many members assessed each item, never a value or a vote),
    'anonymous' (a member after the close: own entry + the anonymous median, spread, votes
    and consensus), 'full' (dpc after the close: the consensus).
    """

    round: Round
    visibility: str
    items: pd.DataFrame
    total_items: int
    page: int
    page_size: int


# ======================================================================================
# Access and small helpers
# ======================================================================================
_ROUND_FIELDS = tuple(f.name for f in fields(Round))


def _round_of(row: Mapping[str, Any], *, hide_people: bool = False) -> Round:
    data = {k: row[k] for k in _ROUND_FIELDS}
    data["item_count"] = int(data["item_count"] or 0)
    if hide_people:
        for k in ("opened_by", "closed_by", "decided_by", "published_by", "president_id"):
            data[k] = None
    return Round(**data)


def _readable_round(store: Store, user: Principal, round_id: int) -> dict[str, Any]:
    """The round row if `user` may read it (explorers: published rounds of their own contracts)."""
    if user.role == "explorer":
        row = fetch_round(store, round_id)
        if row["organisation_id"] != user.organisation_id or row["status"] != "publicada":
            raise NotFound(f"Rodada de avaliação {round_id} não encontrada.", what="assessment_round",
                           key=round_id)
        return row
    require_role(user, READERS, "consultar as rodadas da Comissão")
    return fetch_round(store, round_id)


def _status_conflict(row: Mapping[str, Any], allowed: Sequence[str], action: str) -> None:
    if row["status"] not in allowed:
        raise ConflictError(f"Não é possível {action}: a rodada {row['number']} do contrato {row['contract_code']} "
                            f"está {STATUS_LABELS.get(row['status'], row['status']).lower()}.")


def _page_args(page: object, page_size: object) -> None:
    check_page(page, page_size, MAX_PAGE_SIZE)


def current_policy(db: Store | Tx) -> ConsensusPolicy:
    """The consensus policy in force today (`valuation.policies.values`, the one reader), the rules a
    round takes when it opens. A stored value that cannot be used is an error, never ignored."""
    from valuation.policies.values import policy_in_force

    states = {k: policy_in_force(db, k) for k in ("consensus_method", "quorum", "spread_threshold")}
    broken = [f"{s.label}: {s.unreadable}" for s in states.values() if s.unreadable]
    if broken:
        raise ConflictError("Política da Comissão ilegível no banco de dados: " + "; ".join(broken))
    return ConsensusPolicy(method=states["consensus_method"].value, quorum=int(states["quorum"].value),
                           spread_threshold=Decimal(states["spread_threshold"].value))


def _register(tx: Tx, name: str, table: pa.Table) -> str:
    view = f"_{name}_{id(table)}"
    tx.cur.register(view, table)
    return view


def _count(rows: list[dict[str, Any]]) -> int:
    return int(next(iter(rows[0].values()))) if rows else 0


# ======================================================================================
# Rounds
# ======================================================================================
def open_round(store: Store, user: Principal, contract_code: str, item_ids: Sequence[int] | None = None, *,
               from_round: int | None = None) -> Round:
    """Open an assessment round (president only) over `item_ids` of the contract — by
    default all its items, or with `from_round` the items flagged in that round (rules.md
    §2: "flag an item for another round"). One open round per contract at a time."""
    require_role(user, (PRESIDENT,), "abrir rodadas de avaliação")
    if user.commission_body != "navy":
        # NORMAM-10 0303 c 1 I: "A presidência da Comissão caberá a um dos membros da MB."
        raise AccessDenied("A presidência da Comissão cabe a um membro da Marinha (NORMAM-10 0303 c 1 I): "
                           "corrija o órgão deste usuário.", user=user.username, action="open_round")
    if not isinstance(contract_code, str) or not contract_code.strip():
        raise InputError(Problem("contract_code", "Contrato: informe o código."))

    def run(tx: Tx) -> int:
        contract = tx.fetch_one("SELECT id, code FROM contracts WHERE code = ?", [contract_code.strip()])
        if contract is None:
            raise NotFound(f"Contrato {contract_code} não encontrado.", what="contract", key=contract_code)
        cid = contract["id"]
        require_lawful_panel(tx)  # NORMAM-10 0303 c 1 I: 3 + 3 members, a Navy president
        open_now = tx.fetch_one("SELECT number FROM assessment_rounds WHERE contract_id = ? AND status = 'aberta'",
                                [cid])
        if open_now is not None:
            raise ConflictError(f"O contrato {contract['code']} já tem a rodada {open_now['number']} aberta: "
                                f"encerre-a antes de abrir outra.")
        previous = None
        if from_round is not None:
            previous = fetch_round(tx, from_round)
            if previous["contract_id"] != cid:
                raise InputError(Problem("from_round", f"Rodada anterior: a rodada {from_round} é de outro "
                                                       f"contrato ({previous['contract_code']})."))
            if previous["status"] == "aberta":
                raise ConflictError(f"A rodada {previous['number']} ainda está aberta: encerre-a antes.")
        if item_ids is None:
            if previous is not None:
                source_sql = ("SELECT item_id FROM item_consensus WHERE round_id = ? AND flagged", [previous["id"]])
            else:
                source_sql = ("SELECT id AS item_id FROM items WHERE contract_id = ?", [cid])
            view = None
        else:
            ids = _id_array(item_ids, "item_ids")
            view = _register(tx, "open_ids", pa.table({"item_id": ids}))
            source_sql = (f"SELECT DISTINCT item_id FROM {view}", [])
        try:
            if view is not None:
                unknown = tx.execute(f"SELECT v.item_id FROM {view} v LEFT JOIN items i ON i.id = v.item_id "
                                     f"AND i.contract_id = ? WHERE i.id IS NULL ORDER BY v.item_id LIMIT 21", [cid])
                if unknown:
                    listed = ", ".join(str(u["item_id"]) for u in unknown[:20]) + ("…" if len(unknown) > 20 else "")
                    raise InputError(Problem("item_ids", f"Itens: não pertencem ao contrato {contract['code']}: "
                                                         f"{listed}."))
            n_items = int(tx.scalar(f"SELECT count(*) FROM ({source_sql[0]})", source_sql[1]))
            if n_items == 0:
                if previous is not None and item_ids is None:
                    raise InputError(Problem("from_round", f"Rodada anterior: a rodada {previous['number']} não "
                                                           f"tem itens sinalizados para nova rodada."))
                raise InputError(Problem("item_ids", f"Itens: o contrato {contract['code']} não tem itens para "
                                                     f"avaliar."))
            policy = current_policy(tx)
            number = int(tx.scalar("SELECT coalesce(max(number), 0) + 1 FROM assessment_rounds WHERE contract_id = ?",
                                   [cid]))
            round_id = int(tx.scalar(
                "INSERT INTO assessment_rounds (contract_id, number, previous_round_id, status, method, quorum, "
                "spread_threshold, opened_by, opened_at, president_id) VALUES (?, ?, ?, 'aberta', ?, ?, ?, ?, ?, ?) "
                "RETURNING id",
                [cid, number, None if previous is None else previous["id"], policy.method, policy.quorum,
                 policy.spread_threshold, user.username, store.now(), user.id]))
            tx.execute(f"INSERT INTO round_items (round_id, item_id) SELECT ?, item_id FROM ({source_sql[0]}) "
                       f"ORDER BY item_id", [round_id, *source_sql[1]])
        finally:
            if view is not None:
                tx.cur.unregister(view)
        insert_consensus(tx, round_id)
        tx.audit("round_opened", "assessment_round", round_id, None, {
            "contract": contract["code"], "number": number, "items": n_items, "method": policy.method,
            "quorum": policy.quorum, "spread_threshold": policy.spread_threshold,
            "from_round": None if previous is None else previous["id"], "president": user.username})
        return round_id

    round_id = store.write(user.username, run)
    return _round_of(fetch_round(store, round_id))


def _id_array(values: Sequence[int], field: str) -> pa.Array:
    try:
        arr = np.asarray(list(values))
        if arr.size and (arr.dtype.kind not in "iu"):
            raise TypeError
        return pa.array(arr.astype(np.int64), type=pa.int64())
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(Problem(field, "Itens: informe identificadores inteiros.")) from exc


def get_round(store: Store, user: Principal, round_id: int) -> Round:
    """One round, if `user` may read it (explorers: a published round of their own contracts)."""
    row = _readable_round(store, user, round_id)
    return _round_of(row, hide_people=user.role == "explorer")


def list_rounds(store: Store, user: Principal, contract_code: str | None = None) -> list[Round]:
    """Rounds, newest first: dpc and the Commission all; an explorer only the published
    rounds of its own contracts (without the names of the people); the admin none."""
    clauses, params = ["TRUE"], []
    if user.role == "explorer":
        clauses += ["c.organisation_id = ?", "r.status = 'publicada'"]
        params.append(user.organisation_id)
    else:
        require_role(user, READERS, "consultar as rodadas da Comissão")
    if contract_code:
        clauses.append("c.code = ?")
        params.append(contract_code)
    rows = store.fetch(ROUND_SQL.format(count=ITEM_COUNT_SQL) + " WHERE " + " AND ".join(clauses)
                       + " ORDER BY c.code, r.number DESC", params)
    return [_round_of(r, hide_people=user.role == "explorer") for r in rows]


def close_round(store: Store, user: Principal, round_id: int) -> Round:
    """Close an open round (president only): entries stop, the whole round's consensus is
    recomputed and stored, and members may see the anonymous medians and spreads."""
    require_role(user, (PRESIDENT,), "encerrar rodadas")

    def run(tx: Tx) -> None:
        row = fetch_round(tx, round_id)
        _status_conflict(row, ("aberta",), "encerrar a rodada")
        tx.execute("UPDATE assessment_rounds SET status = 'encerrada', closed_by = ?, closed_at = ? WHERE id = ?",
                   [user.username, store.now(), round_id])
        n = update_consensus(tx, round_id)
        summary = tx.fetch_one("SELECT count(*) FILTER (WHERE flagged) AS flagged, "
                               "count(*) FILTER (WHERE decided_by = 'undecided') AS undecided "
                               "FROM item_consensus WHERE round_id = ?", [round_id]) or {}
        outside = comparables.flag_round(tx, round_id)   # issue 16: consensus far from the comparables
        tx.audit("round_closed", "assessment_round", round_id, {"status": "aberta"},
                 {"status": "encerrada", "items": n, "flagged": summary.get("flagged"),
                  "undecided": summary.get("undecided"), "outside_comparables": outside})

    store.write(user.username, run)
    return _round_of(fetch_round(store, round_id))


def publish_round(store: Store, user: Principal, round_id: int) -> Round:
    """Publish a decided round (president only): its decisions become visible to the
    explorer of the contract."""
    require_role(user, (PRESIDENT,), "publicar decisões")

    def run(tx: Tx) -> None:
        row = fetch_round(tx, round_id)
        _status_conflict(row, ("decidida",), "publicar a rodada")
        now = store.now()
        tx.execute("UPDATE assessment_rounds SET status = 'publicada', published_by = ?, published_at = ? "
                   "WHERE id = ?", [user.username, now, round_id])
        n = _count(tx.execute("UPDATE item_valuation SET published = TRUE WHERE round_id = ? AND NOT published",
                              [round_id]))
        comparables.record_published(tx, round_id)   # issue 16: published decisions become comparables
        tx.audit("round_published", "assessment_round", round_id, {"status": "decidida"},
                 {"status": "publicada", "valuations_published": n})

    store.write(user.username, run)
    return _round_of(fetch_round(store, round_id))


# ======================================================================================
# Entries
# ======================================================================================
def _member_round(tx: Tx, round_id: int, *, count: bool = True) -> dict[str, Any]:
    row = fetch_round(tx, round_id, count=count)
    _status_conflict(row, ("aberta",), "registrar avaliações")
    return row


def _today(store: Store) -> date:
    return store.now().date()


def _write_entries(tx: Tx, rnd: Mapping[str, Any], user: Principal, entries: Entries, item_ids: pa.Array, *,
                   import_id: int | None) -> tuple[pa.Table, int]:
    """Convert, check and write a batch of one member's entries (all or nothing).

    `item_ids` (int64, null where the item is unknown — already reported) lines up with
    `entries.frame`. Adds the rate problems to `entries.problems` and raises them all;
    otherwise appends assessment_log rows, brings assessment_current in step and
    recomputes the consensus of the items touched. Returns (the log rows written:
    id, item_id, supersedes; corrections).
    """
    f = entries.frame
    p = entries.problems
    n = len(f)
    now = tx.store.now()
    amount = pa.array(f["amount"].array, from_pandas=True)
    currency = pa.array(f["currency"].array, from_pandas=True)
    price_date = pa.array(f["price_date"].array, from_pandas=True)
    bad = p.bad_rows()
    needs_rate = ~bad & _np(amount.is_valid())
    rate = pa.nulls(n, pa.decimal128(18, 6))
    rate_date = pa.nulls(n, pa.date32())
    if needs_rate.any():
        # One ASOF join over all rows, in row order (rows without a value look up nothing).
        stage = pa.table({"row": pa.array(np.arange(n), type=pa.int64()),
                          "currency": pc.if_else(pa.array(needs_rate), currency, pa.scalar(None, pa.string())),
                          "price_date": price_date})
        view = _register(tx, "rates", stage)
        try:
            found = attach_rates(tx, view)
        finally:
            tx.cur.unregister(view)
        known = _np(found["known"])
        has_rate = _np(found["rate"].is_valid())
        unknown_currency = needs_rate & ~known
        no_rate = needs_rate & known & ~has_rate
        if unknown_currency.any():
            names = np.array(pc.filter(currency, pa.array(unknown_currency)).to_pylist(), dtype=object)
            p.add(unknown_currency, "currency", "não há cotação de " + names + " cadastrada: cadastre-a em Câmbio")
        if no_rate.any():
            names = np.array(pc.filter(currency, pa.array(no_rate)).to_pylist(), dtype=object)
            days = np.array([d.strftime("%d/%m/%Y") for d in pc.filter(price_date, pa.array(no_rate)).to_pylist()],
                            dtype=object)
            p.add(no_rate, "price_date", "não há cotação de " + names + " em ou antes de " + days
                  + " (nunca se usa cotação posterior à data do preço)")
        rate = found["rate"].combine_chunks().cast(pa.decimal128(18, 6))
        rate_date = found["rate_date"].combine_chunks().cast(pa.date32())
    value = pc.multiply(pc.cast(amount, AMOUNT_TYPE), rate)       # decimal128(37,8): exact
    too_big = _np(pc.greater(value, pa.scalar(MAX_VALUE_BRL, pa.decimal128(18, 2))))
    p.add(too_big, "amount", "valor convertido em reais grande demais (máximo R$ 9.999.999.999.999.999,99)")
    p.raise_if_any()

    value = pc.cast(value, pa.decimal128(26, 8))
    log = pa.table({
        "round_id": pa.array(np.full(n, rnd["id"], dtype=np.int64)),
        "item_id": item_ids,
        "member_id": pa.array(np.full(n, user.id, dtype=np.int64)),
        "historical": pa.array(f["historical"].array, from_pandas=True),
        "amount": pc.cast(amount, AMOUNT_TYPE),
        "currency": currency,
        "price_date": price_date,
        "rate": rate,
        "rate_date": rate_date,
        "value_brl": value,
        "significance": pc.cast(pa.array(f["significance"].array, from_pandas=True), pa.int32()),
        "must_keep": pa.array(f["must_keep"].array, from_pandas=True),
        "source": pa.array(f["source"].array, from_pandas=True),
        "source_note": pa.array(f["source_note"].array, from_pandas=True),
    })
    # A few items: name them in every statement, so that DuckDB reads only the row groups
    # holding them (a one-value correction must not scan a million-item round).
    ids = np.unique(pc.drop_null(item_ids).to_numpy()).tolist()
    only = f" AND c.item_id IN ({', '.join(map(str, ids))})" if len(ids) <= INLINE_IDS else ""
    view = _register(tx, "entries", log)
    try:
        written = tx.cur.sql(
            f"INSERT INTO assessment_log (round_id, item_id, member_id, historical, amount, currency, price_date, "
            f"rate, rate_date, value_brl, significance, must_keep, source, source_note, supersedes, entered_by, "
            f"entered_at, import_id) "
            f"SELECT s.round_id, s.item_id, s.member_id, s.historical, s.amount, s.currency, s.price_date, s.rate, "
            f"s.rate_date, s.value_brl, s.significance, s.must_keep, s.source, s.source_note, c.log_id, ?, ?, ? "
            f"FROM {view} s LEFT JOIN (SELECT c.item_id, c.log_id FROM assessment_current c WHERE c.round_id = ? "
            f"AND c.member_id = ?{only}) c ON c.item_id = s.item_id "
            f"RETURNING id, round_id, item_id, member_id, historical, value_brl, significance, must_keep, supersedes",
            params=[user.username, now, import_id, rnd["id"], user.id]).to_arrow_table()
    finally:
        tx.cur.unregister(view)
    view = _register(tx, "written", written)
    try:
        vcode = vote_code_sql("l", rnd["president_id"])
        scode = score_code_sql("l")
        tx.execute(
            f"UPDATE assessment_current AS c SET log_id = l.id, historical = l.historical, value_brl = l.value_brl, "
            f"significance = l.significance, must_keep = l.must_keep, vote_code = {vcode}, "
            f"score_code = {scode} FROM {view} l "
            f"WHERE l.supersedes IS NOT NULL AND c.round_id = l.round_id AND c.item_id = l.item_id "
            f"AND c.member_id = l.member_id AND c.round_id = ? AND c.member_id = ?{only}", [rnd["id"], user.id])
        tx.execute(
            f"INSERT INTO assessment_current (round_id, item_id, member_id, log_id, historical, value_brl, "
            f"significance, must_keep, vote_code, score_code) SELECT l.round_id, l.item_id, l.member_id, l.id, "
            f"l.historical, l.value_brl, l.significance, l.must_keep, {vcode}, {scode} "
            f"FROM {view} l WHERE l.supersedes IS NULL")
    finally:
        tx.cur.unregister(view)
    consensus_pivot.bulk_entries(tx, rnd, user.id, written, ids)
    written = written.sort_by("id").select(["id", "item_id", "supersedes"])
    corrections = int(pc.sum(pc.is_valid(written["supersedes"]).cast(pa.int64())).as_py() or 0)
    return written, corrections


def _one_value(frame: pd.DataFrame, column: str) -> Any:
    """The first (only) value of a column, converted as `_write_entries` converts it."""
    return pa.array(frame[column].array, from_pandas=True)[0].as_py()


def _write_one(tx: Tx, rnd: Mapping[str, Any], user: Principal, entries: Entries, item_id: int,
               prev: int | None) -> dict[str, Any] | None:
    """`_write_entries` for one entry of `record_assessment`, with plain parameters.

    The same checks, messages and rows as `_write_entries` (the log row, the current row,
    the item's consensus); `prev` is the member's entry in force for the item (its log id),
    already read by the caller. Returns the new assessment_log row, or None when the entry
    is not a plain one (the caller then takes `_write_entries`)."""
    f = entries.frame
    p = entries.problems
    if len(f) != 1:
        return None
    amount = pc.cast(pa.array(f["amount"].array, from_pandas=True), AMOUNT_TYPE)[0].as_py()
    currency = _one_value(f, "currency")
    price_date = _one_value(f, "price_date")
    bad = bool(p.bad_rows()[0])
    rate: Decimal | None = None
    rate_date: date | None = None
    if not bad and amount is not None:
        if currency is None or price_date is None:
            return None
        if currency == "BRL":
            rate = Decimal("1.000000")
        else:
            found = tx.fetch_one("SELECT brl, day FROM fx_rates WHERE currency = ? AND day <= ? "
                                 "ORDER BY day DESC LIMIT 1", [currency, price_date])
            if found is not None:
                rate, rate_date = found["brl"], found["day"]
            elif tx.fetch_one("SELECT 1 AS x FROM fx_rates WHERE currency = ? LIMIT 1", [currency]) is None:
                p.add(np.array([True]), "currency",
                      np.array(["não há cotação de " + currency + " cadastrada: cadastre-a em Câmbio"], dtype=object))
            else:
                p.add(np.array([True]), "price_date",
                      np.array(["não há cotação de " + currency + " em ou antes de "
                                + price_date.strftime("%d/%m/%Y")
                                + " (nunca se usa cotação posterior à data do preço)"], dtype=object))
    value: Decimal | None = None
    if amount is not None and rate is not None:
        value = EXACT.multiply(amount, rate)          # exact, as decimal128(37,8)
        if value > MAX_VALUE_BRL:
            p.add(np.array([True]), "amount",
                  "valor convertido em reais grande demais (máximo R$ 9.999.999.999.999.999,99)")
    p.raise_if_any()

    historical = _one_value(f, "historical")
    significance = _one_value(f, "significance")
    must_keep = _one_value(f, "must_keep")
    row = tx.fetch_one(
        "INSERT INTO assessment_log (round_id, item_id, member_id, historical, amount, currency, price_date, "
        "rate, rate_date, value_brl, significance, must_keep, source, source_note, supersedes, entered_by, "
        "entered_at, import_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) RETURNING *",
        [rnd["id"], item_id, user.id, historical, amount, currency, price_date, rate, rate_date, value,
         significance, must_keep, _one_value(f, "source"), _one_value(f, "source_note"), prev, user.username,
         tx.store.now()])
    assert row is not None
    log_id = int(row["id"])
    president = rnd["president_id"]
    vcode = vote_code(historical, must_keep, president is not None and int(president) == user.id)
    scode = score_code(significance)
    if prev is not None:
        tx.execute("UPDATE assessment_current SET log_id = ?, historical = ?, value_brl = ?, significance = ?, "
                   "must_keep = ?, vote_code = ?, score_code = ? WHERE round_id = ? AND item_id = ? AND member_id = ?",
                   [log_id, historical, value, significance, must_keep, vcode, scode, rnd["id"], item_id, user.id])
    else:
        tx.execute("INSERT INTO assessment_current (round_id, item_id, member_id, log_id, historical, value_brl, "
                   "significance, must_keep, vote_code, score_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [rnd["id"], item_id, user.id, log_id, historical, value, significance, must_keep, vcode, scode])
    consensus_pivot.one_entry(tx, rnd, user.id, item_id, log_id, historical=historical, value_brl=value,
                              significance=significance, must_keep=must_keep)
    return row


def _np(mask: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(bool)


def record_assessment(store: Store, user: Principal, round_id: int, item_id: int, *, historical: bool | None,
                      amount: Decimal | None, currency: str | None, price_date: date | None,
                      significance: int | None, must_keep: bool | None, source: str | None,
                      source_note: str | None = None) -> RecordedEntry:
    """Record the member's own vote/value for one item of an open round (Lei 7.542 art. 20 §3,
    art. 21 §2). A second entry for the same item is a correction: a new row pointing at the
    one it replaces. Bad input → InputError naming each field (pt-BR); nothing written."""
    require_role(user, MEMBERS, "registrar avaliações")
    entries = single_entry(historical=historical, amount=amount, currency=currency, price_date=price_date,
                           significance=significance, must_keep=must_keep, source=source,
                           source_note=source_note, today=_today(store))
    if isinstance(item_id, bool) or not isinstance(item_id, int):
        entries.problems.add(np.array([True]), "item_id", "identificador inválido")
        entries.problems.raise_if_any()

    def run(tx: Tx) -> int:
        rnd = _member_round(tx, round_id, count=False)
        in_round = tx.fetch_one("SELECT 1 AS x FROM round_items WHERE round_id = ? AND item_id = ?",
                                [round_id, item_id])
        if in_round is None:
            entries.problems.add(np.array([True]), "item_id", f"não faz parte da rodada {rnd['number']}")
        prev = tx.scalar("SELECT log_id FROM assessment_current WHERE round_id = ? AND item_id = ? AND member_id = ?",
                         [round_id, item_id, user.id])
        before = None if prev is None else tx.fetch_one("SELECT * FROM assessment_log WHERE id = ?", [prev])
        after = None if in_round is None else _write_one(tx, rnd, user, entries, item_id, prev)
        if after is None:
            written, _ = _write_entries(tx, rnd, user, entries, pa.array([item_id], type=pa.int64()),
                                        import_id=None)
            after = tx.fetch_one("SELECT * FROM assessment_log WHERE id = ?", [int(written["id"][0].as_py())])
            assert after is not None
        tx.audit("assessment_corrected" if before else "assessment_recorded", "assessment", after["id"],
                 _audit_entry(before), _audit_entry(after))
        return after

    return _entry(store.write(user.username, run))


_ENTRY_FIELDS = tuple(f.name for f in fields(RecordedEntry))


def _entry(row: Mapping[str, Any]) -> RecordedEntry:
    data = {k: row.get(k) for k in _ENTRY_FIELDS if k != "log_id"}
    return RecordedEntry(log_id=int(row["id"]), **data)


def _audit_entry(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not row:
        return None
    keys = ("id", "round_id", "item_id", "member_id", "historical", "amount", "currency", "price_date", "rate",
            "rate_date", "value_brl", "significance", "must_keep", "source", "source_note", "supersedes")
    return {k: row.get(k) for k in keys}


def import_assessments(store: Store, user: Principal, round_id: int, data: bytes, file_name: str) -> AssessmentImport:
    """Record the member's entries from a CSV/XLSX sheet — all or nothing: when any row is
    bad nothing is written and every bad cell is listed (`linha N, coluna X: motivo`).
    Items are named by their code in the contract; an item already entered gets a
    correction row. Bulk writes go through Arrow, one transaction."""
    require_role(user, MEMBERS, "registrar avaliações")
    if not isinstance(data, (bytes, bytearray)):
        raise InputError(Problem("", "arquivo ausente"))
    sheet = parse_sheet(bytes(data), file_name, today=_today(store))
    entries = sheet.entries
    p = entries.problems
    sha = hashlib.sha256(data).hexdigest()

    def run(tx: Tx) -> AssessmentImport:
        rnd = _member_round(tx, round_id)
        codes = pa.array(entries.frame["item_code"].array, from_pandas=True)
        stage = pa.table({"row": pa.array(np.arange(len(codes)), type=pa.int64()), "item_code": codes})
        view = _register(tx, "codes", stage)
        try:
            found = tx.cur.sql(
                f"SELECT s.row, i.id AS item_id, ri.item_id IS NOT NULL AS in_round FROM {view} s "
                f"LEFT JOIN items i ON i.contract_id = {int(rnd['contract_id'])} AND i.item_code = s.item_code "
                f"LEFT JOIN round_items ri ON ri.round_id = {int(rnd['id'])} AND ri.item_id = i.id "
                f"ORDER BY s.row").to_arrow_table()
        finally:
            tx.cur.unregister(view)
        item_ids = found["item_id"].combine_chunks()
        has_code = _np(pc.not_equal(codes, ""))
        p.add(has_code & ~_np(item_ids.is_valid()), "item_code",
              f"item não encontrado no contrato {rnd['contract_code']}")
        p.add(has_code & _np(item_ids.is_valid()) & ~_np(found["in_round"]), "item_code",
              f"o item não faz parte da rodada {rnd['number']}")
        import_id = int(tx.scalar(
            "INSERT INTO imports (contract_id, kind, file_name, sha256, row_count, imported_by, imported_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [rnd["contract_id"], IMPORT_KIND, file_name[:255], sha, len(entries), user.username, store.now()]))
        written, corrections = _write_entries(tx, rnd, user, entries, item_ids, import_id=import_id)
        result = AssessmentImport(round_id=round_id, import_id=import_id, file_name=file_name, sha256=sha,
                                  rows=written.num_rows, new=written.num_rows - corrections, corrections=corrections,
                                  ignored_columns=sheet.ignored_columns)
        tx.audit("assessments_imported", "assessment_round", round_id, None, {
            "file": file_name, "sha256": sha, "import_id": import_id, "rows": result.rows, "new": result.new,
            "corrections": corrections, "member_id": user.id})
        return result

    return store.write(user.username, run)


_BULK_TYPES: dict[str, pa.DataType] = {
    "item_id": pa.int64(), "historical": pa.bool_(), "amount": AMOUNT_TYPE, "currency": pa.string(),
    "price_date": pa.date32(), "significance": pa.int64(), "must_keep": pa.bool_(), "source": pa.string(),
    "source_note": pa.string(),
}


def record_assessments_bulk(store: Store, user: Principal, round_id: int,
                            entries: pd.DataFrame | pa.Table) -> AssessmentImport:
    """Many of the member's own entries at once, from typed columns (for generated or
    migrated data): item_id, historical, amount (exact decimals, never floats), currency,
    price_date, significance, must_keep, source, source_note — absent columns are empty.
    The same rules as `record_assessment`, all or nothing; problems are named
    `linha N, coluna X` with N = row position + 1. One transaction, Arrow inserts."""
    require_role(user, MEMBERS, "registrar avaliações")
    table = entries if isinstance(entries, pa.Table) else pa.Table.from_pandas(entries, preserve_index=False)
    unknown = [c for c in table.column_names if c not in _BULK_TYPES]
    if unknown or "item_id" not in table.column_names:
        raise InputError(Problem("entries", "Colunas: " + (f"desconhecidas: {', '.join(unknown)}" if unknown
                                                           else "falta item_id") + "."))
    n = table.num_rows
    cols: dict[str, pa.Array] = {}
    for name, typ in _BULK_TYPES.items():
        if name not in table.column_names:
            cols[name] = pa.nulls(n, typ)
            continue
        arr = table.column(name).combine_chunks()
        if name == "amount" and pa.types.is_floating(arr.type):
            raise InputError(Problem("amount", "Valor: use decimais exatos, nunca números de ponto flutuante."))
        try:
            cols[name] = arr.cast(typ)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InputError(Problem(name, f"{LABELS.get(name, name)}: tipo de coluna inválido ({arr.type}).")
                             ) from exc
    if pc.any(pc.is_null(cols["item_id"])).as_py():
        raise InputError(Problem("item_id", "Item: informe o identificador em todas as linhas."))
    cols["currency"] = pc.utf8_upper(cols["currency"])
    frame = pd.DataFrame({name: pd.Series(pd.arrays.ArrowExtensionArray(cols["item_id"].cast(pa.string())
                                                                        if name == "item_code" else cols[name]))
                          for name in ("item_code", *[k for k in _BULK_TYPES if k != "item_id"])})
    lines = np.arange(1, n + 1, dtype=np.int64)
    checked = check_entries(Entries(frame, Problems(n, lines=lines)), today=_today(store))

    def run(tx: Tx) -> AssessmentImport:
        rnd = _member_round(tx, round_id)
        view = _register(tx, "bulk_ids", pa.table({"row": pa.array(np.arange(n), type=pa.int64()),
                                                   "item_id": cols["item_id"]}))
        try:
            outside = tx.cur.sql(f"SELECT s.row FROM {view} s LEFT JOIN round_items ri ON ri.round_id = "
                                 f"{int(round_id)} AND ri.item_id = s.item_id WHERE ri.item_id IS NULL"
                                 ).to_arrow_table()["row"].to_numpy()
            dup = tx.cur.sql(f"SELECT row FROM (SELECT row, row_number() OVER (PARTITION BY item_id ORDER BY row) "
                             f"AS k FROM {view}) WHERE k > 1").to_arrow_table()["row"].to_numpy()
        finally:
            tx.cur.unregister(view)
        mask = np.zeros(n, dtype=bool)
        mask[outside] = True
        checked.problems.add(mask, "item_code", f"o item não faz parte da rodada {rnd['number']}")
        mask = np.zeros(n, dtype=bool)
        mask[dup] = True
        checked.problems.add(mask, "item_code", "item repetido")
        written, corrections = _write_entries(tx, rnd, user, checked, cols["item_id"], import_id=None)
        result = AssessmentImport(round_id=round_id, import_id=0, file_name="", sha256="", rows=written.num_rows,
                                  new=written.num_rows - corrections, corrections=corrections, ignored_columns=())
        tx.audit("assessments_recorded", "assessment_round", round_id, None,
                 {"rows": result.rows, "new": result.new, "corrections": corrections, "member_id": user.id})
        return result

    return store.write(user.username, run)


# ======================================================================================
# Reading entries and rounds
# ======================================================================================
def my_assessments(store: Store, user: Principal, round_id: int, *, history: bool = False, page: int = 1,
                   page_size: int = DEFAULT_PAGE_SIZE) -> pd.DataFrame:
    """The member's own entries in a round: the ones in force (default) or the whole trail
    (`history=True`, corrections included), ordered by item code then time.

    Columns: log_id, item_id, item_code, description, historical, amount, currency,
    price_date, rate, rate_date, value_brl, significance, must_keep, source, source_note,
    supersedes, entered_by, entered_at, in_force."""
    require_role(user, MEMBERS, "consultar avaliações próprias")
    _page_args(page, page_size)
    fetch_round(store, round_id)
    only = "" if history else "AND c.log_id IS NOT NULL"
    return store.fetch_df(
        f"""SELECT l.id AS log_id, l.item_id, i.item_code, i.description, l.historical, l.amount, l.currency,
                   l.price_date, l.rate, l.rate_date, l.value_brl, l.significance, l.must_keep, l.source,
                   l.source_note, l.supersedes, l.entered_by, l.entered_at, c.log_id IS NOT NULL AS in_force
            FROM assessment_log l JOIN items i ON i.id = l.item_id
            LEFT JOIN assessment_current c ON c.log_id = l.id
            WHERE l.round_id = ? AND l.member_id = ? {only}
            ORDER BY i.item_code, l.id LIMIT ? OFFSET ?""",
        [round_id, user.id, page_size, (page - 1) * page_size])


def round_overview(store: Store, user: Principal, round_id: int, *, page: int = 1,
                   page_size: int = DEFAULT_PAGE_SIZE, flagged_only: bool = False) -> RoundOverview:
    """One page of the round's items as `user` may see them (Delphi rule: while the round is
    open a member sees only his or her own entries and dpc only the progress; after the
    close, the members the anonymous median and spread of every item, dpc the consensus).

    Columns: item_id, item_code, description; members also my_historical, my_amount,
    my_currency, my_price_date, my_value_brl, my_significance, my_must_keep, my_source;
    dpc while open: entries (members who assessed the item); after the close: n_values,
    votes_for, votes_against, median_brl, spread, flagged, historical, decided_by, value_brl.
    """
    require_role(user, READERS, "consultar as rodadas da Comissão")
    _page_args(page, page_size)
    row = fetch_round(store, round_id)
    is_member = user.role in MEMBERS
    is_open = row["status"] == "aberta"
    if user.role == "dpc":
        visibility = "progress" if is_open else "full"
    else:
        visibility = "own" if is_open else "anonymous"
    if flagged_only and is_open:
        raise AccessDenied("Os itens sinalizados só aparecem depois do encerramento da rodada.",
                           user=user.username, action="round_overview")
    cols = ["pg.item_id", "i.item_code", "i.description"]
    joins = ["JOIN items i ON i.id = pg.item_id", "JOIN item_consensus ic ON ic.round_id = pg.round_id "
             "AND ic.item_id = pg.item_id"]
    params: list[Any] = []
    if is_member:
        cols += ["l.historical AS my_historical", "l.amount AS my_amount", "l.currency AS my_currency",
                 "l.price_date AS my_price_date", "l.value_brl AS my_value_brl",
                 "l.significance AS my_significance", "l.must_keep AS my_must_keep", "l.source AS my_source"]
        joins.append("LEFT JOIN assessment_current c ON c.round_id = pg.round_id AND c.item_id = pg.item_id "
                     "AND c.member_id = ? LEFT JOIN assessment_log l ON l.id = c.log_id")
        params.append(user.id)
    if visibility == "progress":
        cols.append("(SELECT count(*) FROM assessment_current e WHERE e.round_id = pg.round_id "
                    "AND e.item_id = pg.item_id) AS entries")
    if not is_open:
        cols += ["ic.n_values", "ic.votes_for", "ic.votes_against", "ic.median_brl", "ic.spread", "ic.flagged",
                 "ic.historical", "ic.decided_by", "ic.value_brl"]
    # The page's items first, by their place in item-code order (consensus_pivot.pos, 1…N: a
    # range of it, or the flagged ones in its order), then their details: no sort of the codes.
    first = (page - 1) * page_size
    if flagged_only:
        total = int(store.scalar("SELECT count(*) FROM item_consensus WHERE round_id = ? AND flagged", [round_id]))
        pick = ("SELECT p.round_id, p.item_id, p.pos FROM consensus_pivot p JOIN item_consensus r "
                "ON r.round_id = p.round_id AND r.item_id = p.item_id WHERE p.round_id = ? AND r.flagged "
                "ORDER BY p.pos LIMIT ? OFFSET ?", [round_id, page_size, first])
    else:
        total = int(store.scalar("SELECT count(*) FROM consensus_pivot WHERE round_id = ?", [round_id]))
        pick = ("SELECT round_id, item_id, pos FROM consensus_pivot WHERE round_id = ? AND pos > ? AND pos <= ?",
                [round_id, first, first + page_size])
    items = store.fetch_df(
        f"WITH pg AS ({pick[0]}) SELECT {', '.join(cols)} FROM pg {' '.join(joins)} ORDER BY pg.pos",
        [*pick[1], *params])
    return RoundOverview(round=_round_of(row), visibility=visibility, items=items, total_items=total, page=page,
                         page_size=page_size)


def round_entries(store: Store, user: Principal, round_id: int, *, item_id: int | None = None, page: int = 1,
                  page_size: int = DEFAULT_PAGE_SIZE) -> pd.DataFrame:
    """Every member's entry in force, per item (for the president's and DPC's review).

    dpc: with names, after the close (while the round is open dpc follows the progress,
    `commission_views.round_progress`, and this refuses: Delphi independence). Members: while
    the round is open, only their own rows (the others' are not returned); after the close,
    every row with the member replaced by a per-round pseudonym ('Membro N'; 'Você' for their
    own). Explorers and the admin: refused. Columns: item_id, item_code, member, is_me, historical, amount, currency,
    price_date, rate, rate_date, value_brl, significance, must_keep, source, source_note,
    entered_at."""
    require_role(user, READERS, "consultar as avaliações da Comissão")
    _page_args(page, page_size)
    row = fetch_round(store, round_id)
    is_open = row["status"] == "aberta"
    if user.role == "dpc" and is_open:
        raise AccessDenied(VALUES_AFTER_CLOSE, user=user.username, action="round_entries")
    if user.role == "dpc":
        member_sql, member_params = "u.full_name", []
        where, where_params = "TRUE", []
    else:
        member_sql = f"CASE WHEN c.member_id = ? THEN '{YOU}' ELSE 'Membro ' || CAST(m.n AS VARCHAR) END"
        member_params = [user.id]
        where, where_params = ("c.member_id = ?", [user.id]) if is_open else ("TRUE", [])
    extra, extra_params = ("", []) if item_id is None else (" AND c.item_id = ?", [item_id])
    sql = f"""
        WITH m AS (SELECT c.member_id, {PSEUDONYM_SQL} AS n
                   FROM (SELECT DISTINCT round_id, member_id FROM assessment_current WHERE round_id = ?) c)
        SELECT c.item_id, i.item_code, {member_sql} AS member, c.member_id = ? AS is_me,
               l.historical, l.amount, l.currency, l.price_date, l.rate, l.rate_date, l.value_brl,
               l.significance, l.must_keep, l.source, l.source_note, l.entered_at
        FROM assessment_current c JOIN assessment_log l ON l.id = c.log_id JOIN items i ON i.id = c.item_id
        JOIN users u ON u.id = c.member_id JOIN m ON m.member_id = c.member_id
        WHERE c.round_id = ? AND {where}{extra}
        ORDER BY i.item_code, member LIMIT ? OFFSET ?"""
    params = [round_id, *member_params, user.id, round_id, *where_params, *extra_params, page_size,
              (page - 1) * page_size]
    return store.fetch_df(sql, params)


# ======================================================================================
# Decisions
# ======================================================================================
def _decision_problems(decisions: Sequence[DecisionInput | Mapping[str, Any]]) -> tuple[list[dict[str, Any]],
                                                                                       list[Problem]]:
    rows: list[dict[str, Any]] = []
    problems: list[Problem] = []
    seen: dict[int, int] = {}
    allowed = {"item_id", "historical", "value_brl", "significance", "must_keep", "basis"}
    for i, d in enumerate(decisions):
        path = f"decisions[{i}]"
        if isinstance(d, DecisionInput):
            data = {k: getattr(d, k) for k in allowed}
        elif isinstance(d, Mapping):
            data = dict(d)
            for k in data:
                if k not in allowed:
                    problems.append(Problem(f"{path}.{k}", f"Campo desconhecido: {k}."))
        else:
            problems.append(Problem(path, "Decisão: formato inválido."))
            continue
        item = data.get("item_id")
        if isinstance(item, bool) or not isinstance(item, int):
            problems.append(Problem(f"{path}.item_id", "Item: identificador inválido."))
            continue
        if item in seen:
            problems.append(Problem(f"{path}.item_id", f"Item: decisão repetida (já em decisions[{seen[item]}])."))
            continue
        seen[item] = i
        hist = data.get("historical")
        if not isinstance(hist, bool):
            problems.append(Problem(f"{path}.historical", "Valor histórico: informe sim ou não."))
        value = data.get("value_brl")
        if isinstance(value, (bool, float)) or value is None:
            problems.append(Problem(f"{path}.value_brl", "Valor (R$): informe um decimal exato."))
            value = None
        else:
            try:
                value = Decimal(str(value))
            except InvalidOperation:
                problems.append(Problem(f"{path}.value_brl", "Valor (R$): deve ser um número."))
                value = None
            if value is not None and (not value.is_finite() or value < 0 or value > MAX_VALUE_BRL
                                      or value != to_cents(value)):
                problems.append(Problem(f"{path}.value_brl", "Valor (R$): um número ≥ 0 com até 2 casas decimais."))
        sig = data.get("significance")
        if sig is not None and (isinstance(sig, bool) or not isinstance(sig, int) or not 1 <= sig <= 5):
            problems.append(Problem(f"{path}.significance", "Significância: um número inteiro de 1 a 5."))
        if sig is not None and hist is False:
            problems.append(Problem(f"{path}.significance", "Significância: só para item histórico."))
        keep = data.get("must_keep", False)
        if not isinstance(keep, bool):
            problems.append(Problem(f"{path}.must_keep", "Manter na União: informe sim ou não."))
        elif keep and hist is False:
            problems.append(Problem(f"{path}.must_keep", "Manter na União: só para item histórico."))
        basis = data.get("basis")
        if basis is not None and (not isinstance(basis, str) or not basis.strip()):
            problems.append(Problem(f"{path}.basis", "Fundamento: informe um texto."))
        rows.append({"item_id": item, "historical": hist, "value_brl": value, "significance": sig,
                     "must_keep": bool(keep) if isinstance(keep, bool) else False,
                     "basis": basis.strip() if isinstance(basis, str) else None, "index": i})
    return rows, problems


def record_decisions(store: Store, user: Principal, round_id: int,
                     decisions: Sequence[DecisionInput | Mapping[str, Any]] | None = None) -> DecisionsResult:
    """Record the Commission's decisions for a closed round (president only; Lei 7.542
    art. 20 §3). Without `decisions`, adopt the stored consensus of every decided item
    (classified by majority or by the president's vote, with a value) not yet decided in
    this round: historical and value as computed, significance = the members' median
    score rounded half-up, must keep = proposed by a majority of the historical votes.
    Append-only: a decision for an item already decided (in this or an earlier round)
    supersedes the one in force; `item_valuation` follows. A published round is final:
    a later change goes through a new round (`open_round(..., from_round=…)`)."""
    require_role(user, (PRESIDENT,), "registrar decisões")
    explicit: list[dict[str, Any]] | None = None
    if decisions is not None:
        explicit, problems = _decision_problems(decisions)
        if problems:
            raise InputError(problems)
        if not explicit:
            raise InputError(Problem("decisions", "Decisões: informe ao menos uma."))

    def run(tx: Tx) -> DecisionsResult:
        rnd = fetch_round(tx, round_id)
        _status_conflict(rnd, ("encerrada", "decidida"), "registrar decisões")
        now = store.now()
        before = int(tx.scalar("SELECT coalesce(max(id), 0) FROM decisions"))
        if explicit is None:
            method = METHOD_LABELS.get(rnd["method"], rnd["method"])
            basis = (f"'{BASIS_DEFAULT}; consenso da rodada {int(rnd['number'])}: ' || CASE ic.decided_by "
                     f"WHEN 'majority' THEN 'maioria dos votos (' || ic.votes_for || ' a ' || ic.votes_against || ')' "
                     f"ELSE 'empate decidido pelo voto do presidente (Lei 2.180/1954 art. 70, por analogia)' END "
                     f"|| '; valor: {method} de ' || ic.n_values || ' avaliação(ões) convertida(s) em reais "
                     f"(art. 21 §2)'")
            tx.execute(
                f"""INSERT INTO decisions (round_id, item_id, historical, value_brl, significance, must_keep, basis,
                                           supersedes, decided_by, decided_at)
                    SELECT ic.round_id, ic.item_id, ic.historical, ic.value_brl,
                           CASE WHEN ic.historical THEN CAST(round(ic.significance, 0) AS INTEGER) END,
                           coalesce(ic.historical AND ic.must_keep_votes * 2 > ic.votes_for, FALSE),
                           {basis}, iv.decision_id, ?, ?
                    FROM item_consensus ic LEFT JOIN item_valuation iv ON iv.item_id = ic.item_id
                    WHERE ic.round_id = ? AND ic.decided_by <> 'undecided' AND ic.value_brl IS NOT NULL
                      AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.round_id = ic.round_id
                                      AND d.item_id = ic.item_id)
                    ORDER BY ic.item_id""", [user.username, now, round_id])
        else:
            table = pa.table({
                "item_id": pa.array([r["item_id"] for r in explicit], type=pa.int64()),
                "historical": pa.array([r["historical"] for r in explicit], type=pa.bool_()),
                "value_brl": pa.array([r["value_brl"] for r in explicit], type=pa.decimal128(18, 2)),
                "significance": pa.array([r["significance"] for r in explicit], type=pa.int32()),
                "must_keep": pa.array([r["must_keep"] for r in explicit], type=pa.bool_()),
                "basis": pa.array([r["basis"] for r in explicit], type=pa.string()),
                "idx": pa.array([r["index"] for r in explicit], type=pa.int64()),
            })
            view = _register(tx, "decisions", table)
            try:
                outside = tx.execute(f"SELECT s.idx, s.item_id FROM {view} s LEFT JOIN round_items ri "
                                     f"ON ri.round_id = ? AND ri.item_id = s.item_id WHERE ri.item_id IS NULL "
                                     f"ORDER BY s.idx", [round_id])
                if outside:
                    raise InputError([Problem(f"decisions[{o['idx']}].item_id",
                                              f"Item: {o['item_id']} não faz parte da rodada {rnd['number']}.")
                                      for o in outside])
                default_basis = f"Decisão do presidente da Comissão, rodada {int(rnd['number'])} ({BASIS_DEFAULT})"
                tx.execute(
                    f"""INSERT INTO decisions (round_id, item_id, historical, value_brl, significance, must_keep,
                                               basis, supersedes, decided_by, decided_at)
                        SELECT ?, s.item_id, s.historical, s.value_brl, s.significance, s.must_keep,
                               coalesce(s.basis, ?), iv.decision_id, ?, ?
                        FROM {view} s LEFT JOIN item_valuation iv ON iv.item_id = s.item_id
                        ORDER BY s.idx""", [round_id, default_basis, user.username, now])
            finally:
                tx.cur.unregister(view)
        batch = "SELECT * FROM decisions WHERE id > ? AND round_id = ?"
        written = int(tx.scalar(f"SELECT count(*) FROM ({batch})", [before, round_id]))
        corrections = int(tx.scalar(f"SELECT count(*) FROM ({batch}) WHERE supersedes IS NOT NULL",
                                    [before, round_id]))
        tx.execute(
            f"""UPDATE item_valuation AS iv SET decision_id = d.id, round_id = d.round_id, historical = d.historical,
                       value_brl = d.value_brl, significance = d.significance, must_keep = d.must_keep,
                       published = FALSE
                FROM ({batch}) d WHERE iv.item_id = d.item_id""", [before, round_id])
        tx.execute(
            f"""INSERT INTO item_valuation (item_id, contract_id, decision_id, round_id, historical, value_brl,
                                            significance, must_keep, published)
                SELECT d.item_id, ?, d.id, d.round_id, d.historical, d.value_brl, d.significance, d.must_keep, FALSE
                FROM ({batch}) d WHERE NOT EXISTS (SELECT 1 FROM item_valuation iv WHERE iv.item_id = d.item_id)""",
            [rnd["contract_id"], before, round_id])
        skipped = int(rnd["item_count"]) - int(tx.scalar(
            "SELECT count(DISTINCT item_id) FROM decisions WHERE round_id = ?", [round_id]))
        if rnd["status"] == "encerrada":
            tx.execute("UPDATE assessment_rounds SET status = 'decidida', decided_by = ?, decided_at = ? WHERE id = ?",
                       [user.username, now, round_id])
        tx.audit("decisions_recorded", "assessment_round", round_id, {"status": rnd["status"]},
                 {"status": "decidida", "written": written, "corrections": corrections,
                  "mode": "consensus" if explicit is None else "explicit",
                  "items": None if explicit is None or len(explicit) > 50 else [r["item_id"] for r in explicit]})
        return DecisionsResult(round_id=round_id, written=written, skipped=max(skipped, 0), corrections=corrections)

    return store.write(user.username, run)


def published_decisions(store: Store, user: Principal, contract_code: str) -> pd.DataFrame:
    """The decisions in force among the published rounds of a contract — what the explorer
    sees (its own contracts only). One row per item: item_id, item_code, description,
    historical, value_brl, significance, must_keep, basis, round_number, decided_at,
    published_at."""
    return store.fetch_df(f"{PUBLISHED_SQL} ORDER BY i.item_code", [published_contract(store, user, contract_code)])


# The decision in force of each item among a contract's published rounds (parameter: the
# contract id): the newest per item first (a GROUP BY of ids), then the rows — twice as fast
# as a window over every published decision of a million-item contract.
PUBLISHED_SQL = """WITH latest AS (SELECT max(d.id) AS id FROM decisions d JOIN assessment_rounds r ON r.id = d.round_id
                       WHERE r.contract_id = ? AND r.status = 'publicada' GROUP BY d.item_id)
       SELECT d.item_id, i.item_code, i.description, d.historical, d.value_brl, d.significance, d.must_keep,
              d.basis, r.number AS round_number, d.decided_at, r.published_at
       FROM latest JOIN decisions d ON d.id = latest.id JOIN assessment_rounds r ON r.id = d.round_id
       JOIN items i ON i.id = d.item_id"""


def published_contract(store: Store, user: Principal, contract_code: str) -> int:
    """The id of a contract whose published decisions `user` may read: an explorer its own
    organisation's (another company's is "not found"), the Commission and dpc any."""
    contract = store.fetch_one("SELECT id, organisation_id FROM contracts WHERE code = ?", [contract_code])
    if user.role == "explorer":
        if contract is None or contract["organisation_id"] != user.organisation_id:
            raise NotFound(f"Contrato {contract_code} não encontrado.", what="contract", key=contract_code)
    else:
        require_role(user, READERS, "consultar decisões da Comissão")
        if contract is None:
            raise NotFound(f"Contrato {contract_code} não encontrado.", what="contract", key=contract_code)
    return int(contract["id"])


# Field labels for pages that show entry problems next to widgets.
ENTRY_LABELS = dict(LABELS)
