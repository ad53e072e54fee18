"""Shared setup for the Commission's page, minutes and browser tests (issue 3), through the store API.

`small_world` (tests/conftest.py) has three commission users (navy, culture, president);
`full_panel(world)` adds three more so that the panel has its six members (NORMAM-10
0303 c 1 I) and the default quorum of 4 can be met.
"""
from __future__ import annotations

import tempfile
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.support.db_copies import copy_database
from valuation.commission.decisions import DecisionInput, record_decisions
from valuation.commission.entries import RecordedEntry, record_assessment
from valuation.commission.rounds import close_round, open_round, publish_round
from valuation.commission.sheet_import import import_assessments
from valuation.core import clock as _clock
from valuation.db.access import Principal
from valuation.db.store import Store, utc_now

PRICE_DAY = date(2025, 3, 10)


def add_member(store: Store, username: str, full_name: str, body: str) -> Principal:
    uid = store.write("fixture", lambda tx: tx.scalar(
        "INSERT INTO users (username, full_name, role, commission_body, password_hash) "
        "VALUES (?, ?, 'commission', ?, 'x') RETURNING id", [username, full_name, body]))
    return Principal(id=int(uid), username=username, full_name=full_name, role="commission", organisation_id=None,
                     commission_body=body)


def full_panel(world: Any) -> dict[str, Principal]:
    """pres (navy, president), navy1, navy2, cult1, cult2, cult3."""
    s = world.store
    return {
        "pres": world.principal("commission_president"),
        "navy1": world.principal("commission"),
        "navy2": add_member(s, "com.navy2", "Cap. Élcio Rocha", "navy"),
        "cult1": world.principal("commission_culture"),
        "cult2": add_member(s, "com.cult2", "Dr. Fábio Nunes", "culture"),
        "cult3": add_member(s, "com.cult3", "Dra. Gina Prado", "culture"),
    }


def item_ids(world: Any, contract: str = "A-1") -> dict[str, int]:
    rows = world.store.fetch("SELECT i.item_code, i.id FROM items i JOIN contracts c ON c.id = i.contract_id "
                             "WHERE c.code = ? ORDER BY i.item_code", [contract])
    return {r["item_code"]: int(r["id"]) for r in rows}


def enter(store: Store, user: Principal, round_id: int, item_id: int, *, historical: bool | None,
          amount: str | None, currency: str = "BRL", significance: int | None = None,
          source: str = "catalogo") -> RecordedEntry:
    if historical is True and significance is None:
        significance = 3
    return record_assessment(
        store, user, round_id, item_id, historical=historical, amount=None if amount is None else Decimal(amount),
        currency=currency if amount is not None else None, price_date=PRICE_DAY if amount is not None else None,
        significance=significance, must_keep=None if historical is not True else False,
        source=source if amount is not None else None, source_note=None)


# The round every minutes/page test starts from: contract A-1, six members, six items.
# item code → (votes in panel order pres, navy1, navy2, cult1, cult2, cult3; values in BRL, same order)
ROUND_PLAN: dict[str, tuple[tuple[bool | None, ...], tuple[str, ...]]] = {
    # 6–0, median (1020 + 1030) / 2 = 1025.00, spread 50/1025: decided, not flagged
    "A1-001": ((True,) * 6, ("1000", "1010", "1020", "1030", "1040", "1050")),
    # 3–3, the president votes historical: decided by the president's vote, flagged (split)
    "A1-002": ((True, True, True, False, False, False), ("5000",) * 6),
    # 5–1, one value far off: median 225.00, flagged (spread 1800/225 = 8)
    "A1-003": ((True, True, True, True, True, False), ("200", "210", "220", "230", "240", "2000")),
    # 6–0: the president overrides the value with a reason
    "A1-004": ((True,) * 6, ("300000",) * 6),
    # two voters only: no quorum, undecided, no decision
    "A1-005": ((True, False, None, None, None, None), ("50",) * 6),
    # 0–6: not historical, median 700000.00
    "A1-006": ((False,) * 6, ("690000", "700000", "700000", "700000", "700000", "710000")),
}
OVERRIDE_REASON = "<b>x</b> laudo complementar & **revisão** — apresentado em sessão"


def sheet_for(k: int) -> bytes:
    """Member k's sheet (pt-BR CSV) for ROUND_PLAN."""
    lines = ["codigo;historico;valor;moeda;data_do_preco;significancia;manter;fonte;observacao"]
    for code, (votes, values) in ROUND_PLAN.items():
        vote = votes[k]
        v = "" if vote is None else "sim" if vote else "não"
        sig = "4" if vote else ""
        keep = "não" if vote else ""
        lines.append(f"{code};{v};{values[k]};BRL;{PRICE_DAY:%d/%m/%Y};{sig};{keep};catalogo;")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _played(world: Any, until: str) -> tuple[dict[str, Principal], int]:
    s = world.store
    panel = full_panel(world)
    rnd = open_round(s, panel["pres"], "A-1")
    for k, member in enumerate(panel.values()):
        import_assessments(s, member, rnd.id, sheet_for(k), f"rodada_{member.username}.csv")
    if until == "open":
        return panel, rnd.id
    close_round(s, panel["pres"], rnd.id)
    if until == "closed":
        return panel, rnd.id
    record_decisions(s, panel["pres"], rnd.id)
    record_decisions(s, panel["pres"], rnd.id, [DecisionInput(
        item_id=item_ids(world)["A1-004"], historical=True, value_brl=Decimal("320000.00"), significance=5,
        must_keep=True, basis=OVERRIDE_REASON)])
    if until == "decided":
        return panel, rnd.id
    publish_round(s, panel["pres"], rnd.id)
    return panel, rnd.id


# The suite plays the same round on the same untouched world some fifty times (two seconds each): the first time
# per `until` the database it leaves is kept (this process's temporary folder), and a later call on an untouched
# world — nothing committed since the fixture opened it, the product's clock and the Store's the default ones —
# gets a copy of that file and a new Store on it. The state is the same rows the play writes (ids, audit chain, seals,
# the imported sheets' files), with the times of the first play. A test that needs the play itself (times it
# measures around the call, a monkeypatched module) passes `fresh=True`.
_PLAYED: dict[tuple[str, str], tuple[Path, dict[str, Principal], int]] = {}
_CLOCK_AT_IMPORT = dict(vars(_clock))


def _untouched(world: Any) -> bool:
    store = world.store
    return (getattr(world, "revision_at_open", None) == store._revision and store._clock is utc_now
            and dict(vars(_clock)) == _CLOCK_AT_IMPORT)


def run_round(world: Any, *, until: str = "published", fresh: bool = False) -> tuple[dict[str, Principal], int]:
    """Open a round on A-1 for ROUND_PLAN, every member uploads a sheet, and then — per `until`
    ('open', 'closed', 'decided', 'published') — close, decide (consensus + the override of
    A1-004 with OVERRIDE_REASON) and publish. Returns (panel, round_id)."""
    if fresh or not _untouched(world):
        return _played(world, until)
    key = (str(world.template), until)
    if key in _PLAYED:
        kept, panel, round_id = _PLAYED[key]
        world.store.close()
        copy_database(kept, world.path)
        world.store = Store(world.path)
        world.revision_at_open = None       # written: the next call plays
        return dict(panel), round_id
    panel, round_id = _played(world, until)
    world.store.checkpoint()
    kept = Path(tempfile.mkdtemp(prefix=f"round_{until}_")) / "played.duckdb"
    copy_database(world.path, kept)
    _PLAYED[key] = (kept, dict(panel), round_id)
    return panel, round_id
