"""`python -m valuation compute deadline` (cli.md, deadline): one deadline of rules.md §7.

Input: {"rule": ..., "office": {"state": "RJ", "local_holidays": [...]}, ...rule fields}.
Output: due, basis, moved_from (null when not moved), rule, steps; a window rule
(court_private_representation) adds start and end; with the optional "as_of" the
deadline's state is added.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from valuation.core.calendar import (
    DEFAULT_POLICY_DAYS,
    POLICY_DAY_KEYS,
    UF_CODES,
    BusinessCalendar,
)
from valuation.core.errors import InputError, Problem
from valuation.core.jsonin import BAD, Reader, choice, iso_date, join, text
from valuation.deadlines import rules as dl
from valuation.deadlines.rule_specs import CLI_RULES, REQUIRED, Input, RuleSpec
from valuation.policies.defaults import DEFAULT_BY_KEY

# The rules, their fields and functions: valuation.deadlines.rule_specs (`cli`), computed by
# fn(*values, calendar), or fn(value, suspensions, calendar) for a rule counted with suspensions.
# A field without a default is required (cli.md: every field shown is required).
_COMMON = ("rule", "office", "as_of")
_ALL_FIELDS = frozenset(f.name for s in CLI_RULES.values() for f in s.cli or ()) | {"suspensions"}


# -- shared readers (also used by domain-status) --------------------------------------------

def _due_soon_default() -> int:
    """The default due-soon window (days): the CLI computes without a database's policy."""
    value = DEFAULT_BY_KEY["due_soon_days"].value
    if not isinstance(value, int):
        raise TypeError("due_soon_days: the default must be a whole number of days")
    return value

def _state(r: Reader, v: Any, path: str) -> Any:
    if not isinstance(v, str) or v.strip().upper() not in UF_CODES:
        return r.fail(path, "must be a Brazilian state code (UF), e.g. RJ")
    return v.strip().upper()


def _local_holiday(r: Reader, v: Any, path: str) -> Any:
    if isinstance(v, str):
        return iso_date(r, v, path)
    if isinstance(v, dict):
        r.obj(v, path, allowed=("date", "name"))
        d = r.field(v, "date", path, iso_date)
        name = r.field(v, "name", path, text, required=False)
        if d is BAD or name is BAD:
            return BAD
        return (d, name.strip() if name else "feriado local")
    return r.fail(path, 'must be a date YYYY-MM-DD or an object {"date", "name"}')


def read_office(r: Reader, doc: Any, path: str = "") -> BusinessCalendar | Any:
    """The optional `office` object → BusinessCalendar (no state holidays when absent)."""
    p = join(path, "office")
    office = doc.get("office") if isinstance(doc, dict) else None
    if office is None:
        return BusinessCalendar(None)
    if r.obj(office, p, allowed=("state", "local_holidays", "policy_days", "early_closing")) is BAD:
        return BAD
    state = r.field(office, "state", p, _state, required=False)
    local = r.field(office, "local_holidays", p, lambda rr, v, pp: rr.items(v, pp, _local_holiday),
                    required=False, default=[])
    policy = r.field(office, "policy_days", p,
                     lambda rr, v, pp: rr.items(v, pp, choice(*POLICY_DAY_KEYS)),
                     required=False, default=list(DEFAULT_POLICY_DAYS))
    # Lei 9.784 art. 66 §1: the office's own early-closing dates (24 and 31 December always are)
    early = r.field(office, "early_closing", p, lambda rr, v, pp: rr.items(v, pp, _local_holiday),
                    required=False, default=[])
    lists = (local, policy, early)
    if BAD in (state, *lists) or any(isinstance(x, list) and any(y is BAD for y in x) for x in lists):
        return BAD
    return BusinessCalendar(state, local, tuple(policy), early_closing=early)


def _interval(r: Reader, v: Any, path: str) -> Any:
    if r.obj(v, path, allowed=("start", "end", "reason")) is BAD:
        return BAD
    s = r.field(v, "start", path, iso_date)
    e = r.field(v, "end", path, iso_date, nullable=True)  # null: still running (cli.md)
    reason = r.field(v, "reason", path, text, required=False)
    if s is BAD or e is BAD or reason is BAD:
        return BAD
    if e is not None and e < s:
        return r.fail(join(path, "end"), "must not be before start")
    return (s, e)


def read_suspensions(r: Reader, doc: Any, casualty: date | Any, path: str = "suspensions") -> Any:
    """The required list of {start, end} (both inclusive; end null = still running), none
    starting before the casualty."""
    items = r.field(doc, path, "", lambda rr, v, pp: rr.items(v, pp, _interval))
    if items is BAD:
        return BAD
    bad = False
    for i, iv in enumerate(items):
        if iv is BAD:
            bad = True
        elif isinstance(casualty, date) and iv[0] < casualty:
            r.fail(join(join(path, i), "start"), "must not be before casualty_date")
            bad = True
    return BAD if bad else items


def iso(d: date | None) -> str | None:
    return None if d is None else d.isoformat()


def out_of_range(path: str) -> InputError:
    return InputError(Problem(path, "gives a date outside the supported range (years 1 to 9999)"))


# -- run ----------------------------------------------------------------------------------------
def run(doc: Any) -> dict[str, Any]:
    r = Reader()
    if not isinstance(doc, dict):
        r.fail("", "input must be a JSON object")
        r.done()
    rule = r.field(doc, "rule", "", choice(*CLI_RULES))
    spec = CLI_RULES.get(rule) if rule is not BAD else None
    fields: tuple[Input, ...] = (spec.cli or ()) if spec else ()
    allowed = set(_COMMON) | ({f.name for f in fields} if spec else set(_ALL_FIELDS))
    if spec is not None and spec.suspensions:
        allowed.add("suspensions")
    r.obj(doc, "", allowed=allowed)
    cal = read_office(r, doc)
    as_of = r.field(doc, "as_of", "", iso_date, required=False)
    if spec is None:
        r.done()
        raise AssertionError("unreachable")  # r.done() raised: the rule was bad
    values = [r.field(doc, f.name, "", f.read) if f.default is REQUIRED else
              r.field(doc, f.name, "", f.read, required=False, default=f.default) for f in fields]
    suspensions = read_suspensions(r, doc, values[0]) if spec.suspensions else None
    r.done()
    try:
        result = spec.fn(values[0], suspensions, cal) if spec.suspensions else spec.fn(*values, cal)
    except OverflowError as exc:
        raise out_of_range(fields[0].name) from exc
    except ValueError as exc:  # e.g. a month left with fewer than 10 business days
        raise InputError(Problem(fields[0].name, str(exc))) from exc
    return _output(spec, result, values, suspensions, as_of)


def _output(spec: RuleSpec, result: Any, values: list[Any], suspensions: Any, as_of: date | None) -> dict[str, Any]:
    out: dict[str, Any] = {"rule": result.rule}
    if isinstance(result, dl.Window):
        due = result.end
        out.update(start=iso(result.start), end=iso(result.end))
    else:
        due = result.due
    out.update(due=iso(due), basis=result.basis, moved_from=iso(result.moved_from), steps=list(result.steps))
    if spec.suspensions:   # the five years (arts. 6 and 7): the count behind the date
        count = dl.lapse_count(values[0], suspensions)
        out["suspended_days"] = count.suspended_days
        out["start"] = iso(count.start)
        out["suspended_since"] = iso(count.open_since)  # an effective suspension still running
    if as_of is not None:
        out["as_of"] = iso(as_of)
        out["state"] = "suspended" if due is None else dl.deadline_state(
            due, as_of, due_soon_days=_due_soon_default())
    return out
