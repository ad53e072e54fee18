"""Demo data of the partition (issue 5), on top of `valuation.demo.base.seed_demo`.

`seed_partition_demo(store)` adds, deterministically (fixed dates and amounts, no
randomness):

- the cost sheets (planilha de custos, NORMAM-10 0301 a 6) of the surveys that located
  a wreck later explored or removed, filed by the surveyor's own user, with the final
  report's actual costs (0301 c) for the concluded surveys and one overrun approved by
  the DPC with its reason. The survey of BA-001 (Arqueonáutica) is deducted in the
  statement of DPC-EX-2021/02, won by Salvamar (NORMAM-10 0303 c 2 I);
- inspection expenses and the inspectors' insurance of three contracts (NORMAM-10 0306);
- the difficulty rubric (art. 21 §1) of the contracts paid by a share;
- the compensation of the cancelled DPC-EX-2018/03 (art. 22 sole paragraph);
- statements: when a contract with historical decisions has all its decisions
  published, the DPC issues its statement (v1); a draft for DPC-EX-2021/02 (or the
  next contract) is always left for the DPC to review.

Call it after `seed_demo` (and after the commission's demo decisions, when there are
any). Returns the rows added per kind. Refuses a database where it already ran.
"""
from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from valuation.core.errors import ConflictError
from valuation.db.access import Principal, users_of_organisation, users_with_roles
from valuation.partition import statements, terms
from valuation.partition import survey_sheets as S

if TYPE_CHECKING:
    from valuation.db.store import Store

DEMO_AS_OF = date(2026, 11, 30)
_D = date

# survey contract → (filed_on, [(line, planned)], reported_on or None, [actual per line] or None)
COST_SHEETS: dict[str, tuple[date, list[tuple[str, str]], date | None, list[str] | None]] = {
    "CPBA-PQ-2018/04": (_D(2017, 9, 12), [
        ("Embarcação de apoio e tripulação (60 dias)", "180000.00"),
        ("Mergulho autônomo e equipamentos", "95000.00"),
        ("Levantamento geofísico (sonar de varredura lateral e magnetômetro)", "120000.00"),
        ("Arqueólogo responsável, registro e relatórios", "60000.00"),
    ], _D(2019, 2, 8), ["214500.00", "88300.00", "131200.00", "60000.00"]),
    "DELPSEGURO-PQ-2013/01": (_D(2012, 11, 5), [
        ("Embarcação de apoio e tripulação", "140000.00"),
        ("Mergulho e equipamentos", "70000.00"),
        ("Arqueólogo responsável e relatórios", "45000.00"),
    ], _D(2014, 3, 6), ["151800.00", "64500.00", "45000.00"]),
    "CPSC-PQ-2019/02": (_D(2018, 8, 20), [
        ("Navio de pesquisa com ROV", "410000.00"),
        ("Levantamento batimétrico multifeixe", "150000.00"),
        ("Equipe técnica estrangeira (art. 16 §5)", "90000.00"),
    ], _D(2019, 12, 20), ["398000.00", "163400.00", "90000.00"]),
    "CPRJ-PQ-2015/03": (_D(2014, 8, 11), [
        ("Rebocador e balsa de apoio", "220000.00"),
        ("Mergulho raso e inspeção do casco", "80000.00"),
    ], _D(2016, 1, 8), ["226300.00", "79100.00"]),
    "CPES-PQ-2024/02": (_D(2023, 10, 2), [
        ("Embarcação de apoio e tripulação", "125000.00"),
        ("Levantamento geofísico", "88000.00"),
        ("Arqueólogo responsável e relatórios", "40000.00"),
    ], _D(2025, 2, 14), ["131000.00", "86500.00", "40000.00"]),
    "CPPE-PQ-2025/03": (_D(2025, 2, 10), [
        ("Embarcação de apoio e tripulação", "98000.00"),
        ("Mergulho e registro fotogramétrico", "64000.00"),
    ], None, None),
}
# (survey contract, line number, approved overrun, reason)
OVERRUNS: tuple[tuple[str, int, str, str], ...] = (
    ("CPBA-PQ-2018/04", 1, "20000.00",
     "Mau tempo prolongou a campanha em nove dias (relatório final, item 4.2; ofício da CPBA de 12/02/2019)."),
    ("DELPSEGURO-PQ-2013/01", 1, "11800.00",
     "Substituição emergencial do compressor de mergulho, comunicada à DelPSeguro durante a campanha."),
)
# contract → [(kind, description, amount, day, inspector, policy, from, to)]
INSPECTIONS: dict[str, list[tuple[str, str, str, date, str | None, str | None, date | None, date | None]]] = {
    "DPC-EX-2021/02": [
        ("seguro", "Seguro de acidentes pessoais dos fiscais (Anexo 3-B), vigência das operações", "18400.00",
         _D(2021, 4, 20), None, "AP-2021-0457812", _D(2021, 5, 3), _D(2027, 5, 2)),
        ("deslocamento", "Passagens Rio de Janeiro–Salvador, 1ª fiscalização", "3860.00", _D(2021, 6, 14),
         "CT (T) Renata Moura Lisboa", None, None, None),
        ("pousada", "Hospedagem em Salvador, 5 diárias", "2450.00", _D(2021, 6, 19),
         "CT (T) Renata Moura Lisboa", None, None, None),
        ("alimentação", "Alimentação a bordo e em terra, 5 dias", "1125.00", _D(2021, 6, 19),
         "CT (T) Renata Moura Lisboa", None, None, None),
        ("deslocamento", "Passagens e traslado, 2ª fiscalização", "4120.00", _D(2024, 9, 2),
         "CC (T) André Fontes Carvalho", None, None, None),
        ("pousada", "Hospedagem em Salvador, 4 diárias", "2160.00", _D(2024, 9, 6),
         "CC (T) André Fontes Carvalho", None, None, None),
    ],
    "DPC-EX-2015/01": [
        ("seguro", "Seguro dos fiscais (Anexo 3-B)", "9600.00", _D(2015, 2, 20), None, "AP-2015-0033190",
         _D(2015, 3, 2), _D(2019, 3, 1)),
        ("deslocamento", "Passagens Rio de Janeiro–Porto Seguro", "2980.00", _D(2016, 10, 3),
         "1T (RM2-T) Priscila Ramos Duarte", None, None, None),
    ],
    "DPC-EX-2018/03": [
        ("seguro", "Seguro dos fiscais (Anexo 3-B)", "7200.00", _D(2018, 4, 25), None, "AP-2018-0210045",
         _D(2018, 5, 2), _D(2020, 10, 14)),
    ],
}
# contract → scores (localização, exploração, remoção, preservação, restauração), note
RUBRICS: dict[str, tuple[tuple[int, int, int, int, int], str]] = {
    "DPC-EX-2021/02": ((3, 4, 3, 3, 2), "Sítio a 12 m com correnteza forte; concreções exigem restauração longa."),
    "DPC-EX-2015/01": ((4, 4, 4, 3, 3), "Naufrágio disperso em área de recifes; alta complexidade."),
    "DPC-EX-2021/05": ((3, 3, 3, 2, 2), "Operação com ROV em águas profundas."),
    "DPC-RM-2019/02": ((1, 2, 3, 1, 0), "Remoção de carga de cobre em casco de aço."),
    "DPC-EX-2018/03": ((2, 3, 3, 2, 1), "Vapor de ferro do século XIX."),
}
COMPENSATION = ("DPC-EX-2018/03", {
    "compensation_share": Decimal("0.2500"), "compensation_form": "adjudication",
    "reason": "Compensação parcial das despesas do autorizado com bens sem valor histórico já recuperados "
              "(Lei 7.542 art. 22 parágrafo único; NORMAM-10 0305).",
})
DRAFT_PREFERENCE = ("DPC-EX-2021/02", "DPC-EX-2015/01", "DPC-EX-2021/05", "DPC-EX-2017/02", "DPC-RM-2019/02")


def _principal(store: Store, username: str | None = None, *, role: str = "dpc",
               organisation_id: int | None = None) -> Principal | None:
    if username is not None:
        row = store.fetch_one("SELECT * FROM users WHERE username = ?", [username])
    else:
        clauses, params = users_with_roles([role], "u")
        if organisation_id is not None:
            own, own_params = users_of_organisation(organisation_id, "u")
            clauses, params = f"{clauses} AND {own}", [*params, *own_params]
        row = store.fetch_one(f"SELECT u.* FROM users u WHERE {clauses} AND u.active ORDER BY u.id LIMIT 1", params)
    if row is None:
        return None
    return Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"], role=row["role"],
                     organisation_id=row["organisation_id"], commission_body=row["commission_body"])


def _at(day: date, hour: int = 10) -> datetime:
    return datetime(day.year, day.month, day.day, hour, 0, 0)


def _seed_survey_costs(store: Store, dpc: Principal, counts: dict[str, int]) -> None:
    """The cost sheets (filed by the explorer when it has a login), final reports and overruns."""
    for code, (filed_on, lines, reported_on, actuals) in COST_SHEETS.items():
        c = store.fetch_one("SELECT organisation_id FROM contracts WHERE code = ?", [code])
        if c is None:
            continue
        who = _principal(store, role="explorer", organisation_id=c["organisation_id"]) or dpc
        n = S.file_cost_sheet(store, who, code, [{"line": ln, "planned": Decimal(p)} for ln, p in lines],
                              filed_on=filed_on, now=_at(filed_on))
        counts["survey_cost_sheets"] += 1
        counts["survey_cost_lines"] += n
        if reported_on is not None and actuals is not None:
            S.record_actual_costs(store, who, code, [{"line_no": i + 1, "actual": Decimal(a)}
                                                     for i, a in enumerate(actuals)],
                                  reported_on=reported_on, now=_at(reported_on))
    for code, line_no, amount, reason in OVERRUNS:
        if store.fetch_one("SELECT 1 FROM contracts WHERE code = ?", [code]) is not None:
            reported = COST_SHEETS[code][2] or DEMO_AS_OF
            S.approve_overrun(store, dpc, code, line_no, Decimal(amount), reason, now=_at(reported, 15))
            counts["overruns"] += 1


def _seed_terms_and_expenses(store: Store, dpc: Principal, counts: dict[str, int]) -> None:
    """Inspection expenses, difficulty rubrics and the cancelled contract's compensation."""
    for code, rows in INSPECTIONS.items():
        for kind, desc, amount, day, inspector, policy, start, end in rows:
            S.record_inspection_expense(store, dpc, code, {
                "kind": kind, "description": desc, "amount": Decimal(amount), "incurred_on": day,
                "inspector": inspector, "policy_number": policy, "coverage_from": start, "coverage_to": end,
            }, now=_at(day, 17))
            counts["inspection_expenses"] += 1
    for code, (scores, note) in RUBRICS.items():
        terms.record_difficulty(store, dpc, code, list(scores), note=note, now=_at(date(2026, 1, 12)))
        counts["difficulty_assessments"] += 1
    comp_code, comp = COMPENSATION
    terms.set_compensation(store, dpc, comp_code, comp, now=_at(date(2020, 11, 9)))
    counts["compensations"] += 1


def _seed_statements(store: Store, dpc: Principal, counts: dict[str, int]) -> None:
    """Issue where every decision is published; always leave one draft."""
    decided = store.fetch(
        "SELECT c.code, count(*) FILTER (WHERE iv.historical) AS hist, "
        "count(*) FILTER (WHERE NOT iv.published) AS unpub "
        "FROM item_valuation iv JOIN contracts c ON c.id = iv.contract_id WHERE c.kind IN ('exploração', 'remoção') "
        "AND c.modality IS NOT NULL GROUP BY c.code ORDER BY c.code")
    issuable = [r["code"] for r in decided if r["hist"] > 0 and r["unpub"] == 0]
    issuable.sort(key=lambda code: (DRAFT_PREFERENCE.index(code) if code in DRAFT_PREFERENCE else 99, code))
    issued_code: str | None = None
    if issuable:
        issued_code = issuable[0]
        draft_id = statements.create_draft(store, dpc, issued_code, as_of=DEMO_AS_OF, now=_at(DEMO_AS_OF, 9))
        counts["drafts"] += 1
        doc = store.fetch_one("SELECT blockers_json FROM statements WHERE id = ?", [draft_id])
        if doc is not None and doc["blockers_json"] == "[]":
            statements.issue_statement(store, dpc, draft_id, now=_at(DEMO_AS_OF, 11))
            counts["issued"] += 1
    for code in DRAFT_PREFERENCE:
        if code != issued_code:
            statements.create_draft(store, dpc, code, as_of=DEMO_AS_OF, now=_at(DEMO_AS_OF, 14))
            counts["drafts"] += 1
            break


def seed_partition_demo(store: Store) -> dict[str, int]:
    """Add the partition demo data (see the module docstring); returns rows per kind."""
    dpc = _principal(store)
    if dpc is None or store.fetch_one("SELECT 1 FROM contracts WHERE code = 'DPC-EX-2021/02'") is None:
        raise ConflictError("Carregue primeiro a demonstração (seed_demo): faltam os contratos e usuários.")
    if store.scalar("SELECT count(*) FROM survey_cost_sheets") or store.scalar("SELECT count(*) FROM statements"):
        raise ConflictError("A demonstração da partilha já foi carregada neste banco de dados.")
    counts = {"survey_cost_sheets": 0, "survey_cost_lines": 0, "overruns": 0, "inspection_expenses": 0,
              "difficulty_assessments": 0, "compensations": 0, "drafts": 0, "issued": 0}
    _seed_survey_costs(store, dpc, counts)
    _seed_terms_and_expenses(store, dpc, counts)
    _seed_statements(store, dpc, counts)
    store.checkpoint()
    return counts
