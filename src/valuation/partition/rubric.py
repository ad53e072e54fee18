"""Difficulty rubric for the concessionaire's share of the other recovered items
(Lei 7.542 art. 21 §1; rules.md §4).

The share depends on the difficulty and technical complexity of locating,
exploring, removing, preserving and restoring, as assessed by the Naval Authority.
Each activity is scored 0–4; the weights are a policy (`difficulty_weights`). The
suggestion is

    p_n = 0.70 × Σ weight_i × score_i / (4 × Σ weight_i)

rounded half-up to 4 decimal places. It is only shown beside the share the
Authority decides and records; 0.70 is the cap of art. 21 II and III.
"""
from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from valuation.core.law import DIFFICULTY_ACTIVITIES, OTHER_SHARE_CAP
from valuation.policies.defaults import DifficultyWeights

MAX_SCORE = 4
SHARE_QUANTUM = Decimal("0.0001")
BASIS = "Lei 7.542 art. 21 §1 (grau de dificuldade e complexidade técnica); teto de art. 21 II e III"


def suggested_other_share(scores: Sequence[int],
                          weights: Sequence[int | Decimal] = DifficultyWeights().weights) -> Decimal:
    """Suggested p_n = 0.70 × weighted score / maximum (Lei 7.542 art. 21 §1).

    `scores`: five integers 0–4 in the order of DIFFICULTY_ACTIVITIES; `weights`: five
    non-negative numbers, not all zero. Raises ValueError otherwise.
    """
    if len(scores) != len(DIFFICULTY_ACTIVITIES) or len(weights) != len(DIFFICULTY_ACTIVITIES):
        raise ValueError(f"need {len(DIFFICULTY_ACTIVITIES)} scores and {len(DIFFICULTY_ACTIVITIES)} weights")
    for sc in scores:
        if isinstance(sc, bool) or not isinstance(sc, int) or not 0 <= sc <= MAX_SCORE:
            raise ValueError(f"each score must be an integer 0–{MAX_SCORE}")
    ws: list[Decimal] = []
    for wt in weights:
        if isinstance(wt, (bool, float)) or not isinstance(wt, (int, Decimal)):
            raise ValueError("weights must be integers or Decimals")
        d = Decimal(wt)
        if not d.is_finite() or d < 0:
            raise ValueError("weights must be non-negative")
        ws.append(d)
    total_weight = sum(ws, Decimal(0))
    if total_weight == 0:
        raise ValueError("at least one weight must be positive")
    weighted = sum((wt * sc for wt, sc in zip(ws, scores)), Decimal(0))
    cap: Decimal = OTHER_SHARE_CAP.value
    share = cap * weighted / (MAX_SCORE * total_weight)
    return share.quantize(SHARE_QUANTUM, rounding=ROUND_HALF_UP)
