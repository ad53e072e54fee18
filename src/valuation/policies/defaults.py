"""Policies: the choices the law leaves to the Naval Authority, and the numbers of NORMAM-10 (an
ordinance the DPC revises), each a named, stored, dated setting.

The defaults below are what a fresh database starts with; the store keeps every value with its
legal reference, the day from which it applies and who recorded it (table `policies`;
`valuation.policies.values` is the one reader). `dated` policies are the NORMAM parameters and the
calendar: a computation uses the value in force on the day its period starts, so a change never
rewrites a due date already computed for an earlier period. The others (the Commission's rules, the
due-soon window, …) apply on the day they are used.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from valuation.core import law
from valuation.core.law import years_text


@dataclass(frozen=True)
class PolicyDefault:
    key: str
    value: object
    description: str  # pt-BR: what the value decides (shown on the policies page)
    basis: str        # the legal reference (a law or NORMAM-10 item, never a spec file)
    label: str = ""   # pt-BR name of the policy
    dated: bool = False  # a NORMAM parameter or a calendar day: read on the day the period starts
    normam: bool = False  # a NORMAM-10 number a deadline rule takes (valuation.deadlines.rule_specs names which)
    bounds: tuple[int, int, str] | None = None  # a whole number's (low, high, unit) on the policies page
    process: bool = False  # a period of Lei 9.784/1999 in a request's process (valuation.proceedings.periods)


DEFAULTS: tuple[PolicyDefault, ...] = (
    PolicyDefault("consensus_method", "median",
                  "Como os valores dos membros da Comissão se combinam no valor atribuído a cada bem.",
                  "Lei 7.542/1986 art. 20 §3 (a comissão de peritos atribui os valores)",
                  "Método do valor atribuído"),
    PolicyDefault("quorum", 4, "Quantos membros da Comissão precisam votar para que o bem seja classificado.",
                  "Lei 2.180/1954 art. 71 (metade e mais um), por analogia; NORMAM-10 (ed. 2002) 0303 c 1 I",
                  "Quórum da Comissão"),
    PolicyDefault("spread_threshold", Decimal("0.5"),
                  "Diferença entre o maior e o menor valor, em proporção da mediana, acima da qual o bem "
                  "volta para nova rodada.",
                  "Lei 7.542/1986 art. 20 §3 (valores atribuídos pela comissão de peritos)",
                  "Limite de dispersão dos valores"),
    PolicyDefault("selection_tolerance", Decimal("0.01"),
                  "Na escolha da União, quanto abaixo do melhor valor (em proporção da recompensa) um conjunto "
                  "ainda é aceito para entregar menos bens de maior significância.",
                  "Lei 7.542/1986 art. 20 §4 (escolha assegurada à União)",
                  "Tolerância da escolha da União"),
    PolicyDefault("due_soon_days", 15, "Quantos dias antes do vencimento um prazo passa a aparecer como a vencer.",
                  "Lei 9.784/1999 art. 66 (contagem dos prazos); antecedência do aviso fixada pela DPC",
                  "Aviso de prazo a vencer"),
    PolicyDefault("policy_days", ("carnival_monday", "carnival_tuesday", "corpus_christi"),
                  "Pontos facultativos em que as organizações militares federais não têm expediente "
                  "(não contam como dias úteis).",
                  "Lei 9.784/1999 art. 66 §1", "Pontos facultativos", True),
    # Lei 2.180 art. 20: no prescription runs while the Court has not decided; the five years of Lei 7.542
    # art. 6 are a prescription ("prescreverá"), so the suspension applies unless DPC records otherwise
    # (docs/decisions/107-maritime-court-suspension.md); the office records the Court's final decision.
    PolicyDefault("court_pending_suspends_lapse", True,
                  "Se o inquérito ou processo pendente no Tribunal Marítimo suspende o prazo de "
                  f"{years_text(law.LAPSE_YEARS.value)} do responsável, até a decisão definitiva do Tribunal "
                  "(registrada pela Capitania como evento 'Decisão do Tribunal Marítimo').",
                  "Lei 2.180/1954 art. 20 (não corre a prescrição enquanto não houver decisão definitiva do "
                  "Tribunal Marítimo); Lei 7.542/1986 art. 6 (o direito prescreverá em 5 anos)",
                  "Suspensão pelo Tribunal Marítimo"),
    PolicyDefault("difficulty_weights", (1, 1, 1, 1, 1),
                  "Pesos das cinco atividades na rubrica de dificuldade que sugere a parcela dos demais bens.",
                  "Lei 7.542/1986 art. 21 §1", "Pesos da rubrica de dificuldade"),
    # the consensus far outside the comparables' range is flagged at the close (issue 16)
    PolicyDefault("comparables_outlier_factor", Decimal("1.5"),
                  "Fator k da faixa dos comparáveis [Q1 − k·IQR, Q3 + k·IQR]: um consenso fora dela é sinalizado ao "
                  "presidente no encerramento da rodada.",
                  "Lei 7.542/1986 art. 20 §3 (valores atribuídos pela comissão de peritos)",
                  "Faixa dos comparáveis"),
    PolicyDefault("comparables_min_count", 5,
                  "Mínimo de decisões publicadas comparáveis para sinalizar um consenso fora da faixa.",
                  "Lei 7.542/1986 art. 20 §3 (valores atribuídos pela comissão de peritos)",
                  "Mínimo de comparáveis"),
    PolicyDefault("calendar_alarm_days", (5, 1),
                  "Lembretes das assinaturas de calendário: quantos dias antes de cada prazo (um lembrete por número).",
                  "Escolha da Autoridade Naval (prazos de contratos e comunicações da NORMAM-10)",
                  "Lembretes do calendário"),
    # who may sign through a gov.br login (valuation.accounts.govbr): the account level of the roles that sign acts
    PolicyDefault("govbr_min_level_signers", "silver",
                  "Nível mínimo da conta gov.br (bronze, prata ou ouro) para entrar pelo gov.br com perfil que "
                  "assina atos (membros e presidente da Comissão, DPC); os demais perfis entram com qualquer nível.",
                  "Lei 14.063/2020 art. 5; Decreto 10.543/2020 art. 4 II (assinatura avançada: cadastro com "
                  "garantia de identidade, contas prata ou ouro)",
                  "Nível gov.br de quem assina"),
    # -- NORMAM-10 parameters (dated: the value in force on the day the period starts) --------------------
    # Declared here once: the deadline engine reads every `normam` key (valuation.deadlines.params), the
    # policies page its bounds (valuation.policies.fields); a rule names the ones it takes (rule_specs).
    PolicyDefault("monthly_report_business_day", 10,
                  "Até qual dia útil do mês seguinte o relatório mensal de atividades deve ser entregue.",
                  "NORMAM-10 (ed. 2002) 0301 c; 0303 e; 0302 b 2", "Relatório mensal: dia útil de entrega", True, True,
                  (1, 15, "º dia útil do mês seguinte")),
    PolicyDefault("removal_monthly_report_min_days", 60,
                  "A partir de quantos dias de duração uma remoção ou demolição deve relatórios mensais.",
                  "NORMAM-10 (ed. 2002) 0302 b 2", "Remoção com relatório mensal: duração mínima", True, True,
                  (1, 3650, "dias de duração")),
    PolicyDefault("final_report_days", 90, "Quantos dias após o término dos trabalhos o relatório final deve ser "
                  "entregue (pesquisa, remoção e demolição).", "NORMAM-10 (ed. 2002) 0301 c; 0302 b 3",
                  "Relatório final: prazo", True, True, (1, 365, "dias após o término dos trabalhos")),
    PolicyDefault("extension_request_days", 60, "Com quantos dias de antecedência do vencimento da autorização a "
                  "prorrogação deve ser pedida.", "NORMAM-10 (ed. 2002) 0304",
                  "Pedido de prorrogação: antecedência", True, True,
                  (1, 365, "dias antes do vencimento")),
    PolicyDefault("tourism_notice_business_days", 10, "Com quantos dias úteis de antecedência uma excursão de turismo "
                  "subaquático deve ser comunicada.", "NORMAM-10 (ed. 2002) 0307",
                  "Turismo subaquático: antecedência da comunicação", True, True,
                  (1, 60, "dias úteis antes da excursão")),
    PolicyDefault("wreck_map_day", (2, 15), "Até que dia do ano seguinte cada Capitania envia o mapa anual das "
                  "embarcações naufragadas.", "NORMAM-10 (ed. 2002) 0404 (Anexo 4-B)",
                  "Mapa anual de naufrágios: envio", True,
                  True),
    # -- the periods of the administrative process (Lei 9.784/1999; dated: the value in force on the day the
    # period starts). The law fixes them; the bounds are what it lets the Authority apply (valuation.proceedings).
    PolicyDefault("process_act_days", 5, "Prazo dos atos do processo sem prazo específico, da Autoridade e dos "
                  "interessados (pode ser dilatado até o dobro, mediante justificação).",
                  "Lei 9.784/1999 art. 24 e parágrafo único", "Processo: atos sem prazo específico", True,
                  bounds=(1, 5, "dias"), process=True),
    PolicyDefault("process_opinion_days", 15, "Prazo máximo para o órgão consultivo emitir o parecer obrigatório.",
                  "Lei 9.784/1999 art. 42", "Processo: parecer", True, bounds=(1, 60, "dias"), process=True),
    PolicyDefault("process_allegations_days", 10, "Prazo do interessado para se manifestar depois de encerrada a "
                  "instrução.", "Lei 9.784/1999 art. 44", "Processo: alegações finais", True,
                  bounds=(1, 10, "dias"), process=True),
    PolicyDefault("process_decision_days", 30, "Prazo para a Autoridade decidir depois de concluída a instrução "
                  "(prorrogável uma vez por igual período, expressamente motivada).", "Lei 9.784/1999 art. 49",
                  "Processo: decisão", True, bounds=(1, 30, "dias"), process=True),
    PolicyDefault("process_intimation_business_days", 3, "Antecedência mínima, em dias úteis, da intimação para "
                  "comparecimento, prova ou diligência.", "Lei 9.784/1999 arts. 26 §2 e 41",
                  "Processo: antecedência da intimação", True, bounds=(3, 30, "dias úteis de antecedência"),
                  process=True),
    # -- issue 42 item 3: an electronic intimation left unopened is taken as known when this period ends
    PolicyDefault("intimation_tacit_days", 10, "Dias corridos, contados do envio, depois dos quais a intimação "
                  "eletrônica não aberta pelo interessado considera-se realizada (ciência tácita), no último dia.",
                  "Lei 11.419/2006 art. 5 §3", "Intimação eletrônica: ciência tácita", True,
                  bounds=(1, 10, "dias corridos"), process=True),
    # -- issue 27 §2: a required electronic signature of an issued act (minutes, statement, removal order)
    PolicyDefault("signature_days", 5, "Prazo para cada signatário exigido assinar eletronicamente o ato emitido "
                  "(ata da Comissão, demonstrativo, determinação de remoção), contado da emissão do documento.",
                  "Lei 9.784/1999 art. 24 (atos sem prazo específico: 5 dias)", "Assinatura eletrônica dos atos",
                  True, bounds=(1, 10, "dias")),
    PolicyDefault("early_closing_days", ((12, 24), (12, 31)),
                  "Dias de cada ano em que as repartições federais encerram o expediente mais cedo (14h): um prazo "
                  "que vence nesses dias passa ao dia útil seguinte. Cada Capitania pode ter datas próprias "
                  "(página Calendário).",
                  "Lei 9.784/1999 art. 66 §1 (expediente encerrado antes da hora normal)",
                  "Expediente encerrado mais cedo", True),
)

DEFAULT_BY_KEY: dict[str, PolicyDefault] = {p.key: p for p in DEFAULTS}
DATED_KEYS: tuple[str, ...] = tuple(p.key for p in DEFAULTS if p.dated)
NORMAM_KEYS: tuple[str, ...] = tuple(p.key for p in DEFAULTS if p.normam)
# the office calendars
CALENDAR_KEYS: tuple[str, ...] = tuple(p.key for p in DEFAULTS if p.dated and not p.normam and not p.process)
PROCESS_KEYS: tuple[str, ...] = tuple(p.key for p in DEFAULTS if p.process)


# gov.br's account levels, lowest first (the codes its ID token sends in reliability_info.level; pt-BR names
# below; valuation.accounts.govbr compares them, valuation.policies.fields parses the policy).
GOVBR_LEVELS: tuple[str, ...] = ("bronze", "silver", "gold")
GOVBR_LEVEL_LABELS: dict[str, str] = {"bronze": "bronze", "silver": "prata", "gold": "ouro"}

# How the Commission's values combine into the value attributed to an item (policy `consensus_method`;
# valuation.commission.consensus implements each, valuation.policies.fields names them in pt-BR).
CONSENSUS_METHODS: tuple[str, ...] = ("median", "mean", "trimmed_mean")


@dataclass(frozen=True)
class ConsensusPolicy:
    method: str = "median"
    quorum: int = 4
    spread_threshold: Decimal = Decimal("0.5")


@dataclass(frozen=True)
class DifficultyWeights:
    weights: tuple[int, ...] = field(default=(1, 1, 1, 1, 1))
