"""What bench/browser.py and bench/load.py share: the real service, Debian's Chromium, the demo
logins, and the one definition of a *settled* page.

    with serve(db_path, port, run_log=…) as svc:      # uvicorn service.asgi:app, as scripts/start.sh
        …                                             # svc.base, svc.pid; stopped with SIGTERM after

Settled (measured in the page, from the click's own `performance.now()`): the first instant from
which all of these hold, without a break, for `QUIET_MS` —

1. Streamlit says no script is running (`stApp[data-test-script-state="notRunning"]`, i.e. the
   "Running…" indicator is gone) and a run started after the click (its transition to "running"
   was seen, or the page's title changed);
2. the address is the page's (`/<url path>`), and the main area shows an `h1`;
3. nothing is a placeholder: no skeleton (`stSkeleton`, `stAppSkeleton`), no spinner, no element
   left over from the previous run (`data-stale="true"`);
4. the page's main elements are drawn: every visible chart (Streamlit's or the service's own,
   `.valuation-chart`) has its SVG (`.main-svg`; a map also
   its land and coast layer, `.geolayer`), every visible table its canvas, every visible image
   has loaded.

The time reported ends at the start of that quiet stretch, not at its end. Elements in a tab
that is not shown are not waited for (the user does not see them).
"""
from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(ROOT / "src"), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
QUIET_MS = 300
NO_SCHEDULE = {"VALUATION_DIGEST_AT": "off", "VALUATION_BACKUP_AT": "off", "VALUATION_AUDIT_AT": "off",
               "VALUATION_BACKUP_EVERY": "off",
               "VALUATION_JOB_RETRY_SECONDS": "0"}
# Whom each role logs in as (README "Demo logins"); exp.salvamar holds the bench's 1M-item contract.
ACCOUNTS: dict[str, tuple[str, ...]] = {
    "dpc": ("dpc.prado", "dpc.reis"),
    "explorer": ("exp.salvamar", "exp.arqueonautica", "exp.costasul"),
    "commission": ("cf.rocha", "minc.ferraz", "cc.lima"),
    "commission_president": ("cmg.tavares",),
    "admin": ("admin",),
}

# Runs in every page before Streamlit's own code: counts the script runs the page shows and
# remembers the instant of the last click; `await __benchWait(want)` waits in the page for settled.
INIT_JS = r"""
(() => {
  window.__bench = {runs: 0, clickAt: null, clickRuns: 0, h1: null, streak: null};
  const state = () => document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state');
  new MutationObserver(() => { if (state() === 'running' && !window.__bench.wasRunning) window.__bench.runs++;
                               window.__bench.wasRunning = state() === 'running'; })
    .observe(document, {subtree: true, attributes: true, attributeFilter: ['data-test-script-state']});
  document.addEventListener('click', () => {
    const b = window.__bench; b.clickAt = performance.now(); b.clickRuns = b.runs; b.streak = null;
    b.h1 = document.querySelector('[data-testid="stMain"] h1')?.innerText ?? null;
  }, true);
  const shown = (el) => el.offsetParent !== null && el.getClientRects().length > 0;
  window.__benchSettledNow = (want) => {
    const b = window.__bench;
    if (state() !== 'notRunning') return 'running';
    const h1 = document.querySelector('[data-testid="stMain"] h1');
    if (!h1 || !h1.innerText.trim()) return 'no title';
    if (b.runs === b.clickRuns && h1.innerText === b.h1) return 'no run yet';
    const path = location.pathname.replace(/\/+$/, '').split('/').pop();
    if (want.path !== null && path !== want.path) return 'address';
    if (want.absent && document.querySelector(want.absent)) return 'still: ' + want.absent;
    if (document.querySelector('[data-testid="stSkeleton"], [data-testid="stAppSkeleton"], ' +
                               '[data-testid="stSpinner"], [data-stale="true"]')) return 'placeholder';
    for (const c of document.querySelectorAll('[data-testid="stPlotlyChart"], .valuation-chart')) {
      if (!shown(c)) continue;
      if (!c.querySelector('.main-svg')) return 'chart';
      if (c.querySelector('.geo') && !c.querySelector('.geolayer path')) return 'map';
    }
    for (const g of document.querySelectorAll('[data-testid="stDataFrame"]'))   // the grid draws on screen only
      if (shown(g) && g.getBoundingClientRect().top < innerHeight && !g.querySelector('canvas')) return 'table';
    for (const i of document.querySelectorAll('[data-testid="stMain"] img'))
      if (shown(i) && !i.complete) return 'image';
    return '';
  };
  // Resolves once settled (polled in the page every 20 ms): {ms: click → settled, why: '' } or, after
  // want.timeout ms, {ms: null, why: what was still missing}.
  window.__benchWait = (want) => new Promise((resolve) => {
    const b = window.__bench;
    const tick = () => {
      const now = performance.now(), why = window.__benchSettledNow(want);
      b.why = why;
      if (why) b.streak = null; else if (b.streak === null) b.streak = now;
      if (b.streak !== null && now - b.streak >= want.quiet) return resolve({ms: b.streak - b.clickAt, why: ''});
      if (now - b.clickAt > want.timeout) return resolve({ms: null, why});
      setTimeout(tick, 20);
    };
    tick();
  });
})();
"""


@dataclass
class Service:
    base: str
    pid: int
    proc: subprocess.Popen
    log: Path


def _python() -> str:
    return sys.executable


@contextlib.contextmanager
def serve(db_path: Path | str, port: int, *, run_log: Path | None = None, profile_dir: Path | None = None,
          env: dict[str, str] | None = None, timeout: float = 180) -> Iterator[Service]:
    """uvicorn service.asgi:app on 127.0.0.1:`port` over `db_path` (which nothing else may hold), with
    the script-run log on when `run_log` is given; stopped with SIGTERM (a clean shutdown) after."""
    full_env = {**os.environ, **NO_SCHEDULE, **(env or {}), "VALUATION_DB": str(db_path),
                "VALUATION_PORT": str(port), "VALUATION_HOST": "127.0.0.1", "PYTHONUNBUFFERED": "1",
                "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    if run_log is not None:
        full_env["VALUATION_RUN_LOG"] = str(run_log)
    if profile_dir is not None:
        full_env["VALUATION_RUN_PROFILE"] = str(profile_dir)
    log_path = Path(str(db_path) + f".service-{port}.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([_python(), "-m", "uvicorn", "service.asgi:app", "--host", "127.0.0.1",
                                 "--port", str(port), "--lifespan", "on", "--timeout-graceful-shutdown", "30"],
                                cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{base}/saude", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the service did not start: " + log_path.read_text()[-3000:])
            time.sleep(0.5)
        yield Service(base, proc.pid, proc, log_path)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def passwords(readme: Path = ROOT / "README.md") -> dict[str, str]:
    """username → password of the demo logins listed in README.md."""
    rows = re.findall(r"^\|\s*([a-z][\w.]+)\s*\|\s*[a-z_]+[^|]*\|\s*(\S+)\s*\|$",
                      readme.read_text(encoding="utf-8"), re.MULTILINE)
    return dict(rows)


def role_pages(role: str) -> list[tuple[str, str]]:
    """(sidebar title, url path) of the pages the navigation offers `role`, in sidebar order."""
    from ui.registry import PAGES
    from valuation.db.access import may_view_page

    class _Who:   # may_view_page reads only the role
        def __init__(self, r: str) -> None:
            self.role = r

    who: Any = _Who(role)
    return [(p.title, p.key) for p in PAGES if p.exists() and may_view_page(who, p.key)]


def local_only(context: Any) -> list[str]:
    """Note every request of `context` that is not to 127.0.0.1 (the returned list). Nothing is
    intercepted — a route handler would delay every request of the measurement: the browser itself
    resolves no other host (`CHROMIUM_ARGS`), and the service's CSP allows its own origin only."""
    from urllib.parse import urlparse

    blocked: list[str] = []

    def note(request: Any) -> None:
        url = request.url
        if not url.startswith(("data:", "blob:")) and urlparse(url).hostname != "127.0.0.1":
            blocked.append(url)

    context.on("request", note)
    return blocked


def machine() -> dict[str, Any]:
    import platform

    import psutil

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "python": platform.python_version(), "platform": platform.platform(),
            "load_avg": [round(x, 2) for x in os.getloadavg()]}


def chromium_version() -> str:
    try:
        done = subprocess.run([CHROMIUM, "--version"], check=False, capture_output=True, text=True, timeout=30)
        return done.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def settle_args(path: str | None, *, absent: str | None = None, timeout_s: float = 60,
                quiet_ms: int = QUIET_MS) -> dict[str, Any]:
    return {"path": path, "absent": absent, "quiet": quiet_ms, "timeout": timeout_s * 1000}


WAIT_JS = "want => window.__benchWait(want)"
EXCEPTION_BOX = '[data-testid="stException"]'
LOGIN_FORM = 'input[autocomplete="current-password"]'   # the login form's password field


def run_page(run: dict[str, Any]) -> str | None:
    """The page key of a run-log record (the navigation's first page has the empty address); None
    for the login form's runs."""
    if run.get("role") is None:
        return None
    return run["page"] or role_pages(run["role"])[0][1]
