"""`python -m valuation compute consensus` (cli.md, section consensus; rules.md §2).

Reads the case with `valuation.jsonin.Reader` (every problem reported with its JSON
path, unknown fields are errors), then calls `valuation.consensus.decide_items`.
"""
from __future__ import annotations

from typing import Any

from valuation import jsonin
from valuation.consensus import (
    METHODS,
    ItemDecision,
    ItemInput,
    Member,
    ValueEntry,
    decide_items,
    panel_basis,
)
from valuation.errors import InputError, Problem
from valuation.fx import BRL, NoRateError, Rate, RateTable, is_currency_code
from valuation.jsonin import BAD, Reader, join
from valuation.money import amount_str
from valuation.policies import ConsensusPolicy

_TOP = ("policy", "members", "rates", "items")
_POLICY = ("method", "quorum", "spread_threshold")
_MEMBER = ("id", "body", "president")
_RATE = ("currency", "date", "brl")
_ITEM = ("id", "votes", "values")
_VALUE = ("member", "amount", "currency", "date")


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
    method = r.field(p, "method", "policy", jsonin.choice(*METHODS), required=False, default=default.method)
    quorum = r.field(p, "quorum", "policy", jsonin.integer(minimum=1), required=False, default=default.quorum)
    threshold = r.field(p, "spread_threshold", "policy", jsonin.decimal(), required=False,
                        default=default.spread_threshold)
    if BAD in (method, quorum, threshold) or p is BAD:
        return default  # problems already recorded
    return ConsensusPolicy(method=method, quorum=quorum, spread_threshold=threshold)


def _members(r: Reader, doc: dict[str, Any]) -> dict[str, Member]:
    raw = r.field(doc, "members", "", lambda rr, v, p: rr.items(v, p, lambda *a: a, min_len=1))
    members: dict[str, Member] = {}
    president_at: str | None = None
    if raw is BAD:
        return members
    for _r, v, path in raw:
        m = r.obj(v, path, allowed=_MEMBER)
        mid = r.field(m, "id", path, jsonin.text)
        body = r.field(m, "body", path, jsonin.choice("navy", "culture"))
        president = r.field(m, "president", path, jsonin.boolean, required=False, default=False)
        if mid is not BAD and mid in members:
            r.fail(join(path, "id"), f'duplicate member id "{mid}"')
            continue
        if president is True:
            if president_at is not None:
                r.fail(join(path, "president"), f"at most one member may be president (already {president_at})")
                president = False
            else:
                president_at = path
                if body is not BAD and body != "navy":
                    # NORMAM-10 0303 c 1 I: "A presidência da Comissão caberá a um dos membros da MB."
                    r.fail(join(path, "president"), "the president must be a navy member (NORMAM-10 0303 c 1 I)")
        if BAD not in (mid, body, president) and m is not BAD:
            members[mid] = Member(id=mid, body=body, president=bool(president))
    return members


def _rates(r: Reader, doc: dict[str, Any]) -> RateTable:
    raw = r.field(doc, "rates", "", lambda rr, v, p: rr.items(v, p, lambda *a: a), required=False, default=[])
    rates: list[Rate] = []
    seen: dict[tuple[str, Any], str] = {}
    for _r, v, path in raw or []:
        x = r.obj(v, path, allowed=_RATE)
        currency = r.field(x, "currency", path, _currency)
        day = r.field(x, "date", path, jsonin.iso_date)
        brl = r.field(x, "brl", path, jsonin.decimal())
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
        ok = iid is not BAD and it is not BAD

        votes: dict[str, bool | None] = {}
        vpath = join(path, "votes")
        raw_votes = r.field(it, "votes", path, lambda rr, x, p: rr.obj(x, p))
        if raw_votes is BAD:
            ok = False
        else:
            for member_id, vote in raw_votes.items():
                p = join(vpath, member_id)
                if members_ok and member_id not in members:
                    r.fail(p, f'unknown member "{member_id}"')
                    ok = False
                elif _vote(r, vote, p) is BAD:
                    ok = False
                else:
                    votes[member_id] = vote

        values: list[ValueEntry] = []
        raw_values = r.field(it, "values", path, lambda rr, x, p: rr.items(x, p, lambda *a: a))
        if raw_values is BAD:
            ok = False
        else:
            valued: dict[str, str] = {}
            for _r2, x, p in raw_values:
                e = r.obj(x, p, allowed=_VALUE)
                member = r.field(e, "member", p, jsonin.text)
                amount = r.field(e, "amount", p, jsonin.decimal())
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
        if ok:
            out.append(ItemInput(id=iid, votes=votes, values=tuple(values)))
    return out


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
    policy = _policy(r, top)
    n_before = len(r.problems)
    members = _members(r, top)
    members_ok = len(r.problems) == n_before  # otherwise 'unknown member' would be noise
    table = _rates(r, top)
    items = _items(r, top, members, table, members_ok)
    r.done()
    try:
        decisions = decide_items(items, list(members.values()), table, policy)
    except ValueError as exc:  # ConsensusError / FxError: validated above, translated here all the same
        raise InputError(Problem("", str(exc))) from exc
    return {
        "policy": {"method": policy.method, "quorum": policy.quorum,
                   "spread_threshold": str(policy.spread_threshold)},
        "items": [_decision_json(d) for d in decisions],
        "basis": list(panel_basis()),
    }
