"""The whole demo: the base data set (`valuation.demo.base.seed_demo`) and then, each in its own
transaction, the demo records of the capabilities built on it (deadline events, commission
rounds, partition statements). Deterministic; `db init --demo` calls `seed_full_demo`.
"""
from __future__ import annotations

import importlib
from typing import Any

from valuation.demo import base as demo

# (module, function, keyword arguments); each takes the Store first. Order matters:
# the commission's decisions feed the partition statements.
EXTRA_STEPS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("valuation.demo.deadlines", "seed_deadline_demo", {"as_of": demo.DEMO_TODAY}),
    ("valuation.demo.commission", "seed_commission_demo", {}),
    ("valuation.demo.partition", "seed_partition_demo", {}),
    ("valuation.demo.comparables", "seed_comparables_demo", {}),   # issue 16: an earlier published
    ("valuation.demo.attachments", "seed_attachment_demo", {}),               # round; photos, reports, documents
)


def seed_full_demo(store: Any) -> dict[str, Any]:
    counts: dict[str, Any] = dict(demo.seed_demo(store))
    for module, function, kwargs in EXTRA_STEPS:
        result = getattr(importlib.import_module(module), function)(store, **kwargs)
        counts[f"{module.rsplit('.', 1)[-1]}.{function}"] = result
    return counts
