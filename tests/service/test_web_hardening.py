"""Issue 8.6 — web hardening: the Streamlit configuration (XSRF on, loopback, upload limit, error
details hidden, no telemetry), no `unsafe_allow_html`/`st.html` with anything but constants,
session expiry and login lock-out wired into the app (AppTest), and no password or hash ever
logged, printed, shown or audited.
"""
from __future__ import annotations

import ast
import logging
import subprocess
import sys
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import ROOT, fresh_app, glue_files, page_direct, refused, texts
from ui.session import SEEN_KEY, USER_KEY
from valuation.accounts import login, users

CONFIG = ROOT / ".streamlit" / "config.toml"
UPLOAD_LIMIT_MB = 200        # Streamlit's own default; ours must not be larger


def _config() -> dict[str, Any]:
    return tomllib.loads(CONFIG.read_text(encoding="utf-8"))


@pytest.mark.parametrize("section, key, check", [
    ("server", "enableXsrfProtection", lambda v: v is True),
    ("server", "enableCORS", lambda v: v is True),                 # XSRF protection needs CORS protection on
    ("server", "address", lambda v: v in ("127.0.0.1", "localhost", "::1")),
    ("server", "maxUploadSize", lambda v: isinstance(v, int) and 0 < v <= UPLOAD_LIMIT_MB),
    ("server", "headless", lambda v: v is True),
    ("server", "allowedHosts", lambda v: isinstance(v, list) and v and "*" not in v),   # issue 24, item 13
    ("client", "showErrorDetails", lambda v: v in ("none", False)),
    ("client", "toolbarMode", lambda v: v in ("minimal", "viewer")),
    ("browser", "gatherUsageStats", lambda v: v is False),
    ("runner", "magicEnabled", lambda v: v is False),
])
def test_streamlit_configuration_is_hardened(section: str, key: str, check: Any) -> None:
    value = _config().get(section, {}).get(key)
    assert check(value), f"[{section}] {key} = {value!r}"


def test_the_page_uploads_respect_the_configured_limit() -> None:
    """No uploader raises the limit for itself (a per-widget max_upload_size above the server's)."""
    limit = _config()["server"]["maxUploadSize"]
    for path in glue_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "file_uploader":
                for kw in node.keywords:
                    if kw.arg == "max_upload_size":
                        assert isinstance(kw.value, ast.Constant) and kw.value.value <= limit, path


# -- no HTML with user data ---------------------------------------------------------------------------------
def _constant_text(node: ast.AST, constants: dict[str, str]) -> bool:
    """A string literal, an f-string without fields, or a module-level constant name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) for v in node.values)
    return isinstance(node, ast.Name) and node.id in constants


def _html_sinks(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {t.id: "" for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                 and isinstance(n.value.value, str) for t in n.targets if isinstance(t, ast.Name) and t.id.isupper()}
    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        unsafe = any(kw.arg == "unsafe_allow_html" and not (isinstance(kw.value, ast.Constant) and
                                                             kw.value.value is False) for kw in node.keywords)
        if unsafe or name == "html":                         # st.html, components.v1.html
            first = node.args[0] if node.args else next((kw.value for kw in node.keywords if kw.arg in
                                                          ("body", "html")), None)
            if first is None or not _constant_text(first, constants):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}(…) with non-constant HTML")
    return bad


def test_no_html_is_rendered_from_anything_but_constants() -> None:
    files = glue_files()
    assert len(files) > 3
    bad = [b for f in files for b in _html_sinks(f)]
    assert not bad, bad


def test_the_html_check_itself_catches_user_data(tmp_path: Path) -> None:
    sample = tmp_path / "page.py"
    sample.write_text("import streamlit as st\nname = st.text_input('x')\nTITLE = '<b>ok</b>'\n"
                      "st.markdown(TITLE, unsafe_allow_html=True)\n"
                      "st.markdown(f'<b>{name}</b>', unsafe_allow_html=True)\nst.html(name)\n", encoding="utf-8")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert [b.split()[0] for b in _html_sinks(sample)] == ["page.py:5", "page.py:6"]
    finally:
        ROOT = old


# -- session expiry and lock-out, wired into the app ---------------------------------------------------------
def _login_inputs(at: Any) -> int:
    return sum(1 for t in at.text_input if t.key in ("login_username", "login_password"))


@pytest.mark.parametrize("idle_minutes, expired", [(login.SESSION_IDLE_MINUTES + 1, True),
                                                   (login.SESSION_IDLE_MINUTES - 1, False)])
def test_an_idle_session_lands_on_the_login_page(small_world: Any, idle_minutes: int, expired: bool) -> None:
    small_world.store.close()
    at = fresh_app(small_world.path)
    at.session_state[USER_KEY] = small_world.principal("dpc")
    at.session_state[SEEN_KEY] = datetime.now() - timedelta(minutes=idle_minutes)
    at.run()
    assert not at.exception
    if expired:
        assert _login_inputs(at) == 2
        assert "Sessão expirada" in texts(at)
        assert USER_KEY not in at.session_state
    else:
        assert _login_inputs(at) == 0
        assert at.session_state[USER_KEY].username == small_world.username("dpc")


def test_an_idle_session_reaching_a_page_by_url_is_refused(small_world: Any) -> None:
    small_world.store.close()
    import os

    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ["VALUATION_DB"] = str(small_world.path)
    st.cache_resource.clear()
    at = AppTest.from_file(str(ROOT / "pages" / "wrecks.py"), default_timeout=60)
    at.session_state[USER_KEY] = small_world.principal("dpc")
    at.session_state[SEEN_KEY] = datetime.now() - timedelta(minutes=login.SESSION_IDLE_MINUTES + 5)
    at.run()
    assert refused(at) and "Galeão" not in texts(at)
    fresh = page_direct(small_world.path, small_world.principal("dpc"), "wrecks")
    assert not refused(fresh)                                     # the same page with a live session renders


def test_the_login_form_throttles_repeated_failures_with_the_same_message(small_world: Any) -> None:
    from valuation.accounts import throttle

    small_world.store.close()
    username = small_world.username("commission")
    at = fresh_app(small_world.path)
    at.run()
    for _ in range(throttle.RULES["pair"].free):
        at.text_input(key="login_username").set_value(username)
        at.text_input(key="login_password").set_value("senha-errada-0000")
        at.button[0].click().run()
    assert login.LOGIN_FAILED_MESSAGE in texts(at)
    at.text_input(key="login_password").set_value(small_world.passwords[username])
    at.button[0].click().run()                                   # the right password, while throttled
    assert not at.exception
    assert login.LOGIN_FAILED_MESSAGE in texts(at) and USER_KEY not in at.session_state
    assert "bloquead" not in texts(at).lower()                  # no word that tells the account exists


# -- passwords and hashes never leave the users table --------------------------------------------------------
class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def every_log_line():
    """A DEBUG handler on the root logger and on every logger that does not propagate (Streamlit's)."""
    handler = _Capture()
    loggers = [logging.getLogger()] + [logging.getLogger(n) for n in list(logging.root.manager.loggerDict)]
    saved = [(lg, lg.level, lg.propagate) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.DEBUG)
        if lg is logging.getLogger() or not lg.propagate:
            lg.addHandler(handler)
    try:
        yield handler
    finally:
        for lg, level, _ in saved:
            lg.setLevel(level)
            lg.removeHandler(handler)


def test_no_password_or_hash_is_logged_printed_shown_or_audited(small_world: Any, every_log_line: _Capture,
                                                                capfd: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    from valuation.db.store import Store

    small_world.store.close()                          # the command line first (one process owns the file)
    cli = subprocess.run([sys.executable, "-m", "valuation", "db", "add-user", "--db", str(small_world.path),
                          "--username", "cli.user", "--full-name", "CLI", "--role", "dpc", "--password-stdin"],
                         input="senha-pela-linha-4\n", capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0, cli.stderr
    s = Store(small_world.path)
    admin = small_world.principal("admin")
    new_password, reset_to = "nova-senha-secreta-1", "redefinida-secreta-2"
    new_id = users.create_user(s, admin, {"username": "novo.dpc", "full_name": "Novo DPC", "role": "dpc",
                                          "password": new_password})
    users.reset_password(s, admin, new_id, reset_to)
    with pytest.raises(login.AuthenticationFailed):
        # the old one: refused
        login.authenticate(s, "novo.dpc", new_password, now=datetime(2025, 6, 30, 12, tzinfo=UTC))
    login.authenticate(s, "novo.dpc", reset_to, now=datetime(2025, 6, 30, 12, tzinfo=UTC))
    s.close()

    username = small_world.username("dpc")
    at = fresh_app(small_world.path)                  # the login form: a wrong, then the right password
    at.run()
    at.text_input(key="login_username").set_value(username)
    at.text_input(key="login_password").set_value("errada-mas-secreta-3")
    at.button[0].click().run()
    at.text_input(key="login_password").set_value(small_world.passwords[username])
    at.button[0].click().run()
    assert at.session_state[USER_KEY].username == username
    shown = [texts(at)]
    at = page_direct(small_world.path, admin, "users")  # the users page, as the admin
    shown.append(texts(at) + "\n".join(str(df.value) for df in at.dataframe))

    out = capfd.readouterr()
    assert every_log_line.lines, "the capture saw the run's log records"
    everything = "\n".join([*every_log_line.lines, out.out, out.err, cli.stdout, cli.stderr, *shown])

    secrets = [new_password, reset_to, "errada-mas-secreta-3", small_world.passwords[username], "senha-pela-linha-4"]
    for secret in secrets:
        assert secret not in everything, f"a password appeared: {secret}"
    assert "$argon2" not in everything

    import streamlit as st

    st.cache_resource.clear()
    with Store(small_world.path) as ro:
        rows = ro.fetch("SELECT action, coalesce(before_json, '') || coalesce(after_json, '') AS j FROM audit_log")
        hashes = [r["password_hash"] for r in ro.fetch("SELECT password_hash FROM users")]
    assert {"create", "reset_password", "login", "login_failed"} <= {r["action"] for r in rows}
    for r in rows:
        assert "password" not in r["j"] and "$argon2" not in r["j"], r
        assert not any(secret in r["j"] for secret in secrets)
    assert all(h.startswith("$argon2id$") for h in hashes)          # the hashes exist, just never elsewhere


# -- exports (issue 8.7): formula injection neutralised in every CSV/XLSX the store produces ---------------
INJECTIONS = ('=HYPERLINK("http://mal.example/x","abrir")', "+SUM(1;2)", "-2+3", "@cmd", "\t=1+1", " =1")
_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def _dangerous(text: str) -> bool:
    import re

    stripped = text.lstrip(" ")
    return stripped.startswith(_TRIGGERS) and not re.fullmatch(r"-?[\d.]+(,\d+)?", stripped)


def _cells(data: bytes) -> list[Any]:
    import csv
    import io

    if data.startswith(b"PK"):
        from openpyxl import load_workbook

        wb = load_workbook(io.BytesIO(data))
        cells = []
        for ws in wb.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    assert c.data_type != "f", f"formula cell {ws.title}!{c.coordinate}: {c.value!r}"
                    cells.append(c.value)
        return cells
    text = data.decode("utf-8-sig")
    return [f for row in csv.reader(io.StringIO(text), delimiter=";") for f in row]


def _exporters() -> dict[str, Any]:
    from tests.support.package_modules import functions

    return functions(lambda name, ps: [p.name for p in ps[:2]] == ["store", "user"]
                     and (name.endswith(("_xlsx", "_csv")) or "fmt" in [p.name for p in ps]))


def test_every_spreadsheet_export_neutralises_formulas_in_user_text(small_world: Any) -> None:
    s = small_world.store
    ids = small_world.ids
    s.write("fixture", lambda tx: (
        tx.execute("UPDATE wrecks SET name = ?, vessel_type = ?, signalling = ?, casualty_year = 2024 WHERE id = ?",
                   [INJECTIONS[0], INJECTIONS[1], INJECTIONS[3], ids["w2"]]),
        tx.execute("UPDATE items SET description = ?, notes = ?, lot = ?, condition = ? WHERE id = ?",
                   [INJECTIONS[0], INJECTIONS[2], INJECTIONS[3], INJECTIONS[4], ids["A1-001"]]),
        tx.execute("UPDATE items SET description = ?, material = ? WHERE id = ?",
                   [INJECTIONS[5], INJECTIONS[1], ids["B1-001"]])))
    dpc = small_world.principal("dpc")
    calls: dict[str, Any] = {}
    for name, fn in _exporters().items():
        import inspect

        mod = inspect.getmodule(fn)
        params = inspect.signature(fn).parameters
        kwargs: dict[str, Any] = {}
        fillable = True
        for p in list(params.values())[2:]:
            if p.default is not inspect.Parameter.empty:
                continue
            if p.name == "office":
                kwargs["office"] = "CPRJ"
            elif p.name == "year":
                kwargs["year"] = 2024
            elif p.name == "flt":
                kwargs["flt"] = mod.ItemFilter()
            elif p.name == "fmt":
                kwargs["fmt"] = None
            else:
                fillable = False
        if not fillable:
            continue
        if "fmt" in kwargs:
            for fmt in ("csv", "xlsx"):
                calls[f"{name}[{fmt}]"] = (fn, {**kwargs, "fmt": fmt})
        else:
            calls[name] = (fn, kwargs)
    assert {"inventory.queries.export_items[csv]", "inventory.queries.export_items[xlsx]",
            "deadlines.wreck_map.wreck_map_xlsx"} <= set(calls)
    for name, (fn, kwargs) in calls.items():
        cells = _cells(fn(s, dpc, **kwargs))
        texts_ = [c for c in cells if isinstance(c, str)]
        assert not [c for c in texts_ if _dangerous(c)], name
        shown = "\n".join(texts_)
        assert any(inj.strip() in shown for inj in INJECTIONS), f"{name}: the injected text is not exported at all"


# -- issue 24, item 13: the Host check in front of every route (the campaign's Host-header angle) --------------
@pytest.mark.parametrize("scope_type", ["http", "websocket"])
def test_the_host_middleware_stands_in_front_of_every_kind_of_request(scope_type: str) -> None:
    import asyncio

    from service.middleware import AllowedHosts

    reached: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request"}

    guard = AllowedHosts(app, hosts=("127.0.0.1", "localhost", "::1"))
    cases = {"127.0.0.1:8501": True, "localhost": True, "[::1]:8501": True, "evil.example": False,
             "127.0.0.1.nip.io": False, "127.0.0.1:8501@evil.example": False}
    for host, ok in cases.items():
        reached.clear()
        sent.clear()
        scope = {"type": scope_type, "path": "/_stcore/stream", "headers": [(b"host", host.encode())]}
        asyncio.run(guard(scope, receive, send))
        assert bool(reached) is ok, host
        if not ok:
            kind = sent[0]["type"]
            assert kind == ("websocket.close" if scope_type == "websocket" else "http.response.start"), sent
    two = {"type": scope_type, "path": "/", "headers": [(b"host", b"127.0.0.1"), (b"host", b"evil.example")]}
    reached.clear()
    asyncio.run(guard(two, receive, send))
    assert not reached                                               # two Host headers: refused
