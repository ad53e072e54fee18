"""Partition — store side (issue 5; rules.md §3–§5; Lei 7.542/1986 arts. 20–22; NORMAM-10 0303 c 2 I, 0305).

What is stored here, over the commission's decisions in force (`item_valuation`):

- contract terms (`contracts`: modality I–IV, shares under their caps, the historical
  payment form, the value fixed before/after operations — art. 21 §3), validated at
  entry with pt-BR messages naming the field (the DB CHECKs are the last line) and
  audited before → after;
- the difficulty rubric of art. 21 §1 (weights: policy `difficulty_weights`), shown
  beside the share the Authority decided;
- the compensation of a cancelled contract (art. 22 sole paragraph; NORMAM-10 0305);
- the União's choice (art. 20 §4; art. 21 III): locks in/out, and stored runs of
  `valuation.partition.selection.select_pool` with their status, certified gap and chosen items.
  A run is *current* while its fingerprint still matches the stored data: the pool's
  count and total, the newest decision in force (decisions are append-only and
  `item_valuation` follows them, so any new decision moves it), the target and the locks;
- partition statements. A statement is computed from stored results: the totals are
  SQL sums over `item_valuation` (two scans), the chosen items come from the current stored runs,
  the survey lines from `valuation.partition.survey_sheets`; the arithmetic is
  `valuation.partition.rules.partition`, run over one aggregate item per group (the chosen
  items locked in, the rest locked out), so it costs the same for 10 or 10⁶ items.
  Measured for a million-item contract: ~15 ms computing the sums, ~5 ms when they are
  reused (see `_aggregates_memo`), against ~100 ms for pandas reading the rows and grouping.

Statements are append-only (architecture.md "Storage"): a draft is a row
(`status = 'rascunho'`); issuing INSERTs a new row `emitido`, numbered 'DP-YYYY/NNNN'
version 1, with its PDF and sha256; a correction issues version n+1 of the same number
pointing at the version it replaces. Nothing here ever UPDATEs or DELETEs a statement
row (no trigger needed: there is no code path that could), and a draft is issued only
while the data it was computed from is unchanged.

Access: dpc manages everything (`manage_partition`); an explorer reads only the ISSUED
statements of its own organisation (`read_statements`) — any other statement is "not
found"; the other roles are refused.
"""
from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import numpy as np

from valuation.core.errors import (
    AccessDenied,
    ConflictError,
    InputError,
    NotFound,
    Problem,
)
from valuation.core.forms import Form
from valuation.core.law import HISTORICAL_REWARD_CAP, OTHER_SHARE_CAP
from valuation.core.money import format_brl, format_count, format_share
from valuation.db.access import Principal, require
from valuation.db.search import fold
from valuation.partition.documents import (
    PDF_ITEM_LIMIT,
    StatementDoc,
    StatementItem,
    StatementLine,
    StatementSurveyLine,
    render_pdf,
    render_xlsx,
)
from valuation.partition.rubric import ACTIVITIES, suggested_other_share
from valuation.partition.rules import (
    COMPENSATION_FORMS,
    HISTORICAL_PAYMENTS,
    MODALITIES,
    ContractTerms,
    PartitionItem,
    PartitionResult,
    partition,
)
from valuation.partition.selection import (
    EXACT_LIMIT,
    TIME_LIMIT_S,
    Pool,
    SelectionResult,
    pool_from_arrow,
    select_pool,
)
from valuation.partition.survey_costs import BASIS_DEDUCTION
from valuation.partition.survey_sheets import (
    EXPENSE_BASIS,
    EXPENSE_LABELS,
    SurveyInputs,
    inspection_totals,
    survey_inputs_for,
)
from valuation.policies.defaults import DEFAULT_BY_KEY

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

    Db = Store | Tx

TERMS_KINDS: tuple[str, ...] = ("exploração", "remoção")
TERMS_FIELDS: tuple[str, ...] = ("modality", "historical_share", "historical_payment", "other_share",
                                 "fixed_amount", "salvage_award", "value_fixed")
# The labels the terms form shows (pages/contract_terms.py uses these very strings), so that every
# problem names the field as the user sees it.
FIELD_LABELS: dict[str, str] = {
    "modality": "Modalidade (art. 21)",
    "historical_share": "Recompensa pelos bens históricos (%)",
    "historical_payment": "Forma de pagamento da recompensa",
    "other_share": "Parcela dos demais bens (%)",
    "fixed_amount": "Soma em dinheiro (modalidade I, R$)",
    "salvage_award": "Valor por assistência e salvamento (modalidade IV, R$)",
    "value_fixed": "Valor fixado (art. 21 §3)",
    "compensation_share": "Parcela da compensação (%)",
    "compensation_form": "Forma da compensação",
    "sale_proceeds": "Produto da venda (R$)",
    "reason": "Fundamento",
}
VALUE_FIXED: tuple[str, ...] = ("antes", "depois")
SHARE_PLACES = 4
POOLS: tuple[str, ...] = ("historical", "other")
POOL_LABELS: dict[str, str] = {"historical": "bens históricos (art. 20 §4)",
                               "other": "demais bens (art. 21 III / art. 22 p.u.)"}
STATUS_PT: dict[str, str] = {"optimal": "ótima (comprovada)", "feasible": "viável", "infeasible": "inviável"}
# the steps `valuation.partition.selection` records in a result's method ('greedy+exchange+mitm'), in words
METHOD_STEPS_PT: dict[str, str] = {
    "enumeration": "enumeração completa", "dp": "programação dinâmica", "all": "todos os itens cabem no alvo",
    "greedy": "heurística gulosa", "exchange": "trocas", "mitm": "busca exata por metades",
    "milp": "programação inteira (HiGHS)", "lp-bound": "limite da relaxação linear", "none": "nenhum",
}


def method_pt(method: str | None) -> str:
    """'greedy+exchange+milp' → 'heurística gulosa, trocas, programação inteira (HiGHS)'."""
    if not method:
        return "—"
    return ", ".join(METHOD_STEPS_PT.get(step, step) for step in method.split("+"))
MIN_CORRECTION_REASON = 10
MAX_PAGE_SIZE = 500
NUMBER_PREFIX = "DP"
_MAX_MONEY = Decimal("9999999999999999.99")

__all__ = [
    "Compensation", "Difficulty", "PoolSummary", "SelectionOutcome", "SelectionRun", "StatementData",
    "TERMS_FIELDS", "compute_selection", "compute_statement", "create_draft", "current_compensation",
    "current_difficulty", "difficulty_weights", "forget_memos", "get_statement", "issue_statement", "item_ids_for_codes",
    "list_statements", "pool_items", "pool_summary", "record_difficulty", "run_breakdown", "save_selection",
    "selection_runs", "set_compensation", "set_contract_terms", "set_locks", "share_from_percent",
    "statement_contracts", "statement_items", "statement_pdf", "statement_xlsx",
]


# ======================================================================================
# Records
# ======================================================================================
@dataclass(frozen=True)
class Difficulty:
    """The rubric of art. 21 §1 in force for a contract."""

    scores: tuple[int, ...]            # in the order of valuation.partition.rubric.ACTIVITIES
    weights: tuple[Decimal, ...]
    suggested_share: Decimal
    note: str | None
    assessed_by: str
    assessed_at: datetime


@dataclass(frozen=True)
class Compensation:
    """The compensation granted on cancellation (art. 22 sole paragraph)."""

    id: int
    share: Decimal
    form: str                          # adjudication | sale_proceeds
    sale_proceeds: Decimal | None
    reason: str
    set_by: str
    set_at: datetime


@dataclass(frozen=True)
class SelectionRun:
    id: int
    pool: str
    label: str | None
    target: Decimal
    tolerance: Decimal
    status: str
    gap: Decimal
    method: str
    message: str
    candidates: int
    selected_count: int
    selected_value: Decimal
    residual: Decimal
    significance_handed: int
    significance_bound: int
    ran_by: str
    ran_at: datetime
    current: bool = False


@dataclass(frozen=True)
class PoolSummary:
    contract_code: str
    pool: str
    applicable: bool
    reason: str | None                 # why the choice does not apply (pt-BR)
    items: int
    total: Decimal
    must_keep: int
    locks_give: int
    locks_keep: int
    target: Decimal | None
    tolerance_policy: Decimal
    current_run: SelectionRun | None


@dataclass(frozen=True)
class SelectionOutcome:
    contract_code: str
    pool: str
    target: Decimal
    tolerance: Decimal
    items: int
    locks: dict[int, str]
    result: SelectionResult
    selected_ids: tuple[int, ...]
    by_significance: tuple[tuple[int, int, Decimal], ...]   # (significance, items, value) handed over
    fingerprint: str
    run_id: int | None = None


@dataclass(frozen=True)
class StatementData:
    """A statement computed from stored results (not yet stored)."""

    contract_id: int
    contract_code: str
    as_of: date
    terms: dict[str, Any]
    result: PartitionResult
    lines: tuple[StatementLine, ...]
    survey_lines: tuple[StatementSurveyLine, ...]
    historical_items: int
    other_items: int
    runs: dict[str, SelectionRun]
    warnings: tuple[str, ...]
    blockers: tuple[str, ...]
    fingerprint: str
    surveyor_organisation_id: int | None

    @property
    def net(self) -> Decimal:
        return self.result.net


# ======================================================================================
# Helpers: access, policies, parsing
# ======================================================================================
# One table, no join: a one-row lookup with joins costs DuckDB ~2 ms more to plan. The names
# a statement shows come with its other lookups (`_Lookups.names`).
_CONTRACT_SQL = (
    "SELECT id, code, kind, act, act_number, status, organisation_id, wreck_id, starts_on, work_ended_on, "
    "cancelled_on, cancel_reason, surveyor_organisation_id, modality, historical_share, historical_payment, "
    "other_share, fixed_amount, salvage_award, value_fixed FROM contracts WHERE code = ?")


def _contract(db: Db, user: Principal, code: str) -> dict[str, Any]:
    """The contract row, or NotFound (also for an explorer's neighbour: never 'forbidden')."""
    row = db.fetch_one(_CONTRACT_SQL, [code]) if isinstance(code, str) else None
    if row is None or (user.role == "explorer" and row["organisation_id"] != user.organisation_id):
        raise NotFound(f"Contrato {code} não encontrado.", what="contract", key=code)
    return row


def _policy(db: Db, key: str) -> Any:
    from valuation.policies.values import policy_in_force  # the one reader of the policy in force

    return policy_in_force(db, key).value  # an unreadable row: the default (shown on the policies page)


def selection_tolerance(db: Db) -> Decimal:
    """Policy `selection_tolerance` (fraction of the target, rules.md §3), default 0.01."""
    v = _policy(db, "selection_tolerance")
    try:
        d = Decimal(str(v))
    except (InvalidOperation, ValueError):
        d = Decimal(str(DEFAULT_BY_KEY["selection_tolerance"].value))
    return d if d.is_finite() and 0 <= d <= 1 else Decimal(str(DEFAULT_BY_KEY["selection_tolerance"].value))


def difficulty_weights(db: Db) -> tuple[Decimal, ...]:
    """Policy `difficulty_weights` (art. 21 §1): five non-negative weights, default all 1."""
    v = _policy(db, "difficulty_weights")
    default = tuple(Decimal(w) for w in DEFAULT_BY_KEY["difficulty_weights"].value)
    if not isinstance(v, (list, tuple)) or len(v) != len(ACTIVITIES):
        return default
    try:
        ws = tuple(Decimal(str(w)) for w in v if not isinstance(w, bool))
    except (InvalidOperation, ValueError):
        return default
    if len(ws) != len(ACTIVITIES) or any(not w.is_finite() or w < 0 for w in ws) or sum(ws) == 0:
        return default
    return ws


def share_from_percent(text: object, field: str, label: str | None = None) -> Decimal | None:
    """'30', '30,5', '30.5 %' → Decimal('0.30'), Decimal('0.305'); '' → None. For the pages:
    shares are typed in percent and stored as fractions. InputError names the field."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    raw = str(text).strip().rstrip("%").strip().replace(",", ".")
    try:
        d = Decimal(raw)
    except InvalidOperation:
        d = Decimal("NaN")
    name = label or FIELD_LABELS.get(field, field)
    if not d.is_finite() or d < 0:
        raise InputError(Problem(field, f"{name}: informe um percentual (por exemplo 30 ou 30,5)."))
    share = d / 100
    if share != share.quantize(Decimal(1).scaleb(-SHARE_PLACES)):
        raise InputError(Problem(field, f"{name}: no máximo {SHARE_PLACES - 2} casas decimais no percentual."))
    return share


def _money_arg(v: object) -> object:
    if isinstance(v, str) and "," in v:
        return v.strip().replace(".", "").replace(",", ".")
    return v


def _share(f: Form, key: str, *, required: bool) -> Decimal | None:
    return f.decimal(key, FIELD_LABELS[key], required=required, minimum=Decimal(0), places=SHARE_PLACES)


def _money_field(f: Form, key: str, *, required: bool) -> Decimal | None:
    f.data[key] = _money_arg(f.data.get(key))
    return f.decimal(key, FIELD_LABELS[key], required=required, minimum=Decimal(0), maximum=_MAX_MONEY)


def _dec(v: Any) -> Decimal | None:
    return None if v is None else Decimal(v)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _sha(value: Any) -> str:
    return hashlib.sha256(_json(value).encode("utf-8")).hexdigest()


# ======================================================================================
# Contract terms (arts. 20–21)
# ======================================================================================
def set_contract_terms(store: Store, user: Principal, code: str, data: Mapping[str, Any], *,
                       now: datetime | None = None) -> dict[str, Any]:
    """Record the payment terms of an exploration/removal contract (Lei 7.542 arts. 20 §2,
    21 I–IV, §1 and §3). Caps at entry: historical_share ≤ 0.40 (art. 20 §2), other_share
    ≤ 0.70 (art. 21 II and III); each problem names its field, in pt-BR, and nothing is
    written. Fields that the modality does not use are cleared. Returns the terms stored."""
    require(user, "manage_partition")
    f = Form(data, allowed=TERMS_FIELDS)
    modality = f.choice("modality", FIELD_LABELS["modality"], MODALITIES)
    hshare = _share(f, "historical_share", required=False)
    hcap: Decimal = HISTORICAL_REWARD_CAP.value
    ocap: Decimal = OTHER_SHARE_CAP.value
    if hshare is not None and hshare > hcap:
        f.fail("historical_share", f"{FIELD_LABELS['historical_share']}: no máximo {format_share(hcap)} do valor "
                                   f"total atribuído aos bens históricos ({HISTORICAL_REWARD_CAP.basis}).")
    hpay = f.choice("historical_payment", FIELD_LABELS["historical_payment"], HISTORICAL_PAYMENTS,
                    required=hshare is not None)
    if hshare is None and f.has("historical_payment"):
        f.fail("historical_share", f"{FIELD_LABELS['historical_share']}: informe a parcela para usar a forma de "
                                   "pagamento da recompensa.")
    needs_share = modality in ("II", "III")
    oshare = _share(f, "other_share", required=needs_share)
    if oshare is not None and oshare > ocap:
        f.fail("other_share", f"{FIELD_LABELS['other_share']}: no máximo {format_share(ocap)} do valor de mercado "
                              f"dos bens recuperados ({OTHER_SHARE_CAP.basis}).")
    fixed = _money_field(f, "fixed_amount", required=modality == "I")
    award = _money_field(f, "salvage_award", required=modality == "IV")
    value_fixed = f.choice("value_fixed", FIELD_LABELS["value_fixed"], VALUE_FIXED, required=False)
    c = _contract(store, user, code)
    if c["kind"] not in TERMS_KINDS:
        f.fail("contract", f"Contrato {code}: termos de partilha só em contratos de exploração ou remoção "
                           f"(este é de {c['kind']}; art. 18 parágrafo único, arts. 20–21).")
    f.done()
    after = {
        "modality": modality,
        "historical_share": hshare,
        "historical_payment": hpay if hshare is not None else None,
        "other_share": oshare if needs_share else None,
        "fixed_amount": fixed if modality == "I" else None,
        "salvage_award": award if modality == "IV" else None,
        "value_fixed": value_fixed,
    }
    before = {k: c[k] for k in TERMS_FIELDS}
    changed = {k for k in TERMS_FIELDS if before[k] != after[k]}
    if not changed:
        return after

    def run(tx: Tx) -> None:
        sets = ", ".join(f"{k} = ?" for k in TERMS_FIELDS)
        tx.execute(f"UPDATE contracts SET {sets} WHERE id = ?", [*(after[k] for k in TERMS_FIELDS), c["id"]])
        tx.audit("contract_terms_set", "contract", c["code"], {k: before[k] for k in sorted(changed)},
                 {k: after[k] for k in sorted(changed)})

    store.write(user.username, run)
    return after


# -- difficulty rubric (art. 21 §1) ----------------------------------------------------------
_SCORE_COLS = ("score_locating", "score_exploring", "score_removing", "score_preserving", "score_restoring")


def record_difficulty(store: Store, user: Principal, code: str, scores: Sequence[object], *,
                      note: str | None = None, now: datetime | None = None) -> Difficulty:
    """Store the five activity scores (0–4) of art. 21 §1 with the weights in force and the
    suggested share (`valuation.partition.rubric.suggested_other_share`). Append-only."""
    require(user, "manage_partition")
    problems: list[Problem] = []
    clean: list[int] = []
    if not isinstance(scores, Sequence) or isinstance(scores, (str, bytes)) or len(scores) != len(ACTIVITIES):
        raise InputError(Problem("scores", f"Rubrica: informe as {len(ACTIVITIES)} notas ("
                                           f"{', '.join(ACTIVITIES)})."))
    for name, s in zip(ACTIVITIES, scores):
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 4:
            problems.append(Problem(f"scores.{name}", f"Nota de {name}: um inteiro de 0 a 4."))
        else:
            clean.append(s)
    if note is not None and len(note) > 1000:
        problems.append(Problem("note", "Observação: no máximo 1000 caracteres."))
    c = _contract(store, user, code)
    if c["kind"] not in TERMS_KINDS:
        problems.append(Problem("contract", f"Contrato {code}: a rubrica de dificuldade só se aplica a contratos "
                                            "de exploração ou remoção (art. 21 §1)."))
    if problems:
        raise InputError(problems)
    weights = difficulty_weights(store)
    suggested = suggested_other_share(clean, weights)
    moment = now or store.now()

    def run(tx: Tx) -> None:
        tx.execute(f"INSERT INTO difficulty_assessments (contract_id, {', '.join(_SCORE_COLS)}, weights_json, "
                   "suggested_share, note, assessed_by, assessed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [c["id"], *clean, _json([str(w) for w in weights]), suggested, note or None, user.username,
                    moment])
        tx.audit("difficulty_assessed", "contract", c["code"], None,
                 {"scores": clean, "weights": [str(w) for w in weights], "suggested_share": suggested})

    store.write(user.username, run)
    return Difficulty(tuple(clean), weights, suggested, note or None, user.username, moment)


def current_difficulty(store: Store, user: Principal, code: str) -> Difficulty | None:
    """The latest rubric of the contract, or None."""
    require(user, "manage_partition")
    c = _contract(store, user, code)
    r = store.fetch_one("SELECT * FROM difficulty_assessments WHERE contract_id = ? ORDER BY id DESC LIMIT 1",
                        [c["id"]])
    if r is None:
        return None
    return Difficulty(tuple(int(r[k]) for k in _SCORE_COLS), tuple(Decimal(w) for w in json.loads(r["weights_json"])),
                      r["suggested_share"], r["note"], r["assessed_by"], r["assessed_at"])


# -- compensation on cancellation (art. 22 sole paragraph) -------------------------------------
def _compensation(db: Db, contract_id: int) -> Compensation | None:
    rows = db.fetch("SELECT * FROM cancellation_compensation WHERE contract_id = ?", [contract_id])
    if not rows:
        return None
    r = max(rows, key=lambda row: row["id"])  # the latest row is in force (append-only)
    return Compensation(r["id"], r["compensation_share"], r["compensation_form"], r["sale_proceeds"], r["reason"],
                        r["set_by"], r["set_at"])


def current_compensation(store: Store, user: Principal, code: str) -> Compensation | None:
    require(user, "manage_partition")
    return _compensation(store, _contract(store, user, code)["id"])


def set_compensation(store: Store, user: Principal, code: str, data: Mapping[str, Any], *,
                     now: datetime | None = None) -> Compensation:
    """The compensation of a cancelled contract (Lei 7.542 art. 22 sole paragraph; NORMAM-10
    0305): a share of the recovered non-historical items, adjudicated or paid from their sale,
    never above the contracted share (modalities II and III) — it may be below it."""
    require(user, "manage_partition")
    f = Form(data, allowed=("compensation_share", "compensation_form", "sale_proceeds", "reason"))
    share = _share(f, "compensation_share", required=True)
    form = f.choice("compensation_form", FIELD_LABELS["compensation_form"], COMPENSATION_FORMS)
    proceeds = _money_field(f, "sale_proceeds", required=form == "sale_proceeds")
    reason = f.text("reason", FIELD_LABELS["reason"], max_len=1000)
    if reason is not None and len(reason) < MIN_CORRECTION_REASON:
        f.fail("reason", f"{FIELD_LABELS['reason']}: descreva o fundamento (ao menos {MIN_CORRECTION_REASON} "
                         "caracteres).")
    c = _contract(store, user, code)
    if c["status"] != "cancelado":
        f.fail("contract", f"Contrato {code}: a compensação do art. 22 parágrafo único só se aplica a contrato "
                           f"cancelado (situação atual: {c['status']}).")
    if share is not None:
        if c["modality"] in ("II", "III") and c["other_share"] is not None and share > c["other_share"]:
            f.fail("compensation_share", f"{FIELD_LABELS['compensation_share']}: no máximo a parcela contratada de "
                                         f"{format_share(c['other_share'])} (Lei 7.542 art. 22 parágrafo único: "
                                         "pode ser inferior, nunca superior).")
        elif share > 1:
            f.fail("compensation_share", f"{FIELD_LABELS['compensation_share']}: no máximo 100 %.")
    f.done()
    moment = now or store.now()

    def run(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO cancellation_compensation (contract_id, compensation_share, compensation_form, "
            "sale_proceeds, reason, set_by, set_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [c["id"], share, form, proceeds if form == "sale_proceeds" else None, reason, user.username, moment]))
        tx.audit("cancellation_compensation_set", "contract", c["code"], None,
                 {"compensation_share": share, "compensation_form": form, "sale_proceeds": proceeds,
                  "reason": reason})
        return new_id

    new_id = store.write(user.username, run)
    assert share is not None and form is not None and reason is not None
    return Compensation(new_id, share, form, proceeds if form == "sale_proceeds" else None, reason, user.username,
                        moment)


# ======================================================================================
# The União's choice (art. 20 §4; art. 21 III)
# ======================================================================================
_MEMO_LOCK = threading.Lock()
_MEMO_PER_STORE = 256


@dataclass(frozen=True)
class _Agg:
    items: int            # items of the contract (decided or not)
    h_n: int
    h_total: Decimal
    o_n: int
    o_total: Decimal
    unpublished: int
    last_decision: int    # the newest decision in force: decisions are append-only, ids only grow
    h_last: int           # the newest decision in force among the historical items


_SUM_ALL = ("SELECT count(*) AS n, coalesce(sum(value_brl), 0) AS total, coalesce(max(decision_id), 0) AS last_decision, "
            "count(*) FILTER (WHERE NOT published) AS unpublished FROM item_valuation WHERE contract_id = ?")
_SUM_HIST = ("SELECT count(*) AS n, coalesce(sum(value_brl), 0) AS total, coalesce(max(decision_id), 0) AS last "
             "FROM item_valuation WHERE contract_id = ? AND historical")


def _agg_of(a: Mapping[str, Any], h: Mapping[str, Any], items: int) -> _Agg:
    cent = Decimal("0.01")
    h_total = Decimal(h["total"]).quantize(cent)
    return _Agg(items=items, h_n=int(h["n"]), h_total=h_total, o_n=int(a["n"]) - int(h["n"]),
                o_total=Decimal(a["total"]).quantize(cent) - h_total, unpublished=int(a["unpublished"]),
                last_decision=int(a["last_decision"]), h_last=int(h["last"]))


def _aggregates(db: Db, contract_id: int) -> _Agg:
    """Counts and exact SQL sums over the contract's decisions in force (two scans: ~3 ms each
    per million items). `last_decision` changes whenever the commission records a decision
    for one of the items (`item_valuation` follows the append-only `decisions`), so with the
    totals and the unpublished count it tells whether anything a statement used has changed."""
    return _agg_of(db.fetch_one(_SUM_ALL, [contract_id]) or {}, db.fetch_one(_SUM_HIST, [contract_id]) or {},
                   _item_count(db, contract_id))


# The sums of a contract are reused while the decisions in force are unchanged, which one
# scan of three cheap aggregates tells (~1.5 ms per million items against ~6 ms for the sums):
# the commission store only ever adds decisions (a new, larger id) and flips `published`, so
# any change moves the count, the newest decision id or the unpublished count. Drafts and
# issues re-check everything inside their transaction with full scans (`_aggregates` on a Tx).
_SUM_KEY = ("SELECT count(*) AS n, coalesce(max(decision_id), 0) AS last_decision, "
            "count(*) FILTER (WHERE NOT published) AS unpublished FROM item_valuation WHERE contract_id = ?")
_AGG_MEMO: weakref.WeakKeyDictionary[Any, dict[int, tuple[tuple[int, int, int], _Agg]]] = \
    weakref.WeakKeyDictionary()


def _aggregates_memo(store: Store, contract_id: int) -> _Agg:
    k = store.fetch_one(_SUM_KEY, [contract_id]) or {}
    key = (int(k["n"]), int(k["last_decision"]), int(k["unpublished"]))
    items = _item_count(store, contract_id)
    with _MEMO_LOCK:
        hit = _AGG_MEMO.get(store, {}).get(contract_id)
    if hit is not None and hit[0] == key:
        return replace(hit[1], items=items)
    agg = _agg_of(store.fetch_one(_SUM_ALL, [contract_id]) or {}, store.fetch_one(_SUM_HIST, [contract_id]) or {},
                  items)
    if (agg.h_n + agg.o_n, agg.last_decision, agg.unpublished) == key:  # nothing moved in between
        with _MEMO_LOCK:
            per_store = _AGG_MEMO.setdefault(store, {})
            if len(per_store) >= _MEMO_PER_STORE:
                per_store.clear()
            per_store[contract_id] = (key, agg)
    return agg


def _item_count(db: Db, contract_id: int) -> int:
    return int(db.scalar("SELECT count(*) FROM items WHERE contract_id = ?", [contract_id]) or 0)


def _locks(db: Db, contract_id: int) -> dict[str, dict[int, str]]:
    """The stored locks per pool (the pool of an item is its decision in force)."""
    rows = db.fetch("SELECT item_id, lock FROM selection_locks WHERE contract_id = ?", [contract_id])
    out: dict[str, dict[int, str]] = {"historical": {}, "other": {}}
    if not rows:
        return out
    marks = ", ".join("?" for _ in rows)
    hist = {int(r["item_id"]): r["historical"] for r in db.fetch(
        f"SELECT item_id, historical FROM item_valuation WHERE item_id IN ({marks})", [r["item_id"] for r in rows])}
    for r in rows:
        if int(r["item_id"]) in hist:
            out["historical" if hist[int(r["item_id"])] else "other"][int(r["item_id"])] = r["lock"]
    return out


def _base_terms(c: Mapping[str, Any], comp: Compensation | None) -> ContractTerms:
    """The stored terms as `valuation.partition.rules.ContractTerms` (no survey lines yet)."""
    if c["modality"] is None:
        raise InputError(Problem("modality", f"Contrato {c['code']}: termos de pagamento não registrados "
                                             "(modalidade do art. 21). Registre-os em Termos do contrato."))
    return ContractTerms(
        id=c["code"], historical_share=_dec(c["historical_share"]) or Decimal(0),
        historical_payment=c["historical_payment"] or "cash", modality=c["modality"],
        other_share=_dec(c["other_share"]), fixed_amount=_dec(c["fixed_amount"]),
        salvage_award=_dec(c["salvage_award"]), cancelled=c["status"] == "cancelado",
        compensation_share=comp.share if comp else None,
        compensation_form=comp.form if comp else "adjudication",
        sale_proceeds=comp.sale_proceeds if comp else None)


def _partition(terms: ContractTerms, items: Sequence[PartitionItem]) -> PartitionResult:
    """`valuation.partition.rules.partition`, its problems translated to pt-BR field messages."""
    try:
        return partition(terms, items)
    except InputError as exc:
        problems = []
        for p in exc.problems:
            field = p.path.removeprefix("contract.")
            label = FIELD_LABELS.get(field, field)
            message = p.message
            if field == "salvage_award" and p.message.startswith("must not exceed other_total"):
                other = sum((it.value for it in items if not it.historical), Decimal(0))
                message = (f"{format_brl(terms.salvage_award)} excede o valor dos demais bens resgatados "
                           f"({format_brl(other)}); a remuneração por salvamento não excede o valor salvo "
                           "(Lei 7.542 art. 21 IV)")
            problems.append(Problem(field, f"Termos do contrato {terms.id} inválidos — {label}: {message}."))
        raise InputError(problems) from exc


@dataclass(frozen=True)
class _Targets:
    historical: Decimal | None     # the reward to select for (None: no choice applies)
    historical_reason: str | None
    other: Decimal | None
    other_reason: str | None


def _targets(terms: ContractTerms, agg: _Agg) -> _Targets:
    """What each pool's choice must reach, as `partition` computes it (reward round(p_h × V_h);
    modality III / compensation target), from one aggregate item per group."""
    probe = _partition(replace(terms, historical_payment="cash", survey_costs=()),
                       [PartitionItem("h", True, agg.h_total, 0), PartitionItem("o", False, agg.o_total, 0)])
    if terms.cancelled:
        h, hr = None, "contrato cancelado: não há recompensa pelos bens históricos (art. 22 parágrafo único)"
    elif terms.historical_payment == "cash":
        h, hr = None, "a recompensa é paga em dinheiro: não há bens históricos a adjudicar"
    else:
        h, hr = probe.historical_reward, None
    if probe.other_target is None:
        o, orr = None, "a modalidade do contrato não adjudica os demais bens"
    else:
        o, orr = probe.other_target, None
    return _Targets(h, hr, o, orr)


def _pool_fingerprint(pool: str, agg: _Agg, target: Decimal | None, locks: Mapping[int, str]) -> str:
    """What a stored run of `pool` was computed from. A re-decided historical item moves `h_last`;
    the other pool, which is not scanned on its own, follows the contract's newest decision."""
    n, total, last = ((agg.h_n, agg.h_total, agg.h_last) if pool == "historical"
                      else (agg.o_n, agg.o_total, agg.last_decision))
    return _sha([pool, n, str(total), last, None if target is None else str(target), sorted(locks.items())])


def _run(r: Mapping[str, Any], current: bool = False) -> SelectionRun:
    return SelectionRun(id=int(r["id"]), pool=r["pool"], label=r["label"], target=r["target"],
                        tolerance=Decimal(r["tolerance"]).normalize(), status=r["status"], gap=r["gap"],
                        method=r["method"], message=r["message"], candidates=int(r["candidates"]),
                        selected_count=int(r["selected_count"]), selected_value=r["selected_value"],
                        residual=r["residual"], significance_handed=int(r["significance_handed"]),
                        significance_bound=int(r["significance_bound"]), ran_by=r["ran_by"], ran_at=r["ran_at"],
                        current=current)


def _current_run(db: Db, contract_id: int, pool: str, fingerprint: str) -> SelectionRun | None:
    r = db.fetch_one("SELECT * FROM selection_runs WHERE contract_id = ? AND pool = ? AND fingerprint = ? "
                     "ORDER BY id DESC LIMIT 1", [contract_id, pool, fingerprint])
    return None if r is None else _run(r, current=True)


def _check_pool(pool: str) -> None:
    if pool not in POOLS:
        raise InputError(Problem("pool", f"Grupo de bens desconhecido: {pool}."))


def _pool_context(db: Db, user: Principal, code: str, pool: str
                  ) -> tuple[dict[str, Any], _Agg, _Targets, dict[int, str]]:
    _check_pool(pool)
    c = _contract(db, user, code)
    agg = _aggregates(db, c["id"])
    targets = _targets(_base_terms(c, _compensation(db, c["id"])), agg)
    return c, agg, targets, _locks(db, c["id"])[pool]


def pool_summary(store: Store, user: Principal, code: str, pool: str = "historical") -> PoolSummary:
    """The pool the União chooses from: its decided items, total, locks, target and current run."""
    require(user, "manage_partition")
    c, agg, targets, locks = _pool_context(store, user, code, pool)
    target = targets.historical if pool == "historical" else targets.other
    reason = targets.historical_reason if pool == "historical" else targets.other_reason
    fp = _pool_fingerprint(pool, agg, target, locks)
    return PoolSummary(
        contract_code=c["code"], pool=pool, applicable=target is not None, reason=reason,
        items=agg.h_n if pool == "historical" else agg.o_n,
        total=agg.h_total if pool == "historical" else agg.o_total,
        must_keep=int(store.scalar("SELECT count(*) FROM item_valuation WHERE contract_id = ? AND historical = ? "
                                   "AND must_keep", [c["id"], pool == "historical"])),
        locks_give=sum(1 for v in locks.values() if v == "give"),
        locks_keep=sum(1 for v in locks.values() if v == "keep"),
        target=target, tolerance_policy=selection_tolerance(store),
        current_run=_current_run(store, c["id"], pool, fp) if target is not None else None)


def pool_items(store: Store, user: Principal, code: str, *, pool: str = "historical", page: int = 1,
               page_size: int = 50, search: str | None = None, locked_only: bool = False) -> tuple[pd.DataFrame, int]:
    """One page of the pool's decided items (item_id, item_code, description, value_brl,
    significance, must_keep, lock), by value descending; and the number of matching items."""
    require(user, "manage_partition")
    _check_pool(pool)
    if not isinstance(page, int) or page < 1 or not isinstance(page_size, int) or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise InputError(Problem("page", f"Página: inteiros positivos, até {MAX_PAGE_SIZE} itens por página."))
    c = _contract(store, user, code)
    where = ["iv.contract_id = ?", "iv.historical = ?"]
    params: list[Any] = [c["id"], pool == "historical"]
    if search and search.strip():
        where.append("(contains(lower(i.item_code), ?) OR contains(lower(strip_accents(i.description)), ?))")
        params += [search.strip().lower(), fold(search)]
    if locked_only:
        where.append("l.lock IS NOT NULL")
    base = (f"FROM item_valuation iv JOIN items i ON i.id = iv.item_id LEFT JOIN selection_locks l "
            f"ON l.contract_id = iv.contract_id AND l.item_id = iv.item_id WHERE {' AND '.join(where)}")
    # Without a search the count needs no item row (a million-row join less).
    counted = base if search and search.strip() else base.replace("JOIN items i ON i.id = iv.item_id ", "", 1)
    total = int(store.scalar(f"SELECT count(*) {counted}", params))
    cut = page * page_size - 1
    if counted != base and total > cut:
        # Issue 17: the page's lowest value first (a top-N of one column, no item row), then only the
        # items worth at least that are joined to their codes; the ties at the cut stay in, so the
        # order by (value, code) and the page are exactly those of the whole join.
        lowest = store.scalar(f"SELECT iv.value_brl {counted} ORDER BY iv.value_brl DESC LIMIT 1 OFFSET ?",
                              [*params, cut])
        if lowest is not None:
            base += " AND iv.value_brl >= ?"
            params = [*params, lowest]
    rows_params = [*params, page_size, (page - 1) * page_size]
    df = store.fetch_df(
        f"SELECT iv.item_id, i.item_code, i.description, iv.value_brl, iv.significance, iv.must_keep, l.lock "
        f"{base} ORDER BY iv.value_brl DESC, i.item_code LIMIT ? OFFSET ?", rows_params)
    return df, total


def item_ids_for_codes(store: Store, user: Principal, code: str, codes: Sequence[str], *,
                       pool: str = "historical") -> dict[str, int]:
    """Item codes of the pool → item ids; InputError listing the codes that are not in it."""
    require(user, "manage_partition")
    _check_pool(pool)
    c = _contract(store, user, code)
    wanted = list(dict.fromkeys(s.strip() for s in codes if isinstance(s, str) and s.strip()))
    if not wanted:
        return {}
    import pyarrow as pa
    cur = store.cursor()
    try:
        cur.register("_wanted_codes", pa.table({"code": pa.array(wanted, pa.string())}))
        rows = cur.execute(
            "SELECT i.item_code, i.id FROM _wanted_codes w JOIN items i ON i.item_code = w.code AND i.contract_id = ? "
            "JOIN item_valuation iv ON iv.item_id = i.id AND iv.historical = ?", [c["id"], pool == "historical"]
        ).fetchall()
    finally:
        cur.close()
    found = {r[0]: int(r[1]) for r in rows}
    missing = [w for w in wanted if w not in found]
    if missing:
        shown = ", ".join(missing[:20]) + (" …" if len(missing) > 20 else "")
        raise InputError(Problem("codes", f"Itens fora dos {POOL_LABELS[pool]} decididos do contrato {code}: {shown}."))
    return found


def set_locks(store: Store, user: Principal, code: str, locks: Mapping[int, str | None], *,
              now: datetime | None = None) -> int:
    """Lock decided items in ('give') or out ('keep') of the choice, or unlock (None).
    An item the commission marked must keep cannot be locked give. Returns the rows changed."""
    require(user, "manage_partition")
    c = _contract(store, user, code)
    clean: dict[int, str | None] = {}
    problems: list[Problem] = []
    for k, v in locks.items():
        if isinstance(k, bool) or not isinstance(k, int) or v not in (None, "give", "keep"):
            problems.append(Problem(f"locks.{k}", f"Trava do item {k}: use entregar, manter ou nenhuma."))
        else:
            clean[k] = v
    if problems:
        raise InputError(problems)
    if not clean:
        return 0
    ids = list(clean)
    marks = ", ".join("?" for _ in ids)
    rows = {int(r["item_id"]): r for r in store.fetch(
        f"SELECT iv.item_id, iv.must_keep, i.item_code FROM item_valuation iv JOIN items i ON i.id = iv.item_id "
        f"WHERE iv.contract_id = ? AND iv.item_id IN ({marks})", [c["id"], *ids])}
    for k, v in clean.items():
        if k not in rows:
            problems.append(Problem(f"locks.{k}", f"Item {k}: não é um bem decidido do contrato {code}."))
        elif v == "give" and rows[k]["must_keep"]:
            problems.append(Problem(f"locks.{k}", f"Item {rows[k]['item_code']}: a Comissão o marcou para "
                                                  "permanecer com a União (must keep); não pode ser travado para "
                                                  "entrega."))
    if problems:
        raise InputError(problems)
    moment = now or store.now()

    def run(tx: Tx) -> int:
        before = {int(r["item_id"]): r["lock"] for r in tx.fetch(
            f"SELECT item_id, lock FROM selection_locks WHERE contract_id = ? AND item_id IN ({marks})",
            [c["id"], *ids])}
        changed = {k: v for k, v in clean.items() if before.get(k) != v}
        for k, v in changed.items():
            tx.execute("DELETE FROM selection_locks WHERE contract_id = ? AND item_id = ?", [c["id"], k])
            if v is not None:
                tx.execute("INSERT INTO selection_locks VALUES (?, ?, ?, ?, ?)", [c["id"], k, v, user.username, moment])
        if changed:
            tx.audit("selection_locks_set", "contract", c["code"],
                     {str(k): before.get(k) for k in changed}, {str(k): v for k, v in changed.items()})
        return len(changed)

    return store.write(user.username, run)


def _pool_arrays(store: Store, contract_id: int, pool: str, locks: Mapping[int, str]) -> Pool:
    """The pool's decided items as arrays (read through Arrow: exact integer cents, no Python
    object per item). A historical item without a significance score counts as 1 (ordinary);
    the other pool has no significance (0)."""
    cur = store.cursor()
    try:
        t = cur.sql("SELECT item_id, value_brl, CASE WHEN historical THEN coalesce(significance, 1) ELSE 0 END "
                    "AS significance, must_keep FROM item_valuation WHERE contract_id = ? AND historical = ? "
                    "ORDER BY item_id", params=[contract_id, pool == "historical"]).to_arrow_table()
    finally:
        cur.close()
    return pool_from_arrow(t.column("item_id"), t.column("value_brl"), t.column("significance"),
                           t.column("must_keep"), locks)


def compute_selection(store: Store, user: Principal, code: str, *, pool: str = "historical",
                      tolerance: Decimal | None = None, lock_overrides: Mapping[int, str | None] | None = None,
                      exact_limit: int = EXACT_LIMIT, time_limit_s: float = TIME_LIMIT_S) -> SelectionOutcome:
    """Run the União's choice (Lei 7.542 art. 20 §4; rules.md §3) over the pool's decided
    items with the stored locks (`lock_overrides` on top: None unlocks) — nothing is written.
    The historical pool minimises the significance handed over (stage 2); the other pool
    (art. 21 III, art. 22 p.u.) only maximises the value (stage 1)."""
    require(user, "manage_partition")
    c, agg, targets, stored = _pool_context(store, user, code, pool)
    target = targets.historical if pool == "historical" else targets.other
    if target is None:
        reason = targets.historical_reason if pool == "historical" else targets.other_reason
        raise InputError(Problem("pool", f"Contrato {code}: {reason}."))
    tol = selection_tolerance(store) if tolerance is None else tolerance
    if not isinstance(tol, Decimal) or not tol.is_finite() or not 0 <= tol <= 1:
        raise InputError(Problem("tolerance", "Tolerância: uma fração entre 0 e 1 (por exemplo 0,01 = 1 %)."))
    locks = dict(stored)
    for k, v in (lock_overrides or {}).items():
        if v is None:
            locks.pop(int(k), None)
        elif v in ("give", "keep"):
            locks[int(k)] = v
        else:
            raise InputError(Problem(f"locks.{k}", f"Trava do item {k}: use entregar, manter ou nenhuma."))
    items = _pool_arrays(store, c["id"], pool, locks)
    keys = np.fromiter(locks, dtype=np.int64, count=len(locks))
    strays = keys[~np.isin(keys, items.ids)].tolist()
    if strays:
        raise InputError(Problem("locks", f"Itens travados fora dos {POOL_LABELS[pool]} decididos: "
                                          f"{', '.join(map(str, strays[:20]))}."))
    result = select_pool(items, target, tol, minimise_significance=pool == "historical",
                         exact_limit=exact_limit, time_limit_s=time_limit_s)
    selected = np.array([int(i) for i in result.selected], dtype=np.int64)
    chosen = np.isin(items.ids, selected)
    by_sig = []
    for level in np.unique(items.significance[chosen]):
        mask = chosen & (items.significance == level)
        by_sig.append((int(level), int(mask.sum()),
                       Decimal(int(items.units[mask].sum())).scaleb(-items.decimals)))
    return SelectionOutcome(
        contract_code=c["code"], pool=pool, target=target, tolerance=tol, items=len(items), locks=locks,
        result=result, selected_ids=tuple(int(i) for i in selected),
        by_significance=tuple(by_sig), fingerprint=_pool_fingerprint(pool, agg, target, locks))


def save_selection(store: Store, user: Principal, code: str, *, pool: str = "historical",
                   tolerance: Decimal | None = None, lock_overrides: Mapping[int, str | None] | None = None,
                   label: str | None = None, now: datetime | None = None,
                   exact_limit: int = EXACT_LIMIT, time_limit_s: float = TIME_LIMIT_S) -> SelectionOutcome:
    """Compute the choice and store it as the contract's run (and the locks it used as the
    contract's locks). An infeasible choice is refused (InputError), nothing written; a
    change of the data meanwhile is a ConflictError."""
    out = compute_selection(store, user, code, pool=pool, tolerance=tolerance, lock_overrides=lock_overrides,
                            exact_limit=exact_limit, time_limit_s=time_limit_s)
    res = out.result
    if res.status == "infeasible":
        raise InputError(Problem("locks", f"Escolha inviável com estas travas: {res.message}."))
    moment = now or store.now()

    def run(tx: Tx) -> int:
        import pyarrow as pa

        c, agg, targets, stored = _pool_context(tx, user, code, pool)
        for k, v in (lock_overrides or {}).items():
            k = int(k)
            if stored.get(k) == v:
                continue
            tx.execute("DELETE FROM selection_locks WHERE contract_id = ? AND item_id = ?", [c["id"], k])
            if v is not None:
                tx.execute("INSERT INTO selection_locks VALUES (?, ?, ?, ?, ?)",
                           [c["id"], k, v, user.username, moment])
        locks = _locks(tx, c["id"])[pool]
        target = targets.historical if pool == "historical" else targets.other
        if _pool_fingerprint(pool, agg, target, locks) != out.fingerprint:
            raise ConflictError("As decisões, os termos ou as travas mudaram durante o cálculo; calcule de novo.")
        run_id = int(tx.scalar(
            """INSERT INTO selection_runs (contract_id, pool, label, target, tolerance, minimise_significance,
                   candidates, locks_give, locks_keep, status, gap, method, message, selected_count, selected_value,
                   residual, significance_handed, significance_bound, fingerprint, ran_by, ran_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
            [c["id"], pool, label, out.target, out.tolerance, pool == "historical", out.items,
             sum(1 for v in locks.values() if v == "give"), sum(1 for v in locks.values() if v == "keep"),
             res.status, res.gap, res.method, res.message, len(out.selected_ids), res.selected_value, res.residual,
             res.significance_handed, res.significance_bound, out.fingerprint, user.username, moment]))
        if out.selected_ids:
            tx.insert_frame("selection_run_items", pa.table({
                "run_id": pa.array([run_id] * len(out.selected_ids), pa.int64()),
                "item_id": pa.array(out.selected_ids, pa.int64())}))
        tx.audit("selection_saved", "contract", c["code"], None,
                 {"run_id": run_id, "pool": pool, "target": out.target, "tolerance": out.tolerance,
                  "status": res.status, "gap": res.gap, "selected": len(out.selected_ids),
                  "selected_value": res.selected_value})
        return run_id

    run_id = store.write(user.username, run)
    return replace(out, run_id=run_id)


def selection_runs(store: Store, user: Principal, code: str, pool: str | None = None) -> list[SelectionRun]:
    """The stored runs of a contract, newest first; `current` marks the run the statement uses."""
    require(user, "manage_partition")
    c = _contract(store, user, code)
    rows = store.fetch("SELECT * FROM selection_runs WHERE contract_id = ? AND (? IS NULL OR pool = ?) "
                       "ORDER BY id DESC", [c["id"], pool, pool])
    currents: set[int] = set()
    if rows:
        agg = _aggregates(store, c["id"])
        targets = _targets(_base_terms(c, _compensation(store, c["id"])), agg)
        locks = _locks(store, c["id"])
        for p in POOLS:
            t = targets.historical if p == "historical" else targets.other
            if t is not None:
                cur = _current_run(store, c["id"], p, _pool_fingerprint(p, agg, t, locks[p]))
                if cur is not None:
                    currents.add(cur.id)
    return [_run(r, current=int(r["id"]) in currents) for r in rows]


def run_breakdown(store: Store, user: Principal, run_id: int) -> pd.DataFrame:
    """Items and value handed over per significance level in a stored run (for the charts)."""
    require(user, "manage_partition")
    return store.fetch_df(
        "SELECT coalesce(iv.significance, 1) AS significance, count(*) AS items, sum(iv.value_brl) AS value_brl "
        "FROM selection_run_items ri JOIN item_valuation iv ON iv.item_id = ri.item_id WHERE ri.run_id = ? "
        "GROUP BY ALL ORDER BY 1", [run_id])


# ======================================================================================
# Statements
# ======================================================================================
@dataclass(frozen=True)
class _Inputs:
    contract: dict[str, Any]
    agg: _Agg
    comp: Compensation | None
    terms: ContractTerms
    targets: _Targets
    runs: dict[str, SelectionRun | None]       # current run per pool whose choice applies
    survey: SurveyInputs
    inspection: dict[str, Decimal]
    names: dict[str, str]

    def fingerprint(self) -> str:
        c = self.contract
        return _sha({
            "contract": {k: c[k] for k in ("id", "status", "organisation_id", "surveyor_organisation_id",
                                           *TERMS_FIELDS)},
            "agg": [self.agg.items, self.agg.h_n, str(self.agg.h_total), self.agg.o_n, str(self.agg.o_total),
                    self.agg.unpublished, self.agg.last_decision],
            "comp": self.comp.id if self.comp else None,
            "runs": {p: (r.id if r else None) for p, r in sorted(self.runs.items())},
            "survey": [[str(x) for x in (ln.line, ln.planned, ln.actual, ln.approved_overrun)]
                       for ln in self.survey.cost_lines] + [list(map(str, ref)) for ref in self.survey.line_refs],
            "inspection": {k: str(v) for k, v in sorted(self.inspection.items())},
        })


@dataclass(frozen=True)
class _Lookups:
    """The small per-contract state a statement reads besides the contract row and the sums."""

    comp: Compensation | None
    survey: SurveyInputs
    locks: dict[str, dict[int, str]]
    run_rows: tuple[dict[str, Any], ...]
    inspection: dict[str, Decimal]
    names: dict[str, str]          # organisation_name, wreck_code, wreck_name


# Memo of _Lookups per Store and contract, valid while the audit log's head is unchanged: every
# write to the tables behind _Lookups (compensation, survey sheets, locks, runs, inspection
# expenses) is made by this package's functions and audited in the same transaction, so any such
# write moves the head. The contract row and the sums over the decisions are read every time.
_MEMO: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], tuple[int, _Lookups]]] = weakref.WeakKeyDictionary()


def forget_memos() -> None:
    """Drop the memoised sums and lookups of every store (they are rebuilt on the next statement)."""
    with _MEMO_LOCK:
        _MEMO.clear()
        _AGG_MEMO.clear()


def _read_lookups(db: Db, c: Mapping[str, Any]) -> _Lookups:
    return _Lookups(comp=_compensation(db, c["id"]), survey=survey_inputs_for(db, c), locks=_locks(db, c["id"]),
                    run_rows=tuple(db.fetch("SELECT * FROM selection_runs WHERE contract_id = ?", [c["id"]])),
                    inspection=inspection_totals(db, c["id"]),
                    names=db.fetch_one("SELECT o.name AS organisation_name, w.code AS wreck_code, w.name AS wreck_name "
                                       "FROM organisations o, wrecks w WHERE o.id = ? AND w.id = ?",
                                       [c["organisation_id"], c["wreck_id"]]) or {})


def _lookups(db: Db, c: Mapping[str, Any], in_tx: bool) -> _Lookups:
    if in_tx:
        return _read_lookups(db, c)
    head = int(db.scalar("SELECT coalesce(max(id), 0) FROM audit_log"))  # read before the lookups
    key = (c["id"], c["wreck_id"], c["organisation_id"], c["surveyor_organisation_id"])  # what the survey depends on
    with _MEMO_LOCK:
        hit = _MEMO.get(db, {}).get(key)
    if hit is not None and hit[0] == head:
        return hit[1]
    fresh = _read_lookups(db, c)
    with _MEMO_LOCK:
        per_store = _MEMO.setdefault(db, {})
        if len(per_store) >= _MEMO_PER_STORE:
            per_store.clear()
        per_store[key] = (head, fresh)
    return fresh


def _gather(db: Db, c: dict[str, Any]) -> _Inputs:
    """Everything a statement is computed from. From a Store the sums and the small lookups are
    memoised while what they depend on is unchanged; inside a transaction (a Tx) everything is
    read afresh on its cursor."""
    in_tx = getattr(db, "cur", None) is not None
    look = _lookups(db, c, in_tx)
    agg = _aggregates(db, c["id"]) if in_tx else _aggregates_memo(db, c["id"])  # type: ignore[arg-type]
    terms = replace(_base_terms(c, look.comp), winner_is_surveyor=look.survey.winner_is_surveyor,
                    survey_costs=look.survey.cost_lines)
    targets = _targets(terms, agg)
    by_fp: dict[tuple[str, str], dict[str, Any]] = {}
    for r in sorted(look.run_rows, key=lambda row: row["id"]):
        by_fp[(r["pool"], r["fingerprint"])] = r  # the latest run of each fingerprint wins
    runs: dict[str, SelectionRun | None] = {}
    for pool, target, n in (("historical", targets.historical, agg.h_n), ("other", targets.other, agg.o_n)):
        if target is not None and target > 0 and n > 0:
            row = by_fp.get((pool, _pool_fingerprint(pool, agg, target, look.locks[pool])))
            runs[pool] = None if row is None else _run(row, current=True)
    return _Inputs(contract=c, agg=agg, comp=look.comp, terms=terms, targets=targets, runs=runs,
                   survey=look.survey, inspection=look.inspection, names=look.names)


def _group_items(pool: str, total: Decimal, needed: bool, run: SelectionRun | None) -> list[PartitionItem]:
    """One aggregate item per group: the stored choice locked in, the rest locked out."""
    hist = pool == "historical"
    if needed:
        assert run is not None
        return [PartitionItem(f"{pool}:escolhidos", hist, run.selected_value, 0, False, "give"),
                PartitionItem(f"{pool}:demais", hist, total - run.selected_value, 0, False, "keep")]
    return [PartitionItem(f"{pool}:todos", hist, total, 0, False, None)]


def _statement(inputs: _Inputs, as_of: date) -> StatementData:
    c, agg, terms = inputs.contract, inputs.agg, inputs.terms
    missing = [p for p, r in inputs.runs.items() if r is None]
    if missing:
        raise ConflictError(f"Contrato {c['code']}: a escolha da União ({', '.join(POOL_LABELS[p] for p in missing)}) "
                            "não foi gravada ou está desatualizada; grave-a na página Escolha da União "
                            "(ou gere o rascunho, que a calcula com as travas gravadas).")
    items = (_group_items("historical", agg.h_total, "historical" in inputs.runs, inputs.runs.get("historical"))
             + _group_items("other", agg.o_total, "other" in inputs.runs, inputs.runs.get("other")))
    res = _partition(terms, items)
    basis = {b.field: b.article for b in res.basis}
    lines: list[StatementLine] = []

    def add(section: str, key: str, label: str, amount: Decimal | None, art: str, detail: str | None = None) -> None:
        lines.append(StatementLine(len(lines) + 1, section, key, label, amount, detail, art))

    s1 = "Bens de valor histórico (art. 20)"
    add(s1, "historical_total", "Valor total atribuído aos bens históricos", res.historical_total,
        basis["historical_total"], f"{format_count(agg.h_n)} bem(ns) classificado(s) pela Comissão de peritos")
    hrun = inputs.runs.get("historical")
    if res.cancelled:
        add(s1, "historical_reward", "Recompensa pelos bens históricos: nenhuma (contrato cancelado)",
            res.historical_reward, basis["historical_reward"])
    else:
        add(s1, "historical_reward", f"Recompensa: {format_share(terms.historical_share)} do valor dos bens históricos",
            res.historical_reward, basis["historical_reward"])
        if terms.historical_payment == "cash":
            add(s1, "cash_balance", "Recompensa paga em dinheiro", res.cash_balance, basis["cash_balance"])
        else:
            detail = "nenhum bem a adjudicar"
            if hrun is not None:
                detail = (f"{format_count(hrun.selected_count)} bem(ns) escolhido(s) pela União; significância "
                          f"entregue {hrun.significance_handed}; solução {STATUS_PT.get(hrun.status, hrun.status)}"
                          + (f", lacuna certificada ≤ {_pct(hrun.gap)}" if hrun.status != "optimal" else ""))
            add(s1, "adjudicated", "Bens históricos adjudicados ao concessionário (escolha da União)",
                res.adjudicated_value, basis["adjudicated"], detail)
            if terms.historical_payment == "adjudication_with_cash_balance":
                add(s1, "cash_balance", "Saldo da recompensa pago em dinheiro", res.cash_balance,
                    basis["cash_balance"])
            else:
                add(s1, "unpaid_residual", "Resíduo da recompensa não pago (contrato sem saldo em dinheiro)",
                    res.unpaid_residual, basis["unpaid_residual"])
    s2 = "Demais bens recuperados (art. 21)"
    add(s2, "other_total", "Valor de mercado dos demais bens", res.other_total, basis["other_total"],
        f"{format_count(agg.o_n)} bem(ns)")
    orun = inputs.runs.get("other")
    odetail = None
    if res.cancelled:
        comp = inputs.comp
        if comp is None:
            olabel = "Compensação no cancelamento: nenhuma concedida"
        elif comp.form == "sale_proceeds":
            olabel = (f"Compensação: {format_share(comp.share)} do produto da venda "
                      f"({format_brl(comp.sale_proceeds)})")
        else:
            olabel = f"Compensação: bens adjudicados até {format_share(comp.share)} do valor dos demais bens"
            odetail = f"{format_count(orun.selected_count)} bem(ns) adjudicado(s)" if orun else None
    elif terms.modality == "I":
        olabel = "Soma em dinheiro (modalidade I)"
    elif terms.modality == "II":
        olabel = f"{format_share(terms.other_share)} do valor de mercado dos demais bens (modalidade II)"
    elif terms.modality == "III":
        olabel = f"Bens adjudicados até {format_share(terms.other_share)} do valor dos demais bens (modalidade III)"
        odetail = (f"alvo {format_brl(res.other_target)}; "
                   + (f"{format_count(orun.selected_count)} bem(ns) adjudicado(s)" if orun
                      else "nenhum bem a adjudicar"))
    else:
        olabel = "Pagamento por assistência e salvamento (modalidade IV)"
    add(s2, "other_payment", olabel, res.other_payment, basis["other_payment"], odetail)
    s3 = "Totais"
    add(s3, "gross", "Valor bruto devido ao concessionário", res.gross, basis["gross"])
    survey = inputs.survey
    if survey.applies and survey.cost_lines:
        add(s3, "survey_deduction", f"(−) Dedução dos gastos do pesquisador ({survey.surveyor_name})",
            -res.survey_deduction, basis["survey_deduction"],
            f"gastos aceitos {format_brl(res.survey_accepted_total)}")
    elif survey.winner_is_surveyor:
        add(s3, "survey_deduction", "(−) Dedução dos gastos do pesquisador: não se aplica (o concessionário é "
            "o próprio pesquisador)", -res.survey_deduction, basis["survey_deduction"])
    add(s3, "net", "Valor líquido em favor do concessionário", res.net, basis["net"])
    if survey.applies and survey.cost_lines:
        s4 = "Crédito ao pesquisador (NORMAM-10 0303 c 2 I)"
        add(s4, "surveyor_credit", f"Crédito ao pesquisador {survey.surveyor_name} (gastos de localização do bem)",
            res.survey_deduction, BASIS_DEDUCTION)
        if res.survey_uncovered > 0:
            add(s4, "survey_uncovered", "Gastos aceitos não cobertos pelo valor bruto (não pagos pelo concessionário)",
                res.survey_uncovered, BASIS_DEDUCTION)
    for kind, total in inputs.inspection.items():
        add("Despesas de fiscalização (NORMAM-10 0306) — a cargo do autorizado, informativo", f"inspection:{kind}",
            EXPENSE_LABELS.get(kind, kind), total, EXPENSE_BASIS.get(kind, "NORMAM-10 0306"))

    survey_lines = tuple(
        StatementSurveyLine(i + 1, ref[0], s.line, s.planned, s.actual, s.approved_overrun, ref[2], s.accepted,
                            s.variance)
        for i, (s, ref) in enumerate(zip(res.survey_lines, survey.line_refs)))

    warnings: list[str] = []
    blockers: list[str] = []
    undecided = agg.items - agg.h_n - agg.o_n
    if undecided > 0:
        warnings.append(f"{format_count(undecided)} bem(ns) do contrato ainda sem decisão da Comissão (art. 20 §3): "
                        "fora deste demonstrativo.")
    if agg.unpublished:
        blockers.append(f"{format_count(agg.unpublished)} decisão(ões) da Comissão ainda não publicada(s): publique "
                        "a rodada antes de emitir o demonstrativo.")
    for pool, run in inputs.runs.items():
        if run is not None and run.status != "optimal":
            warnings.append(f"Escolha da União ({POOL_LABELS[pool]}): {run.message}.")
    if c["value_fixed"] == "depois" and c["work_ended_on"] is None and not res.cancelled:
        warnings.append("Valor a fixar depois do término das operações (art. 21 §3), ainda não encerradas: "
                        "demonstrativo parcial.")
    if survey.applies and survey.no_sheet:
        warnings.append(f"O pesquisador {survey.surveyor_name} não entregou planilha de custos "
                        "(NORMAM-10 0301 a 6): nada a deduzir.")
    if survey.applies and survey.missing_actual:
        shown = "; ".join(survey.missing_actual[:10]) + (" …" if len(survey.missing_actual) > 10 else "")
        blockers.append(f"Custo real do relatório final (NORMAM-10 0301 c) não informado: {shown}. "
                        "Calculado provisoriamente pelo custo previsto.")
    # partition's own notes, except those the lines above already state (choice status, uncovered costs)
    warnings += [m[:1].upper() + m[1:] + ("." if not m.endswith(".") else "") for m in res.messages
                 if not m.startswith(("escolha", "gastos"))]

    snapshot = {
        "contract": {"code": c["code"], "kind": c["kind"], "act": c["act_number"], "status": c["status"],
                     "organisation": inputs.names.get("organisation_name"), "wreck_code": inputs.names.get("wreck_code"),
                     "wreck_name": inputs.names.get("wreck_name"), "surveyor": survey.surveyor_name},
        "modality": terms.modality, "historical_share": str(terms.historical_share),
        "historical_payment": terms.historical_payment,
        "other_share": None if terms.other_share is None else str(terms.other_share),
        "fixed_amount": None if terms.fixed_amount is None else str(terms.fixed_amount),
        "salvage_award": None if terms.salvage_award is None else str(terms.salvage_award),
        "value_fixed": c["value_fixed"],
        "compensation": None if inputs.comp is None else {
            "share": str(inputs.comp.share), "form": inputs.comp.form,
            "sale_proceeds": None if inputs.comp.sale_proceeds is None else str(inputs.comp.sale_proceeds),
            "reason": inputs.comp.reason},
        "runs": {p: {"id": r.id, "target": str(r.target), "tolerance": str(r.tolerance), "status": r.status,
                     "gap": str(r.gap), "method": r.method} for p, r in inputs.runs.items() if r is not None},
    }
    return StatementData(
        contract_id=c["id"], contract_code=c["code"], as_of=as_of, terms=snapshot, result=res, lines=tuple(lines),
        survey_lines=survey_lines, historical_items=agg.h_n, other_items=agg.o_n,
        runs={p: r for p, r in inputs.runs.items() if r is not None}, warnings=tuple(warnings),
        blockers=tuple(blockers), fingerprint=inputs.fingerprint(),
        surveyor_organisation_id=c["surveyor_organisation_id"])


def _pct(g: Decimal) -> str:
    return f"{(g * 100).quantize(Decimal('0.0001'))} %".replace(".", ",")


def _statement_contract(db: Db, user: Principal, code: str) -> dict[str, Any]:
    c = _contract(db, user, code)
    if c["kind"] not in TERMS_KINDS:
        raise InputError(Problem("contract", f"Contrato {code}: demonstrativo de partilha só para contratos de "
                                             f"exploração ou remoção (este é de {c['kind']})."))
    return c


def compute_statement(store: Store, user: Principal, code: str, *, as_of: date) -> StatementData:
    """The statement of a contract computed from stored results (nothing written): SQL totals
    over `item_valuation`, the current stored choice, the surveyor's cost lines, the terms
    (Lei 7.542 arts. 20–22; NORMAM-10 0303 c 2 I). ConflictError when a choice the terms
    need is not stored or is out of date."""
    require(user, "manage_partition")
    c = _statement_contract(store, user, code)
    return _statement(_gather(store, c), as_of)


def _ensure_choices(store: Store, user: Principal, c: dict[str, Any], now: datetime | None) -> None:
    """Store the choice of each pool that needs one and has no current run (stored locks,
    tolerance policy)."""
    inputs = _gather(store, c)
    for pool, run in inputs.runs.items():
        if run is None:
            save_selection(store, user, c["code"], pool=pool, label="automática (rascunho do demonstrativo)",
                           now=now)


def _insert_statement(tx: Tx, data: StatementData, user: Principal, moment: datetime) -> int:
    res = data.result
    new_id = int(tx.scalar("SELECT nextval('seq_statements')"))
    tx.execute(
        """INSERT INTO statements (id, contract_id, status, as_of, cancelled, terms_json, fingerprint,
               historical_items, other_items, historical_total, historical_reward, adjudicated_value, cash_balance,
               unpaid_residual, other_total, other_payment, gross, survey_deduction, survey_uncovered, net,
               surveyor_organisation_id, warnings_json, blockers_json, created_by, created_at)
           VALUES (?, ?, 'rascunho', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [new_id, data.contract_id, data.as_of, res.cancelled, _json(data.terms), data.fingerprint,
         data.historical_items, data.other_items, res.historical_total, res.historical_reward,
         res.adjudicated_value, res.cash_balance, res.unpaid_residual, res.other_total, res.other_payment,
         res.gross, res.survey_deduction, res.survey_uncovered, res.net, data.surveyor_organisation_id,
         _json(list(data.warnings)), _json(list(data.blockers)), user.username, moment])
    for ln in data.lines:
        tx.execute("INSERT INTO statement_lines VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   [new_id, ln.line_no, ln.section, ln.key, ln.label, ln.amount, ln.detail, ln.basis])
    for s in data.survey_lines:
        tx.execute("INSERT INTO statement_survey_lines VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [new_id, s.line_no, s.survey_contract, s.line, s.planned, s.actual, s.approved_overrun,
                    s.overrun_reason, s.accepted, s.variance])
    for pool, run in data.runs.items():
        tx.execute("INSERT INTO statement_items SELECT ?, ri.item_id, ?, iv.value_brl, iv.significance "
                   "FROM selection_run_items ri JOIN item_valuation iv ON iv.item_id = ri.item_id "
                   "WHERE ri.run_id = ?", [new_id, pool, run.id])
    return new_id


def create_draft(store: Store, user: Principal, code: str, *, as_of: date, now: datetime | None = None) -> int:
    """Compute the contract's statement from stored results and store it as a draft
    (storing first the União's choice when the terms need one and none is current).
    Returns the draft's id. Append-only: an older draft stays as it was."""
    require(user, "manage_partition")
    if not isinstance(as_of, date):
        raise InputError(Problem("as_of", "Data-base: informe a data do demonstrativo."))
    c = _statement_contract(store, user, code)
    _ensure_choices(store, user, c, now)
    data = _statement(_gather(store, c), as_of)
    moment = now or store.now()

    def run(tx: Tx) -> int:
        if _gather(tx, _contract(tx, user, code)).fingerprint() != data.fingerprint:
            raise ConflictError("Os dados do contrato mudaram durante o cálculo; gere o rascunho de novo.")
        new_id = _insert_statement(tx, data, user, moment)
        tx.audit("statement_drafted", "statement", new_id, None,
                 {"contract": c["code"], "as_of": as_of, "net": data.net, "blockers": len(data.blockers)})
        return new_id

    return store.write(user.username, run)


def _next_number(tx: Tx, year: int) -> str:
    prefix = f"{NUMBER_PREFIX}-{year}/"
    n = int(tx.scalar("SELECT count(DISTINCT number) FROM statements WHERE starts_with(number, ?)", [prefix]))
    return f"{prefix}{n + 1:04d}"


def issue_statement(store: Store, user: Principal, draft_id: int, *, correction_reason: str | None = None,
                    now: datetime | None = None) -> StatementDoc:
    """Issue a draft: a new row 'emitido' with its number and version, its lines and items
    copied from the draft, and its PDF (kept with its sha256). The first issue of a contract
    is 'DP-YYYY/NNNN v1'; a later one is a correction — version n+1 of the same number,
    referencing the version it replaces, with its reason. The issued rows are never changed.
    Refused when the draft is not the contract's latest statement, when the data changed
    since the draft, or while it has blockers."""
    require(user, "manage_partition")
    moment = now or store.now()
    reason = correction_reason.strip() if isinstance(correction_reason, str) else None

    def run(tx: Tx) -> int:
        d = tx.fetch_one("SELECT id, contract_id, status, blockers_json, fingerprint FROM statements WHERE id = ?",
                         [draft_id])
        if d is None:
            raise NotFound(f"Demonstrativo {draft_id} não encontrado.", what="statement", key=draft_id)
        if d["status"] != "rascunho":
            raise ConflictError("Este demonstrativo já foi emitido e não se altera. Para corrigi-lo, gere um novo "
                                "rascunho e emita-o como nova versão.")
        code = tx.scalar("SELECT code FROM contracts WHERE id = ?", [d["contract_id"]])
        if tx.scalar("SELECT count(*) FROM statements WHERE contract_id = ? AND id > ?", [d["contract_id"], draft_id]):
            raise ConflictError("Há um rascunho ou uma emissão mais recente deste contrato; emita o mais recente.")
        blockers = json.loads(d["blockers_json"])
        if blockers:
            raise InputError([Problem("blockers", b) for b in blockers])
        if _gather(tx, _contract(tx, user, code)).fingerprint() != d["fingerprint"]:
            raise ConflictError("Os dados mudaram desde o rascunho (decisões, termos, escolha da União, custos ou "
                                "despesas); gere um novo rascunho.")
        prev = tx.fetch_one("SELECT id, number, version FROM statements WHERE contract_id = ? AND status = 'emitido' "
                            "ORDER BY version DESC LIMIT 1", [d["contract_id"]])
        if prev is None:
            number, version, supersedes, why = _next_number(tx, moment.year), 1, None, None
        else:
            if not reason or len(reason) < MIN_CORRECTION_REASON:
                raise InputError(Problem("correction_reason", f"Motivo da correção: obrigatório ao emitir nova versão "
                                                              f"de {prev['number']} v{prev['version']} (ao menos "
                                                              f"{MIN_CORRECTION_REASON} caracteres)."))
            number, version, supersedes, why = prev["number"], int(prev["version"]) + 1, int(prev["id"]), reason
        new_id = int(tx.scalar("SELECT nextval('seq_statements')"))
        draft = _load_doc(tx, draft_id, item_limit=PDF_ITEM_LIMIT)
        doc = replace(draft, id=new_id, status="emitido", number=number, version=version,
                      supersedes_label=f"{prev['number']} v{prev['version']}" if prev else None,
                      correction_reason=why, created_at=moment, created_by=user.username, superseded_by=None,
                      issuer_name=user.full_name)
        pdf = render_pdf(doc)
        sha = hashlib.sha256(pdf).hexdigest()
        cols = ("as_of, cancelled, terms_json, fingerprint, historical_items, other_items, historical_total, "
                "historical_reward, adjudicated_value, cash_balance, unpaid_residual, other_total, other_payment, "
                "gross, survey_deduction, survey_uncovered, net, surveyor_organisation_id, warnings_json, blockers_json")
        tx.execute(f"INSERT INTO statements (id, contract_id, status, number, version, supersedes, draft_id, "
                   f"correction_reason, {cols}, pdf, pdf_sha256, created_by, created_at) "
                   f"SELECT ?, contract_id, 'emitido', ?, ?, ?, id, ?, {cols}, ?, ?, ?, ? FROM statements WHERE id = ?",
                   [new_id, number, version, supersedes, why, pdf, sha, user.username, moment, draft_id])
        tx.execute("INSERT INTO statement_lines SELECT ?, line_no, section, key, label, amount, detail, basis "
                   "FROM statement_lines WHERE statement_id = ?", [new_id, draft_id])
        tx.execute("INSERT INTO statement_survey_lines SELECT ?, line_no, survey_contract, line, planned, actual, "
                   "approved_overrun, overrun_reason, accepted, variance FROM statement_survey_lines "
                   "WHERE statement_id = ?", [new_id, draft_id])
        tx.execute("INSERT INTO statement_items SELECT ?, item_id, grp, value_brl, significance FROM statement_items "
                   "WHERE statement_id = ?", [new_id, draft_id])
        tx.audit("statement_issued", "statement", new_id, None,
                 {"number": number, "version": version, "supersedes": supersedes, "draft": draft_id,
                  "net": doc.net, "pdf_sha256": sha, "correction_reason": why})
        return new_id

    new_id = store.write(user.username, run)
    return _load_doc(store, new_id, item_limit=PDF_ITEM_LIMIT)


# -- reading statements ------------------------------------------------------------------------
def _readable(db: Db, user: Principal, statement_id: int) -> dict[str, Any]:
    """The statement's head row if `user` may read it: dpc any; explorer only ISSUED ones of
    its own organisation (anything else is 'not found')."""
    require(user, "read_statements")
    row = db.fetch_one("SELECT s.id, s.status, c.organisation_id FROM statements s JOIN contracts c "
                       "ON c.id = s.contract_id WHERE s.id = ?", [statement_id]) \
        if isinstance(statement_id, int) and not isinstance(statement_id, bool) else None
    if row is None or (user.role == "explorer" and (row["status"] != "emitido"
                                                    or row["organisation_id"] != user.organisation_id)):
        raise NotFound(f"Demonstrativo {statement_id} não encontrado.", what="statement", key=statement_id)
    return row


_HEAD_COLS = ("s.id, s.contract_id, s.status, s.number, s.version, s.supersedes, s.correction_reason, s.as_of, "
              "s.cancelled, s.terms_json, s.gross, s.net, s.warnings_json, s.blockers_json, s.pdf_sha256, "
              "s.created_by, s.created_at")


def _load_doc(db: Db, statement_id: int, *, item_limit: int) -> StatementDoc:
    h = db.fetch_one(
        f"SELECT {_HEAD_COLS}, c.code AS contract_code, c.kind AS contract_kind, "
        "p.number || ' v' || p.version AS supersedes_label, "
        "(SELECT u.full_name FROM users u WHERE u.username = s.created_by) AS issuer_name, "
        "(SELECT n.number || ' v' || n.version FROM statements n WHERE n.supersedes = s.id LIMIT 1) AS superseded_by "
        "FROM statements s JOIN contracts c ON c.id = s.contract_id LEFT JOIN statements p ON p.id = s.supersedes "
        "WHERE s.id = ?", [statement_id])
    if h is None:
        raise NotFound(f"Demonstrativo {statement_id} não encontrado.", what="statement", key=statement_id)
    terms = json.loads(h["terms_json"])
    snap = terms.get("contract", {})
    lines = tuple(StatementLine(r["line_no"], r["section"], r["key"], r["label"], r["amount"], r["detail"], r["basis"])
                  for r in db.fetch("SELECT * FROM statement_lines WHERE statement_id = ? ORDER BY line_no",
                                    [statement_id]))
    survey = tuple(StatementSurveyLine(r["line_no"], r["survey_contract"], r["line"], r["planned"], r["actual"],
                                       r["approved_overrun"], r["overrun_reason"], r["accepted"], r["variance"])
                   for r in db.fetch("SELECT * FROM statement_survey_lines WHERE statement_id = ? ORDER BY line_no",
                                     [statement_id]))
    agg = db.fetch_one("SELECT count(*) AS n, coalesce(sum(value_brl), 0) AS v FROM statement_items "
                       "WHERE statement_id = ?", [statement_id]) or {"n": 0, "v": Decimal(0)}
    items = _items(db, statement_id, item_limit, 0)
    return StatementDoc(
        id=int(h["id"]), status=h["status"], number=h["number"], version=h["version"],
        supersedes_label=h["supersedes_label"], correction_reason=h["correction_reason"],
        contract_code=snap.get("code", h["contract_code"]), contract_act=snap.get("act"),
        contract_kind=snap.get("kind", h["contract_kind"]), contract_status=snap.get("status", "—"),
        organisation_name=snap.get("organisation", "—"), wreck_code=snap.get("wreck_code", "—"),
        wreck_name=snap.get("wreck_name", "—"), surveyor_name=snap.get("surveyor"), as_of=h["as_of"],
        created_at=h["created_at"], created_by=h["created_by"], cancelled=bool(h["cancelled"]), terms=terms,
        net=h["net"], gross=h["gross"], lines=lines, survey_lines=survey, items=items, items_total=int(agg["n"]),
        items_value=Decimal(agg["v"]).quantize(Decimal("0.01")),
        warnings=tuple(json.loads(h["warnings_json"])), blockers=tuple(json.loads(h["blockers_json"])),
        pdf_sha256=h["pdf_sha256"], superseded_by=h["superseded_by"], issuer_name=h["issuer_name"])


def _items(db: Db, statement_id: int, limit: int, offset: int) -> tuple[StatementItem, ...]:
    rows = db.fetch("SELECT si.item_id, i.item_code, i.description, si.grp, si.significance, si.value_brl "
                    "FROM statement_items si JOIN items i ON i.id = si.item_id WHERE si.statement_id = ? "
                    "ORDER BY si.value_brl DESC, i.item_code LIMIT ? OFFSET ?", [statement_id, limit, offset])
    return tuple(StatementItem(int(r["item_id"]), r["item_code"], r["description"], r["grp"], r["significance"],
                               r["value_brl"]) for r in rows)


def list_statements(store: Store, user: Principal, code: str | None = None) -> pd.DataFrame:
    """Statements the user may read, newest first: dpc all (drafts too); an explorer only the
    issued statements of its own organisation. Columns: id, contract_code, status, label,
    number, version, as_of, net, created_at, created_by, superseded (a later version exists)."""
    require(user, "read_statements")
    where, params = ["TRUE"], []
    if user.role == "explorer":
        where += ["s.status = 'emitido'", "c.organisation_id = ?"]
        params.append(user.organisation_id)
    if code:
        where.append("c.code = ?")
        params.append(code)
    return store.fetch_df(
        "SELECT s.id, c.code AS contract_code, o.name AS organisation_name, s.status, "
        "CASE WHEN s.status = 'emitido' THEN s.number || ' v' || s.version ELSE 'Rascunho nº ' || s.id END AS label, "
        "s.number, s.version, s.as_of, s.gross, s.net, s.created_at, s.created_by, "
        "EXISTS (SELECT 1 FROM statements n WHERE n.supersedes = s.id) AS superseded, "
        "json_array_length(s.blockers_json) AS blockers "
        "FROM statements s JOIN contracts c ON c.id = s.contract_id JOIN organisations o ON o.id = c.organisation_id "
        f"WHERE {' AND '.join(where)} ORDER BY s.id DESC", params)


def statement_contracts(store: Store, user: Principal) -> pd.DataFrame:
    """Contracts whose statements the user works with: dpc every exploration/removal contract
    (with whether terms are recorded and its decided items); explorer its own contracts that
    have an issued statement."""
    require(user, "read_statements")
    if user.role == "explorer":
        return store.fetch_df(
            "SELECT DISTINCT c.code, w.name AS wreck_name FROM statements s JOIN contracts c ON c.id = s.contract_id "
            "JOIN wrecks w ON w.id = c.wreck_id WHERE s.status = 'emitido' AND c.organisation_id = ? ORDER BY c.code",
            [user.organisation_id])
    return store.fetch_df(
        "SELECT c.code, o.name AS organisation_name, w.name AS wreck_name, c.status, c.modality, "
        "(SELECT count(*) FROM item_valuation iv WHERE iv.contract_id = c.id) AS decided, "
        "(SELECT count(*) FROM statements s WHERE s.contract_id = c.id AND s.status = 'emitido') AS issued "
        "FROM contracts c JOIN organisations o ON o.id = c.organisation_id JOIN wrecks w ON w.id = c.wreck_id "
        f"WHERE c.kind IN {tuple(TERMS_KINDS)} ORDER BY c.code")


def get_statement(store: Store, user: Principal, statement_id: int, *, item_limit: int = 50) -> StatementDoc:
    """One statement with its lines, survey lines and its first `item_limit` adjudicated items."""
    _readable(store, user, statement_id)
    return _load_doc(store, statement_id, item_limit=item_limit)


def statement_items(store: Store, user: Principal, statement_id: int, *, page: int = 1,
                    page_size: int = 50) -> tuple[tuple[StatementItem, ...], int]:
    """One page of the adjudicated items (by value, descending) and their number."""
    _readable(store, user, statement_id)
    if not isinstance(page, int) or page < 1 or not isinstance(page_size, int) or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise InputError(Problem("page", f"Página: inteiros positivos, até {MAX_PAGE_SIZE} itens por página."))
    total = int(store.scalar("SELECT count(*) FROM statement_items WHERE statement_id = ?", [statement_id]))
    return _items(store, statement_id, page_size, (page - 1) * page_size), total


def statement_pdf(store: Store, user: Principal, statement_id: int) -> bytes:
    """The PDF: for an issued statement the very bytes stored at issue; a draft is rendered now
    (marked RASCUNHO; dpc only)."""
    row = _readable(store, user, statement_id)
    if row["status"] == "emitido":
        return bytes(store.scalar("SELECT pdf FROM statements WHERE id = ?", [statement_id]))
    if user.role != "dpc":  # unreachable through _readable; kept as the rule's statement
        raise AccessDenied("Acesso negado: rascunhos só para a DPC.", user=user.username, action="read_statements")
    return render_pdf(_load_doc(store, statement_id, item_limit=PDF_ITEM_LIMIT))


def statement_xlsx(store: Store, user: Principal, statement_id: int) -> bytes:
    """The statement as XLSX, with every adjudicated item (rendered from the stored rows)."""
    _readable(store, user, statement_id)
    doc = _load_doc(store, statement_id, item_limit=0)
    return render_xlsx(doc, _items(store, statement_id, 1_048_000, 0))
