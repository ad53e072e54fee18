"""Showing bad input: every problem with its field, in pt-BR (nothing was written)."""
from __future__ import annotations

import streamlit as st

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from valuation.errors import AccessDenied, InputError

T = TypeVar("T")


def show_problems(exc: InputError, *, title: str = "Nada foi gravado. Corrija os campos abaixo:") -> None:
    lines = "\n".join(f"- {p.message}" if not p.path or p.message.startswith(p.path) else f"- **{p.path}**: {p.message}"
                      for p in exc.problems)
    st.error(f"{title}\n\n{lines}")


def blanks_to_none(data: Mapping[str, Any]) -> dict[str, Any]:
    """Form widgets give '' for an empty text field; the store reads None as 'not given'."""
    return {k: (v if not isinstance(v, str) or v.strip() else None) for k, v in data.items()}


def save(create: Callable[..., T], *args: Any, success: str) -> T | None:
    """Run one store write; show every problem (nothing was written) or the refusal, else `success`."""
    try:
        result = create(*args)
    except InputError as exc:
        show_problems(exc)
    except AccessDenied as exc:
        st.error(str(exc))
    else:
        st.success(success.format(result=result))
        return result
    return None
