"""The president's decisions on a closed round, and reading the published ones (issue 3;
Lei 7.542/1986 art. 20 §3).

By default a decision adopts the stored consensus of each decided item; the president may also
list the decisions (`views.override_decision` decides one item otherwise, with its reason).
`decisions` is append-only — a decision for an item already decided supersedes the one in
force, which `item_valuation` holds — and a published round (`rounds.publish_round`) is final:
a later change goes through a new round (`rounds.open_round(..., from_round=…)`). The explorer
of a contract reads the decisions in force among its published rounds (`published_decisions`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa

from valuation.commission import derived
from valuation.commission.rounds import METHOD_LABELS, fetch_round, reads_published_only, register, status_conflict
from valuation.commission.sheet import MAX_VALUE_BRL
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.money import to_cents
from valuation.db.access import Principal, organisation_cleared, require
from valuation.process import numbers

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

__all__ = ["BASIS_DEFAULT", "PUBLISHED_SQL", "DecisionInput", "DecisionsResult", "published_contract",
           "published_decisions", "record_decisions"]

BASIS_DEFAULT = "Lei 7.542/1986 art. 20 §3"
_FIELDS = ("item_id", "historical", "value_brl", "significance", "must_keep", "basis")


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


# -- recording ------------------------------------------------------------------------------------
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
    require(user, "record_decisions")
    explicit: list[dict[str, Any]] | None = None
    if decisions is not None:
        explicit, problems = _decision_rows(decisions)
        if problems:
            raise InputError(problems)
        if not explicit:
            raise InputError(Problem("decisions", "Decisões: informe ao menos uma."))

    def run(tx: Tx) -> DecisionsResult:
        rnd = fetch_round(tx, round_id)
        status_conflict(rnd, ("encerrada", "decidida"), "registrar decisões")
        now = store.now()
        before = int(tx.scalar("SELECT coalesce(max(id), 0) FROM decisions"))
        if explicit is None:
            derived.require_round_proven(tx, round_id)   # issue 45, item 2: the consensus adopted is the entries'
            _adopt_consensus(tx, rnd, user, now)
        else:
            _insert_explicit(tx, rnd, user, now, explicit)
        written, corrections = _valuation_in_step(tx, rnd, before)
        skipped = int(rnd["item_count"]) - int(tx.scalar(
            "SELECT count(DISTINCT item_id) FROM decisions WHERE round_id = ?", [round_id]))
        if rnd["status"] == "encerrada":
            tx.execute("UPDATE assessment_rounds SET status = 'decidida', decided_by = ?, decided_at = ? WHERE id = ?",
                       [user.username, now, round_id])
        office = str(tx.scalar("SELECT office_code FROM contracts WHERE id = ?", [rnd["contract_id"]]))
        numbers.assign(tx, "round", round_id, office, now.date())   # the decision's NUP (Portaria 11/2019)
        tx.audit("decisions_recorded", "assessment_round", round_id, {"status": rnd["status"]},
                 {"status": "decidida", "written": written, "corrections": corrections,
                  "mode": "consensus" if explicit is None else "explicit",
                  "items": None if explicit is None or len(explicit) > 50 else [r["item_id"] for r in explicit]})
        return DecisionsResult(round_id=round_id, written=written, skipped=max(skipped, 0), corrections=corrections)

    return store.write(user.username, run)


def _adopt_consensus(tx: Tx, rnd: Mapping[str, Any], user: Principal, now: datetime) -> None:
    """One decision per decided item of the round's stored consensus not yet decided in it."""
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
              AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.round_id = ic.round_id AND d.item_id = ic.item_id)
            ORDER BY ic.item_id""", [user.username, now, rnd["id"]])


def _insert_explicit(tx: Tx, rnd: Mapping[str, Any], user: Principal, now: datetime,
                     rows: list[dict[str, Any]]) -> None:
    """The listed decisions, each superseding the item's decision in force; every item must be
    one of the round's."""
    table = pa.table({
        "item_id": pa.array([r["item_id"] for r in rows], type=pa.int64()),
        "historical": pa.array([r["historical"] for r in rows], type=pa.bool_()),
        "value_brl": pa.array([r["value_brl"] for r in rows], type=pa.decimal128(18, 2)),
        "significance": pa.array([r["significance"] for r in rows], type=pa.int32()),
        "must_keep": pa.array([r["must_keep"] for r in rows], type=pa.bool_()),
        "basis": pa.array([r["basis"] for r in rows], type=pa.string()),
        "idx": pa.array([r["index"] for r in rows], type=pa.int64()),
    })
    view = register(tx, "decisions", table)
    try:
        outside = tx.execute(f"SELECT s.idx, s.item_id FROM {view} s LEFT JOIN round_items ri "
                             f"ON ri.round_id = ? AND ri.item_id = s.item_id WHERE ri.item_id IS NULL "
                             f"ORDER BY s.idx", [rnd["id"]])
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
                ORDER BY s.idx""", [rnd["id"], default_basis, user.username, now])
    finally:
        tx.cur.unregister(view)


def _valuation_in_step(tx: Tx, rnd: Mapping[str, Any], before: int) -> tuple[int, int]:
    """item_valuation follows the decisions written after id `before`; returns (written, corrections)."""
    batch = "SELECT * FROM decisions WHERE id > ? AND round_id = ?"
    args = [before, rnd["id"]]
    written = int(tx.scalar(f"SELECT count(*) FROM ({batch})", args))
    corrections = int(tx.scalar(f"SELECT count(*) FROM ({batch}) WHERE supersedes IS NOT NULL", args))
    tx.execute(
        f"""UPDATE item_valuation AS iv SET decision_id = d.id, round_id = d.round_id, historical = d.historical,
                   value_brl = d.value_brl, significance = d.significance, must_keep = d.must_keep,
                   published = FALSE
            FROM ({batch}) d WHERE iv.item_id = d.item_id""", args)
    tx.execute(
        f"""INSERT INTO item_valuation (item_id, contract_id, decision_id, round_id, historical, value_brl,
                                        significance, must_keep, published)
            SELECT d.item_id, ?, d.id, d.round_id, d.historical, d.value_brl, d.significance, d.must_keep, FALSE
            FROM ({batch}) d WHERE NOT EXISTS (SELECT 1 FROM item_valuation iv WHERE iv.item_id = d.item_id)""",
        [rnd["contract_id"], *args])
    return written, corrections


def _decision_rows(decisions: Sequence[DecisionInput | Mapping[str, Any]]) -> tuple[list[dict[str, Any]],
                                                                                    list[Problem]]:
    """The decisions as rows (with their index), and every problem found, by path."""
    rows: list[dict[str, Any]] = []
    problems: list[Problem] = []
    seen: dict[int, int] = {}
    for i, d in enumerate(decisions):
        path = f"decisions[{i}]"
        if isinstance(d, DecisionInput):
            data = {k: getattr(d, k) for k in _FIELDS}
        elif isinstance(d, Mapping):
            data = dict(d)
            problems += [Problem(f"{path}.{k}", f"Campo desconhecido: {k}.") for k in data if k not in _FIELDS]
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
        row, found = _decision_row(path, data)
        problems += found
        rows.append({**row, "item_id": item, "index": i})
    return rows, problems


def _decision_row(path: str, data: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """One decision's fields checked: (the typed fields, the problems)."""
    problems: list[Problem] = []
    hist = data.get("historical")
    if not isinstance(hist, bool):
        problems.append(Problem(f"{path}.historical", "Valor histórico: informe sim ou não."))
    value = _decided_value(f"{path}.value_brl", data.get("value_brl"), problems)
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
    return {"historical": hist, "value_brl": value, "significance": sig,
            "must_keep": bool(keep) if isinstance(keep, bool) else False,
            "basis": basis.strip() if isinstance(basis, str) else None}, problems


def _decided_value(path: str, value: object, problems: list[Problem]) -> Decimal | None:
    """A decided value: an exact Decimal ≥ 0 in whole cents, at most MAX_VALUE_BRL."""
    if isinstance(value, (bool, float)) or value is None:
        problems.append(Problem(path, "Valor (R$): informe um decimal exato."))
        return None
    try:
        d = Decimal(str(value))
    except InvalidOperation:
        problems.append(Problem(path, "Valor (R$): deve ser um número."))
        return None
    if not d.is_finite() or d < 0 or d > MAX_VALUE_BRL or d != to_cents(d):
        problems.append(Problem(path, "Valor (R$): um número ≥ 0 com até 2 casas decimais."))
    return d


# -- reading the published ones ---------------------------------------------------------------------
# The decision in force of each item among a contract's published rounds (parameter: the
# contract id): the newest per item first (a GROUP BY of ids), then the rows — twice as fast
# as a window over every published decision of a million-item contract.
LATEST_SQL = """WITH latest AS (SELECT max(d.id) AS id FROM decisions d JOIN assessment_rounds r ON r.id = d.round_id
                       WHERE r.contract_id = ? AND r.status = 'publicada' GROUP BY d.item_id)"""
PUBLISHED_COLUMNS = """d.item_id, i.item_code, i.description, d.historical, d.value_brl, d.significance, d.must_keep,
              d.basis, r.number AS round_number, d.decided_at, r.published_at"""
PUBLISHED_SQL = f"""{LATEST_SQL}
       SELECT {PUBLISHED_COLUMNS}
       FROM latest JOIN decisions d ON d.id = latest.id JOIN assessment_rounds r ON r.id = d.round_id
       JOIN items i ON i.id = d.item_id"""


def published_decisions(store: Store, user: Principal, contract_code: str) -> pd.DataFrame:
    """The decisions in force among the published rounds of a contract — what the explorer
    sees (its own contracts only). One row per item: item_id, item_code, description,
    historical, value_brl, significance, must_keep, basis, round_number, decided_at,
    published_at."""
    return store.fetch_df(f"{PUBLISHED_SQL} ORDER BY i.item_code", [published_contract(store, user, contract_code)])


def published_contract(store: Store, user: Principal, contract_code: str) -> int:
    """The id of a contract whose published decisions `user` may read: an explorer its own
    organisation's (another company's is "not found"), the Commission and dpc any."""
    contract = store.fetch_one("SELECT id, organisation_id, office_code FROM contracts WHERE code = ?",
                               [contract_code])
    missing = NotFound(f"Contrato {contract_code} não encontrado.", what="contract", key=contract_code)
    if reads_published_only(user):
        if contract is None or not organisation_cleared(user, contract["organisation_id"], contract["office_code"]):
            raise missing
    else:
        require(user, "read_published_decisions")
    if contract is None:
        raise missing
    return int(contract["id"])
