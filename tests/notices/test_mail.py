"""Notices by e-mail against a real SMTP server (aiosmtpd, as the digest's tests): the people who chose 'at once'
get one message each from the job `notices_mail`, those who chose the daily summary get it from the day's job, the
text is pt-BR with the page's address, a name a user wrote is escaped in the HTML part, an open round's values and a
wreck's position never appear; a server that cannot be reached loses nothing (the next run sends it)."""
from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from tests.notices.test_events import _secrets
from tests.support.commission import run_round
from tests.support.service import smtp_env, smtp_server
from valuation.jobs import runs
from valuation.jobs.notices_mail import send_digests, waiting_now
from valuation.jobs.settings import JobSettings
from valuation.notices import inbox
from valuation.notices.kinds import MAIL_DAILY

BASE = "https://painel.example"
WRECK = "Galeão <b>Sacramento</b> & Cia"


def _settings(world: Any, tmp_path: Path, env: dict[str, str] | None = None) -> JobSettings:
    return JobSettings.from_env(str(world.path), {
        "VALUATION_JOB_RETRY_SECONDS": "0", "VALUATION_BACKUP_EVERY": "off", "VALUATION_BASE_URL": BASE,
        "VALUATION_BACKUP_DIR": str(tmp_path / "copias"), **(env or {})})


def _addresses(world: Any) -> dict[str, str]:
    """An address for every commission member; a wreck name with markup."""
    def run(tx: Any) -> None:
        tx.execute("UPDATE users SET email = username || '@marinha.example' WHERE role LIKE 'commission%'")
        tx.execute("UPDATE wrecks SET name = ? WHERE code = 'NAU-1668-01'", [WRECK])
    world.store.write("test", run)
    return {r["username"]: r["email"] for r in world.store.fetch("SELECT username, email FROM users WHERE email "
                                                                 "IS NOT NULL")}


def _body(msg: Any, kind: str) -> str:
    return str(msg.get_body((kind,)).get_content())


def test_at_once_one_message_per_member_then_nothing(small_world: Any, tmp_path: Path) -> None:
    addresses = _addresses(small_world)       # before the notices: each keeps the choice of when it was written
    panel, _ = run_round(small_world, until="open")
    members = {m.username for k, m in panel.items() if k != "pres" and m.username in addresses}
    assert members == {"com.navy", "com.culture"}       # the three members added with the panel have no address
    with smtp_server() as box:
        cfg = _settings(small_world, tmp_path, smtp_env(box))
        assert waiting_now(small_world.store, cfg)
        assert runs.run_job(small_world.store, "notices_mail", cfg)
        got = box.wait_for(len(members))
        assert not waiting_now(small_world.store, cfg)
        assert runs.run_job(small_world.store, "notices_mail", cfg)       # nothing left: no second message
    assert len(box.messages) == len(members)
    assert sorted(r[0] for r, _ in got) == sorted(addresses[u] for u in members)
    secrets = _secrets(small_world)
    for _rcpt, msg in got:
        text, page = _body(msg, "plain"), _body(msg, "html")
        assert msg["Subject"] == "[Naufrágios] Rodada 1 aberta — contrato A-1"
        assert f"Abrir: {BASE}/commission" in text and f"Todos os seus avisos: {BASE}/notices" in text
        assert "assim que chegam" in text and WRECK in text                 # plain text: as written
        assert "<b>Sacramento</b>" not in page and "Galeão &lt;b&gt;Sacramento&lt;/b&gt; &amp; Cia" in page
        for pattern in secrets:
            assert not pattern.search(text) and not pattern.search(page), pattern.pattern
    messages = [r["message"] for r in runs.recent_runs(small_world.store)]
    assert "2 avisos enviados em 2 mensagens." in messages and "Nenhum aviso aguardava envio." in messages
    assert small_world.store.scalar("SELECT count(*) FROM notices WHERE emailed_at IS NULL AND mail = 'now'") == 0


def test_the_daily_summary_waits_for_the_days_job(small_world: Any, tmp_path: Path) -> None:
    _addresses(small_world)
    navy = small_world.principal("commission")
    inbox.set_mail_choice(small_world.store, navy, MAIL_DAILY)
    run_round(small_world, until="open")
    with smtp_server() as box:
        cfg = _settings(small_world, tmp_path, smtp_env(box))
        assert runs.run_job(small_world.store, "notices_mail", cfg)
        at_once = len(box.wait_for(1))        # com.culture; the members added with the panel have no address
        assert all(rcpt != ["com.navy@marinha.example"] for rcpt, _ in box.messages)
        assert send_digests(small_world.store, cfg, as_of=date(2026, 12, 7)) == "1 aviso enviado em 1 mensagem."
        rcpt, msg = box.wait_for(at_once + 1)[-1]
    assert rcpt == ["com.navy@marinha.example"]
    assert msg["Subject"] == "[Naufrágios] Resumo dos avisos de 07/12/2026: 1 aviso"
    assert "Rodada 1 aberta — contrato A-1" in _body(msg, "plain") and "resumo diário" in _body(msg, "plain")


def test_a_server_that_cannot_be_reached_loses_nothing(small_world: Any, tmp_path: Path) -> None:
    _addresses(small_world)
    run_round(small_world, until="open")
    with smtp_server() as box:
        env = smtp_env(box)
    down = _settings(small_world, tmp_path, env)          # the server has stopped: its port refuses
    assert not runs.run_job(small_world.store, "notices_mail", down)
    assert small_world.store.scalar("SELECT count(*) FROM notices WHERE emailed_at IS NULL AND mail = 'now'") == 2
    with smtp_server() as box:
        assert runs.run_job(small_world.store, "notices_mail", _settings(small_world, tmp_path, smtp_env(box)))
        assert len(box.wait_for(2)) == 2


def test_without_smtp_the_notices_stay_in_the_inbox(small_world: Any, tmp_path: Path) -> None:
    _addresses(small_world)
    run_round(small_world, until="open")
    cfg = _settings(small_world, tmp_path)
    assert not waiting_now(small_world.store, cfg)
    assert runs.run_job(small_world.store, "notices_mail", cfg)
    assert runs.recent_runs(small_world.store)[0]["message"].startswith("E-mail não configurado")
    assert inbox.unread_count(small_world.store, small_world.principal("commission")) == 1


def test_the_schedule_runs_the_mail_only_when_one_waits(small_world: Any, tmp_path: Path) -> None:
    from service.scheduler import JobScheduler

    _addresses(small_world)
    with smtp_server() as box:
        sched = JobScheduler(small_world.store, _settings(small_world, tmp_path, smtp_env(box)))
        sched._tick("notices_mail")                               # nothing waits: no run recorded
        assert small_world.store.scalar("SELECT count(*) FROM job_runs") == 0
        run_round(small_world, until="open")
        sched._tick("notices_mail")
        assert len(box.wait_for(2)) == 2
        sched._tick("notices_mail")                               # sent: quiet again
    assert [r["outcome"] for r in runs.recent_runs(small_world.store)] == ["ok"]
