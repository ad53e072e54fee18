"""Issue 13 against the real service: uvicorn serving service.asgi:app on 127.0.0.1 and a free port,
Debian's Chromium through Playwright, a local SMTP server (aiosmtpd).

- the command line while the service holds the file: `deadlines`, `audit verify`, `db backup` and
  `import items` run through the service and print what the same commands print on a stopped copy;
- a browser logs in, reloads, opens a second tab and is still in; the cookie is HttpOnly, SameSite=Strict;
  the session survives a restart of the service; after "Sair" the old cookie is refused;
- every response carries the security headers, and no page breaks the Content-Security-Policy;
- a page that raises shows the Portuguese incident message;
- the calendar subscription parses with icalendar and holds VALARMs; caching headers and 304;
- the scheduled digest reaches the SMTP server with the right recipients; /saude reports the jobs.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import urllib.request
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, ROOT, login
from tests.support.service import cli, running_service, smtp_env, smtp_server
from valuation.cli.service_link import link_path

pytestmark = pytest.mark.browser
SAMPLES = ROOT / "data" / "samples"
SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options")


def _commands(backup_dir: Path) -> list[list[str]]:
    return [
        ["deadlines", "--as-of", "2025-07-01"],
        ["deadlines", "--as-of", "2025-07-01", "--office", "NOPE"],
        ["audit", "verify"],
        ["db", "backup", "--to", str(backup_dir)],
        ["import", "items", str(SAMPLES / "itens_galeao_santo_antonio_com_erros.csv"), "--contract", "A-1",
         "--actor", "dpc.silva"],
        ["import", "items", str(SAMPLES / "itens_galeao_santo_antonio.csv"), "--contract", "A-1",
         "--actor", "dpc.silva"],
    ]


def _comparable(cmd: list[str], out: str) -> str:
    if cmd[:2] == ["db", "backup"]:
        doc = json.loads(out)
        doc.pop("to")
        return json.dumps(doc, sort_keys=True)
    return out


def test_the_cli_runs_through_the_service_and_prints_what_a_stopped_copy_prints(small_world: Any,
                                                                                 tmp_path: Path) -> None:
    small_world.store.close()
    served, stopped = tmp_path / "served.duckdb", tmp_path / "stopped.duckdb"
    shutil.copyfile(small_world.path, served)
    shutil.copyfile(small_world.path, stopped)
    with running_service(served) as svc:
        link = link_path(served)
        assert stat.S_IMODE(link.stat().st_mode) == 0o600
        through = [cli(*cmd, "--db", str(served)) for cmd in _commands(tmp_path / "b1")]
        held = cli("db", "stats", "--db", str(served))             # not delegated: the file is the service's
        assert held.returncode == 3 and "in use by another process" in held.stderr
        assert svc.stop() in (0, -15)          # uvicorn re-raises SIGTERM after its graceful shutdown
        assert "checkpointed and closed" in svc.log.read_text()
    assert not link.exists() and not served.with_name(served.name + ".wal").exists()   # checkpointed
    direct = [cli(*cmd, "--db", str(stopped)) for cmd in _commands(tmp_path / "b2")]
    for cmd, a, b in zip(_commands(tmp_path), through, direct):
        assert (a.returncode, a.stderr) == (b.returncode, b.stderr), cmd
        assert _comparable(cmd, a.stdout) == _comparable(cmd, b.stdout), cmd
    assert [r.returncode for r in through] == [0, 2, 0, 0, 2, 0]
    assert (tmp_path / "b1" / "manifest.json").is_file()
    assert json.loads(through[-1].stdout)["rows"] == 200
    after = cli("db", "stats", "--db", str(served))                # the import outlived the shutdown
    assert after.returncode == 0 and json.loads(after.stdout)["counts"]["items"] == 210


def _prepare(db: Path) -> tuple[str, dict[str, tuple[str, ...]]]:
    """E-mails and an office for the digest, a calendar token for exp.alfa, and a broken page (fx_rates
    dropped: the Câmbio page raises). Returns the token and the digest's expected recipients."""
    from valuation.db.access import Principal
    from valuation.db.store import Store
    from valuation.deadlines import feeds
    from valuation.jobs.digest_mail import digest_mails

    with Store(db) as s:
        def run(tx: Any) -> None:
            for username, email in (("dpc.silva", "ana@marinha.example"), ("exp.alfa", "eduardo@alfa.example"),
                                    ("admin", "gustavo@dpc.example")):
                tx.execute("UPDATE users SET email = ? WHERE username = ?", [email, username])
            tx.execute("INSERT INTO user_offices SELECT id, 'CPBA' FROM users WHERE username = 'dpc.silva'")
        s.write("test", run)
        row = s.fetch_one("SELECT id, organisation_id FROM users WHERE username = 'exp.alfa'")
        token = feeds.create_feed(s, Principal(row["id"], "exp.alfa", "Eduardo", "explorer", row["organisation_id"],
                                               None), now=s.now())
        today = datetime.now(ZoneInfo("America/Sao_Paulo")).date()
        expected = {m.subject: m.to for m in digest_mails(s, as_of=today, base_url="x")}
        s.write("test", lambda tx: tx.execute("DROP TABLE fx_rates"))
        s.checkpoint()
    return token, expected


def _in(page: Any) -> bool:
    """Wait for the app to render, then: logged in (the Sair button) or not (the login form)?"""
    page.locator("button:has-text('Sair'), input[aria-label='Usuário']").first.wait_for(timeout=60_000)
    return page.get_by_role("button", name="Sair").count() > 0


def _check_feed(base: str, token: str) -> None:
    import icalendar

    with urllib.request.urlopen(f"{base}/calendario/{token}.ics", timeout=60) as r:
        body, headers = r.read(), r.headers
    assert headers["Content-Type"].startswith("text/calendar")
    assert "max-age" in headers["Cache-Control"] and headers["ETag"]
    events = list(icalendar.Calendar.from_ical(body).walk("VEVENT"))
    assert events and all(sorted(a["TRIGGER"].dt for a in e.walk("VALARM")) == [timedelta(days=-5),
                                                                                timedelta(days=-1)] for e in events)
    again = urllib.request.Request(f"{base}/calendario/{token}.ics", headers={"If-None-Match": headers["ETag"]})
    with pytest.raises(urllib.error.HTTPError) as not_modified:
        urllib.request.urlopen(again, timeout=60)
    assert not_modified.value.code == 304
    with pytest.raises(urllib.error.HTTPError) as unknown:
        urllib.request.urlopen(f"{base}/calendario/{'x' * 43}.ics", timeout=60)
    assert unknown.value.code == 404


def _post(url: str, body: bytes, headers: dict[str, str]) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers, method="POST"),
                                    timeout=60) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _check_refusals(base: str) -> None:
    """The cookie route takes only same-origin requests with a live ticket; the CLI route only its token."""
    host = base.removeprefix("http://")
    assert _post(base + "/sessao", b"x" * 32, {"Origin": "http://mal.example", "Host": host}) == 403
    assert _post(base + "/sessao", b"x" * 32, {"Origin": base, "Sec-Fetch-Site": "same-origin"}) == 400
    assert _post(base + "/servico/cli", b'{"argv": ["audit", "verify"], "cwd": "/"}', {}) == 403
    assert _post(base + "/servico/cli", b"{}", {"Authorization": "Bearer " + "y" * 43}) == 403


def _check_headers(base: str) -> None:
    for path in ("/", "/_stcore/health", "/saude", "/deadlines"):
        with urllib.request.urlopen(base + path, timeout=60) as r:
            assert r.status == 200, path
            missing = [h for h in SECURITY_HEADERS if not r.headers.get(h)]
            assert not missing, (path, missing)
            csp = r.headers["content-security-policy"]
            assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "http" not in csp
            assert r.headers["x-content-type-options"] == "nosniff" and r.headers["x-frame-options"] == "DENY"
            assert r.headers["referrer-policy"] == "same-origin"


def test_sessions_headers_errors_feeds_and_the_scheduled_digest(small_world: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    small_world.store.close()
    db = tmp_path / "service.duckdb"
    shutil.copyfile(small_world.path, db)
    token, expected = _prepare(db)
    # a few seconds ahead: fired by the schedule, or at start-up by the catch-up when the start took longer
    at = (datetime.now(ZoneInfo("America/Sao_Paulo")) + timedelta(seconds=8)).strftime("%H:%M:%S")
    username, password = small_world.username("dpc"), small_world.passwords[small_world.username("dpc")]
    violations: list[str] = []
    with smtp_server() as box, sync_playwright() as p:
        env = {**smtp_env(box), "VALUATION_DIGEST_AT": at, "VALUATION_AUDIT_AT": at}
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        ctx = browser.new_context(viewport={"width": 1300, "height": 900}, locale="pt-BR")
        page = ctx.new_page()
        page.set_default_timeout(60_000)
        page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        with running_service(db, env=env) as svc:
            _check_headers(svc.base)
            _check_refusals(svc.base)
            _check_feed(svc.base, token)
            login(page, svc.base, username, password)
            page.wait_for_function("() => true")
            for _ in range(40):                        # the bridge's POST /sessao follows the login at once
                if any(c["name"] == "valuation_sessao" for c in ctx.cookies()):
                    break
                page.wait_for_timeout(250)
            cookies = {c["name"]: c for c in ctx.cookies()}
            session_cookie = cookies["valuation_sessao"]
            assert session_cookie["httpOnly"] and session_cookie["sameSite"] == "Strict"
            assert session_cookie["path"] == "/" and not session_cookie["secure"]          # http: no Secure
            assert "valuation_sessao" not in page.evaluate("document.cookie")
            page.reload()
            assert _in(page)                                                               # a reload
            second = ctx.new_page()
            second.goto(svc.base + "/deadlines")
            assert _in(second)                                                             # a second tab
            second.close()
            port = svc.port
        with running_service(db, env=env, port=port) as svc:
            page.reload()
            assert _in(page)                                                               # after a restart
            page.goto(svc.base + "/rates")
            incident = page.get_by_text(re.compile(r"Algo deu errado nesta página \(ocorrência [0-9A-F]{4}\)\. "
                                                   r"A equipe foi notificada; seus dados não foram alterados\."))
            incident.wait_for()
            assert page.locator("[data-testid='stException']").count() == 0
            page.goto(svc.base)
            page.get_by_role("button", name="Sair").click()
            page.get_by_label("Usuário").wait_for()
            for _ in range(40):                        # the bridge's POST /sessao/sair deletes the cookie
                if not any(c["name"] == "valuation_sessao" for c in ctx.cookies()):
                    break
                page.wait_for_timeout(250)
            assert not any(c["name"] == "valuation_sessao" for c in ctx.cookies())
            other = browser.new_context()
            other.add_cookies([{"name": "valuation_sessao", "value": session_cookie["value"], "url": svc.base}])
            stale = other.new_page()
            stale.goto(svc.base)
            assert not _in(stale)                                                          # the old cookie: refused
            other.close()
            got = box.wait_for(len(expected))
            health = json.loads(urllib.request.urlopen(svc.base + "/saude", timeout=60).read())
            deadline = datetime.now() + timedelta(seconds=60)
            while "audit_verify" not in health["jobs"] and datetime.now() < deadline:
                page.wait_for_timeout(500)
                health = json.loads(urllib.request.urlopen(svc.base + "/saude", timeout=60).read())
        browser.close()
    assert sorted(tuple(r) for r, _ in got) == sorted(expected.values())
    assert {m["Subject"] for _, m in got} == set(expected)
    assert health["schema_version"] >= 10 and health["jobs"]["digest"]["outcome"] == "ok"
    assert health["audit_verified_last_night"] is True
    assert not violations, violations
    logs = "\n".join(p.read_text() for p in tmp_path.glob("*.log"))
    assert token not in logs and session_cookie["value"] not in logs and "ocorrência" not in logs
    assert re.search(r"incident [0-9A-F]{4}: uncaught", logs)
    assert os.path.exists(db) and not link_path(db).exists()


def test_the_login_page_fetches_the_first_pages_front_end_code(small_world: Any, tmp_path: Path) -> None:
    """ui/front_end_warmup.py: while the login form is shown (nobody logged in yet), the browser imports
    Streamlit's table module and the service's partial plotly.js (the charts'), from this origin, and no
    error shows."""
    from playwright.sync_api import sync_playwright

    from service import chart_bundle
    from ui.front_end_warmup import module_paths

    small_world.store.close()
    db = tmp_path / "warm.duckdb"
    shutil.copyfile(small_world.path, db)
    wanted = [*module_paths(), chart_bundle.url_path()]
    assert any("/DataFrame." in p for p in wanted) and any(p.startswith("graficos/plotly-") for p in wanted)
    with sync_playwright() as p, running_service(db) as svc:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_context(locale="pt-BR").new_page()
            fetched: list[str] = []
            page.on("requestfinished", lambda r: fetched.append(r.url))
            page.goto(svc.base)
            page.get_by_label("Usuário").wait_for()
            for _ in range(80):
                if all(any(u.endswith("/" + w) for u in fetched) for w in wanted):
                    break
                page.wait_for_timeout(250)
            missing = [w for w in wanted if not any(u.endswith("/" + w) for u in fetched)]
            assert not missing, f"not fetched on the login page: {missing}"
            assert all(u.startswith(svc.base) for u in fetched if "/static/js/" in u or "/graficos/" in u)
            assert not any("/PlotlyChart." in u for u in fetched)     # Streamlit's whole plotly.js: not used
            assert page.get_by_role("button", name="Sair").count() == 0      # still the login page
            assert page.locator('[data-testid="stException"]').count() == 0
        finally:
            browser.close()
