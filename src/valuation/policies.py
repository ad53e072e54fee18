"""Policies: the choices the law leaves to the Naval Authority (rules.md: 'every place
where the law leaves a choice … is a policy: a named, stored, editable setting').

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
    description: str  # pt-BR, shown in the policy editor
    basis: str


DEFAULTS: tuple[PolicyDefault, ...] = (
    PolicyDefault("consensus_method", "median", "Método do valor atribuído: median, mean ou trimmed_mean",
                  "Lei 7.542 art. 20 §3; rules.md §2"),
    PolicyDefault("quorum", 4, "Quórum de votantes da Comissão (metade mais um de 6)",
                  "Lei 2.180 art. 71, por analogia"),
    PolicyDefault("spread_threshold", Decimal("0.5"), "Dispersão relativa (máx − mín)/mediana acima da qual o item é sinalizado",
                  "rules.md §2"),
    PolicyDefault("selection_tolerance", Decimal("0.01"), "Tolerância da 2ª etapa da escolha da União (fração de R_h)",
                  "Lei 7.542 art. 20 §4; rules.md §3"),
    PolicyDefault("due_soon_days", 15, "Dias antes do vencimento em que um prazo fica 'a vencer'",
                  "rules.md §7"),
    PolicyDefault("policy_days", ("carnival_monday", "carnival_tuesday", "corpus_christi"),
                  "Pontos facultativos em que as OM federais não têm expediente", "Lei 9.784 art. 66 §1"),
    PolicyDefault("court_pending_suspends_lapse", False,
                  "Inquérito/processo no Tribunal Marítimo suspende o prazo de 5 anos", "Lei 2.180 art. 20"),
    PolicyDefault("difficulty_weights", (1, 1, 1, 1, 1),
                  "Pesos da rubrica de dificuldade: localização, exploração, remoção, preservação, restauração",
                  "Lei 7.542 art. 21 §1"),
    # issue 16: the consensus far outside the comparables' range is flagged at the close
    PolicyDefault("comparables_outlier_factor", Decimal("1.5"),
                  "Fator k da faixa dos comparáveis [Q1 − k·IQR, Q3 + k·IQR] fora da qual o consenso é sinalizado",
                  "Lei 7.542 art. 20 §3 (coerência das avaliações da Comissão)"),
    PolicyDefault("comparables_min_count", 5,
                  "Mínimo de decisões publicadas comparáveis para sinalizar um consenso fora da faixa",
                  "Lei 7.542 art. 20 §3 (coerência das avaliações da Comissão)"),
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
