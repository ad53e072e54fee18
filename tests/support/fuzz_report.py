"""A tiny pytest plugin: counts the generated inputs the hostile-input tests ran and the SIGKILLs the
crash tests sent, and prints the figures at the end of the session (loaded by the root conftest's
`pytest_plugins`, so that it runs in the controller of a parallel run too).

Under pytest-xdist each worker counts its own tests; at its end it hands its tallies and figures to the
controller (`workeroutput`), which adds them up and prints one summary.

    FUZZ.count("compute:consensus", outcome="refused")
    KILLS.count("demo", outcome="none")          # the kill left nothing of the write / all of it
    MATRIX.count("inventory", outcome="refused") # a call as explorer A with explorer B's ids
    TAMPER.count("backup:planted:wrecks", outcome="refused")   # a backup folder or a stored file tampered with
    LOGINS.count("distributed:owner", outcome="in")  # a login attempt of the throttle campaign
    LIMITS.count("login:concurrent_wrong", outcome="throttled")   # one of attempts sent together
    FIGURES.record("owner at home, in", "33/33")   # a measured figure, printed as it is
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import pytest


class _Tally:
    def __init__(self) -> None:
        self.by_target: Counter[str] = Counter()
        self.by_outcome: Counter[str] = Counter()

    def count(self, target: str, *, outcome: str) -> None:
        self.by_target[target] += 1
        self.by_outcome[outcome] += 1

    def total(self) -> int:
        return sum(self.by_target.values())


FUZZ = _Tally()
KILLS = _Tally()
MATRIX = _Tally()     # store calls made as one company with another company's identifiers
TAMPER = _Tally()     # issue 24: backup folders tampered with (planted rows, links, manifest values and shapes),
                      # stored data edited behind the application's back, audit text read, inodes compared
LOGINS = _Tally()     # login attempts of the throttle campaign (distributed lock-out, floods)
UPLOADS = _Tally()    # uploads and requests of the cost campaign (photo budgets, Host headers, active content)
LIMITS = _Tally()     # issue 45: attempts sent together against a throttle or a limit (login, /verificar, uploads)


class _Figures:
    """Figures measured by the campaign (a name and its value, as text), printed in the summary."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def record(self, name: str, value: object) -> None:
        self.values[name] = str(value)


FIGURES = _Figures()


def _tallies() -> dict[str, _Tally]:
    return {name: value for name, value in globals().items() if isinstance(value, _Tally)}


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:        # an xdist worker: hand the counts to the controller
        workeroutput["tallies"] = {name: [dict(t.by_target), dict(t.by_outcome)] for name, t in _tallies().items()}
        workeroutput["figures"] = dict(FIGURES.values)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    output = getattr(node, "workeroutput", {})
    mine = _tallies()
    for name, (by_target, by_outcome) in output.get("tallies", {}).items():
        if name in mine:
            mine[name].by_target.update(by_target)
            mine[name].by_outcome.update(by_outcome)
    FIGURES.values.update(output.get("figures", {}))


def _report(terminalreporter: Any, tally: _Tally, title: str, what: str) -> None:
    if not tally.total():
        return
    groups: Counter[str] = Counter()
    for target, n in tally.by_target.items():
        groups[target.split(":", 1)[0]] += n
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(tally.by_outcome.items()))
    per_group = ", ".join(f"{k} {v}" for k, v in sorted(groups.items()))
    terminalreporter.write_sep("-", title)
    terminalreporter.write_line(f"{title}: {tally.total()} {what} ({per_group}); outcomes: {outcomes}")
    for target, n in sorted(tally.by_target.items()):
        terminalreporter.write_line(f"  {target}: {n}")


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    _report(terminalreporter, FUZZ, "hostile input", "generated inputs ran")
    _report(terminalreporter, KILLS, "kills", "SIGKILLs sent")
    _report(terminalreporter, MATRIX, "cross-company calls", "store calls with another company's identifiers")
    _report(terminalreporter, TAMPER, "tampering", "tampered backups, stored edits and audit-text reads checked")
    _report(terminalreporter, LOGINS, "login campaign", "login attempts")
    _report(terminalreporter, UPLOADS, "cost campaign", "uploads and requests")
    _report(terminalreporter, LIMITS, "concurrency campaign", "attempts sent together against throttles and limits")
    if FIGURES.values:
        terminalreporter.write_sep("-", "campaign figures")
        for name, value in FIGURES.values.items():
            terminalreporter.write_line(f"  {name}: {value}")
