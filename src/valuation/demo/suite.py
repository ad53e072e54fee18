"""The whole demo: the base data set (`valuation.demo.base.seed_demo`) and then, each in its own
transaction, the demo records of the capabilities built on it (deadline events, commission
rounds, partition statements, comparables, attached files, the legal records of issue 15).
Deterministic; `db init --demo` calls `seed_full_demo`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from valuation.demo import base
from valuation.demo.appeals import seed_appeals_demo
from valuation.demo.attachments import seed_attachment_demo
from valuation.demo.calendar_records import seed_calendar_records_demo
from valuation.demo.commission import seed_commission_demo
from valuation.demo.comparables import seed_comparables_demo
from valuation.demo.deadlines import seed_deadline_demo
from valuation.demo.legal import seed_legal_demo
from valuation.demo.partition import seed_partition_demo
from valuation.demo.process import number_demo_records, seed_protocol_units
from valuation.demo.requests import seed_requests_demo
from valuation.demo.signatures import seed_signature_demo
from valuation.demo.wreck_law import seed_wreck_law_demo


def _deadlines(store: Any) -> Any:
    return seed_deadline_demo(store, as_of=base.DEMO_TODAY)


# Order matters: the commission's decisions feed the partition statements; the comparables take an
# earlier published round; the legal records read the contracts, decisions and statements.
STEPS: tuple[tuple[str, Callable[[Any], Any]], ...] = (
    ("process.seed_protocol_units", seed_protocol_units),     # issue 26 §3: before any act is numbered
    ("calendar_records.seed_calendar_records_demo", seed_calendar_records_demo),   # issue 44: before any count
    ("deadlines.seed_deadline_demo", _deadlines),
    ("commission.seed_commission_demo", seed_commission_demo),
    ("partition.seed_partition_demo", seed_partition_demo),
    ("comparables.seed_comparables_demo", seed_comparables_demo),
    ("attachments.seed_attachment_demo", seed_attachment_demo),     # photos, reports, documents
    ("legal.seed_legal_demo", seed_legal_demo),
    ("wreck_law.seed_wreck_law_demo", seed_wreck_law_demo),   # issue 25: sites, cessions, cargo, salvage
    ("requests.seed_requests_demo", seed_requests_demo),      # issue 26: requests and the Authority's deadlines
    ("appeals.seed_appeals_demo", seed_appeals_demo),         # issue 26 §2: decisions and appeals at every stage
    ("process.number_demo_records", number_demo_records),     # a NUP for the records loaded as rows
    ("signatures.seed_signature_demo", seed_signature_demo),  # issue 27 §2: signed minutes and statement, a refusal
)


def seed_full_demo(store: Any) -> dict[str, Any]:
    counts: dict[str, Any] = dict(base.seed_demo(store))
    for name, step in STEPS:
        counts[name] = step(store)
    return counts
