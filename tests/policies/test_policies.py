"""Policies (issues 11, 15): the value in force, its history and its changes — validated with the policy's
label, audited, read through the one reader (valuation.policies.values) by every capability; every value
carries its legal reference and the day from which it applies (past: to the periods started since;
future: scheduled)."""
from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from valuation.commission.rounds import current_policy
from valuation.core.errors import AccessDenied, InputError
from valuation.partition import terms
from valuation.policies import fields
from valuation.policies import values as policies
from valuation.policies.defaults import DEFAULT_BY_KEY, DEFAULTS

REASON = "Portaria DPC nº 12/2026, após consulta à Comissão."
# key → (what the page sends, the typed value stored, its pt-BR text)
CHANGES: dict[str, tuple[Any, Any, str]] = {
    "consensus_method": ("trimmed_mean", "trimmed_mean", "Média aparada (sem o maior e o menor valor)"),
    "quorum": (5, 5, "5 de 6 membros votantes"),
    "spread_threshold": ("35,5", Decimal("0.355"), "35,5 % da mediana"),
    "selection_tolerance": ("2", Decimal("0.02"), "2 % da recompensa"),
    "due_soon_days": (20, 20, "20 dias antes"),
    "policy_days": (["carnival_monday", "christmas_eve"], ("carnival_monday", "christmas_eve"),
                    "Segunda-feira de Carnaval, Véspera de Natal (24/12)"),
    "court_pending_suspends_lapse": (False, False, "Não suspende"),     # on by default (Lei 2.180 art. 20)
    "difficulty_weights": (["2", "1,5", "1", "1", "0"],
                           (Decimal(2), Decimal("1.5"), Decimal(1), Decimal(1), Decimal(0)),
                           "localização 2 · exploração 1,5 · remoção 1 · preservação 1 · restauração 0"),
    "calendar_alarm_days": ("1, 7, 7", (7, 1), "7 dias antes e 1 dia antes"),
    "comparables_outlier_factor": ("2,5", Decimal("2.5"), "2,5 × a amplitude interquartil"),
    "comparables_min_count": (8, 8, "8 decisões publicadas comparáveis"),
    "govbr_min_level_signers": ("gold", "gold", "conta gov.br ouro ou superior"),
    "monthly_report_business_day": ("5", 5, "5º dia útil do mês seguinte"),
    "removal_monthly_report_min_days": (90, 90, "90 dias de duração"),
    "final_report_days": ("120", 120, "120 dias após o término dos trabalhos"),
    "extension_request_days": (45, 45, "45 dias antes do vencimento"),
    "tourism_notice_business_days": (15, 15, "15 dias úteis antes da excursão"),
    "wreck_map_day": ("31/03", (3, 31), "até 31 de março do ano seguinte"),
    "process_act_days": ("4", 4, "4 dias"),
    "process_opinion_days": (20, 20, "20 dias"),
    "process_allegations_days": (8, 8, "8 dias"),
    "process_decision_days": ("25", 25, "25 dias"),
    "process_intimation_business_days": (5, 5, "5 dias úteis de antecedência"),
    "signature_days": ("3", 3, "3 dias"),
    "intimation_tacit_days": (7, 7, "7 dias corridos"),
    "early_closing_days": ("24/12, 31/12, 19/03", ((3, 19), (12, 24), (12, 31)),
                           "19 de março, 24 de dezembro, 31 de dezembro"),
}


def test_every_default_has_a_label_a_legal_basis_and_a_change_case() -> None:
    assert {p.key for p in DEFAULTS} == set(CHANGES)
    for p in DEFAULTS:
        assert p.label and p.description and p.basis, p.key
        assert "rules.md" not in p.basis and "§" not in p.label
        assert any(law in p.basis for law in ("Lei ", "NORMAM")), p.basis


def test_a_fresh_database_shows_every_default(small_world: Any) -> None:
    states = policies.list_policies(small_world.store, small_world.principal("dpc"))
    assert [s.key for s in states] == [p.key for p in DEFAULTS]
    assert all(s.is_default and s.set_by is None for s in states)
    by_key = {s.key: s.text for s in states}
    assert by_key["consensus_method"] == "Mediana" and by_key["quorum"] == "4 de 6 membros votantes"
    assert by_key["spread_threshold"] == "50 % da mediana" and by_key["due_soon_days"] == "15 dias antes"


@pytest.mark.parametrize("key", sorted(CHANGES))
def test_a_change_is_stored_audited_and_in_force(small_world: Any, key: str) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    sent, value, text = CHANGES[key]
    before = policies.policy_in_force(s, key)
    state = policies.set_policy(s, dpc, key, sent, REASON)
    assert (state.value, state.text, state.reason, state.set_by) == (value, text, REASON, dpc.username)
    assert not state.is_default and state.set_by_name == dpc.full_name and state.effective_from == s.today()
    assert state.basis == DEFAULT_BY_KEY[key].basis   # no reference given: the key's own
    row = s.fetch_one("SELECT * FROM audit_log ORDER BY id DESC LIMIT 1")
    assert (row["action"], row["entity"], row["actor"]) == ("set_policy", "policy", dpc.username)
    assert json.loads(row["after_json"])["reason"] == REASON
    assert fields.from_json(key, json.dumps(json.loads(row["before_json"])[key])) == before.value
    history = policies.policy_history(s, dpc, key)
    assert history["text"].tolist() == [text] and history["reason"].tolist() == [REASON]


def test_what_the_page_writes_every_capability_reads_through_the_one_reader(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    for key, (sent, _value, _text) in CHANGES.items():
        policies.set_policy(s, dpc, key, sent, REASON)
    assert terms.selection_tolerance(s) == Decimal("0.02")
    assert terms.difficulty_weights(s) == (Decimal(2), Decimal("1.5"), Decimal(1), Decimal(1), Decimal(0))
    consensus = current_policy(s)
    assert (consensus.method, consensus.quorum, consensus.spread_threshold) == ("trimmed_mean", 5, Decimal("0.355"))
    assert policies.values_in_force(s, ("due_soon_days", "court_pending_suspends_lapse")) == {
        "due_soon_days": 20, "court_pending_suspends_lapse": False}
    for key in CHANGES:
        assert policies.policy_in_force(s, key).value == CHANGES[key][1], key


def test_an_unreadable_commission_rule_is_an_error_never_ignored(small_world: Any) -> None:
    from valuation.core.errors import ConflictError

    _row(small_world.store, "quorum", '"muitos"', datetime(2026, 1, 5, 12), date(2026, 1, 5))
    with pytest.raises(ConflictError) as err:
        current_policy(small_world.store)
    assert "Quórum da Comissão" in str(err.value)


def test_a_value_with_its_reference_and_a_past_or_future_effective_date(small_world: Any) -> None:
    """Issue 15: DPC records a NORMAM revision with its reference and the day it applies from."""
    s, dpc = small_world.store, small_world.principal("dpc")
    today = s.today()
    past, future = today - timedelta(days=40), today + timedelta(days=90)
    ref = "Portaria DPC nº 77/2026 (NORMAM-10 (ed. 2002) 0301 c, nova redação)"
    policies.set_policy(s, dpc, "final_report_days", "120", REASON, effective_from=past, basis=ref)
    scheduled = policies.set_policy(s, dpc, "final_report_days", "60", REASON, effective_from=future, basis=ref)
    assert (scheduled.value, scheduled.effective_from, scheduled.basis) == (60, future, ref)
    at = {d: policies.policy_in_force(s, "final_report_days", as_of=d).value
          for d in (past - timedelta(days=1), past, today, future - timedelta(days=1), future)}
    assert at == {past - timedelta(days=1): 90, past: 120, today: 120, future - timedelta(days=1): 120, future: 60}
    assert [x.value for x in policies.scheduled(s, dpc)] == [60]
    legal = policies.policy_in_force(s, "final_report_days").legal()
    assert (legal.value, legal.basis, legal.effective_from) == (120, ref, past)
    history = policies.policy_history(s, dpc, "final_report_days")
    assert history["starts"].tolist() == [future, past] and set(history["basis"]) == {ref}


@pytest.mark.parametrize("effective, words", [
    (date(1980, 1, 1), "deve estar entre 29/09/1986"),
    ("2027-01-01", "informe uma data"),
])
def test_an_effective_date_out_of_bounds_is_refused(small_world: Any, effective: Any, words: str) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    with pytest.raises(InputError) as err:
        policies.set_policy(s, dpc, "quorum", 5, REASON, effective_from=effective)
    assert err.value.problems[0].message.startswith(policies.EFFECTIVE_LABEL) and words in str(err.value)
    too_far = s.today() + timedelta(days=366 * policies.MAX_YEARS_AHEAD)
    with pytest.raises(InputError):
        policies.set_policy(s, dpc, "quorum", 5, REASON, effective_from=too_far)
    assert s.scalar("SELECT count(*) FROM policies") == 0


@pytest.mark.parametrize(("key", "sent", "label_and_words"), [
    ("quorum", "7", ("Quórum da Comissão:", "de 1 a 6")),
    ("quorum", "quatro", ("Quórum da Comissão:", "inteiro")),
    ("spread_threshold", "abc", ("Limite de dispersão dos valores:", "1,5")),
    ("spread_threshold", "12,345", ("Limite de dispersão dos valores:", "2 casas")),
    ("selection_tolerance", "150", ("Tolerância da escolha da União:", "entre 0 e 100 %")),
    ("due_soon_days", 0, ("Aviso de prazo a vencer:", "de 1 a 365")),
    ("policy_days", ["carnaval"], ("Pontos facultativos:", "desconhecido")),
    ("court_pending_suspends_lapse", "talvez", ("Suspensão pelo Tribunal Marítimo:", "sim ou não")),
    ("difficulty_weights", ["0", "0", "0", "0", "0"], ("Pesos da rubrica de dificuldade:", "maior que zero")),
    ("difficulty_weights", ["1", "x", "1", "1", "1"], ("Pesos da rubrica de dificuldade (exploração):", "número")),
    ("consensus_method", "moda", ("Método do valor atribuído:", "mediana, média ou média aparada")),
    ("govbr_min_level_signers", "platina", ("Nível gov.br de quem assina:", "bronze, prata ou ouro")),
    ("monthly_report_business_day", "１０", ("Relatório mensal: dia útil de entrega:", "inteiro")),   # ASCII only
    ("final_report_days", "0", ("Relatório final: prazo:", "de 1 a 365")),
    ("wreck_map_day", "30/02", ("Mapa anual de naufrágios: envio:", "não é um dia de todos os anos")),
    ("wreck_map_day", "15 de fevereiro", ("Mapa anual de naufrágios: envio:", "DD/MM")),
    ("early_closing_days", "24/12, 32/12", ("Expediente encerrado mais cedo (data 2):", "não é um dia")),
])
def test_bad_input_names_the_policy_by_its_label_and_writes_nothing(small_world: Any, key: str, sent: Any,
                                                                    label_and_words: tuple[str, str]) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    rows = s.scalar("SELECT count(*) FROM audit_log")
    with pytest.raises(InputError) as err:
        policies.set_policy(s, dpc, key, sent, REASON)
    label, words = label_and_words
    message = err.value.problems[0].message
    assert message.startswith(label) and words in message, message
    assert key not in message                       # never the internal key
    assert s.scalar("SELECT count(*) FROM policies") == 0 and s.scalar("SELECT count(*) FROM audit_log") == rows


def test_a_change_needs_a_reason_and_a_new_value(small_world: Any) -> None:
    s, dpc = small_world.store, small_world.principal("dpc")
    for reason in ("", "   ", "curto"):
        with pytest.raises(InputError) as err:
            policies.set_policy(s, dpc, "quorum", 5, reason)
        assert err.value.problems[0].message.startswith("Motivo da alteração:")
    with pytest.raises(InputError) as err:
        policies.set_policy(s, dpc, "quorum", 4, REASON)
    assert "igual ao que vigora em" in err.value.problems[0].message
    assert s.scalar("SELECT count(*) FROM policies") == 0


@pytest.mark.parametrize("role", ["commission", "commission_president", "explorer", "admin"])
def test_only_dpc_reads_and_changes_policies(small_world: Any, role: str) -> None:
    s, user = small_world.store, small_world.principal(role)
    for call in (lambda: policies.list_policies(s, user), lambda: policies.policy_history(s, user),
                 lambda: policies.set_policy(s, user, "quorum", 5, REASON)):
        with pytest.raises(AccessDenied):
            call()
    assert s.scalar("SELECT count(*) FROM policies") == 0


def _row(s: Any, key: str, value_json: str, set_at: datetime, effective_from: date | None) -> None:
    s.write("test", lambda tx: tx.execute(
        "INSERT INTO policies (key, value_json, basis, set_by, set_at, reason, effective_from) "
        "VALUES (?, ?, 'NORMAM-10', 'dpc.silva', ?, 'teste', ?)", [key, value_json, set_at, effective_from]))


def test_a_dated_value_applies_from_its_day_and_an_earlier_one_until_then(small_world: Any) -> None:
    """The page's reader is ready for dated values (NORMAM parameters): a row applies from its
    effective date; before it, the value it replaced; a later immediate change wins until then."""
    s = small_world.store
    _row(s, "due_soon_days", "20", datetime(2026, 1, 5, 12), None)                 # immediate, from 05/01/2026
    _row(s, "due_soon_days", "30", datetime(2026, 2, 1, 12), date(2026, 7, 1))     # scheduled for 01/07/2026
    _row(s, "due_soon_days", "25", datetime(2026, 3, 1, 12), None)                 # immediate, from 01/03/2026
    at = {d: policies.policy_in_force(s, "due_soon_days", as_of=d).value
          for d in (date(2025, 12, 31), date(2026, 1, 5), date(2026, 2, 15), date(2026, 3, 1), date(2026, 6, 30),
                    date(2026, 7, 1), date(2027, 1, 1))}
    assert at == {date(2025, 12, 31): 15, date(2026, 1, 5): 20, date(2026, 2, 15): 20, date(2026, 3, 1): 25,
                  date(2026, 6, 30): 25, date(2026, 7, 1): 30, date(2027, 1, 1): 30}
    state = policies.policy_in_force(s, "due_soon_days", as_of=date(2026, 8, 1))
    assert state.effective_from == date(2026, 7, 1) and state.basis == "NORMAM-10"


def test_an_unusable_stored_value_is_not_applied_and_says_so(small_world: Any) -> None:
    s = small_world.store
    _row(s, "quorum", '"muitos"', datetime(2026, 1, 5, 12), None)
    state = policies.policy_in_force(s, "quorum", as_of=date(2026, 2, 1))
    assert state.is_default and state.value == DEFAULT_BY_KEY["quorum"].value
    assert state.unreadable and "vale o padrão" in state.unreadable
    history = policies.policy_history(s, small_world.principal("dpc"), "quorum")
    assert history["text"].tolist() == ["valor inválido (não aplicado)"]


@pytest.mark.parametrize("key", sorted(CHANGES))
def test_json_round_trip_and_form_values(key: str) -> None:
    _sent, value, text = CHANGES[key]
    assert fields.from_json(key, fields.to_json(key, value)) == value
    assert fields.parse(key, fields.form_value(key, value)) == value
    assert fields.display(key, value) == text
