"""A registry record's versions as a person reads them (valuation.registry.versions): one row per version — when,
who, why, what changed from the one before —, values in pt-BR (dates dd/mm/aaaa, decimals with a comma, yes/no).
The reasons are what a person wrote: they go into a table cell, never into Markdown."""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from ui.fmt import moment_br
from valuation.registry.versions import Version

_ISO_DAY = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_DECIMAL = re.compile(r"^-?[0-9]+\.[0-9]+$")


def value_text(value: Any) -> str:
    """A stored value as read: '—' for none, Sim/Não, 02/03/2026, 8,40."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "Sim" if value else "Não"
    text = str(value)
    if _ISO_DAY.match(text):
        return f"{text[8:10]}/{text[5:7]}/{text[:4]}"
    if _DECIMAL.match(text):
        return text.replace(".", ",")
    return text


def change_lines(version: Version, shown: Mapping[str, Callable[[Any], str]] | None = None) -> str:
    """What changed in `version`, one field per line ('Profundidade (m): 8,00 → 9,40')."""
    if version.version == 1:
        return "registro como estava" if version.origin == "found" else "cadastro"
    out = []
    for c in version.changes:
        fmt = (shown or {}).get(c.field, value_text)
        out.append(f"{c.label}: {fmt(c.before)} → {fmt(c.after)}")
    return "\n".join(out) or "—"


def versions_table(history: Sequence[Version], *, shown: Mapping[str, Callable[[Any], str]] | None = None) -> None:
    """The versions, newest first, or a line saying there is no correction yet."""
    if not history:
        st.caption("Sem versões registradas: o registro não foi corrigido desde que o histórico existe.")
        return
    rows = [{"Versão": v.version, "Alterações": change_lines(v, shown), "Motivo": v.reason or "—",
             "Por": v.changed_by, "Em": moment_br(v.changed_at), "Origem": v.origin_label}
            for v in reversed(history)]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                 column_config={"Versão": st.column_config.NumberColumn(width=60),
                                "Alterações": st.column_config.TextColumn(width="large"),
                                "Motivo": st.column_config.TextColumn(width="medium")})
    corrected = sum(1 for v in history if v.origin == "corrected")
    st.caption(f"{len(history)} versão(ões), {corrected} correção(ões); horários de Brasília. Uma correção cria uma "
               "nova versão; as anteriores ficam guardadas e seladas.")
