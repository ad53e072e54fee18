"""The minutes (ata) of an assessment round of the Interministerial Commission, as a PDF
in Portuguese (Lei 7.542/1986 art. 20 §3: the commission of experts decides which
items are of artistic, historical or archaeological value and attributes their values,
considering international market prices; art. 21 §2: values checked against national
and international market criteria; NORMAM-10 0303 c 1 I: three Navy and three Ministry
of Culture members, presided by a Navy member).

`round_minutes_pdf(store, user, round_id, generated_at=None)` reads the round through
the store (the same access rules as the rounds: the Commission and dpc; explorers and
the admin are refused) and lays out, with `valuation.exports.PdfReport` (DejaVu fonts,
user text drawn literally):

1. header: contract, act, explorer, wreck, round number, opened/closed/decided/published,
   president;
2. the members who took part (name, body Marinha / Ministério da Cultura, entries);
3. the policy frozen in the round (method, quorum, spread threshold);
4. the items: code, description, votes for/against, decided classification, value R$,
   spread, flagged — the decision in force in this round where there is one, else the
   stored consensus marked "(consenso)"; up to `MAX_DETAIL_ITEMS` items in detail (by
   code), the rest summarised by SQL aggregates, and the PDF says so;
5. the president's decisions that differ from the consensus, with their reasons;
6. the flagged items (up to `MAX_FLAGGED_LISTED`, the total always given);
7. the panel's agreement (Krippendorff's alpha of the votes, ICC(2,1) of the
   log-values — descriptive, never used in a decision);
8. signature lines for every member.

Only after the close: while the round is open the members' values are secret (Delphi)
and there is nothing to record yet (ConflictError).
"""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.authenticity import registry
from valuation.commission import derived
from valuation.commission.agreement_queries import agreement
from valuation.commission.rounds import Round, get_round
from valuation.core import clock, law
from valuation.core.errors import ConflictError
from valuation.core.money import format_brl, format_count
from valuation.db.access import COMMISSION_BODY_LABELS as BODY_LABELS
from valuation.db.access import Principal, require
from valuation.exports import TIMEZONE_LABEL, PdfReport, brasilia_text
from valuation.notices import events
from valuation.policies.values import policy_in_force

if TYPE_CHECKING:
    from valuation.db.store import Store

MAX_DETAIL_ITEMS = 400
MAX_FLAGGED_LISTED = 200
MINUTES_OFFICE = "Comissão de peritos (Lei 7.542/1986, art. 20 §3)"
MAX_OVERRIDES_LISTED = 100
METHOD_LABELS = {"median": "mediana", "mean": "média", "trimmed_mean": "média aparada (sem o maior e o menor valor)"}
BASIS = ("Lei 7.542/1986, art. 20 §3 (classificação e atribuição de valores pela comissão de peritos, "
         "considerando os preços do mercado internacional) e art. 21 §2 (critérios dos mercados nacional e "
         "internacional); NORMAM-10 (ed. 2002), item 0303 c 1 I (composição e presidência da Comissão).")


def _class(hist: object) -> str:
    return "histórico" if hist is True else "não histórico" if hist is False else "indefinido"


def _spread(v: Any) -> str:
    if v is None or (isinstance(v, float) and v != v):
        return "—"
    return f"{float(v) * 100:.1f}".replace(".", ",") + " %"


def _when(v: datetime | None) -> str:
    """A stored timestamp (naive UTC) in Brasília time, saying so."""
    return brasilia_text(v)


def _float(v: float | None, places: int = 3) -> str:
    return "—" if v is None else f"{v:.{places}f}".replace(".", ",")


def _items_sql(tail: str = "") -> str:
    """Every item of the round with its consensus and the decision in force in this round
    (parameters: round_id, round_id, then those of `tail`)."""
    return f"""
        WITH d AS (SELECT * FROM decisions WHERE round_id = ?
                   QUALIFY row_number() OVER (PARTITION BY item_id ORDER BY id DESC) = 1)
        SELECT i.item_code, i.description, ic.votes_for, ic.votes_against, ic.historical AS c_hist,
               ic.decided_by, ic.value_brl AS c_value, ic.median_brl, ic.spread, ic.flagged,
               d.id IS NOT NULL AS decided, d.historical AS d_hist, d.value_brl AS d_value, d.basis
        FROM round_items ri JOIN items i ON i.id = ri.item_id
        JOIN item_consensus ic ON ic.round_id = ri.round_id AND ic.item_id = ri.item_id
        LEFT JOIN d ON d.item_id = ri.item_id
        WHERE ri.round_id = ? {tail}"""


def quorum_basis(store: Store, rnd: Round) -> str | None:
    """The basis of the quorum policy the round froze when it opened (the policy in force that day,
    `policies.values`); None when the value in force that day is not the round's (a change recorded later
    the same day)."""
    state = policy_in_force(store, "quorum", as_of=clock.brasilia(rnd.opened_at).date())
    return state.basis if int(state.value) == rnd.quorum else None


def quorum_text(quorum: int, basis: str | None) -> str:
    """'4 de 6 membros votantes (<the policy's basis>)' — the quorum the round froze and its own basis."""
    where = basis or "política de quórum em vigor na abertura da rodada"
    return f"{quorum} de {law.COMMISSION_SIZE.value} membros votantes ({where})"


def minutes_data(store: Store, user: Principal, round_id: int) -> dict[str, Any]:
    """Everything the minutes print, read with the user's rights (see the module docstring)."""
    require(user, "make_minutes")
    rnd = get_round(store, user, round_id)
    if rnd.status == "aberta":
        raise ConflictError(f"A ata da rodada {rnd.number} do contrato {rnd.contract_code} só é lavrada depois do "
                            f"encerramento: enquanto a rodada está aberta, os valores de cada membro são sigilosos.")
    contract = store.fetch_one(
        "SELECT c.code, c.kind, c.act, c.act_number, o.name AS organisation, w.code AS wreck_code, w.name AS wreck "
        "FROM contracts c JOIN wrecks w ON w.id = c.wreck_id JOIN organisations o ON o.id = c.organisation_id "
        "WHERE c.id = ?", [rnd.contract_id]) or {}
    president = store.fetch_one("SELECT full_name, commission_body FROM users WHERE id = ?", [rnd.president_id])
    members = store.fetch(
        """SELECT u.id, u.full_name, u.commission_body, u.id = ? AS president,
                  (SELECT count(*) FROM assessment_current c WHERE c.round_id = ? AND c.member_id = u.id) AS entries
           FROM users u
           WHERE u.id = ? OR u.id IN (SELECT DISTINCT member_id FROM assessment_log WHERE round_id = ?)
           ORDER BY u.id <> ?, u.commission_body DESC NULLS LAST, u.full_name""",
        [rnd.president_id, round_id, rnd.president_id, round_id, rnd.president_id])
    items = store.fetch(_items_sql("ORDER BY i.item_code LIMIT ?"), [round_id, round_id, MAX_DETAIL_ITEMS])
    summary = store.fetch_one(
        f"""SELECT count(*) AS items,
                   count(*) FILTER (WHERE decided AND d_hist) AS hist,
                   count(*) FILTER (WHERE decided AND NOT d_hist) AS other,
                   count(*) FILTER (WHERE NOT decided) AS undecided,
                   count(*) FILTER (WHERE flagged) AS flagged,
                   coalesce(sum(d_value) FILTER (WHERE decided AND d_hist), 0) AS hist_value,
                   coalesce(sum(d_value) FILTER (WHERE decided AND NOT d_hist), 0) AS other_value,
                   count(*) FILTER (WHERE NOT decided AND c_hist) AS c_hist,
                   count(*) FILTER (WHERE NOT decided AND NOT c_hist) AS c_other,
                   coalesce(sum(c_value) FILTER (WHERE NOT decided AND c_hist), 0) AS c_hist_value,
                   coalesce(sum(c_value) FILTER (WHERE NOT decided AND NOT c_hist), 0) AS c_other_value
            FROM ({_items_sql()})""", [round_id, round_id]) or {}
    rest = store.fetch_one(
        f"""SELECT count(*) AS items, count(*) FILTER (WHERE flagged) AS flagged,
                   coalesce(sum(coalesce(d_value, c_value)), 0) AS value
            FROM ({_items_sql("ORDER BY i.item_code OFFSET ?")})""",
        [round_id, round_id, MAX_DETAIL_ITEMS]) or {}
    overrides = store.fetch(
        f"""SELECT item_code, description, c_hist, c_value, d_hist, d_value, basis FROM ({_items_sql()})
            WHERE decided AND (c_hist IS DISTINCT FROM d_hist OR c_value IS DISTINCT FROM d_value)
            ORDER BY item_code LIMIT ?""", [round_id, round_id, MAX_OVERRIDES_LISTED])
    overrides_total = int(store.scalar(
        f"""SELECT count(*) FROM ({_items_sql()})
            WHERE decided AND (c_hist IS DISTINCT FROM d_hist OR c_value IS DISTINCT FROM d_value)""",
        [round_id, round_id]))
    flagged = store.fetch(
        f"""SELECT item_code, description, votes_for, votes_against, median_brl, spread FROM ({_items_sql()})
            WHERE flagged ORDER BY item_code LIMIT ?""", [round_id, round_id, MAX_FLAGGED_LISTED])
    panel_agreement = agreement(store, user, round_id)
    return {"round": rnd, "quorum_basis": quorum_basis(store, rnd), "contract": contract, "president": president,
            "members": members, "items": items,
            "summary": summary, "rest": rest, "overrides": overrides, "overrides_total": overrides_total,
            "flagged": flagged, "agreement": panel_agreement, "nup": rnd.nup_label}


def minutes_key(data: dict[str, Any]) -> str:
    """What the minutes say, as a key (`authenticity.registry.content_key`): every section's data; of the panel's
    agreement its figures (its tables derive from the entries, which the close froze)."""
    ag = data["agreement"]
    said = {k: v for k, v in data.items() if k != "agreement"}
    said["agreement"] = [ag.alpha_votes, ag.icc_log_values, ag.n_items, ag.n_members, ag.icc_items]
    return registry.content_key(said)


def round_minutes_pdf(store: Store, user: Principal, round_id: int, *, generated_at: datetime | None = None) -> bytes:
    """The minutes of a closed round as PDF bytes (see the module docstring). The consensus they print is the one
    its entries give (issue 45, item 2: `derived.require_round_proven`), else StoreError and nothing issued. They are
    issued once (issue 43, item 3): the first download registers them with their code and keeps the copy, and every
    later one serves that copy until what the minutes say changes (a decision recorded, the round published), which
    issues them anew."""
    data = minutes_data(store, user, round_id)
    derived.require_round_proven(store, round_id)
    key = minutes_key(data)
    kept = registry.kept_copy(store, ("assessment_rounds", round_id), "minutes", key)
    if kept is not None:
        return kept
    rnd: Round = data["round"]
    stamp = registry.new_stamp(registry.record_nup(store, "assessment_rounds", round_id))
    report = PdfReport(
        f"Ata da rodada {rnd.number} de avaliação — contrato {rnd.contract_code}",
        "Comissão Interministerial — Lei 7.542/1986, art. 20 §3",
        orientation="L", generated_at=generated_at, stamp=stamp)
    for section in (_identification, _panel_and_rules, _items, _overrides, _flagged, _agreement, _signatures):
        section(report, data)
    signers = [int(m["id"]) for m in data["members"]]     # the president and the members who took part
    return registry.issue_once(store, user.username, stamp, report.bytes(), content_key=key, kind="minutes",
                               record=("assessment_rounds", round_id), office=MINUTES_OFFICE,
                               issued=lambda tx: events.minutes_to_sign(tx, round_id=round_id, signers=signers))


def _identification(report: PdfReport, data: dict[str, Any]) -> None:
    rnd: Round = data["round"]
    contract = data["contract"]
    president = data["president"]
    report.heading("1. Identificação")
    report.key_values([
        ("NUP", data["nup"] or "— (a decisão ainda não foi registrada ou a OM não tem unidade protocolizadora)"),
        ("Contrato", f"{rnd.contract_code} ({contract.get('kind', '—')}; {contract.get('act_number') or 'sem ato'})"),
        ("Empresa", contract.get("organisation") or "—"),
        ("Naufrágio", f"{contract.get('wreck') or '—'} ({contract.get('wreck_code') or '—'})"),
        ("Rodada", f"{rnd.number}ª" + (" (itens sinalizados na rodada anterior)" if rnd.previous_round_id else "")),
        ("Situação", rnd.status_label),
        ("Aberta em", _when(rnd.opened_at)),
        ("Encerrada em", _when(rnd.closed_at)),
        ("Decidida em", _when(rnd.decided_at)),
        ("Publicada em", _when(rnd.published_at)),
        ("Fuso horário", f"todos os horários desta ata estão no {TIMEZONE_LABEL} (UTC−3)"),
        ("Presidente", "—" if president is None else
         f"{president['full_name']} ({BODY_LABELS.get(president['commission_body'], '—')})"),
        ("Fundamento", BASIS),
    ])


def _panel_and_rules(report: PdfReport, data: dict[str, Any]) -> None:
    rnd: Round = data["round"]
    report.heading("2. Membros participantes")
    report.table(["Membro", "Órgão", "Função", "Itens avaliados"],
                 [(m["full_name"], BODY_LABELS.get(m["commission_body"], "—"),
                   "Presidente" if m["president"] else "Membro", format_count(m["entries"]))
                  for m in data["members"]], col_widths=[5, 3, 2, 2])

    report.heading("3. Regras da rodada")
    report.key_values([
        ("Valor atribuído", METHOD_LABELS.get(rnd.method, rnd.method)
         + " dos valores dos membros convertidos em reais (cotação da data do preço ou anterior)"),
        ("Quórum", quorum_text(rnd.quorum, data["quorum_basis"])),
        ("Classificação", f"maioria dos votos; no empate, o voto do presidente ({law.TIE_BREAK.basis})"),
        ("Sinalização", "dispersão (máx − mín)/mediana acima de "
         + f"{rnd.spread_threshold * 100:.1f}".replace(".", ",") + " % ou votação dividida por até um voto"),
    ])


def _items(report: PdfReport, data: dict[str, Any]) -> None:
    """Section 4: the items (the first MAX_DETAIL_ITEMS in detail, the rest summed) and the totals."""
    s = data["summary"]
    total = int(s.get("items") or 0)
    report.heading("4. Itens avaliados")
    shown = len(data["items"])
    if total > shown:
        report.paragraph(f"Esta ata detalha os {format_count(shown)} primeiros itens da rodada, em ordem de código. "
                         f"Os demais {format_count(total - shown)} itens estão resumidos no quadro seguinte e "
                         f"constam, um a um, do registro do sistema e da planilha de decisões publicadas.")
    report.paragraph("Classificação e valor: a decisão registrada pelo presidente nesta rodada; \"(consenso)\" indica "
                     "item ainda sem decisão, com o resultado calculado da votação.")
    rows = []
    for it in data["items"]:
        if it["decided"]:
            cls, value = _class(it["d_hist"]), it["d_value"]
        else:
            cls = f"{_class(it['c_hist'])} (consenso)"
            value = it["c_value"]
        rows.append((it["item_code"], it["description"], f"{it['votes_for']} / {it['votes_against']}", cls,
                     value if isinstance(value, Decimal) else None, _spread(it["spread"]),
                     "sim" if it["flagged"] else "—"))
    report.table(["Código", "Descrição", "Votos sim / não", "Classificação", "Valor (R$)", "Dispersão", "Sinal."],
                 rows, col_widths=[4.2, 6.6, 1.8, 3, 2.8, 1.7, 1.6], align=["L", "L", "C", "L", "R", "R", "C"])
    if total > shown:
        rest = data["rest"]
        report.table(["Itens não detalhados", "Sinalizados", "Valor somado (R$)"],
                     [(format_count(rest.get("items") or 0), format_count(rest.get("flagged") or 0),
                       Decimal(rest.get("value") or 0))], col_widths=[2, 2, 2], align=["R", "R", "R"])
    report.totals([
        (f"Históricos decididos ({format_count(s.get('hist') or 0)})", Decimal(s.get("hist_value") or 0)),
        (f"Não históricos decididos ({format_count(s.get('other') or 0)})", Decimal(s.get("other_value") or 0)),
        (f"Itens sem decisão nesta rodada ({format_count(s.get('undecided') or 0)})", "—"),
    ])


def _overrides(report: PdfReport, data: dict[str, Any]) -> None:
    report.heading("5. Decisões do presidente divergentes do consenso")
    if data["overrides"]:
        report.table(["Código", "Consenso", "Decisão", "Fundamento"],
                     [(o["item_code"], f"{_class(o['c_hist'])}; {format_brl(o['c_value'])}",
                       f"{_class(o['d_hist'])}; {format_brl(o['d_value'])}", o["basis"]) for o in data["overrides"]],
                     col_widths=[4, 3.5, 3.5, 9])
        if data["overrides_total"] > len(data["overrides"]):
            report.paragraph(f"… e mais {format_count(data['overrides_total'] - len(data['overrides']))} decisões "
                             "divergentes.")
    else:
        report.paragraph("Nenhuma: as decisões registradas seguem o consenso calculado.")


def _flagged(report: PdfReport, data: dict[str, Any]) -> None:
    report.heading("6. Itens sinalizados para nova rodada")
    s = data["summary"]
    flagged_total = int(s.get("flagged") or 0)
    listed = len(data["flagged"])
    report.paragraph(f"{format_count(flagged_total)} item(ns) sinalizado(s)"
                     + (f"; listados os {format_count(listed)} primeiros." if flagged_total > listed else "."))
    report.table(["Código", "Descrição", "Votos sim / não", "Mediana (R$)", "Dispersão"],
                 [(f["item_code"], f["description"], f"{f['votes_for']} / {f['votes_against']}", f["median_brl"],
                   _spread(f["spread"])) for f in data["flagged"]], col_widths=[4, 8, 2, 3, 2],
                 align=["L", "L", "C", "R", "R"])


def _agreement(report: PdfReport, data: dict[str, Any]) -> None:
    ag = data["agreement"]
    report.heading("7. Concordância do painel")
    report.key_values([
        ("Alfa de Krippendorff (votos)", _float(ag.alpha_votes)),
        ("CCI(2,1) dos log-valores", _float(ag.icc_log_values)
         + f" ({format_count(ag.icc_items)} itens com valor de todos)"),
        ("Membros com avaliações", format_count(ag.n_members)),
    ])
    report.paragraph("Medidas descritivas da concordância entre os membros; não entram em nenhuma decisão.")


def _signatures(report: PdfReport, data: dict[str, Any]) -> None:
    report.heading("8. Assinaturas")
    report.signature_lines([(m["full_name"], ("Presidente da Comissão — " if m["president"] else "Membro — ")
                             + BODY_LABELS.get(m["commission_body"], "—")) for m in data["members"]])


__all__ = ["MAX_DETAIL_ITEMS", "MAX_FLAGGED_LISTED", "minutes_data", "round_minutes_pdf"]
