"""Issue 13 items 3 and 5 in-process — the jobs against a local SMTP server (aiosmtpd) and the calendar
feeds parsed with `icalendar`: who gets which digest, plain text + escaped HTML, the retry and the
admins' e-mail, dated backups keeping N, the admin overview's audit alarm, the Tarefas page.
The same jobs scheduled inside the real service: tests/service/test_service.py."""
from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.support.service import smtp_env, smtp_server
from tests.support.ui import page_direct, texts
from valuation.core.errors import AccessDenied, InputError
from valuation.deadlines import feeds
from valuation.jobs import runs
from valuation.jobs.digest_mail import digest_mails
from valuation.jobs.settings import JobSettings

AS_OF = date(2025, 7, 1)
EMAILS = {"dpc.silva": "ana.silva@marinha.example", "exp.alfa": "eduardo@alfa.example",
          "exp.beta": "fernanda@beta.example", "admin": "gustavo@dpc.example", "com.navy": "bruno@marinha.example"}


def _prepare(world: Any) -> None:
    """E-mails, dpc.silva answering for CPBA, a headquarters DPC user, and a company name with markup."""
    def run(tx: Any) -> None:
        for username, email in EMAILS.items():
            tx.execute("UPDATE users SET email = ? WHERE username = ?", [email, username])
        tx.execute("INSERT INTO user_offices VALUES (?, 'CPBA')", [world.principal("dpc").id])
        tx.execute("INSERT INTO users (username, full_name, email, role, password_hash) VALUES "
                   "('dpc.sede', 'Sede DPC', 'sede@marinha.example', 'dpc', 'x')")
        tx.execute("UPDATE organisations SET name = 'Alfa <b>Arqueologia</b> & Cia' WHERE id = ?",
                   [world.ids["org_a"]])
    world.store.write("test", run)


def _settings(world: Any, tmp_path: Path, env: dict[str, str] | None = None) -> JobSettings:
    return JobSettings.from_env(str(world.path), {"VALUATION_JOB_RETRY_SECONDS": "0", "VALUATION_BACKUP_EVERY": "off",
                                                  "VALUATION_BACKUP_DIR": str(tmp_path / "copias"), **(env or {})})


def test_the_digest_goes_to_each_office_each_company_and_headquarters(small_world: Any) -> None:
    _prepare(small_world)
    mails = {m.to: m for m in digest_mails(small_world.store, as_of=AS_OF, base_url="https://painel.example")}
    # CPRJ has no DPC user: no office message for it; Beta (B-1) has nothing overdue or due soon: none either
    assert set(mails) == {("sede@marinha.example",), ("ana.silva@marinha.example",), ("eduardo@alfa.example",)}
    office, hq = mails[("ana.silva@marinha.example",)], mails[("sede@marinha.example",)]
    assert office.subject.startswith("Prazos da Capitania dos Portos da Bahia (CPBA) — 01/07/2025")
    assert "B-1" not in office.text and "A-1" in office.text             # only that office's deadlines
    assert "A-1" in hq.text and "· CPSP" in hq.text and "· CPSP" not in office.text   # CPSP's wreck map
    assert " — \n" not in hq.text                                       # no dangling dash without a subject
    alfa = mails[("eduardo@alfa.example",)]
    assert "NAU-1995-03" not in alfa.text                                # a wreck without a contract of Alfa's
    for mail in mails.values():
        assert "VENCIDOS" in mail.text and "Fundamento: " in mail.text
        assert "https://painel.example/deadlines" in mail.text
        assert 'href="https://painel.example/deadlines"' in mail.html
    assert "Alfa <b>Arqueologia</b> &amp; Cia" not in alfa.html
    assert "Alfa &lt;b&gt;Arqueologia&lt;/b&gt; &amp; Cia" in alfa.html and "<b>Arqueologia</b>" in alfa.text


def test_the_digest_job_sends_through_smtp_and_records_the_run(small_world: Any, tmp_path: Path) -> None:
    _prepare(small_world)
    with smtp_server() as box:
        cfg = _settings(small_world, tmp_path, smtp_env(box))
        assert runs.run_job(small_world.store, "digest", cfg)
        today = datetime.now(cfg.tz).date()
        expected = digest_mails(small_world.store, as_of=today, base_url=cfg.base_url)
        got = box.wait_for(len(expected))
    assert sorted(tuple(r) for r, _ in got) == sorted(m.to for m in expected)
    for rcpt, msg in got:
        assert msg["From"] == "painel@dpc.example" and msg["To"] == ", ".join(rcpt)
        assert msg.get_body(("plain",)).get_content().startswith("Prazos")
        assert "<table" in msg.get_body(("html",)).get_content()
    row = runs.recent_runs(small_world.store)[0]
    assert (row["job"], row["outcome"], row["attempt"], row["trigger"]) == ("digest", "ok", 1, "schedule")
    assert row["ended_at"] >= row["started_at"] and "enviada" in row["message"]


def test_a_failed_job_is_retried_once_and_reported_to_the_admins(small_world: Any, tmp_path: Path) -> None:
    _prepare(small_world)
    from valuation.accounts import users

    users.unlock_user(small_world.store, small_world.principal("admin"), small_world.principal("dpc").id)  # audited
    small_world.store.write("test", lambda tx: tx.execute(
        "UPDATE audit_log SET after_json = '{\"adulterado\": true}' WHERE id = (SELECT min(id) FROM audit_log)"))
    with smtp_server() as box:
        assert not runs.run_job(small_world.store, "audit_verify", _settings(small_world, tmp_path, smtp_env(box)))
        rcpt, msg = box.wait_for(1)[0]
    assert rcpt == ["gustavo@dpc.example"] and "Verificação noturna da cadeia de auditoria" in msg["Subject"]
    assert "falhou duas vezes" in msg.get_body(("plain",)).get_content()
    attempts = [(r["attempt"], r["outcome"]) for r in reversed(runs.recent_runs(small_world.store))]
    assert attempts == [(1, "failed"), (2, "failed")]
    alert = runs.audit_alert(small_world.store)
    assert alert is not None and "não confere" in alert["message"]
    small_world.store.close()
    at = page_direct(small_world.path, small_world.principal("admin"), "overview")
    assert not at.exception and "verificação da cadeia de auditoria" in texts(at) and "falhou" in texts(at)


def test_without_smtp_the_digest_fails_plainly(small_world: Any, tmp_path: Path) -> None:
    _prepare(small_world)
    assert not runs.run_job(small_world.store, "digest", _settings(small_world, tmp_path))
    assert {r["message"] for r in runs.recent_runs(small_world.store)} == {
        "E-mail não configurado (VALUATION_SMTP_HOST): nenhuma mensagem foi enviada."}


def test_the_nightly_backup_goes_into_dated_folders(small_world: Any, tmp_path: Path) -> None:
    cfg = _settings(small_world, tmp_path)
    (cfg.backup_dir / "notas").mkdir(parents=True)                          # not ours: never removed
    assert runs.run_job(small_world.store, "backup", cfg)
    today = f"{datetime.now(cfg.tz):%Y-%m-%d}"
    assert (cfg.backup_dir / today / "manifest.json").is_file()
    assert runs.run_job(small_world.store, "backup", cfg)
    kept = sorted(p.name for p in cfg.backup_dir.iterdir() if not p.name.startswith("."))
    # a second one that day is AAAA-MM-DD-HHMMSS; the schedule keeps the newest of each hour (test_retention_schedule)
    assert len(kept) == 2 and kept[0].startswith(today + "-") and kept[1] == "notas"
    assert "1 cópia antiga removida" in runs.recent_runs(small_world.store)[0]["message"]


def test_the_settings_refuse_bad_values(small_world: Any) -> None:
    cfg = JobSettings.from_env("x.duckdb", {"VALUATION_DIGEST_AT": "06:30:15", "VALUATION_AUDIT_AT": "off"})
    assert cfg.times["digest"].isoformat() == "06:30:15" and cfg.times["audit_verify"] is None
    assert cfg.tz.key == "America/Sao_Paulo" and cfg.smtp.port == 25
    assert JobSettings.from_env("x", {"VALUATION_SMTP_SECURITY": "starttls"}).smtp.port == 587
    for env in ({"VALUATION_DIGEST_AT": "25:00"}, {"VALUATION_SMTP_SECURITY": "ssl3"}, {"VALUATION_TZ": "Marte/Base"},
                {"VALUATION_BACKUP_KEEP": "sete"}, {"VALUATION_BACKUP_EVERY": "0"},
                {"VALUATION_BACKUP_EVERY": "90"}, {"VALUATION_BACKUP_KEEP_WEEKLY": "-1"},
                {"VALUATION_BACKUP_KEEP_HOURLY": "0", "VALUATION_BACKUP_KEEP_DAILY": "0",
                 "VALUATION_BACKUP_KEEP_WEEKLY": "0"}, {"VALUATION_RPO_MINUTES": "0"},
                {"VALUATION_BACKUP_DIR": "/srv/copias", "VALUATION_BACKUP_MIRROR": "/srv/copias/"}):
        with pytest.raises(InputError):
            JobSettings.from_env("x", env)


def test_the_tarefas_page_runs_a_job_now(small_world: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VALUATION_JOB_RETRY_SECONDS", "0")
    monkeypatch.setenv("VALUATION_BACKUP_DIR", str(tmp_path / "copias"))
    small_world.store.close()
    at = page_direct(small_world.path, small_world.principal("admin"), "jobs")
    assert not at.exception and "Ainda não executada." in "\n".join(str(m.value) for m in at.markdown)
    at.button(key="run_audit_verify").click().run()
    done = "“Verificação noturna da cadeia de auditoria”: concluída."
    assert not at.exception and done in texts(at).replace("\\", "")   # Markdown escapes removed
    shown = at.dataframe[0].value
    assert list(shown["Tarefa"]) == ["Verificação noturna da cadeia de auditoria"]
    assert list(shown["Resultado"]) == ["concluída"]
    assert list(shown["Iniciada por"]) == [small_world.principal("admin").full_name]   # the person, not the login
    refused = page_direct(small_world.path, small_world.principal("dpc"), "jobs")
    assert "Acesso negado" in texts(refused)


def test_the_calendar_feed_parses_and_holds_the_reminders(small_world: Any) -> None:
    import icalendar

    s = small_world.store
    token = feeds.create_feed(s, small_world.principal("explorer_a"), now=s.now())
    assert token not in "\n".join(str(r) for r in s.fetch("SELECT * FROM calendar_feeds") +
                                  s.fetch("SELECT * FROM audit_log"))
    cal = icalendar.Calendar.from_ical(feeds.feed_ics(s, token, as_of=AS_OF))
    events = list(cal.walk("VEVENT"))
    assert events and all("A-" in str(e["SUMMARY"]) and "B-1" not in str(e["SUMMARY"]) for e in events)
    for event in events:
        triggers = sorted(a["TRIGGER"].dt for a in event.walk("VALARM"))
        assert triggers == [timedelta(days=-5), timedelta(days=-1)]
    s.write("test", lambda tx: tx.execute("INSERT INTO policies (key, value_json, set_by) VALUES "
                                          "('calendar_alarm_days', '[7]', 'test')"))
    cal = icalendar.Calendar.from_ical(feeds.feed_ics(s, token, as_of=AS_OF))
    assert {a["TRIGGER"].dt for a in cal.walk("VALARM")} == {timedelta(days=-7)}
    assert feeds.revoke_feeds(s, small_world.principal("explorer_a"), now=s.now()) == 1
    assert feeds.feed_ics(s, token, as_of=AS_OF) is None
    with pytest.raises(AccessDenied):
        feeds.create_feed(s, small_world.principal("admin"), now=s.now())


def test_a_dpc_feed_of_one_office_and_a_deactivated_users_feed(small_world: Any) -> None:
    import icalendar

    s, dpc = small_world.store, small_world.principal("dpc")
    token = feeds.create_feed(s, dpc, office="CPRJ", now=s.now())
    cal = icalendar.Calendar.from_ical(feeds.feed_ics(s, token, as_of=AS_OF))
    assert "CPRJ" in str(cal["X-WR-CALNAME"])
    assert all("A-1" not in str(e["SUMMARY"]) for e in cal.walk("VEVENT"))
    with pytest.raises(InputError):
        feeds.create_feed(s, dpc, office="XXXX", now=s.now())
    s.write("test", lambda tx: tx.execute("UPDATE users SET active = false WHERE id = ?", [dpc.id]))
    assert feeds.feed_ics(s, token, as_of=AS_OF) is None



def _noon_zone() -> str:
    """An Etc/GMT zone where it is about noon now, so 'ten minutes ago' and 'two hours ago' are today."""
    offset = (12 - datetime.now(ZoneInfo("UTC")).hour + 12) % 24 - 12      # -12 … 11 hours
    return "Etc/GMT" if offset == 0 else f"Etc/GMT{-offset:+d}"


def test_the_service_catches_up_a_run_missed_while_it_was_down(small_world: Any, tmp_path: Path) -> None:
    import time

    from service.scheduler import JobScheduler

    zone = _noon_zone()
    now = datetime.now(ZoneInfo(zone))
    cfg = _settings(small_world, tmp_path, {
        "VALUATION_TZ": zone, "VALUATION_DIGEST_AT": "off",
        "VALUATION_BACKUP_AT": (now - timedelta(minutes=10)).strftime("%H:%M:%S"),       # within the grace time
        "VALUATION_AUDIT_AT": (now - timedelta(hours=2)).strftime("%H:%M:%S")})          # too long ago
    scheduler = JobScheduler(small_world.store, cfg)
    scheduler.start()
    try:
        deadline = time.monotonic() + 60
        while not any(r["job"] == "restore_drill" and r["outcome"] != "running"
                      for r in runs.recent_runs(small_world.store)) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        scheduler.shutdown()
    assert [(r["job"], r["trigger"], r["outcome"]) for r in runs.recent_runs(small_world.store)] == [
        ("restore_drill", "schedule", "ok"), ("backup", "schedule", "ok")]     # every backup is then proven
    again = JobScheduler(small_world.store, cfg)                      # a second restart: it already ran
    again.start()
    again.shutdown()
    assert len(runs.recent_runs(small_world.store)) == 2


def test_the_admin_assigns_offices_to_a_dpc_user(small_world: Any) -> None:
    from valuation.accounts import users
    from valuation.core.errors import AccessDenied

    s, admin, dpc = small_world.store, small_world.principal("admin"), small_world.principal("dpc")
    users.set_user_offices(s, admin, dpc.id, ["CPRJ", "CPBA"])
    assert users.user_offices(s, admin, dpc.id) == ["CPBA", "CPRJ"]
    row = s.fetch_one("SELECT before_json, after_json FROM audit_log WHERE action = 'set_offices'")
    assert "CPRJ" in row["after_json"]
    for bad in (["XXXX"],):
        with pytest.raises(InputError):
            users.set_user_offices(s, admin, dpc.id, bad)
    with pytest.raises(InputError):
        users.set_user_offices(s, admin, small_world.principal("explorer_a").id, ["CPRJ"])
    with pytest.raises(AccessDenied):
        users.set_user_offices(s, dpc, dpc.id, [])
    users.set_user_offices(s, admin, dpc.id, [])
    assert users.user_offices(s, admin, dpc.id) == []
    small_world.store.close()
    at = page_direct(small_world.path, admin, "users")
    assert not at.exception
