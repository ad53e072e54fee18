"""Text that a user wrote is never rendered as Markdown or HTML.

Streamlit renders the text of st.markdown/st.error/st.subheader/… as Markdown (links,
images, `:material/…:` shortcodes, `:red[…]` directives, `$…$` LaTeX). `md(text)`
backslash-escapes every character that starts one of those, so the reader sees exactly
what was typed. Two features work on the text *after* escapes are resolved, so escaping
cannot stop them: bare addresses (`http://…`, `www.…`) become links, and `:name:` /
`:material/name:` shortcodes become icons; `md` puts an invisible WORD JOINER (U+2060)
inside them (after the scheme, after `www`, after a colon that opens a shortcode).
Prefer `st.text` for free text; use `md` when the text must sit inside a formatted line
(a title, a message, an image caption).
"""
from __future__ import annotations

import re

# CommonMark drops a backslash before ASCII punctuation, so escaping is invisible to the reader.
_SPECIAL = re.compile(r"([\\`*_\[\]{}()<>#!:$~|^&])")
_BULLET = re.compile(r"^(\s*)([-+=])", re.M)  # list items, setext headings
_NUMBERED = re.compile(r"^(\s*\d+)\.", re.M)  # numbered lists
_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto|file|www)(?=[:.])")       # bare addresses
_SHORTCODE = re.compile(r":(?=[A-Za-z0-9_+\-/]+:)")                        # :smile: :material/x:


def md(value: object) -> str:
    """`value` as Markdown source that renders as the same plain characters."""
    text = _SHORTCODE.sub(":" + _JOINER, _AUTOLINK.sub(r"\1" + _JOINER, str(value)))
    escaped = _SPECIAL.sub(r"\\\1", text)
    escaped = _NUMBERED.sub(r"\1\\.", _BULLET.sub(r"\1\\\2", escaped))
    return escaped.replace("\n", "  \n")
