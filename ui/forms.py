"""Showing bad input: every problem with its field, in pt-BR (nothing was written)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

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


def save(create: Callable[..., T], *args: Any, success: str | None, labels: Mapping[str, str] | None = None,
         title: str | None = None, **kwargs: Any) -> T | None:
    """Run one store write; show every problem (nothing was written; under `title` when given), the
    refusal or the conflict (not found, already recorded), else `success` (`{result}` is the write's
    result; None: the caller states the outcome itself, as a page that reruns after the write does).

    Strict fields (`ui.fields.Typed`, in the arguments or the values of a dict argument) are checked
    first: a bad one refuses the write, every bad field named; else each is passed as the value it
    reads as."""
    typed = fields.typed_in([*args, *kwargs.values()])
    try:
        bad = fields.problems_of(typed)
        if bad:
            raise InputError(bad)
        result = create(*fields.unwrap(args), **fields.unwrap(kwargs))
    except InputError as exc:
        if title is None:
            show_problems(exc, labels=labels)
        else:
            show_problems(exc, title=title, labels=labels)
    except (AccessDenied, ValuationError) as exc:   # refused (access, audit seal), not found, conflict: nothing written
        st.error(md(exc))
    else:
        if success is not None:
            st.success(success.format(result=result))
        return result
    return None
