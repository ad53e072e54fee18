"""The demo's decisions of the Authority and the appeals against them (issue 26 §2; call it after
`valuation.demo.requests`, before `valuation.demo.process.number_demo_records`, which numbers them).

`seed_appeals_demo(store)` adds to every office's first wreck with a known responsible (the one the requests
demo uses) the cases of `PLAN`, days counted back from the demo's today (30/11/2026), so that every office has
an appeal at each stage of Lei 9.784/1999 arts. 56–65:

- awaiting the reconsideration by the authority that decided (art. 56 §1: 5 days; due soon in even offices,
  overdue in odd ones);
- reconsidered: the authority reformed its own decision;
- with the superior, the others intimated and their allegations overdue (art. 62), the decision overdue
  (art. 59 §1);
- with the superior, a suspensive effect granted with its reason (art. 61), the decision extended with its
  reason and still within the 60 days (art. 59 §2);
- two appeals, each "não provido" (the three instances of art. 57: the authority that decided and two above it),
  and a third filed anyway, declared not known (art. 63 IV: the administrative sphere was exhausted);
- filed out of time and not known (art. 63 I);
- the decision on the office's decided claim (a request) appealed and not granted.

The cases marked so concern the demo's companies in turn (each explorer sees its own); the others the wreck's
responsible. Every appeal's decision is notified to the party two days after it (the next appeal's 10 days run
from that ciência, art. 59). Idempotent: does nothing when decisions exist already.
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from valuation.demo.constants import DEMO_ACTOR, DEMO_TODAY

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

# appeal: (filed, on_time, suspensive reason, steps: (kind, days before today, outcome, reason))
Appeal = tuple[int, bool, str | None, tuple[tuple[str, int, str | None, str | None], ...]]
# case: (kind, by a company?, summary, decided, notified (days before today), appeals)
Case = tuple[str, bool, str, int, int, tuple[Appeal, ...]]
AUTHORITY = "Capitão dos Portos ({office})"
PLAN: tuple[Case, ...] = (
    ("preference", True, "Preferência reconhecida ao pedido de outra empresa (art. 16).", 12, 10,
     ((4, True, None, ()),)),
    ("preference", True, "Pedido de preferência indeferido por falta de prova da anterioridade (art. 16).", 32, 30,
     ((25, True, None, (("reconsidered", 22, "provido", "A prova da anterioridade foi juntada no recurso."),)),)),
    ("domain_incorporation", False, "Declarada a incorporação do naufrágio ao domínio da União (art. 6).", 82, 80,
     ((75, True, None, (("forwarded", 72, None, None), ("others_intimated", 70, None, None))),)),
    ("preference", True, "Autorização de exploração negada por sobreposição de área (art. 16).", 62, 60,
     ((55, True, "A execução imediata inviabiliza a campanha já contratada (art. 61 parágrafo único).",
       (("forwarded", 52, None, None),
        ("decision_extended", 25, None, "Aguardando laudo técnico da área sobreposta (art. 59 §2)."))),)),
    ("preference", True, "Pedido de prorrogação indeferido (NORMAM-10 (ed. 2002) 0304).", 152, 150,
     ((145, True, None, (("forwarded", 143, None, None), ("decided", 120, "não provido", None))),
      (115, True, None, (("forwarded", 113, None, None), ("decided", 90, "não provido", None))),
      (85, True, None, (("decided", 70, "não conhecido", None),)))),
    ("domain_incorporation", False, "Indeferida a devolução do prazo de cinco anos (art. 6).", 102, 100,
     ((60, False, None, (("decided", 55, "não conhecido", None),)),)),
)
REQUEST_APPEAL: Appeal = (0, True, None, (("forwarded", 0, None, None), ("others_intimated", 0, None, None),
                                          ("allegations_filed", 0, None, None), ("decided", 0, "não provido", None)))
GROUNDS = "Recurso de demonstração: razões de fato e de direito juntadas ao processo."
NOTIFIED_AFTER = timedelta(days=2)   # an appeal's decision reaches the party two days later (art. 59: its ciência)


def _ago(days: int) -> date:
    return DEMO_TODAY - timedelta(days=days)


def _at(day: date) -> datetime:
    return datetime.combine(day, time(11, 0))


def _insert_case(tx: Tx, *, kind: str, record: tuple[str | None, int | None], office: str, wreck_id: int,
                 org: int | None, summary: str, decided: date, notified: date,
                 appeals: list[tuple[date, bool, str | None, list[tuple[str, date, str | None, str | None]]]],
                 appellant: str) -> tuple[int, int]:
    decision = int(tx.scalar(
        "INSERT INTO administrative_decisions (kind, record_table, record_id, office_code, wreck_id, contract_id, "
        "organisation_id, summary, authority, decided_on, notice, notified_on, recorded_by, recorded_at) "
        "VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, 'notificação', ?, ?, ?) RETURNING id",
        [kind, record[0], record[1], office, wreck_id, org, summary, AUTHORITY.format(office=office), decided,
         notified, DEMO_ACTOR, _at(notified)]))
    steps = 0
    for instance, (filed, on_time, suspensive, path) in enumerate(appeals, start=1):
        appeal = int(tx.scalar(
            "INSERT INTO appeals (decision_id, instance, filed_on, appellant, organisation_id, grounds, on_time, "
            "suspensive, suspensive_reason, recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING id", [decision, instance, filed, appellant, org, GROUNDS, on_time, suspensive is not None,
                             suspensive, DEMO_ACTOR, _at(filed)]))
        rows = [(appeal, k, day, outcome, reason, DEMO_ACTOR, _at(day)) for k, day, outcome, reason in path]
        if rows:
            tx.cur.executemany("INSERT INTO appeal_steps (appeal_id, kind, day, outcome, reason, recorded_by, "
                               "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        steps += len(rows)
        end = next((day for k, day, outcome, _ in path if k == "decided" or (k, outcome) == ("reconsidered",
                                                                                            "provido")), None)
        if end is not None and end + NOTIFIED_AFTER <= DEMO_TODAY:   # the party notified of the appeal's decision
            told = end + NOTIFIED_AFTER
            tx.execute("INSERT INTO appeal_notices (appeal_id, notice, notified_on, recorded_by, recorded_at) "
                       "VALUES (?, 'notificação', ?, ?, ?)", [appeal, told, DEMO_ACTOR, _at(told)])
    return len(appeals), steps


def _request_case(tx: Tx, office: str) -> dict[str, Any] | None:
    """The office's decided claim (the requests demo's 'reclamação') and its decision day."""
    return tx.fetch_one("SELECT q.id, q.wreck_id, q.organisation_id, s.day FROM requests q JOIN request_steps s "
                        "ON s.request_id = q.id AND s.kind = 'decided' WHERE q.office_code = ? AND "
                        "q.matter = 'reclamação' ORDER BY q.id LIMIT 1", [office])


def seed_appeals_demo(store: Store) -> dict[str, int]:
    """Insert the cases listed in the module docstring; returns the rows added per table."""
    counts = {"administrative_decisions": 0, "appeals": 0, "appeal_steps": 0}
    if not store.has_table("appeals") or store.scalar("SELECT count(*) FROM administrative_decisions"):
        return counts

    def write(tx: Tx) -> None:
        orgs = tx.fetch("SELECT id, name FROM organisations ORDER BY id")
        turn = 0
        wrecks = tx.fetch("SELECT office_code, arg_min(id, code) AS id FROM wrecks WHERE owner_id IS NOT NULL "
                          "GROUP BY office_code ORDER BY office_code")
        for n, wreck in enumerate(wrecks):
            for kind, by_company, summary, decided, notified, appeals in PLAN:
                org = orgs[turn % len(orgs)] if by_company and orgs else None
                turn += by_company
                shift = 5 if (n % 2 and kind == "preference" and len(appeals) == 1 and not appeals[0][3]) else 0
                path = [(_ago(filed + shift), on_time, susp, [(k, _ago(d), o, r) for k, d, o, r in steps])
                        for filed, on_time, susp, steps in appeals]
                a, s = _insert_case(tx, kind=kind, record=(None, None), office=wreck["office_code"],
                                    wreck_id=int(wreck["id"]), org=None if org is None else int(org["id"]),
                                    summary=summary, decided=_ago(decided + shift), notified=_ago(notified + shift),
                                    appeals=path, appellant=org["name"] if org else "Responsável pelo naufrágio")
                counts["administrative_decisions"] += 1
                counts["appeals"] += a
                counts["appeal_steps"] += s
            claim = _request_case(tx, wreck["office_code"])
            if claim is not None:
                day = claim["day"]
                offsets = (8, 12, 14, 19, 40)   # filed, forwarded, intimated, allegations, decided: days after
                steps = [(k, day + timedelta(days=d), o, r)
                         for (k, _, o, r), d in zip(REQUEST_APPEAL[3], offsets[1:], strict=True)]
                a, s = _insert_case(tx, kind="request", record=("requests", int(claim["id"])),
                                    office=wreck["office_code"], wreck_id=int(claim["wreck_id"]),
                                    org=claim["organisation_id"], summary="Reclamação indeferida: as coisas não "
                                    "foram identificadas como do reclamante (art. 12).", decided=day,
                                    notified=day + timedelta(days=2),
                                    appeals=[(day + timedelta(days=offsets[0]), True, None, steps)],
                                    appellant="Responsável pelo naufrágio")
                counts["administrative_decisions"] += 1
                counts["appeals"] += a
                counts["appeal_steps"] += s
        tx.audit("seed_appeals_demo", "demo", None, None, dict(counts))

    store.write(DEMO_ACTOR, write)
    return counts
