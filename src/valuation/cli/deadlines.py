"""`python -m valuation deadlines`: the daily deadline digest for a scheduler:

    deadlines --db PATH --as-of YYYY-MM-DD [--format json|ics] [--office CODE]

json (default): {"as_of", "office", "counts": {state: n}, "deadlines": [the overdue and
due-soon deadlines, ordered by due date], "cancellation_candidates": [...]} — see
`valuation.deadlines.frames.digest`. ics: the iCalendar feed of the pending
deadlines (of the office, or of every office), for a calendar server to publish.
The digest reads as DPC does (every deadline); it writes nothing.

While the service runs (issue 13) the command is handed to it (`valuation.cli.service_link`) and
reads the live file through the service's own Store; the service also mails the digest daily
(`valuation.jobs`). What follows is what happens without a running service.

The single-process lock — the choice made here and why
------------------------------------------------------
DuckDB lets one process own a database file; while the dashboard runs, no other
process can open it, not even read-only. The digest therefore opens the file
READ-ONLY and does not wait or retry: when the file is held it prints which process
holds it and what to do, and exits 3 (StoreLocked), so a scheduler sees a failure
instead of a silent stale digest. It is meant to run

- in the daily window when the dashboard is stopped (the nightly backup/CHECKPOINT
  window the deployment already needs: `db init` migrations and imports have the same
  constraint), or
- on a snapshot copy of the file taken while the dashboard was stopped (the backup):
  a read-only open never changes the copy, and `--as-of` makes the result independent
  of when the job runs.

Why not read the live file through the dashboard process (an HTTP endpoint) or keep
a second copy in sync: both add a moving part and a second source of truth for a
report that is needed once a day, and the deadlines only change when someone records
an event — a copy from the night before gives the same digest for `--as-of` today.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import date
from typing import Any

from valuation.core.errors import InputError, NotFound, Problem
from valuation.deadlines.digest import SYSTEM_PRINCIPAL


def _as_of(text: str) -> date:
    """--as-of as a date within the engine's years (1900–2100); InputError naming the flag (exit 2)."""
    from valuation.deadlines.engine import MAX_AS_OF, MIN_AS_OF

    try:
        day = date.fromisoformat(text) if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text or "") else None
    except ValueError:
        day = None
    if day is None:
        raise InputError(Problem("--as-of", f"must be a date YYYY-MM-DD, got {text[:40]!r}"))
    if not MIN_AS_OF <= day <= MAX_AS_OF:
        raise InputError(Problem("--as-of", f"must be between {MIN_AS_OF.isoformat()} and {MAX_AS_OF.isoformat()}, "
                                            f"got {text}"))
    return day


def cmd_deadlines(args: argparse.Namespace) -> int:
    as_of = _as_of(args.as_of)
    from valuation.db.shared import using
    from valuation.deadlines import frames

    with using(args.db, read_only=True) as store:   # the service's own Store when it runs the command
        if args.office and store.fetch_one("SELECT code FROM offices WHERE code = ?", [args.office]) is None:
            raise NotFound(f"--office: unknown office {args.office}", what="office", key=args.office)
        if args.format == "ics":
            data = frames.deadlines_ics(store, SYSTEM_PRINCIPAL, as_of=as_of, office=args.office or None)
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            return 0
        doc: dict[str, Any] = frames.digest(store, SYSTEM_PRINCIPAL, as_of=as_of, office=args.office or None)
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return 0


def register_cli(subparsers: Any) -> None:
    """Add the `deadlines` command (called by valuation.cli.main.build_parser via EXTRA_COMMANDS)."""
    p = subparsers.add_parser("deadlines", help="daily digest of overdue and due-soon deadlines (read-only)")
    p.add_argument("--db", required=True, help="path of the DuckDB file (opened read-only)")
    p.add_argument("--as-of", required=True, help="the day the deadlines are stated on, YYYY-MM-DD")
    p.add_argument("--format", choices=("json", "ics"), default="json", help="json digest (default) or iCalendar")
    p.add_argument("--office", help="only this office (code, e.g. CPRJ)")
    p.set_defaults(handler=cmd_deadlines)
