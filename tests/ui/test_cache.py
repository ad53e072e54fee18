"""ui/cache.py: values kept per database revision (issue 17) — computed once while nothing is
written, computed afresh after any write, never shared between users; the pages that read
through it show a write on their next run."""
from __future__ import annotations

import threading
import time
from typing import Any

import pandas as pd
import pytest

from tests.support.ui import page_as, texts
from ui import cache
from valuation.db.shared import open_shared


@pytest.fixture(autouse=True)
def _empty_cache() -> Any:
    cache.clear()
    yield
    cache.clear()


def _counter() -> tuple[list[int], Any]:
    calls = [0]

    def compute() -> int:
        calls[0] += 1
        return calls[0]
    return calls, compute


def test_computed_once_until_a_write(small_world: Any) -> None:
    store, user = small_world.store, small_world.principal("dpc")
    calls, compute = _counter()
    assert cache.per_revision(store, user, "n", compute=compute) == 1
    assert cache.per_revision(store, user, "n", compute=compute) == 1
    assert calls[0] == 1 and cache.stats["hits"] == 1
    store.write("t", lambda tx: tx.execute("UPDATE wrecks SET name = name || ' (x)' WHERE id = ?",
                                           [small_world.ids["w1"]]))
    assert cache.per_revision(store, user, "n", compute=compute) == 2
    assert calls[0] == 2


def test_a_bookkeeping_write_keeps_the_values(small_world: Any) -> None:
    store, user = small_world.store, small_world.principal("dpc")
    calls, compute = _counter()
    cache.per_revision(store, user, "n", compute=compute)
    store.write("t", lambda tx: tx.execute("SELECT 1"), bookkeeping=True)
    cache.per_revision(store, user, "n", compute=compute)
    assert calls[0] == 1


def test_a_failed_write_keeps_the_values(small_world: Any) -> None:
    store, user = small_world.store, small_world.principal("dpc")
    calls, compute = _counter()
    cache.per_revision(store, user, "n", compute=compute)
    before = store.revision

    def boom(tx: Any) -> None:
        tx.execute("UPDATE wrecks SET name = 'x' WHERE id = ?", [small_world.ids["w1"]])
        raise ValueError("rolled back")
    with pytest.raises(ValueError):
        store.write("t", boom)
    assert store.revision == before
    cache.per_revision(store, user, "n", compute=compute)
    assert calls[0] == 1


def test_never_shared_between_users_or_arguments(small_world: Any) -> None:
    store = small_world.store
    calls, compute = _counter()
    a = cache.per_revision(store, small_world.principal("explorer_a"), "n", compute=compute)
    b = cache.per_revision(store, small_world.principal("explorer_b"), "n", compute=compute)
    c = cache.per_revision(store, small_world.principal("explorer_a"), "n", "other", compute=compute)
    assert (a, b, c) == (1, 2, 3)


def test_a_new_day_computes_afresh(small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import date

    store, user = small_world.store, small_world.principal("dpc")
    calls, compute = _counter()
    cache.per_revision(store, user, "n", compute=compute)
    monkeypatch.setattr(cache.clock, "today_brasilia", lambda: date(2099, 1, 1))
    cache.per_revision(store, user, "n", compute=compute)
    assert calls[0] == 2


def test_a_frame_handed_out_is_a_copy(small_world: Any) -> None:
    store, user = small_world.store, small_world.principal("dpc")
    frame = pd.DataFrame({"a": [1, 2]})
    got = cache.per_revision(store, user, "f", compute=lambda: frame)
    got["b"] = [3, 4]
    got.loc[0, "a"] = 99
    again = cache.per_revision(store, user, "f", compute=lambda: frame)
    assert list(again.columns) == ["a"] and again["a"].tolist() == [1, 2]


def test_two_sessions_missing_at_once_compute_once(small_world: Any) -> None:
    store, user = small_world.store, small_world.principal("dpc")
    calls = [0]
    started = threading.Event()

    def slow() -> str:
        calls[0] += 1
        started.set()
        time.sleep(0.2)   # holds the key while the other thread asks (no timing is asserted)
        return "v"
    got: list[str] = []
    first = threading.Thread(target=lambda: got.append(cache.per_revision(store, user, "s", compute=slow)))
    first.start()
    started.wait(5)
    got.append(cache.per_revision(store, user, "s", compute=slow))
    first.join()
    assert got == ["v", "v"] and calls[0] == 1


def test_an_error_is_not_kept(small_world: Any) -> None:
    store, user = small_world.store, small_world.principal("dpc")

    def fail() -> int:
        raise RuntimeError("no")
    with pytest.raises(RuntimeError):
        cache.per_revision(store, user, "e", compute=fail)
    assert cache.per_revision(store, user, "e", compute=lambda: 7) == 7


def test_the_registry_page_shows_a_write_on_its_next_run(small_world: Any) -> None:
    small_world.store.close()
    user = small_world.principal("dpc")
    at = page_as(small_world.path, user, "wrecks")
    assert not at.exception
    assert "Renomeado pelo teste" not in texts(at)
    store = open_shared(small_world.path)     # the page's own Store
    store.write("t", lambda tx: tx.execute("UPDATE wrecks SET name = 'Renomeado pelo teste' WHERE id = ?",
                                           [small_world.ids["w1"]]))
    at.run()
    assert not at.exception
    assert "Renomeado pelo teste" in texts(at)


def test_the_frames_of_a_tuple_are_copies_too(small_world: Any) -> None:
    store, user = small_world.store, small_world.principal("dpc")
    frame = pd.DataFrame({"a": [1, 2]})
    got, n = cache.per_revision(store, user, "t", compute=lambda: (frame, 2))
    got.loc[0, "a"] = 99
    again, _ = cache.per_revision(store, user, "t", compute=lambda: (frame, 2))
    assert again["a"].tolist() == [1, 2] and n == 2


def test_the_selection_page_shows_a_new_lock(small_world: Any) -> None:
    from tests.support.partition import prepare, ready_a1
    from valuation.partition import choice

    prepare(small_world)
    ready_a1(small_world)
    small_world.store.close()
    dpc = small_world.principal("dpc")
    at = page_as(small_world.path, dpc, "selection")
    assert not at.exception
    before = at.dataframe[0].value if at.dataframe else None
    store = open_shared(small_world.path)
    choice.set_locks(store, dpc, "A-1", {small_world.ids["A1-004"]: "keep"})
    at.run()
    assert not at.exception
    assert "Travas entregar / manter" in texts(at)
    locks = {m.label: m.value for m in at.metric}["Travas entregar / manter"]
    assert locks == "0 / 1", (locks, before)


def test_the_frames_kept_are_bounded_in_bytes(small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    store, user = small_world.store, small_world.principal("dpc")
    one = pd.DataFrame({"a": range(1000)})
    monkeypatch.setattr(cache, "MAX_BYTES", int(cache.size_of(one) * 2.5))
    calls = {"a": 0, "b": 0, "c": 0}

    def make(name: str) -> Any:
        def compute() -> pd.DataFrame:
            calls[name] += 1
            return one
        return compute
    for name in ("a", "b", "c"):          # three frames where two and a half fit: "a" goes
        cache.per_revision(store, user, name, compute=make(name))
    for name in ("c", "b", "a"):
        cache.per_revision(store, user, name, compute=make(name))
    assert calls == {"a": 2, "b": 1, "c": 1}


def test_a_write_through_another_store_of_the_file_is_seen(small_world: Any) -> None:
    """Two Stores of one file in a process (a test's and the pages' shared one; the command line's own Store inside
    the service): a commit through either gives both a new revision, so nothing kept for the old one is served."""
    shared = open_shared(small_world.path)
    other = small_world.store
    assert shared is not other and shared.file_key == other.file_key
    calls, compute = _counter()
    assert cache.per_revision(shared, small_world.principal("dpc"), "x", compute=compute) == 1
    before = (shared.revision, other.revision)
    other.write("test", lambda tx: tx.execute("UPDATE contracts SET code = code"))
    assert shared.revision != before[0] and other.revision != before[1] and shared.revision != other.revision
    assert cache.per_revision(shared, small_world.principal("dpc"), "x", compute=compute) == 2
    before = (shared.revision, other.revision)
    other.write("test", lambda tx: tx.execute("UPDATE contracts SET code = code"), bookkeeping=True)
    assert (shared.revision, other.revision) == before


def test_a_topics_generation_changes_only_with_the_commits_that_name_it(small_world: Any, tmp_path: Any) -> None:
    """db/store.py `generation`: a commit naming the topic (any Store of the file in the process), and only
    it, gives a new one; a plain write, a failed one and a bookkeeping one keep it; a new Store has its own."""
    from valuation.db.store import Store

    store = small_world.store
    first = store.generation("t")
    other = store.generation("u")
    store.write("x", lambda tx: tx.execute("UPDATE wrecks SET name = name || ' (x)' WHERE id = ?",
                                           [small_world.ids["w1"]]))
    assert store.generation("t") == first

    def named(tx: Any) -> None:
        tx.changed("t")
        tx.execute("SELECT 1")
    store.write("x", named)
    second = store.generation("t")
    assert second != first and store.generation("u") == other

    def failed(tx: Any) -> None:
        tx.changed("t")
        raise ValueError("rolled back")
    with pytest.raises(ValueError):
        store.write("x", failed)
    assert store.generation("t") == second
    path = tmp_path / "g.duckdb"
    a = Store(path)
    b = Store(path, migrate=False)         # a second Store of the same file in this process
    try:
        seen = b.generation("t")
        assert seen not in (a.generation("t"), second)
        a.write("x", named)
        assert b.generation("t") != seen                                  # the other Store's commit counts
    finally:
        b.close()
        a.close()
