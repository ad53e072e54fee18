"""`python -m valuation compute domain-status` (cli.md, domain-status; rules.md §1).

Input: {"as_of", "casualty_date", "hull" (wood | steel | other), "owner_declared_lost" (date or
null), "owner_licence_requested" (date or null), "suspensions": [{start, end (null: still
running)}], "office"?: {...}, "court_pending"?: {"start", "end"|null}}; the fields without "?"
are required.
`court_pending` applies the Maritime Court suspension (Lei 2.180 art. 20; in the store a
policy, on by default, from the day the office learned of the casualty to the Court's final
decision): the CLI has no store, so the interval is given or left out. Output: owner, since,
basis, lapse_due, lapse_suspended (the five years are stopped by a suspension still running), steps.
"""
from __future__ import annotations

from typing import Any

from valuation.cli.compute.deadline import (
    iso,
    out_of_range,
    read_office,
    read_suspensions,
)
from valuation.core.errors import InputError, Problem
from valuation.core.jsonin import BAD, Reader, choice, iso_date, join
from valuation.registry.domain.status import HULLS, domain_status

ALLOWED = ("as_of", "casualty_date", "hull", "owner_declared_lost", "owner_licence_requested",
           "suspensions", "office", "court_pending")


def _court(r: Reader, v: Any, path: str) -> Any:
    if r.obj(v, path, allowed=("start", "end")) is BAD:
        return BAD
    s = r.field(v, "start", path, iso_date)
    e = r.field(v, "end", path, iso_date, nullable=True)
    if s is BAD or e is BAD:
        return BAD
    if e is not None and e < s:
        return r.fail(join(path, "end"), "must not be before start")
    return (s, e)


def run(doc: Any) -> dict[str, Any]:
    r = Reader()
    if not isinstance(doc, dict):
        r.fail("", "input must be a JSON object")
        r.done()
    r.obj(doc, "", allowed=ALLOWED)
    as_of = r.field(doc, "as_of", "", iso_date)
    casualty = r.field(doc, "casualty_date", "", iso_date)
    hull = r.field(doc, "hull", "", choice(*HULLS))
    # shown as null in cli.md: required, may be null
    declared = r.field(doc, "owner_declared_lost", "", iso_date, nullable=True)
    requested = r.field(doc, "owner_licence_requested", "", iso_date, nullable=True)
    suspensions = read_suspensions(r, doc, casualty)
    court = r.field(doc, "court_pending", "", _court, required=False)
    cal = read_office(r, doc)
    if as_of is not BAD and casualty is not BAD and casualty > as_of:
        r.fail("casualty_date", "must not be after as_of")
    if casualty is not BAD:
        for name, value in (("owner_declared_lost", declared), ("owner_licence_requested", requested)):
            if value not in (None, BAD) and value < casualty:
                r.fail(name, "must not be before casualty_date")
        if court not in (None, BAD) and court[0] < casualty:
            r.fail("court_pending.start", "must not be before casualty_date")
    r.done()
    try:
        st = domain_status(as_of, casualty, hull, declared, requested, suspensions, cal, court_pending=court)
    except OverflowError as exc:
        raise out_of_range("casualty_date") from exc
    except ValueError as exc:
        raise InputError(Problem("casualty_date", str(exc))) from exc
    return {
        "owner": st.owner,
        "since": iso(st.since),
        "basis": "; ".join(st.basis),
        "lapse_due": iso(st.lapse_due),
        "lapse_suspended": st.lapse_suspended,
        "steps": list(st.steps),
    }
