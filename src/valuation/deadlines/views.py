"""How deadlines read to their users: a deadline key as words, its subject, its due date with
the move of Lei 9.784/1999 art. 66 §1, the contract a timeline opens on, and the full grid of
the calendar heat map. Pure presentation over `valuation.deadlines.engine` frames (never imports streamlit).

    key_text("five_year_lapse:RJ-005")      'Prazo de 5 anos do responsável — naufrágio RJ-005'
    due_text(date(2026, 2, 18), date(2026, 2, 15))
                                            '18/02/2026, prorrogado de 15/02/2026 (domingo)'
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from valuation.core.calendar import WEEKDAY_NAMES
from valuation.core.money import format_date_br
from valuation.deadlines import rules as dl
from valuation.deadlines.appeals import decision_label
from valuation.deadlines.rule_specs import SPECS
from valuation.deadlines.states import PENDING_STATES
from valuation.deadlines.vocabulary import (
    APPEAL_EVENT_KINDS,
    DEADLINE_MET,
    EVENT_KIND_BY_KEY,
)

if TYPE_CHECKING:  # pandas is imported only where a frame is read
    import pandas as pd

WEEKDAY_SHORT: tuple[str, ...] = ("seg", "ter", "qua", "qui", "sex", "sáb", "dom")
_MONTH = re.compile(r"^([0-9]{4})-([0-9]{2})$")


def _blank(v: object) -> bool:
    """None, NaN, NaT, pd.NA and empty text (a frame's missing cell), without truth-testing pandas values."""
    if v is None or (isinstance(v, str) and not v.strip()) or type(v).__name__ == "NAType":
        return True
    try:
        return bool(v != v)  # NaN and NaT differ from themselves
    except (TypeError, ValueError):
        return False


def due_text(due: date | None, moved_from: date | None = None) -> str:
    """'18/02/2026', or with the move of art. 66 §1 '18/02/2026, prorrogado de 15/02/2026 (domingo)'
    (a deadline of minimum notice moved back reads 'antecipado de …')."""
    if due is None or moved_from is None or _blank(moved_from) or moved_from == due:
        return format_date_br(due)
    verb = "prorrogado" if moved_from < due else "antecipado"
    return f"{format_date_br(due)}, {verb} de {format_date_br(moved_from)} ({WEEKDAY_NAMES[moved_from.weekday()]})"


def key_text(key: str) -> str:
    """A deadline key ('monthly_report:A-1:2025-03', 'wreck_map:CPRJ:2025', 'owner_reclaim:e17', …)
    as its label and subject in Portuguese; an unknown key is returned as it is."""
    rule, _, rest = (key or "").partition(":")
    spec = SPECS.get(rule)
    if spec is None or not rest:
        return key
    label = spec.label
    if rule == "monthly_report":
        code, _, month = rest.rpartition(":")
        m = _MONTH.match(month)
        if code and m:
            return f"Relatório mensal ({dl.fmt_month(date(int(m[1]), int(m[2]), 1))}) — contrato {code}"
    if rule == "extension_request":
        code, _, expiry = rest.rpartition(":")
        try:
            return f"{label} — contrato {code} (autorização até {format_date_br(date.fromisoformat(expiry))})"
        except ValueError:
            pass
    if rule == "wreck_map":
        office, _, year = rest.partition(":")
        return f"Mapa anual de naufrágios de {year} — {office}" if year else f"{label} — {office}"
    if spec.subject == "decision":
        code, _, decision = rest.partition(":")
        return f"{label} — contrato {code} ({decision_label(decision)})"
    if spec.subject == "contract":
        return f"{label} — contrato {rest}"
    if spec.subject == "wreck":
        return f"{label} — naufrágio {rest}"
    for prefix, what in (("f", "coisa achada"), ("e", "evento"), ("r", "determinação de remoção"), ("b", "saldo")):
        if re.fullmatch(prefix + r"[0-9]+", rest):
            return f"{label} — {what} nº {rest[1:]}"
    return f"{label} — {rest}"


def subject_text(row: Mapping[str, Any]) -> str:
    """Who/where a deadline row is about: 'contrato A-1 · naufrágio RJ-005 (Nome) · CPRJ'."""
    parts = []
    if not _blank(row.get("contract_code")):
        parts.append(f"contrato {row['contract_code']}")
    if not _blank(row.get("wreck")):
        name = row.get("wreck_name")
        parts.append(f"naufrágio {row['wreck']}" + ("" if _blank(name) else f" ({name})"))
    if not _blank(row.get("office_code")):
        parts.append(str(row["office_code"]))
    return " · ".join(parts)


def row_title(row: Mapping[str, Any]) -> str:
    """One line for a deadline in a picker: 'Relatório final — contrato A-1 · CPRJ — vencido, 02/05/2025'."""
    subject = subject_text(row)
    head = f"{row['label_pt']} — {subject}" if subject else str(row["label_pt"])
    due = row.get("due")
    when = "sem data de vencimento" if _blank(due) else format_date_br(due)  # an open suspension has none yet
    return f"{head} — {row['state_pt']}, {when}"


def event_reference_text(kind: str, reference: object) -> str | None:
    """An event's reference as a user reads it: the deadline a 'deadline_met' names, a month
    'AAAA-MM' as 'março/2025', an ISO date as dd/mm/aaaa; None when there is none."""
    if _blank(reference):
        return None
    text = str(reference)
    if kind == DEADLINE_MET:
        return key_text(text)
    if kind in APPEAL_EVENT_KINDS:
        return decision_label(text)
    m = _MONTH.match(text)
    if m and 1 <= int(m[2]) <= 12:
        return dl.fmt_month(date(int(m[1]), int(m[2]), 1))
    try:
        return format_date_br(date.fromisoformat(text)) if len(text) == 10 else text
    except ValueError:
        return text


def event_kind_label(kind: str) -> str:
    k = EVENT_KIND_BY_KEY.get(kind)
    return k.label if k is not None else kind


def pending_first(frame: pd.DataFrame) -> pd.DataFrame:
    """The deadlines with the pending ones first (by due date), then the others (latest first)."""
    import pandas as pd

    if frame.empty:
        return frame
    pending = frame["state"].isin(PENDING_STATES)
    return pd.concat([frame[pending], frame[~pending].iloc[::-1]])


def nearest_pending_contract(frame: pd.DataFrame, as_of: date) -> str | None:
    """The contract whose pending deadline is nearest to `as_of` (overdue or ahead), else the
    contract of the latest deadline; None when no row has a contract."""
    if frame.empty:
        return None
    rows = frame[[not _blank(c) for c in frame["contract_code"]]]
    if rows.empty:
        return None
    pending = rows[rows["state"].isin(PENDING_STATES) & rows["due"].notna()]
    if pending.empty:
        return str(rows.iloc[-1]["contract_code"])
    gaps = [abs((d - as_of).days) for d in pending["due"]]
    return str(pending.iloc[gaps.index(min(gaps))]["contract_code"])


def heatmap_grid(frame: pd.DataFrame, year: int) -> dict[str, Any]:
    """The pending deadlines due in `year`, per day, as a full calendar grid: `weeks` (the Monday
    of each column), `weekdays` (all seven, 'seg' … 'dom'), `z` (7 rows of counts; 0 for a day
    without deadlines, None for a day outside the year), `text` (hover: 'qua 01/01/2026: 2
    prazos') and `total`/`peak`."""
    counts: dict[date, int] = {}
    if not frame.empty:
        for d in frame.loc[frame["state"].isin(PENDING_STATES), "due"]:
            if not _blank(d) and d.year == year:  # an open suspension has no due date
                counts[d] = counts.get(d, 0) + 1
    first = date(year, 1, 1)
    start = first - timedelta(days=first.weekday())
    n_weeks = (date(year, 12, 31) - start).days // 7 + 1
    weeks = [start + timedelta(weeks=j) for j in range(n_weeks)]
    z: list[list[int | None]] = []
    text: list[list[str]] = []
    for wd in range(7):
        zr: list[int | None] = []
        tr: list[str] = []
        for monday in weeks:
            day = monday + timedelta(days=wd)
            if day.year != year:
                zr.append(None)
                tr.append("")
                continue
            n = counts.get(day, 0)
            zr.append(n)
            tr.append(f"{WEEKDAY_SHORT[wd]} {format_date_br(day)}: " + ("nenhum prazo" if n == 0 else
                                                                 f"{n} prazo" + ("s" if n > 1 else "")))
        z.append(zr)
        text.append(tr)
    return {"weeks": weeks, "weekdays": list(WEEKDAY_SHORT), "z": z, "text": text,
            "total": sum(counts.values()), "peak": max(counts.values(), default=0)}


__all__ = ["WEEKDAY_SHORT", "due_text", "event_kind_label", "event_reference_text", "heatmap_grid", "key_text",
           "nearest_pending_contract", "pending_first", "row_title", "subject_text"]
