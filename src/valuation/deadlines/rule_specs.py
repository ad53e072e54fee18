"""The deadline rules of rules.md §7, one entry each: THE table the labels, the groups, the periods, the
NORMAM-10 parameters each rule takes, the engine's rows and the CLI's `compute deadline` derive from
(issue 22). `tests/deadlines/test_rule_registry.py` fails when a derived list forgets a rule.

A new rule kind is
  1. its pure function in `valuation.deadlines.rules` (named as the rule, article in the docstring),
  2. one `RuleSpec` below: key, pt-BR label, the function, what its deadline key names (`subject`),
     the list it is shown in (`group`), the NORMAM-10 parameters it takes (`normam`: policy keys of
     `valuation.policies.defaults`, a new one declared there), its `compute deadline` fields (`cli`,
     also a row of cli.md's table); a rule an event starts: that event kind's `starts`
     (valuation.deadlines.vocabulary.EVENT_KINDS);
  3. the lines of the row builder named by `source` that gather its inputs from the store
     (`book.deadline(key, input, office, day)` computes it with the calendar and the NORMAM values
     in force on `day`) and add its row.

Rule names are the identifiers of the public CLI (cli.md) and the prefix of every deadline key
('monthly_report:A-1:2025-03'); the table's order is the CLI's list of rules.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from valuation.core import law
from valuation.core.jsonin import Conv, boolean, integer, iso_date, iso_month
from valuation.core.law import years_text
from valuation.deadlines import rules as dl

REQUIRED: Any = object()   # an `Input` without a default: the field must be given

# What a deadline key names after 'rule:' (the events page resolves a key's subject from it, the views
# write it in words): a contract ('A-1', '…:2025-03'), a decision of a contract ('A-1:rodada:12'), a wreck,
# an office ('CPRJ:2025'), or a record by its id: an event 'e17', a found thing 'f7', a removal order 'r3',
# an owner's balance 'b2'.
SUBJECTS: tuple[str, ...] = ("contract", "decision", "wreck", "office", "event", "found", "removal", "balance")
# The lists a deadline is shown in (the Prazos page's tabs read the court, appeal and removal groups).
GROUPS: tuple[str, ...] = ("contract", "appeal", "lapse", "court", "removal", "office", "event", "found")
# The engine's row builders (valuation.deadlines.<source>).
SOURCES: tuple[str, ...] = ("contract_rows", "wreck_rows", "event_rows")


@dataclass(frozen=True)
class Input:
    """A field of the rule's `compute deadline` input (cli.md): its name, its reader (a
    `valuation.core.jsonin` converter) and, for an optional field, the value when absent."""

    name: str
    read: Conv
    default: Any = REQUIRED


@dataclass(frozen=True)
class RuleSpec:
    """One deadline rule: see the module docstring for what each field drives."""

    key: str
    label: str
    fn: Callable[..., Any]
    subject: str
    group: str
    source: str
    period: bool = False                 # a period the law lets run, not an act owed: 'met' reads "encerrado"
    normam: tuple[str, ...] = ()         # NORMAM-10 parameters `fn` takes after the calendar, in order
    gates: tuple[str, ...] = ()          # NORMAM-10 parameters that decide whether the rule applies at all
    cli: tuple[Input, ...] | None = None  # the `compute deadline` fields; None: not a CLI rule
    suspensions: bool = False            # the CLI also reads `suspensions` (art. 6 sole paragraph)


def _date(name: str) -> tuple[Input, ...]:
    return (Input(name, iso_date),)


RULES: tuple[RuleSpec, ...] = (
    # -- contracts (NORMAM-10 0301–0305; Lei 7.542 art. 22) ------------------------------------------------------
    RuleSpec("monthly_report", "Relatório mensal de atividades", dl.monthly_report, "contract", "contract",
             "contract_rows", normam=("monthly_report_business_day",), gates=("removal_monthly_report_min_days",),
             cli=(Input("period", iso_month),)),
    RuleSpec("final_report", "Relatório final", dl.final_report, "contract", "contract", "contract_rows",
             normam=("final_report_days",), cli=_date("work_ended")),
    RuleSpec("extension_request", "Pedido de prorrogação", dl.extension_request, "contract", "contract",
             "contract_rows", normam=("extension_request_days",), cli=_date("expires")),
    RuleSpec("start_of_operations", "Início das operações", dl.start_of_operations, "contract", "contract",
             "contract_rows", cli=_date("fixed")),
    RuleSpec("automatic_cancellation", "Cancelamento automático", dl.automatic_cancellation, "contract", "contract",
             "contract_rows", normam=("monthly_report_business_day",)),
    # -- started by an event or a record (Lei 7.542 arts. 12 §1, 16 §4, 29 §§2–3) ---------------------------------
    RuleSpec("preference_notice", "Edital de preferência", dl.preference_notice, "event", "event", "event_rows",
             period=True, cli=_date("published")),
    RuleSpec("owner_reclaim", "Reclamação pelo responsável", dl.owner_reclaim, "event", "event", "event_rows",
             period=True, cli=_date("recovered")),
    RuleSpec("found_unclaimed", "Coisa achada não reclamada", dl.found_unclaimed, "found", "found", "event_rows",
             period=True, cli=_date("collected")),
    RuleSpec("found_proceeds", "Produto da venda de coisa achada", dl.found_proceeds, "found", "found", "event_rows",
             period=True, cli=_date("sold")),
    RuleSpec("tourism_notice", "Comunicação de turismo subaquático", dl.tourism_notice, "event", "event", "event_rows",
             normam=("tourism_notice_business_days",), cli=_date("excursion")),
    # -- offices (NORMAM-10 0404) -------------------------------------------------------------------------------
    RuleSpec("wreck_map", "Mapa anual de embarcações naufragadas", dl.wreck_map, "office", "office", "event_rows",
             normam=("wreck_map_day",), cli=(Input("year", integer(minimum=1, maximum=9998)),)),
    # -- the Maritime Court (Lei 2.180 arts. 33 §2, 37, 38, 41 §1 a) --------------------------------------------
    RuleSpec("court_inquiry_opening", "Abertura do inquérito", dl.court_inquiry_opening, "wreck", "court",
             "wreck_rows", cli=_date("known")),
    RuleSpec("court_inquiry_report", "Relatório do inquérito", dl.court_inquiry_report, "wreck", "court",
             "wreck_rows", cli=_date("last_step")),
    RuleSpec("court_prior_defence", "Defesa prévia", dl.court_prior_defence, "wreck", "court", "wreck_rows",
             cli=_date("notified")),
    RuleSpec("court_private_representation", "Representação da parte ao Tribunal Marítimo",
             dl.court_private_representation, "wreck", "court", "wreck_rows", cli=_date("occurred")),
    # -- the owner's five years (Lei 7.542 arts. 6–7) -----------------------------------------------------------
    RuleSpec("five_year_lapse", f"Prazo de {years_text(law.LAPSE_YEARS.value)} do responsável", dl.five_year_lapse,
             "wreck", "lapse", "wreck_rows", cli=_date("casualty_date"), suspensions=True),
    # -- appeals against the contract's decisions (Lei 7.542 art. 33; Lei 9.784 art. 59) ------------------------
    RuleSpec("appeal", "Pedido de reconsideração ou recurso", dl.appeal, "decision", "appeal", "contract_rows",
             period=True, cli=_date("notified")),
    RuleSpec("appeal_decision", "Decisão do recurso", dl.appeal_decision, "decision", "appeal", "contract_rows",
             cli=(Input("received", iso_date), Input("extended", boolean, False))),
    # -- removal orders and the owner's balance (Lei 7.542 arts. 5, 9, 10, 13 §2) -------------------------------
    RuleSpec("owner_balance", "Saldo à disposição do responsável", dl.owner_balance, "balance", "removal",
             "wreck_rows", period=True, cli=_date("casualty_date")),
    RuleSpec("removal_edital", "Edital da determinação de remoção", dl.removal_edital, "removal", "removal",
             "wreck_rows", period=True),
    RuleSpec("removal_start", "Início da remoção determinada", dl.removal_start, "removal", "removal", "wreck_rows"),
    RuleSpec("removal_end", "Término da remoção determinada", dl.removal_end, "removal", "removal", "wreck_rows"),
)

# -- what derives from the table -------------------------------------------------------------------------------
SPECS: dict[str, RuleSpec] = {s.key: s for s in RULES}
RULE_LABELS: dict[str, str] = {s.key: s.label for s in RULES}
CLI_RULES: dict[str, RuleSpec] = {s.key: s for s in RULES if s.cli is not None}   # cli.md, deadline
PERIOD_RULES: frozenset[str] = frozenset(s.key for s in RULES if s.period)


def rules_of(*, subject: str | None = None, group: str | None = None) -> tuple[str, ...]:
    """The rules (in table order) whose deadline key names `subject` and/or shown in `group`."""
    return tuple(s.key for s in RULES if subject in (None, s.subject) and group in (None, s.group))


CONTRACT_RULES: tuple[str, ...] = rules_of(subject="contract")
APPEAL_RULES: tuple[str, ...] = rules_of(subject="decision")
WRECK_RULES: tuple[str, ...] = rules_of(subject="wreck")
COURT_RULES: tuple[str, ...] = rules_of(group="court")
REMOVAL_RULES: tuple[str, ...] = rules_of(subject="removal")
REMOVAL_TAB_RULES: tuple[str, ...] = rules_of(group="removal")      # the removal orders and the owner's balances
