"""The documents of a decision's appeals (issue 26 §§2 and 4): the decision and each appeal with its instance,
timeliness, suspensive effect, steps and outcome as sections of a case's history PDF
(`valuation.deadlines.office_report.Section`), and the history of one decision as an issued PDF of its own
(kind 'case_history', its NUP in every footer). Access as `appeal_records.appeals_of`: DPC every case, an
explorer its own company's (another's answers as missing)."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from valuation.authenticity import registry
from valuation.core import law
from valuation.core.errors import NotFound
from valuation.core.money import format_date_br
from valuation.db.access import Principal
from valuation.db.annulments import annulment_text
from valuation.deadlines.office_report import Section, office_label, print_sections
from valuation.exports import PdfReport
from valuation.proceedings import appeal_records as ar

if TYPE_CHECKING:
    from valuation.db.store import Store

APPEAL_COLUMNS = ("Data", "Recurso / etapa", "Resultado", "Fundamento / observação")
APPEAL_WIDTHS = (1.2, 4.2, 1.6, 4.0)
PATH_NOTE = ("Recurso em 10 dias da ciência ou da divulgação oficial (Lei 9.784/1999 art. 59; Lei 7.542/1986 art. "
             "33), sem efeito suspensivo salvo concessão motivada (art. 61); reconsideração em 5 dias (art. 56 §1); "
             "alegações dos demais interessados em 5 dias úteis (art. 62); decisão em 30 dias do recebimento, "
             "prorrogáveis por igual período com justificativa (art. 59 §§1–2); no máximo três instâncias — a "
             "autoridade que decidiu e duas acima dela, dois recursos (art. 57); fora do prazo ou exaurida a esfera "
             "administrativa, o recurso não é conhecido (art. 63 I e IV).")


def _appeal_rows(a: dict[str, Any]) -> list[tuple[str, ...]]:
    effect = (f"efeito suspensivo concedido: {a['suspensive_reason']}" if a["suspensive"]
              else f"sem efeito suspensivo ({law.APPEAL_SUSPENSIVE})")
    head = (format_date_br(a["filed_on"]), f"Recurso {a['nup']} — {a['title_pt']}, por {a['appellant']}",
            a["late_pt"] or "no prazo", effect)
    told = ([(format_date_br(a["notified_on"]), f"Ciência da decisão do recurso ({a['notice']})", "—",
              "o prazo do recurso seguinte corre dela (Lei 9.784/1999 art. 59)")] if a.get("notified_on") else [])
    return [head, *((format_date_br(s["day"]), str(s["label"]), str(s["outcome_pt"] or "—"),
                      " — ".join(str(v) for v in (s.get("reason"), s.get("note")) if v) or "—") for s in a["steps"]),
            *((format_date_br(s["day"]), f"{s['label']} (anulada; não conta)", str(s["outcome_pt"] or "—"),
               annulment_text(s["annulment"])) for s in a.get("annulled_steps", ())),
            *told]


def decision_sections(cases: Sequence[dict[str, Any]]) -> list[Section]:
    """One section per decision (`appeal_records.appeals_of` rows): the decision, then each appeal and its steps."""
    out = []
    for d in cases:
        rows: list[tuple[str, ...]] = [(format_date_br(d["decided_on"]), f"Decisão {d['nup']} — {d['kind_pt']}: "
                                        f"{d['summary']}", "—",
                                        f"{d['authority']}; {d['notice']} em {format_date_br(d['notified_on'])}")]
        for a in d["appeals"]:
            rows += _appeal_rows(a)
        out.append(Section(f"Decisão e recursos — situação: {d['state_pt']}", tuple(rows), APPEAL_COLUMNS,
                           APPEAL_WIDTHS, note=PATH_NOTE))
    return out


def request_decision_sections(store: Store, user: Principal, request_id: int, *, as_of: date) -> list[Section]:
    """The sections of the decisions taken on request `request_id` and their appeals (none: no section)."""
    cases = [d for d in ar.appeals_of(store, user, as_of=as_of)
             if d["kind"] == "request" and d["record_id"] == request_id]
    return decision_sections(cases)


def decision_history_pdf(store: Store, user: Principal, decision_id: int, *, as_of: date,
                         generated_at: datetime | None = None) -> bytes:
    """The history of one decision and its appeals on `as_of` as an issued PDF (kind 'case_history', the
    decision's NUP in every footer). NotFound for a decision the user may not read."""
    found = ar.appeals_of(store, user, as_of=as_of, decision_id=decision_id)
    if not found:
        raise NotFound(f"Decisão {decision_id} não encontrada.", what="administrative_decision", key=decision_id)
    d = found[0]
    office = str(d["office_code"])
    label = office_label(store, office)
    nup = d["nup"] if d["nup"][:1].isdigit() else None
    stamp = registry.new_stamp(nup=nup)
    report = PdfReport("Histórico do processo administrativo", f"Decisão {d['nup']} e seus recursos — situação em "
                       f"{format_date_br(as_of)}", orientation="L", generated_at=generated_at, stamp=stamp)
    report.key_values([("NUP", d["nup"]), ("Decisão", d["kind_pt"]), ("Organização Militar", label),
                       ("Naufrágio", " — ".join(str(v) for v in (d["wreck"], d.get("wreck_name")) if v) or "—"),
                       ("Empresa interessada", d.get("organisation") or "—"), ("Autoridade", d["authority"]),
                       ("Decidida em", d["decided_on"]), ("Ciência", f"{d['notice']} em "
                                                                     f"{format_date_br(d['notified_on'])}"),
                       ("Situação", d["state_pt"]), ("Etapa atual",
                                                     d["appeals"][-1]["stage_pt"] if d["appeals"] else "sem recurso"),
                       ("Data de referência", as_of)])
    print_sections(report, decision_sections([d]))
    pdf = report.bytes()
    return registry.issue(store, user.username, stamp, pdf, kind="case_history",
                          record=("administrative_decisions", int(d["id"]), None), office=label)
