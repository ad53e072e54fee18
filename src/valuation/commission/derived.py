"""The Commission's derived tables, re-derived from their sealed sources (issue 45, item 2).

Five tables copy, for speed, facts whose record is sealed (db/seals.py): a member's entry in force
(`assessment_current`), the round's slots and pre-pivoted entries (`round_members`, `consensus_pivot`), the
stored consensus (`round_consensus`), the decision in force per item (`item_valuation`) and the published
decisions that become comparables (`published_comparables`). None is sealed — they are rewritten by every
entry, recompute and decision, and a seal per row would cost every write — so none was proven: an
item_valuation.value_brl multiplied by ten behind the application made the next statement pay ten times the
decided value and `audit verify` still passed. Each is now derived again here from what it copies, and
compared column by column:

    table                 derived from
    assessment_current    assessment_log (sealed): per round, item and member, the newest entry; its codes
    round_members         assessment_log: the members in the order of their first entry, slots 0–5
    consensus_pivot       the entries in force, pivoted by slot; its place in the round (item code order)
    round_consensus       the round's pivot (or entries in force), by `consensus_sql`'s own recompute
    item_valuation        decisions (sealed): per item, the newest decision; published when its round is
    published_comparables decisions of published rounds: per item, the newest; the item's comparable keys

Every copy is checked against its first source (the pivot from the sealed log, not from the stored
assessment_current), so the difference names the table that was changed. The round's parameters, its
status and the items' fields come from the registry, which is not sealed yet (issue 45, item 3):
re-deriving from them proves the copy agrees with them, not that they are the ones written.

    first_difference(db, table, scope=…)   the first row of `table` that differs, or None
    verify(db)                              (ok, pt-BR message, rows compared) over every table
    require_proven(db, table, scope=…)      StoreError naming the difference: what pays money or publishes a
                                            value reads only what verify proves — a statement's draft and issue
                                            (partition.statements: item_valuation), a round's publication
                                            (rounds.publish_round: item_valuation), the adoption of its consensus
                                            as decisions and its minutes (`require_round_proven`)

`scope`: a contract's id (item_valuation, published_comparables) or a round's id (the others), or None.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from valuation.commission.consensus_sql import E8, SLOTS, recomputed_sql
from valuation.commission.entry_codes import score_code_sql, vote_code_sql
from valuation.core.errors import StoreError

__all__ = ["DERIVED", "ROUND_TABLES", "Derived", "Difference", "first_difference", "require_proven",
           "require_round_proven", "verify"]


@dataclass(frozen=True)
class Difference:
    table: str
    key: str                          # pt-BR: which row ('rodada 3, item 17')
    what: str                         # pt-BR: 'colunas value_brl alteradas', 'linha ausente', 'linha a mais'

    @property
    def message(self) -> str:
        spec = BY_TABLE[self.table]
        return (f"Tabela {self.table}, {self.key} ({spec.label}): {self.what} — não confere com o que se recalcula "
                f"a partir de {spec.sources}.")


@dataclass(frozen=True)
class Derived:
    table: str
    label: str                        # pt-BR: what the table holds
    sources: str                      # pt-BR: what it is derived from
    keys: tuple[str, ...]
    columns: tuple[str, ...]          # compared (never when a row was computed)
    scope: str                        # the column a scope filters: contract_id or round_id
    derive: Callable[[str], str]      # SQL of the derived rows, given a filter on the scope ('' or 'AND …')
    name: Callable[[tuple[Any, ...]], str]


def _entries_in_force(where: str) -> str:
    """Per round, item and member, the newest entry of assessment_log, with the codes the store writes."""
    return f"""
SELECT l.round_id, l.item_id, l.member_id, l.id AS log_id, l.historical, l.value_brl, l.significance, l.must_keep,
       {vote_code_sql('l', 'r.president_id')} AS vote_code, {score_code_sql('l')} AS score_code
FROM assessment_log l JOIN assessment_rounds r ON r.id = l.round_id
WHERE l.id IN (SELECT max(id) FROM assessment_log x WHERE true {where.replace('round_id', 'x.round_id')}
               GROUP BY x.round_id, x.item_id, x.member_id)"""


def _members(where: str) -> str:
    """A round's members in the order of their first entry, the first SLOTS of them in slots 0…"""
    return f"""
SELECT round_id, member_id, CASE WHEN k < {SLOTS} THEN k END AS slot
FROM (SELECT round_id, member_id, row_number() OVER (PARTITION BY round_id ORDER BY min(id)) - 1 AS k
      FROM assessment_log x WHERE true {where.replace('round_id', 'x.round_id')} GROUP BY round_id, member_id)"""


def _pivot(where: str) -> str:
    """Per round item: its place in item-code order, each slot's value (× 10⁸), vote and score code, and the
    newest log id of its entries in force (rev; basis: in step)."""
    u = ", ".join(f"max(CAST(c.value_brl * {E8} AS HUGEINT)) FILTER (WHERE m.slot = {k}) AS u{k}"
                  for k in range(SLOTS))
    cg = ", ".join(f"coalesce(max(c.{col}) FILTER (WHERE m.slot = {k}), 0) AS {p}{k}"
                   for p, col in (("c", "vote_code"), ("g", "score_code")) for k in range(SLOTS))
    return f"""
SELECT ri.round_id, ri.item_id,
       CAST(row_number() OVER (PARTITION BY ri.round_id ORDER BY i.item_code, ri.item_id) AS INTEGER) AS pos,
       {u}, {cg}, max(c.log_id) AS rev, max(c.log_id) AS basis
FROM round_items ri JOIN items i ON i.id = ri.item_id
LEFT JOIN ({_entries_in_force(where)}) c ON c.round_id = ri.round_id AND c.item_id = ri.item_id
LEFT JOIN ({_members(where)}) m ON m.round_id = c.round_id AND m.member_id = c.member_id
WHERE true {where.replace('round_id', 'ri.round_id')}
GROUP BY ri.round_id, ri.item_id, i.item_code"""


def _in_force(where: str, *, published: bool) -> str:
    """Per item, its newest decision (among the published rounds' with `published`), with its round's facts."""
    only = "AND r.status = 'publicada'" if published else ""
    return f"""
SELECT d.item_id, r.contract_id, d.id AS decision_id, d.round_id, d.historical, d.value_brl, d.significance,
       d.must_keep, r.status = 'publicada' AS published, d.decided_at,
       coalesce(r.published_at, d.decided_at) AS published_at
FROM decisions d JOIN assessment_rounds r ON r.id = d.round_id
WHERE d.id IN (SELECT max(x.id) FROM decisions x JOIN assessment_rounds r ON r.id = x.round_id
               WHERE true {only} {where.replace('contract_id', 'r.contract_id')} GROUP BY x.item_id)"""


def _valuation(where: str) -> str:
    return (f"SELECT item_id, contract_id, decision_id, round_id, historical, value_brl, significance, must_keep, "
            f"published FROM ({_in_force(where, published=False)})")


def _comparables(where: str) -> str:
    """As `comparables.record_published` writes them: the keys of the item's category, material and description
    (the schema's macros, computed once per distinct triple)."""
    return f"""
WITH v AS (SELECT p.*, i.description, i.category, i.material FROM ({_in_force(where, published=True)}) p
           JOIN items i ON i.id = p.item_id),
     k AS (SELECT description, category, material, comparable_key(category) AS ck, comparable_key(material) AS mk,
                  comparable_denomination(description) AS dn
           FROM (SELECT DISTINCT description, category, material FROM v))
SELECT v.item_id, v.contract_id, k.ck AS category_key, k.mk AS material_key, k.dn AS denomination, v.value_brl,
       v.historical, v.decision_id, v.round_id, v.decided_at, v.published_at
FROM v JOIN k ON k.description IS NOT DISTINCT FROM v.description AND k.category IS NOT DISTINCT FROM v.category
             AND k.material IS NOT DISTINCT FROM v.material"""


def _rounds_named(key: tuple[Any, ...]) -> str:
    return f"rodada {key[0]}, item {key[1]}"


_SLOT_COLUMNS = tuple(f"{p}{k}" for p in "ucg" for k in range(SLOTS))
DERIVED: tuple[Derived, ...] = (
    Derived("assessment_current", "valor ou voto em vigor de um membro",
            "assessment_log (os valores e votos, selados)", ("round_id", "item_id", "member_id"),
            ("log_id", "historical", "value_brl", "significance", "must_keep", "vote_code", "score_code"),
            "round_id", _entries_in_force, lambda k: f"rodada {k[0]}, item {k[1]}, membro {k[2]}"),
    Derived("round_members", "membros da rodada e suas posições", "assessment_log (a primeira avaliação de cada "
            "membro)", ("round_id", "member_id"), ("slot",), "round_id", _members,
            lambda k: f"rodada {k[0]}, membro {k[1]}"),
    Derived("consensus_pivot", "avaliações em vigor da rodada por item", "assessment_log (os valores e votos em "
            "vigor, selados)", ("round_id", "item_id"), ("pos", *_SLOT_COLUMNS, "rev", "basis"), "round_id", _pivot,
            _rounds_named),
    Derived("round_consensus", "consenso calculado da rodada", "consensus_pivot (as avaliações em vigor da rodada), "
            "pelas regras do consenso", ("round_id", "item_id"), ("code", "value_brl", "spread", "median_brl"),
            "round_id", lambda where: "", _rounds_named),        # per round: `_consensus_difference`
    Derived("item_valuation", "decisão em vigor por item", "decisions (as decisões da Comissão, seladas)",
            ("item_id",), ("contract_id", "decision_id", "round_id", "historical", "value_brl", "significance",
                           "must_keep", "published"), "contract_id", _valuation, lambda k: f"item {k[0]}"),
    Derived("published_comparables", "decisão publicada usada como comparável",
            "decisions das rodadas publicadas (seladas)", ("item_id",),
            ("contract_id", "category_key", "material_key", "denomination", "value_brl", "historical", "decision_id",
             "round_id", "decided_at", "published_at"), "contract_id", _comparables, lambda k: f"item {k[0]}"),
)
BY_TABLE = {d.table: d for d in DERIVED}


def _compare_sql(spec: Derived, derived: str, where: str) -> str:
    on = " AND ".join(f"w.{k} = h.{k}" for k in spec.keys)
    keys = ", ".join(f"coalesce(w.{k}, h.{k}) AS {k}" for k in spec.keys)
    flags = ", ".join(f"w.{c} IS DISTINCT FROM h.{c} AS d_{c}" for c in spec.columns)
    differs = " OR ".join(f"w.{c} IS DISTINCT FROM h.{c}" for c in spec.columns)
    cols = ", ".join((*spec.keys, *spec.columns))
    return (f"WITH w AS ({derived}), h AS (SELECT {cols} FROM {spec.table} WHERE true {where}) "
            f"SELECT {keys}, h.{spec.keys[0]} IS NULL AS missing, w.{spec.keys[0]} IS NULL AS extra, {flags} "
            f"FROM w FULL JOIN h ON {on} WHERE h.{spec.keys[0]} IS NULL OR w.{spec.keys[0]} IS NULL OR {differs} "
            f"ORDER BY {', '.join(spec.keys)} LIMIT 1")


def _difference(spec: Derived, row: dict[str, Any]) -> Difference:
    key = spec.name(tuple(row[k] for k in spec.keys))
    if row["missing"]:
        return Difference(spec.table, key, "linha ausente (removida fora da aplicação)")
    if row["extra"]:
        return Difference(spec.table, key, "linha a mais (incluída fora da aplicação)")
    changed = [c for c in spec.columns if row[f"d_{c}"]]
    return Difference(spec.table, key, f"coluna{'s' if len(changed) > 1 else ''} {', '.join(changed)} "
                                       f"alterada{'s' if len(changed) > 1 else ''}")


def _consensus_difference(db: Any, round_id: int | None) -> Difference | None:
    """round_consensus against the recompute of each round (`consensus_sql.recomputed_sql`)."""
    spec = BY_TABLE["round_consensus"]
    rounds = ([int(round_id)] if round_id is not None else
              [int(r["id"]) for r in db.fetch("SELECT id FROM assessment_rounds UNION SELECT DISTINCT round_id "
                                              "FROM round_consensus ORDER BY 1")])
    for rid in rounds:
        if db.fetch_one("SELECT 1 AS x FROM assessment_rounds WHERE id = ?", [rid]) is None:
            row = db.fetch_one("SELECT round_id, item_id FROM round_consensus WHERE round_id = ? ORDER BY item_id "
                               "LIMIT 1", [rid])
            assert row is not None
            return Difference(spec.table, _rounds_named((row["round_id"], row["item_id"])),
                              "linha a mais (incluída fora da aplicação)")
        sql, params = recomputed_sql(db, rid)
        found = db.fetch_one(_compare_sql(spec, f"SELECT * FROM ({sql})", f"AND round_id = {rid}"), params)
        if found is not None:
            return _difference(spec, found)
    return None


def first_difference(db: Any, table: str, scope: int | None = None) -> Difference | None:
    """The first row of the derived `table` (of a contract's or a round's, `scope`) that differs from what its
    sealed sources give, or None. `db`: a Store, a Snapshot or a Tx."""
    spec = BY_TABLE[table]
    if table == "round_consensus":
        return _consensus_difference(db, scope)
    where = "" if scope is None else f"AND {spec.scope} = {int(scope)}"
    found = db.fetch_one(_compare_sql(spec, spec.derive(where), where))
    return None if found is None else _difference(spec, found)


def verify(db: Any) -> tuple[bool, str, int]:
    """(ok, pt-BR message, rows compared) of every derived table, in the order of DERIVED (a copy before the
    copies made from it)."""
    rows = 0
    for spec in DERIVED:
        found = first_difference(db, spec.table)
        if found is not None:
            return False, found.message, rows
        rows += int(db.scalar(f"SELECT count(*) FROM {spec.table}"))
    return True, (f"Tabelas derivadas conferem com suas fontes seladas ({rows} linhas recalculadas: "
                  f"{', '.join(d.table for d in DERIVED)})."), rows


def require_proven(db: Any, table: str, scope: int | None = None) -> None:
    """StoreError naming the difference when `table` (of `scope`) is not what its sealed sources give: what pays
    money or publishes a value reads only what `audit verify` proves."""
    found = first_difference(db, table, scope)
    if found is not None:
        raise StoreError(f"{found.message} Nada foi feito: rode `audit verify` e restaure o dado do backup.")


ROUND_TABLES = ("assessment_current", "round_members", "consensus_pivot", "round_consensus")


def require_round_proven(db: Any, round_id: int) -> None:
    """`require_proven` of every table a round's consensus is read from (its entries in force, slots, pivot and
    stored consensus), for that round: before its consensus becomes decisions or is printed in its minutes."""
    for table in ROUND_TABLES:
        require_proven(db, table, round_id)
