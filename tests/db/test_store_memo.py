"""`Store.memo`: a value read from committed rows, kept while the Store's revision stays — the policies'
timelines and the offices' calendars every page reads through it (issue 28)."""
from __future__ import annotations

from datetime import date

from valuation.db.store import Store
from valuation.deadlines import calendars
from valuation.policies.values import timelines


def _office(store: Store, code: str, state: str) -> None:
    store.write("test", lambda tx: tx.execute(
        "INSERT INTO offices (code, name, kind, state, city, naval_district) VALUES (?, ?, 'CP', ?, 'Cidade', 1)",
        [code, f"Capitania {code}", state]))


def test_kept_for_the_revision_and_computed_again_after_any_commit(store):
    calls: list[int] = []

    def compute() -> list[int]:
        calls.append(1)
        return [len(calls)]

    first = store.memo(("k",), compute)
    assert store.memo(("k",), compute) is first and len(calls) == 1
    assert store.memo(("other",), compute) == [2]                 # another key, its own value
    _office(store, "CPAA", "RJ")                                  # any commit: a new revision
    assert store.memo(("k",), compute) == [3]
    store.write("test", lambda tx: None, bookkeeping=True)        # a write no page shows keeps it
    assert store.memo(("k",), compute) == [3] and len(calls) == 3


def test_a_commit_through_another_store_of_the_file_empties_the_memo(store):
    _office(store, "CPAA", "RJ")
    book = calendars.calendar_book(store)
    assert book.offices == ("CPAA",) and calendars.calendar_book(store) is book
    other = Store(store.path)
    try:
        _office(other, "CPBB", "BA")
    finally:
        other.close()
    assert calendars.calendar_book(store).offices == ("CPAA", "CPBB")


def test_a_transaction_reads_its_own_rows_and_the_memo_sees_them_only_after_the_commit(store):
    before = timelines(store, ["due_soon_days"])["due_soon_days"]
    assert before.starts == ()                                    # the law's default only

    def run(tx):
        tx.execute("INSERT INTO policies (key, value_json, set_by, effective_from) VALUES "
                   "('due_soon_days', '20', 'test', DATE '2025-01-01')")
        inside = timelines(tx, ["due_soon_days"])["due_soon_days"]
        assert inside.at(date(2025, 6, 1)).value == 20            # its own row, never a kept value
        assert tx.memo(("x",), lambda: "computed") == "computed"
        assert timelines(store, ["due_soon_days"])["due_soon_days"] is before   # not committed yet

    store.write("test", run)
    after = timelines(store, ["due_soon_days"])["due_soon_days"]
    assert after.starts == (date(2025, 1, 1),) and after.at(date(2025, 6, 1)).value == 20


def test_a_book_of_some_offices_shares_the_whole_books_calendars(store):
    for code, state in (("CPAA", "RJ"), ("CPBB", "BA"), ("CPCC", "SP")):
        _office(store, code, state)
    whole = calendars.calendar_book(store)
    some = calendars.calendar_book(store, ["CPBB", "CPZZ"])
    assert some.offices == ("CPBB",)                               # an unknown code is simply absent
    day = date(2025, 3, 4)
    assert some.at("CPBB", day) is whole.at("CPBB", day)
    assert calendars.calendar_book(store, []).offices == ()
    assert set(calendars.office_calendars(store, ["CPAA", "CPCC"], on=day)) == {"CPAA", "CPCC"}
