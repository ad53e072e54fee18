"""Deadline events for the demo data set, so that the dashboard shows every state.

`seed_deadline_demo(store, as_of=...)` is called by the demo seeding after the
contracts and wrecks exist. It is deterministic (a function of the stored rows and
`as_of`, ordered by code) and idempotent (it does nothing when demo events exist).
It reads the contracts and wrecks it finds, so it works whatever the demo holds:

- contracts in force owing monthly reports: the reports whose deadline has passed are
  delivered (a few days before the due date, one of them late), except that the first
  contract misses its last two (→ overdue and an automatic-cancellation candidate,
  NORMAM-10 0305 f) and every third one misses its last (→ overdue); the current
  month's report stays pending (upcoming or due soon);
- start of operations recorded on the fixed day; half of the extension requests whose
  latest day has passed were made in time;
- finished contracts: every monthly report, and the final report for all but the most
  recently finished one;
- the Maritime Court track: the inquiry opened 3 days after the office learned of the
  casualty and reached the Court within 90 days, except for the most recent casualty,
  whose steps were concluded 4 days before `as_of` (report due soon); the Court decided every case but the two
  most recent two years after the casualty became known (those two pending: the owners' five years stopped);
- the previous year's wreck map sent by every office but one in ten (overdue after
  15 February); a preference notice published 8 days before `as_of` (due soon); an
  excursion notified in time. (Found things are the demo's own rows in `found_things`.)
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any

from valuation.db.store import Store, Tx
from valuation.deadlines import rules as dl
from valuation.deadlines import vocabulary as v
from valuation.deadlines.calendars import office_calendars
from valuation.demo.constants import DEMO_ACTOR


def _months(first: date, last: date) -> list[date]:
    out, m = [], date(first.year, first.month, 1)
    while m <= date(last.year, last.month, 1):
        out.append(m)
        m = date(m.year + (m.month == 12), m.month % 12 + 1, 1)
    return out


class _Events:
    """The events being built, each kept only when it happened by `as_of`."""

    def __init__(self, as_of: date) -> None:
        self.as_of = as_of
        self.rows: list[dict[str, Any]] = []

    def add(self, kind: str, day: date, *, contract_id: int | None = None, wreck_id: int | None = None,
            office_code: str | None = None, organisation_id: int | None = None, reference: str | None = None,
            note: str | None = None) -> None:
        if day <= self.as_of:
            self.rows.append({"kind": kind, "contract_id": contract_id, "wreck_id": wreck_id,
                              "office_code": office_code, "organisation_id": organisation_id, "event_date": day,
                              "reference": reference, "note": note})


def _contract_events(ev: _Events, i: int, c: dict[str, Any], cal: Any, skip: int, last_ended: int | None) -> None:
    """One contract's reports, start of operations, extension request and final report."""
    as_of = ev.as_of
    begin = c["starts_on"] or c["signed_on"]
    owes = c["kind"] in ("pesquisa", "exploração") or dl.removal_monthly_reports(c["starts_on"], c["expires_on"])
    active = c["status"] in ("vigente", "suspenso")
    months: list[tuple[date, date]] = []
    if owes and begin is not None:
        stops = [d for d in (c["work_ended_on"], c["cancelled_on"], c["expires_on"], as_of) if d is not None]
        dues = [(m, dl.monthly_report(m, cal).due) for m in _months(begin, min(stops)) if begin <= min(stops)]
        months = [(m, due) for m, due in dues if due is not None]
    owed = [(m, due) for m, due in months if due < as_of]
    for n, (m, due) in enumerate(owed[:len(owed) - skip] if skip else owed):
        day = max(dl.add_months(m, 1)[0], due - timedelta(days=(i + n) % 5))
        if n == 2 and i % 2 == 0:
            day = due + timedelta(days=3)  # one late delivery: met, flagged late
        ev.add(v.MONTHLY_REPORT_DELIVERED, day, contract_id=c["id"], reference=f"{m.year:04d}-{m.month:02d}")
    if active and c["starts_on"] is not None and i % 7 != 3:
        ev.add(v.OPERATIONS_STARTED, c["starts_on"], contract_id=c["id"])
    if active and c["expires_on"] is not None and c["work_ended_on"] is None and i % 2 == 0:
        latest = dl.extension_request(c["expires_on"], cal).due
        if latest is not None and latest < as_of:
            ev.add(v.EXTENSION_REQUESTED, latest - timedelta(days=7), contract_id=c["id"],
                   reference=c["expires_on"].isoformat())
    if c["work_ended_on"] is not None and c["id"] != last_ended:
        ev.add(v.FINAL_REPORT_DELIVERED, c["work_ended_on"] + timedelta(days=60), contract_id=c["id"])


def _court_events(ev: _Events, wrecks: list[dict[str, Any]]) -> None:
    """The Maritime Court track: inquiries opened in time, all but the latest sent to the Court; the Court decided
    the older cases two years after the casualty became known, the two latest are pending (their owners' five
    years stopped meanwhile: Lei 2.180 art. 20, the policy on by default)."""
    for n, w in enumerate(wrecks):
        known = w["court_known_on"]
        ev.add(v.COURT_INQUIRY_OPENED, known + timedelta(days=3), wreck_id=w["id"])
        if n == 0 and ev.as_of - timedelta(days=4) > known + timedelta(days=3):
            ev.add(v.COURT_STEPS_CONCLUDED, ev.as_of - timedelta(days=4), wreck_id=w["id"])  # report due soon
        elif n > 0:
            ev.add(v.COURT_INQUIRY_SENT, known + timedelta(days=90), wreck_id=w["id"])  # reached the Court in time
        if n > 1:
            ev.add(v.COURT_DECIDED, known + timedelta(days=730), wreck_id=w["id"])


def seed_deadline_demo(store: Store, *, as_of: date) -> dict[str, int]:
    """Insert the demo's deadline events (see the module docstring); returns {"events": n}."""
    if store.scalar("SELECT count(*) FROM deadline_events WHERE recorded_by = ?", [DEMO_ACTOR]):
        return {"events": 0}
    cals = office_calendars(store, on=as_of)
    ev = _Events(as_of)
    contracts = store.fetch(
        "SELECT id, code, kind, status, office_code, organisation_id, wreck_id, signed_on, starts_on, expires_on, "
        "work_ended_on, cancelled_on FROM contracts WHERE status <> 'solicitado' ORDER BY code")
    ended = [c for c in contracts if c["work_ended_on"] is not None and c["work_ended_on"] <= as_of]
    last_ended = max(ended, key=lambda c: (c["work_ended_on"], c["code"]))["id"] if ended else None
    active_index = 0
    for i, c in enumerate(contracts):
        skip = 0
        if c["status"] in ("vigente", "suspenso"):
            skip = 2 if active_index == 0 else 1 if active_index % 3 == 1 else 0
            active_index += 1
        _contract_events(ev, i, c, cals[c["office_code"]], skip, last_ended)
    _court_events(ev, store.fetch("SELECT id, code, office_code, court_known_on FROM wrecks "
                                  "WHERE court_known_on IS NOT NULL ORDER BY court_known_on DESC, code"))
    for n, code in enumerate(sorted(cals)):
        if n % 10 != 3:  # every tenth office has not sent last year's map (overdue after 15 February)
            ev.add(v.WRECK_MAP_SENT, date(as_of.year, 2, 10), office_code=code, reference=str(as_of.year - 1))
    exploration = next((c for c in contracts if c["kind"] == "exploração"), None)
    if exploration is not None:
        ev.add(v.NOTICE_PUBLISHED, as_of - timedelta(days=8), wreck_id=exploration["wreck_id"],
               reference="Diário Oficial da União")
        ev.add(v.EXCURSION_NOTIFIED, as_of - timedelta(days=5), wreck_id=exploration["wreck_id"],
               organisation_id=exploration["organisation_id"], reference=(as_of + timedelta(days=20)).isoformat())
    return _write(store, ev.rows, as_of)


def _write(store: Store, events: list[dict[str, Any]], as_of: date) -> dict[str, int]:
    if not events:
        return {"events": 0}
    import pyarrow as pa

    stamp = datetime.combine(as_of, time(12, 0))
    for e in events:
        e.update(recorded_by=DEMO_ACTOR, recorded_at=stamp)
    # An Arrow table with explicit types: NULL ids stay NULL (a DataFrame would make them NaN floats).
    table = pa.Table.from_pylist(events, schema=_schema())

    def write(tx: Tx) -> None:
        tx.insert_frame("deadline_events", table)
        tx.audit("seed_deadline_demo", "deadline_event", None, None,
                 {"events": len(events), "as_of": as_of, "kinds": sorted({e["kind"] for e in events})})

    store.write(DEMO_ACTOR, write)
    return {"events": len(events)}


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema([("kind", pa.string()), ("contract_id", pa.int64()), ("wreck_id", pa.int64()),
                      ("office_code", pa.string()), ("organisation_id", pa.int64()), ("event_date", pa.date32()),
                      ("reference", pa.string()), ("note", pa.string()), ("recorded_by", pa.string()),
                      ("recorded_at", pa.timestamp("us"))])
