"""Panel agreement statistics against published worked examples."""
from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from valuation.commission.agreement import (
    icc_2_1,
    krippendorff_alpha_nominal,
    member_deviations,
)


def units_from_coders(rows):
    """The published tables list one row per coder; our API takes one row per unit."""
    return [list(u) for u in zip(*rows)]


def test_krippendorff_2011_binary_two_observers():
    # Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", A: alpha = 0.095
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    units = units_from_coders([[bool(x) for x in a], [bool(x) for x in b]])
    assert round(krippendorff_alpha_nominal(units), 3) == 0.095


def test_krippendorff_2011_nominal_four_observers_missing_data():
    # Krippendorff (2011), C: 4 observers × 12 units, nominal, alpha = 0.743
    n = None
    rows = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ]
    assert round(krippendorff_alpha_nominal(units_from_coders(rows)), 3) == 0.743


def test_krippendorff_wikipedia_example():
    # Wikipedia "Krippendorff's alpha", computational example: nominal alpha = 0.691
    n = None
    rows = [
        [n, n, n, n, n, 3, 4, 1, 2, 1, 1, 3, 3, n, 3],
        [1, n, 2, 1, 3, 3, 4, 3, n, n, n, n, n, n, n],
        [n, n, 2, 1, 3, 4, 4, n, 2, 1, 1, 3, 3, n, 4],
    ]
    assert round(krippendorff_alpha_nominal(units_from_coders(rows)), 3) == 0.691


@pytest.mark.parametrize("units, expected", [
    ([[True, True, None], [False, False, False]], 1.0),        # perfect agreement with variation
    ([[True, True], [True, True]], None),                       # no variation: undefined
    ([[True, None], [None, False]], None),                      # nothing pairable
    ([], None),
])
def test_krippendorff_edge_cases(units, expected):
    got = krippendorff_alpha_nominal(units)
    assert got == expected if expected is None else got == pytest.approx(expected)


def test_krippendorff_systematic_disagreement_is_negative():
    units = [[True, False], [False, True], [True, False], [False, True]]
    assert krippendorff_alpha_nominal(units) < 0


SHROUT_FLEISS = [  # Shrout & Fleiss (1979), Table 2: 6 targets × 4 judges
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]


def test_icc_2_1_shrout_fleiss_table():
    assert round(icc_2_1(SHROUT_FLEISS), 2) == 0.29  # Table 4: ICC(2,1) = .29


def test_icc_uses_only_complete_rows():
    with_missing = SHROUT_FLEISS + [[3, math.nan, 4, 5], [None, None, None, None]]
    assert icc_2_1(np.array(with_missing, dtype=float)) == pytest.approx(icc_2_1(SHROUT_FLEISS))


@pytest.mark.parametrize("matrix, expected", [
    ([[1, 2, 3]], None),                         # one target
    ([[1], [2], [3]], None),                     # one judge
    ([[5, 5], [5, 5], [5, 5]], None),            # no variation
    ([[1, 1, 1], [2, 2, 2], [9, 9, 9]], 1.0),    # judges agree exactly
    ([[1, math.nan], [2, math.nan]], None),      # no complete row
])
def test_icc_edge_cases(matrix, expected):
    got = icc_2_1(matrix)
    assert got == expected if expected is None else got == pytest.approx(expected)


def test_icc_penalises_a_judge_offset():
    consistent = [[1, 1], [2, 2], [3, 3], [4, 4]]
    offset = [[1, 3], [2, 4], [3, 5], [4, 6]]   # same ranking, +2 for one judge
    assert icc_2_1(offset) < icc_2_1(consistent)


def test_icc_needs_a_matrix():
    with pytest.raises(ValueError):
        icc_2_1([1, 2, 3])


def test_member_deviations():
    out = member_deviations({
        "A-1": {"n1": Decimal("100"), "c1": Decimal("200"), "c2": Decimal("300")},
        "A-2": {"n1": Decimal("50"), "c1": Decimal("150")},       # median 100
        "A-3": {"n1": Decimal("0"), "c1": Decimal("0"), "c2": Decimal("5")},  # median 0: left out
        "A-4": {},
    })
    assert out == {
        "n1": {"A-1": pytest.approx(-0.5), "A-2": pytest.approx(-0.5)},
        "c1": {"A-1": pytest.approx(0.0), "A-2": pytest.approx(0.5)},
        "c2": {"A-1": pytest.approx(0.5)},
    }
