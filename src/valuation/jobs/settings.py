"""Configuration of the scheduled jobs and of outgoing e-mail, from the environment (issue 13).

    VALUATION_TZ                  time zone of the schedule (default America/Sao_Paulo)
    VALUATION_DIGEST_AT           daily deadline digest, HH:MM[:SS] or "off" (default 07:00)
    VALUATION_BACKUP_AT           nightly backup (default 02:00)
    VALUATION_AUDIT_AT            nightly audit-chain verification (default 03:00)
    VALUATION_NOTICES_AT          the day's notices (reminders, deadlines near) and their daily summary by e-mail
                                  (default 06:30)
    VALUATION_NOTICES_EVERY       minutes between the checks for notices to e-mail at once, 1 to 1440 or "off"
                                  (default 2; a check that finds none records no run)
    VALUATION_BACKUP_DIR          where dated backup folders go (default: backups/ beside the database)
    VALUATION_BACKUP_EVERY        minutes between the hourly backups, 1 to 1440 or "off" (default 60);
                                  at most VALUATION_RPO_MINUTES
    VALUATION_BACKUP_KEEP_HOURLY / _DAILY / _WEEKLY   the retention schedule (default 24 / 7 / 4;
                                  jobs/retention.py); VALUATION_BACKUP_KEEP is the daily count's old name
    VALUATION_BACKUP_MIRROR       a second folder (a mounted share) that gets a copy of every backup;
                                  it must exist — it is never created, so an unmounted share is a failure
    VALUATION_RPO_MINUTES         the recovery point: the newest proven backup may be this old (default 60)
    VALUATION_JOB_RETRY_SECONDS   pause before the one retry of a failed job (default 60)
    VALUATION_BASE_URL            the dashboard's public address, for links in e-mails (default derived from
                                  VALUATION_HOST and VALUATION_PORT: valuation.core.address)
    VALUATION_SMTP_HOST           SMTP server; without it no e-mail is sent and the digest job fails plainly
    VALUATION_SMTP_PORT           default 25 (587 with starttls, 465 with tls)
    VALUATION_SMTP_SECURITY       none | starttls | tls (default none)
    VALUATION_SMTP_USER / VALUATION_SMTP_PASSWORD   login, when the server asks for one
    VALUATION_SMTP_FROM           sender address (default valuation@localhost)
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import time
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from valuation.core.address import base_url
from valuation.core.errors import InputError, Problem
from valuation.jobs.retention import Schedule

SECURITY_MODES = ("none", "starttls", "tls")
_AT = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$")


@dataclass(frozen=True)
class SmtpSettings:
    host: str | None = None
    port: int = 25
    security: str = "none"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    sender: str = "valuation@localhost"
    timeout: float = 30.0

    @property
    def configured(self) -> bool:
        return bool(self.host)


@dataclass(frozen=True)
class JobSettings:
    db_path: str
    tz: ZoneInfo
    times: dict[str, time | None]          # job name → time of day (None: not scheduled)
    backup_dir: Path
    retention: Schedule
    retry_seconds: float
    base_url: str
    smtp: SmtpSettings
    every: dict[str, int | None] = field(default_factory=dict)   # job name → minutes between runs
    mirror: Path | None = None
    rpo_minutes: int = 60

    @staticmethod
    def from_env(db_path: str, env: Mapping[str, str] | None = None) -> JobSettings:
        env = os.environ if env is None else env
        try:
            tz = ZoneInfo(env.get("VALUATION_TZ", "America/Sao_Paulo"))
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise InputError(Problem("VALUATION_TZ", f"unknown time zone {env.get('VALUATION_TZ')!r}")) from exc
        times = {"digest": _at(env, "VALUATION_DIGEST_AT", "07:00"),
                 "backup": _at(env, "VALUATION_BACKUP_AT", "02:00"),
                 "audit_verify": _at(env, "VALUATION_AUDIT_AT", "03:00"),
                 "notices_daily": _at(env, "VALUATION_NOTICES_AT", "06:30")}
        security = env.get("VALUATION_SMTP_SECURITY", "none").strip().lower()
        if security not in SECURITY_MODES:
            raise InputError(Problem("VALUATION_SMTP_SECURITY", f"must be one of {', '.join(SECURITY_MODES)}"))
        default_port = {"none": 25, "starttls": 587, "tls": 465}[security]
        smtp = SmtpSettings(host=env.get("VALUATION_SMTP_HOST") or None,
                            port=_int(env, "VALUATION_SMTP_PORT", default_port), security=security,
                            user=env.get("VALUATION_SMTP_USER") or None,
                            password=env.get("VALUATION_SMTP_PASSWORD") or None,
                            sender=env.get("VALUATION_SMTP_FROM", "valuation@localhost"))
        backup_dir = Path(env.get("VALUATION_BACKUP_DIR") or Path(db_path).resolve().parent / "backups")
        rpo = _int(env, "VALUATION_RPO_MINUTES", 60)
        if not 1 <= rpo <= 10080:
            raise InputError(Problem("VALUATION_RPO_MINUTES", f"must be 1 to 10080 minutes, got {rpo}"))
        every = _every(env, "VALUATION_BACKUP_EVERY", 60)
        if every is not None and every > rpo:
            raise InputError(Problem("VALUATION_BACKUP_EVERY", f"{every} minutes between backups cannot keep "
                                                               f"the recovery point of {rpo} minutes "
                                                               "(VALUATION_RPO_MINUTES)"))
        mirror = env.get("VALUATION_BACKUP_MIRROR") or None
        if mirror is not None and Path(mirror).resolve() == backup_dir.resolve():
            raise InputError(Problem("VALUATION_BACKUP_MIRROR", "must be another folder than VALUATION_BACKUP_DIR"))
        return JobSettings(db_path=db_path, tz=tz, times=times, backup_dir=backup_dir, retention=_schedule(env),
                           retry_seconds=max(0.0, float(_int(env, "VALUATION_JOB_RETRY_SECONDS", 60))),
                           base_url=base_url(env), smtp=smtp,
                           every={"backup_hourly": every, "notices_mail": _every(env, "VALUATION_NOTICES_EVERY", 2)},
                           mirror=None if mirror is None else Path(mirror),
                           rpo_minutes=rpo)


def _schedule(env: Mapping[str, str]) -> Schedule:
    daily_default = _int(env, "VALUATION_BACKUP_KEEP", 7)
    counts = {rule: _int(env, f"VALUATION_BACKUP_KEEP_{rule.upper()}", default)
              for rule, default in (("hourly", 24), ("daily", daily_default), ("weekly", 4))}
    for rule, count in counts.items():
        if not 0 <= count <= 1000:
            raise InputError(Problem(f"VALUATION_BACKUP_KEEP_{rule.upper()}", f"must be 0 to 1000, got {count}"))
    if not any(counts.values()):
        raise InputError(Problem("VALUATION_BACKUP_KEEP_HOURLY", "a schedule that keeps no backup at all"))
    return Schedule(**counts)


def _every(env: Mapping[str, str], name: str, default: int) -> int | None:
    text = env.get(name, str(default)).strip()
    if text.lower() in ("off", "desligado"):
        return None
    minutes = _int(env, name, default)
    if not 1 <= minutes <= 1440:
        raise InputError(Problem(name, f"must be 1 to 1440 minutes or off, got {minutes}"))
    return minutes


def _at(env: Mapping[str, str], name: str, default: str) -> time | None:
    text = env.get(name, default).strip()
    if text.lower() in ("off", "desligado", ""):
        return None
    m = _AT.match(text)
    if not m:
        raise InputError(Problem(name, f"must be HH:MM, HH:MM:SS or off, got {text!r}"))
    return time(int(m[1]), int(m[2]), int(m[3] or 0))


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name)
    if text is None or not text.strip():
        return default
    try:
        return int(text)
    except ValueError:
        raise InputError(Problem(name, f"must be a whole number, got {text!r}")) from None
