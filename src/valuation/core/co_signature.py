"""Which contracts need the Ministry of Culture's co-signature, and when one is missing (Lei 7.542 art. 20 §1).

Art. 20 (Lei 10.166/2000): things of artistic, historical or archaeological value stay in the
União's domain, which the contract or authorisation "elaborado previamente à remoção" must say;
§1: that contract or act is signed by the Naval Authority, the concessionaire *and a representative
of the Ministry of Culture*. Without the third signature the act is incomplete: it is not in force.

Pure: no database, no clock. Below the capabilities that read it (issue 22): the registry records
the co-signature and states the contract (`valuation.registry.co_signatures`), the deadline engine
suspends such a contract's deadlines (`valuation.deadlines.contract_rows`); neither imports the other.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from valuation.core import law

COVERED_KINDS: tuple[str, ...] = ("exploração", "remoção")
MISSING_TEXT = "sem coassinatura do Ministério da Cultura (Lei 7.542 art. 20 §1): não está em vigor"


def needs_co_signature(kind: str, act: str, signed_on: date | None, historical_share: Decimal | None,
                       has_historical_items: bool) -> bool:
    """True when the contract must carry the Ministry of Culture's signature (art. 20 §1): an
    exploration or removal of things in the União's domain (art. 16: not the owner's own licence of
    art. 4, not a demolition sold under art. 27) that covers historical things — its terms carry the
    reward of art. 20 §2 (`historical_share`), or the Commission classified some of its items as
    historical — signed (or still to be signed) on or after 28/12/2000, when §1 came into force (an
    act signed before it needed no such signature)."""
    if kind not in COVERED_KINDS or act == "licença":
        return False
    if historical_share is None and not has_historical_items:
        return False
    return signed_on is None or law.CO_SIGNATURE.in_force_on(signed_on)


def co_signature_missing(required: bool, co_signed_on: date | None, as_of: date | None = None) -> bool:
    """True when a required co-signature is not recorded, or recorded for a day after `as_of`."""
    return required and (co_signed_on is None or (as_of is not None and co_signed_on > as_of))
