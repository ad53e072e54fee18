"""Survey cost sheets and inspection expenses — store side (issue 5; rules.md §5).

- The cost sheet (planilha de custos, NORMAM-10 0301 a 6) is filed with the survey
  request: one per survey contract (kind 'pesquisa'), lines with their planned cost.
  The explorer holding the survey contract files its own; dpc may file any. A sheet
  may be replaced until the final report's actual costs are recorded.
- The final report (NORMAM-10 0301 c) brings the actual cost per line; a cost outside
  the sheet is a new line planned at zero (it counts only as far as an overrun is approved).
- dpc approves an overrun per line, with its reason; never more than actual − planned.
- The deduction (`valuation.partition.survey_costs`, NORMAM-10 0303 c 2 I, the tender of Lei 7.542 art. 27)
  flows into the statement of the exploration/removal contract on the same wreck whose
  holder is not the surveyor (`contracts.surveyor_organisation_id`): see
  `survey_inputs_for`, which `valuation.partition.statements` reads.
- Inspection expenses (travel, food, lodging of the inspectors) and the inspectors'
  insurance are the authorised party's costs (NORMAM-10 0306): tracked per contract.

Access: dpc everything; an explorer only the contracts of its own organisation
(others are "not found"); other roles are refused. Every write is audited.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.errors import ConflictError, InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.db import access
from valuation.db.access import Principal, require
from valuation.partition.survey_costs import CostLine, survey_deduction

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

SURVEY_KIND = "pesquisa"
EXPENSE_KINDS: tuple[str, ...] = ("deslocamento", "alimentação", "pousada", "seguro")
EXPENSE_LABELS: dict[str, str] = {"deslocamento": "Deslocamento", "alimentação": "Alimentação",
                                  "pousada": "Pousada", "seguro": "Seguro dos fiscais"}
EXPENSE_BASIS: dict[str, str] = {
    "deslocamento": "NORMAM-10 (ed. 2002) 0306 a (despesas de fiscalização a cargo do autorizado)",
    "alimentação": "NORMAM-10 (ed. 2002) 0306 a (despesas de fiscalização a cargo do autorizado)",
    "pousada": "NORMAM-10 (ed. 2002) 0306 a (despesas de fiscalização a cargo do autorizado)",
    "seguro": "NORMAM-10 (ed. 2002) 0306 b e Anexo 3-B (seguro obrigatório em favor dos fiscais)",
}
MIN_REASON = 10
MAX_LINES = 200


@dataclass(frozen=True)
class SheetLine:
    line_no: int
    line: str
    planned: Decimal
    actual: Decimal | None
    approved_overrun: Decimal
    overrun_reason: str | None
    accepted: Decimal | None      # None until the actual cost is known
    variance: Decimal | None


@dataclass(frozen=True)
class CostSheet:
    contract_id: int
    contract_code: str
    organisation_name: str
    wreck_code: str
    wreck_name: str
    filed_on: date | None
    filed_by: str | None
    reported_on: date | None
    lines: tuple[SheetLine, ...]
    planned_total: Decimal
    actual_total: Decimal | None
    accepted_total: Decimal | None
    winners: tuple[dict[str, Any], ...]   # exploration/removal contracts this sheet is deducted from

    @property
    def filed(self) -> bool:
        return self.filed_on is not None


@dataclass(frozen=True)
class SurveyInputs:
    """What the winner's statement needs from the surveyor's sheets."""

    applies: bool                    # a surveyor other than the holder located the wreck
    winner_is_surveyor: bool
    surveyor_name: str | None
    cost_lines: tuple[CostLine, ...]
    line_refs: tuple[tuple[str, int, str | None], ...]   # (survey contract code, line_no, overrun reason)
    missing_actual: tuple[str, ...]  # 'CODE linha N' still without the final report's actual cost
    no_sheet: bool                   # a surveyor exists but filed no sheet


# -- access --------------------------------------------------------------------------------
_CONTRACT_SQL = (
    "SELECT c.id, c.code, c.kind, c.status, c.organisation_id, c.office_code, o.name AS organisation_name, c.wreck_id, "
    "w.code AS wreck_code, w.name AS wreck_name FROM contracts c JOIN organisations o ON o.id = c.organisation_id "
    "JOIN wrecks w ON w.id = c.wreck_id WHERE c.code = ?")


def _scoped_contract(db: Store | Tx, user: Principal, code: str) -> dict[str, Any]:
    row = db.fetch_one(_CONTRACT_SQL, [code]) if isinstance(code, str) else None
    if row is None or not access.organisation_cleared(user, row["organisation_id"], row["office_code"]):
        raise NotFound(f"Contrato {code} não encontrado.", what="contract", key=code)
    return row


def _reader(user: Principal) -> None:
    require(user, "file_survey_costs")


def _money(form: Form, key: str, label: str, *, required: bool = True) -> Decimal | None:
    """An amount typed the pt-BR way, read by the one parser (`core.money.parse_brl` through `Form.money`:
    '1.234,56'; '1001.76,41' refused, never guessed)."""
    return form.money(key, label, required=required)


# -- cost sheets -----------------------------------------------------------------------------
def list_survey_contracts(store: Store, user: Principal) -> pd.DataFrame:
    """Survey contracts the user may see, with the state of their cost sheets."""
    _reader(user)
    scope, params = access.contract_scope(user, "c")
    return store.fetch_df(
        f"""SELECT c.code, o.name AS organisation_name, w.code AS wreck_code, w.name AS wreck_name, c.status,
                   s.filed_on, s.reported_on, count(l.line_no) AS lines,
                   coalesce(sum(l.planned), 0) AS planned_total, sum(l.actual) AS actual_total
            FROM contracts c JOIN organisations o ON o.id = c.organisation_id JOIN wrecks w ON w.id = c.wreck_id
            LEFT JOIN survey_cost_sheets s ON s.contract_id = c.id
            LEFT JOIN survey_cost_lines l ON l.contract_id = c.id
            WHERE c.kind = '{SURVEY_KIND}' AND {scope}
            GROUP BY ALL ORDER BY c.code""", params)


def _lines(db: Store | Tx, contract_id: int) -> list[dict[str, Any]]:
    return db.fetch("SELECT * FROM survey_cost_lines WHERE contract_id = ? ORDER BY line_no", [contract_id])


def _sheet_lines(rows: Sequence[Mapping[str, Any]]) -> tuple[SheetLine, ...]:
    """Accepted and variance per line through `valuation.partition.survey_costs` (rules.md §5)."""
    known = [r for r in rows if r["actual"] is not None]
    stated = survey_deduction([CostLine(r["line"], r["planned"], r["actual"], r["approved_overrun"]) for r in known],
                              Decimal(0), False).lines
    by_no = {r["line_no"]: s for r, s in zip(known, stated)}
    out = []
    for r in rows:
        s = by_no.get(r["line_no"])
        out.append(SheetLine(line_no=r["line_no"], line=r["line"], planned=r["planned"], actual=r["actual"],
                             approved_overrun=r["approved_overrun"], overrun_reason=r["overrun_reason"],
                             accepted=s.accepted if s else None, variance=s.variance if s else None))
    return tuple(out)


REQUESTED = "solicitado"       # a request under analysis: who else asks for a wreck is DPC's to know


def _winners(db: Store | Tx, contract: Mapping[str, Any], user: Principal) -> tuple[dict[str, Any], ...]:
    """The exploration/removal contracts of other holders on the survey's wreck that deduct its costs.
    An explorer (the surveyor) sees them once granted: a competitor's request still under analysis
    ('solicitado') is DPC's only (issue 24, item 7; the preference of Lei 7.542 art. 16 §2 is
    decided among the requests: who else asks for a wreck is read with the preference)."""
    granted_only = not access.allowed(user, "read_preference")
    rows = db.fetch(
        "SELECT c.code, o.name AS organisation_name, c.status FROM contracts c "
        "JOIN organisations o ON o.id = c.organisation_id WHERE c.wreck_id = ? AND c.kind IN ('exploração', 'remoção') "
        "AND c.surveyor_organisation_id = ? AND c.organisation_id <> ? AND (NOT ? OR c.status <> ?) ORDER BY c.code",
        [contract["wreck_id"], contract["organisation_id"], contract["organisation_id"], granted_only, REQUESTED])
    return tuple(rows)


def cost_sheet(store: Store, user: Principal, code: str) -> CostSheet:
    """The cost sheet of a survey contract (empty when not filed yet)."""
    _reader(user)
    c = _scoped_contract(store, user, code)
    head = store.fetch_one("SELECT * FROM survey_cost_sheets WHERE contract_id = ?", [c["id"]]) or {}
    lines = _sheet_lines(_lines(store, c["id"]))
    planned = sum((ln.planned for ln in lines), Decimal("0.00"))
    all_known = bool(lines) and all(ln.actual is not None for ln in lines)
    actual = sum((ln.actual for ln in lines if ln.actual is not None), Decimal("0.00")) if all_known else None
    accepted = sum((ln.accepted for ln in lines if ln.accepted is not None), Decimal("0.00")) if all_known else None
    return CostSheet(contract_id=c["id"], contract_code=c["code"], organisation_name=c["organisation_name"],
                     wreck_code=c["wreck_code"], wreck_name=c["wreck_name"], filed_on=head.get("filed_on"),
                     filed_by=head.get("filed_by"), reported_on=head.get("reported_on"), lines=lines,
                     planned_total=planned, actual_total=actual, accepted_total=accepted,
                     winners=_winners(store, c, user) if c["kind"] == SURVEY_KIND else ())


def file_cost_sheet(store: Store, user: Principal, code: str, lines: Sequence[Mapping[str, Any]], *,
                    filed_on: date | str, now: datetime | None = None) -> int:
    """File (or replace, before the final report) the cost sheet of a survey contract
    (NORMAM-10 0301 a 6). `lines`: [{"line": text, "planned": amount}]. Returns the line count."""
    _reader(user)
    problems: list[Problem] = []
    head = Form({"filed_on": filed_on}, allowed=("filed_on",))
    day = head.date("filed_on", "Data de entrega da planilha")
    problems += head.problems
    clean: list[tuple[str, Decimal]] = []
    if not isinstance(lines, Sequence) or isinstance(lines, (str, bytes)) or not lines:
        problems.append(Problem("lines", "Planilha de custos: informe ao menos uma linha."))
        lines = []
    if len(lines) > MAX_LINES:
        problems.append(Problem("lines", f"Planilha de custos: no máximo {MAX_LINES} linhas."))
    seen: dict[str, int] = {}
    for i, raw in enumerate(lines):
        f = Form(raw if isinstance(raw, Mapping) else {}, allowed=("line", "planned"))
        name = f.text("line", f"Linha {i + 1}: descrição", max_len=200)
        planned = _money(f, "planned", f"Linha {i + 1}: custo previsto")
        problems += [Problem(f"lines[{i}].{p.path}", p.message) for p in f.problems]
        if name is not None:
            key = name.casefold()
            if key in seen:
                problems.append(Problem(f"lines[{i}].line",
                                        f"Linha {i + 1}: descrição repetida (linha {seen[key] + 1})."))
            seen[key] = i
        if name is not None and planned is not None:
            clean.append((name, planned))
    c = _scoped_contract(store, user, code)
    if c["kind"] != SURVEY_KIND:
        problems.append(Problem("contract", f"Contrato {code}: a planilha de custos acompanha o requerimento de "
                                            "pesquisa (NORMAM-10 (ed. 2002) 0301 a 6); este contrato é de "
                                            f"{c['kind']}."))
    if problems:
        raise InputError(problems)
    moment = now or store.now()

    def run(tx: Tx) -> int:
        head_row = tx.fetch_one("SELECT * FROM survey_cost_sheets WHERE contract_id = ?", [c["id"]])
        if head_row is not None and head_row["reported_on"] is not None:
            raise ConflictError(f"A planilha de {code} já tem o custo real do relatório final "
                                f"({head_row['reported_on']:%d/%m/%Y}) e não pode mais ser substituída.")
        before = [{"line": r["line"], "planned": r["planned"]} for r in _lines(tx, c["id"])]
        tx.execute("DELETE FROM survey_cost_lines WHERE contract_id = ?", [c["id"]])
        tx.execute("DELETE FROM survey_cost_sheets WHERE contract_id = ?", [c["id"]])
        tx.execute("INSERT INTO survey_cost_sheets (contract_id, filed_on, filed_by, filed_at) VALUES (?, ?, ?, ?)",
                   [c["id"], day, user.username, moment])
        for n, (name, planned) in enumerate(clean, start=1):
            tx.execute("INSERT INTO survey_cost_lines (contract_id, line_no, line, planned) VALUES (?, ?, ?, ?)",
                       [c["id"], n, name, planned])
        tx.audit("survey_cost_sheet_filed", "contract", c["code"], {"lines": before} if before else None,
                 {"filed_on": day, "lines": [{"line": n, "planned": p} for n, p in clean]})
        return len(clean)

    return store.write(user.username, run)


def _actual_rows(actuals: Sequence[Any], existing: Mapping[int, Mapping[str, Any]], problems: list[Problem]
                 ) -> tuple[list[tuple[int, Decimal]], list[tuple[str, Decimal]]]:
    """The final report's rows as (sheet line updates, new lines outside the sheet); a row names
    its sheet line by number or by description. Problems are appended to `problems`."""
    names = {r["line"].casefold(): r["line_no"] for r in existing.values()}
    updates: list[tuple[int, Decimal]] = []
    inserts: list[tuple[str, Decimal]] = []
    for i, raw in enumerate(actuals):
        f = Form(raw if isinstance(raw, Mapping) else {}, allowed=("line_no", "line", "actual"))
        amount = _money(f, "actual", f"Linha {i + 1}: custo real")
        if f.has("line_no"):
            n = f.integer("line_no", f"Linha {i + 1}: número", minimum=1)
            if n is not None and n not in existing:
                f.fail("line_no", f"Linha {i + 1}: a planilha não tem a linha {n}.")
            elif n is not None and amount is not None:
                updates.append((n, amount))
        else:
            name = f.text("line", f"Linha {i + 1}: descrição", max_len=200)
            if name is not None and name.casefold() in names:
                if amount is not None:
                    updates.append((names[name.casefold()], amount))
            elif name is not None and amount is not None:
                inserts.append((name, amount))
        problems += [Problem(f"actuals[{i}].{p.path}", p.message) for p in f.problems]
    return updates, inserts


def record_actual_costs(store: Store, user: Principal, code: str, actuals: Sequence[Mapping[str, Any]], *,
                        reported_on: date | str, now: datetime | None = None) -> int:
    """Record the final report's actual cost per line (NORMAM-10 0301 c).
    `actuals`: [{"line_no": n, "actual": amount}] for sheet lines, or [{"line": text, "actual": amount}]
    for a cost outside the sheet (planned at zero). Returns the number of lines written."""
    _reader(user)
    problems: list[Problem] = []
    head = Form({"reported_on": reported_on}, allowed=("reported_on",))
    day = head.date("reported_on", "Data do relatório final")
    problems += head.problems
    c = _scoped_contract(store, user, code)
    if not isinstance(actuals, Sequence) or isinstance(actuals, (str, bytes)) or not actuals:
        problems.append(Problem("actuals", "Custos reais: informe ao menos uma linha."))
        actuals = []
    updates, inserts = _actual_rows(actuals, {r["line_no"]: r for r in _lines(store, c["id"])}, problems)
    head_row = store.fetch_one("SELECT * FROM survey_cost_sheets WHERE contract_id = ?", [c["id"]])
    if head_row is None:
        problems.append(Problem("contract", f"Contrato {code}: a planilha de custos ainda não foi entregue."))
    if problems:
        raise InputError(problems)
    moment = now or store.now()

    def run(tx: Tx) -> int:
        before = {r["line_no"]: r["actual"] for r in _lines(tx, c["id"])}
        for n, amount in updates:
            tx.execute("UPDATE survey_cost_lines SET actual = ? WHERE contract_id = ? AND line_no = ?",
                       [amount, c["id"], n])
        top = int(tx.scalar("SELECT coalesce(max(line_no), 0) FROM survey_cost_lines WHERE contract_id = ?",
                            [c["id"]]))
        for k, (name, amount) in enumerate(inserts, start=1):
            tx.execute("INSERT INTO survey_cost_lines (contract_id, line_no, line, planned, actual) "
                       "VALUES (?, ?, ?, 0, ?)", [c["id"], top + k, name, amount])
        tx.execute("UPDATE survey_cost_sheets SET reported_on = ?, reported_by = ?, reported_at = ? "
                   "WHERE contract_id = ?", [day, user.username, moment, c["id"]])
        tx.audit("survey_actual_costs", "contract", c["code"], {"actual": {str(k): v for k, v in before.items()}},
                 {"reported_on": day, "actual": {str(n): a for n, a in updates},
                  "new_lines": [{"line": n, "actual": a} for n, a in inserts]})
        return len(updates) + len(inserts)

    return store.write(user.username, run)


def approve_overrun(store: Store, user: Principal, code: str, line_no: int, amount: object, reason: str, *,
                    now: datetime | None = None) -> SheetLine:
    """dpc approves spending above the sheet on one line, with its reason (rules.md §5):
    at most actual − planned; 0 withdraws an approval."""
    require(user, "approve_survey_overruns")
    f = Form({"amount": amount, "reason": reason}, allowed=("amount", "reason"))
    value = _money(f, "amount", "Excesso aprovado")
    why = f.text("reason", "Motivo da aprovação", max_len=1000)
    if why is not None and len(why) < MIN_REASON:
        f.fail("reason", f"Motivo da aprovação: descreva o motivo (ao menos {MIN_REASON} caracteres).")
    c = _scoped_contract(store, user, code)
    row = store.fetch_one("SELECT * FROM survey_cost_lines WHERE contract_id = ? AND line_no = ?", [c["id"], line_no])
    if row is None:
        f.fail("line_no", f"Contrato {code}: a planilha não tem a linha {line_no}.")
    elif row["actual"] is None:
        f.fail("line_no", f"Linha {line_no} ({row['line']}): o custo real ainda não foi informado.")
    elif value is not None:
        room = row["actual"] - row["planned"]
        if room <= 0 and value > 0:
            f.fail("amount", f"Excesso aprovado: a linha {line_no} ({row['line']}) não tem excesso "
                             f"(custo real não supera o previsto).")
        elif value > room:
            f.fail("amount", f"Excesso aprovado: no máximo o excesso efetivo de R$ {room} "
                             f"(custo real − previsto) na linha {line_no}.")
    f.done()
    assert row is not None and value is not None
    moment = now or store.now()

    def run(tx: Tx) -> None:
        tx.execute("UPDATE survey_cost_lines SET approved_overrun = ?, overrun_reason = ?, overrun_by = ?, "
                   "overrun_at = ? WHERE contract_id = ? AND line_no = ?",
                   [value, why, user.username, moment, c["id"], line_no])
        tx.audit("survey_overrun_approved", "contract", c["code"],
                 {"line_no": line_no, "approved_overrun": row["approved_overrun"], "reason": row["overrun_reason"]},
                 {"line_no": line_no, "approved_overrun": value, "reason": why})

    store.write(user.username, run)
    return next(ln for ln in _sheet_lines(_lines(store, c["id"])) if ln.line_no == line_no)


def survey_inputs_for(db: Store | Tx, contract: Mapping[str, Any]) -> SurveyInputs:
    """The surveyor's cost lines for the statement of an exploration/removal `contract`
    (row with id, organisation_id, wreck_id, surveyor_organisation_id): the sheets of the
    surveyor's survey contracts on the same wreck (NORMAM-10 0303 c 2 I). A line without
    its actual cost enters at its planned cost and is listed in `missing_actual`."""
    surveyor = contract.get("surveyor_organisation_id")
    if surveyor is None:
        return SurveyInputs(False, False, None, (), (), (), False)
    name = db.fetch_one("SELECT name FROM organisations WHERE id = ?", [surveyor])
    rows = db.fetch(
        "SELECT c.code, l.line_no, l.line, l.planned, l.actual, l.approved_overrun, l.overrun_reason "
        "FROM contracts c JOIN survey_cost_lines l ON l.contract_id = c.id "
        f"WHERE c.kind = '{SURVEY_KIND}' AND c.wreck_id = ? AND c.organisation_id = ? ORDER BY c.code, l.line_no",
        [contract["wreck_id"], surveyor])
    same = surveyor == contract["organisation_id"]
    lines = tuple(CostLine(r["line"], r["planned"], r["actual"] if r["actual"] is not None else r["planned"],
                           r["approved_overrun"]) for r in rows)
    missing = tuple(f"{r['code']} linha {r['line_no']} ({r['line']})" for r in rows if r["actual"] is None)
    return SurveyInputs(applies=not same, winner_is_surveyor=same, surveyor_name=name["name"] if name else None,
                        cost_lines=lines, line_refs=tuple((r["code"], r["line_no"], r["overrun_reason"]) for r in rows),
                        missing_actual=missing, no_sheet=not rows)


# -- inspection expenses (NORMAM-10 0306) ------------------------------------------------------
def list_inspection_expenses(store: Store, user: Principal, code: str) -> pd.DataFrame:
    """The inspection expenses and insurance recorded for a contract, oldest first."""
    require(user, "record_inspection_expenses")
    c = _scoped_contract(store, user, code)
    return store.fetch_df(
        "SELECT id, kind, description, amount, incurred_on, inspector, policy_number, coverage_from, coverage_to, "
        "recorded_by, recorded_at FROM inspection_expenses WHERE contract_id = ? ORDER BY incurred_on, id", [c["id"]])


def inspection_counts(store: Store, user: Principal) -> dict[str, int]:
    """Contract code → number of inspection expenses recorded, for the contracts the user may see
    that have any (dpc all; an explorer its own)."""
    require(user, "record_inspection_expenses")
    scope, params = access.contract_scope(user, "c")
    rows = store.fetch(f"SELECT c.code, count(*) AS n FROM inspection_expenses e JOIN contracts c "
                       f"ON c.id = e.contract_id WHERE {scope} GROUP BY c.code", params)
    return {r["code"]: int(r["n"]) for r in rows}


def inspection_totals(db: Store | Tx, contract_id: int) -> dict[str, Decimal]:
    """Σ amount per kind (only kinds with rows)."""
    rows = db.fetch("SELECT kind, sum(amount) AS total FROM inspection_expenses WHERE contract_id = ? "
                    "GROUP BY kind ORDER BY kind", [contract_id])
    return {r["kind"]: r["total"] for r in rows}


def record_inspection_expense(store: Store, user: Principal, code: str, data: Mapping[str, Any], *,
                              now: datetime | None = None) -> int:
    """Record one inspection expense or the inspectors' insurance of a contract (NORMAM-10 0306)."""
    require(user, "record_inspection_expenses")
    f = Form(data, allowed=("kind", "description", "amount", "incurred_on", "inspector", "policy_number",
                            "coverage_from", "coverage_to"))
    kind = f.choice("kind", "Tipo de despesa", EXPENSE_KINDS)
    desc = f.text("description", "Descrição", max_len=500)
    amount = _money(f, "amount", "Valor")
    day = f.date("incurred_on", "Data")
    inspector = f.text("inspector", "Fiscal", required=False, max_len=200)
    policy = f.text("policy_number", "Apólice", required=kind == "seguro", max_len=100)
    start = f.date("coverage_from", "Início da cobertura", required=kind == "seguro")
    end = f.date("coverage_to", "Fim da cobertura", required=kind == "seguro")
    if start is not None and end is not None and end < start:
        f.fail("coverage_to", "Fim da cobertura: não pode ser anterior ao início.")
    c = _scoped_contract(store, user, code)
    f.done()
    moment = now or store.now()

    def run(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO inspection_expenses (contract_id, kind, description, amount, incurred_on, inspector, "
            "policy_number, coverage_from, coverage_to, recorded_by, recorded_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [c["id"], kind, desc, amount, day, inspector, policy, start, end, user.username, moment]))
        tx.audit("inspection_expense_recorded", "contract", c["code"], None,
                 {"id": new_id, "kind": kind, "amount": amount, "incurred_on": day})
        return new_id

    return store.write(user.username, run)
