"""PDF reports (fpdf2): a small document builder for minutes, statements and listings.

    report = PdfReport("Ata da Comissão de Avaliação", "Contrato 12/2024")
    report.heading("1. Itens avaliados")
    report.table(["Item", "Descrição", "Valor"], rows, col_widths=[1, 5, 2])
    report.totals([("Total", Decimal("12345.60"))])
    report.signature_lines([("Fulano de Tal", "Presidente"), "Beltrano"])
    pdf_bytes = report.bytes()

Every page has a footer "Gerado em dd/mm/aaaa às HH:MM (horário de Brasília)" and
"Página X de Y";
pages after the first repeat the title at the top, and a table that breaks
across pages repeats its header row.

User text is drawn literally: fpdf2's markdown is off and no HTML is
interpreted, so ``**x**`` and ``<b>x</b>`` print as typed. Control characters
are dropped (CR/LF become line breaks where a block may wrap). Text is set in
the bundled DejaVu Sans (``valuation/fonts``), which covers Portuguese and the
usual symbols (ç ã õ º ª § € — “ ”); a character outside the font (CJK, for
instance) is left out by fpdf2 with a logged warning.

Values in key/value rows, tables and totals are shown by `display_text`:
``Decimal`` as money ('R$ 1.234,56'), dates 'dd/mm/aaaa', None '—'. Pass a
``str`` for anything else (a share: `valuation.core.money.format_share`).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from importlib import resources
from typing import Literal

from fpdf import FPDF, FontFace
from fpdf.enums import Align, TableBordersLayout, TableCellFillMode, XPos, YPos

from valuation.core.money import format_date_br
from valuation.exports._values import clean_text, display_text, is_missing, is_number
from valuation.exports.stamp import BAND_MM, Stamp, draw, finish

_FONT = "DejaVu"
_FONT_FILES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf"}
# Placeholder for the page total, replaced by fpdf2 when the document closes.
# It is made of DEL characters, which `clean_text` removes from all user text,
# so no user string can ever be mistaken for it; its three characters reserve
# the width of three digits.
_PAGE_TOTAL_ALIAS = "\x7fN\x7f"

_MARGIN = 15.0
_BOTTOM_MARGIN = 20.0
_BODY_SIZE = 10.0
_TABLE_SIZE = 8.5
_TABLE_MIN_SIZE = 6.5   # a wide table is set down to this size before a word has to break
_LINE = 5.0
_GREY = (90, 90, 90)
_HEAD_FILL = (220, 227, 238)
_ZEBRA_FILL = (245, 246, 248)
_BOLD = FontFace(emphasis="BOLD")
# Default column widths follow the content length of the first rows, within bounds.
_WIDTH_SAMPLE_ROWS = 200
_WIDTH_WEIGHT_MIN, _WIDTH_WEIGHT_MAX = 4, 40

Alignment = Literal["L", "C", "R", "LEFT", "CENTER", "RIGHT"]
SignatureEntry = str | tuple[str, str]


TIMEZONE_LABEL = "horário de Brasília"


def _brasilia_now() -> datetime:
    from valuation.core import clock

    return brasilia_time(clock.now_utc())


def brasilia_time(moment: datetime) -> datetime:
    """A stored timestamp (naive UTC, the store's convention; or aware) as the office's wall time (naive):
    `core.clock.brasilia`, the one conversion."""
    from valuation.core import clock

    return clock.brasilia(moment)


def brasilia_text(moment: datetime | None) -> str:
    """'30/11/2026 08:00 (horário de Brasília)' for a stored timestamp; None → '—' (`core.clock.moment_text`)."""
    from valuation.core import clock

    if moment is None:
        return "—"
    return clock.moment_text(moment, zone=True)


class _Canvas(FPDF):
    """FPDF with the report's running header and footer."""

    def __init__(
        self,
        *,
        orientation: str,
        title: str,
        subtitle: str | None,
        organisation: str | None,
        generated_at: datetime,
        stamp: Stamp | None = None,
    ) -> None:
        super().__init__(orientation=orientation, unit="mm", format="A4")
        self.stamp = stamp
        self.crc_slots: dict[int, tuple[float, float]] = {}
        self.report_title = title
        self.report_subtitle = subtitle
        self.organisation = organisation
        self.generated_at = generated_at
        fonts = resources.files("valuation").joinpath("fonts")
        for style, filename in _FONT_FILES.items():
            with resources.as_file(fonts.joinpath(filename)) as path:
                self.add_font(_FONT, style, str(path))
        self.alias_nb_pages(_PAGE_TOTAL_ALIAS)
        self.set_margins(_MARGIN, _MARGIN, _MARGIN)
        self.set_auto_page_break(True, margin=_BOTTOM_MARGIN + (BAND_MM if stamp else 0))
        self.set_title(title)
        self.set_lang("pt-BR")
        self.set_creator("valuation")
        if organisation:
            self.set_author(organisation)
        self.set_creation_date(generated_at)

    def header(self) -> None:
        if self.page_no() == 1:
            if self.organisation:
                self.set_font(_FONT, "B", 8.5)
                self.set_text_color(*_GREY)
                self.multi_cell(0, 4.5, self.organisation.upper(), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
                self.ln(1)
            self.set_text_color(0)
            self.set_font(_FONT, "B", 15)
            self.multi_cell(0, 7, self.report_title, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            if self.report_subtitle:
                self.set_font(_FONT, "", 11)
                self.multi_cell(0, 5.5, self.report_subtitle, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
            self.ln(1.5)
        else:
            self.set_font(_FONT, "", 8)
            self.set_text_color(*_GREY)
            self.cell(0, 4.5, _fit(self, self.report_title, self.epw), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        self.set_draw_color(*_GREY)
        self.line(self.l_margin, self.get_y(), self.w - self.r_margin, self.get_y())
        self.ln(4)
        self.set_text_color(0)
        self.set_draw_color(0)
        self.set_font(_FONT, "", _BODY_SIZE)

    def footer(self) -> None:
        if self.stamp is not None:
            self.crc_slots[self.page_no()] = draw(self, self.stamp, _FONT, _fit)
        self.set_y(-14)
        self.set_draw_color(*_GREY)
        self.line(self.l_margin, self.get_y(), self.w - self.r_margin, self.get_y())
        self.ln(1.5)
        self.set_font(_FONT, "", 8)
        self.set_text_color(*_GREY)
        at = self.generated_at
        stamp = f"Gerado em {format_date_br(at.date())} às {at:%H:%M} ({TIMEZONE_LABEL})"
        half = self.epw / 2
        self.cell(half, 4.5, stamp, align="L")
        self.cell(half, 4.5, f"Página {self.page_no()} de {_PAGE_TOTAL_ALIAS}", align="R")
        self.set_text_color(0)
        self.set_draw_color(0)


def _fit(pdf: FPDF, text: str, width: float) -> str:
    """`text` cut with '…' so that it fits on one line of `width`."""
    if pdf.get_string_width(text) <= width:
        return text
    while text and pdf.get_string_width(text + "…") > width:
        text = text[:-1]
    return text + "…"


class PdfReport:
    """An A4 report built block by block; `bytes()` returns the finished PDF.

    ``title`` and ``subtitle`` open the first page (below ``organisation``, if
    any); ``orientation`` is "P" (portrait) or "L" (landscape, for wide tables);
    ``generated_at`` is the time printed in the footer, followed by "(horário de
    Brasília)" (default: now; an aware datetime is converted to Brasília time, a
    naive one is printed as given — convert stored naive-UTC timestamps with
    `brasilia_time`; pass it for reproducible files). ``stamp`` (`exports.stamp.Stamp`) makes it an issued
    document: its verification code, CRC, address and QR on every page. Each block method returns the report.
    """

    def __init__(
        self,
        title: str,
        subtitle: str | None = None,
        *,
        orientation: Literal["P", "L"] = "P",
        generated_at: datetime | None = None,
        organisation: str | None = "Marinha do Brasil — Diretoria de Portos e Costas",
        stamp: Stamp | None = None,
    ) -> None:
        if orientation not in ("P", "L"):
            raise ValueError("orientation must be 'P' or 'L'")
        self._pdf = _Canvas(
            orientation=orientation,
            title=clean_text(title, multiline=False),
            subtitle=None if subtitle is None else clean_text(subtitle, multiline=False),
            organisation=None if organisation is None else clean_text(organisation, multiline=False),
            generated_at=_brasilia_now() if generated_at is None
            else brasilia_time(generated_at) if generated_at.tzinfo is not None else generated_at,
            stamp=stamp,
        )
        self._pdf.add_page()
        self._output: bytes | None = None

    # -- blocks ---------------------------------------------------------------

    def heading(self, text: str) -> PdfReport:
        """A bold section heading; moved to the next page rather than left alone at the bottom."""
        pdf = self._open()
        if pdf.will_page_break(20):
            pdf.add_page()
        pdf.ln(2)
        pdf.set_font(_FONT, "B", 12)
        pdf.multi_cell(0, 6, clean_text(text, multiline=False), markdown=False, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(1.5)
        return self

    def paragraph(self, text: str) -> PdfReport:
        """Running text; line breaks in `text` are kept, long words are wrapped."""
        pdf = self._open()
        pdf.set_font(_FONT, "", _BODY_SIZE)
        pdf.multi_cell(0, _LINE, _glue(clean_text(text)), markdown=False, align="L", new_x=XPos.LMARGIN,
                       new_y=YPos.NEXT)
        pdf.ln(2)
        return self

    def key_values(self, rows: Iterable[tuple[str, object]]) -> PdfReport:
        """Label/value pairs without borders ('Contrato' | '12/2024'); labels in bold."""
        pdf = self._open()
        pairs = [(clean_text(k, multiline=False), _glue(display_text(v))) for k, v in rows]
        if not pairs:
            return self
        pdf.set_font(_FONT, "", _BODY_SIZE)
        with pdf.table(
            borders_layout=TableBordersLayout.NONE,
            first_row_as_headings=False,
            col_widths=(1, 2.4),
            text_align=("LEFT", "LEFT"),
            line_height=_LINE,
            padding=(0.6, 1),
            markdown=False,
        ) as table:
            for key, value in pairs:
                row = table.row()
                row.cell(key, style=_BOLD)
                row.cell(value)
        pdf.ln(2)
        return self

    def table(
        self,
        columns: Sequence[str],
        rows: Iterable[Sequence[object]],
        col_widths: Sequence[float] | None = None,
        align: Sequence[Alignment] | None = None,
    ) -> PdfReport:
        """A bordered table over the full width; its header row repeats on every page.

        ``col_widths`` are relative weights (``[1, 4, 2]``); by default they follow
        the content. ``align`` gives each column "L", "C" or "R"; by default numbers
        and money are right-aligned, dates centred, the rest left. Every row must
        have one value per column. An empty table shows "Nenhum registro.".
        """
        pdf = self._open()
        header = [clean_text(c, multiline=False) for c in columns]
        data = [tuple(r) for r in rows]
        n = len(header)
        if n == 0:
            raise ValueError("a table needs at least one column")
        for i, row in enumerate(data):
            if len(row) != n:
                raise ValueError(f"row {i} has {len(row)} values, expected {n}")
        if col_widths is not None and len(col_widths) != n:
            raise ValueError(f"col_widths has {len(col_widths)} entries, expected {n}")
        if align is not None and len(align) != n:
            raise ValueError(f"align has {len(align)} entries, expected {n}")
        texts = [[_glue(display_text(v)) for v in row] for row in data]
        aligns = tuple(Align.coerce(a) for a in (align or _default_alignment(data, n)))
        widths = tuple(col_widths) if col_widths is not None else _default_widths(header, texts)
        widths, size = _whole_words(pdf, header, texts, widths)
        pdf.set_font(_FONT, "", size)
        with pdf.table(
            col_widths=widths,
            text_align=aligns,
            headings_style=FontFace(emphasis="BOLD", fill_color=_HEAD_FILL),
            cell_fill_mode=TableCellFillMode.ROWS,
            cell_fill_color=_ZEBRA_FILL,
            line_height=4.2,
            padding=(0.9, 1.2),
            repeat_headings=1,
            markdown=False,
        ) as table:
            head = table.row()
            for title in header:
                head.cell(title)
            for row_texts in texts:
                line = table.row()
                for text in row_texts:
                    line.cell(text)
            if not texts:
                table.row().cell("Nenhum registro.", colspan=n, align="CENTER")
        pdf.set_font(_FONT, "", _BODY_SIZE)
        pdf.ln(3)
        return self

    def totals(self, rows: Iterable[tuple[str, object]]) -> PdfReport:
        """Right-aligned bold totals under a rule: [("Total geral", Decimal("1234.56"))]."""
        pdf = self._open()
        pairs = [(clean_text(k, multiline=False), _glue(display_text(v))) for k, v in rows]
        if not pairs:
            return self
        if pdf.will_page_break(_LINE * len(pairs) + 3):
            pdf.add_page()
        pdf.line(pdf.l_margin + pdf.epw / 2, pdf.get_y(), pdf.w - pdf.r_margin, pdf.get_y())
        pdf.ln(1)
        pdf.set_font(_FONT, "B", _BODY_SIZE)
        with pdf.table(
            borders_layout=TableBordersLayout.NONE,
            first_row_as_headings=False,
            col_widths=(3, 1.2),
            text_align=("RIGHT", "RIGHT"),
            line_height=_LINE,
            padding=(0.4, 1.2),
            markdown=False,
        ) as table:
            for label, value in pairs:
                row = table.row()
                row.cell(label)
                row.cell(value)
        pdf.set_font(_FONT, "", _BODY_SIZE)
        pdf.ln(3)
        return self

    def signature_lines(self, names: Iterable[SignatureEntry]) -> PdfReport:
        """Signature blocks, two per row: a line, the name and (optionally) the role.

        Each entry is a name or a ``(name, role)`` pair. A row of blocks is never
        split across pages.
        """
        pdf = self._open()
        entries = [(e, "") if isinstance(e, str) else (e[0], e[1]) for e in names]
        gap = 12.0
        width = (pdf.epw - gap) / 2
        pdf.ln(4)
        for start in range(0, len(entries), 2):
            pair = entries[start : start + 2]
            if pdf.will_page_break(34):
                pdf.add_page()
            line_y = pdf.get_y() + 16
            bottom = line_y
            for i, (name, role) in enumerate(pair):
                x = pdf.l_margin + i * (width + gap)
                pdf.line(x + 4, line_y, x + width - 4, line_y)
                pdf.set_xy(x, line_y + 1)
                pdf.set_font(_FONT, "B", _BODY_SIZE)
                pdf.multi_cell(width, _LINE, clean_text(name, multiline=False), align="C", markdown=False,
                               new_x=XPos.LEFT, new_y=YPos.NEXT)
                if role:
                    pdf.set_font(_FONT, "", 9)
                    pdf.multi_cell(width, 4.5, clean_text(role, multiline=False), align="C", markdown=False,
                                   new_x=XPos.LEFT, new_y=YPos.NEXT)
                bottom = max(bottom, pdf.get_y())
            pdf.set_xy(pdf.l_margin, bottom + 4)
        pdf.set_font(_FONT, "", _BODY_SIZE)
        return self

    def image_grid(self, images: Iterable[tuple[bytes, str]], per_row: int = 4) -> PdfReport:
        """JPEG/PNG images (thumbnails) in rows of ``per_row``, each with its caption below; a row is
        never split across pages (issue 16: photo sheets of the minutes and statements)."""
        import io

        pdf = self._open()
        gap = 4.0
        width = (pdf.epw - gap * (per_row - 1)) / per_row
        cells = list(images)
        for start in range(0, len(cells), per_row):
            row = cells[start:start + per_row]
            height = width * 0.75
            if pdf.will_page_break(height + 12):
                pdf.add_page()
            top = pdf.get_y()
            for i, (data, caption) in enumerate(row):
                x = pdf.l_margin + i * (width + gap)
                pdf.image(io.BytesIO(data), x=x, y=top, w=width, h=height, keep_aspect_ratio=True)
                pdf.set_xy(x, top + height + 0.8)
                pdf.set_font(_FONT, "", 7)
                pdf.multi_cell(width, 3.2, clean_text(caption, multiline=False), align="C", markdown=False,
                               new_x=XPos.LEFT, new_y=YPos.NEXT)
            pdf.set_xy(pdf.l_margin, top + height + 10)
        pdf.set_font(_FONT, "", _BODY_SIZE)
        return self

    # -- output ---------------------------------------------------------------

    def bytes(self) -> bytes:
        """The finished PDF; the report is closed (later blocks raise RuntimeError). A `stamp` sets `stamp.crc`."""
        if self._output is None:
            data = bytes(self._pdf.output())
            self._output = data if self._pdf.stamp is None else finish(data, self._pdf.stamp,
                                                                                self._pdf.crc_slots, self._pdf.h)
        return self._output

    def _open(self) -> _Canvas:
        if self._output is not None:
            raise RuntimeError("the PDF was already rendered by bytes(); build a new PdfReport")
        return self._pdf


def _default_alignment(data: list[tuple[object, ...]], n: int) -> list[str]:
    """Right for numbers/money, centre for dates, left otherwise (from the first value present)."""
    result = []
    for i in range(n):
        sample = next((row[i] for row in data if not is_missing(row[i])), None)
        if is_number(sample):
            result.append("RIGHT")
        elif isinstance(sample, date):
            result.append("CENTER")
        else:
            result.append("LEFT")
    return result


def _default_widths(header: list[str], texts: list[list[str]]) -> tuple[float, ...]:
    """Relative column widths from the longest word-ish content, bounded."""
    weights = []
    for i, title in enumerate(header):
        longest = max(
            [max((len(w) for w in title.split()), default=1) + 2]
            + [len(row[i]) for row in texts[:_WIDTH_SAMPLE_ROWS]]
        )
        weights.append(float(min(_WIDTH_WEIGHT_MAX, max(_WIDTH_WEIGHT_MIN, longest))))
    return tuple(weights)


def _glue(text: str) -> str:
    """'R$' never parts from its amount at a line break (a no-break space; fpdf2 breaks only at spaces
    and soft hyphens, so '1.234,56' and a code such as 'DPC-EX-2015/01-00002' stay whole too)."""
    return text.replace("R$ ", "R$\u00a0")


_WORD_BREAKS = re.compile(r"[ \n]+")   # where fpdf2 may break a line (not at the no-break space)
_CELL_PADDING_MM = 2 * 1.2 + 0.8   # the table's horizontal padding on both sides, and a little air


def _whole_words(pdf: FPDF, header: list[str], texts: list[list[str]],
                 weights: Sequence[float]) -> tuple[tuple[float, ...], float]:
    """Column widths (mm) and font size for a table: the relative `weights`, widened where needed so
    that no word of the first rows (an item code, an amount) is broken inside — the other columns give
    the room, and a table too wide for that is set a little smaller (down to `_TABLE_MIN_SIZE`). When
    even then the words cannot all fit, the widths stay as weighted."""
    total = sum(weights) or 1.0
    width = [pdf.epw * w / total for w in weights]
    size = _TABLE_SIZE
    while True:
        need = _word_widths(pdf, header, texts, size)
        if sum(need) <= pdf.epw:
            break
        if size - 0.5 < _TABLE_MIN_SIZE:
            pdf.set_font(_FONT, "", _BODY_SIZE)
            return tuple(width), _TABLE_SIZE
        size -= 0.5
    pdf.set_font(_FONT, "", _BODY_SIZE)
    fixed: dict[int, float] = {}
    while True:
        free = [i for i in range(len(width)) if i not in fixed]
        room = pdf.epw - sum(fixed.values())
        share = sum(weights[i] for i in free) or 1.0
        for i in free:
            width[i] = room * weights[i] / share
        short = [i for i in free if width[i] < need[i]]
        if not short:
            return tuple(width), size
        for i in short:
            fixed[i] = width[i] = need[i]


def _word_widths(pdf: FPDF, header: list[str], texts: list[list[str]], size: float) -> list[float]:
    """Per column, the width (mm) of its longest unbreakable word at `size` (the header in bold)."""
    need = []
    for i, title in enumerate(header):
        pdf.set_font(_FONT, "B", size)
        longest = max((pdf.get_string_width(w) for w in _WORD_BREAKS.split(title)), default=0.0)
        pdf.set_font(_FONT, "", size)
        for row in texts[:_WIDTH_SAMPLE_ROWS]:
            for word in _WORD_BREAKS.split(row[i]):
                longest = max(longest, pdf.get_string_width(word))
        need.append(longest + _CELL_PADDING_MM)
    return need
