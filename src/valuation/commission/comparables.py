"""The Commission's earlier decisions on similar items (issue 16 §§8–10).

Similar items: the same category and material (compared without case or accents) and, when
the item's description shows a denomination or type ("8 reales", "4.000 réis", "pataca"),
the same one — the SQL macros `comparable_key` and `comparable_denomination` of migration 012
are the one definition. Only PUBLISHED decisions of OTHER contracts count: they enter
`published_comparables` when their round is published (`record_published`, called by
`commission.publish_round`), so nothing of an open, closed or decided-but-unpublished round
can be read from here. Amounts are in BRL as decided (no inflation adjustment).

Statistics are exact: the quartiles are those of linear interpolation (pandas' and numpy's
default: position (n − 1)·p), computed in whole quarter-cents in SQL, then given as Decimals.

When a round closes (`flag_round`, called by `commission.close_round`), an item whose consensus
lies outside [Q1 − k·IQR, Q3 + k·IQR] of its comparables, with at least `m` of them, is
flagged beside the spread flag (policies `comparables_outlier_factor` = k, 1.5, and
`comparables_min_count` = m, 5); the president sees the reason (`round_flags`, `flag_reason`).

Who reads: the commission (items under assessment) and dpc; explorers never (another
company's values), the admin neither.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core import clock
from valuation.core.errors import (
    ConflictError,
    InputError,
    NotFound,
    Problem,
)
from valuation.core.money import to_cents
from valuation.db.access import Principal, allowed, contract_scope, require
from valuation.policies.values import policy_in_force

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

RECENT = 5
QUARTER_CENT = Decimal("0.0025")

# Quartile q (1–3) of the sorted list `xs` of n cents, in quarter-cents: linear interpolation
# at h = (n − 1)·q/4 — 4·x[lo] + r·(x[lo+1] − x[lo]) with lo = ⌊h⌋, r = 4·(h − lo) (lists are 1-based).
_Q = ("CASE WHEN {n} = 0 THEN NULL WHEN (({n} - 1) * {q}) % 4 = 0 THEN 4 * {xs}[(({n} - 1) * {q}) // 4 + 1] "
      "ELSE 4 * {xs}[(({n} - 1) * {q}) // 4 + 1] + (({n} - 1) * {q}) % 4 * "
      "({xs}[(({n} - 1) * {q}) // 4 + 2] - {xs}[(({n} - 1) * {q}) // 4 + 1]) END")


def quartile_sql(q: int, n: str = "n", xs: str = "xs") -> str:
    return _Q.format(q=q, n=n, xs=xs)


@dataclass(frozen=True)
class Recent:
    contract_code: str
    item_code: str
    description: str
    value_brl: Decimal
    historical: bool
    decided_on: date


@dataclass(frozen=True)
class Comparables:
    category: str
    material: str
    denomination: str | None
    count: int
    q1: Decimal | None            # exact (at most 4 places: quarter cents)
    median: Decimal | None
    q3: Decimal | None
    recent: tuple[Recent, ...]

    @property
    def iqr(self) -> Decimal | None:
        return None if self.q1 is None or self.q3 is None else self.q3 - self.q1


@dataclass(frozen=True)
class OutlierPolicy:
    factor: Decimal = Decimal("1.5")
    min_count: int = 5


def _qc(value: Any) -> Decimal | None:
    return None if value is None else Decimal(int(value)) * QUARTER_CENT


# The comparable key of a description: the macro's regexes cost ~5 ms to compile per query, and
# descriptions repeat (inventories are written from templates), so each text is asked once.
_KEYS: dict[tuple[str, str, str], tuple[str, str, str | None]] = {}
_KEYS_MAX = 20_000


def comparable_keys(db: Store | Tx, category: str, material: str, description: str) -> tuple[str, str, str | None]:
    """(category key, material key, denomination) by the macros of migration 012."""
    text = (category, material, description)
    found = _KEYS.get(text)
    if found is None:
        row = db.fetch_one("SELECT comparable_key(?) AS ck, comparable_key(?) AS mk, comparable_denomination(?) AS dn",
                           list(text)) or {}
        found = (row["ck"], row["mk"], row["dn"])
        if len(_KEYS) >= _KEYS_MAX:
            _KEYS.clear()
        _KEYS[text] = found
    return found


def _target(store: Store, user: Principal, item_id: int) -> dict[str, Any]:
    if isinstance(item_id, bool) or not isinstance(item_id, int):
        raise InputError(Problem("item_id", "Item: identificador inválido."))
    scope, params = contract_scope(user, "c")
    row = store.fetch_one(
        "SELECT i.id, i.contract_id, i.category, i.material, i.description "
        f"FROM items i JOIN contracts c ON c.id = i.contract_id WHERE i.id = ? AND {scope}", [item_id, *params])
    if row is None:
        raise NotFound(f"Item {item_id} não encontrado.", what="item", key=item_id)
    row["ck"], row["mk"], row["dn"] = comparable_keys(store, row["category"], row["material"], row["description"])
    return row


PUBLISHED = "published_comparables"    # the Store topic of that table (db/store.py); `record_published` is its writer
# What a key's published comparables give (count, quartiles, the latest rows), per Store generation of the
# table: it changes only when a round is published, so a member's entry (a new revision) keeps it.
_FOUND: dict[tuple[Any, ...], tuple[int, dict[str, Any], list[dict[str, Any]]]] = {}
_FOUND_MAX = 20_000


def _published(store: Store, args: list[Any], recent: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(count and quartiles, the `recent` latest rows) of the published comparables matching `args`."""
    key = (*args, recent)
    generation = store.generation(PUBLISHED)     # read first: a publication meanwhile makes the next read miss
    found = _FOUND.get(key)
    if found is not None and found[0] == generation:
        return found[1], found[2]
    where = ("p.category_key = ? AND p.material_key = ? AND (CAST(? AS VARCHAR) IS NULL OR p.denomination = ?) "
             "AND p.contract_id <> ?")
    stats = store.fetch_one(
        "WITH s AS (SELECT count(*) AS n, list_sort(list(CAST(p.value_brl * 100 AS BIGINT))) AS xs "
        f"FROM published_comparables p WHERE {where}) "
        f"SELECT n, {quartile_sql(1)} AS q1, {quartile_sql(2)} AS q2, {quartile_sql(3)} AS q3 FROM s", args) or {}
    latest = store.fetch(
        f"SELECT p.item_id, p.contract_id, p.value_brl, p.historical, p.decided_at FROM published_comparables p "
        f"WHERE {where} ORDER BY p.decided_at DESC, p.item_id DESC LIMIT ?", [*args, recent])
    if len(_FOUND) >= _FOUND_MAX:
        _FOUND.clear()
    _FOUND[key] = (generation, stats, latest)
    return stats, latest


def comparables_for_item(store: Store, user: Principal, item_id: int, *, recent: int = RECENT) -> Comparables:
    """The published decisions of other contracts on items similar to `item_id` (module docstring):
    count, exact quartiles and the `recent` latest (contract, item, value, decision date)."""
    require(user, "read_comparables")
    t = _target(store, user, item_id)
    stats, latest = _published(store, [t["ck"], t["mk"], t["dn"], t["dn"], t["contract_id"]], max(0, int(recent)))
    named = {int(r["id"]): r for r in store.fetch(   # the codes as they are now (read for the few rows shown)
        "SELECT i.id, c.code AS contract_code, i.item_code, i.description FROM items i "
        "JOIN contracts c ON c.id = i.contract_id WHERE list_contains(?, i.id)",
        [[int(r["item_id"]) for r in latest]])} if latest else {}
    rows = [{**named[int(r["item_id"])], **r} for r in latest if int(r["item_id"]) in named]
    return Comparables(
        category=t["category"], material=t["material"], denomination=t["dn"], count=int(stats.get("n") or 0),
        q1=_qc(stats.get("q1")), median=_qc(stats.get("q2")), q3=_qc(stats.get("q3")),
        recent=tuple(Recent(r["contract_code"], r["item_code"], r["description"], r["value_brl"],
                            bool(r["historical"]), clock.brasilia(r["decided_at"]).date()) for r in rows))


# -- publication ------------------------------------------------------------------------------
def record_published(tx: Tx, round_id: int) -> int:
    """Enter the decisions in force of a round being published (called inside publish_round's
    transaction); an item re-decided and republished replaces its row. Returns the rows written. The one
    writer of the table: it names its Store topic (`PUBLISHED`), so comparables read before are read again."""
    tx.changed(PUBLISHED)
    tx.execute("DELETE FROM published_comparables WHERE item_id IN "
               "(SELECT item_id FROM item_valuation WHERE round_id = ? AND published)", [round_id])
    tx.execute(
        """INSERT INTO published_comparables (item_id, contract_id, category_key, material_key, denomination,
                                             value_brl, historical, decision_id, round_id, decided_at, published_at)
           WITH v AS (SELECT iv.item_id, iv.contract_id, iv.value_brl, iv.historical, iv.decision_id, iv.round_id,
                             d.decided_at, coalesce(r.published_at, d.decided_at) AS published_at,
                             i.description, i.category, i.material
                      FROM item_valuation iv JOIN decisions d ON d.id = iv.decision_id
                      JOIN assessment_rounds r ON r.id = iv.round_id JOIN items i ON i.id = iv.item_id
                      WHERE iv.round_id = ? AND iv.published AND r.status = 'publicada'),
                k AS (SELECT description, category, material, comparable_key(category) AS ck,
                             comparable_key(material) AS mk, comparable_denomination(description) AS dn
                      FROM (SELECT DISTINCT description, category, material FROM v))
           SELECT v.item_id, v.contract_id, k.ck, k.mk, k.dn, v.value_brl, v.historical, v.decision_id, v.round_id,
                  v.decided_at, v.published_at
           FROM v JOIN k ON k.description = v.description AND k.category = v.category AND k.material = v.material
           ORDER BY k.ck, k.mk, k.dn, v.decided_at""",     # a key's rows together: zone maps skip the others
        [round_id])
    n = int(tx.scalar("SELECT count(*) FROM published_comparables WHERE round_id = ?", [round_id]))
    tx.audit("comparables_recorded", "assessment_round", round_id, None, {"rows": n})
    return n


# -- the flag at the close --------------------------------------------------------------------
def outlier_policy(db: Store | Tx, *, as_of: date | None = None) -> OutlierPolicy:
    """The policies `comparables_outlier_factor` and `comparables_min_count` in force on `as_of`
    (default: today, the day of the close), through `valuation.policies.values`, the one reader:
    a value scheduled for a later day waits for it. A stored value that cannot be used stops the
    close (ConflictError) instead of being replaced by the default unseen."""
    states = {k: policy_in_force(db, k, as_of=as_of) for k in ("comparables_outlier_factor", "comparables_min_count")}
    broken = [f"{s.label}: {s.unreadable}" for s in states.values() if s.unreadable]
    if broken:
        raise ConflictError("Política de comparáveis ilegível no banco de dados: " + "; ".join(broken))
    return OutlierPolicy(factor=Decimal(states["comparables_outlier_factor"].value),
                         min_count=int(states["comparables_min_count"].value))


_FLAG_SQL = f"""
WITH r AS (SELECT ri.item_id, i.contract_id, i.category, i.material, i.description
           FROM round_items ri JOIN items i ON i.id = ri.item_id WHERE ri.round_id = $round),
     kk AS (SELECT category, material, description, comparable_key(category) AS ck, comparable_key(material) AS mk,
                   comparable_denomination(description) AS dn
            FROM (SELECT DISTINCT category, material, description FROM r)),
     pool AS (SELECT category_key, material_key, denomination, CAST(value_brl * 100 AS BIGINT) AS c
              FROM published_comparables
              WHERE contract_id NOT IN (SELECT contract_id FROM assessment_rounds WHERE id = $round)
                AND EXISTS (SELECT 1 FROM kk WHERE kk.ck = category_key AND kk.mk = material_key)),
     grouped AS (SELECT category_key AS ck, material_key AS mk, denomination AS dn, count(*) AS n,
                        list_sort(list(c)) AS xs FROM pool WHERE denomination IS NOT NULL GROUP BY ALL
                 UNION ALL
                 SELECT category_key, material_key, NULL, count(*), list_sort(list(c)) FROM pool GROUP BY ALL),
     st AS (SELECT ck, mk, dn, n, {quartile_sql(1)} AS q1, {quartile_sql(2)} AS q2, {quartile_sql(3)} AS q3
            FROM grouped WHERE n >= $min),
     cand AS (SELECT r.item_id, st.n, st.q1, st.q2, st.q3, ic.value_brl,
                     st.q1 - $factor * (st.q3 - st.q1) AS lo, st.q3 + $factor * (st.q3 - st.q1) AS hi
              FROM r JOIN kk ON kk.category = r.category AND kk.material = r.material AND kk.description = r.description
              JOIN st ON st.ck = kk.ck AND st.mk = kk.mk AND st.dn IS NOT DISTINCT FROM kk.dn
              JOIN item_consensus ic ON ic.round_id = $round AND ic.item_id = r.item_id
              WHERE ic.value_brl IS NOT NULL)
INSERT INTO comparable_flags (round_id, item_id, comparables, q1_brl, median_brl, q3_brl, lower_brl, upper_brl,
                              consensus_brl, factor, min_count, computed_at)
SELECT $round, item_id, n, q1 * {QUARTER_CENT}, q2 * {QUARTER_CENT}, q3 * {QUARTER_CENT}, lo * {QUARTER_CENT},
       hi * {QUARTER_CENT}, value_brl, $factor, $min, $now
FROM cand WHERE CAST(value_brl * 400 AS BIGINT) < lo OR CAST(value_brl * 400 AS BIGINT) > hi
"""


def flag_round(tx: Tx, round_id: int, policy: OutlierPolicy | None = None) -> int:
    """Store the comparable-outlier flags of a round's stored consensus (called by close_round);
    returns how many items were flagged."""
    policy = policy or outlier_policy(tx)
    tx.execute("DELETE FROM comparable_flags WHERE round_id = ?", [round_id])
    tx.execute(_FLAG_SQL.replace("$factor", "CAST($factor AS DECIMAL(9,4))"),
               {"round": round_id, "factor": str(policy.factor), "min": policy.min_count, "now": tx.store.now()})
    n = int(tx.scalar("SELECT count(*) FROM comparable_flags WHERE round_id = ?", [round_id]))
    tx.audit("comparables_flagged", "assessment_round", round_id, None, {"flagged": n})
    return n


def round_flags(store: Store, user: Principal, round_id: int) -> pd.DataFrame:
    """The round's comparable flags for the president (and dpc): item_id, item_code, description,
    comparables, q1_brl, median_brl, q3_brl, lower_brl, upper_brl, consensus_brl, factor, reason."""
    require(user, "read_comparable_flags")
    df = store.fetch_df(
        "SELECT f.item_id, i.item_code, i.description, f.comparables, f.q1_brl, f.median_brl, f.q3_brl, "
        "f.lower_brl, f.upper_brl, f.consensus_brl, f.factor FROM comparable_flags f JOIN items i ON i.id = f.item_id "
        "WHERE f.round_id = ? ORDER BY i.item_code", [round_id])
    df["reason"] = [flag_reason(r) for r in df.to_dict("records")]
    return df


def _brl(v: Decimal) -> str:
    text = f"{to_cents(v):,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")
    return f"R$ {text}"


def _num(v: Decimal) -> str:
    return format(v.normalize(), "f").replace(".", ",")


def flag_reason(row: dict[str, Any]) -> str:
    """Why the item was flagged, in pt-BR (amounts rounded to the cent for reading)."""
    value, lo, hi = Decimal(row["consensus_brl"]), Decimal(row["lower_brl"]), Decimal(row["upper_brl"])
    k = _num(Decimal(row["factor"]))
    side = (f"abaixo do limite inferior {_brl(lo)} (Q1 − {k} × IQR)" if value < lo
            else f"acima do limite superior {_brl(hi)} (Q3 + {k} × IQR)")
    return (f"Consenso {_brl(value)} {side} de {int(row['comparables'])} decisões publicadas de outros contratos "
            f"(Q1 {_brl(Decimal(row['q1_brl']))}, mediana {_brl(Decimal(row['median_brl']))}, "
            f"Q3 {_brl(Decimal(row['q3_brl']))}).")


def flagged_ids(store: Store, user: Principal, round_id: int, item_ids: list[int] | None = None) -> set[int]:
    """Ids of the round's items with a comparable flag (president and dpc; empty for others) — among
    `item_ids` when given (a page of the items table: not the round's every flag, which at a million
    items were 0.34 s of the page)."""
    if not allowed(user, "read_comparable_flags"):
        return set()
    if item_ids is None:
        rows = store.fetch("SELECT item_id FROM comparable_flags WHERE round_id = ?", [round_id])
    elif not item_ids:
        return set()
    else:
        rows = store.fetch("SELECT item_id FROM comparable_flags WHERE round_id = ? "
                           "AND item_id IN (SELECT unnest(?::BIGINT[]))", [round_id, [int(i) for i in item_ids]])
    return {int(r["item_id"]) for r in rows}

