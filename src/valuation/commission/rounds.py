"""The Commission's assessment rounds: opening, closing, publishing and reading them (issue 3;
Lei 7.542/1986 art. 20 §3; NORMAM-10 0303 c 1 I).

The president opens a round over items of a contract — all of them, a chosen set, or the items
flagged in an earlier round; the round takes a snapshot of the consensus policy in force
(`current_policy`) and of its president, whose vote breaks ties (Lei 2.180/1954 art. 70, by
analogy). Members enter their values (`entries`, `sheet_import`); at the close the whole round's
consensus is recomputed in SQL (`consensus_sql`) and set against the comparables; the president
then decides (`decisions`) and publishes, which shows the decisions to the contract's explorer.

Who may do what is `valuation.db.access` (read_rounds, read_published_decisions, open_rounds,
close_rounds, publish_decisions); every write is audited (`Tx.audit`).
"""
from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from valuation.commission import comparables, derived
from valuation.commission.consensus_sql import insert_consensus, update_consensus
from valuation.commission.panel import (
    BODY_FULL,
    NOT_A_BODY,
    PRESIDENT_NOT_NAVY,
    SECOND_PRESIDENT,
    Seat,
    composition_breaches,
)
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound, Problem
from valuation.core.nup import format_nup as nup_format
from valuation.core.valuation_date import Conversion, conversion_rule
from valuation.db.access import (
    COMMISSION_ROLES,
    Principal,
    allowed,
    contract_scope,
    organisation_cleared,
    presides,
    require,
    users_with_roles,
)
from valuation.db.paging import DEFAULT_PAGE_SIZE, check_page
from valuation.notices import events
from valuation.policies.defaults import ConsensusPolicy
from valuation.policies.values import policy_in_force

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

__all__ = ["METHOD_LABELS", "STATUS_LABELS", "Round", "RoundOverview", "close_round", "current_policy",
           "fetch_round", "flagged_counts", "get_round", "list_rounds", "next_round_number", "open_round",
           "panel_problems", "publish_round", "round_overview"]

STATUS_LABELS: dict[str, str] = {"aberta": "Aberta", "encerrada": "Encerrada", "decidida": "Decidida",
                                 "publicada": "Publicada"}
METHOD_LABELS: dict[str, str] = {"median": "mediana", "mean": "média", "trimmed_mean": "média aparada"}
YOU = "Você"
# A member's per-round pseudonym (1, 2, …): stable within a round, unrelated across rounds,
# so that members see the others' values after the close without their names (Delphi).
PSEUDONYM_SQL = ("row_number() OVER (ORDER BY hash(CAST(c.round_id AS VARCHAR) || ':' "
                 "|| CAST(c.member_id AS VARCHAR)), c.member_id)")

ROUND_SQL = """
SELECT r.id, r.contract_id, c.code AS contract_code, c.organisation_id, c.office_code, r.number, r.previous_round_id,
       r.status,
       r.method, r.quorum, r.spread_threshold, r.president_id, r.opened_by, r.opened_at, r.closed_by,
       r.closed_at, r.decided_by, r.decided_at, r.published_by, r.published_at, {count} AS item_count,
       c.valuation_date, c.value_fixed, {nup} AS nup
FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id
"""
ITEM_COUNT_SQL = "(SELECT count(*) FROM round_items ri WHERE ri.round_id = r.id)"
NUP_SQL = "(SELECT g.nup FROM process_numbers g WHERE g.subject = 'round' AND g.subject_id = r.id)"


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
    valuation_date: date | None = None   # the contract's (art. 21 §3): the day whose rates convert its prices
    value_fixed: str | None = None       # antes | depois the operations (art. 21 §3)
    nup: str | None = None       # the 17 digits of the decision's process number (given when it is recorded)

    @property
    def conversion(self) -> Conversion:
        """Which day's rates convert this round's foreign prices, and why (Lei 7.542 art. 21 §3)."""
        return conversion_rule(self.valuation_date, self.value_fixed)

    @property
    def nup_label(self) -> str | None:
        """The decision's NUP as printed (00000.000000/0000-00), None before the decision."""
        return nup_format(self.nup) if self.nup else None

    @property
    def status_label(self) -> str:
        return STATUS_LABELS.get(self.status, self.status)

    @property
    def is_open(self) -> bool:
        return self.status == "aberta"

    @property
    def method_label(self) -> str:
        return METHOD_LABELS.get(self.method, self.method)

    @property
    def policy(self) -> ConsensusPolicy:
        return ConsensusPolicy(method=self.method, quorum=self.quorum, spread_threshold=self.spread_threshold)


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


# -- round rows ---------------------------------------------------------------------------------
_ROUND_FIELDS = tuple(f.name for f in fields(Round))


def round_of(row: Mapping[str, Any], *, hide_people: bool = False) -> Round:
    """The Round of a ROUND_SQL row; `hide_people` blanks who opened, closed, decided, published."""
    data = {k: row[k] for k in _ROUND_FIELDS}
    data["item_count"] = int(data["item_count"] or 0)
    if hide_people:
        for k in ("opened_by", "closed_by", "decided_by", "published_by", "president_id"):
            data[k] = None
    return Round(**data)


# The memo keys of `fetch_round` (their first element): what a write that changes no round, no contract and no
# process number keeps (`Store.write(keeps=…)`).
ROUND_MEMO = ("round",)


def fetch_round(db: Store | Tx, round_id: int, *, count: bool = True, nup: bool = True) -> dict[str, Any]:
    """The round row (with its contract's code and organisation), no access check; `count=False`
    skips counting its items (item_count None: a one-entry write on a million-item round needs
    no count), `nup=False` looking up its process number (nup None: the entry does not show it;
    the lookup was half of the read). NotFound for an unknown id."""
    if isinstance(round_id, bool) or not isinstance(round_id, int):
        raise InputError(Problem("round_id", "Rodada: identificador inválido."))
    # Committed rows are kept for the Store's revision (`Store.memo`): a page of the Commission read its round
    # four times per run, 3–4 ms each at a million items; a save reads it once more after its commit, then from
    # there. Inside a transaction it is read (and counted), unless the write keeps "round" (`Tx.memo`: a
    # member's entry, which writes nothing the row is read from).
    known = _ITEM_COUNTS.setdefault(db, {}) if count and not _in_transaction(db) else None
    return dict(db.memo((ROUND_MEMO[0], round_id, count, nup), lambda: _read_round(db, round_id, count, nup, known)))


def _read_round(db: Store | Tx, round_id: int, count: bool, nup: bool, known: dict[int, int] | None
                ) -> dict[str, Any]:
    """The round row as `fetch_round` gives it; `known`: the item counts already read (and to keep)."""
    counted = count and (known is None or round_id not in known)
    row = db.fetch_one(ROUND_SQL.format(count=ITEM_COUNT_SQL if counted else "NULL",
                                        nup=NUP_SQL if nup else "NULL") + " WHERE r.id = ?", [round_id])
    if row is None:
        raise NotFound(f"Rodada de avaliação {round_id} não encontrada.", what="assessment_round", key=round_id)
    if known is not None:
        if counted:
            known[round_id] = int(row["item_count"] or 0)
        row["item_count"] = known[round_id]
    return row


# A round's items are given once, in the transaction that opens it (`open_round`), and never change; so the
# count read from committed rows is kept per Store (at a million items the count was 15 of the read's 18 ms,
# and a page of the Commission reads its round four times). Inside a transaction it is always counted.
_ITEM_COUNTS: weakref.WeakKeyDictionary[Any, dict[int, int]] = weakref.WeakKeyDictionary()


def _in_transaction(db: Store | Tx) -> bool:
    from valuation.db.store import Tx

    return isinstance(db, Tx)


def status_conflict(row: Mapping[str, Any], allowed_status: Sequence[str], action: str) -> None:
    """ConflictError naming the round and its status unless it is one of `allowed_status`."""
    if row["status"] not in allowed_status:
        raise ConflictError(f"Não é possível {action}: a rodada {row['number']} do contrato {row['contract_code']} "
                            f"está {STATUS_LABELS.get(row['status'], row['status']).lower()}.")


def register(tx: Tx, name: str, table: pa.Table) -> str:
    """Register an Arrow table as a view of the transaction's cursor; the caller unregisters it."""
    view = f"_{name}_{id(table)}"
    tx.cur.register(view, table)
    return view


def current_policy(db: Store | Tx) -> ConsensusPolicy:
    """The consensus policy in force today (`valuation.policies.values`, the one reader), the rules a
    round takes when it opens. A stored value that cannot be used is an error, never ignored."""
    states = {k: policy_in_force(db, k) for k in ("consensus_method", "quorum", "spread_threshold")}
    broken = [f"{s.label}: {s.unreadable}" for s in states.values() if s.unreadable]
    if broken:
        raise ConflictError("Política da Comissão ilegível no banco de dados: " + "; ".join(broken))
    return ConsensusPolicy(method=states["consensus_method"].value, quorum=int(states["quorum"].value),
                           spread_threshold=Decimal(states["spread_threshold"].value))


# -- the designated panel (NORMAM-10 0303 c 1 I) --------------------------------------------------
_NAMED_BY = {"navy": "indicados pela DPHCM (Marinha)", "culture": "indicados pelo Ministério da Cultura"}
PANEL_RULE = ("NORMAM-10 (ed. 2002) 0303 c 1 I: três membros indicados pela DPHCM e três pelo Ministério da Cultura; "
              "a presidência cabe a um dos membros da Marinha")


def panel_problems(db: Store | Tx) -> list[str]:
    """What keeps the designated panel (the active users with a commission role) from
    deciding, in pt-BR: more than three members of one body, a member without a body, more
    than one president, a president who is not a Navy member (`valuation.commission.panel`). Empty:
    the composition is lawful."""
    members, params = users_with_roles(COMMISSION_ROLES, "u")
    rows = db.fetch(f"SELECT u.full_name, u.role, u.commission_body FROM users u WHERE u.active AND {members} "
                    "ORDER BY u.id", params)
    seats = [Seat(r["commission_body"], presides(r["role"])) for r in rows]
    out: list[str] = []
    full: set[str] = set()
    for b in composition_breaches(seats):
        name = rows[b.index]["full_name"] if b.index is not None else ""
        if b.kind == BODY_FULL and b.body not in full:
            full.add(str(b.body))
            names = ", ".join(r["full_name"] for r, s in zip(rows, seats) if s.body == b.body)
            out.append(f"mais de {b.limit} membros {_NAMED_BY[str(b.body)]}: {names}")
        elif b.kind == NOT_A_BODY:
            out.append(f"{name} não tem órgão registrado (Marinha ou Ministério da Cultura)")
        elif b.kind == SECOND_PRESIDENT:
            out.append(f"mais de um presidente: {rows[b.other or 0]['full_name']} e {name}")
        elif b.kind == PRESIDENT_NOT_NAVY:
            out.append(f"o presidente {name} não é membro da Marinha")
    return out


def require_lawful_panel(db: Store | Tx) -> None:
    """ConflictError naming every breach when the designated panel cannot decide (NORMAM-10
    0303 c 1 I): no round is opened for such a panel."""
    problems = panel_problems(db)
    if problems:
        raise ConflictError(f"A Comissão designada não atende à composição da {PANEL_RULE}: "
                            + "; ".join(problems) + ". Corrija os membros em Usuários antes de abrir a rodada.")


# -- opening ----------------------------------------------------------------------------------------
def open_round(store: Store, user: Principal, contract_code: str, item_ids: Sequence[int] | None = None, *,
               from_round: int | None = None) -> Round:
    """Open an assessment round (president only) over `item_ids` of the contract — by
    default all its items, or with `from_round` the items flagged in that round (rules.md
    §2: "flag an item for another round"). One open round per contract at a time."""
    require(user, "open_rounds")
    if user.commission_body != "navy":
        # NORMAM-10 0303 c 1 I: "A presidência da Comissão caberá a um dos membros da MB."
        raise AccessDenied("A presidência da Comissão cabe a um membro da Marinha (NORMAM-10 (ed. 2002) 0303 c 1 I): "
                           "corrija o órgão deste usuário.", user=user.username, action="open_round")
    if not isinstance(contract_code, str) or not contract_code.strip():
        raise InputError(Problem("contract_code", "Contrato: informe o código."))

    def run(tx: Tx) -> int:
        contract, previous = _opening_checks(tx, contract_code.strip(), from_round)
        view = None if item_ids is None else register(tx, "open_ids", pa.table({"item_id": _id_array(item_ids)}))
        try:
            source = _items_source(tx, contract, previous, view)
            return _insert_round(tx, user, contract, previous, source, listed=view is not None)
        finally:
            if view is not None:
                tx.cur.unregister(view)

    round_id = store.write(user.username, run)
    return round_of(fetch_round(store, round_id))


def _opening_checks(tx: Tx, code: str, from_round: int | None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the contract, the earlier round the items come from) once the opening is lawful."""
    contract = tx.fetch_one("SELECT id, code FROM contracts WHERE code = ?", [code])
    if contract is None:
        raise NotFound(f"Contrato {code} não encontrado.", what="contract", key=code)
    require_lawful_panel(tx)  # NORMAM-10 0303 c 1 I: 3 + 3 members, a Navy president
    open_now = tx.fetch_one("SELECT number FROM assessment_rounds WHERE contract_id = ? AND status = 'aberta'",
                            [contract["id"]])
    if open_now is not None:
        raise ConflictError(f"O contrato {contract['code']} já tem a rodada {open_now['number']} aberta: "
                            f"encerre-a antes de abrir outra.")
    if from_round is None:
        return contract, None
    previous = fetch_round(tx, from_round)
    if previous["contract_id"] != contract["id"]:
        raise InputError(Problem("from_round", f"Rodada anterior: a rodada {from_round} é de outro "
                                               f"contrato ({previous['contract_code']})."))
    if previous["status"] == "aberta":
        raise ConflictError(f"A rodada {previous['number']} ainda está aberta: encerre-a antes.")
    return contract, previous


def _items_source(tx: Tx, contract: Mapping[str, Any], previous: Mapping[str, Any] | None,
                  view: str | None) -> tuple[str, list[Any]]:
    """The SELECT of the round's item ids: the listed ones (checked against the contract), the
    earlier round's flagged ones, or every item of the contract."""
    if view is None:
        if previous is not None:
            return "SELECT item_id FROM item_consensus WHERE round_id = ? AND flagged", [previous["id"]]
        return "SELECT id AS item_id FROM items WHERE contract_id = ?", [contract["id"]]
    unknown = tx.execute(f"SELECT v.item_id FROM {view} v LEFT JOIN items i ON i.id = v.item_id "
                         f"AND i.contract_id = ? WHERE i.id IS NULL ORDER BY v.item_id LIMIT 21", [contract["id"]])
    if unknown:
        listed = ", ".join(str(u["item_id"]) for u in unknown[:20]) + ("…" if len(unknown) > 20 else "")
        raise InputError(Problem("item_ids", f"Itens: não pertencem ao contrato {contract['code']}: {listed}."))
    return f"SELECT DISTINCT item_id FROM {view}", []


def _insert_round(tx: Tx, user: Principal, contract: Mapping[str, Any], previous: Mapping[str, Any] | None,
                  source: tuple[str, list[Any]], *, listed: bool) -> int:
    """Write the round, its items and their empty consensus rows; audited. Returns its id."""
    n_items = int(tx.scalar(f"SELECT count(*) FROM ({source[0]})", source[1]))
    if n_items == 0:
        if previous is not None and not listed:
            raise InputError(Problem("from_round", f"Rodada anterior: a rodada {previous['number']} não "
                                                   f"tem itens sinalizados para nova rodada."))
        raise InputError(Problem("item_ids", f"Itens: o contrato {contract['code']} não tem itens para avaliar."))
    policy = current_policy(tx)
    number = next_round_number(tx, int(contract["id"]))
    round_id = int(tx.scalar(
        "INSERT INTO assessment_rounds (contract_id, number, previous_round_id, status, method, quorum, "
        "spread_threshold, opened_by, opened_at, president_id) VALUES (?, ?, ?, 'aberta', ?, ?, ?, ?, ?, ?) "
        "RETURNING id",
        [contract["id"], number, None if previous is None else previous["id"], policy.method, policy.quorum,
         policy.spread_threshold, user.username, tx.store.now(), user.id]))
    tx.execute(f"INSERT INTO round_items (round_id, item_id) SELECT ?, item_id FROM ({source[0]}) ORDER BY item_id",
               [round_id, *source[1]])
    insert_consensus(tx, round_id)
    tx.audit("round_opened", "assessment_round", round_id, None, {
        "contract": contract["code"], "number": number, "items": n_items, "method": policy.method,
        "quorum": policy.quorum, "spread_threshold": policy.spread_threshold,
        "from_round": None if previous is None else previous["id"], "president": user.username})
    events.round_opened(tx, round_id=round_id, items=n_items, opened_by=user.id)   # issue 42 item 4: the members
    return round_id


def next_round_number(db: Store | Tx, contract_id: int) -> int:
    """The number the contract's next round takes (1, 2, …)."""
    return int(db.scalar("SELECT coalesce(max(number), 0) + 1 FROM assessment_rounds WHERE contract_id = ?",
                         [contract_id]))


def _id_array(values: Sequence[int]) -> pa.Array:
    try:
        arr = np.asarray(list(values))
        if arr.size and (arr.dtype.kind not in "iu"):
            raise TypeError
        return pa.array(arr.astype(np.int64), type=pa.int64())
    except (TypeError, ValueError, OverflowError) as exc:
        raise InputError(Problem("item_ids", "Itens: informe identificadores inteiros.")) from exc


# -- closing and publishing ----------------------------------------------------------------------------
def close_round(store: Store, user: Principal, round_id: int) -> Round:
    """Close an open round (president only): entries stop, the whole round's consensus is
    recomputed and stored, and members may see the anonymous medians and spreads."""
    require(user, "close_rounds")

    def run(tx: Tx) -> None:
        row = fetch_round(tx, round_id)
        status_conflict(row, ("aberta",), "encerrar a rodada")
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
    return round_of(fetch_round(store, round_id))


def publish_round(store: Store, user: Principal, round_id: int) -> Round:
    """Publish a decided round (president only): its decisions become visible to the
    explorer of the contract."""
    require(user, "publish_decisions")

    def run(tx: Tx) -> None:
        row = fetch_round(tx, round_id)
        status_conflict(row, ("decidida",), "publicar a rodada")
        derived.require_proven(tx, "item_valuation", int(row["contract_id"]))   # issue 45, item 2: what it publishes
        tx.execute("UPDATE assessment_rounds SET status = 'publicada', published_by = ?, published_at = ? "
                   "WHERE id = ?", [user.username, store.now(), round_id])
        done = tx.execute("UPDATE item_valuation SET published = TRUE WHERE round_id = ? AND NOT published",
                          [round_id])
        n = int(next(iter(done[0].values()))) if done else 0
        comparables.record_published(tx, round_id)   # issue 16: published decisions become comparables
        tx.audit("round_published", "assessment_round", round_id, {"status": "decidida"},
                 {"status": "publicada", "valuations_published": n})
        events.decision_published(tx, round_id=round_id)    # issue 42 item 4: the company's people

    store.write(user.username, run)
    return round_of(fetch_round(store, round_id))


# -- reading ----------------------------------------------------------------------------------------
def reads_published_only(user: Principal) -> bool:
    """An explorer (its own contracts) or an office officer (its office's): reads only the published rounds and
    decisions."""
    return not allowed(user, "read_rounds") and allowed(user, "read_published_decisions")


def readable_round(store: Store, user: Principal, round_id: int) -> dict[str, Any]:
    """The round row if `user` may read it (explorers: published rounds of their own contracts)."""
    if reads_published_only(user):
        row = fetch_round(store, round_id)
        if (not organisation_cleared(user, row["organisation_id"], row["office_code"])
                or row["status"] != "publicada"):
            raise NotFound(f"Rodada de avaliação {round_id} não encontrada.", what="assessment_round",
                           key=round_id)
        return row
    require(user, "read_rounds")
    return fetch_round(store, round_id)


def get_round(store: Store, user: Principal, round_id: int) -> Round:
    """One round, if `user` may read it (explorers: a published round of their own contracts)."""
    row = readable_round(store, user, round_id)
    return round_of(row, hide_people=reads_published_only(user))


def list_rounds(store: Store, user: Principal, contract_code: str | None = None) -> list[Round]:
    """Rounds, newest first: dpc and the Commission all; an explorer only the published
    rounds of its own contracts (without the names of the people); the admin none."""
    clauses: list[str] = ["TRUE"]
    params: list[Any] = []
    explorer = reads_published_only(user)
    if explorer:
        own, own_params = contract_scope(user, "c")     # its company's, or its office's contracts
        clauses += [own, "r.status = 'publicada'"]
        params += own_params
    else:
        require(user, "read_rounds")
    if contract_code:
        clauses.append("c.code = ?")
        params.append(contract_code)
    rows = store.fetch(ROUND_SQL.format(count=ITEM_COUNT_SQL, nup=NUP_SQL) + " WHERE " + " AND ".join(clauses)
                       + " ORDER BY c.code, r.number DESC", params)
    return [round_of(r, hide_people=explorer) for r in rows]


def flagged_counts(store: Store, user: Principal, rounds: Sequence[Round]) -> dict[int, int]:
    """How many items each closed round flagged for another round (open rounds: not yet known,
    left out) — what the president chooses a new round's items from."""
    require(user, "read_rounds")
    ids = [int(r.id) for r in rounds if not r.is_open]
    counts = {i: 0 for i in ids}
    if ids:
        rows = store.fetch(f"SELECT round_id, count(*) AS n FROM item_consensus WHERE flagged AND round_id IN "
                           f"({', '.join('?' * len(ids))}) GROUP BY round_id", ids)
        counts.update({int(r["round_id"]): int(r["n"]) for r in rows})
    return counts


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
    require(user, "read_rounds")
    check_page(page, page_size)
    row = fetch_round(store, round_id)
    is_member = allowed(user, "enter_assessments")
    is_open = row["status"] == "aberta"
    visibility = ("own" if is_open else "anonymous") if is_member else ("progress" if is_open else "full")
    if flagged_only and is_open:
        raise AccessDenied("Os itens sinalizados só aparecem depois do encerramento da rodada.",
                           user=user.username, action="round_overview")
    # The page's items first, by their place in item-code order (consensus_pivot.pos, 1…N: a
    # range of it, or the flagged ones in its order), then their details, the page's ids named in every
    # join: DuckDB then reads only the row groups holding them (at a million items, 38 → 6 ms: a join on
    # the page's rows alone built its hash table over the round's million stored consensus rows).
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
    ids = [int(r["item_id"]) for r in store.fetch(pick[0], pick[1])]
    cols, joins, params = _overview_columns(user, is_member=is_member, is_open=is_open,
                                            progress=visibility == "progress", ids=ids)
    items = store.fetch_df(
        f"WITH pg AS ({pick[0]}) SELECT {', '.join(cols)} FROM pg {' '.join(joins)} ORDER BY pg.pos",
        [*pick[1], *params])
    return RoundOverview(round=round_of(row), visibility=visibility, items=items, total_items=total, page=page,
                         page_size=page_size)


def _overview_columns(user: Principal, *, is_member: bool, is_open: bool, progress: bool,
                      ids: list[int]) -> tuple[list[str], list[str], list[Any]]:
    """(columns, joins, parameters) of `round_overview`'s query, as `user` may see them; `ids`: the page's
    item ids (integers read from the store), named in each join."""
    def only(column: str) -> str:
        return f" AND {column} IN ({', '.join(str(int(i)) for i in ids)})" if ids else ""

    cols = ["pg.item_id", "i.item_code", "i.description"]
    joins = [f"JOIN items i ON i.id = pg.item_id{only('i.id')}", "JOIN item_consensus ic ON ic.round_id = pg.round_id "
             f"AND ic.item_id = pg.item_id{only('ic.item_id')}"]
    params: list[Any] = []
    if is_member:
        cols += ["l.historical AS my_historical", "l.amount AS my_amount", "l.currency AS my_currency",
                 "l.price_date AS my_price_date", "l.value_brl AS my_value_brl",
                 "l.significance AS my_significance", "l.must_keep AS my_must_keep", "l.source AS my_source"]
        joins.append("LEFT JOIN assessment_current c ON c.round_id = pg.round_id AND c.item_id = pg.item_id "
                     f"AND c.member_id = ?{only('c.item_id')} LEFT JOIN assessment_log l ON l.id = c.log_id")
        params.append(user.id)
    if progress:
        cols.append("(SELECT count(*) FROM assessment_current e WHERE e.round_id = pg.round_id "
                    f"AND e.item_id = pg.item_id{only('e.item_id')}) AS entries")
    if not is_open:
        cols += ["ic.n_values", "ic.votes_for", "ic.votes_against", "ic.median_brl", "ic.spread", "ic.flagged",
                 "ic.historical", "ic.decided_by", "ic.value_brl"]
    return cols, joins, params
