"""Notices by e-mail, after the commit of the act they tell of (issue 42 item 4; docs/decisions/060-notices.md).

- `send_now` — the notices of the people who chose 'now': one message per person (the notice itself, or the
  list when several waited), run by the scheduler every `VALUATION_NOTICES_EVERY` minutes only when one waits
  (`waiting_now`: one cheap read), so a quiet day records no run at all;
- `send_digests` — the notices of the people who chose 'daily': one summary per person, in the daily job.

A message says what happened and links to the page (`VALUATION_BASE_URL` + the notice's link): its text is the
notice's, which never carries a position or an amount (valuation.notices.text). Times in the office's time zone.
Every value a person wrote is HTML-escaped in the HTML part. The notices a message carried are marked e-mailed
as soon as the server accepted it; when the server cannot be reached the rest stay waiting and the next run sends
them (the job's failure is recorded and retried as every job's). Without SMTP configured nothing is sent and the
inbox works as ever; the run says so.
"""
from __future__ import annotations

import html
import threading
from collections.abc import Iterable
from datetime import date
from typing import Any

from valuation.core import clock
from valuation.core.money import format_count, format_date_br
from valuation.jobs.mail import Mail, send
from valuation.jobs.settings import JobSettings
from valuation.notices import outbox
from valuation.notices.kinds import MAIL_DAILY, MAIL_NOW, kind_label

PREFIX = "[Naufrágios] "
INBOX_PATH = "notices"
NOT_CONFIGURED = ("E-mail não configurado (VALUATION_SMTP_HOST): os avisos ficam só na página Avisos; "
                  "{n} aguardam envio.")
_SENDING = threading.Lock()   # one sender at a time (the schedule's run and an admin's "Executar agora")


def _url(base_url: str, link: str) -> str:
    return f"{base_url.rstrip('/')}/{link}"


def _avisos(n: int) -> str:
    return f"{format_count(n)} aviso{'s' if n != 1 else ''}"


def compose(rows: list[dict[str, Any]], base_url: str, *, digest_day: date | None = None) -> Mail:
    """One person's message for `rows` (their waiting notices, oldest first): the notice itself when alone, else
    the list; `digest_day`: the day's summary."""
    person, to = str(rows[0]["full_name"]), (str(rows[0]["email"]).strip(),)
    if digest_day is not None:
        subject = f"{PREFIX}Resumo dos avisos de {format_date_br(digest_day)}: {_avisos(len(rows))}"
        why = "Você recebe este resumo porque escolheu receber os avisos por e-mail num resumo diário."
    elif len(rows) == 1:
        subject = PREFIX + str(rows[0]["title"])
        why = "Você recebe este e-mail porque escolheu receber os avisos por e-mail assim que chegam."
    else:
        subject = f"{PREFIX}{_avisos(len(rows))} novos"
        why = "Você recebe este e-mail porque escolheu receber os avisos por e-mail assim que chegam."
    inbox = _url(base_url, INBOX_PATH)
    text = [f"{person},", ""]
    for r in rows:
        text += [f"{kind_label(r['kind'])} · {clock.moment_text(r['created_at'], zone=True)}", str(r["title"]),
                 str(r["body"]), f"Abrir: {_url(base_url, str(r['link']))}", ""]
    text += [f"Todos os seus avisos: {inbox}", f"{why} Para mudar, abra a página Avisos.", "",
             "Mensagem automática do painel de naufrágios e bens resgatados (DPC). Não responda."]
    e = html.escape
    parts = [f"<p>{e(person)},</p>"]
    for r in rows:
        parts.append(f"<h3>{e(str(r['title']))}</h3><p><small>{e(kind_label(r['kind']))} · "
                     f"{e(clock.moment_text(r['created_at'], zone=True))}</small></p><p>{e(str(r['body']))}</p>"
                     f'<p><a href="{e(_url(base_url, str(r["link"])), quote=True)}">Abrir no painel</a></p>')
    parts.append(f'<p><a href="{e(inbox, quote=True)}">Todos os seus avisos</a></p>')
    parts.append(f"<p><small>{e(why)} Para mudar, abra a página Avisos. Mensagem automática do painel de "
                 "naufrágios e bens resgatados (DPC).</small></p>")
    return Mail(to=to, subject=subject, text="\n".join(text), html="<html><body>" + "\n".join(parts) + "</body></html>")


def _by_person(rows: Iterable[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    groups: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(int(r["user_id"]), []).append(r)
    return list(groups.values())


def _deliver(store: Any, settings: JobSettings, mail: str, digest_day: date | None) -> str:
    """Send the waiting notices of choice `mail`, one message per person; what was done (pt-BR)."""
    rows = outbox.pending(store, mail)
    if not rows:
        return "Nenhum aviso aguardava envio."
    if not settings.smtp.configured:
        return NOT_CONFIGURED.format(n=format_count(len(rows)))
    messages = [(compose(group, settings.base_url, digest_day=digest_day), [int(r["id"]) for r in group])
                for group in _by_person(rows)]
    ids_of = {id(m): ids for m, ids in messages}
    done: list[int] = []
    people = 0

    def sent(m: Mail) -> None:
        nonlocal people
        done.extend(ids_of[id(m)])
        people += 1

    try:
        send(settings.smtp, [m for m, _ in messages], sent=sent)
    finally:          # what the server accepted is never sent again, whatever failed after it
        outbox.mark_emailed(store, done, people=people)
    return (f"{_avisos(len(done))} enviado{'s' if len(done) != 1 else ''} em {format_count(people)} "
            f"mensage{'ns' if people != 1 else 'm'}.")


def waiting_now(store: Any, settings: JobSettings) -> bool:
    """Is a notice of someone who chose 'now' waiting, and can it be sent? (the scheduler's cheap check)"""
    return settings.smtp.configured and outbox.has_pending(store, MAIL_NOW)


def send_now(store: Any, settings: JobSettings) -> str:
    """The job: e-mail the waiting notices of the people who chose 'now'."""
    if not _SENDING.acquire(blocking=False):
        return "Outro envio de avisos estava em andamento: nada a fazer agora."
    try:
        return _deliver(store, settings, MAIL_NOW, None)
    finally:
        _SENDING.release()


def send_digests(store: Any, settings: JobSettings, *, as_of: date) -> str:
    """E-mail each person who chose 'daily' the summary of their waiting notices."""
    with _SENDING:
        return _deliver(store, settings, MAIL_DAILY, as_of)
