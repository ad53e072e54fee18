"""Composition of the Interministerial Commission's panel (rules.md §2).

NORMAM-10 0303 c 1 I: "A Comissão será composta por três membros indicados pelo DPHCM
e por três indicados pelo Ministério da Cultura [...] A presidência da Comissão caberá
a um dos membros da MB." Hence, for any panel that decides (`law.COMMISSION_SIZE`, 6):

- at most `law.COMMISSION_PER_BODY` (3) members of each body (navy = DPHCM, culture =
  Ministério da Cultura) — a panel may sit with fewer (absences), never with more;
- at most one president, and the president is a navy member;
- a quorum of voters between 1 and the number of members (a larger one could never be met).

`composition_breaches` is the pure rule; the CLI (`valuation.cli.compute.consensus`) and the
store (`valuation.commission.rounds.open_round`) phrase its breaches for their readers.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from valuation.core import law

BASIS = "NORMAM-10 (ed. 2002) 0303 c 1 I"

BODY_FULL, NOT_A_BODY, PRESIDENT_NOT_NAVY, SECOND_PRESIDENT, QUORUM_LOW, QUORUM_HIGH = (
    "body_full", "not_a_body", "president_not_navy", "second_president", "quorum_low", "quorum_high")


@dataclass(frozen=True)
class Breach:
    """One way a panel breaks NORMAM-10 0303 c 1 I: `kind` (module constants), the position
    of the member concerned (`index`, None for the quorum), that member's `body`, the
    position of the first president for SECOND_PRESIDENT (`other`), and the `limit` broken."""

    kind: str
    index: int | None = None
    body: str | None = None
    other: int | None = None
    limit: int | None = None


@dataclass(frozen=True)
class Seat:
    """A panel member as the rule sees it: the body that named the member, and whether
    the member presides."""

    body: str | None
    president: bool = False


def composition_breaches(seats: Sequence[Seat], quorum: int | None = None) -> list[Breach]:
    """Every breach of the panel's composition, in member order, then the quorum's
    (NORMAM-10 0303 c 1 I; module docstring). An empty list: the panel may decide."""
    out: list[Breach] = []
    per_body = law.COMMISSION_PER_BODY
    counts: dict[str, int] = {}
    president_at: int | None = None
    for i, seat in enumerate(seats):
        if seat.body not in law.COMMISSION_BODIES:
            out.append(Breach(NOT_A_BODY, i, seat.body))
        else:
            counts[seat.body] = counts.get(seat.body, 0) + 1
            if counts[seat.body] > per_body:
                out.append(Breach(BODY_FULL, i, seat.body, limit=per_body))
        if seat.president:
            if president_at is not None:
                out.append(Breach(SECOND_PRESIDENT, i, seat.body, other=president_at))
                continue
            president_at = i
            if seat.body in law.COMMISSION_BODIES and seat.body != law.COMMISSION_PRESIDENT_BODY:
                out.append(Breach(PRESIDENT_NOT_NAVY, i, seat.body))
    if quorum is not None:
        if quorum < 1:
            out.append(Breach(QUORUM_LOW, limit=1))
        elif quorum > len(seats):
            out.append(Breach(QUORUM_HIGH, limit=len(seats)))
    return out


__all__ = ["BASIS", "Breach", "Seat", "composition_breaches"]
