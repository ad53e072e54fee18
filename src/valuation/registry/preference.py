"""Preference among competing requests for the same wreck (Lei 7.542 art. 16 §§2–4).

Art. 16 §2: when more than one request for exploration or removal of the same thing is presented
within the period of the notice (intimação or edital, §3), preference goes, "independente de
prazos para início e fim das operações, mas desde que ofereçam as mesmas condições econômicas para
a União", (I) first to whoever, duly authorised to survey, located the thing, and (II) second to
its former owner. §4: the notice gives them 15 days to say they want the preference.

`rank_requests` (pure) orders the requests: the surveyor who located the wreck (an authorised
survey of this wreck, or the locator a contract records), then the former owner (the wreck's owner
by CPF/CNPJ), then the others by the day they asked; each with its basis. A preferred party's
request presented after the notice's 15 days loses the preference (§4). The preference is always
conditional: only at equal economic terms for the União, which the Authority weighs.

`preference_ranking(store, user, wreck_id)` feeds it from the store (DPC only: it names other
companies' requests and the owner).
"""
from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from valuation.core import law
from valuation.core.errors import NotFound
from valuation.core.law import days_text
from valuation.core.money import format_date_br
from valuation.db.access import Principal, office_scope, require

if TYPE_CHECKING:
    from valuation.db.store import Store

SURVEYOR, FORMER_OWNER, NONE = "pesquisador", "antigo_responsável", "sem_preferência"
PREFERENCE_LABELS: dict[str, str] = {SURVEYOR: "1º — quem pesquisou e localizou (art. 16 §2 I)",
                                     FORMER_OWNER: "2º — antigo responsável (art. 16 §2 II)",
                                     NONE: "sem preferência legal"}
REQUEST_KINDS: tuple[str, ...] = ("exploração", "remoção")


@dataclass(frozen=True)
class Request:
    """A pending request for exploration or removal of the wreck."""

    contract_code: str
    organisation_id: int
    organisation: str
    requested_on: date | None
    document: str | None = None      # the organisation's CNPJ (digits), to recognise the former owner


@dataclass(frozen=True)
class Ranked:
    place: int
    request: Request
    preference: str                  # SURVEYOR | FORMER_OWNER | NONE
    basis: str
    note: str


def _note(preference: str, requested_on: date | None, window_end: date | None) -> tuple[str, str]:
    """(preference kept, note) for a preferred party, given the notice's last day."""
    if preference == NONE:
        return NONE, "ordem do pedido (sem preferência legal)"
    if window_end is None:
        return preference, (f"preferência a manifestar no prazo de {days_text(law.PREFERENCE_NOTICE_DAYS.value)} "
                            "da intimação ou do edital "
                            f"(art. 16 §§3–4), {law.PREFERENCE_EQUAL_TERMS}")
    if requested_on is not None and requested_on > window_end:
        return NONE, (f"pedido de {format_date_br(requested_on)}, depois do fim do prazo do edital "
                      f"({format_date_br(window_end)}): preferência não manifestada no prazo (art. 16 §4)")
    return preference, f"pedido dentro do prazo do edital (até {format_date_br(window_end)}); " \
                       f"{law.PREFERENCE_EQUAL_TERMS}"


def rank_requests(requests: Iterable[Request], surveyors: Collection[int], former_owner_documents: Collection[str],
                  window_end: date | None = None) -> list[Ranked]:
    """The requests in the order of art. 16 §2 (see the module docstring): the surveyor who located
    the thing (I), then the former owner (II), then the others by request date and code.
    `surveyors`: organisation ids that, authorised to survey, located the wreck; `former_owner_documents`:
    the former owner's CPF/CNPJ (digits); `window_end`: the last day of the notice (None: not published)."""
    staged: list[tuple[int, date, str, Request, str, str, str]] = []
    for r in requests:
        if r.organisation_id in surveyors:
            preference, basis = SURVEYOR, law.PREFERENCE_SURVEYOR
        elif r.document and r.document in former_owner_documents:
            preference, basis = FORMER_OWNER, law.PREFERENCE_FORMER_OWNER
        else:
            preference, basis = NONE, f"{law.L7542} art. 16 §2 (não é pesquisador nem antigo responsável)"
        kept, note = _note(preference, r.requested_on, window_end)
        if kept == NONE and preference != NONE:
            basis = f"{basis}; art. 16 §4"
        rank = {SURVEYOR: 0, FORMER_OWNER: 1}.get(kept, 2)
        staged.append((rank, r.requested_on or date.max, r.contract_code, r, kept, basis, note))
    staged.sort(key=lambda s: s[:3])
    return [Ranked(i, r, pref, basis, note) for i, (_, _, _, r, pref, basis, note) in enumerate(staged, 1)]


def _window_end(store: Store, wreck_id: int, office: str) -> date | None:
    """The last day of the latest preference notice published for the wreck (art. 16 §4), or None."""
    from valuation.deadlines.calendars import office_calendar
    from valuation.deadlines.rules import preference_notice
    from valuation.deadlines.vocabulary import CURRENT_EVENTS, NOTICE_PUBLISHED

    published = store.scalar(f"SELECT max(event_date) FROM {CURRENT_EVENTS} e WHERE kind = ? AND wreck_id = ?",
                             [NOTICE_PUBLISHED, wreck_id])
    if published is None:
        return None
    return preference_notice(published, office_calendar(store, office, on=published)).due


def preference_ranking(store: Store, user: Principal, wreck_id: int) -> list[Ranked]:
    """The pending requests for exploration or removal of the wreck, ranked under art. 16 §2 (dpc only)."""
    require(user, "read_preference")
    office, params = office_scope(user, "w")           # an office officer: its office's wrecks alone
    wreck = store.fetch_one("SELECT w.id, w.office_code, ow.doc_number FROM wrecks w LEFT JOIN owners ow "
                            f"ON ow.id = w.owner_id WHERE w.id = ? AND {office}", [wreck_id, *params])
    if wreck is None:
        raise NotFound(f"Naufrágio {wreck_id} não encontrado.", what="wreck", key=wreck_id)
    rows = store.fetch(
        "SELECT c.code, c.organisation_id, o.name, o.cnpj, c.requested_on FROM contracts c "
        "JOIN organisations o ON o.id = c.organisation_id WHERE c.wreck_id = ? AND c.status = 'solicitado' "
        f"AND c.kind IN ({', '.join('?' for _ in REQUEST_KINDS)}) ORDER BY c.code", [wreck_id, *REQUEST_KINDS])
    surveyors = {int(r["org"]) for r in store.fetch(
        "SELECT organisation_id AS org FROM contracts WHERE wreck_id = ? AND kind = 'pesquisa' "
        "AND signed_on IS NOT NULL "
        "AND status IN ('vigente', 'concluído', 'expirado', 'suspenso') "
        "UNION SELECT surveyor_organisation_id FROM contracts WHERE wreck_id = ? AND "
        "surveyor_organisation_id IS NOT NULL",
        [wreck_id, wreck_id]) if r["org"] is not None}
    owners = {wreck["doc_number"]} if wreck["doc_number"] else set()
    requests = [Request(r["code"], int(r["organisation_id"]), r["name"], r["requested_on"], r["cnpj"]) for r in rows]
    return rank_requests(requests, surveyors, owners, _window_end(store, wreck_id, wreck["office_code"]))
