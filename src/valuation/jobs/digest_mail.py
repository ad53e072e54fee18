"""The daily deadline digest as e-mail (issue 13, item 3), built on `valuation.deadlines.engine.compute_deadlines`
(the same rows as `python -m valuation deadlines`).

Who gets what (decision, README "Decisions"):
- one message per office (Capitania) with overdue or due-soon deadlines, to the active DPC
  users assigned to that office (`user_offices`);
- one message with every office's deadlines to the active DPC users assigned to none
  (headquarters), so nobody at DPC gets one message per office;
- one message per explorer company with overdue or due-soon deadlines, to its active users.
The DPC messages (headquarters and each office's) also list, in a section of their own, what the Authority
itself owes in the requests filed with the office (`valuation.proceedings.requests.authority_deadlines`: Lei
9.784/1999 arts. 24, 26 §2, 41, 42 and 49), overdue and due soon; the companies' messages do not.
Users without an e-mail address are skipped. A group with nothing overdue or due soon gets no
message. Every user-written value (names, reasons) is HTML-escaped in the HTML part.
"""
from __future__ import annotations

import html
from collections.abc import Iterable
from datetime import date
from typing import Any

from valuation.core.money import format_date_br
from valuation.db.access import national_users, users_allowed, users_of_office, users_of_organisation
from valuation.deadlines.digest import SYSTEM_PRINCIPAL
from valuation.deadlines.states import STATE_HEADINGS
from valuation.jobs.mail import Mail, addresses

SHOWN_STATES = ("overdue", "due_soon")
PAGE_PATH = "/deadlines"
AUTHORITY_HEADING = "O que a Autoridade deve"


def _d(day: date) -> str:
    return format_date_br(day)


def digest_rows(store: Any, as_of: date) -> list[dict[str, Any]]:
    """The overdue and due-soon deadlines of every office and company, ordered by due date."""
    from valuation.deadlines.engine import compute_deadlines

    df = compute_deadlines(store, SYSTEM_PRINCIPAL, as_of=as_of)
    if df.empty:
        return []
    rows = df[df["state"].isin(SHOWN_STATES)].to_dict("records")
    return sorted(rows, key=lambda r: (r["due"], str(r["key"])))


def authority_rows(store: Any, as_of: date) -> list[dict[str, Any]]:
    """The Authority's own overdue and due-soon deadlines in the requests of every office, by due date."""
    from valuation.proceedings.requests import authority_deadlines

    if not store.has_table("requests"):
        return []
    return [r for r in authority_deadlines(store, SYSTEM_PRINCIPAL, as_of=as_of) if r["state"] in SHOWN_STATES]


def _owed_title(r: dict[str, Any]) -> str:
    from valuation.proceedings.requests import case_title

    return f"{r['label']} — {case_title(r)}, {r['matter_pt']}, naufrágio {r['wreck']}"


def _who(r: dict[str, Any]) -> str:
    def given(key: str) -> bool:
        v = r.get(key)
        return v is not None and v == v and str(v).strip() != ""  # v == v: NaN from a frame is a blank

    parts = [f"contrato {r['contract_code']}" if given("contract_code") else "",
             f"naufrágio {r['wreck']}" if given("wreck") else "",
             str(r["organisation"]) if given("organisation") else ""]
    return " — ".join(p for p in parts if p)


def _text(title: str, as_of: date, rows: list[dict[str, Any]], link: str, owed: list[dict[str, Any]]) -> str:
    lines = [title, f"Situação em {_d(as_of)}.", ""]
    for state in SHOWN_STATES:
        chosen = [r for r in rows if r["state"] == state]
        if not chosen:
            continue
        lines.append(f"{STATE_HEADINGS[state].upper()} ({len(chosen)})")
        for r in chosen:
            who = _who(r)
            lines += [f"- {r['label_pt']}" + (f" — {who}" if who else ""),
                      f"  Vencimento: {_d(r['due'])} ({r['reason']}) · {r.get('office_code') or ''}",
                      f"  Fundamento: {r['basis']}"]
        lines.append("")
    if owed:
        lines.append(f"{AUTHORITY_HEADING.upper()} ({len(owed)})")
        for r in owed:
            lines += [f"- {_owed_title(r)}", f"  Vencimento: {_d(r['due'])} ({r['state_pt']}) · {r['office_code']}",
                      f"  Fundamento: {r['basis']}"]
        lines.append("")
    lines += [f"Abrir a página de prazos: {link}", "",
              "Mensagem automática do painel de naufrágios e bens resgatados (DPC). Não responda."]
    return "\n".join(lines)


def _html(title: str, as_of: date, rows: list[dict[str, Any]], link: str, owed: list[dict[str, Any]]) -> str:
    e = html.escape
    parts = [f"<h2>{e(title)}</h2>", f"<p>Situação em {_d(as_of)}.</p>"]
    for state in SHOWN_STATES:
        chosen = [r for r in rows if r["state"] == state]
        if not chosen:
            continue
        parts.append(f"<h3>{STATE_HEADINGS[state]} ({len(chosen)})</h3>")
        parts.append('<table border="1" cellpadding="4" cellspacing="0"><tr><th>Prazo</th><th>Contrato / '
                     "naufrágio / empresa</th><th>Vencimento</th><th>Situação</th><th>Capitania</th>"
                     "<th>Fundamento</th></tr>")
        for r in chosen:
            parts.append(f"<tr><td>{e(str(r['label_pt']))}</td><td>{e(_who(r))}</td><td>{_d(r['due'])}</td>"
                         f"<td>{e(str(r['reason']))}</td><td>{e(str(r.get('office_code') or ''))}</td>"
                         f"<td>{e(str(r['basis']))}</td></tr>")
        parts.append("</table>")
    if owed:
        parts.append(f"<h3>{AUTHORITY_HEADING} ({len(owed)})</h3>")
        parts.append('<table border="1" cellpadding="4" cellspacing="0"><tr><th>O que fazer</th><th>Vencimento</th>'
                     "<th>Situação</th><th>Capitania</th><th>Fundamento</th></tr>")
        for r in owed:
            parts.append(f"<tr><td>{e(_owed_title(r))}</td><td>{_d(r['due'])}</td><td>{e(str(r['state_pt']))}</td>"
                         f"<td>{e(str(r['office_code']))}</td><td>{e(str(r['basis']))}</td></tr>")
        parts.append("</table>")
    parts.append(f'<p><a href="{e(link, quote=True)}">Abrir a página de prazos</a></p>')
    parts.append("<p><small>Mensagem automática do painel de naufrágios e bens resgatados (DPC).</small></p>")
    return "<html><body>" + "\n".join(parts) + "</body></html>"


def _mail(to: tuple[str, ...], title: str, as_of: date, rows: list[dict[str, Any]], base_url: str,
          owed: list[dict[str, Any]] | None = None) -> Mail:
    owed = owed or []
    overdue = sum(1 for r in [*rows, *owed] if r["state"] == "overdue")
    soon = len(rows) + len(owed) - overdue
    subject = (f"{title} — {_d(as_of)}: {overdue} vencido{'s' if overdue != 1 else ''}, "
               f"{soon} vence{'m' if soon != 1 else ''} em breve")
    link = base_url + PAGE_PATH
    return Mail(to=to, subject=subject, text=_text(title, as_of, rows, link, owed),
                html=_html(title, as_of, rows, link, owed))


def _users(store: Any, action: str, where: str, params: list[Any]) -> list[dict[str, Any]]:
    """Active users whose role may perform `action` (a PERMISSIONS key) and who match `where`."""
    allowed_sql, roles = users_allowed(action, "u")
    return store.fetch(f"SELECT u.username, u.email FROM users u WHERE u.active AND {allowed_sql} AND {where} "
                       "ORDER BY u.username", [*roles, *params])


def digest_mails(store: Any, *, as_of: date, base_url: str) -> list[Mail]:
    """The day's digest messages (see the module docstring for who gets which)."""
    rows = digest_rows(store, as_of)
    owed = authority_rows(store, as_of)
    if not rows and not owed:
        return []
    mails: list[Mail] = []
    offices = {r["code"]: r["name"] for r in store.fetch("SELECT code, name FROM offices")}
    hq = addresses(_users(store, "read_all_deadlines", *national_users("u")))
    if hq:
        mails.append(_mail(hq, "Prazos de todas as Capitanias", as_of, rows, base_url, owed))
    for code in sorted({r["office_code"] for r in [*rows, *owed] if r.get("office_code")}):
        to = addresses(_users(store, "read_all_deadlines", *users_of_office(code, "u")))
        if to:
            chosen = [r for r in rows if r.get("office_code") == code]
            mails.append(_mail(to, f"Prazos da {offices.get(code, code)} ({code})", as_of, chosen, base_url,
                               [r for r in owed if r["office_code"] == code]))
    for org_id in sorted({int(r["organisation_id"]) for r in rows if _present(r.get("organisation_id"))}):
        # only an explorer belongs to an organisation (accounts.users checks it)
        to = addresses(_users(store, "read_deadlines", *users_of_organisation(org_id, "u")))
        if to:
            chosen = [r for r in rows if _present(r.get("organisation_id")) and int(r["organisation_id"]) == org_id]
            mails.append(_mail(to, f"Prazos da empresa {chosen[0].get('organisation') or org_id}", as_of, chosen,
                               base_url))
    return mails


def _present(value: object) -> bool:
    try:
        return value is not None and value == value  # NaN / NA are not organisations
    except TypeError:
        return False


def admin_addresses(store: Any) -> tuple[str, ...]:
    return addresses(_users(store, "manage_users", "TRUE", []))


def recipients(mails: Iterable[Mail]) -> list[str]:
    return sorted({a for m in mails for a in m.to})
