"""The problems of a refused file as a table for the page: one definition (issue 12).

A problem names its place as 'linha N, coluna X', 'linha N' or another path (a problem of the
whole file); a problem that carries `line` and `column` (core.errors.Problem) is read from them.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from valuation.core.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

_CELL = re.compile(r"^linha (\d+)(?:, coluna (.+))?$")


def problems_frame(exc: InputError, labels: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Rows (Linha, Coluna, Motivo): Linha the file's line (empty for a problem of the whole file),
    Coluna the column by its label in `labels` (the header the template and the exports use)."""
    import pandas as pd

    names = labels or {}
    lines: list[int | None] = []
    columns: list[str] = []
    for p in exc.problems:
        line, column = p.line, p.column
        if line is None and column is None:          # a place written as a path ('linha 3, coluna x')
            m = _CELL.match(p.path or "")
            line, column = (int(m[1]), m[2] or "") if m else (None, p.path or "")
        lines.append(line)
        columns.append(names.get(column or "", column or ""))
    return pd.DataFrame({"Linha": pd.array(lines, dtype="Int64"), "Coluna": columns,
                         "Motivo": [p.message for p in exc.problems]})
