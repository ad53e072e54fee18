"""`Store.write(keeps=…)`: a write that never changes what some memo keys are read from takes those keys from the
memo inside its transaction and carries them over its commit (a member's entry keeps the round row). Every other
commit — through this Store or another Store of the file — still starts the next revision empty, and a write
whose snapshot may hold a commit the memo does not reads its own snapshot instead."""
from __future__ import annotations

from typing import Any

import pytest

from valuation.commission import rounds
from valuation.commission.entries import record_assessment
from valuation.core.errors import ConflictError
from valuation.db import store as store_module
from valuation.db.store import Store


class _Counted:
    """A memo's compute that counts its calls and returns that count (the value a test reads back)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> int:
        self.calls += 1
        return self.calls


def test_a_kept_key_comes_from_the_memo_inside_the_write_and_outlives_its_commit(store: Store) -> None:
    counted = _Counted()

    def compute() -> list[int]:        # a new object per call: `is` tells a kept value from a recomputed one
        return [counted()]

    first = store.write("t", lambda tx: tx.memo(("kept", 1), compute), keeps=("kept",))
    assert first == [1]
    assert store.write("t", lambda tx: tx.memo(("kept", 1), compute), keeps=("kept",)) is first   # carried over
    assert store.memo(("kept", 1), compute) is first and counted.calls == 1
    assert store.write("t", lambda tx: tx.memo(("other",), compute), keeps=("kept",)) == [2]      # not kept
    assert store.write("t", lambda tx: tx.memo(("other",), compute), keeps=("kept",)) == [3]
    store.write("t", lambda tx: None)                                   # a write that keeps nothing
    assert store.memo(("kept", 1), compute) == [4]


def test_a_commit_through_another_store_of_the_file_drops_what_this_one_kept(store: Store) -> None:
    compute = _Counted()

    assert store.write("t", lambda tx: tx.memo(("kept",), compute), keeps=("kept",)) == 1
    with Store(store.path) as other:
        other.write("t", lambda tx: None)
    assert store.write("t", lambda tx: tx.memo(("kept",), compute), keeps=("kept",)) == 2


def test_a_commit_during_the_write_or_under_way_makes_it_read_its_own_snapshot(store: Store) -> None:
    """What another Store of the file committed after the write began may be in its snapshot: the memo, of the
    revision before, is not trusted then; nor while a commit is under way (between its COMMIT and its new
    revision)."""
    compute = _Counted()

    assert store.write("t", lambda tx: tx.memo(("kept",), compute), keeps=("kept",)) == 1
    with Store(store.path) as other:
        def meanwhile(tx: Any) -> int:
            other.write("t", lambda tx2: None)                 # commits while this write is open
            return tx.memo(("kept",), compute)

        assert store.write("t", meanwhile, keeps=("kept",)) == 2
        assert store.write("t", lambda tx: tx.memo(("kept",), compute), keeps=("kept",)) == 3   # kept from now
        assert store.write("t", lambda tx: tx.memo(("kept",), compute), keeps=("kept",)) == 3

        def under_way(tx: Any) -> int:
            with store_module._OPEN_LOCK:
                store_module._COMMITTING[store.file_key] = store_module._COMMITTING.get(store.file_key, 0) + 1
            try:
                return tx.memo(("kept",), compute)
            finally:
                with store_module._OPEN_LOCK:
                    store_module._COMMITTING[store.file_key] -= 1

        assert store.write("t", under_way, keeps=("kept",)) == 4
        assert store.write("t", lambda tx: tx.memo(("kept",), compute), keeps=("kept",)) == 3   # untouched


def test_an_entry_reads_its_round_from_the_memo_and_a_closed_round_still_refuses(
        small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.commission import enter, full_panel, item_ids

    s, panel, items = small_world.store, full_panel(small_world), item_ids(small_world)
    rnd = rounds.open_round(s, panel["pres"], "A-1")
    reads: list[int] = []
    real = rounds._read_round
    monkeypatch.setattr(rounds, "_read_round", lambda *a: (reads.append(1), real(*a))[1])
    enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=False, amount="10")
    enter(s, panel["navy1"], rnd.id, items["A1-002"], historical=False, amount="11")
    enter(s, panel["cult1"], rnd.id, items["A1-001"], historical=False, amount="12")
    assert reads == [1]                                    # once, then from the memo across the entries' commits
    tables = {t: s.fetch(f"SELECT * FROM {t} ORDER BY ALL") for t in ("assessment_rounds", "contracts",
                                                                      "process_numbers")}
    enter(s, panel["navy1"], rnd.id, items["A1-001"], historical=True, amount="13")     # what `keeps` promises
    assert {t: s.fetch(f"SELECT * FROM {t} ORDER BY ALL") for t in tables} == tables
    with Store(small_world.path) as other:                  # another Store of the file closes the round
        rounds.close_round(other, panel["pres"], rnd.id)
    n = len(reads)
    with pytest.raises(ConflictError):                      # read again: the other Store's commit dropped it
        record_assessment(s, panel["navy1"], rnd.id, items["A1-003"], historical=False, amount=None,
                          currency=None, price_date=None, significance=None, must_keep=None, source=None)
    assert len(reads) == n + 1
