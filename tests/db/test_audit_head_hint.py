"""`audit.plan` reads the anchor and the rows from the anchored head on in one statement when the Store expects
that head (the newest row it committed, `Store.audit_head_id`), and again from the anchor's own head when another
writer moved it: the same next row either way — a row added or removed behind the application's back between
two writes of one Store stays visible, and two Stores of one file keep one linear chain."""
from __future__ import annotations

from typing import Any

import pytest

from valuation.db import audit
from valuation.db.store import Store


def _touch(s: Store, k: int) -> int:
    s.write("ana", lambda tx: tx.audit("touch", "test", k, None, {"k": k}))
    return int(s.scalar("SELECT head_id FROM audit_head"))


def _raw(s: Store, sql: str, params: list[Any] | None = None) -> None:
    cur = s.cursor()                       # outside the write funnel: no audit, no seals
    try:
        cur.execute(sql, params).fetchall()
    finally:
        cur.close()


def test_a_store_reads_the_head_it_expects_in_one_statement(small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    s = small_world.store
    _touch(s, 0)
    assert s.audit_head_id == s.scalar("SELECT max(id) FROM audit_log")
    separate: list[int] = []
    with monkeypatch.context() as m:
        m.setattr(audit, "_read_anchor", lambda *a, **k: separate.append(1))     # never asked now
        for k in range(1, 4):
            assert _touch(s, k) == s.audit_head_id
    assert separate == []
    assert audit.verify_chain(s)[0]


@pytest.mark.parametrize("touch", ["write", "small write"])
def test_a_row_appended_behind_the_back_between_two_writes_stays_visible(small_world: Any, touch: str) -> None:
    s = small_world.store
    write = _touch if touch == "write" else _touch_small
    _touch(s, 0)
    head = write(s, 1)
    head_hash = s.scalar("SELECT hash FROM audit_log WHERE id = ?", [head])
    _raw(s, 'INSERT INTO audit_log (id, "at", actor, action, entity, entity_id, before_json, after_json, prev_hash, '
            'hash) SELECT id + 1, "at", actor, action, entity, entity_id, before_json, after_json, hash, ? '
            'FROM audit_log WHERE id = ?', ["f" * 64, head])
    after = write(s, 2)
    row = s.fetch_one("SELECT id, prev_hash FROM audit_log WHERE id = ?", [after])
    assert row == {"id": head + 2, "prev_hash": head_hash}        # past the forged row, linked onto our own head
    ok, bad, _ = audit.verify_chain(s)
    assert not ok and bad in (head + 1, head + 2)


def test_the_anchored_head_removed_behind_the_back_leaves_a_gap(small_world: Any) -> None:
    s = small_world.store
    _touch(s, 0)
    head = _touch(s, 1)
    _raw(s, "DELETE FROM audit_log WHERE id = ?", [head])
    assert _touch(s, 2) == head + 1                               # the gap stays
    ok, bad, _ = audit.verify_chain(s)
    assert not ok and bad == head + 1


def test_two_stores_of_one_file_keep_one_linear_chain(small_world: Any) -> None:
    first = small_world.store
    _touch(first, 0)
    with Store(small_world.path) as second:
        for k in range(1, 7):
            _touch(first if k % 3 else second, k)               # each finds the head the other moved
        assert first.audit_head_id != second.audit_head_id
    ids = [r["id"] for r in first.fetch("SELECT id FROM audit_log ORDER BY id")]
    assert ids == list(range(1, len(ids) + 1))
    assert audit.verify_chain(first)[0]


# A small write (`Store.write(small=True)`, one entry) reads the anchor with the seals at BEGIN (`audit.head_read`):
# the same rows `plan` would read, and the same next row.
def _touch_small(s: Store, k: int, twice: bool = False) -> int:
    def run(tx: Any) -> None:
        tx.audit("touch", "test", k, None, {"k": k})
        if twice:
            tx.audit("touch", "test", k, None, {"k": k, "again": True})

    s.write("ana", run, sealed=("assessment_log",), small=True)
    return int(s.scalar("SELECT head_id FROM audit_head"))


def _spy_reads(m: pytest.MonkeyPatch) -> list[bool]:
    """Per `_read_head` call, whether its rows came read already (True) or it read them itself (False)."""
    calls: list[bool] = []
    real = audit._read_head

    def spy(cur: Any, known: bool, hint: Any, rows: Any = None) -> Any:
        calls.append(rows is not None)
        return real(cur, known, hint, rows)

    m.setattr(audit, "_read_head", spy)
    return calls


def test_a_small_write_plans_its_first_audit_row_from_the_read_at_begin(small_world: Any,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    s = small_world.store
    _touch(s, 0)
    with monkeypatch.context() as m:
        calls = _spy_reads(m)
        heads = [_touch_small(s, k) for k in range(1, 4)]
        _touch_small(s, 4, twice=True)                      # the second row of a write is planned as before
        _touch(s, 5)                                          # a write that is not small: as before
    assert calls == [True, True, True, True, False, False]
    assert heads == [heads[0], heads[0] + 1, heads[0] + 2] and s.audit_head_id == heads[0] + 5
    assert audit.verify_chain(s)[0]


def test_two_stores_of_one_file_writing_small_keep_one_linear_chain(small_world: Any) -> None:
    first = small_world.store
    _touch(first, 0)
    with Store(small_world.path) as second:
        _touch(second, 1)
        for k in range(2, 9):
            _touch_small(first if k % 3 else second, k)          # each finds the head the other moved
    ids = [r["id"] for r in first.fetch("SELECT id FROM audit_log ORDER BY id")]
    assert ids == list(range(1, len(ids) + 1))
    assert audit.verify_chain(first)[0]


def test_a_small_write_appending_to_the_chain_by_another_way_first_is_refused_whole(small_world: Any) -> None:
    """The anchor read at BEGIN is the one the first `Tx.audit` links onto: a row appended before it in the same
    write by `audit.append` takes the id that row plans — the write fails and nothing of it stays."""
    from valuation.core.errors import ConflictError

    s = small_world.store
    _touch(s, 0)
    before = s.fetch("SELECT id, hash FROM audit_log ORDER BY id")

    def run(tx: Any) -> None:
        audit.append(tx.cur, at=tx.store.now(), actor="ana", action="touch", entity="test", entity_id=1, before=None,
                     after=None, head_table=True)
        tx.audit("touch", "test", 2, None, None)

    with pytest.raises(ConflictError):
        s.write("ana", run, sealed=("assessment_log",), small=True)
    assert s.fetch("SELECT id, hash FROM audit_log ORDER BY id") == before
    assert audit.verify_chain(s)[0]


def test_a_small_write_finding_no_seal_at_all_still_links_onto_the_head_read_at_begin(
        small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every seal removed behind the back: `seals.begin` reads again for the baseline (every table), and the anchor
    rows read with its first read still serve the write's audit row — the same next id and link."""
    s = small_world.store
    head = _touch(s, 0)
    head_hash = s.scalar("SELECT hash FROM audit_log WHERE id = ?", [head])
    _raw(s, "DELETE FROM row_seals")
    with monkeypatch.context() as m:
        calls = _spy_reads(m)
        after = _touch_small(s, 1)
    assert calls == [True]
    assert s.fetch_one("SELECT id, prev_hash FROM audit_log WHERE id = ?", [after]) == {"id": head + 1,
                                                                                        "prev_hash": head_hash}
    assert s.scalar("SELECT count(*) FROM row_seals") > 0                  # the baseline sealed again
