"""The Commission's consensus rules (rules.md §2; cli.md consensus)."""
from __future__ import annotations

import random
from datetime import date
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from valuation.commission.consensus import (
    BASIS_MARKET,
    BASIS_TIE,
    ConsensusError,
    ItemInput,
    Member,
    ValueEntry,
    classify,
    consensus_value,
    decide_item,
    decide_items,
    relative_spread,
    round_cents,
)
from valuation.commission.fx import NoRateError, Rate, RateTable
from valuation.core.money import to_cents
from valuation.policies.defaults import ConsensusPolicy

D = Decimal
DAY = date(2025, 3, 12)
PANEL = (
    Member("n1", "navy", True), Member("n2", "navy"), Member("n3", "navy"),
    Member("c1", "culture"), Member("c2", "culture"), Member("c3", "culture"),
)
NO_PRESIDENT = tuple(Member(m.id, m.body) for m in PANEL)
BRL_ONLY = RateTable()


def brl(member: str, amount: str) -> ValueEntry:
    return ValueEntry(member, D(amount), "BRL", DAY)


def item(votes: dict, values=(), id_: str = "X") -> ItemInput:
    return ItemInput(id_, votes, tuple(values))


def votes(*pattern) -> dict:
    """Votes of n1, n2, n3, c1, c2, c3 in that order ('T', 'F', None)."""
    m = {"T": True, "F": False, None: None}
    return {mem.id: m[p] for mem, p in zip(PANEL, pattern)}


# -- classification -------------------------------------------------------------------
@pytest.mark.parametrize("name, pattern, quorum, historical, decided_by, quorum_met", [
    ("clear majority for", ("T", "T", "T", "T", "F", "T"), 4, True, "majority", True),
    ("clear majority against", ("F", "F", "T", "F", "F", None), 4, False, "majority", True),
    ("tie, president for", ("T", "F", "T", "F", "T", "F"), 4, True, "president", True),
    ("tie, president against", ("F", "T", "F", "T", "F", "T"), 4, False, "president", True),
    ("tie, president absent", (None, "T", "F", "T", "F", None), 4, None, "undecided", True),
    ("4 voters meet quorum 4", ("T", "T", "F", None, "T", None), 4, True, "majority", True),
    ("3 voters miss quorum 4", ("T", "T", "T", None, None, None), 4, None, "undecided", False),
    ("3 voters meet quorum 3", (None, "T", "T", "F", None, None), 3, True, "majority", True),
    ("nobody voted", (None,) * 6, 1, None, "undecided", False),
    ("tie without quorum: quorum first", ("T", "F", None, None, None, None), 4, None, "undecided", False),
])
def test_classification(name, pattern, quorum, historical, decided_by, quorum_met):
    d = decide_item(item(votes(*pattern)), PANEL, BRL_ONLY, ConsensusPolicy(quorum=quorum))
    assert (d.historical, d.decided_by, d.quorum_met) == (historical, decided_by, quorum_met), name
    assert d.votes_for == sum(p == "T" for p in pattern)
    assert d.votes_against == sum(p == "F" for p in pattern)


def test_tie_without_a_president_is_undecided():
    d = decide_item(item(votes("T", "F", "T", "F", "T", "F")), NO_PRESIDENT, BRL_ONLY)
    assert (d.historical, d.decided_by, d.quorum_met) == (None, "undecided", True)
    assert BASIS_TIE in d.basis


def test_absent_key_and_null_vote_are_the_same():
    with_null = votes(None, "T", "F", "T", "F", "T")
    without = {k: v for k, v in with_null.items() if v is not None}
    a = decide_item(item(with_null), PANEL, BRL_ONLY)
    b = decide_item(item(without), PANEL, BRL_ONLY)
    assert a == b and a.historical is True and a.votes_for == 3


def test_president_decides_only_ties():
    # president outvoted 2–4: the majority wins, not the president
    d = decide_item(item(votes("T", "F", "F", "F", "F", "T")), PANEL, BRL_ONLY)
    assert (d.historical, d.decided_by) == (False, "majority")
    assert BASIS_TIE not in d.basis


# -- flag ---------------------------------------------------------------------------------
@pytest.mark.parametrize("pattern, flagged", [
    (("T", "T", "T", "T", "F", "F"), False),   # 4–2
    (("T", "T", "T", "F", "F", None), True),   # 3–2: split by one
    (("T", "T", "T", "F", "F", "F"), True),    # 3–3
    (("T", "T", "T", "T", "T", "T"), False),
    ((None,) * 6, True),                        # 0–0
])
def test_flag_by_votes(pattern, flagged):
    values = [brl("n1", "100"), brl("c1", "110")]
    assert decide_item(item(votes(*pattern), values), PANEL, BRL_ONLY).flagged is flagged


@pytest.mark.parametrize("amounts, threshold, spread, flagged", [
    (("80", "100", "130"), "0.5", D("0.5"), False),          # exactly at the threshold
    (("80", "100", "130.01"), "0.5", D("0.5001"), True),      # just above
    (("80", "100", "130"), "0.49", D("0.5"), True),
    (("100", "100", "100"), "0", D(0), False),                # no spread, threshold 0
    (("0", "0", "0"), "0.5", D(0), False),                    # all zero: no disagreement
    (("0", "0", "100"), "0.5", None, True),                   # median 0, max > min: unbounded
    (("100",), "0", None, False),                              # one value: no spread
])
def test_spread_and_flag(amounts, threshold, spread, flagged):
    values = [brl(m.id, a) for m, a in zip(PANEL, amounts)]
    majority = votes("T", "T", "T", "T", "T", "F")
    d = decide_item(item(majority, values), PANEL, BRL_ONLY, ConsensusPolicy(spread_threshold=D(threshold)))
    assert d.spread == spread
    assert d.flagged is flagged


def test_spread_of_the_public_example():
    values = [brl(m.id, a) for m, a in zip(PANEL, ("1000", "1200", "900", "1100", "1000", "1300"))]
    d = decide_item(item(votes("T", "T", "T", "T", "F", "T"), values), PANEL, BRL_ONLY)
    assert d.value_brl == D("1050.00")  # (1000 + 1100) / 2
    assert abs(float(d.spread) - 400 / 1050) < 1e-15


# -- value ------------------------------------------------------------------------------
@pytest.mark.parametrize("method, amounts, expected", [
    ("median", ("900", "1300", "1000"), "1000.00"),                         # odd: middle
    ("median", ("900", "1300", "1000", "1100"), "1050.00"),                 # even: mean of the two middle
    ("median", ("10.00", "10.01"), "10.01"),                                 # 10.005 half-up
    ("mean", ("100", "200", "400"), "233.33"),                               # 700/3
    ("mean", ("0.01", "0.01", "0.02"), "0.01"),                              # 0.04/3 = 0.0133…
    ("mean", ("0.01", "0.02"), "0.02"),                                      # 0.015 half-up
    ("trimmed_mean", ("100", "200", "300", "10000"), "250.00"),              # drops 100 and 10000
    ("trimmed_mean", ("100", "100", "200", "200"), "150.00"),                # drops one copy of each
    ("trimmed_mean", ("5", "1", "100"), "5.00"),                             # n = 3: the middle value
    ("trimmed_mean", ("100", "201"), "150.50"),                              # n = 2: mean of both
    ("trimmed_mean", ("42.42",), "42.42"),                                   # n = 1: the value
    ("trimmed_mean", ("1", "2", "3", "4", "5", "100"), "3.50"),              # (2+3+4+5)/4
])
def test_methods(method, amounts, expected):
    values = [brl(m.id, a) for m, a in zip(PANEL, amounts)]
    d = decide_item(item({}, values), PANEL, BRL_ONLY, ConsensusPolicy(method=method))
    assert d.value_brl == D(expected)
    assert d.value_brl.as_tuple().exponent == -2


def test_no_values_no_value():
    d = decide_item(item(votes("T", "T", "T", "T", "T", "T")), PANEL, BRL_ONLY)
    assert d.value_brl is None and d.spread is None and d.rates_used == ()
    assert BASIS_MARKET not in d.basis


def test_value_is_computed_without_quorum():
    d = decide_item(item(votes("T", None, None, None, None, None), [brl("n1", "10"), brl("c1", "30")]),
                    PANEL, BRL_ONLY)
    assert d.quorum_met is False and d.historical is None
    assert d.value_brl == D("20.00")


def test_rounded_once_not_per_member():
    # converted: 4.00 × 2.5010 = 10.004, 10.004, 2.00 × 5.0035 = 10.007
    # per-member rounding would give (10.00 + 10.00 + 10.01) / 3 = 10.0033 → 10.00;
    # the exact mean is 30.015 / 3 = 10.005 → 10.01.
    rates = RateTable([Rate("USD", DAY, D("2.5010")), Rate("EUR", DAY, D("5.0035"))])
    values = [ValueEntry("n1", D("4.00"), "USD", DAY), ValueEntry("n2", D("4.00"), "USD", DAY),
              ValueEntry("c1", D("2.00"), "EUR", DAY)]
    d = decide_item(item({}, values), PANEL, rates, ConsensusPolicy(method="mean"))
    assert d.value_brl == D("10.01")
    assert [r.currency for r in d.rates_used] == ["EUR", "USD"]


def test_no_double_rounding_beyond_28_digits():
    # the exact mean ends in …345.0049 (29 significant digits): a 28-digit division
    # would make it …345.005 and round up; the exact value rounds down.
    x = "1234567890123456789012345.0049"
    d = decide_item(item({}, [brl("n1", x), brl("c1", x)]), PANEL, BRL_ONLY, ConsensusPolicy(method="mean"))
    assert d.value_brl == D("1234567890123456789012345.00")


def test_a_later_rate_is_never_used():
    rates = RateTable([Rate("USD", date(2025, 3, 10), D("5.00")), Rate("USD", date(2025, 3, 13), D("6.00"))])
    d = decide_item(item({}, [ValueEntry("n1", D("100"), "USD", DAY)]), PANEL, rates)
    assert d.value_brl == D("500.00")
    assert d.rates_used == (Rate("USD", date(2025, 3, 10), D("5.00")),)


def test_no_rate_before_the_price_date_raises():
    rates = RateTable([Rate("USD", date(2025, 3, 13), D("6.00"))])
    with pytest.raises(NoRateError):
        decide_item(item({}, [ValueEntry("n1", D("100"), "USD", DAY)]), PANEL, rates)


# -- bad panels and items -----------------------------------------------------------------
@pytest.mark.parametrize("members", [
    (Member("a", "navy", True), Member("a", "culture")),
    (Member("a", "navy", True), Member("b", "navy", True)),
    (Member("a", "culture", True),),
    (Member("a", "army"),),
])
def test_bad_panel(members):
    with pytest.raises(ConsensusError):
        decide_item(item({}), members, BRL_ONLY)


@pytest.mark.parametrize("bad", [
    item({"zz": True}),
    item({}, [brl("zz", "1")]),
    item({}, [brl("n1", "1"), brl("n1", "2")]),
    item({}, [brl("n1", "-1")]),
    item({"n1": "yes"}),
])
def test_bad_item(bad):
    with pytest.raises(ConsensusError):
        decide_item(bad, PANEL, BRL_ONLY)


def test_bad_policy():
    for policy in (ConsensusPolicy(method="mode"), ConsensusPolicy(quorum=0), ConsensusPolicy(spread_threshold=D(-1))):
        with pytest.raises(ConsensusError):
            decide_items([item({})], PANEL, BRL_ONLY, policy)


def test_decide_items_keeps_order():
    out = decide_items([item({}, id_="b"), item({}, id_="a")], PANEL, BRL_ONLY)
    assert [d.id for d in out] == ["b", "a"]


# -- the primitive rules ------------------------------------------------------------------
def test_classify_primitive_matches_the_table():
    assert classify(3, 3, True, 4) == (True, "president", True)
    assert classify(3, 3, None, 4) == (None, "undecided", True)
    assert classify(2, 1, True, 4) == (None, "undecided", False)


amounts = st.decimals(min_value=0, max_value=10**9, places=4, allow_nan=False, allow_infinity=False)


@given(st.lists(amounts, min_size=1, max_size=8), st.sampled_from(["median", "mean", "trimmed_mean"]))
def test_value_within_min_and_max(values, method):
    exact = consensus_value(values, method)
    assert Fraction(min(values)) <= exact <= Fraction(max(values))
    rounded = round_cents(exact)
    assert to_cents(min(values)) <= rounded <= to_cents(max(values))


@given(amounts)
def test_round_cents_agrees_with_money_to_cents(x):
    assert round_cents(Fraction(x)) == to_cents(x)


@given(st.lists(amounts, min_size=2, max_size=8))
def test_spread_is_non_negative_or_unbounded(values):
    s = relative_spread(values)
    med = consensus_value(values, "median")
    if med == 0 and max(values) > min(values):
        assert s is None
    else:
        assert s is not None and s >= 0


@settings(max_examples=60)
@given(st.lists(st.sampled_from([True, False, None]), min_size=6, max_size=6),
       st.lists(st.one_of(st.none(), amounts), min_size=6, max_size=6),
       st.sampled_from(["median", "mean", "trimmed_mean"]),
       st.randoms(use_true_random=False))
def test_independent_of_order(vote_list, amount_list, method, rnd: random.Random):
    rates = RateTable([Rate("USD", date(2025, 1, 1), D("5.1234"))])
    vs = {m.id: v for m, v in zip(PANEL, vote_list)}
    values = [ValueEntry(m.id, a, "USD" if i % 2 else "BRL", DAY)
              for i, (m, a) in enumerate(zip(PANEL, amount_list)) if a is not None]
    policy = ConsensusPolicy(method=method)
    base = decide_item(ItemInput("X", vs, tuple(values)), PANEL, rates, policy)
    members, shuffled_values, keys = list(PANEL), list(values), list(vs)
    rnd.shuffle(members)
    rnd.shuffle(shuffled_values)
    rnd.shuffle(keys)
    other = decide_item(ItemInput("X", {k: vs[k] for k in keys}, tuple(shuffled_values)), members, rates, policy)
    assert other == base
