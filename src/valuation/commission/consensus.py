"""The Interministerial Commission's decision on one recovered item (rules.md §2).

The Commission (three members named by the Navy's DPHCM, three by the Ministry of
Culture, presided by a Navy member — NORMAM-10 0303 c 1 I) decides whether each
item is of artistic, historical or archaeological value and attributes its value
considering international market prices (Lei 7.542/1986 art. 20 §3; values may be
checked against national and international market criteria, art. 21 §2).

THE RULES — the single place they are decided (a vectorised SQL version must mirror
exactly these five functions: `classify`, `consensus_value`, `relative_spread`,
`spread_exceeds`, `is_flagged`):

1. Votes. A member's vote is True (historical), False, or None / absent (did not
   vote). `votes_for` = #True, `votes_against` = #False, voters = for + against.
2. Quorum (policy `quorum`, default 4 = half plus one of 6; Lei 2.180 art. 71 by
   analogy) counts the members who voted: `quorum_met = voters >= quorum`.
   Quorum is checked first: without it the item is undecided whatever the votes.
3. Classification (Lei 2.180 art. 71 / art. 70 by analogy), with quorum met:
   for > against → historical, "majority"; against > for → not historical,
   "majority"; for == against (a tie) → the president's own vote decides,
   "president"; if there is no president or the president did not vote, the item
   is "undecided" (`historical` None).
4. Value: every value converted to BRL exactly (amount × rate, `fx`); then per
   policy `method` over the n converted values, sorted ascending v1 ≤ … ≤ vn:
   * median — v((n+1)/2) for odd n, (v(n/2) + v(n/2+1)) / 2 for even n;
   * mean — Σv / n;
   * trimmed_mean — drops exactly one highest and one lowest value (one copy
     each, even when tied) and averages the remaining n − 2: Σ(v2..v(n−1)) / (n−2).
     With n ≤ 2 nothing would remain, so it falls back to the mean of all values
     (n = 1: that value; n = 2: their mean, which is also their median).
   The exact result (a rational number) is rounded ONCE, to the cent, half-up
   (away from zero at exactly half a cent). No values → value None.
   Quorum does not matter: the value is computed even for an undecided item.
5. Spread = (max − min) / median of the converted values (median as in 4, exact):
   None with fewer than 2 values; 0 when all values are equal (also when they are
   all zero); None when the median is 0 but max > min (unbounded: no finite
   ratio) — such an item is always flagged, see 6.
6. Flag for another round: `spread_exceeds` OR |for − against| ≤ 1, where
   `spread_exceeds` is the exact comparison  n ≥ 2 AND (max − min) > threshold × median
   (no division, so median = 0 with max > min is flagged, and a spread exactly
   equal to the threshold is not). An item with no votes at all (0 − 0) is flagged.
   Quorum does not enter the flag.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Literal

from valuation.commission.fx import EXACT, Rate, RateTable
from valuation.commission.panel import (
    BODY_FULL,
    NOT_A_BODY,
    PRESIDENT_NOT_NAVY,
    SECOND_PRESIDENT,
    Seat,
    composition_breaches,
)
from valuation.core import law
from valuation.core.errors import InputError
from valuation.policies.defaults import CONSENSUS_METHODS, ConsensusPolicy

Body = Literal["navy", "culture"]
DecidedBy = Literal["majority", "president", "undecided"]
DECIDED_BY_LABELS: dict[str, str] = {"majority": "maioria", "president": "voto do presidente (empate)",
                                     "undecided": "sem decisão"}

# -- legal bases (pt-BR: shown to users) ----------------------------------------------
BASIS_COMMISSION = (f"{law.L7542} art. 20 §3 (comissão de peritos classifica e atribui valores, considerando os "
                    "preços do mercado internacional)")
BASIS_MARKET = f"{law.L7542} art. 21 §2 (avaliação por critérios dos mercados nacional e internacional)"
BASIS_QUORUM = ("Lei 2.180/1954 art. 71 (redação da Lei 5.056/1966): quórum de metade mais um e decisão por "
                "maioria de votos, por analogia")
BASIS_TIE = law.TIE_BREAK.basis
DEFAULT_POLICY = ConsensusPolicy()   # the defaults of valuation.policies.defaults (frozen)
BASIS_PANEL = ("NORMAM-10 0303 c 1 I (3 membros da Marinha/DPHCM + 3 do Ministério da Cultura; presidência de "
               "membro da MB)")


class ConsensusError(InputError):
    """The panel or an item cannot be decided as given (unknown member, two presidents…): bad input
    to the rule, so an InputError (one problem, for the input as a whole)."""


@dataclass(frozen=True)
class Member:
    id: str
    body: Body
    president: bool = False


@dataclass(frozen=True)
class ValueEntry:
    """One member's price for an item, in `currency`, as of `date` (the price date)."""

    member: str
    amount: Decimal
    currency: str
    date: date


@dataclass(frozen=True)
class ItemInput:
    id: str
    votes: Mapping[str, bool | None]
    values: Sequence[ValueEntry]


@dataclass(frozen=True)
class ItemDecision:
    id: str
    historical: bool | None
    decided_by: DecidedBy
    votes_for: int
    votes_against: int
    quorum_met: bool
    value_brl: Decimal | None  # rounded once, to the cent, half-up
    spread: Decimal | None
    flagged: bool
    rates_used: tuple[Rate, ...]  # distinct, sorted by (currency, date)
    basis: tuple[str, ...]


# ======================================================================================
# The rules (module docstring, points 1–6). Pure functions of plain values.
# ======================================================================================
def classify(votes_for: int, votes_against: int, president_vote: bool | None,
             quorum: int) -> tuple[bool | None, DecidedBy, bool]:
    """(historical, decided_by, quorum_met) — rules 2 and 3.

    Quorum counts the members who voted (Lei 2.180 art. 71, by analogy); majority of
    the votes cast decides; a tie is decided by the president's vote (Lei 2.180
    art. 70, by analogy), and stays undecided when the president did not vote or the
    panel has no president.
    """
    quorum_met = votes_for + votes_against >= quorum
    if not quorum_met:
        return None, "undecided", False
    if votes_for > votes_against:
        return True, "majority", True
    if votes_against > votes_for:
        return False, "majority", True
    if president_vote is None:
        return None, "undecided", True
    return president_vote, "president", True


def _median(ordered: Sequence[Decimal]) -> Decimal:
    n = len(ordered)
    mid = n // 2
    if n % 2:
        return ordered[mid]
    return EXACT.multiply(EXACT.add(ordered[mid - 1], ordered[mid]), Decimal("0.5"))  # exact


def _exact_sum(values: Iterable[Decimal]) -> Decimal:
    total = Decimal(0)
    for v in values:
        total = EXACT.add(total, v)
    return total


def consensus_value(values_brl: Sequence[Decimal], method: str) -> Fraction | None:
    """The exact (unrounded) attributed value — rule 4 (Lei 7.542 art. 20 §3; art. 21 §2).

    Independent of the order of `values_brl`. None when there is no value.
    """
    if method not in CONSENSUS_METHODS:
        raise ConsensusError(f"unknown consensus method {method!r} (one of {', '.join(CONSENSUS_METHODS)})")
    if not values_brl:
        return None
    ordered = sorted(values_brl)
    if method == "median":
        return Fraction(_median(ordered))
    if method == "trimmed_mean" and len(ordered) >= 3:
        kept = ordered[1:-1]  # one lowest and one highest copy dropped
    else:  # "mean", or trimmed_mean with n <= 2 (falls back to the mean of all)
        kept = ordered
    return Fraction(_exact_sum(kept)) / len(kept)


def round_cents(exact: Fraction) -> Decimal:
    """Round an exact rational to the cent, half-up (away from zero at half a cent).

    The same rounding as `money.to_cents`, applied to a rational so that a mean
    such as 1000.005/3 is never rounded twice.
    """
    cents = exact * 100
    sign = -1 if cents < 0 else 1
    whole = int(abs(cents) + Fraction(1, 2))  # floor(|x| + 1/2): half-up on |x|
    return Decimal(f"{sign * whole}e-2")  # exact: the string constructor never rounds


def relative_spread(values_brl: Sequence[Decimal]) -> Decimal | None:
    """(max − min) / median — rule 5. None with < 2 values or median 0 with max > min."""
    if len(values_brl) < 2:
        return None
    ordered = sorted(values_brl)
    width = EXACT.subtract(ordered[-1], ordered[0])
    if width == 0:
        return Decimal(0)
    median = _median(ordered)
    if median == 0:
        return None
    with localcontext() as ctx:  # a ratio for display, not money: 28 digits suffice
        ctx.prec = 28
        return width / median


def spread_exceeds(values_brl: Sequence[Decimal], threshold: Decimal) -> bool:
    """n ≥ 2 and (max − min) > threshold × median, compared exactly — rule 6."""
    if len(values_brl) < 2:
        return False
    ordered = sorted(values_brl)
    width = EXACT.subtract(ordered[-1], ordered[0])
    return width > EXACT.multiply(threshold, _median(ordered))


def is_flagged(values_brl: Sequence[Decimal], threshold: Decimal, votes_for: int, votes_against: int) -> bool:
    """Another round is needed: values too far apart, or the vote split by at most one — rule 6."""
    return spread_exceeds(values_brl, threshold) or abs(votes_for - votes_against) <= 1


# ======================================================================================
# Applying the rules to one item / many items
# ======================================================================================
def check_panel(members: Sequence[Member]) -> dict[str, Member]:
    """Members by id. Unique ids and the composition of NORMAM-10 0303 c 1 I
    (`valuation.commission.panel.composition_breaches`): body navy|culture, at most three members
    of each body, at most one president, who must be a Navy member ('A presidência da
    Comissão caberá a um dos membros da MB')."""
    by_id: dict[str, Member] = {}
    for m in members:
        if m.id in by_id:
            raise ConsensusError(f"duplicate member id {m.id!r}")
        by_id[m.id] = m
    breaches = composition_breaches([Seat(m.body, m.president) for m in members])
    if breaches:
        b = breaches[0]
        who = members[b.index].id if b.index is not None else ""
        raise ConsensusError({
            NOT_A_BODY: f"member {who!r}: body must be navy or culture",
            BODY_FULL: f"member {who!r}: more than {b.limit} members of body {b.body} (NORMAM-10 0303 c 1 I)",
            PRESIDENT_NOT_NAVY: f"member {who!r}: the president must be a navy member",
            SECOND_PRESIDENT: "at most one member may be president",
        }[b.kind])
    return by_id


def _check_policy(policy: ConsensusPolicy) -> None:
    if policy.method not in CONSENSUS_METHODS:
        raise ConsensusError(f"unknown consensus method {policy.method!r}")
    if isinstance(policy.quorum, bool) or not isinstance(policy.quorum, int) or policy.quorum < 1:
        raise ConsensusError("quorum must be a positive integer")
    if not isinstance(policy.spread_threshold, Decimal) or policy.spread_threshold < 0:
        raise ConsensusError("spread_threshold must be a non-negative Decimal")


def _decide(item: ItemInput, panel: Mapping[str, Member], rates: RateTable,
            policy: ConsensusPolicy) -> ItemDecision:
    for member_id, vote in item.votes.items():
        if member_id not in panel:
            raise ConsensusError(f"item {item.id!r}: vote of unknown member {member_id!r}")
        if vote is not None and not isinstance(vote, bool):
            raise ConsensusError(f"item {item.id!r}: vote of {member_id!r} must be True, False or None")
    votes_for = sum(1 for v in item.votes.values() if v is True)
    votes_against = sum(1 for v in item.votes.values() if v is False)
    president = next((m.id for m in panel.values() if m.president), None)
    president_vote = item.votes.get(president) if president is not None else None
    historical, decided_by, quorum_met = classify(votes_for, votes_against, president_vote, policy.quorum)

    seen: set[str] = set()
    converted: list[Decimal] = []
    used: set[Rate] = set()
    for entry in item.values:
        if entry.member not in panel:
            raise ConsensusError(f"item {item.id!r}: value of unknown member {entry.member!r}")
        if entry.member in seen:
            raise ConsensusError(f"item {item.id!r}: two values of member {entry.member!r}")
        seen.add(entry.member)
        if entry.amount < 0:
            raise ConsensusError(f"item {item.id!r}: negative amount of member {entry.member!r}")
        brl, rate = rates.to_brl(entry.amount, entry.currency, entry.date)  # NoRateError → caller
        converted.append(brl)
        if rate is not None:
            used.add(rate)

    exact = consensus_value(converted, policy.method)
    tie = votes_for == votes_against and quorum_met
    basis = [BASIS_COMMISSION, BASIS_QUORUM]
    if tie:
        basis.append(BASIS_TIE)
    if converted:
        basis.append(BASIS_MARKET)
    return ItemDecision(
        id=item.id,
        historical=historical,
        decided_by=decided_by,
        votes_for=votes_for,
        votes_against=votes_against,
        quorum_met=quorum_met,
        value_brl=None if exact is None else round_cents(exact),
        spread=relative_spread(converted),
        flagged=is_flagged(converted, policy.spread_threshold, votes_for, votes_against),
        rates_used=tuple(sorted(used, key=lambda r: (r.currency, r.date))),
        basis=tuple(basis),
    )


def decide_item(item: ItemInput, members: Sequence[Member], rates: RateTable,
                policy: ConsensusPolicy = DEFAULT_POLICY) -> ItemDecision:
    """The Commission's decision on one item (rules 1–6 above; Lei 7.542 art. 20 §3,
    art. 21 §2; Lei 2.180 arts. 70–71 by analogy).

    Raises ConsensusError (an InputError) for an impossible panel or item, and
    fx.NoRateError when a foreign value has no rate on or before its price date.
    """
    _check_policy(policy)
    return _decide(item, check_panel(members), rates, policy)


def decide_items(items: Iterable[ItemInput], members: Sequence[Member], rates: RateTable,
                 policy: ConsensusPolicy = DEFAULT_POLICY) -> tuple[ItemDecision, ...]:
    """`decide_item` for each item, in input order (the panel is checked once)."""
    _check_policy(policy)
    panel = check_panel(members)
    return tuple(_decide(item, panel, rates, policy) for item in items)


def panel_basis() -> tuple[str, ...]:
    """Every basis the consensus rests on, for a result as a whole."""
    return (BASIS_COMMISSION, BASIS_MARKET, BASIS_PANEL, BASIS_QUORUM, BASIS_TIE)
