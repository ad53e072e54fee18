"""What the president reads around a close (issue 23 items 6-7): before it, who has not voted yet and
whether each item has the Commission's quorum; after it, the close's results in one frame — decided,
flagged (spread or a divided vote), outside the comparables with the reason, undecided.

Before the close only counts are read (never a value or a vote: the Delphi rule of `rounds`); the
quorum is the round's own (the policy `quorum` in force when it was opened, snapshot in the round)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from valuation.commission.comparables import flag_reason
from valuation.commission.rounds import fetch_round
from valuation.core.errors import ConflictError
from valuation.db.access import (
    COMMISSION_BODY_LABELS,
    COMMISSION_ROLES,
    Principal,
    allowed,
    require,
    users_with_roles,
)
from valuation.db.paging import check_page
from valuation.policies.defaults import DEFAULTS

if TYPE_CHECKING:
    from valuation.db.store import Store

QUORUM_BASIS = next(p.basis for p in DEFAULTS if p.key == "quorum")
# the filters of the results view, in the order the page offers them
RESULT_KINDS: dict[str, str] = {"all": "Todos os itens", "decided": "Decididos", "flagged": "Sinalizados",
                                "outside": "Fora dos comparáveis", "undecided": "Sem decisão"}
_KIND_WHERE = {"all": "TRUE", "decided": "ic.decided_by <> 'undecided'", "flagged": "ic.flagged",
               "outside": "f.item_id IS NOT NULL", "undecided": "ic.decided_by = 'undecided'"}


@dataclass(frozen=True)
class CloseReadiness:
    """An open round as the president reads it before closing: `missing` lists the members with items
    they have not voted on (member, body, voted, missing), `short` the items below the quorum."""

    number: int
    items: int
    quorum: int
    quorum_basis: str
    with_quorum: int
    missing: pd.DataFrame

    @property
    def short(self) -> int:
        return self.items - self.with_quorum

    @property
    def quorum_met(self) -> bool:
        return self.short == 0


def close_readiness(store: Store, user: Principal, round_id: int) -> CloseReadiness:
    """Who has not voted yet on the open round `round_id` and how many items reach its quorum (Lei
    2.180/1954 art. 71 by analogy: quorum counts the members who voted). Counts only (president, dpc)."""
    require(user, "follow_round_progress")
    row = fetch_round(store, round_id)
    if row["status"] != "aberta":
        raise ConflictError(f"A rodada {row['number']} já foi encerrada.")
    members, params = users_with_roles(COMMISSION_ROLES, "u")
    missing = store.fetch_df(
        f"""SELECT u.full_name AS member, u.commission_body AS body,
                  count(c.item_id) FILTER (WHERE c.historical IS NOT NULL) AS voted
           FROM users u LEFT JOIN assessment_current c ON c.member_id = u.id AND c.round_id = ?
           WHERE {members} AND u.active
           GROUP BY u.id, u.full_name, u.commission_body ORDER BY u.commission_body DESC, u.full_name""",
        [round_id, *params])
    items = int(row["item_count"])
    missing["missing"] = [items - int(v) for v in missing["voted"].tolist()]
    missing = missing[missing["missing"] > 0].reset_index(drop=True)
    missing["body"] = [COMMISSION_BODY_LABELS.get(b, "—") if isinstance(b, str) else "—"
                       for b in missing["body"].tolist()]
    with_quorum = int(store.scalar(
        "SELECT count(*) FROM (SELECT item_id FROM assessment_current WHERE round_id = ? AND historical IS NOT NULL "
        "GROUP BY item_id HAVING count(*) >= ?)", [round_id, int(row["quorum"])]))
    return CloseReadiness(number=int(row["number"]), items=items, quorum=int(row["quorum"]),
                          quorum_basis=QUORUM_BASIS, with_quorum=with_quorum, missing=missing)


@dataclass(frozen=True)
class CloseResults:
    """A closed round's results: the counts of each kind (`outside` None for a reader of no comparable
    flags) and one page of the items of `kind` (columns: item_code, flagged, outside, decided_by,
    historical, value_brl, median_brl, spread, n_values, votes_for, votes_against, reason, description)."""

    items: int
    decided: int
    flagged: int
    outside: int | None
    undecided: int
    kind: str
    total: int
    rows: pd.DataFrame


def close_results(store: Store, user: Principal, round_id: int, *, kind: str = "all", page: int = 1,
                  page_size: int = 50) -> CloseResults:
    """The results of closing `round_id` (after the close): counts and one page of the items of `kind`
    (RESULT_KINDS), flagged ones first within the page's order by item code."""
    require(user, "read_rounds")
    check_page(page, page_size)
    row = fetch_round(store, round_id)
    if row["status"] == "aberta":
        raise ConflictError("O resultado só existe depois do encerramento da rodada.")
    flags = allowed(user, "read_comparable_flags")
    if kind not in _KIND_WHERE or (kind == "outside" and not flags):
        kind = "all"
    # a reader of no comparable flags joins none (the columns stay, empty)
    join = ("LEFT JOIN comparable_flags f ON f.round_id = ic.round_id AND f.item_id = ic.item_id AND "
            + ("TRUE" if flags else "FALSE"))
    counts = store.fetch_one(
        f"""SELECT count(*) AS items, count(*) FILTER (WHERE ic.decided_by <> 'undecided') AS decided,
                  count(*) FILTER (WHERE ic.flagged) AS flagged, count(f.item_id) AS outside,
                  count(*) FILTER (WHERE ic.decided_by = 'undecided') AS undecided,
                  count(*) FILTER (WHERE {_KIND_WHERE[kind]}) AS total
           FROM item_consensus ic {join} WHERE ic.round_id = ?""", [round_id]) or {}
    rows = store.fetch_df(
        f"""SELECT i.item_code, ic.flagged, f.item_id IS NOT NULL AS outside, ic.decided_by, ic.historical,
                  ic.value_brl, ic.median_brl, ic.spread, ic.n_values, ic.votes_for, ic.votes_against,
                  f.comparables, f.q1_brl, f.median_brl AS cmp_median_brl, f.q3_brl, f.lower_brl, f.upper_brl,
                  f.consensus_brl, f.factor, i.description
           FROM item_consensus ic JOIN items i ON i.id = ic.item_id {join}
           WHERE ic.round_id = ? AND {_KIND_WHERE[kind]}
           ORDER BY i.item_code LIMIT ? OFFSET ?""", [round_id, page_size, (page - 1) * page_size])
    rows.insert(len(rows.columns) - 1, "reason", [_reason(r) for r in rows.to_dict("records")])
    keep = ["item_code", "flagged", "outside", "decided_by", "historical", "value_brl", "median_brl", "spread",
            "n_values", "votes_for", "votes_against", "reason", "description"]
    return CloseResults(items=int(counts.get("items") or 0), decided=int(counts.get("decided") or 0),
                        flagged=int(counts.get("flagged") or 0),
                        outside=int(counts.get("outside") or 0) if flags else None,
                        undecided=int(counts.get("undecided") or 0), kind=kind, total=int(counts.get("total") or 0),
                        rows=rows[keep])


def _reason(row: dict[str, Any]) -> str | None:
    """The comparables' reason of a flagged item (None when it is inside their range)."""
    if not row.get("outside"):
        return None
    return flag_reason({**row, "median_brl": row["cmp_median_brl"]})
