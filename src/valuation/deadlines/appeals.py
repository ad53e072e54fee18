"""Reconsideration and appeal against the decisions the product records (Lei 7.542 art. 33; Lei
9.784/1999 arts. 56 and 59).

Art. 33 of Lei 7.542 opens reconsideration and appeal against the decisions taken under it; Lei
9.784 fixes what that special law leaves open (art. 69): 10 days from the notification or official
publication of the decision to ask for reconsideration or appeal, without suspensive effect (art.
59 caput; art. 61); the authority that decided reconsiders within 5 days or forwards the appeal
(art. 56 §1); the appeal is decided within 30 days from the receipt of the case, 60 when expressly
extended (art. 59 §§1–2).

The decisions that can be appealed are those the product records for a contract:

    rodada:<id>           the Commission's decisions of an assessment round (decided or published)
    demonstrativo:<nº>    an issued partition statement
    cancelamento          the cancellation of the authorisation (art. 22)

An appeal's life is a chain of deadline events on the contract whose `reference` is the decision
(`valuation.deadlines.vocabulary.APPEAL_EVENT_KINDS`): the notification starts `appeal` (10 days,
met by the request), the receipt of the case starts `appeal_decision` (30 days, 60 when extended),
met by the decision. Explorers see them for their own contracts and file their own requests.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from valuation.core import clock
from valuation.core.money import format_date_br
from valuation.core.statuses import STATEMENT_ISSUED
from valuation.db.access import Principal, contract_scope, require

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

DECISION_KIND_LABELS: dict[str, str] = {"rodada": "Decisão da Comissão", "demonstrativo": "Demonstrativo de partilha",
                                        "cancelamento": "Cancelamento da autorização"}


def _decisions_sql(scope: str) -> str:
    return f"""
    SELECT c.code AS contract_code, 'rodada:' || r.id AS reference, 'rodada' AS kind,
           'Decisão da Comissão — rodada ' || r.number AS label,
           {clock.day_sql("coalesce(r.published_at, r.decided_at)")} AS day
    FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id
    WHERE r.status IN ('decidida', 'publicada') AND {scope}
    UNION ALL
    SELECT c.code, 'demonstrativo:' || s.number, 'demonstrativo',
           'Demonstrativo de partilha ' || s.number || ' (versão ' || s.version || ')', {clock.day_sql('s.created_at')}
    FROM statements s JOIN contracts c ON c.id = s.contract_id
    WHERE s.status = '{STATEMENT_ISSUED}' AND NOT EXISTS (SELECT 1 FROM statements n WHERE n.supersedes = s.id)
          AND {scope}
    UNION ALL
    SELECT c.code, 'cancelamento', 'cancelamento', 'Cancelamento da autorização', c.cancelled_on
    FROM contracts c WHERE c.cancelled_on IS NOT NULL AND {scope}"""


def appealable_decisions(store: Store | Tx, user: Principal, contract_code: str | None = None) -> pd.DataFrame:
    """The decisions of the contracts the user may read that can be appealed: contract_code,
    reference ('rodada:12', 'demonstrativo:DP-2026/0001', 'cancelamento'), kind, label (pt-BR, with
    the day), day — ordered by contract and day."""
    import pandas as pd

    require(user, "read_deadlines")
    scope, params = contract_scope(user, "c")
    extra, more = ("AND c.code = ?", [contract_code]) if contract_code else ("", [])
    rows = store.fetch(f"SELECT * FROM ({_decisions_sql(scope + ' ' + extra)}) ORDER BY contract_code, day, reference",
                       (params + more) * 3)
    for r in rows:
        r["label"] = f"{r['label']}, de {format_date_br(r['day'])}" if r["day"] is not None else r["label"]
    return pd.DataFrame(rows, columns=["contract_code", "reference", "kind", "label", "day"])


def decision_exists(db: Store | Tx, user: Principal, contract_code: str, reference: str) -> bool:
    """True when `reference` is an appealable decision of the contract (read in the user's scope)."""
    df = appealable_decisions(db, user, contract_code)
    return bool((df["reference"] == reference).any())


def decision_label(reference: object) -> str:
    """'rodada:12' → 'Decisão da Comissão (rodada nº 12)'; an unknown reference as it is."""
    text = str(reference or "")
    kind, _, rest = text.partition(":")
    if kind not in DECISION_KIND_LABELS:
        return text
    if kind == "rodada":
        return f"{DECISION_KIND_LABELS[kind]} (rodada nº {rest})"
    return f"{DECISION_KIND_LABELS[kind]} {rest}".strip()


def appeal_events(store: Store, contract_ids: list[int]) -> dict[tuple[int, str], dict[str, Any]]:
    """(contract id, decision reference) → {kind: first day} of the current appeal events."""
    from valuation.deadlines.vocabulary import APPEAL_EVENT_KINDS, CURRENT_EVENTS

    if not contract_ids:
        return {}
    out: dict[tuple[int, str], dict[str, Any]] = {}
    marks = ", ".join("?" for _ in APPEAL_EVENT_KINDS)
    for r in store.fetch(f"SELECT contract_id, reference, kind, min(event_date) AS day, min(id) AS first_id "
                         f"FROM {CURRENT_EVENTS} e WHERE kind IN ({marks}) AND contract_id IN "
                         f"(SELECT unnest(?::BIGINT[])) GROUP BY ALL", [*APPEAL_EVENT_KINDS, contract_ids]):
        entry = out.setdefault((int(r["contract_id"]), r["reference"]), {})
        entry[r["kind"]] = r["day"]
        entry[f"{r['kind']}#id"] = r["first_id"]
    return out
