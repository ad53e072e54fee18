"""A keyed selectbox whose option labels change while the option stays chosen (a round's status, an
open round named in a contract's label).

Streamlit (1.67) keeps a keyed widget's identity when its options change, and the browser goes on
showing the label it last received for the chosen option until the script sets the value: after the
president closes a round, the selector said "rodada 2 aberta" beside the metric "Encerrada" (issue 23
item 6). `selectbox` sets the chosen value again (the supported way: `st.session_state[key]` before the
widget) when its label is not the one the browser was last sent, so every selector reads as the page."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import streamlit as st

T = TypeVar("T")


def _shown_key(key: str) -> str:
    return f"{key}__shown_label"


def selectbox(label: str, options: Sequence[T], *, key: str, format_func: Callable[[T], str] = str,
              **kwargs: Any) -> T:
    """`st.selectbox` with `key` over non-empty `options` (one is always chosen), whose chosen option's
    label the browser always shows as it is now."""
    shown = _shown_key(key)
    if key in st.session_state and st.session_state[key] in options:
        value = st.session_state[key]
        if st.session_state.get(shown) not in (None, format_func(value)):
            st.session_state[key] = value     # the browser is told the chosen option's new label
    chosen = st.selectbox(label, options, key=key, format_func=format_func, **kwargs)
    if chosen is None:
        raise ValueError(f"{label}: a selector without a choice")
    st.session_state[shown] = format_func(chosen)
    return chosen
