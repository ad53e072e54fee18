"""The ASGI entry point (issue 13): `uvicorn service.asgi:app` (scripts/start.sh).

    app = st.App("app.py", lifespan=lifespan, routes=ROUTES,
                 middleware=[SecurityHeaders, AllowedHosts, WebSocketGuard, LoginCallbackOutcome],
                 on_script_error=on_script_error)

The lifespan runs after Streamlit's runtime has started and before the first request:
it opens the process's one Store (applying migrations) through `valuation.db.shared`,
which the Streamlit script also uses; registers the cookie bridge's JS asset dir; writes the
0600 link file for the command line; starts the scheduler. On SIGTERM uvicorn ends the
lifespan: the scheduler stops (running jobs finish, retry pauses are cut short), the link file
is removed, and the Store waits for the write in progress, checkpoints and closes.

Configuration (environment): VALUATION_DB (or secrets [valuation] db_path), VALUATION_HOST and
VALUATION_PORT (what uvicorn was told: written into the link file for the command line),
VALUATION_ALLOWED_HOSTS (the names a reverse proxy serves: any other Host is refused,
service/hosts.py), and the jobs' settings (valuation/jobs/settings.py).
"""
from __future__ import annotations

import logging
import os
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import streamlit as st
from starlette.middleware import Middleware

from service import alerts, chart_bundle, cli_bridge, console, state
from service.hosts import allowed_hosts
from service.middleware import AllowedHosts, LoginCallbackOutcome, SecurityHeaders, WebSocketGuard
from service.routes import ROUTES
from ui.incidents import on_script_error

ROOT = Path(__file__).resolve().parent.parent
ASSETS = Path(__file__).resolve().parent / "assets"
log = logging.getLogger("valuation.service")


class _RedactFeedTokens(logging.Filter):
    """uvicorn's access log must not carry calendar tokens (they are in the path)."""

    _TOKEN = re.compile(r"(/calendario/)[^/\s\"?]+")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self._TOKEN.sub(r"\1…", a) if isinstance(a, str) else a for a in record.args)
        record.msg = self._TOKEN.sub(r"\1…", str(record.msg))
        return True


logging.getLogger("uvicorn.access").addFilter(_RedactFeedTokens())
console.quiet_startup()
console.one_line_frames()
logging.getLogger("valuation").setLevel(logging.INFO)
if not logging.getLogger("valuation").handlers:
    _h = logging.StreamHandler()
    _h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger("valuation").addHandler(_h)


def _register_cookie_bridge() -> None:
    """Declare service/assets as the asset dir of components valuation_service.cookie_bridge,
    .front_end_warmup (ui/front_end_warmup.py), .front_end_words (ui/front_end_words.py) and .plotly_chart
    (ui/charts.py), so their JS is served from this origin (CSP script-src
    'self'; an inline component would need blob:)."""
    from streamlit.components.v2.manifest_scanner import (
        ComponentConfig,
        ComponentManifest,
    )
    from streamlit.runtime import Runtime

    manifest = ComponentManifest(name="valuation_service", version="1",
                                 components=[ComponentConfig(name="cookie_bridge", asset_dir="assets"),
                                             ComponentConfig(name="front_end_warmup", asset_dir="assets"),
                                             ComponentConfig(name="front_end_words", asset_dir="assets"),
                                 ComponentConfig(name="plotly_chart", asset_dir="assets")])
    Runtime.instance().bidi_component_registry.register_from_manifest(manifest, ASSETS.parent)


def _clean_partial_copies(db_path: str, *folders: Path) -> None:
    """Copies left by a backup or restore killed before this start (issue 24, item 15), in `folders` and in
    every folder a backup of `db_path` noted (issue 45, item 13: a `db backup --to` elsewhere); /saude counts
    them."""
    from valuation.db import leftovers

    for folder in folders:
        removed = leftovers.clean(folder)
        if removed:
            log.warning("removed %d partial copy(ies) left by killed backups or restores in %s", len(removed), folder)
    removed = leftovers.clean_noted(db_path)
    if removed:
        log.warning("removed %d partial copy(ies) left by killed backups in the folders they wrote to: %s",
                    len(removed), ", ".join(sorted({str(p.parent) for p in removed})))


def _navigation_from_the_first_run() -> None:
    """Run app.py (its st.navigation) from the first script run of this process (issue 23 item 5).

    Streamlit starts a process in its old folder-based navigation when a `pages/` folder exists, until
    some run calls st.navigation: the first run after a start then runs the requested page by itself
    (ui.session hands it over to app.py). A browser tab left open across a restart reconnects without
    rerunning, so its first click — "Sair" — arrived in that hand-over run, where the widgets get other
    ids: the click was lost and the cookie logged the person in again; only the second click worked.
    Declared before any session runs, every run — the first one too — is app.py's."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


@asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[dict[str, Any]]:
    from anyio import to_thread
    from streamlit import config as st_config

    from service.scheduler import JobScheduler
    from ui import settings as ui_settings
    from valuation.accounts.sessions import TicketBook
    from valuation.cli.service_link import remove_link, write_link
    from valuation.db.audit import DEMO_LOAD, completed_load
    from valuation.db.safe_files import private_files
    from valuation.db.shared import close_shared, open_shared
    from valuation.jobs.configuration import configuration_problems
    from valuation.jobs.settings import JobSettings

    private_files()         # the database, its WAL, files, backups: the service's OS user's only (issue 45, item 14)
    st_config.set_option("server.allowedHosts", list(allowed_hosts(os.environ)))   # its WebSocket check too
    db_path = ui_settings.db_path()
    settings = JobSettings.from_env(db_path)
    _clean_partial_copies(db_path, settings.backup_dir, Path(db_path).resolve().parent,
                          *(() if settings.mirror is None else (settings.mirror,)))
    store = await to_thread.run_sync(lambda: open_shared(db_path))   # migrations applied here
    _register_cookie_bridge()
    _navigation_from_the_first_run()
    cli_bridge.install()
    host, port = os.environ.get("VALUATION_HOST", "127.0.0.1"), int(os.environ.get("VALUATION_PORT", "8501"))
    token = write_link(db_path, host=host, port=port)
    seal_alert = alerts.install(store, settings)      # a write refused for the audit seal alerts the admins
    scheduler = JobScheduler(store, settings)
    problems = await to_thread.run_sync(configuration_problems)
    for problem in problems:                          # also in /saude and on Tarefas (issue 43)
        log.error("configuration problem: %s", problem.text)
    state.set_current(state.ServiceState(store=store, settings=settings, tickets=TicketBook(),
                                         scheduler=scheduler, cli_token=token, components_served=True,
                                         chart_bundle=chart_bundle.url_path(), configuration=problems))
    scheduler.start()
    log.info("service ready: %s (schema %s)", db_path, store.schema_version())
    console.one_line_per_request()      # Streamlit's runtime has configured its loggers by now
    console.announce(host, port, demo=completed_load(store, DEMO_LOAD))
    try:
        yield {"store": store}
    finally:
        log.info("service stopping")
        await to_thread.run_sync(scheduler.shutdown)
        await to_thread.run_sync(lambda: alerts.uninstall(seal_alert))
        remove_link(db_path, token)
        state.set_current(None)
        # waits for the write, CHECKPOINT, close
        await to_thread.run_sync(lambda: close_shared(db_path, final=True))
        cli_bridge.uninstall()
        log.info("service stopped; %s checkpointed and closed", db_path)


app = st.App(str(ROOT / "app.py"), lifespan=lifespan, routes=ROUTES,
             middleware=[Middleware(SecurityHeaders), Middleware(AllowedHosts), Middleware(WebSocketGuard),
                         Middleware(LoginCallbackOutcome)],
             on_script_error=on_script_error)
