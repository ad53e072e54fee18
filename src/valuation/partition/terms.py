"""Contract terms of a partition (issue 5; Lei 7.542/1986 arts. 20–22; rules.md §3–§5).

What is stored here: the payment terms of an exploration/removal contract (`contracts`:
modality I–IV, shares under their caps, the historical payment form, the value fixed
before/after operations — art. 21 §3, the salvage award of modality IV), validated at entry
with pt-BR messages naming the field by its form label (the DB CHECKs are the last line) and
audited before → after; the difficulty rubric of art. 21 §1 (weights: policy
`difficulty_weights`); the compensation of a cancelled contract (art. 22 sole paragraph;
NORMAM-10 0305). Also the contract lookup (an explorer's neighbour is "not found") and the
stored terms as `rules.ContractTerms`, which `choice` and `statements` read: `contract_for`,
`stored_terms`, `compensation_of`, `partition_pt` (the rule with pt-BR messages), and the canonical
JSON and digest the fingerprints use (`stable_json`, `stable_sha`).

Access: `manage_terms` (dpc).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from valuation.core.errors import (
    InputError,
    NotFound,
    Problem,
)
from valuation.core.forms import Form
from valuation.core.law import DIFFICULTY_ACTIVITIES, HISTORICAL_REWARD_CAP, OTHER_SHARE_CAP, SALVAGE_AWARD_CEILING
from valuation.core.money import format_brl, format_date_br, format_share
from valuation.db import access
from valuation.db.access import Principal, require
from valuation.partition.contract_law import law_text_of
from valuation.partition.rubric import suggested_other_share
from valuation.partition.rules import (
    COMPENSATION_FORMS,
    HISTORICAL_PAYMENTS,
    MODALITIES,
    ContractTerms,
    PartitionItem,
    PartitionResult,
    partition,
)
from valuation.policies.defaults import DEFAULT_BY_KEY

if TYPE_CHECKING:

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
MIN_CORRECTION_REASON = 10


# Records
# ======================================================================================
@dataclass(frozen=True)
class Difficulty:
    """The rubric of art. 21 §1 in force for a contract."""

    scores: tuple[int, ...]            # in the order of valuation.core.law.DIFFICULTY_ACTIVITIES
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



# ======================================================================================
# Helpers: access, policies, parsing
# ======================================================================================
# One table, no join: a one-row lookup with joins costs DuckDB ~2 ms more to plan. The names
# a statement shows come with its other lookups (`_Lookups.names`).
# The share of the other items is `other_share` under the amended art. 21 and `other_share_original`
# under the original text (migration 022: `OTHER_SHARE_SQL`).
OTHER_SHARE_SQL = "coalesce(other_share, other_share_original)"
_CONTRACT_SQL = (
    "SELECT id, code, kind, act, act_number, status, organisation_id, office_code, wreck_id, signed_on, starts_on, "
    "work_ended_on, "
    "cancelled_on, cancel_reason, surveyor_organisation_id, modality, historical_share, historical_payment, "
    f"{OTHER_SHARE_SQL} AS other_share, fixed_amount, salvage_award, value_fixed FROM contracts WHERE code = ?")


def contract_for(db: Db, user: Principal, code: str) -> dict[str, Any]:
    """The contract row, or NotFound (also for an explorer's neighbour: never 'forbidden')."""
    row = db.fetch_one(_CONTRACT_SQL, [code]) if isinstance(code, str) else None
    if row is None or not access.organisation_cleared(user, row["organisation_id"], row["office_code"]):
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
    shipped = DEFAULT_BY_KEY["difficulty_weights"].value
    assert isinstance(shipped, (list, tuple))
    default = tuple(Decimal(w) for w in shipped)
    if not isinstance(v, (list, tuple)) or len(v) != len(DIFFICULTY_ACTIVITIES):
        return default
    try:
        ws = tuple(Decimal(str(w)) for w in v if not isinstance(w, bool))
    except (InvalidOperation, ValueError):
        return default
    if len(ws) != len(DIFFICULTY_ACTIVITIES) or any(not w.is_finite() or w < 0 for w in ws) or sum(ws) == 0:
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


def percent_text(share: Decimal | None) -> str:
    """A stored share as the terms form shows it, in percent: Decimal('0.305') → '30,5'; None → ''
    (what `share_from_percent` reads back)."""
    return "" if share is None else f"{(share * 100).normalize():f}".replace(".", ",")


def _share(f: Form, key: str, *, required: bool) -> Decimal | None:
    return f.decimal(key, FIELD_LABELS[key], required=required, minimum=Decimal(0), places=SHARE_PLACES)


def _money_field(f: Form, key: str, *, required: bool) -> Decimal | None:
    """An amount typed the pt-BR way, read by the one parser (`core.money.parse_brl` through `Form.money`)."""
    return f.money(key, FIELD_LABELS[key], required=required)


def _dec(v: Any) -> Decimal | None:
    return None if v is None else Decimal(v)


def stable_json(value: Any) -> str:
    """`value` as canonical JSON (sorted keys, no spaces; Decimals and dates as text): what the
    statements store and what their fingerprints hash."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def stable_sha(value: Any) -> str:
    """The sha256 of `stable_json(value)`: the fingerprint of what a run or a statement used."""
    return hashlib.sha256(stable_json(value).encode("utf-8")).hexdigest()


# ======================================================================================
# Contract terms (arts. 20–21)
# ======================================================================================
def _check_caps(f: Form, signed_on: date | None, hshare: Decimal | None, oshare: Decimal | None) -> None:
    """The caps of the text that governs the contract (`rules.share_caps`): 40 % and 70 % as amended by
    Lei 10.166/2000; under the original arts. 20–21 (signed before 28/12/2000) no reward for the
    historical items and a share of the other items up to 100 %."""
    if law_text_of(signed_on) == "original":
        assert signed_on is not None
        when = f"contrato assinado em {format_date_br(signed_on)}, antes da Lei 10.166/2000"
        if hshare is not None and hshare > 0:
            f.fail("historical_share", f"{FIELD_LABELS['historical_share']}: {when} — a redação original do art. 20 "
                                       "não prevê recompensa pelos bens históricos, que permanecem com a União; "
                                       "deixe em branco.")
        if oshare is not None and oshare > 1:
            f.fail("other_share", f"{FIELD_LABELS['other_share']}: no máximo 100 % do valor dos bens recuperados "
                                  f"({when}: art. 21, redação original, sem o limite de 70 %).")
        return
    hcap: Decimal = HISTORICAL_REWARD_CAP.value
    ocap: Decimal = OTHER_SHARE_CAP.value
    if hshare is not None and hshare > hcap:
        f.fail("historical_share", f"{FIELD_LABELS['historical_share']}: no máximo {format_share(hcap)} do valor "
                                   f"total atribuído aos bens históricos ({HISTORICAL_REWARD_CAP.basis}).")
    if oshare is not None and oshare > ocap:
        f.fail("other_share", f"{FIELD_LABELS['other_share']}: no máximo {format_share(ocap)} do valor de mercado "
                              f"dos bens recuperados ({OTHER_SHARE_CAP.basis}).")


def share_columns(signed_on: date | None, other_share: Decimal | None) -> dict[str, Decimal | None]:
    """Where a contract's share of the other items is stored (migration 022): `other_share` under the
    amended art. 21 (its CHECK ≤ 0.70), `other_share_original` under the original text; the other NULL."""
    original = law_text_of(signed_on) == "original"
    return {"other_share": None if original else other_share,
            "other_share_original": other_share if original else None}


def set_contract_terms(store: Store, user: Principal, code: str, data: Mapping[str, Any], *,
                       now: datetime | None = None) -> dict[str, Any]:
    """Record the payment terms of an exploration/removal contract (Lei 7.542 arts. 20 §2,
    21 I–IV, §1 and §3). Caps at entry, those of the text that governs the contract by its signing
    date (`_check_caps`): historical_share ≤ 0.40 (art. 20 §2), other_share ≤ 0.70 (art. 21 II and
    III) as amended; none and ≤ 1 under the original text. Each problem names its field, in pt-BR,
    and nothing is written. Fields that the modality does not use are cleared. Returns the terms
    stored."""
    require(user, "manage_terms")
    f = Form(data, allowed=TERMS_FIELDS)
    modality = f.choice("modality", FIELD_LABELS["modality"], MODALITIES)
    hshare = _share(f, "historical_share", required=False)
    hpay = f.choice("historical_payment", FIELD_LABELS["historical_payment"], HISTORICAL_PAYMENTS,
                    required=hshare is not None)
    if hshare is None and f.has("historical_payment"):
        f.fail("historical_share", f"{FIELD_LABELS['historical_share']}: informe a parcela para usar a forma de "
                                   "pagamento da recompensa.")
    needs_share = modality in ("II", "III")
    oshare = _share(f, "other_share", required=needs_share)
    fixed = _money_field(f, "fixed_amount", required=modality == "I")
    award = _money_field(f, "salvage_award", required=modality == "IV")
    value_fixed = f.choice("value_fixed", FIELD_LABELS["value_fixed"], VALUE_FIXED, required=False)
    c = contract_for(store, user, code)
    _check_caps(f, c["signed_on"], hshare, oshare)
    valued = store.scalar("SELECT valuation_date FROM contracts WHERE id = ?", [c["id"]])
    if valued is not None and value_fixed != c["value_fixed"]:
        f.fail("value_fixed", f"{FIELD_LABELS['value_fixed']}: o contrato tem data de avaliação "
                              f"({format_date_br(valued)}) fixada por este termo; apague-a antes de mudá-lo "
                              "(Lei 7.542/1986, art. 21 §3).")
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

    stored = {**{k: after[k] for k in TERMS_FIELDS if k != "other_share"},
              **share_columns(c["signed_on"], oshare if needs_share else None)}

    def run(tx: Tx) -> None:
        sets = ", ".join(f"{k} = ?" for k in stored)
        tx.execute(f"UPDATE contracts SET {sets} WHERE id = ?", [*stored.values(), c["id"]])
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
    require(user, "manage_terms")
    problems: list[Problem] = []
    clean: list[int] = []
    if (not isinstance(scores, Sequence) or isinstance(scores, (str, bytes))
            or len(scores) != len(DIFFICULTY_ACTIVITIES)):
        raise InputError(Problem("scores", f"Rubrica: informe as {len(DIFFICULTY_ACTIVITIES)} notas ("
                                           f"{', '.join(DIFFICULTY_ACTIVITIES)})."))
    for name, s in zip(DIFFICULTY_ACTIVITIES, scores):
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= 4:
            problems.append(Problem(f"scores.{name}", f"Nota de {name}: um inteiro de 0 a 4."))
        else:
            clean.append(s)
    if note is not None and len(note) > 1000:
        problems.append(Problem("note", "Observação: no máximo 1000 caracteres."))
    c = contract_for(store, user, code)
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
                   [c["id"], *clean, stable_json([str(w) for w in weights]), suggested, note or None, user.username,
                    moment])
        tx.audit("difficulty_assessed", "contract", c["code"], None,
                 {"scores": clean, "weights": [str(w) for w in weights], "suggested_share": suggested})

    store.write(user.username, run)
    return Difficulty(tuple(clean), weights, suggested, note or None, user.username, moment)


def current_difficulty(store: Store, user: Principal, code: str) -> Difficulty | None:
    """The latest rubric of the contract, or None."""
    require(user, "manage_terms")
    c = contract_for(store, user, code)
    r = store.fetch_one("SELECT * FROM difficulty_assessments WHERE contract_id = ? ORDER BY id DESC LIMIT 1",
                        [c["id"]])
    if r is None:
        return None
    return Difficulty(tuple(int(r[k]) for k in _SCORE_COLS), tuple(Decimal(w) for w in json.loads(r["weights_json"])),
                      r["suggested_share"], r["note"], r["assessed_by"], r["assessed_at"])


# -- compensation on cancellation (art. 22 sole paragraph) -------------------------------------
def compensation_of(db: Db, contract_id: int) -> Compensation | None:
    """The compensation in force of a cancelled contract (no access check: the callers check)."""
    rows = db.fetch("SELECT * FROM cancellation_compensation WHERE contract_id = ?", [contract_id])
    if not rows:
        return None
    r = max(rows, key=lambda row: row["id"])  # the latest row is in force (append-only)
    return Compensation(r["id"], r["compensation_share"], r["compensation_form"], r["sale_proceeds"], r["reason"],
                        r["set_by"], r["set_at"])


def current_compensation(store: Store, user: Principal, code: str) -> Compensation | None:
    require(user, "manage_terms")
    return compensation_of(store, contract_for(store, user, code)["id"])


def set_compensation(store: Store, user: Principal, code: str, data: Mapping[str, Any], *,
                     now: datetime | None = None) -> Compensation:
    """The compensation of a cancelled contract (Lei 7.542 art. 22 sole paragraph; NORMAM-10
    0305): a share of the recovered non-historical items, adjudicated or paid from their sale,
    never above the contracted share (modalities II and III) — it may be below it."""
    require(user, "manage_terms")
    f = Form(data, allowed=("compensation_share", "compensation_form", "sale_proceeds", "reason"))
    share = _share(f, "compensation_share", required=True)
    form = f.choice("compensation_form", FIELD_LABELS["compensation_form"], COMPENSATION_FORMS)
    proceeds = _money_field(f, "sale_proceeds", required=form == "sale_proceeds")
    reason = f.text("reason", FIELD_LABELS["reason"], max_len=1000)
    if reason is not None and len(reason) < MIN_CORRECTION_REASON:
        f.fail("reason", f"{FIELD_LABELS['reason']}: descreva o fundamento (ao menos {MIN_CORRECTION_REASON} "
                         "caracteres).")
    c = contract_for(store, user, code)
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


def stored_terms(c: Mapping[str, Any], comp: Compensation | None) -> ContractTerms:
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
        sale_proceeds=comp.sale_proceeds if comp else None, signed_on=c.get("signed_on"))


def partition_pt(terms: ContractTerms, items: Sequence[PartitionItem]) -> PartitionResult:
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
                           f"({format_brl(other)}); {SALVAGE_AWARD_CEILING}")
            problems.append(Problem(field, f"Termos do contrato {terms.id} inválidos — {label}: {message}."))
        raise InputError(problems) from exc

