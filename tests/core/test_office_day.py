"""The office's calendar day of a stored instant (`clock.day_sql`, `clock.brasilia`): never the UTC day. An act of
23:30 in Brasília is 02:30 UTC the next day; every period counted from it (appeal windows, signatures, NUP years,
policies in force) starts from the day in Brasília (Lei 9.784/1999 art. 66: the day of the act)."""
from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path

import duckdb
import pytest

from valuation.core import clock

SRC = Path(__file__).resolve().parents[2] / "src" / "valuation"

# (stored UTC instant, the day in Brasília worked out by hand)
CASES = [
    (datetime(2026, 3, 10, 2, 30), date(2026, 3, 9)),     # 23:30 of the 9th (UTC-3)
    (datetime(2026, 3, 10, 3, 0), date(2026, 3, 10)),     # midnight of the 10th
    (datetime(2027, 1, 1, 1, 15), date(2026, 12, 31)),    # the year's last act: numbered in 2026
    (datetime(2016, 1, 10, 1, 30), date(2016, 1, 9)),     # summer time then (UTC-2): 23:30 of the 9th
    (datetime(2016, 1, 10, 2, 30), date(2016, 1, 10)),    # 00:30 of the 10th under summer time
]


@pytest.mark.parametrize(("stored", "day"), CASES)
def test_the_day_in_sql_is_the_day_in_brasilia(stored: datetime, day: date, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(clock.ZONE_VARIABLE, raising=False)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    got = con.execute(f"SELECT {clock.day_sql('?')}", [stored]).fetchone()
    assert got is not None and got[0] == day
    assert clock.brasilia(stored).date() == day


def test_another_office_zone_counts_its_own_day(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(clock.ZONE_VARIABLE, "America/Manaus")      # UTC-4: 02:30 UTC is 22:30 of the day before
    con = duckdb.connect()
    got = con.execute(f"SELECT {clock.day_sql('?')}", [datetime(2026, 3, 10, 3, 30)]).fetchone()
    assert got is not None and got[0] == date(2026, 3, 9)


def test_a_zone_name_never_enters_sql_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(clock.ZONE_VARIABLE, "x'); DROP TABLE t; --")
    assert "DROP" not in clock.day_sql("t.at") and "America/Sao_Paulo" in clock.day_sql("t.at")


def test_no_query_takes_the_utc_day_of_a_stored_instant() -> None:
    """`CAST(x_at AS DATE)` gave the UTC day (the signature deadlines and appeal windows of acts done after 21:00)."""
    pattern = re.compile(r"CAST\(\s*[\w.]*_at\s+AS\s+DATE\)|CAST\(coalesce\([^)]*_at[^)]*\)\s+AS\s+DATE\)"
                         r"|_at\"\]\.date\(\)|_at\.date\(\)", re.IGNORECASE)
    found = [f"{p.relative_to(SRC)}:{n}" for p in SRC.rglob("*.py")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert found == []


# -- "today" is the office's day too ---------------------------------------------------------------
# Found at 00:15 UTC (21:15 in Brasília): the product took "today" as the UTC day of its clock
# (`store.now().date()`) in 27 places — the "not in the future" checks of rates, registry dates and requests,
# the policies' default start and the policy in force, an entry's price date. From 21:00 to midnight in
# Brasília that day is already tomorrow: a rate dated tomorrow was accepted, a policy set without a start
# applied from tomorrow, and the policy "in force" was tomorrow's.
def _evening() -> datetime:
    """23:30 of 9 March 2026 in Brasília: 02:30 UTC of the 10th."""
    return datetime(2026, 3, 10, 2, 30, tzinfo=clock.UTC)


@pytest.mark.parametrize("small_world", [_evening], indirect=True)
def test_the_stores_today_is_the_day_in_brasilia(small_world, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(clock.ZONE_VARIABLE, raising=False)
    assert small_world.store.now().date() == date(2026, 3, 10)          # the UTC day
    assert small_world.store.today() == date(2026, 3, 9)                # the office's


@pytest.mark.parametrize("small_world", [_evening], indirect=True)
def test_a_rate_dated_tomorrow_in_brasilia_is_refused_in_the_evening(small_world,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from valuation.commission.rates import add_rate
    from valuation.core.errors import InputError

    monkeypatch.delenv(clock.ZONE_VARIABLE, raising=False)
    dpc = small_world.principal("dpc")
    with pytest.raises(InputError, match="no futuro") as refused:
        add_rate(small_world.store, dpc, "USD", date(2026, 3, 10), "5,10")
    assert "09/03/2026" in str(refused.value)                           # "hoje é 09/03/2026"
    assert add_rate(small_world.store, dpc, "USD", date(2026, 3, 9), "5,10").day == date(2026, 3, 9)


@pytest.mark.parametrize("small_world", [_evening], indirect=True)
def test_a_policy_set_in_the_evening_applies_from_that_day_in_brasilia(small_world,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from valuation.policies.values import policy_in_force, set_policy

    monkeypatch.delenv(clock.ZONE_VARIABLE, raising=False)
    store, dpc = small_world.store, small_world.principal("dpc")
    state = set_policy(store, dpc, "quorum", 5, "Comissão ampliada")
    assert state.effective_from == date(2026, 3, 9)
    assert policy_in_force(store, "quorum").value == 5                  # in force today, as_of defaulted


def test_no_code_takes_the_utc_day_of_now() -> None:
    """`store.now().date()` is the UTC day; the office's day is `Store.today()` (`clock.today_brasilia`)."""
    pattern = re.compile(r"now\(\)\.date\(\)|now_utc\(\)\.date\(\)|utcnow\(\)\.date\(\)|date\.today\(\)")
    root = SRC.parents[1]
    files = [*SRC.rglob("*.py"), root / "app.py",
             *(p for folder in ("ui", "pages", "page_tabs", "service") for p in (root / folder).rglob("*.py"))]
    found = [f"{p.relative_to(root)}:{n}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert found == []
