"""The daily notices (issue 42 item 4; docs/decisions/060-notices.md), run by the job `notices_daily` at
`VALUATION_NOTICES_AT` (default 06:30, before the 07:00 deadline digest):

- values missing: every round still open `events.REMINDER_DAYS` (7) days after it opened (the office's calendar
  day), each member of the panel who has not assessed every item is reminded — once per round and member;
- a company's deadline near: every deadline of the engine (`deadlines.engine.compute_deadlines`, as the digest
  reads them) in the state 'due_soon' that belongs to a company — its people, once per deadline key and state;
- an Authority's deadline near: what the Authority owes in the requests, appeals and acts to sign
  (`proceedings.requests.authority_deadlines`) in the state 'due_soon' — the office's officers and the DPC users
  who follow it, once per case, period and state;

then the day's summary to each person who chose one (`notices_mail.send_digests`). Each sweep is one write of
its own: a notice already written is not written again (the event's key), so the job may run twice a day.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from valuation.core import clock
from valuation.core.money import format_count
from valuation.notices import events, recipients

NEAR = "due_soon"


def is_present(value: object) -> bool:
    try:
        return value is not None and value == value and str(value).strip() != ""   # NaN from a frame is a blank
    except TypeError:
        return False


def _write(store: Any, what: str, fn: Any) -> int:
    """Run `fn(tx) -> notices written` in a write of the schedule's; audited when it wrote some."""
    def run(tx: Any) -> int:
        n = int(fn(tx))
        if n:
            tx.audit("notices_written", "notices", None, None, {"kind": what, "notices": n})
        return n
    return int(store.write("agenda", run))


def values_missing(store: Any, as_of: date) -> int:
    """Reminders to the members behind in the rounds open `REMINDER_DAYS` days on `as_of`."""
    from valuation.commission.entry_queue import members_behind, rounds_open_since

    since, _ = clock.utc_bounds(as_of - timedelta(days=events.REMINDER_DAYS - 1), None)
    assert since is not None
    rounds = rounds_open_since(store, since)
    if not rounds:
        return 0
    members = recipients.commission_members(store)
    behind = {rid: members_behind(store, rid, members) for rid in rounds}
    return _write(store, "values_missing", lambda tx: sum(
        events.values_missing(tx, round_id=rid, missing=missing) for rid, missing in behind.items() if missing))


def _subject(r: dict[str, Any]) -> str:
    parts = [f"contrato {r['contract_code']}" if is_present(r.get("contract_code")) else "",
             f"naufrágio {r['wreck_name']}" if is_present(r.get("wreck_name")) else ""]
    return " — ".join(p for p in parts if p)


def deadlines_near(store: Any, as_of: date) -> int:
    """The companies' deadlines due soon on `as_of`, each to its company's people."""
    from valuation.jobs.digest_mail import digest_rows

    rows = [r for r in digest_rows(store, as_of) if r["state"] == NEAR and is_present(r.get("organisation_id"))]
    if not rows:
        return 0
    return _write(store, "deadline_near", lambda tx: sum(
        events.deadline_near(tx, deadline_key=str(r["key"]), organisation_id=int(r["organisation_id"]),
                             label=str(r["label_pt"]), subject=_subject(r), due=r["due"], reason=str(r["reason"]),
                             basis=str(r["basis"])) for r in rows))


def _case_key(r: dict[str, Any]) -> str:
    """What a row of what the Authority owes is about: its request, appeal, decision or act, and the period."""
    ids = [f"{name}{r[name]}" for name in ("request_id", "appeal_id", "decision_id") if is_present(r.get(name))]
    if is_present(r.get("act")):
        ids.append(str(r["act"]))
    return "/".join(ids) + f":{r['rule']}"


def authority_deadlines_near(store: Any, as_of: date) -> int:
    """What the Authority owes, due soon on `as_of`, each to the people of its office."""
    from valuation.jobs.digest_mail import authority_rows
    from valuation.proceedings.requests import case_title

    rows = [r for r in authority_rows(store, as_of) if r["state"] == NEAR and is_present(r.get("office_code"))]
    if not rows:
        return 0
    return _write(store, "authority_deadline_near", lambda tx: sum(
        events.authority_deadline_near(tx, case_key=_case_key(r), office_code=str(r["office_code"]),
                                       label=str(r["label"]), case=case_title(r), due=r["due"], basis=str(r["basis"]))
        for r in rows))


def sweep(store: Any, as_of: date) -> dict[str, int]:
    """The day's notices (module docstring): kind → notices written."""
    return {"values_missing": values_missing(store, as_of), "deadline_near": deadlines_near(store, as_of),
            "authority_deadline_near": authority_deadlines_near(store, as_of)}


def run(store: Any, settings: Any, *, now: datetime | None = None) -> str:
    """The job: the day's notices, then the summaries; what was done (pt-BR)."""
    from valuation.jobs.notices_mail import send_digests
    from valuation.proceedings.intimations import record_tacit

    as_of = clock.today_brasilia(now or clock.now_utc())
    tacit = record_tacit(store, as_of)      # issue 42 item 3: the periods of the unopened intimations run from today
    written = sweep(store, as_of)
    total = sum(written.values())
    head = (f"{format_count(total)} aviso{'s' if total != 1 else ''} gerado{'s' if total != 1 else ''} "
            f"({format_count(written['values_missing'])} de avaliações pendentes, "
            f"{format_count(written['deadline_near'])} de prazos das empresas, "
            f"{format_count(written['authority_deadline_near'])} de prazos da Autoridade).")
    tacit_text = f" {format_count(tacit)} ciência(s) tácita(s) de intimação registrada(s)." if tacit else ""
    return f"{head}{tacit_text} Resumo diário: {send_digests(store, settings, as_of=as_of)}"
