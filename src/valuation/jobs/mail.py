"""Outgoing e-mail: plain text + HTML alternative, over SMTP with STARTTLS or TLS when configured."""
from __future__ import annotations

import smtplib
import ssl
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from valuation.core.errors import ValuationError
from valuation.jobs.settings import SmtpSettings


class MailNotConfigured(ValuationError):
    def __init__(self) -> None:
        super().__init__("E-mail não configurado (VALUATION_SMTP_HOST): nenhuma mensagem foi enviada.")


@dataclass(frozen=True)
class Mail:
    to: tuple[str, ...]
    subject: str
    text: str
    html: str


def build(mail: Mail, sender: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = ", ".join(mail.to)
    msg["Subject"] = mail.subject
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or "localhost")
    msg.set_content(mail.text, charset="utf-8")
    msg.add_alternative(mail.html, subtype="html", charset="utf-8")
    return msg


def send(settings: SmtpSettings, mails: Iterable[Mail], *, sent: Callable[[Mail], None] | None = None) -> int:
    """Send every mail over one SMTP connection; returns how many were sent. `sent(mail)` is called after each
    message the server accepted (a failure further on raises, and the caller still knows what went)."""
    mails = [m for m in mails if m.to]
    if not mails:
        return 0
    if not settings.configured or settings.host is None:
        raise MailNotConfigured()
    context = ssl.create_default_context()
    if settings.security == "tls":
        client: smtplib.SMTP = smtplib.SMTP_SSL(settings.host, settings.port, timeout=settings.timeout,
                                                context=context)
    else:
        client = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
    with client:
        client.ehlo()
        if settings.security == "starttls":
            client.starttls(context=context)
            client.ehlo()
        if settings.user:
            client.login(settings.user, settings.password or "")
        for mail in mails:
            client.send_message(build(mail, settings.sender))
            if sent is not None:
                sent(mail)
    return len(mails)


def addresses(rows: Sequence[dict]) -> tuple[str, ...]:
    """Distinct, non-empty e-mail addresses of user rows, in order."""
    seen: dict[str, None] = {}
    for r in rows:
        email = (r.get("email") or "").strip()
        if "@" in email:
            seen.setdefault(email, None)
    return tuple(seen)
