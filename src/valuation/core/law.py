"""Constants fixed by law, each with its legal reference.

Only what the law itself fixes lives here (Lei 7.542/1986, Lei 9.784/1999, Lei 2.180/1954).
Where the law leaves a choice to the Naval Authority (quorum, consensus method, due-soon
window, rubric weights…), and every number of NORMAM-10 (an ordinance the DPC revises: the
10th business day, the 90 and 60 days, 15 February, the 10 business days of the tourism
notice), the value is a *dated policy*: stored in the database with its reference and the
day from which it applies, with a default in `valuation.policies.defaults`, never a constant
here.

Sources: ../shared/seeds/ (Lei 7.542/1986 as amended by Lei 10.166/2000,
NORMAM-10/DPC, Lei 2.180/1954).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Generic, TypeVar

from valuation.core.money import format_date_br

T = TypeVar("T")


def days_text(n: int) -> str:
    """'1 dia', '30 dias': periods written in messages come from the constants below."""
    return f"{n} dia" if n == 1 else f"{n} dias"


def months_text(n: int) -> str:
    """'1 mês', '6 meses'."""
    return f"{n} mês" if n == 1 else f"{n} meses"


def years_text(n: int) -> str:
    """'1 ano', '5 anos'."""
    return f"{n} ano" if n == 1 else f"{n} anos"


@dataclass(frozen=True)
class LegalValue(Generic[T]):
    """A number or date fixed by a legal text, with where it comes from and since when
    (`effective_from`: the day the wording applies, None when it applies since the law itself).
    NORMAM parameters are LegalValues too, built from the policy in force (valuation.deadlines.params)."""

    value: T
    basis: str
    effective_from: date | None = None

    def in_force_on(self, day: date) -> bool:
        """True when this wording applies on `day` (always, without an effective date)."""
        return self.effective_from is None or self.effective_from <= day

    @property
    def since_text(self) -> str:
        """'em vigor desde 28/12/2000', or '' without an effective date (pt-BR, for explanations)."""
        d = self.effective_from
        return "" if d is None else f"em vigor desde {format_date_br(d)}"


L7542 = "Lei 7.542/1986"
L9784 = "Lei 9.784/1999"
# Lei 10.166, de 27/12/2000, published in the DOU of 28/12/2000 and in force on publication:
# the wording of Lei 7.542 arts. 16 §5, 20, 21 and 32 §§1–2 applies from that day.
L10166 = LegalValue(date(2000, 12, 28), "Lei 10.166, de 27/12/2000 (DOU 28/12/2000), em vigor na publicação",
                    date(2000, 12, 28))
L10166_IN_FORCE: date = L10166.value

# Art. 37: the law entered into force on publication, DOU of 29/09/1986.
LAW_PUBLISHED = LegalValue(date(1986, 9, 29), f"{L7542} art. 37 (DOU 29/09/1986)")

# --- Caps on what the concessionaire may receive --------------------------------
HISTORICAL_REWARD_CAP = LegalValue(
    Decimal("0.40"), f"{L7542} art. 20 §2 (incluído pela Lei 10.166/2000)", L10166_IN_FORCE
)
OTHER_SHARE_CAP = LegalValue(
    Decimal("0.70"), f"{L7542} art. 21 II e III (redação da Lei 10.166/2000)", L10166_IN_FORCE
)
# Art. 21 IV applies the salvage rules "no que couber": Lei 7.203/1984, whose art. 10 §1 caps the remuneration
# ("uma remuneração eqüitativa, que não poderá exceder o valor da embarcação, coisa ou bem salvos"): the award is
# at most the value of the recovered non-historical items.
L7203_CEILING = ("Lei 7.203/1984 art. 10 §1 (a remuneração por assistência e salvamento não excede o valor das coisas "
                 "salvas)")
SALVAGE_AWARD_CEILING = (f"{L7203_CEILING}, aplicável por remissão da {L7542}, art. 21 IV (regras de assistência e "
                         "salvamento, no que couber)")

# --- Domain of wrecks (rules.md §1) ---------------------------------------------
LAPSE_YEARS = LegalValue(5, f"{L7542} arts. 6 e 7")
OWNER_BALANCE_YEARS = LegalValue(5, f"{L7542} art. 13 §2 (saldo mantido até 5 anos do sinistro)")
ART32_OLD_CASUALTY_BEFORE = LegalValue(date(1966, 9, 29), f"{L7542} art. 32 caput (mais de 20 anos da publicação)")
ART32_REQUEST_LAST_DAY = LegalValue(date(1987, 9, 29), f"{L7542} art. 32 caput (1 ano da publicação)")
ART32_WOODEN_HULL_YEARS = LegalValue((1501, 1800), f"{L7542} art. 32 §1 (séculos XVI, XVII e XVIII)")

# --- Periods (rules.md §7) -------------------------------------------------------
PREFERENCE_NOTICE_DAYS = LegalValue(15, f"{L7542} art. 16 §4; art. 9 §2")
OWNER_RECLAIM_DAYS = LegalValue(30, f"{L7542} art. 12 §1")
FOUND_UNCLAIMED_DAYS = LegalValue(30, f"{L7542} art. 29 §2")
FOUND_PROCEEDS_MONTHS = LegalValue(6, f"{L7542} art. 29 §3")
# The NORMAM-10 periods (monthly report, final report, extension request, tourism notice, wreck
# map, removal lasting over 60 days) are dated policies: valuation.policies.defaults and
# valuation.deadlines.params.
REMOVAL_EDITAL_DAYS = LegalValue(15, f"{L7542} art. 9 §2 (edital com prazo de 15 dias)")
COURT_INQUIRY_OPENING_DAYS = LegalValue(5, "Lei 2.180/1954 art. 33 §2")
COUNTING_RULE = "Lei 9.784/1999 art. 66"
# The periods of substantive law in months or years (the five years of Lei 7.542 arts. 6–7 and 13 §2, the six
# months of art. 29 §3) are not periods of the administrative process: when the final month lacks the start's day
# they end on the first day after it (Lei 810/1949 art. 3; Código Civil art. 132 §3), not on the month's last day
# (Lei 9.784 art. 66 §3), and an end on a holiday moves to the next business day (CC art. 132 §1).
SUBSTANTIVE_MONTH_END = "Lei 810/1949 art. 3; Código Civil art. 132 §3"
SUBSTANTIVE_MOVE = "Código Civil art. 132 §1"
SUBSTANTIVE_COUNTING = "Lei 810/1949 art. 3; Código Civil art. 132 §§1 e 3"
APPEAL_DAYS = LegalValue(10, f"{L7542} art. 33 (pedido de reconsideração ou recurso, sem efeito suspensivo; "
                             f"{L9784} arts. 56 §1 e 61); {L9784} art. 59 (10 dias da ciência ou divulgação oficial da "
                             "decisão recorrida)")
APPEAL_DECISION_DAYS = LegalValue(30, f"{L9784} art. 59 §1 (decisão do recurso)")
APPEAL_DECISION_EXTENSION = LegalValue(2, f"{L9784} art. 59 §2 (prorrogação por igual período, expressamente motivada)")
APPEAL_RECONSIDERATION_DAYS = LegalValue(5, f"{L9784} art. 56 §1 (a autoridade que decidiu reconsidera em 5 dias "
                                            "ou encaminha o recurso à superior)")

APPEAL_ALLEGATIONS_BUSINESS_DAYS = LegalValue(5, f"{L9784} art. 62 (intimados os demais interessados, alegações em "
                                                 "5 dias úteis)")
APPEAL_MAX_INSTANCES = LegalValue(3, f"{L9784} art. 57 (no máximo três instâncias administrativas); {L7542} art. 33 "
                                     "parágrafo único (o Ministro da Marinha, hoje o Comandante da Marinha, é a "
                                     "instância final)")
# the three instances are the authority that decided and two above it: at most two appeals against one decision
APPEAL_MAX_APPEALS = LegalValue(APPEAL_MAX_INSTANCES.value - 1,
                                f"{L9784} art. 57 (três instâncias: a autoridade que decidiu e duas acima dela — no "
                                "máximo dois recursos)")
APPEAL_NOT_KNOWN_EXHAUSTED = f"{L9784} art. 63 IV (o recurso não é conhecido após exaurida a esfera administrativa)"
APPEAL_SUSPENSIVE = (f"{L7542} art. 33 e {L9784} art. 61 (sem efeito suspensivo; a autoridade recorrida ou a "
                     "imediatamente superior pode concedê-lo havendo justo receio de prejuízo de difícil ou incerta "
                     "reparação, art. 61 parágrafo único)")
APPEAL_NOT_KNOWN_LATE = f"{L9784} art. 63 I (o recurso interposto fora do prazo não é conhecido)"

# the administrative process's extensions (the periods themselves are dated policies: valuation.proceedings.periods)
PROCESS_ACT_EXTENSION = LegalValue(2, f"{L9784} art. 24 parágrafo único (dilatado até o dobro, mediante comprovada "
                                      "justificação)")
PROCESS_DECISION_EXTENSION = LegalValue(2, f"{L9784} art. 49 (prorrogação por igual período, expressamente motivada)")

# --- Removal orders (arts. 5, 9, 10) ------------------------------------------------
REMOVAL_ORDER = f"{L7542} art. 5 e parágrafo único (prazos de início e término fixados pela Autoridade Naval)"
REMOVAL_NOTICE_PERSONAL = f"{L7542} art. 9 I (intimação pessoal: responsável com paradeiro conhecido no País)"
REMOVAL_NOTICE_EDITAL = f"{L7542} art. 9 II e §§1–2 (edital)"
# the two ways the order reaches the owner (art. 9 I and II), as stored in removal_orders.notice
REMOVAL_NOTICE_LABELS: dict[str, str] = {"pessoal": "intimação pessoal (art. 9 I)",
                                         "edital": f"edital (art. 9 II; {days_text(REMOVAL_EDITAL_DAYS.value)})"}
# Art. 9 §2: the outlets in which the edital is published once each (`valuation.deadlines.edital`)
EDITAL_OUTLETS: dict[str, str] = {
    "dou": "Diário Oficial da União",
    "capital": "jornal de grande circulação da capital do Estado",
    "porto": "jornal da cidade portuária mais próxima ou de maior importância do Estado",
    "rio": "jornal do Rio de Janeiro (bens afastados da costa ou junto a ilhas oceânicas)",
}
REMOVAL_TAKEOVER = f"{L7542} art. 10 (a Autoridade Naval assume as operações por conta e risco do responsável)"
REMOVAL_SUSPENDS_LAPSE = f"{L7542} art. 6 parágrafo único II (a Autoridade Naval determinou a remoção ou demolição)"

# --- Preference among competing requests (art. 16 §2) --------------------------------
PREFERENCE_SURVEYOR = f"{L7542} art. 16 §2 I (quem, autorizado a pesquisar, localizou a coisa)"
PREFERENCE_FORMER_OWNER = f"{L7542} art. 16 §2 II (o antigo responsável pela coisa)"
PREFERENCE_EQUAL_TERMS = f"{L7542} art. 16 §2 (desde que ofereçam as mesmas condições econômicas para a União)"

# --- Co-signature of the Ministry of Culture (art. 20 §1, included by Lei 10.166/2000) ---------
CO_SIGNATURE = LegalValue(True, f"{L7542} art. 20 §1 (contrato ou autorização assinado pela Autoridade Naval, pelo "
                                "concessionário e por representante do Ministério da Cultura)", L10166_IN_FORCE)

# --- NORMAM-10: the 2002 edition (whose item numbers the product cites) was revoked by Portaria DPC nº 46/2003 --
# Where a default of that edition is used, the basis says so; a value DPC records from the edition in force (page
# Políticas, its "Fundamento") replaces it (valuation.deadlines.params.reference).
NORMAM_2002 = "NORMAM-10 (ed. 2002)"
NORMAM_2002_REVOKED = ("edição revogada pela Portaria DPC nº 46/2003; vale por padrão até a DPC registrar o valor da "
                       "edição em vigor")


def normam_2002(item: str) -> str:
    """'NORMAM-10 (ed. 2002) 0305 f (edição revogada pela Portaria DPC nº 46/2003; …)': an item of the revoked
    edition, printed with what became of it."""
    return f"{NORMAM_2002} {item} ({NORMAM_2002_REVOKED})"


# --- Commission (rules.md §2) ----------------------------------------------------
COMMISSION_SIZE = LegalValue(6, "NORMAM-10 (ed. 2002) 0303 c 1 I (3 Marinha/DPHCM + 3 Ministério da Cultura)")
COMMISSION_BODIES: tuple[str, ...] = ("navy", "culture")  # DPHCM (Marinha) and Ministério da Cultura
COMMISSION_PER_BODY: int = COMMISSION_SIZE.value // len(COMMISSION_BODIES)  # 3 each
COMMISSION_PRESIDENT_BODY = "navy"  # "A presidência da Comissão caberá a um dos membros da MB"
# art. 70: "Se houver empate, o presidente desempatará de acordo com a sua convicção" — a tie-breaking vote
TIE_BREAK = LegalValue("president", "Lei 2.180/1954 art. 70 (voto de desempate do presidente), por analogia")

# --- The concessionaire's share of the other recovered items (art. 21 §1) ----------------------
# The activities whose difficulty and technical complexity the Naval Authority assesses, in the law's order
# (the difficulty rubric scores each: valuation.partition.rubric).
DIFFICULTY_ACTIVITIES: tuple[str, ...] = ("localização", "exploração", "remoção", "preservação", "restauração")

CASUALTY_TYPES: tuple[str, ...] = (
    # Lei 2.180/1954 art. 14 a, plus "fortuna do mar" (Lei 7.542 art. 1)
    "naufrágio", "encalhe", "colisão", "abalroação", "água aberta", "explosão",
    "incêndio", "varação", "arribada", "alijamento", "fortuna do mar",
)
CONTRACT_KINDS: tuple[str, ...] = ("pesquisa", "exploração", "remoção", "demolição")
RECOVERY_KINDS: tuple[str, ...] = ("exploração", "remoção", "demolição")  # art. 18 sole paragraph

# --- Maritime Court periods (rules.md §7), used by valuation.deadlines.rules ---------------
COURT_INQUIRY_REPORT_DAYS = LegalValue(10, "Lei 2.180/1954 art. 37")
COURT_PRIOR_DEFENCE_DAYS = LegalValue(10, "Lei 2.180/1954 art. 38")
COURT_PRIVATE_REPRESENTATION_DAYS = LegalValue(
    (180, 30), "Lei 2.180/1954 art. 41 §1 a (incluído pela Lei 5.056/1966)"
)
COURT_PENDING_SUSPENDS = "Lei 2.180/1954 art. 20"

# --- Maritime Court track: from when its rules apply (valuation.deadlines.engine) ---------
# The date of each law (its signature); a casualty before it has no inquiry/representation deadlines.
L2180_DATE = LegalValue(date(1954, 2, 5), "Lei 2.180, de 5 de fevereiro de 1954 (Tribunal Marítimo)")
L5056_DATE = LegalValue(date(1966, 6, 29), "Lei 5.056, de 29 de junho de 1966 (incluiu o art. 41 §1 a na Lei 2.180)")
