"""Display formatting for tables: Decimal → 'R$ 1.234,56', date → 'dd/mm/aaaa' (pt-BR).

Only for display: stored values and exports keep their types.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal

import pandas as pd

from valuation.money import format_brl, format_date_br


def _cell_brl(v: object) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)) or v is pd.NA:
        return "—"
    return format_brl(v if isinstance(v, Decimal) else Decimal(str(v)))


def _cell_date(v: object) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and pd.isna(v)):
        return "—"
    if isinstance(v, pd.Timestamp):
        v = v.date()
    if isinstance(v, datetime):
        return v.strftime("%d/%m/%Y %H:%M")
    if isinstance(v, date):
        return format_date_br(v)
    return str(v)


def for_display(df: pd.DataFrame, *, money: Iterable[str] = (), dates: Iterable[str] = (),
                rename: dict[str, str] | None = None) -> pd.DataFrame:
    out = df.copy()
    for col in money:
        if col in out.columns:
            out[col] = [_cell_brl(v) for v in out[col].tolist()]
    for col in dates:
        if col in out.columns:
            out[col] = [_cell_date(v) for v in out[col].tolist()]
    if rename:
        out = out.rename(columns={k: v for k, v in rename.items() if k in out.columns})
    return out


# Plotly map outlines are served by the app itself (static/topojson, Streamlit static serving),
# so maps draw on a closed network; the relative URL also works under a proxy's base path.
GEO_CONFIG = {"topojsonURL": "./app/static/topojson/"}


def count_br(n: int) -> str:
    """A whole number with pt-BR thousands dots: 24100 → '24.100'."""
    return f"{int(n):,}".replace(",", ".")


def yes_no(v: object) -> str:
    return "sim" if v is True else "não" if v is False else "—"
