"""Difficulty rubric (Lei 7.542 art. 21 §1; rules.md §4)."""
from __future__ import annotations

from decimal import Decimal as D

import pytest

from valuation.partition.rubric import suggested_other_share

# (scores, weights, expected): 0.70 × Σ w·s / (4 × Σ w), rounded half-up to 4 places
CASES = [
    ((4, 4, 4, 4, 4), (1, 1, 1, 1, 1), D("0.70")),          # hardest: the legal cap
    ((0, 0, 0, 0, 0), (1, 1, 1, 1, 1), D("0")),
    ((4, 2, 0, 1, 3), (1, 1, 1, 1, 1), D("0.35")),          # 0.7 × 10 / 20
    ((4, 2, 0, 1, 3), (2, 1, 1, 1, 1), D("0.4083")),        # 0.7 × 14 / 24 = 0.408333…
    ((4, 0, 0, 0, 0), (1, 0, 0, 0, 0), D("0.70")),          # only localização counts
    ((2, 4, 4, 4, 4), (1, 0, 0, 0, 0), D("0.35")),
    ((1, 1, 1, 1, 1), (D("0.5"), 1, 1, 1, 1), D("0.175")),  # decimal weights
    ((3, 3, 3, 3, 2), (1, 1, 1, 1, 1), D("0.4900")),        # 0.7 × 14 / 20
    ((1, 0, 0, 0, 0), (1, 1, 1, 1, 1), D("0.035")),
]


@pytest.mark.parametrize("scores,weights,expected", CASES)
def test_suggested_share(scores, weights, expected):
    got = suggested_other_share(scores, weights)
    assert got == expected
    assert D(0) <= got <= D("0.70")


def test_default_weights_are_equal():
    assert suggested_other_share((4, 2, 0, 1, 3)) == D("0.35")


def test_half_up_rounding():
    # 0.7 × 1 / 24 = 0.0291666… → 0.0292 ; 0.7 × 3 / 8 = 0.2625 exactly
    assert suggested_other_share((1, 0, 0, 0, 0), (1, 1, 1, 1, 2)) == D("0.0292")
    assert suggested_other_share((3, 0, 0, 0, 0), (1, 0, 0, 0, 1)) == D("0.2625")
    # 0.7 × 3 / 80 = 0.02625: half-up gives 0.0263 (half-even would give 0.0262)
    assert suggested_other_share((0, 3, 0, 0, 0), (17, 1, 1, 1, 0)) == D("0.0263")


@pytest.mark.parametrize("scores,weights", [
    ((4, 4, 4, 4), (1, 1, 1, 1, 1)),
    ((5, 0, 0, 0, 0), (1, 1, 1, 1, 1)),
    ((-1, 0, 0, 0, 0), (1, 1, 1, 1, 1)),
    ((1.5, 0, 0, 0, 0), (1, 1, 1, 1, 1)),
    ((True, 0, 0, 0, 0), (1, 1, 1, 1, 1)),
    ((1, 0, 0, 0, 0), (0, 0, 0, 0, 0)),
    ((1, 0, 0, 0, 0), (-1, 1, 1, 1, 1)),
    ((1, 0, 0, 0, 0), (0.5, 1, 1, 1, 1)),
])
def test_bad_input(scores, weights):
    with pytest.raises(ValueError):
        suggested_other_share(scores, weights)
