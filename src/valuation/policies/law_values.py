"""The numbers the law itself fixes (`valuation.core.law`), as the policies page lists them beside the
policies: they are not the Naval Authority's to change, so they have no history and no form — only
their article and, where a later law changed the wording, the day from which it applies."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from valuation.core import law
from valuation.core.law import days_text, months_text


@dataclass(frozen=True)
class LawValue:
    label: str
    text: str
    basis: str
    effective_from: date | None


def _percent(d: Decimal) -> str:
    return f"{d * 100:.0f} %"


_TABLE: tuple[tuple[str, law.LegalValue[Any], Any], ...] = (
    ("Prazo do responsável para pedir licença", law.LAPSE_YEARS, lambda v: f"{v} anos do sinistro"),
    ("Saldo mantido à disposição do responsável", law.OWNER_BALANCE_YEARS, lambda v: f"{v} anos do sinistro"),
    ("Recompensa máxima pelos bens de valor histórico", law.HISTORICAL_REWARD_CAP, _percent),
    ("Parcela máxima dos demais bens", law.OTHER_SHARE_CAP, _percent),
    ("Reclamação pelo responsável após o resgate", law.OWNER_RECLAIM_DAYS, days_text),
    ("Edital de preferência", law.PREFERENCE_NOTICE_DAYS, days_text),
    ("Edital da determinação de remoção", law.REMOVAL_EDITAL_DAYS, days_text),
    ("Coisa achada não reclamada", law.FOUND_UNCLAIMED_DAYS, days_text),
    ("Produto da venda de coisa achada", law.FOUND_PROCEEDS_MONTHS, months_text),
    ("Pedido de reconsideração ou recurso", law.APPEAL_DAYS, days_text),
    ("Decisão do recurso", law.APPEAL_DECISION_DAYS, days_text),
    ("Reconsideração pela autoridade que decidiu", law.APPEAL_RECONSIDERATION_DAYS, days_text),
    ("Alegações dos demais interessados no recurso", law.APPEAL_ALLEGATIONS_BUSINESS_DAYS,
     lambda v: f"{days_text(v)} úteis"),
    ("Instâncias administrativas do recurso", law.APPEAL_MAX_INSTANCES, lambda v: f"no máximo {v}"),
    ("Abertura do inquérito (Tribunal Marítimo)", law.COURT_INQUIRY_OPENING_DAYS, days_text),
    ("Coassinatura do Ministério da Cultura", law.CO_SIGNATURE, lambda v: "exigida nos contratos sobre bens de valor "
                                                                          "histórico"),
)


def law_values() -> list[LawValue]:
    """Every number of the law the product applies, in pt-BR, with its article and effective date."""
    return [LawValue(label, fmt(lv.value), lv.basis, lv.effective_from) for label, lv, fmt in _TABLE]
