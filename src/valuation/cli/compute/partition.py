"""`python -m valuation compute partition` (cli.md `partition`; rules.md §3–§5).

Besides the fields cli.md lists, the contract accepts the cancellation inputs
documented in `valuation.partition.rules` (`cancelled`, `compensation_share`,
`compensation_form`, `sale_proceeds`); `signed_on` chooses the text of arts. 20–21 (cli.md:
before 2000-12-28 the original one). The output adds `law_text` (original | amended), `signed_on`,
`survey_accepted_total`, the selection statuses and gaps, and `messages`.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from valuation.cli.compute.selection import (
    check_unique_ids,
    fast_items,
    money,
    read_item,
)
from valuation.core.errors import InputError, Problem
from valuation.core.jsonin import BAD, Reader, boolean, choice, decimal, iso_date, text
from valuation.core.money import amount_str
from valuation.partition.contract_law import (
    ORIGINAL_HISTORICAL_REASON,
    ORIGINAL_OTHER_REASON,
    law_text_of,
    share_caps,
)
from valuation.partition.rules import (
    COMPENSATION_FORMS,
    DEFAULT_TOLERANCE,
    HISTORICAL_CAP_REASON,
    HISTORICAL_PAYMENTS,
    MODALITIES,
    OTHER_CAP_REASON,
    ContractTerms,
    PartitionItem,
    PartitionResult,
    partition,
)
from valuation.partition.survey_costs import CostLine

CONTRACT_FIELDS = ("id", "historical_share", "historical_payment", "modality", "other_share", "fixed_amount",
                   "salvage_award", "winner_is_surveyor", "survey_costs", "tolerance", "cancelled",
                   "compensation_share", "compensation_form", "sale_proceeds", "signed_on")
COST_FIELDS = ("line", "planned", "actual", "approved_overrun")


def _cost_line(r: Reader, v: Any, path: str) -> Any:
    o = r.obj(v, path, allowed=COST_FIELDS)
    if o is BAD:
        return BAD
    line = r.field(o, "line", path, text)
    planned = r.field(o, "planned", path, money)
    actual = r.field(o, "actual", path, money)
    overrun = r.field(o, "approved_overrun", path, money)
    if any(x is BAD for x in (line, planned, actual, overrun)):
        return BAD
    return CostLine(line, planned, actual, overrun)


def _item(r: Reader, v: Any, path: str) -> Any:
    got = read_item(r, v, path, extra=("historical",))
    raw = v if isinstance(v, dict) else None
    hist = r.field(raw, "historical", path, boolean) if raw is not None else BAD
    if got is BAD or hist is BAD:
        return BAD
    got["historical"] = hist
    return got


def _null_or_zero(r: Reader, v: Any, path: str) -> Any:
    """`historical_share` of a contract under the original art. 20: null or 0 (no reward)."""
    d = decimal()(r, v, path)
    if d is BAD:
        return BAD
    return d if d == 0 else r.fail(path, f"must be null or 0 ({ORIGINAL_HISTORICAL_REASON})")


def _read(doc: Any) -> tuple[ContractTerms, list[PartitionItem]]:
    r = Reader()
    root = r.obj(doc, "", allowed=("contract", "items"))
    c = r.field(root, "contract", "", lambda rr, v, p: rr.obj(v, p, allowed=CONTRACT_FIELDS))
    p = "contract"
    # the law of the contract's date (cli.md): absent or null = the amended text; a bad date is reported
    # and the amended caps (the stricter) check the shares
    signed = r.field(c, "signed_on", p, iso_date, required=False, nullable=True)
    signed_on = signed if isinstance(signed, date) else None
    original = law_text_of(signed_on) == "original"
    hcap, ocap = share_caps(signed_on)
    f = {
        "id": r.field(c, "id", p, text),
        "historical_share": (r.field(c, "historical_share", p, _null_or_zero, nullable=True, default=Decimal(0))
                             if original else r.field(c, "historical_share", p,
                                                      decimal(maximum=hcap, max_reason=HISTORICAL_CAP_REASON))),
        "historical_payment": r.field(c, "historical_payment", p, choice(*HISTORICAL_PAYMENTS)),
        "modality": r.field(c, "modality", p, choice(*MODALITIES)),
        # shown as null in cli.md: required, may be null (each modality uses one of them)
        "other_share": r.field(c, "other_share", p, decimal(
                                   maximum=ocap, max_reason=ORIGINAL_OTHER_REASON if original else OTHER_CAP_REASON),
                               nullable=True),
        "fixed_amount": r.field(c, "fixed_amount", p, money, nullable=True),
        "salvage_award": r.field(c, "salvage_award", p, money, nullable=True),
        "winner_is_surveyor": r.field(c, "winner_is_surveyor", p, boolean),
        "survey_costs": r.field(c, "survey_costs", p, lambda rr, v, q: rr.items(v, q, _cost_line)),
        "tolerance": r.field(c, "tolerance", p, decimal(maximum=Decimal(1)), required=False,
                             default=DEFAULT_TOLERANCE),
        "cancelled": r.field(c, "cancelled", p, boolean, required=False, default=False),
        "compensation_share": r.field(c, "compensation_share", p, decimal(maximum=Decimal(1)), required=False),
        "compensation_form": r.field(c, "compensation_form", p, choice(*COMPENSATION_FORMS), required=False,
                                     default="adjudication"),
        "sale_proceeds": r.field(c, "sale_proceeds", p, money, required=False),
        "signed_on": signed_on,
    }
    items = fast_items(root.get("items"), historical=True) if isinstance(root, dict) else None
    if items is None:
        items = r.field(root, "items", "", lambda rr, v, q: rr.items(v, q, _item))
        if isinstance(items, list):
            check_unique_ids(r, items, "items")
    r.done()
    if isinstance(f["survey_costs"], list):
        f["survey_costs"] = tuple(f["survey_costs"])
    terms = ContractTerms(**f)
    return terms, [PartitionItem(it["id"], it["historical"], it["value"], it["significance"], it["must_keep"],
                                 it["lock"]) for it in items]


def result_json(res: PartitionResult, terms: ContractTerms) -> dict[str, Any]:
    return {
        "contract_id": res.contract_id,
        "law_text": res.law_text,
        "signed_on": None if terms.signed_on is None else terms.signed_on.isoformat(),
        "historical_total": amount_str(res.historical_total),
        "historical_reward": amount_str(res.historical_reward),
        "historical_payment": terms.historical_payment,
        "adjudicated": list(res.adjudicated),
        "adjudicated_value": amount_str(res.adjudicated_value),
        "adjudicated_significance": res.adjudicated_significance,
        "cash_balance": amount_str(res.cash_balance),
        "unpaid_residual": amount_str(res.unpaid_residual),
        "historical_status": res.historical_status,
        "historical_gap": float(res.historical_gap),
        "modality": terms.modality,
        "other_total": amount_str(res.other_total),
        "other_target": amount_str(res.other_target),
        "other_payment": amount_str(res.other_payment),
        "other_adjudicated": list(res.other_adjudicated),
        "other_status": res.other_status,
        "other_gap": float(res.other_gap),
        "gross": amount_str(res.gross),
        "survey_lines": [
            {"line": ln.line, "planned": amount_str(ln.planned), "actual": amount_str(ln.actual),
             "approved_overrun": amount_str(ln.approved_overrun), "accepted": amount_str(ln.accepted),
             "variance": amount_str(ln.variance)}
            for ln in res.survey_lines
        ],
        "survey_applies": res.survey.applies if res.survey is not None else True,
        "survey_accepted_total": amount_str(res.survey_accepted_total),
        "survey_deduction": amount_str(res.survey_deduction),
        "survey_uncovered": amount_str(res.survey_uncovered),
        "net": amount_str(res.net),
        "cancelled": res.cancelled,
        "messages": list(res.messages),
        "basis": [{"field": b.field, "article": b.article} for b in res.basis],
    }


def run(doc: Any) -> dict[str, Any]:
    terms, items = _read(doc)
    try:
        res = partition(terms, items)
    except ValueError as exc:
        raise InputError(Problem("items", str(exc))) from exc
    return result_json(res, terms)
