"""The annual wrecks map of an office (NORMAM-10 0404, model of Anexo 4-B), as PDF or XLSX.

0404: each CP, DL or AG sends DPC (copy to DHN and DPHCM), by 15 February, the map of
the vessels wrecked *during the previous year* in its jurisdiction; when there was no
casualty, the office transmits the message "NEGAT SINISTRO BT" instead.

Rows: the wrecks registered at the office whose casualty is dated (to the day, month or
year) in the year mapped. Anexo 4-B only says "Preencher conforme especificado no item
0403", so the columns are those of 0403: the vessel, the casualty, the position in degrees,
minutes and hundredths with its datum (or "posição aproximada"), the situation (grounded
or sunk, visible at high/low water), the nautical signalling and whether it will be
removed (a removal/demolition contract on record, or an order of the Authority, Lei 7.542
art. 5). The annex's title speaks of the wrecks "existentes … no último mês do ano", while 0404
speaks of those wrecked during the year: we follow 0404, the operative text.

Positions are confidential (rules.md §8): only DPC (cleared for every position) may
produce the map. `deadline` is the map's due date (`valuation.deadlines.rules.wreck_map`, with the
day of the NORMAM in force on 1 January of the year it is due in), and `sent_on` the map-sent event
recorded for it, if any.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from valuation.authenticity import registry
from valuation.core.casualty import casualty_text
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.positions import Coordinate, format_coordinate
from valuation.db.access import Principal, office_match, require
from valuation.deadlines import rules as dl
from valuation.deadlines.rows import ParameterBook
from valuation.deadlines.views import due_text
from valuation.deadlines.vocabulary import CURRENT_EVENTS, WRECK_MAP_SENT
from valuation.exports import PdfReport, to_xlsx_bytes

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store

NEGATIVE_MESSAGE = "NEGAT SINISTRO BT"   # NORMAM-10 0404, verbatim
COLUMNS: tuple[str, ...] = ("Nº", "Embarcação", "Tipo", "Bandeira", "Casco", "Data do sinistro", "Natureza do sinistro",
                            "Latitude", "Longitude", "Datum", "Posição", "Situação", "Visível na preamar",
                            "Visível na baixa-mar", "Sinalização náutica", "Profundidade (m)", "Remoção")
_PDF_COLUMNS = ("Nº", "Embarcação", "Data do sinistro", "Natureza do sinistro", "Latitude", "Longitude", "Datum",
                "Situação", "Visível (preamar / baixa-mar)", "Sinalização náutica", "Remoção")


@dataclass(frozen=True)
class WreckMap:
    """One office's map of one year. `negative` when the year had no casualty (then `message`
    is NEGAT SINISTRO BT and `rows` is empty)."""

    office_code: str
    office_name: str
    year: int
    rows: pd.DataFrame
    negative: bool
    message: str | None
    deadline: dl.Deadline
    sent_on: date | None
    depths: tuple[Any, ...] = ()  # Profundidade (m) per row as a number (None when unknown), for the XLSX

    @property
    def deadline_text(self) -> str:
        """'18/02/2026, prorrogado de 15/02/2026 (domingo)' (NORMAM-10 0404; Lei 9.784/1999 art. 66 §1)."""
        return due_text(self.deadline.due, self.deadline.moved_from)


def _yes_no(v: object) -> str:
    return "sim" if v is True else "não" if v is False else "—"


def _depth(v: Any) -> str:
    return "—" if v is None else f"{v:.2f}".replace(".", ",")


def wreck_map(store: Store, user: Principal, *, office: str, year: int) -> WreckMap:
    """The Anexo 4-B map of `office` for `year` (dpc only)."""
    import pandas as pd

    require(user, "read_all_deadlines")  # DPC: the positions are confidential (NORMAM-10 0105)
    if isinstance(year, bool) or not isinstance(year, int) or not 1900 <= year <= 9998:
        raise InputError(Problem("year", "Ano do mapa: informe um ano de 1900 a 9998."))
    mine, params = office_match(user, "code")         # an office officer: its own office alone
    info = store.fetch_one(f"SELECT code, name FROM offices WHERE code = ? AND {mine}", [office, *params])
    if info is None:
        raise NotFound(f"Capitania/Delegacia/Agência {office} não encontrada.", what="office", key=office)
    wrecks = store.fetch(
        "SELECT w.id, w.code, w.name, w.vessel_type, w.flag, w.hull_material, w.casualty_year, w.casualty_month, "
        "w.casualty_day, w.casualty_precision, w.casualty_type, w.lat_deg, w.lat_min, w.lat_hem, w.lon_deg, "
        "w.lon_min, w.lon_hem, w.datum, w.position_approximate, w.situation, w.visible_high_tide, "
        "w.visible_low_tide, w.signalling, w.depth_m, "
        "(SELECT string_agg(c.kind || ' autorizada (' || c.code || ')', '; ' ORDER BY c.code) FROM contracts c "
        " WHERE c.wreck_id = w.id AND c.kind IN ('remoção', 'demolição') "
        " AND c.status IN ('vigente', 'suspenso', 'concluído')) AS removal, "
        "(SELECT string_agg(r.kind || ' determinada (' || r.act || ')', '; ' ORDER BY r.id) FROM removal_orders r "
        " WHERE r.wreck_id = w.id AND r.ordered_on <= make_date(?, 12, 31) "
        " AND coalesce(r.end_kind, '') <> 'revogada') AS ordered "
        "FROM wrecks w WHERE w.office_code = ? AND w.casualty_year = ? "
        "AND w.casualty_precision IN ('day', 'month', 'year') "
        "ORDER BY w.casualty_month NULLS LAST, w.casualty_day NULLS LAST, w.code", [year, office, year])
    records = []
    for n, w in enumerate(wrecks, 1):
        lat = format_coordinate(Coordinate(w["lat_deg"], w["lat_min"], w["lat_hem"]))
        lon = format_coordinate(Coordinate(w["lon_deg"], w["lon_min"], w["lon_hem"]))
        records.append((
            n, w["name"], w["vessel_type"] or "—", w["flag"] or "—", w["hull_material"],
            casualty_text(w["casualty_year"], w["casualty_month"], w["casualty_day"], w["casualty_precision"]),
            w["casualty_type"], lat, lon, w["datum"], "posição aproximada" if w["position_approximate"] else "exata",
            w["situation"], _yes_no(w["visible_high_tide"]), _yes_no(w["visible_low_tide"]),
            w["signalling"] or "não sinalizada", _depth(w["depth_m"]),
            "; ".join(x for x in (w["removal"], w["ordered"]) if x) or "sem remoção autorizada",
        ))
    rows = pd.DataFrame(records, columns=list(COLUMNS), dtype=object)
    start = date(year + 1, 1, 1)   # the map's period: the parameter and calendar in force on 1 January
    book = ParameterBook.load(store)
    deadline, _ = book.deadline("wreck_map", year, office, start)
    sent_on = store.scalar(f"SELECT min(event_date) FROM {CURRENT_EVENTS} e WHERE kind = ? "
                           "AND office_code = ? AND reference = ?", [WRECK_MAP_SENT, office, str(year)])
    negative = not records
    return WreckMap(office, info["name"], year, rows, negative, NEGATIVE_MESSAGE if negative else None, deadline,
                    sent_on, tuple(w["depth_m"] for w in wrecks))


def _title(m: WreckMap) -> tuple[str, str]:
    return ("Mapa das embarcações naufragadas/encalhadas (NORMAM-10 (ed. 2002), Anexo 4-B)",
            f"{m.office_name} ({m.office_code}) — sinistros ocorridos em {m.year}")


def wreck_map_pdf(store: Store, user: Principal, *, office: str, year: int,
                  generated_at: datetime | None = None) -> bytes:
    """The map as a landscape A4 PDF; the NEGAT SINISTRO BT message when the year had none."""
    m = wreck_map(store, user, office=office, year=year)
    title, subtitle = _title(m)
    stamp = registry.new_stamp()
    report = PdfReport(title, subtitle, orientation="L", generated_at=generated_at, stamp=stamp)
    report.key_values([
        ("Organização Militar", f"{m.office_name} ({m.office_code})"),
        ("Ano dos sinistros", str(m.year)),
        ("Destino", "DPC, com cópia para a DHN e a DPHCM (NORMAM-10 (ed. 2002) 0404)"),
        ("Prazo de envio", m.deadline_text),
    ])
    if m.negative:
        report.heading("Mensagem")
        report.paragraph(NEGATIVE_MESSAGE)
        report.paragraph(f"Não ocorreu sinistro na jurisdição de {m.office_code} em {m.year} (NORMAM-10 (ed. 2002) "
                         f"0404).")
    else:
        report.heading(f"Embarcações naufragadas em {m.year}: {len(m.rows)}")
        data = []
        for cells in m.rows.itertuples(index=False, name=None):
            by = dict(zip(COLUMNS, cells))
            data.append((by["Nº"], f"{by['Embarcação']} ({by['Tipo']}, {by['Bandeira']}, casco {by['Casco']})",
                         by["Data do sinistro"], by["Natureza do sinistro"], by["Latitude"], by["Longitude"],
                         by["Datum"] + (" — aprox." if by["Posição"] != "exata" else ""), by["Situação"],
                         f"{by['Visível na preamar']} / {by['Visível na baixa-mar']}", by["Sinalização náutica"],
                         by["Remoção"]))
        report.table(list(_PDF_COLUMNS), data, col_widths=[0.6, 3.3, 1.6, 1.6, 1.6, 1.7, 1.4, 1.8, 1.8, 1.9, 2.1])
        report.paragraph("Posições em graus, minutos e centésimos de minuto, com o datum de referência "
                         "(NORMAM-10 (ed. 2002) 0403 a). Documento de circulação restrita: contém posições sigilosas.")
    return registry.issue(store, user.username, stamp, report.bytes(), kind="wreck_map",
                          record=("offices", None, f"{m.office_code}|{m.year}"),
                          office=f"{m.office_name} ({m.office_code})")


def wreck_map_xlsx(store: Store, user: Principal, *, office: str, year: int) -> bytes:
    """The map as an XLSX workbook: sheet 'Anexo 4-B' (the rows, or the NEGAT SINISTRO BT message
    when none) and sheet 'Envio' (office, year, due date and its move, sent on). Years and depths
    are numbers and dates are dates, never text."""
    import pandas as pd

    m = wreck_map(store, user, office=office, year=year)
    if m.negative:
        sheet = pd.DataFrame({"Organização Militar": [m.office_code], "Ano": [m.year],
                              "Mensagem": [NEGATIVE_MESSAGE]}, dtype=object)
    else:
        sheet = m.rows.copy()
        sheet["Profundidade (m)"] = list(m.depths)
    moved = m.deadline.moved_from
    sending = pd.DataFrame({
        "Organização Militar": [f"{m.office_name} ({m.office_code})"], "Ano dos sinistros": [m.year],
        "Prazo de envio": [m.deadline.due],
        "Prorrogação (Lei 9.784/1999 art. 66 §1)": [m.deadline_text.partition(", ")[2] if moved else "sem prorrogação"],
        "Enviado em": [m.sent_on if m.sent_on is not None else "ainda não enviado"],
        "Destino": ["DPC, com cópia para a DHN e a DPHCM (NORMAM-10 (ed. 2002) 0404)"],
    }, dtype=object)
    return to_xlsx_bytes({"Anexo 4-B": sheet, "Envio": sending}, money_columns=(), date_columns=())
