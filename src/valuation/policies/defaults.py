"""Policies: the choices the law leaves to the Naval Authority (every place where the law
leaves a choice is a named, stored, editable setting).

The defaults below are what a fresh database starts with; the store keeps the
current values (table `policies`, with who set them and when) and pages/CLI pass
them into the pure calculation functions as arguments.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True)
class PolicyDefault:
    key: str
    value: object
    description: str  # pt-BR: what the value decides (shown on the policies page)
    basis: str        # the legal reference (a law or NORMAM-10 item, never a spec file)
    label: str = ""   # pt-BR name of the policy


DEFAULTS: tuple[PolicyDefault, ...] = (
    PolicyDefault("consensus_method", "median",
                  "Como os valores dos membros da Comissão se combinam no valor atribuído a cada bem.",
                  "Lei 7.542/1986 art. 20 §3 (a comissão de peritos atribui os valores)",
                  "Método do valor atribuído"),
    PolicyDefault("quorum", 4, "Quantos membros da Comissão precisam votar para que o bem seja classificado.",
                  "Lei 2.180/1954 art. 71 (metade e mais um), por analogia; NORMAM-10 0303 c 1 I",
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
                  "Lei 9.784/1999 art. 66 §1", "Pontos facultativos"),
    PolicyDefault("court_pending_suspends_lapse", False,
                  "Se o inquérito ou processo pendente no Tribunal Marítimo suspende o prazo de 5 anos do "
                  "responsável.", "Lei 2.180/1954 art. 20; Lei 7.542/1986 art. 6",
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
)

DEFAULT_BY_KEY: dict[str, PolicyDefault] = {p.key: p for p in DEFAULTS}


@dataclass(frozen=True)
class ConsensusPolicy:
    method: str = "median"
    quorum: int = 4
    spread_threshold: Decimal = Decimal("0.5")


@dataclass(frozen=True)
class CalendarPolicy:
    policy_days: tuple[str, ...] = ("carnival_monday", "carnival_tuesday", "corpus_christi")
    due_soon_days: int = 15


@dataclass(frozen=True)
class DifficultyWeights:
    weights: tuple[int, ...] = field(default=(1, 1, 1, 1, 1))
