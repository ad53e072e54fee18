"""The NORMAM-10 numbers the deadline rules use, as dated parameters (issue 15, "NORMAM changes,
the law stays").

NORMAM-10 is an ordinance the DPC revises (the 2002 text was itself replaced by Portaria DPC nº
46/2003), so the 10th business day of the monthly report, the 90 days of the final report, the 60
days of the extension request, the 10 business days of the tourism notice, 15 February of the
wreck map and the 60 days after which a removal owes monthly reports are policies
(`valuation.policies.defaults`, `dated`): each stored value carries its legal reference and the
day from which it applies. A computation uses the value in force on the day its period starts
(`Normam` for that day, read by `valuation.deadlines.rows.ParameterBook`), so a revision never
rewrites a due date already computed for an earlier period.

Pure: no database, no clock. The rules take a `LegalValue` per parameter, DEFAULT when none is
given (the CLI's `compute deadline` and the tests).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuation.core.law import LegalValue
from valuation.policies.defaults import DEFAULT_BY_KEY, NORMAM_KEYS


def _default(key: str) -> LegalValue[Any]:
    spec = DEFAULT_BY_KEY[key]
    return LegalValue(spec.value, spec.basis)


@dataclass(frozen=True)
class Normam:
    """The NORMAM-10 parameters in force on one day, each with its reference and effective date."""

    monthly_report_business_day: LegalValue[int]
    removal_monthly_report_min_days: LegalValue[int]
    final_report_days: LegalValue[int]
    extension_request_days: LegalValue[int]
    tourism_notice_business_days: LegalValue[int]
    wreck_map_day: LegalValue[tuple[int, int]]

    @classmethod
    def of(cls, values: dict[str, LegalValue[Any]]) -> Normam:
        """From key → LegalValue; a key missing takes its default."""
        return cls(**{k: values.get(k) or _default(k) for k in NORMAM_KEYS})


DEFAULT = Normam.of({})
MONTHLY_REPORT_BUSINESS_DAY = DEFAULT.monthly_report_business_day
REMOVAL_MONTHLY_REPORT_MIN_DAYS = DEFAULT.removal_monthly_report_min_days
FINAL_REPORT_DAYS = DEFAULT.final_report_days
EXTENSION_REQUEST_DAYS = DEFAULT.extension_request_days
TOURISM_NOTICE_BUSINESS_DAYS = DEFAULT.tourism_notice_business_days
WRECK_MAP_DAY = DEFAULT.wreck_map_day


def reference(p: LegalValue[Any]) -> str:
    """The parameter's reference for a deadline's basis: 'NORMAM-10 0301 c' or, for a revised
    value, 'Portaria DPC nº 12/2026 (em vigor desde 01/07/2026)'."""
    return p.basis if p.effective_from is None else f"{p.basis} ({p.since_text})"
