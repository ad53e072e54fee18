"""The kinds of notice and the e-mail choices (pure; docs/decisions/060-notices.md).

Each kind names who it is for (`audience`: the Commission's members, a company's people, an office's people) and
the page it links to by default. `notice_kinds` (migration 090) lists the same codes; a test compares them — a
new kind is one `Kind` here and one row there.
"""
from __future__ import annotations

from dataclasses import dataclass

COMMISSION, COMPANY, OFFICE = "commission", "company", "office"


@dataclass(frozen=True)
class Kind:
    code: str
    label: str          # pt-BR, as the inbox shows it
    audience: str       # COMMISSION | COMPANY | OFFICE
    link: str           # the page it opens by default (a key of the page registry)


KINDS: tuple[Kind, ...] = (
    Kind("round_opened", "Rodada aberta", COMMISSION, "commission"),
    Kind("values_missing", "Avaliações pendentes", COMMISSION, "commission"),
    Kind("act_to_sign", "Ato a assinar", COMMISSION, "commission"),
    Kind("decision_published", "Decisão da Comissão publicada", COMPANY, "decisions"),
    Kind("statement_issued", "Demonstrativo de partilha emitido", COMPANY, "statements"),
    Kind("deadline_near", "Prazo a vencer", COMPANY, "deadlines"),
    Kind("intimation_issued", "Intimação", COMPANY, "deadlines"),
    Kind("decision_notified", "Decisão notificada", COMPANY, "deadlines"),
    Kind("filing_received", "Protocolo recebido", OFFICE, "deadlines"),
    Kind("authority_deadline_near", "Prazo da Autoridade a vencer", OFFICE, "deadlines"),
)
BY_CODE: dict[str, Kind] = {k.code: k for k in KINDS}

# How a person wants the notices by e-mail (the inbox always has them)
MAIL_NOW, MAIL_DAILY, MAIL_NONE = "now", "daily", "none"
MAIL_CHOICES: dict[str, str] = {
    MAIL_NOW: "Por e-mail, assim que o aviso chega",
    MAIL_DAILY: "Por e-mail, num resumo diário",
    MAIL_NONE: "Sem e-mail (só aqui, em Avisos)",
}
DEFAULT_MAIL = MAIL_NOW


def kind_label(code: object) -> str:
    """The pt-BR label of a stored kind; 'Aviso' for a code this version does not know."""
    kind = BY_CODE.get(str(code))
    return kind.label if kind is not None else "Aviso"
