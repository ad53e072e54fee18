"""The law of the contract's date (Lei 7.542/1986 arts. 20–21; rules.md §4; cli.md `contract.signed_on`).

Lei 10.166/2000 (DOU 28/12/2000, in force on publication) rewrote arts. 20 and 21. A contract or
authorisation act keeps the text in force on the day it was signed (the act is perfect on that
day: Constituição art. 5 XXXVI; LINDB art. 6):

- signed before 28/12/2000, the **original** arts. 20–21: the things of artistic, historical or
  archaeological value stay in the União's domain and the contract provides no reward for them
  (no 40 %, nothing of them adjudicated, no cash balance); modalities II ("soma em dinheiro,
  proporcional ao valor das coisas") and III ("adjudicação de parte dos bens") carry no 70 % cap;
- signed on or after 28/12/2000, or not signed yet (it will be signed under the text in force), the
  **amended** text: reward up to 40 % (art. 20 §2), shares up to 70 % (art. 21 II and III).

Pure: no database, no clock.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal

from valuation.core.law import HISTORICAL_REWARD_CAP, L7542, L10166_IN_FORCE, OTHER_SHARE_CAP
from valuation.core.money import format_date_br, format_share

LAW_TEXTS: tuple[str, ...] = ("original", "amended")
ORIGINAL_HISTORICAL_REASON = ("Lei 7.542 art. 20, original text: a contract signed before 2000-12-28 pays no "
                              "reward for historical items")
ORIGINAL_OTHER_REASON = "Lei 7.542 art. 21 II and III, original text: no 70 % cap"
ORIGINAL_CAPTION_BASIS = f"{L7542} arts. 20 e 21, redação original (contrato anterior à Lei 10.166/2000)"


def law_text_of(signed_on: date | None) -> str:
    """Which wording of Lei 7.542 arts. 20–21 governs a contract signed on `signed_on`: 'original'
    before 28/12/2000 (Lei 10.166/2000 came into force on its publication), else 'amended' — also
    without a date (a contract not signed yet will be signed under the text in force)."""
    return "original" if signed_on is not None and signed_on < L10166_IN_FORCE else "amended"


def share_caps(signed_on: date | None) -> tuple[Decimal, Decimal]:
    """(historical_share cap, other_share cap) under the contract's text: (0.40, 0.70) as amended
    (arts. 20 §2, 21 II–III); (0, 1) under the original text (no reward; no 70 % cap)."""
    if law_text_of(signed_on) == "original":
        return Decimal(0), Decimal(1)
    return HISTORICAL_REWARD_CAP.value, OTHER_SHARE_CAP.value


def law_text_line(signed_on: date | None) -> str:
    """What a statement says of the text it applied (pt-BR)."""
    if law_text_of(signed_on) == "original":
        assert signed_on is not None
        return (f"Redação original dos arts. 20 e 21 da {L7542} (contrato assinado em "
                f"{format_date_br(signed_on)}, antes da Lei 10.166/2000, em vigor desde 28/12/2000)")
    when = f"contrato assinado em {format_date_br(signed_on)}" if signed_on else "contrato ainda sem data de assinatura"
    return f"Arts. 20 e 21 da {L7542} na redação da Lei 10.166/2000 ({when})"


def caps_help_pt(signed_on: date | None) -> tuple[str, str, str]:
    """(caption, help of the historical share, help of the other share) of the terms form, under the
    contract's text."""
    if law_text_of(signed_on) == "original":
        return (f"{law_text_line(signed_on)}: os bens históricos permanecem com a União, sem recompensa (art. 20, "
                "redação original); modalidades I–IV para os demais bens, sem o limite de 70 % nas modalidades "
                "II e III (art. 21, redação original).",
                "Deixe em branco: a redação original do art. 20 não prevê recompensa pelos bens históricos.",
                "Até 100 % do valor dos demais bens recuperados (art. 21 II e III, redação original).")
    h, o = format_share(HISTORICAL_REWARD_CAP.value), format_share(OTHER_SHARE_CAP.value)
    return (f"{law_text_line(signed_on)}: recompensa de até {h} do valor atribuído aos bens históricos; "
            f"modalidades I–IV para os demais bens, com parcela de até {o} nas modalidades II e III.",
            f"Até {h} do valor atribuído aos bens históricos (art. 20 §2).",
            f"Até {o} do valor de mercado dos demais bens recuperados; modalidades II e III (art. 21).")


ORIGINAL_MODALITY_LABELS: dict[str, str] = {
    "II": "II — soma proporcional ao valor dos bens (redação original, sem o limite de 70 %)",
    "III": "III — adjudicação de parte dos bens (redação original, sem o limite de 70 %)",
}


def modality_labels(law_text: str | None, labels: Mapping[str, str]) -> dict[str, str]:
    """The modality labels of the contract's text: `labels` (the amended art. 21, caps named) or, under the
    original text, II and III without the 70 % cap."""
    return {**labels, **ORIGINAL_MODALITY_LABELS} if law_text == "original" else dict(labels)
