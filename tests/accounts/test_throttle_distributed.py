"""Issue 24, item 6 — lock-out by others: the throttle never refuses the right password forever.

Reproduction (failed before the fix): 183 failed logins over 3 hours from 34 addresses kept the real
owner, with the right password, from its own address, out 33 of 33 times — the per-account delay
(at most a minute) was renewed by every failure from anywhere, and while it ran every attempt was
refused unchecked, the owner's too. Now (SECURITY.md "Login throttling: the guarantee"):

- from an address that logged in to the account within `throttle.KNOWN_FOR`, the account's delay does
  not apply: failures from other addresses never refuse the owner there;
- from any other address, the account's delay is a *turn*: the attempt waits at most
  `throttle.ACCOUNT_CAP` from its own first refusal, whatever other addresses do meanwhile, and then
  one attempt is checked (a wrong one waits for a new turn);
- the attackers' checked guesses stay bounded (one per address per turn at most).

The clock is simulated (`now=`): hours of attack run in a few seconds. The attack's first 55 failures
(up to the account's cap), after the owner logged in from home the day before, are replayed once for
the module (`engaged`: each test gets a copy of that database); every test goes on from there.
"""
from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.conftest import FAST_HASHER, NOW, PASSWORDS  # noqa: E402
from tests.support.fuzz_report import FIGURES, LOGINS  # noqa: E402  (the attempts are counted in the run's summary)
from valuation.accounts import login, passwords, throttle  # noqa: E402
from valuation.accounts.login import AuthenticationFailed, authenticate  # noqa: E402
from valuation.db.store import Store  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]

ATTACKERS = [f"203.0.113.{i}" for i in range(1, 35)]          # 34 addresses
OWNER_HOME = "198.51.100.7"
OWNER_HOTEL = "192.0.2.200"
VICTIM = "com.navy"
ENGAGED = 55                         # failures of the issue's attack until the account's delay is at its cap


def _try(s: Any, username: str, password: str, at: datetime, client: str, angle: str) -> str:
    try:
        authenticate(s, username, password, now=at, client=client)
    except login.LoginThrottled:
        LOGINS.count(f"distributed:{angle}", outcome="throttled")
        return "throttled"
    except AuthenticationFailed:
        LOGINS.count(f"distributed:{angle}", outcome="failed")
        return "failed"
    LOGINS.count(f"distributed:{angle}", outcome="in")
    return "in"


def _issue_pattern(start: datetime) -> list[tuple[datetime, str]]:
    """The issue's attack: 183 failures from 34 addresses (rotating: each address stays within its own
    budget), each sent as soon as the account's delay of the one before has run out (the attacker
    reads the delays off the rule) — from the 55th on, the one-minute delay is renewed every 60.5 s:
    the account waits for two hours on end."""
    times = [start]
    for k in range(1, 183):
        wait = throttle.delay("account", k)
        times.append(times[-1] + timedelta(seconds=2.0 if wait is None else max(2.0, wait.total_seconds() + 0.5)))
    return [(at, ATTACKERS[k % len(ATTACKERS)]) for k, at in enumerate(times)]


def _engaged(attacks: list[tuple[datetime, str]]) -> datetime:
    """From the 55th failure the account's delay is at its cap."""
    return attacks[ENGAGED - 1][0]


def _run(s: Any, attacks: list[tuple[datetime, str]], owner: list[tuple[datetime, str]], password: str,
         angle: str) -> list[tuple[datetime, str]]:
    """Replay attacker failures and owner attempts (right password) in time order; the owner's outcomes."""
    events = sorted([(at, 0, client) for at, client in attacks] + [(at, 1, client) for at, client in owner])
    seen = []
    for at, is_owner, client in events:
        if is_owner:
            seen.append((at, _try(s, VICTIM, password, at, client, f"{angle}:owner")))
        else:
            _try(s, VICTIM, f"adivinha-{at:%H%M%S}", at, client, f"{angle}:attacker")
    return seen


@pytest.fixture(scope="module")
def _engaged_template(_world_template: tuple[Path, dict[str, int]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small world after the owner's login from home (the day before) and the issue's attack up to
    the account's cap (its first ENGAGED failures, from NOW): replayed once, copied for each test."""
    path = tmp_path_factory.mktemp("engaged") / "engaged.duckdb"
    shutil.copyfile(_world_template[0], path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(passwords, "_hasher", FAST_HASHER)           # the autouse swap is per test
        s = Store(path)
        try:
            assert _try(s, VICTIM, PASSWORDS[VICTIM], NOW - timedelta(days=1), OWNER_HOME, "issue:owner") == "in"
            _run(s, _issue_pattern(NOW)[:ENGAGED], [], "", "issue")
        finally:
            s.close()
    return path


@pytest.fixture
def engaged(_engaged_template: Path, tmp_path: Path) -> Iterator[Store]:
    """A private copy of `_engaged_template`, open."""
    path = tmp_path / "engaged.duckdb"
    shutil.copyfile(_engaged_template, path)
    s = Store(path)
    yield s
    s.close()


def test_the_owner_at_its_own_address_is_never_kept_out(engaged: Store) -> None:
    """The issue's attack from 34 addresses (there: 183 failures over 2 h 10 min, the owner refused 33
    times of 33); the owner, who logged in from home the day before, tries every four minutes while the
    account's delay runs at its cap, renewed by every failure: in every time. The first 100 failures
    (45 minutes at the cap, 11 tries) are replayed — the state at the cap repeats itself after that."""
    s = engaged
    attacks = _issue_pattern(NOW)[:100]
    at_cap = _engaged(attacks)
    owner = [(at_cap + timedelta(seconds=30 + 60.5 * (4 * k + 1)), OWNER_HOME) for k in range(11)]
    assert owner[-1][0] < attacks[-1][0]
    outcomes = _run(s, attacks[ENGAGED:], owner, PASSWORDS[VICTIM], "issue")
    ins = sum(1 for _at, o in outcomes if o == "in")
    FIGURES.record(f"distributed lock-out ({len(attacks)} failures, 34 addresses, "
                   f"{(attacks[-1][0] - NOW).total_seconds() / 60:.0f} min): owner at home, in",
                   f"{ins}/{len(outcomes)}")
    assert ins == len(outcomes) == 11, outcomes
    stranger = _try(s, VICTIM, PASSWORDS[VICTIM], attacks[-1][0] + timedelta(seconds=1), "10.9.9.9", "issue")
    assert stranger == "throttled"                                   # the account's delay was running all along


def test_the_owner_at_a_new_address_gets_in_within_the_accounts_longest_wait(engaged: Store) -> None:
    """The same attack; the owner, travelling (an address never used for this account), retries the
    right password every 20 s: in within ACCOUNT_CAP (+ one retry) of the first attempt, each time."""
    s = engaged
    attacks = _issue_pattern(NOW)
    at_cap = _engaged(attacks)
    attacks = attacks[ENGAGED:]
    waits = []
    for trip in range(2):                                           # two trips, 40 minutes apart
        client = f"192.0.2.{200 + trip}"
        first = at_cap + timedelta(minutes=1 + 40 * trip, seconds=7)
        tries = [(first + timedelta(seconds=20 * k), client) for k in range(12)]
        done = [a for a in attacks if a[0] < first + timedelta(minutes=4)]
        attacks = [a for a in attacks if a not in done]
        outcomes = _run(s, done, tries, PASSWORDS[VICTIM], "new-address")
        got = next((at for at, o in outcomes if o == "in"), None)
        assert got is not None, outcomes
        waits.append((got - first).total_seconds())
    FIGURES.record("distributed lock-out: owner at a new address, longest wait (s)", f"{max(waits):.0f}")
    assert max(waits) <= throttle.ACCOUNT_CAP.total_seconds() + 20, waits
    assert max(waits) > 0                                            # the account's delay did apply


def test_the_attackers_checked_guesses_stay_bounded(engaged: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the account's delay runs, 12 of the addresses guessing every 30 s for 4 minutes: each address
    has a password checked at most once per turn (ACCOUNT_CAP) — the turn bounds the owner's wait without
    opening the account to a flood — and no throttled attempt costs an argon2 check."""
    s = engaged
    flooders = ATTACKERS[::3][:12]
    start = _engaged(_issue_pattern(NOW)) + timedelta(seconds=1)
    checked: dict[str, int] = {}
    current: list[str] = [""]
    real = login.verify_password
    monkeypatch.setattr(login, "verify_password",
                        lambda h, p: checked.__setitem__(current[0], checked.get(current[0], 0) + 1) or real(h, p))
    step, window = 30, timedelta(minutes=4)
    rounds = int(window.total_seconds()) // step
    for k in range(rounds):
        for n, client in enumerate(flooders):
            current[0] = client
            _try(s, VICTIM, f"adivinha-{k}", start + timedelta(seconds=step * k, milliseconds=10 * n), client, "flood")
    per_turn = int(window / throttle.ACCOUNT_CAP) + 1
    attempts = rounds * len(flooders)
    FIGURES.record(f"distributed flood ({len(flooders)} addresses, 4 min, account's delay running): "
                   "passwords checked / attempts",
                   f"{sum(checked.values())}/{attempts} (at most {per_turn} per address)")
    assert max(checked.values()) <= per_turn, checked
    assert sum(checked.values()) < attempts / 2


def test_a_turn_is_one_attempt(engaged: Store) -> None:
    """A wrong password on its turn waits for a new turn: an address let through cannot then guess freely,
    while the attack keeps the account's delay running."""
    s = engaged
    attacks = _issue_pattern(NOW)
    at_cap = _engaged(attacks) + timedelta(seconds=5)
    assert attacks[ENGAGED][0] >= at_cap                             # the module's replay stopped before
    rest = attacks[ENGAGED:]
    seen = _run(s, rest[:3], [(at_cap, OWNER_HOTEL)], "errada-1", "turn")          # asks for its turn
    after = at_cap + throttle.ACCOUNT_CAP
    seen += _run(s, rest[3:4], [(after, OWNER_HOTEL)], "errada-2", "turn")           # its turn: checked
    seen += _run(s, rest[4:5], [(after + timedelta(seconds=1), OWNER_HOTEL)], PASSWORDS[VICTIM],
                 "turn")                                                             # a new turn is needed
    assert [o for _at, o in seen] == ["throttled", "failed", "throttled"], seen
