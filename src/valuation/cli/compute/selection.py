"""`python -m valuation compute selection` (cli.md `selection`; rules.md §3).

Input `{"target", "tolerance", "items": [{"id", "value", "significance", "must_keep", "lock"}]}`;
output the chosen ids, their value, the residual, the significance handed over,
the solver status and the certified relative gap (a JSON number).
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from valuation.core.errors import InputError, Problem
from valuation.core.jsonin import (
    BAD,
    Reader,
    amount,
    boolean,
    choice,
    decimal,
    integer,
    text,
)
from valuation.core.money import amount_str
from valuation.partition.selection import SELECTION_RULE, SelectionResult, SelItem, select_items

DEFAULT_TOLERANCE = Decimal("0.01")  # policy `selection_tolerance`
ITEM_FIELDS = ("id", "value", "significance", "must_keep", "lock")


money = amount()  # a non-negative amount in whole cents that fits DECIMAL(18,2)


def read_item(r: Reader, v: Any, path: str, *, extra: tuple[str, ...] = ()) -> Any:
    """One item: {id, value, significance 0–5, must_keep, lock} (+ `extra` fields read by the
    caller). Every field is required (cli.md); `lock` may be null."""
    o = r.obj(v, path, allowed=ITEM_FIELDS + extra)
    if o is BAD:
        return BAD
    got = {
        "id": r.field(o, "id", path, text),
        "value": r.field(o, "value", path, money),
        "significance": r.field(o, "significance", path, integer(minimum=0, maximum=5)),
        "must_keep": r.field(o, "must_keep", path, boolean),
        "lock": r.field(o, "lock", path, choice("give", "keep"), nullable=True, default=None),
        "_raw": o,
    }
    return BAD if any(x is BAD for x in got.values()) else got


_MONEY_RE = re.compile(r"[0-9]{1,16}(\.[0-9]{1,2})?")  # fits DECIMAL(18,2), ASCII digits


def fast_items(raw: Any, *, historical: bool = False) -> list[dict[str, Any]] | None:
    """The items when every one is well formed (the common case, read quickly), else
    None: the caller then reads them with `Reader` to name every problem."""
    if not isinstance(raw, list):
        return None
    allowed = set(ITEM_FIELDS) | ({"historical"} if historical else set())
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for o in raw:
        if type(o) is not dict or o.keys() != allowed:   # every field present (cli.md)
            return None
        id_, v = o["id"], o["value"]
        if type(id_) is not str or not id_.strip() or id_ in seen or type(v) is not str \
                or not _MONEY_RE.fullmatch(v):
            return None
        seen.add(id_)
        sig, mk, lock = o["significance"], o["must_keep"], o["lock"]
        if type(sig) is not int or not 0 <= sig <= 5 or type(mk) is not bool or lock not in (None, "give", "keep"):
            return None
        item = {"id": id_, "value": Decimal(v), "significance": sig, "must_keep": mk, "lock": lock}
        if historical:
            h = o["historical"]
            if type(h) is not bool:
                return None
            item["historical"] = h
        out.append(item)
    return out


def check_unique_ids(r: Reader, items: list[Any], path: str) -> None:
    seen: dict[str, int] = {}
    for i, it in enumerate(items):
        if it is BAD:
            continue
        if it["id"] in seen:
            r.fail(f"{path}[{i}].id", f"duplicate id {it['id']!r} (also {path}[{seen[it['id']]}])")
        else:
            seen[it["id"]] = i


def selection_json(sel: SelectionResult) -> dict[str, Any]:
    return {
        "selected": list(sel.selected),
        "selected_value": amount_str(sel.selected_value),
        "residual": amount_str(sel.residual),
        "significance_handed": sel.significance_handed,
        "status": sel.status,
        "gap": float(sel.gap),
        "stage1_best": amount_str(sel.stage1_best),
        "bound": amount_str(sel.bound),
        "significance_bound": sel.significance_bound,
        "method": sel.method,
        "message": sel.message,
    }


def run(doc: Any) -> dict[str, Any]:
    r = Reader()
    root = r.obj(doc, "", allowed=("target", "tolerance", "items"))
    target = r.field(root, "target", "", money)
    tolerance = r.field(root, "tolerance", "", decimal(maximum=Decimal(1)), required=False,
                        default=DEFAULT_TOLERANCE)
    items = fast_items(root.get("items")) if isinstance(root, dict) else None
    if items is None:
        items = r.field(root, "items", "", lambda rr, v, p: rr.items(v, p, read_item))
        if isinstance(items, list):
            check_unique_ids(r, items, "items")
    r.done()
    sel_items = [SelItem(it["id"], it["value"], it["significance"], it["must_keep"], it["lock"]) for it in items]
    try:
        sel = select_items(sel_items, target, tolerance)
    except ValueError as exc:
        raise InputError(Problem("items", str(exc))) from exc
    out = selection_json(sel)
    out["target"] = amount_str(target)
    out["tolerance"] = str(tolerance)
    out["basis"] = list(sel.basis) + [SELECTION_RULE]
    return out
