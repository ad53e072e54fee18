"""Where a deadline stands on `as_of` (rules.md §7): the one table of the states, their pt-BR words and
whether a deadline in them is still pending or listed by the daily digest. The engine's frames, the
digest, its e-mail and the Prazos page read it from here.

    upcoming   a vencer          due later than the due-soon window (policy `due_soon_days`)
    due_soon   vence em breve    due within that window
    overdue    vencido           past due, not met
    suspended  suspenso          the clock is stopped, or the contract is not in force
    met        cumprido          met on a day (a period that ran out reads `CLOSED_LABEL`, "encerrado")
    waived     dispensado        a DPC waiver, or a fact that made it moot
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class State:
    """One state: its code (`state`), how one deadline in it reads (`label`: `state_pt`), how a list
    of them is headed (`heading`), whether such a deadline is still pending and whether the daily
    digest (its JSON and its e-mails) lists it."""

    key: str
    label: str
    heading: str
    pending: bool
    digest: bool = False


STATE_TABLE: tuple[State, ...] = (    # the order of lists and counts: the most urgent first
    State("overdue", "vencido", "Vencidos", True, digest=True),
    State("due_soon", "vence em breve", "Vencem em breve", True, digest=True),
    State("upcoming", "a vencer", "A vencer", True),
    State("suspended", "suspenso", "Suspensos", True),
    State("met", "cumprido", "Cumpridos", False),
    State("waived", "dispensado", "Dispensados", False),
)
STATES: tuple[str, ...] = tuple(s.key for s in STATE_TABLE)
STATE_LABELS: dict[str, str] = {s.key: s.label for s in STATE_TABLE}
STATE_HEADINGS: dict[str, str] = {s.key: s.heading for s in STATE_TABLE}
PENDING_STATES: tuple[str, ...] = tuple(s.key for s in STATE_TABLE if s.pending)
DIGEST_STATES: tuple[str, ...] = tuple(s.key for s in STATE_TABLE if s.digest)
CLOSED_LABEL = "encerrado"  # state_pt of a 'met' period that closed (a period rule, a lapse that ran out)
