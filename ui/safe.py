"""Text that a user wrote is never rendered as Markdown or HTML.

Streamlit renders the text of st.markdown/st.error/st.subheader/… as Markdown (links,
images, `:material/…:` shortcodes, `:red[…]` directives, `$…$` LaTeX). `md(text)`
backslash-escapes every character that starts one of those, so the reader sees exactly
what was typed. Prefer `st.text` for free text; use `md` when the text must sit inside a
formatted line (a title, a message).
"""
from __future__ import annotations

import re

# CommonMark drops a backslash before ASCII punctuation, so escaping is invisible to the reader.
_SPECIAL = re.compile(r"([\\`*_\[\]{}()<>#!:$~|^&])")
_BULLET = re.compile(r"^(\s*)([-+=])", re.M)  # list items, setext headings
_NUMBERED = re.compile(r"^(\s*\d+)\.", re.M)  # numbered lists


def md(value: object) -> str:
    """`value` as Markdown source that renders as the same plain characters."""
    escaped = _SPECIAL.sub(r"\\\1", str(value))
    escaped = _NUMBERED.sub(r"\1\\.", _BULLET.sub(r"\1\\\2", escaped))
    return escaped.replace("\n", "  \n")
