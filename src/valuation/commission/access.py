"""Who may do what with the Commission's rounds, and reading a round row — shared by
`valuation.commission.workflow` (the workflow) and `valuation.commission.agreement_queries`
(the statistics).

Roles (architecture.md "Roles and access"): the members (commission,
commission_president) enter their own values; the president opens, closes, decides
and publishes; dpc reads everything; an explorer reads only the published rounds of
its own contracts; the admin reads nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from valuation.commission.panel import (
    BODY_FULL,
    NOT_A_BODY,
    PRESIDENT_NOT_NAVY,
    SECOND_PRESIDENT,
    Seat,
    composition_breaches,
)
from valuation.core.errors import (
    AccessDenied,
    ConflictError,
    InputError,
    NotFound,
    Problem,
)
from valuation.db.access import COMMISSION_ROLES, Principal

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

PRESIDENT = "commission_president"
MEMBERS: tuple[str, ...] = COMMISSION_ROLES
READERS: tuple[str, ...] = (*COMMISSION_ROLES, "dpc")
STATUS_LABELS: dict[str, str] = {"aberta": "Aberta", "encerrada": "Encerrada", "decidida": "Decidida",
                                 "publicada": "Publicada"}
YOU = "Você"
# A member's per-round pseudonym (1, 2, …): stable within a round, unrelated across rounds,
# so that members see the others' values after the close without their names (Delphi).
PSEUDONYM_SQL = ("row_number() OVER (ORDER BY hash(CAST(c.round_id AS VARCHAR) || ':' "
                 "|| CAST(c.member_id AS VARCHAR)), c.member_id)")

ROUND_SQL = """
SELECT r.id, r.contract_id, c.code AS contract_code, c.organisation_id, r.number, r.previous_round_id, r.status,
       r.method, r.quorum, r.spread_threshold, r.president_id, r.opened_by, r.opened_at, r.closed_by,
       r.closed_at, r.decided_by, r.decided_at, r.published_by, r.published_at, {count} AS item_count
FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id
"""
ITEM_COUNT_SQL = "(SELECT count(*) FROM round_items ri WHERE ri.round_id = r.id)"


def deny(user: Principal, what: str) -> AccessDenied:
    return AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite {what}.",
                        user=user.username, action=what)


def require_role(user: Principal, roles: Sequence[str], what: str) -> None:
    """AccessDenied (pt-BR: 'o perfil X não permite <what>') unless the user's role is in `roles`."""
    if user.role not in roles:
        raise deny(user, what)


def fetch_round(db: Store | Tx, round_id: int, *, count: bool = True) -> dict[str, Any]:
    """The round row (with its contract's code and organisation); `count=False` skips
    counting its items (item_count None): one-entry writes on a million-item round need
    no count. NotFound for an unknown id."""
    if isinstance(round_id, bool) or not isinstance(round_id, int):
        raise InputError(Problem("round_id", "Rodada: identificador inválido."))
    row = db.fetch_one(ROUND_SQL.format(count=ITEM_COUNT_SQL if count else "NULL") + " WHERE r.id = ?", [round_id])
    if row is None:
        raise NotFound(f"Rodada de avaliação {round_id} não encontrada.", what="assessment_round", key=round_id)
    return row


# -- the designated panel ----------------------------------------------------------------------
_NAMED_BY = {"navy": "indicados pela DPHCM (Marinha)", "culture": "indicados pelo Ministério da Cultura"}
PANEL_RULE = ("NORMAM-10 0303 c 1 I: três membros indicados pela DPHCM e três pelo Ministério da Cultura; "
              "a presidência cabe a um dos membros da Marinha")


def panel_problems(db: Store | Tx) -> list[str]:
    """What keeps the designated panel (the active users with a commission role) from
    deciding, in pt-BR: more than three members of one body, a member without a body, more
    than one president, a president who is not a Navy member (`valuation.commission.panel`). Empty:
    the composition is lawful."""
    rows = db.fetch("SELECT full_name, role, commission_body FROM users WHERE active AND role IN (?, ?) "
                    "ORDER BY id", list(COMMISSION_ROLES))
    seats = [Seat(r["commission_body"], r["role"] == PRESIDENT) for r in rows]
    out: list[str] = []
    full: set[str] = set()
    for b in composition_breaches(seats):
        name = rows[b.index]["full_name"] if b.index is not None else ""
        if b.kind == BODY_FULL and b.body not in full:
            full.add(str(b.body))
            names = ", ".join(r["full_name"] for r, s in zip(rows, seats) if s.body == b.body)
            out.append(f"mais de {b.limit} membros {_NAMED_BY[str(b.body)]}: {names}")
        elif b.kind == NOT_A_BODY:
            out.append(f"{name} não tem órgão registrado (Marinha ou Ministério da Cultura)")
        elif b.kind == SECOND_PRESIDENT:
            out.append(f"mais de um presidente: {rows[b.other or 0]['full_name']} e {name}")
        elif b.kind == PRESIDENT_NOT_NAVY:
            out.append(f"o presidente {name} não é membro da Marinha")
    return out


def require_lawful_panel(db: Store | Tx) -> None:
    """ConflictError naming every breach when the designated panel cannot decide (NORMAM-10
    0303 c 1 I): no round is opened for such a panel."""
    problems = panel_problems(db)
    if problems:
        raise ConflictError(f"A Comissão designada não atende à composição da {PANEL_RULE}: "
                            + "; ".join(problems) + ". Corrija os membros em Usuários antes de abrir a rodada.")
