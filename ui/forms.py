"""Showing bad input: every problem with its field, in pt-BR (nothing was written)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import streamlit as st

from ui import fields
from ui.safe import md
from valuation.core.errors import AccessDenied, InputError, ValuationError

T = TypeVar("T")


def problem_lines(exc: InputError, labels: Mapping[str, str] | None = None) -> list[str]:
    """One line per problem, naming the field by its label as the form shows it, never by its
    internal key: `labels` maps a problem's path to the form's label; a message that names the
    field a little differently ('Valor: …' for the form's 'Valor (R$)') gets the form's label."""
    out = []
    for p in exc.problems:
        label = (labels or {}).get(p.path)
        out.append(named(label, p.message) if label else p.message)
    return out


def _base(label: str) -> str:
    """'Valor (R$)' → 'Valor': the label without its trailing note."""
    return label.split(" (", 1)[0].strip()


def named(label: str, message: str) -> str:
    """`message` starting with `label`: kept when it does, its own field name replaced when that
    name is the same field's ('Significância: …' → 'Significância (voto histórico): …'), else prefixed."""
    if message.startswith(label):
        return message
    head, sep, rest = message.partition(": ")
    if sep and head and (label.startswith(head) or head.startswith(_base(label))):
        return f"{label}: {rest}"
    return f"{label}: {message}"


# shown below the form whose fields it names (the write runs after the form's button): it points up
PROBLEMS_TITLE = "Nada foi gravado. Corrija no formulário acima:"


def show_problems(exc: InputError, *, title: str = PROBLEMS_TITLE,
                  labels: Mapping[str, str] | None = None) -> None:
    # the messages quote what the user typed: escaped, never rendered as Markdown
    st.error(title + "\n\n" + "\n".join(f"- {md(line)}" for line in problem_lines(exc, labels)))


def blanks_to_none(data: Mapping[str, Any]) -> dict[str, Any]:
    """Form widgets give '' for an empty text field; the store reads None as 'not given'."""
    return {k: (v if not isinstance(v, str) or v.strip() else None) for k, v in data.items()}


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """What one store write came to: its result, or the problems of the input, or the refusal (access, audit
    seal, not found, conflict) — in the last two cases nothing was written."""

    result: T | None = None
    problems: InputError | None = None
    refusal: str | None = None

    @property
    def ok(self) -> bool:
        return self.problems is None and self.refusal is None


def attempt(create: Callable[..., T], *args: Any, **kwargs: Any) -> Outcome[T]:
    """Run one store write and say what it came to, showing nothing (a form's submit callback runs it before
    the page is drawn, so that one click is one run; `show_outcome` shows it where the form is).

    Strict fields (`ui.fields.Typed`, in the arguments or the values of a dict argument) are checked
    first: a bad one refuses the write, every bad field named; else each is passed as the value it
    reads as."""
    typed = fields.typed_in([*args, *kwargs.values()])
    try:
        bad = fields.problems_of(typed)
        if bad:
            raise InputError(bad)
        return Outcome(result=create(*fields.unwrap(args), **fields.unwrap(kwargs)))
    except InputError as exc:
        return Outcome(problems=exc)
    except (AccessDenied, ValuationError) as exc:   # refused (access, audit seal), not found, conflict: nothing written
        return Outcome(refusal=str(exc))


def show_outcome(outcome: Outcome[Any], *, labels: Mapping[str, str] | None = None, title: str | None = None) -> None:
    """Show a failed write's problems (under `title` when given) or its refusal; nothing for a write that went
    through (the caller states it)."""
    if outcome.problems is not None:
        if title is None:
            show_problems(outcome.problems, labels=labels)
        else:
            show_problems(outcome.problems, title=title, labels=labels)
    elif outcome.refusal is not None:
        st.error(md(outcome.refusal))


def save(create: Callable[..., T], *args: Any, success: str | None, labels: Mapping[str, str] | None = None,
         title: str | None = None, **kwargs: Any) -> T | None:
    """Run one store write; show every problem (nothing was written; under `title` when given), the
    refusal or the conflict (not found, already recorded), else `success` (`{result}` is the write's
    result; None: the caller states the outcome itself, as a page that reruns after the write does)."""
    outcome = attempt(create, *args, **kwargs)
    show_outcome(outcome, labels=labels, title=title)
    if outcome.ok and success is not None:
        st.success(success.format(result=outcome.result))
    return outcome.result if outcome.ok else None
