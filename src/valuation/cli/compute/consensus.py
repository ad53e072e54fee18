"""`python -m valuation compute consensus` (cli.md, section consensus; rules.md §2).

Reads the case with `valuation.core.jsonin.Reader` (every problem reported with its JSON
path, unknown fields are errors), then calls `valuation.commission.consensus.decide_items`.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from valuation.commission.consensus import (
    ItemDecision,
    ItemInput,
    Member,
    ValueEntry,
    decide_items,
    panel_basis,
)
from valuation.commission.fx import BRL, NoRateError, Rate, RateTable, is_currency_code
from valuation.commission.panel import (
    BODY_FULL,
    PRESIDENT_NOT_NAVY,
    QUORUM_HIGH,
    SECOND_PRESIDENT,
    Seat,
    composition_breaches,
)
from valuation.core import jsonin, law
from valuation.core.jsonin import BAD, Reader, join
from valuation.core.money import amount_str
from valuation.policies.defaults import CONSENSUS_METHODS, ConsensusPolicy

_TOP = ("policy", "members", "rates", "items")
_POLICY = ("method", "quorum", "spread_threshold")
_MEMBER = ("id", "body", "president")
_RATE = ("currency", "date", "brl")
_ITEM = ("id", "votes", "values")
_VALUE = ("member", "amount", "currency", "date")


_AMOUNT_CONV = jsonin.amount(places=None)  # a price fits DECIMAL(18,2) (assessment_log.amount)
_MAX_RATE = Decimal("999999999999.999999")  # fx_rates.brl is DECIMAL(18,6)


def _RATE_CONV(r: Reader, v: Any, path: str) -> Any:  # noqa: N802 (a converter, named like the others)
    d = jsonin.decimal(places=6)(r, v, path)
    if d is not BAD and d > _MAX_RATE:
        return r.fail(path, f"is too large (at most {_MAX_RATE}, DECIMAL(18,6))")
    return d


def _currency(r: Reader, v: Any, path: str) -> Any:
    if not is_currency_code(v):
        return r.fail(path, "must be a currency code of three upper-case letters (e.g. USD)")
    return v


def _vote(r: Reader, v: Any, path: str) -> Any:
    if v is not None and not isinstance(v, bool):
        return r.fail(path, "must be true, false or null")
    return v


def _policy(r: Reader, doc: dict[str, Any]) -> ConsensusPolicy:
    default = ConsensusPolicy()
    if doc.get("policy") is None:
        return default
    p = r.obj(doc["policy"], "policy", allowed=_POLICY)
    method = r.field(p, "method", "policy", jsonin.choice(*CONSENSUS_METHODS), required=False, default=default.method)
    quorum = r.field(p, "quorum", "policy", jsonin.integer(minimum=1), required=False, default=default.quorum)
    threshold = r.field(p, "spread_threshold", "policy", jsonin.decimal(), required=False,
                        default=default.spread_threshold)
    if BAD in (method, quorum, threshold) or p is BAD:
        return default  # problems already recorded
    return ConsensusPolicy(method=method, quorum=quorum, spread_threshold=threshold)


def _members(r: Reader, doc: dict[str, Any]) -> dict[str, Member]:
    """The panel. Besides each member's fields, its composition (NORMAM-10 0303 c 1 I,
    `valuation.commission.panel`): at most three members of one body, one president, a navy one."""
    raw = r.field(doc, "members", "", lambda rr, v, p: rr.items(v, p, lambda *a: a, min_len=1))
    members: dict[str, Member] = {}
    if raw is BAD:
        return members
    seats: list[tuple[str, Seat]] = []
    for _r, v, path in raw:
        m = r.obj(v, path, allowed=_MEMBER)
        mid = r.field(m, "id", path, jsonin.text)
        body = r.field(m, "body", path, jsonin.choice(*law.COMMISSION_BODIES))
        president = r.field(m, "president", path, jsonin.boolean, required=False, default=False)
        if mid is not BAD and mid in members:
            r.fail(join(path, "id"), f'duplicate member id "{mid}"')
            continue
        seats.append((path, Seat(body if body is not BAD else None, president is True)))
        if BAD not in (mid, body, president) and m is not BAD:
            members[mid] = Member(id=mid, body=body, president=bool(president))
    _composition(r, seats)
    return members


def _composition(r: Reader, seats: list[tuple[str, Seat]]) -> None:
    for b in composition_breaches([s for _, s in seats]):
        path = seats[b.index][0] if b.index is not None else ""
        if b.kind == BODY_FULL:
            r.fail(join(path, "body"), f"more than {b.limit} members of body {b.body} "
                                       f"(NORMAM-10 0303 c 1 I: three named by the DPHCM, three by the Ministry "
                                       "of Culture)")
        elif b.kind == SECOND_PRESIDENT:
            r.fail(join(path, "president"),
                   f"at most one member may be president (already {seats[b.other or 0][0]})")
        elif b.kind == PRESIDENT_NOT_NAVY:
            # NORMAM-10 0303 c 1 I: "A presidência da Comissão caberá a um dos membros da MB."
            r.fail(join(path, "president"), "the president must be a navy member (NORMAM-10 0303 c 1 I)")
        # NOT_A_BODY: the body field's own problem is already recorded


def _quorum(r: Reader, policy: ConsensusPolicy, n_members: int, given: bool) -> None:
    """A quorum above the number of members could never be met (cli.md: bad input)."""
    for b in composition_breaches([Seat("navy")] * n_members, policy.quorum):
        if b.kind == QUORUM_HIGH:
            r.fail("policy.quorum", f"must not exceed the number of members ({b.limit})"
                                    + ("" if given else f"; the default quorum is {policy.quorum}"))


def _rates(r: Reader, doc: dict[str, Any]) -> RateTable:
    raw = r.field(doc, "rates", "", lambda rr, v, p: rr.items(v, p, lambda *a: a))
    if raw is BAD:
        return RateTable([])
    rates: list[Rate] = []
    seen: dict[tuple[str, Any], str] = {}
    for _r, v, path in raw or []:
        x = r.obj(v, path, allowed=_RATE)
        currency = r.field(x, "currency", path, _currency)
        day = r.field(x, "date", path, jsonin.iso_date)
        brl = r.field(x, "brl", path, _RATE_CONV)
        if currency == BRL:
            r.fail(join(path, "currency"), "BRL needs no rate")
            continue
        if brl is not BAD and brl == 0:
            r.fail(join(path, "brl"), "must be a positive decimal")
            continue
        if BAD in (currency, day, brl) or x is BAD:
            continue
        if (currency, day) in seen:
            r.fail(path, f"duplicate {currency} rate for {day.isoformat()} (already {seen[(currency, day)]})")
            continue
        seen[(currency, day)] = path
        rates.append(Rate(currency=currency, date=day, brl=brl))
    return RateTable(rates)


def _items(r: Reader, doc: dict[str, Any], members: dict[str, Member], table: RateTable,
           members_ok: bool) -> list[ItemInput]:
    raw = r.field(doc, "items", "", lambda rr, v, p: rr.items(v, p, lambda *a: a))
    out: list[ItemInput] = []
    if raw is BAD:
        return out
    item_ids: dict[str, str] = {}
    for _r, v, path in raw:
        it = r.obj(v, path, allowed=_ITEM)
        iid = r.field(it, "id", path, jsonin.text)
        if iid is not BAD and iid in item_ids:
            r.fail(join(path, "id"), f'duplicate item id "{iid}" (already {item_ids[iid]})')
        elif iid is not BAD:
            item_ids[iid] = path
        votes = _item_votes(r, it, path, members, members_ok)
        values = _item_values(r, it, path, members, table, members_ok)
        if iid is not BAD and it is not BAD and votes is not None and values is not None:
            out.append(ItemInput(id=iid, votes=votes, values=tuple(values)))
    return out


def _item_votes(r: Reader, it: Any, path: str, members: dict[str, Member],
                members_ok: bool) -> dict[str, bool | None] | None:
    """The item's votes by member; None when any is bad (each reported)."""
    votes: dict[str, bool | None] = {}
    vpath = join(path, "votes")
    raw_votes = r.field(it, "votes", path, lambda rr, x, p: rr.obj(x, p))
    if raw_votes is BAD:
        return None
    ok = True
    for member_id, vote in raw_votes.items():
        p = join(vpath, member_id)
        if members_ok and member_id not in members:
            r.fail(p, f'unknown member "{member_id}"')
            ok = False
        elif _vote(r, vote, p) is BAD:
            ok = False
        else:
            votes[member_id] = vote
    return votes if ok else None


def _item_values(r: Reader, it: Any, path: str, members: dict[str, Member], table: RateTable,
                 members_ok: bool) -> list[ValueEntry] | None:
    """The item's values (one per member, each with a rate in the table); None when any is bad."""
    raw_values = r.field(it, "values", path, lambda rr, x, p: rr.items(x, p, lambda *a: a))
    if raw_values is BAD:
        return None
    values: list[ValueEntry] = []
    valued: dict[str, str] = {}
    ok = True
    for _r2, x, p in raw_values:
        e = r.obj(x, p, allowed=_VALUE)
        member = r.field(e, "member", p, jsonin.text)
        amount = r.field(e, "amount", p, _AMOUNT_CONV)
        currency = r.field(e, "currency", p, _currency)
        day = r.field(e, "date", p, jsonin.iso_date)
        if member is not BAD:
            if members_ok and member not in members:
                member = r.fail(join(p, "member"), f'unknown member "{member}"')
            elif member in valued:
                member = r.fail(join(p, "member"),
                                f'duplicate value of member "{member}" for this item (already {valued[member]})')
            else:
                valued[member] = p
        if currency is not BAD and day is not BAD:
            if not table.knows(currency):
                currency = r.fail(join(p, "currency"), f"unknown currency {currency} (no rate in the table)")
            elif currency != BRL:
                try:
                    table.rate_for(currency, day)
                except NoRateError as exc:
                    day = r.fail(join(p, "date"), str(exc))
        if BAD in (member, amount, currency, day) or e is BAD:
            ok = False
            continue
        values.append(ValueEntry(member=member, amount=amount, currency=currency, date=day))
    return values if ok else None


def _rate_json(rate: Rate) -> dict[str, str]:
    return {"currency": rate.currency, "date": rate.date.isoformat(), "brl": str(rate.brl)}


def _decision_json(d: ItemDecision) -> dict[str, Any]:
    return {
        "id": d.id,
        "historical": d.historical,
        "decided_by": d.decided_by,
        "votes_for": d.votes_for,
        "votes_against": d.votes_against,
        "quorum_met": d.quorum_met,
        "value_brl": amount_str(d.value_brl),
        "spread": jsonin.spread_float(d.spread),
        "flagged": d.flagged,
        "rates_used": [_rate_json(x) for x in d.rates_used],
        "basis": list(d.basis),
    }


def run(doc: Any) -> dict[str, Any]:
    """The consensus case → {"policy", "items": [...], "basis": [...]} (cli.md)."""
    r = Reader()
    top = r.obj(doc, "", allowed=_TOP)
    if top is BAD:
        r.done()
    n_start = len(r.problems)
    policy = _policy(r, top)
    n_before = len(r.problems)
    members = _members(r, top)
    members_ok = len(r.problems) == n_before  # otherwise 'unknown member' would be noise
    if members_ok and n_before == n_start:
        given = isinstance(top.get("policy"), dict) and "quorum" in top["policy"]
        _quorum(r, policy, len(members), given)
    table = _rates(r, top)
    items = _items(r, top, members, table, members_ok)
    r.done()
    decisions = decide_items(items, list(members.values()), table, policy)  # validated above; ConsensusError
    # and FxError would still be InputErrors (core/errors.py), reported as such
    return {
        "policy": {"method": policy.method, "quorum": policy.quorum,
                   "spread_threshold": str(policy.spread_threshold)},
        "items": [_decision_json(d) for d in decisions],
        "basis": list(panel_basis()),
    }
