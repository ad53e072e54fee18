"""A person's inbox (Avisos): their own notices only, whatever their role (docs/decisions/060-notices.md).

    inbox(store, user, page=1, page_size=50)     Inbox: the page's notices (unread first, newest first), counts
    unread_count(store, user)                    the unread notices (the navigation's "Avisos (3)")
    mark_read(store, user, notice_id)            one notice read (another person's answers "não encontrado")
    mark_all_read(store, user)                   every unread notice read; how many
    mail_setting(store, user)                    MailSetting: the person's e-mail choice, whether they have an address
    set_mail_choice(store, user, choice)         the choice (kinds.MAIL_CHOICES), for the notices written after it

The reads touch one table by person with a LIMIT: 35–75 ms for a page of a person's 1 000 notices among a million
(docs/decisions/060-notices.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuation.core.errors import InputError, NotFound, Problem
from valuation.db.access import Principal, require
from valuation.db.paging import DEFAULT_PAGE_SIZE, check_page
from valuation.notices.kinds import DEFAULT_MAIL, MAIL_CHOICES

NOT_FOUND = "Aviso não encontrado."
COLUMNS = "id, kind, title, body, link, created_at, read_at"


@dataclass(frozen=True)
class Inbox:
    rows: list[dict[str, Any]]      # id, kind, title, body, link, created_at, read_at
    total: int
    unread: int
    page: int
    pages: int


@dataclass(frozen=True)
class MailSetting:
    choice: str                     # a key of kinds.MAIL_CHOICES
    has_address: bool               # the person's login has an e-mail address


def _counts(store: Any, user: Principal) -> tuple[int, int]:
    row = store.fetch_one("SELECT count(*) AS total, count(*) FILTER (WHERE read_at IS NULL) AS unread FROM notices "
                          "WHERE user_id = ?", [user.id]) or {}
    return int(row.get("total") or 0), int(row.get("unread") or 0)


def inbox(store: Any, user: Principal, page: int = 1, page_size: int = DEFAULT_PAGE_SIZE) -> Inbox:
    """The user's notices, unread first and newest first, one page of them."""
    require(user, "read_own_notices")
    check_page(page, page_size)
    total, unread = _counts(store, user)
    pages = max(1, -(-total // page_size))
    rows = store.fetch(f"SELECT {COLUMNS} FROM notices WHERE user_id = ? ORDER BY read_at IS NOT NULL, id DESC "
                       "LIMIT ? OFFSET ?", [user.id, page_size, (min(page, pages) - 1) * page_size])
    return Inbox(rows=rows, total=total, unread=unread, page=min(page, pages), pages=pages)


def unread_count(store: Any, user: Principal) -> int:
    """How many of the user's notices are unread."""
    require(user, "read_own_notices")
    return int(store.scalar("SELECT count(*) FROM notices WHERE user_id = ? AND read_at IS NULL", [user.id]) or 0)


def mark_read(store: Any, user: Principal, notice_id: int) -> bool:
    """Mark the user's notice `notice_id` read; False when it was read already. NotFound for another person's (or
    no) notice."""
    require(user, "manage_own_notices")
    if isinstance(notice_id, bool) or not isinstance(notice_id, int):
        raise NotFound(NOT_FOUND)

    def run(tx: Any) -> bool:
        row = tx.fetch_one("SELECT read_at FROM notices WHERE id = ? AND user_id = ?", [notice_id, user.id])
        if row is None:
            raise NotFound(NOT_FOUND)
        if row["read_at"] is not None:
            return False
        tx.execute("UPDATE notices SET read_at = ? WHERE id = ? AND user_id = ? AND read_at IS NULL",
                   [tx.store.now(), notice_id, user.id])
        tx.audit("notice_read", "notice", notice_id, None, {"read": 1})
        return True

    return bool(store.write(user.username, run))


def mark_all_read(store: Any, user: Principal) -> int:
    """Mark every unread notice of the user read; how many."""
    require(user, "manage_own_notices")

    def run(tx: Any) -> int:
        n = int(tx.scalar("SELECT count(*) FROM notices WHERE user_id = ? AND read_at IS NULL", [user.id]) or 0)
        if n:
            tx.execute("UPDATE notices SET read_at = ? WHERE user_id = ? AND read_at IS NULL",
                       [tx.store.now(), user.id])
            tx.audit("notices_read", "user", user.id, None, {"read": n})
        return n

    return int(store.write(user.username, run))


def mail_setting(store: Any, user: Principal) -> MailSetting:
    """The user's e-mail choice (the default when never chosen) and whether their login has an address."""
    require(user, "read_own_notices")
    row = store.fetch_one(
        "SELECT (SELECT mail FROM notice_preferences WHERE user_id = ? ORDER BY id DESC LIMIT 1) AS mail, "
        "(SELECT contains(coalesce(email, ''), '@') FROM users WHERE id = ?) AS has_address", [user.id, user.id]) or {}
    return MailSetting(choice=str(row.get("mail") or DEFAULT_MAIL), has_address=bool(row.get("has_address")))


def set_mail_choice(store: Any, user: Principal, choice: str) -> bool:
    """Record the user's e-mail choice (a key of MAIL_CHOICES); False when it was the choice already. It applies to
    the notices written from now on."""
    require(user, "manage_own_notices")
    if not isinstance(choice, str) or choice not in MAIL_CHOICES:
        raise InputError(Problem("choice", "Receber os avisos: escolha uma das opções ("
                                           + "; ".join(MAIL_CHOICES.values()) + ")."))

    def run(tx: Any) -> bool:
        current = tx.scalar("SELECT mail FROM notice_preferences WHERE user_id = ? ORDER BY id DESC LIMIT 1",
                            [user.id]) or DEFAULT_MAIL
        if current == choice:
            return False
        tx.execute("INSERT INTO notice_preferences (user_id, mail, chosen_at) VALUES (?, ?, ?)",
                   [user.id, choice, tx.store.now()])
        tx.audit("notice_mail_chosen", "user", user.id, {"mail": MAIL_CHOICES[current]},
                 {"mail": MAIL_CHOICES[choice]})
        return True

    return bool(store.write(user.username, run))
