"""The demo's requests to the Authority and their process (issue 26, section 1; call it after
`valuation.demo.wreck_law`).

`seed_requests_demo(store)` adds, deterministically, to every office's first wreck (by code) the requests of
`PLAN`, days counted back from the demo's today (30/11/2026). None is a licence request of the wreck's
responsible (`licence_requests`): the companies' are theirs (a company is not the responsible), the others
are no licence — so the five years of art. 6 and their explanation stay as they were:

- one just filed, the Authority's first act due soon (art. 24, 5 days);
- one in instruction: an opinion asked 40 days ago and never given (art. 42: overdue), documents asked of the
  company 12 days ago by a day 4 days ahead (art. 39: the party's, due soon), a hearing set for next week whose
  intimation is due soon (arts. 26 §2 and 41);
- one whose instruction ended 45 days ago, the company notified the next day (its allegations run from that ciência,
  art. 44 and art. 66 caput) and filed, the decision overdue (art. 49);
- one whose decision was extended with a written reason (art. 49), still within the extended period;
- two decided (the median days to decide per office and matter; each office a little faster or slower).

Companies: the requests marked so are filed by the demo's organisations in turn (each explorer sees its own);
the others by the wreck's responsible. Refuses nothing: does nothing when its records exist already
(idempotent).
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from valuation.demo.constants import DEMO_ACTOR, DEMO_TODAY

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

# (matter, filed: days before today, by a company?, steps: (kind, days before today, reference day — the hearing's or
#  the one an intimation fixed — in days from today, reason))
Plan = tuple[str, int, bool, tuple[tuple[str, int, int | None, str | None], ...]]
PLAN: tuple[Plan, ...] = (
    ("pesquisa", 2, True, ()),
    ("remoção", 75, True, (("instruction_opened", 72, None, None), ("opinion_requested", 40, None, None),
                           ("information_requested", 12, 4, None), ("hearing_set", 6, 8, None))),
    ("exploração", 160, True, (("instruction_opened", 157, None, None), ("opinion_requested", 130, None, None),
                               ("opinion_given", 118, None, None), ("instruction_ended", 45, None, None),
                               ("instruction_end_notified", 44, None, None), ("allegations_filed", 40, None, None))),
    ("prorrogação", 120, True, (("instruction_opened", 118, None, None), ("instruction_ended", 50, None, None),
                                 ("instruction_end_notified", 47, None, None),
                                 ("decision_extended", 21, None,
                                  "Aguardando o parecer do IPHAN sobre o sítio arqueológico (art. 49)."))),
    ("reclamação", 300, False, (("instruction_opened", 297, None, None), ("instruction_ended", 240, None, None),
                                ("instruction_end_notified", 238, None, None), ("decided", 215, None, None))),
    ("saldo do responsável", 200, False, (("instruction_opened", 198, None, None),
                                          ("instruction_ended", 170, None, None),
                                          ("instruction_end_notified", 169, None, None), ("decided", 150, None, None))),
)
DECIDED_LATER = 11   # days: the n-th office (by code) decides (n mod 5) × this later (the median chart varies)
NOTE = "Requerimento de demonstração ({matter})."


def _at(day: date) -> datetime:
    return datetime.combine(day, time(10, 0))


def _wrecks(tx: Tx) -> list[dict[str, Any]]:
    """Per office, its first wreck (by code) with a known responsible."""
    return tx.fetch("SELECT office_code, arg_min(id, code) AS id, arg_min(owner_id, code) AS owner_id FROM wrecks "
                    "WHERE owner_id IS NOT NULL GROUP BY office_code ORDER BY office_code")


def seed_requests_demo(store: Store) -> dict[str, int]:
    """Insert the records listed in the module docstring; returns the rows added per table."""
    if not store.has_table("requests") or store.scalar("SELECT count(*) FROM requests"):
        return {"requests": 0, "request_steps": 0}
    counts = {"requests": 0, "request_steps": 0}

    def write(tx: Tx) -> None:
        orgs = [int(r["id"]) for r in tx.fetch("SELECT id FROM organisations ORDER BY id")]
        turn = 0
        for n, wreck in enumerate(_wrecks(tx)):
            for matter, filed, by_company, steps in PLAN:
                day = DEMO_TODAY - timedelta(days=filed)
                org = orgs[turn % len(orgs)] if by_company and orgs else None
                turn += by_company
                request_id = int(tx.scalar(
                    "INSERT INTO requests (office_code, wreck_id, matter, requester_id, organisation_id, filed_on, "
                    "note, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    [wreck["office_code"], wreck["id"], matter, None if org else wreck["owner_id"], org, day,
                     NOTE.format(matter=matter), DEMO_ACTOR, _at(day)]))
                rows = []
                for kind, ago, ahead, reason in steps:
                    day_of = DEMO_TODAY - timedelta(days=ago - (n % 5) * DECIDED_LATER * (kind == "decided"))
                    hearing = None if ahead is None else DEMO_TODAY + timedelta(days=ahead)
                    rows.append((request_id, kind, day_of, hearing, reason, DEMO_ACTOR, _at(day_of)))
                if rows:
                    tx.cur.executemany("INSERT INTO request_steps (request_id, kind, day, reference_day, reason, "
                                       "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
                counts["requests"] += 1
                counts["request_steps"] += len(rows)
        tx.audit("seed_requests_demo", "demo", None, None, dict(counts))

    store.write(DEMO_ACTOR, write)
    return counts
