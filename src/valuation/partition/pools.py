"""The stored state of the União's choice, per contract and pool (Lei 7.542/1986 art. 20 §4;
art. 21 III): exact SQL sums over the decisions in force (memoised per store while the
decisions are unchanged), the locks, the target each pool's choice must reach, and the
fingerprint that tells whether a stored run is still current. Read by `choice` and
`statements`; no access check here (their callers check).

The seams (what `choice` and `statements` read):

    aggregates(db, contract_id)          the pools' counts and exact sums (`Aggregates`): SQL over
    cached_aggregates(store, contract_id)  `item_valuation`, memoised per store (`forget_aggregates`)
    stored_locks(db, contract_id)        pool → {item_id: 'give' | 'keep'}
    pool_targets(terms, agg)             what each pool's choice must reach (`Targets`)
    pool_fingerprint(pool, agg, target, locks)   what a stored run was computed from
    run_from_row(row) / current_run(db, contract_id, pool, fingerprint)   stored runs
    pool_context(db, user, code, pool)   the contract, its sums, targets and the pool's locks
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from valuation.core.errors import (
    InputError,
    Problem,
)
from valuation.db.access import Principal
from valuation.partition.rules import (
    ContractTerms,
    PartitionItem,
)
from valuation.partition.terms import (
    compensation_of,
    contract_for,
    partition_pt,
    stable_sha,
    stored_terms,
)

if TYPE_CHECKING:

    from valuation.db.store import Store, Tx

    Db = Store | Tx

POOLS: tuple[str, ...] = ("historical", "other")


@dataclass(frozen=True)
class SelectionRun:
    id: int
    pool: str
    label: str | None
    target: Decimal
    tolerance: Decimal
    status: str
    gap: Decimal
    method: str
    message: str
    candidates: int
    selected_count: int
    selected_value: Decimal
    residual: Decimal
    significance_handed: int
    significance_bound: int
    ran_by: str
    ran_at: datetime
    current: bool = False


# ======================================================================================
# The União's choice (art. 20 §4; art. 21 III)
# ======================================================================================
_MEMO_LOCK = threading.Lock()
MEMO_PER_STORE = 256  # contracts remembered per store by a memo of this package (then it starts afresh)


@dataclass(frozen=True)
class Aggregates:
    """A contract's decided items per pool: counts and exact sums (`aggregates`)."""

    items: int            # items of the contract (decided or not)
    h_n: int
    h_total: Decimal
    o_n: int
    o_total: Decimal
    unpublished: int
    last_decision: int    # the newest decision in force: decisions are append-only, ids only grow
    h_last: int           # the newest decision in force among the historical items


_SUM_ALL = ("SELECT count(*) AS n, coalesce(sum(value_brl), 0) AS total, "
            "coalesce(max(decision_id), 0) AS last_decision, "
            "count(*) FILTER (WHERE NOT published) AS unpublished FROM item_valuation WHERE contract_id = ?")
_SUM_HIST = ("SELECT count(*) AS n, coalesce(sum(value_brl), 0) AS total, coalesce(max(decision_id), 0) AS last "
             "FROM item_valuation WHERE contract_id = ? AND historical")


def _agg_of(a: Mapping[str, Any], h: Mapping[str, Any], items: int) -> Aggregates:
    cent = Decimal("0.01")
    h_total = Decimal(h["total"]).quantize(cent)
    return Aggregates(items=items, h_n=int(h["n"]), h_total=h_total, o_n=int(a["n"]) - int(h["n"]),
                o_total=Decimal(a["total"]).quantize(cent) - h_total, unpublished=int(a["unpublished"]),
                last_decision=int(a["last_decision"]), h_last=int(h["last"]))


def aggregates(db: Db, contract_id: int) -> Aggregates:
    """Counts and exact SQL sums over the contract's decisions in force (two scans: ~3 ms each
    per million items). `last_decision` changes whenever the commission records a decision
    for one of the items (`item_valuation` follows the append-only `decisions`), so with the
    totals and the unpublished count it tells whether anything a statement used has changed."""
    return _agg_of(db.fetch_one(_SUM_ALL, [contract_id]) or {}, db.fetch_one(_SUM_HIST, [contract_id]) or {},
                   _item_count(db, contract_id))


# The sums of a contract are reused while the decisions in force are unchanged, which one
# scan of three cheap aggregates tells (~1.5 ms per million items against ~6 ms for the sums):
# the commission store only ever adds decisions (a new, larger id) and flips `published`, so
# any change moves the count, the newest decision id or the unpublished count. Drafts and
# issues re-check everything inside their transaction with full scans (`aggregates` on a Tx).
_SUM_KEY = ("SELECT count(*) AS n, coalesce(max(decision_id), 0) AS last_decision, "
            "count(*) FILTER (WHERE NOT published) AS unpublished FROM item_valuation WHERE contract_id = ?")
_AGG_MEMO: weakref.WeakKeyDictionary[Any, dict[int, tuple[tuple[int, int, int], Aggregates]]] = \
    weakref.WeakKeyDictionary()


def forget_aggregates() -> None:
    """Drop the memoised sums of every store (`cached_aggregates` rebuilds them on the next call)."""
    with _MEMO_LOCK:
        _AGG_MEMO.clear()


def cached_aggregates(store: Store, contract_id: int) -> Aggregates:
    """`aggregates` from a Store, reused while the contract's decisions in force are unchanged."""
    k = store.fetch_one(_SUM_KEY, [contract_id]) or {}
    key = (int(k["n"]), int(k["last_decision"]), int(k["unpublished"]))
    items = _item_count(store, contract_id)
    with _MEMO_LOCK:
        hit = _AGG_MEMO.get(store, {}).get(contract_id)
    if hit is not None and hit[0] == key:
        return replace(hit[1], items=items)
    agg = _agg_of(store.fetch_one(_SUM_ALL, [contract_id]) or {}, store.fetch_one(_SUM_HIST, [contract_id]) or {},
                  items)
    if (agg.h_n + agg.o_n, agg.last_decision, agg.unpublished) == key:  # nothing moved in between
        with _MEMO_LOCK:
            per_store = _AGG_MEMO.setdefault(store, {})
            if len(per_store) >= MEMO_PER_STORE:
                per_store.clear()
            per_store[contract_id] = (key, agg)
    return agg


def _item_count(db: Db, contract_id: int) -> int:
    return int(db.scalar("SELECT count(*) FROM items WHERE contract_id = ?", [contract_id]) or 0)


def stored_locks(db: Db, contract_id: int) -> dict[str, dict[int, str]]:
    """The stored locks per pool (the pool of an item is its decision in force)."""
    rows = db.fetch("SELECT item_id, lock FROM selection_locks WHERE contract_id = ?", [contract_id])
    out: dict[str, dict[int, str]] = {"historical": {}, "other": {}}
    if not rows:
        return out
    marks = ", ".join("?" for _ in rows)
    hist = {int(r["item_id"]): r["historical"] for r in db.fetch(
        f"SELECT item_id, historical FROM item_valuation WHERE item_id IN ({marks})", [r["item_id"] for r in rows])}
    for r in rows:
        if int(r["item_id"]) in hist:
            out["historical" if hist[int(r["item_id"])] else "other"][int(r["item_id"])] = r["lock"]
    return out



@dataclass(frozen=True)
class Targets:
    """What each pool's choice must reach (`pool_targets`), or why no choice applies."""

    historical: Decimal | None     # the reward to select for (None: no choice applies)
    historical_reason: str | None
    other: Decimal | None
    other_reason: str | None


def pool_targets(terms: ContractTerms, agg: Aggregates) -> Targets:
    """What each pool's choice must reach, as `partition` computes it (reward round(p_h × V_h);
    modality III / compensation target), from one aggregate item per group."""
    probe = partition_pt(replace(terms, historical_payment="cash", survey_costs=()),
                         [PartitionItem("h", True, agg.h_total, 0), PartitionItem("o", False, agg.o_total, 0)])
    if terms.cancelled:
        h, hr = None, "contrato cancelado: não há recompensa pelos bens históricos (art. 22 parágrafo único)"
    elif terms.historical_payment == "cash":
        h, hr = None, "a recompensa é paga em dinheiro: não há bens históricos a adjudicar"
    else:
        h, hr = probe.historical_reward, None
    if probe.other_target is None:
        o, orr = None, "a modalidade do contrato não adjudica os demais bens"
    else:
        o, orr = probe.other_target, None
    return Targets(h, hr, o, orr)


def pool_fingerprint(pool: str, agg: Aggregates, target: Decimal | None, locks: Mapping[int, str]) -> str:
    """What a stored run of `pool` was computed from. A re-decided historical item moves `h_last`;
    the other pool, which is not scanned on its own, follows the contract's newest decision."""
    n, total, last = ((agg.h_n, agg.h_total, agg.h_last) if pool == "historical"
                      else (agg.o_n, agg.o_total, agg.last_decision))
    return stable_sha([pool, n, str(total), last, None if target is None else str(target), sorted(locks.items())])


def run_from_row(r: Mapping[str, Any], current: bool = False) -> SelectionRun:
    """A `selection_runs` row as a SelectionRun."""
    return SelectionRun(id=int(r["id"]), pool=r["pool"], label=r["label"], target=r["target"],
                        tolerance=Decimal(r["tolerance"]).normalize(), status=r["status"], gap=r["gap"],
                        method=r["method"], message=r["message"], candidates=int(r["candidates"]),
                        selected_count=int(r["selected_count"]), selected_value=r["selected_value"],
                        residual=r["residual"], significance_handed=int(r["significance_handed"]),
                        significance_bound=int(r["significance_bound"]), ran_by=r["ran_by"], ran_at=r["ran_at"],
                        current=current)


def current_run(db: Db, contract_id: int, pool: str, fingerprint: str) -> SelectionRun | None:
    """The latest stored run of `pool` computed from `fingerprint` (None: no current run)."""
    r = db.fetch_one("SELECT * FROM selection_runs WHERE contract_id = ? AND pool = ? AND fingerprint = ? "
                     "ORDER BY id DESC LIMIT 1", [contract_id, pool, fingerprint])
    return None if r is None else run_from_row(r, current=True)


def check_pool(pool: str) -> None:
    """InputError unless `pool` is one of POOLS."""
    if pool not in POOLS:
        raise InputError(Problem("pool", f"Grupo de bens desconhecido: {pool}."))


class PoolContext(NamedTuple):
    """What the choice of one pool starts from (`pool_context`)."""

    contract: dict[str, Any]
    agg: Aggregates
    targets: Targets
    locks: dict[int, str]             # the pool's stored locks


def pool_context(db: Db, user: Principal, code: str, pool: str) -> PoolContext:
    """The contract (NotFound for an explorer's neighbour), its sums, the pools' targets and the
    stored locks of `pool`. No permission check: the callers check theirs."""
    check_pool(pool)
    c = contract_for(db, user, code)
    agg = aggregates(db, c["id"])
    targets = pool_targets(stored_terms(c, compensation_of(db, c["id"])), agg)
    return PoolContext(c, agg, targets, stored_locks(db, c["id"])[pool])
