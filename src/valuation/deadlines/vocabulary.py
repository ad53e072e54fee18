"""The words of the deadline engine: its event kinds with their pt-BR labels, the columns of its frames
and the SQL of the current rows of its append-only tables. The rules are the table of
`valuation.deadlines.rule_specs`, the states that of `valuation.deadlines.states`.

Stored codes are Portuguese, as the law names the facts (README "Decisions"; migration 014): the
event kinds (`relatório_mensal_entregue`, …); rule names (`monthly_report`, …) are the identifiers
of the public CLI (cli.md) and of the deadline keys ('monthly_report:A-1:2025-03').
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import date

from valuation.core import law
from valuation.db.annulments import not_annulled

COLUMNS: tuple[str, ...] = (
    "key", "rule", "label_pt", "contract_code", "organisation", "wreck", "wreck_name", "office_code", "uf",
    "naval_district", "start", "due", "raw_due", "moved_from", "state", "state_pt", "met_on", "late", "reason",
    "basis", "steps", "contract_id", "wreck_id", "organisation_id",
)
FINAL_REPORT_KINDS: tuple[str, ...] = ("pesquisa", "remoção", "demolição")  # NORMAM-10 0301 c; 0302 b 3
ACTIVE_STATUSES: tuple[str, ...] = ("vigente", "suspenso")
FINISHED_STATUSES: tuple[str, ...] = ("concluído", "cancelado", "expirado")

# -- event kinds (stored codes) -----------------------------------------------------------------------
MONTHLY_REPORT_DELIVERED = "relatório_mensal_entregue"
FINAL_REPORT_DELIVERED = "relatório_final_entregue"
OPERATIONS_STARTED = "operações_iniciadas"
EXTENSION_REQUESTED = "prorrogação_requerida"
NOTICE_PUBLISHED = "edital_de_preferência_publicado"
RECOVERY_FOR_OWNER = "resgate_por_conta_do_responsável"
EXCURSION_NOTIFIED = "excursão_comunicada"
WRECK_MAP_SENT = "mapa_de_naufrágios_enviado"
COURT_INQUIRY_OPENED = "inquérito_instaurado"
COURT_STEPS_CONCLUDED = "diligências_concluídas"
COURT_REPORT_DONE = "relatório_do_inquérito_concluído"
COURT_PARTIES_NOTIFIED = "ciência_das_conclusões"
COURT_DEFENCE_FILED = "defesa_prévia_apresentada"
COURT_INQUIRY_SENT = "inquérito_enviado_ao_tribunal"
COURT_REPRESENTATION_FILED = "representação_apresentada"
COURT_DECIDED = "decisão_do_tribunal"
DECISION_NOTIFIED = "decisão_notificada"
APPEAL_FILED = "recurso_interposto"
APPEAL_RECEIVED = "recurso_recebido"
APPEAL_EXTENDED = "recurso_prorrogado"
APPEAL_DECIDED = "recurso_decidido"
DEADLINE_MET = "prazo_cumprido"


@dataclass(frozen=True)
class EventKind:
    """A kind of deadline event: what it is about (`subject`: contract, wreck or office), what its
    `reference` holds (None, 'month' YYYY-MM, 'year' YYYY, 'date' YYYY-MM-DD, 'expiry', 'key',
    'decision' a decision of the contract, 'text', 'text?' optional text) and whether an explorer
    may record it for its own contracts; `starts` names the rule (valuation.deadlines.rule_specs)
    whose deadline each event of the kind starts."""

    key: str
    label: str
    subject: str
    reference: str | None = None
    explorer: bool = False
    reference_label: str = "Referência"
    starts: str | None = None   # the deadline rule each such event starts (key 'rule:e{event id}')


_ART = "Lei 2.180"
EVENT_KINDS: tuple[EventKind, ...] = (
    EventKind(MONTHLY_REPORT_DELIVERED, "Relatório mensal entregue", "contract", "month", True,
              "Mês de referência (MM/AAAA)"),
    EventKind(FINAL_REPORT_DELIVERED, "Relatório final entregue", "contract", None, True),
    EventKind(OPERATIONS_STARTED, "Início das operações", "contract"),
    EventKind(EXTENSION_REQUESTED, "Prorrogação requerida", "contract", "expiry", False,
              "Vencimento da autorização a prorrogar"),
    EventKind(DECISION_NOTIFIED, f"Ciência ou publicação de decisão ({law.L7542} art. 33)", "contract", "decision",
              False, "Decisão"),
    EventKind(APPEAL_FILED, "Pedido de reconsideração ou recurso apresentado", "contract", "decision", True, "Decisão"),
    EventKind(APPEAL_RECEIVED, f"Recurso recebido pela autoridade que decide ({law.L9784} art. 59 §1)", "contract",
              "decision", False, "Decisão"),
    EventKind(APPEAL_EXTENDED, f"Prazo de decisão do recurso prorrogado ({law.L9784} art. 59 §2)", "contract",
              "decision", False, "Decisão"),
    EventKind(APPEAL_DECIDED, "Recurso decidido", "contract", "decision", False, "Decisão"),
    EventKind(NOTICE_PUBLISHED, "Edital de preferência publicado", "wreck", "text?", False, "Veículo/observação",
              starts="preference_notice"),
    EventKind(RECOVERY_FOR_OWNER, "Resgate por conta do responsável (art. 12)", "wreck", "text?", False,
              "Bens resgatados", starts="owner_reclaim"),
    EventKind(EXCURSION_NOTIFIED, "Excursão de turismo subaquático comunicada", "wreck", "date", False,
              "Data da excursão", starts="tourism_notice"),
    EventKind(WRECK_MAP_SENT, "Mapa anual de naufrágios enviado", "office", "year", False, "Ano do mapa"),
    EventKind(COURT_INQUIRY_OPENED, f"Inquérito instaurado ({_ART} art. 33)", "wreck"),
    EventKind(COURT_STEPS_CONCLUDED, "Diligências do inquérito concluídas (art. 37)", "wreck"),
    EventKind(COURT_REPORT_DONE, "Relatório do inquérito concluído (art. 37)", "wreck"),
    EventKind(COURT_PARTIES_NOTIFIED, "Ciência das conclusões aos possíveis responsáveis (art. 38)", "wreck"),
    EventKind(COURT_DEFENCE_FILED, "Defesa prévia apresentada (art. 38)", "wreck"),
    EventKind(COURT_INQUIRY_SENT, "Inquérito entrou no Tribunal Marítimo (art. 39)", "wreck"),
    EventKind(COURT_REPRESENTATION_FILED, "Representação apresentada ao Tribunal (art. 41 §1 a)", "wreck"),
    EventKind(COURT_DECIDED, "Decisão do Tribunal Marítimo", "wreck"),
    EventKind(DEADLINE_MET, "Prazo cumprido ou encerrado", "key", "key", False, "Prazo"),
)
EVENT_KIND_BY_KEY: dict[str, EventKind] = {k.key: k for k in EVENT_KINDS}
COURT_EVENT_KINDS: tuple[str, ...] = (COURT_INQUIRY_OPENED, COURT_STEPS_CONCLUDED, COURT_REPORT_DONE,
                                      COURT_PARTIES_NOTIFIED, COURT_DEFENCE_FILED, COURT_INQUIRY_SENT,
                                      COURT_REPRESENTATION_FILED, COURT_DECIDED)
APPEAL_EVENT_KINDS: tuple[str, ...] = (DECISION_NOTIFIED, APPEAL_FILED, APPEAL_RECEIVED, APPEAL_EXTENDED,
                                       APPEAL_DECIDED)
EVENT_RULES: dict[str, str] = {k.key: k.starts for k in EVENT_KINDS if k.starts}   # event kind → the rule it starts
# Kinds recorded once per subject and reference (a second one is a correction, not a new event).
ONCE_KINDS: frozenset[str] = frozenset({MONTHLY_REPORT_DELIVERED, FINAL_REPORT_DELIVERED, WRECK_MAP_SENT,
                                        *APPEAL_EVENT_KINDS})

# Current rows of the append-only tables: not withdrawn and not replaced by a later row.
# An annulled event (valuation.db.annulments, issue 42 item 5) counts for nothing, nor does the correction of it
# that was annulled: the event it corrected counts again.
CURRENT_EVENTS = ("(SELECT * FROM deadline_events e WHERE NOT e.voided AND "
                  f"{not_annulled('deadline_events', 'e')} AND NOT EXISTS "
                  "(SELECT 1 FROM deadline_events s WHERE s.supersedes = e.id AND "
                  f"{not_annulled('deadline_events', 's')}))")
CURRENT_WAIVERS = ("(SELECT * FROM deadline_waivers w WHERE NOT w.revoked AND NOT EXISTS "
                   "(SELECT 1 FROM deadline_waivers s WHERE s.supersedes = w.id))")


@functools.lru_cache(maxsize=65536)
def month_key(d: date) -> str:
    """'2025-03' for any day of March 2025 (the `reference` of a monthly report)."""
    return f"{d.year:04d}-{d.month:02d}"
