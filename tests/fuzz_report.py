"""A tiny pytest plugin: counts the generated inputs the hostile-input tests ran and prints
one summary line at the end of the session (loaded with `pytest_plugins` by the test module).

    FUZZ.count("compute:consensus", outcome="refused")
"""
from __future__ import annotations

from collections import Counter
from typing import Any


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


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    if not FUZZ.total():
        return
    groups: Counter[str] = Counter()
    for target, n in FUZZ.by_target.items():
        groups[target.split(":", 1)[0]] += n
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(FUZZ.by_outcome.items()))
    per_group = ", ".join(f"{k} {v}" for k, v in sorted(groups.items()))
    terminalreporter.write_sep("-", "hostile input")
    terminalreporter.write_line(f"hostile input: {FUZZ.total()} generated inputs ran ({per_group}); outcomes: {outcomes}")
    for target, n in sorted(FUZZ.by_target.items()):
        terminalreporter.write_line(f"  {target}: {n}")
