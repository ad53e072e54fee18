"""Writing notices: `notify(tx, event_key, recipients, kind, title, body, link)`, inside the write of the act it
tells of (docs/decisions/060-notices.md).

- One notice per (recipient, event): the same event notified again — a retried write, a daily job that sees the
  same deadline tomorrow — writes nothing for whoever has it already (UNIQUE (user_id, event_key)).
- Only active users with an inbox (`read_own_notices`) receive one; who they are is the caller's choice, made with
  `valuation.notices.recipients` (db/access's predicates).
- The text is checked before anything is written (`text.check`: no amount, no position, a page of the app as
  link): a ValueError there is the writer's mistake, and the act it tells of is not written either.
- Each notice keeps the recipient's e-mail choice at the time (`kinds.MAIL_*`; 'none' when the person had no
  address): the jobs send the 'now' ones within minutes, the 'daily' ones in the day's summary
  (valuation.jobs.notices_mail), after the commit — an SMTP server that is down never holds back the act.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from valuation.db.access import users_allowed
from valuation.notices.kinds import DEFAULT_MAIL, MAIL_NONE
from valuation.notices.text import check


def _ids(recipients: Iterable[object]) -> list[int]:
    out: set[int] = set()
    for r in recipients:
        if isinstance(r, bool) or not isinstance(r, int):
            raise ValueError(f"a recipient is a user id, not {r!r}")
        out.add(r)
    return sorted(out)


def notify(tx: Any, event_key: str, recipients: Iterable[int], kind: str, title: str, body: str, link: str) -> int:
    """Write one notice of `kind` for each of `recipients` (user ids) who has none of `event_key` yet, inside the
    open write `tx`; returns how many were written (0: all had it, or no recipient may have one)."""
    check(event_key, kind, title, body, link)
    ids = _ids(recipients)
    if not ids:
        return 0
    inbox, roles = users_allowed("read_own_notices", "u")
    rows = tx.execute(
        f"""INSERT INTO notices (user_id, event_key, kind, title, body, link, created_at, mail)
            SELECT u.id, ?, ?, ?, ?, ?, ?,
                   CASE WHEN contains(coalesce(u.email, ''), '@') THEN coalesce(p.mail, ?) ELSE ? END
            FROM users u
            LEFT JOIN (SELECT user_id, arg_max(mail, id) AS mail FROM notice_preferences
                       WHERE list_contains(?, user_id) GROUP BY user_id) p ON p.user_id = u.id
            WHERE list_contains(?, u.id) AND u.active AND {inbox}
            ORDER BY u.id
            ON CONFLICT DO NOTHING RETURNING id""",
        [event_key, kind, title.strip(), body.strip(), link, tx.store.now(), DEFAULT_MAIL, MAIL_NONE, ids, ids,
         *roles])
    return len(rows)
