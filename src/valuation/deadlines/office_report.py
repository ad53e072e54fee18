"""The deadlines of one office as a PDF to attach to an ofício (issue 23 item 13): the overdue, the due-soon
and the suspended deadlines on the reference date, each with its basis in law (Lei 7.542/1986, NORMAM-10,
Lei 2.180/1954; counted by Lei 9.784/1999 art. 66).

The report is a list of `Section`s; `office_sections` makes the ones of the deadline engine. Another source
of an office's deadlines (issue 26: the Authority's own, valuation.proceedings.reports.authority_sections)
adds its sections — with columns of its own when it needs them — to the same list and
`office_deadlines_pdf` prints them all (`print_sections`), with the product's PDF builder
(valuation.exports.PdfReport: its fonts, header and footer).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from valuation.authenticity import registry
from valuation.authenticity.codes import Stamp
from valuation.core.errors import NotFound
from valuation.db.access import Principal, office_match, require
from valuation.deadlines.engine import compute_deadlines
from valuation.deadlines.states import STATE_HEADINGS
from valuation.deadlines.views import due_text
from valuation.exports import PdfReport

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store

REPORT_STATES = ("overdue", "due_soon", "suspended")   # the lists of the report, in this order
COLUMNS = ("Prazo", "Contrato / naufrágio", "Empresa", "Vencimento", "Observação", "Fundamento")
WIDTHS = (3.2, 1.9, 2.4, 1.9, 2.4, 3.4)
COUNTING = ("Prazos contados na forma da Lei 9.784/1999 art. 66: exclui-se o dia do começo e inclui-se o do "
            "vencimento; o prazo que vence em dia sem expediente é prorrogado para o primeiro dia útil seguinte.")


@dataclass(frozen=True)
class Section:
    """One list of a report: its heading and its rows, one text per column of `columns` (by default the
    engine's COLUMNS); `widths` their relative widths (None: WIDTHS for COLUMNS, else after the content);
    `note`, when given, a paragraph printed under the heading. Any issued PDF built from sections prints them
    with `print_sections` (this report; the history of a case, valuation.proceedings.reports)."""

    heading: str
    rows: tuple[tuple[str, ...], ...]
    columns: tuple[str, ...] = COLUMNS
    widths: tuple[float, ...] | None = None
    note: str = ""


def _row(r: dict[str, object]) -> tuple[str, ...]:
    subject = " / ".join(str(v) for v in (r.get("contract_code"), r.get("wreck")) if v) or "—"
    day, moved = r.get("due"), r.get("moved_from")
    due = due_text(day, moved if isinstance(moved, date) else None) if isinstance(day, date) \
        else "sem data (prazo suspenso)"
    return (str(r["label_pt"]), subject, str(r.get("organisation") or "—"), due,
            str(r["reason"]), str(r["basis"]))


def office_sections(frame: pd.DataFrame) -> list[Section]:
    """The overdue, due-soon and suspended lists of a deadlines frame (engine.compute_deadlines), by due date."""
    sections = []
    for state in REPORT_STATES:
        part = frame[frame["state"] == state] if not frame.empty else frame
        if not part.empty:
            part = part.sort_values(["due", "label_pt"], kind="stable", na_position="last")
        sections.append(Section(f"{STATE_HEADINGS[state]} ({len(part)})",
                                tuple(_row(r) for r in part.to_dict("records"))))
    return sections


def office_label(store: Store, office: str) -> str:
    """How an issued document names an office: 'Capitania dos Portos do Rio de Janeiro (CPRJ)', or the code
    alone when the office is not registered."""
    name = store.scalar("SELECT name FROM offices WHERE code = ?", [office])
    return f"{name} ({office})" if name else office


def office_deadlines_pdf(store: Store, user: Principal, *, office: str, as_of: date,
                         frame: pd.DataFrame | None = None, extra: Iterable[Section] = (),
                         generated_at: datetime | None = None) -> bytes:
    """The PDF of `office`'s deadlines on `as_of` (DPC: every company's contracts of the office). `frame` reuses
    a compute_deadlines result of that office; `extra` sections follow the engine's."""
    require(user, "read_all_deadlines")   # the office's deadlines of every company
    mine, params = office_match(user, "code")         # an office officer: its own office alone
    info = store.fetch_one(f"SELECT code, name FROM offices WHERE code = ? AND {mine}", [office, *params])
    if info is None:
        raise NotFound(f"Capitania/Delegacia/Agência {office} não encontrada.", what="office", key=office)
    df = frame if frame is not None else compute_deadlines(store, user, as_of=as_of, office=office)
    if not df.empty:
        df = df[df["office_code"] == office]
    stamp = registry.new_stamp()
    pdf = render(f"{info['name']} ({office})", as_of, [*office_sections(df), *extra], generated_at=generated_at,
                 stamp=stamp)
    return registry.issue(store, user.username, stamp, pdf, kind="office_deadlines",
                          record=("offices", None, f"{office}|{as_of.isoformat()}"),
                          office=f"{info['name']} ({office})")


def render(office_label: str, as_of: date, sections: Sequence[Section], *,
           generated_at: datetime | None = None, stamp: Stamp | None = None) -> bytes:
    """The report's PDF from its sections (landscape A4, the product's header and footer)."""
    report = PdfReport("Prazos da Organização Militar", f"{office_label} — situação em {as_of:%d/%m/%Y}",
                       orientation="L", generated_at=generated_at, stamp=stamp)
    report.key_values([("Organização Militar", office_label), ("Data de referência", as_of),
                       ("Prazos listados", "; ".join(s.heading for s in sections))])
    report.paragraph(COUNTING)
    print_sections(report, sections)
    return report.bytes()


def print_sections(report: PdfReport, sections: Iterable[Section]) -> PdfReport:
    """Each section on `report`: its heading, its note, its table (an empty one reads "Nenhum registro.")."""
    for section in sections:
        report.heading(section.heading)
        if section.note:
            report.paragraph(section.note)
        widths = section.widths or (WIDTHS if section.columns == COLUMNS else None)
        report.table(list(section.columns), section.rows, col_widths=None if widths is None else list(widths))
    return report
