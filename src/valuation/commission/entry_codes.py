"""The codes written with every entry of a round, and the packed code of a stored consensus
(migrations 007 and 011; `valuation.commission.consensus_sql` sums and decodes them).

Each member's entry in force carries `vote_code` (historical, not historical, must keep, the
president's vote: 12-bit fields, summed per item) and `score_code` (one 12-bit counter per
significance score 1–5): the SQL expressions for bulk writes and their Python twins for the
one-entry path must give the same integers. `stored_code` packs a consensus row's small fields
as `round_consensus.code` does.
"""
from __future__ import annotations

from decimal import Decimal

__all__ = ["score_code", "score_code_sql", "stored_code", "vote_code", "vote_code_sql"]


def vote_code_sql(t: str, president_id: int | str | None) -> str:
    """assessment_current.vote_code of the row alias `t`: 1 historical, 1 << 12 not
    historical, 1 << 24 must keep, and for the round's president 1 << 36 / 2 << 36 (voted
    historical / not) — the tie-break vote (rule 3). `president_id`: the round's president (an id, or
    an SQL column naming it per row — `commission.derived` re-derives every round's codes at once)."""
    who = president_id if isinstance(president_id, str) else None if president_id is None else int(president_id)
    pres = "" if who is None else (
        f" + CASE WHEN {t}.member_id = {who} THEN CASE WHEN {t}.historical THEN {1 << 36} "
        f"WHEN NOT {t}.historical THEN {2 << 36} ELSE 0 END ELSE 0 END")
    return (f"(CASE WHEN {t}.historical THEN 1 WHEN NOT {t}.historical THEN {1 << 12} ELSE 0 END"
            f" + CASE WHEN {t}.must_keep THEN {1 << 24} ELSE 0 END{pres})")


def score_code_sql(t: str) -> str:
    """assessment_current.score_code of the row alias `t`: 1 << 12·(significance − 1), or 0."""
    return f"coalesce(CAST(1 AS BIGINT) << (12 * ({t}.significance - 1)), 0)"


def vote_code(historical: bool | None, must_keep: bool | None, is_president: bool) -> int:
    """`vote_code_sql` of one entry, in Python."""
    code = (1 if historical is True else (1 << 12) if historical is False else 0) + ((1 << 24) if must_keep else 0)
    if is_president:
        code += (1 << 36) if historical is True else (2 << 36) if historical is False else 0
    return code


def score_code(significance: int | None) -> int:
    """`score_code_sql` of one entry, in Python."""
    return 0 if significance is None else 1 << (12 * (int(significance) - 1))


def stored_code(*, votes_for: int, votes_against: int, must_keep_votes: int, n_values: int, quorum_met: bool,
                historical: bool | None, decided_by: str, flagged: bool, significance: Decimal | None) -> int:
    """round_consensus.code of one item, in Python (the `_STORED["code"]` expression)."""
    return (int(votes_for) | int(votes_against) << 12 | int(must_keep_votes) << 24 | int(n_values) << 36
            | int(bool(quorum_met)) << 48 | {True: 1, False: 2, None: 0}[historical] << 49
            | {"majority": 1, "president": 2}.get(decided_by, 0) << 51 | int(bool(flagged)) << 53
            | (0 if significance is None else int(significance * 2)) << 54)
