"""The NORMAM-10 numbers the deadline rules use, as dated parameters (issue 15, "NORMAM changes,
the law stays").

NORMAM-10 is an ordinance the DPC revises (the 2002 text was itself replaced by Portaria DPC nº
46/2003), so the 10th business day of the monthly report, the 90 days of the final report, the 60
days of the extension request, the 10 business days of the tourism notice, 15 February of the
wreck map and the 60 days after which a removal owes monthly reports are policies
(`valuation.policies.defaults`, declared there once, `normam`): each stored value carries its reference and the
day from which it applies. A computation uses the value in force on the day its period starts
(`Normam` for that day, read by `valuation.deadlines.rows.ParameterBook`), so a revision never
rewrites a due date already computed for an earlier period.

Pure: no database, no clock. The rules take a `LegalValue` per parameter, DEFAULT when none is
given (the CLI's `compute deadline` and the tests).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from valuation.core.law import NORMAM_2002, NORMAM_2002_REVOKED, LegalValue
from valuation.policies.defaults import DEFAULT_BY_KEY, NORMAM_KEYS


def _default(key: str) -> LegalValue[Any]:
    spec = DEFAULT_BY_KEY[key]
    return LegalValue(spec.value, spec.basis)


@dataclass(frozen=True)
class Normam:
    """The NORMAM-10 parameters in force on one day, by policy key (`NORMAM_KEYS`, declared once in
    `valuation.policies.defaults`), each a LegalValue with its reference and effective date:
    `normam["final_report_days"]`."""

    values: Mapping[str, LegalValue[Any]]

    def __getitem__(self, key: str) -> LegalValue[Any]:
        return self.values[key]

    @classmethod
    def of(cls, values: Mapping[str, LegalValue[Any]]) -> Normam:
        """From key → LegalValue; a key missing takes its default."""
        return cls({k: values.get(k) or _default(k) for k in NORMAM_KEYS})


DEFAULT = Normam.of({})   # the NORMAM-10 text: what a rule takes when no value is given (the CLI, the tests)


def reference(p: LegalValue[Any]) -> str:
    """The parameter's reference for a deadline's basis: the default, an item of NORMAM-10's 2002 edition, says that
    edition was revoked ('NORMAM-10 (ed. 2002) 0301 c (edição revogada pela Portaria DPC nº 46/2003; …)'); a value
    DPC recorded from the edition in force prints the reference it typed, 'Portaria DPC nº 12/2026 (em vigor desde
    01/07/2026)'."""
    if p.effective_from is not None:
        return f"{p.basis} ({p.since_text})"
    return f"{p.basis} ({NORMAM_2002_REVOKED})" if p.basis.startswith(NORMAM_2002) else p.basis
