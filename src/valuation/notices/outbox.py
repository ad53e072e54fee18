"""The notices still to be e-mailed (read by valuation.jobs.notices_mail, which composes and sends them).

    has_pending(db, mail)      is any notice of that choice ('now', 'daily') waiting for its e-mail?
    pending(db, mail)          those notices with their recipient's name and address, by person and age
    mark_emailed(store, ids)   they were handed to the SMTP server: never sent again

A notice waits while its `emailed_at` is NULL: an SMTP server that cannot be reached leaves it so, and the next
run sends it. Only active people with an address are sent anything; a notice written while its person chose 'none'
(or had no address) is never sent.
"""
from __future__ import annotations

from typing import Any

from valuation.notices.kinds import MAIL_DAILY, MAIL_NOW

MAX_BATCH = 5000      # notices one run sends at most; the next run sends the rest

_WAITING = ("FROM notices n JOIN users u ON u.id = n.user_id WHERE n.mail = ? AND n.emailed_at IS NULL AND u.active "
            "AND contains(coalesce(u.email, ''), '@')")


def _mail(mail: str) -> str:
    if mail not in (MAIL_NOW, MAIL_DAILY):
        raise ValueError(f"no e-mail is sent for the choice {mail!r}")
    return mail


def has_pending(db: Any, mail: str) -> bool:
    """Is a notice of choice `mail` waiting for its e-mail? (one cheap read: the scheduler asks every few minutes)"""
    return db.scalar(f"SELECT 1 {_WAITING} LIMIT 1", [_mail(mail)]) is not None


def pending(db: Any, mail: str, limit: int = MAX_BATCH) -> list[dict[str, Any]]:
    """The notices of choice `mail` waiting for their e-mail: id, user_id, full_name, email, kind, title, body, link,
    created_at — by person, oldest first."""
    return db.fetch(f"SELECT n.id, n.user_id, u.full_name, u.email, n.kind, n.title, n.body, n.link, n.created_at "
                    f"{_WAITING} ORDER BY n.user_id, n.id LIMIT ?", [_mail(mail), int(limit)])


def mark_emailed(store: Any, ids: list[int], *, people: int) -> int:
    """Record that the notices `ids` (sent to `people` persons) were handed to the SMTP server; how many."""
    chosen = sorted({int(i) for i in ids})
    if not chosen:
        return 0

    def run(tx: Any) -> int:
        done = tx.execute("UPDATE notices SET emailed_at = ? WHERE list_contains(?, id) AND emailed_at IS NULL",
                          [tx.store.now(), chosen])
        n = int(next(iter(done[0].values()))) if done else 0
        tx.audit("notices_mailed", "notices", None, None, {"notices": n, "recipients": people})
        return n

    return int(store.write("agenda", run))
