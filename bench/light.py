"""A light person for bench/load.py (`--light N`): Streamlit's own WebSocket protocol, no browser.

A Chromium context costs the load generator a large share of a core; 32 of them on this 2-core machine
measured the browser, not the service (docs/capacity.md). A light person speaks to `/_stcore/stream`
what Streamlit's front end sends (streamlit/static's `sendRerunBackMsg`): a `BackMsg.rerun_script` whose
`ClientState` carries the page to run —

- on connecting, the address's page: `page_script_hash` empty, `page_name` the url path ("" for the
  navigation's first page), as a browser that opens a bookmark;
- on a click in the sidebar, the target's `page_script_hash` (from the `navigation` message the server
  sent with the previous run), the query string cleared, as `onPageChange` does;
- always the `context_info` (timezone, locale, url) and the `cached_message_hashes` of the elements it
  keeps (the front end's ForwardMsg cache: a cacheable element seen in the last `max_cached_message_age`
  runs is sent by the server as a `ref_hash` only).

It reads what the server sends back — `new_session`, `navigation`, the deltas, `script_finished` — and
times send → `script_finished` (FINISHED_SUCCESSFULLY; a FINISHED_EARLY_FOR_RERUN run, an st.rerun, is
waited through as the browser waits). That is the protocol time, drawing excluded: no chart is drawn, no
table painted, no image loaded.

Login: the app restores its session from the HttpOnly cookie `valuation_sessao` (ui/session.py,
valuation.accounts.sessions) that the browser gets after a real login; a light person logs in once in
a short-lived Chromium context (`cookie_login`), keeps the cookie and closes the context. Every
WebSocket it opens carries that cookie, so each view's run finds the session as a reload does.

What counts as an error (as the Chromium people's): an exception element, or the service's own
incident message (ui/incidents.py: the service shows it instead of Streamlit's exception box), a run
that did not finish within the timeout, a closed socket. A logout: the navigation offers the login
page ("entrar") to someone who had logged in.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

COOKIE = "valuation_sessao"          # valuation.accounts.sessions.COOKIE_NAME
LOGIN_PATH = "entrar"                # app.py: the login page's url path
INCIDENT = "Algo deu errado nesta página"   # ui/incidents.py MESSAGE's start
TIMEZONE, TIMEZONE_OFFSET, LOCALE = "America/Sao_Paulo", 180, "pt-BR"


@dataclass
class Outcome:
    """One page view over the protocol."""
    seconds: float | None                 # send → script_finished; None: did not finish
    page_hash: str = ""                   # what the navigation says ran
    pages: dict[str, str] = field(default_factory=dict)   # url path → page_script_hash, as offered
    exceptions: list[str] = field(default_factory=list)
    login_shown: bool = False
    messages: int = 0
    bytes: int = 0
    why: str = ""


async def cookie_login(browser: Any, base: str, user: str, password: str, login: Any,
                       timeout_s: float = 30) -> str:
    """A real login in a fresh Chromium context (`login(page, base, user, password)`: bench/load.py's),
    then the session cookie the cookie bridge set (service/routes.py POST /sessao)."""
    import live

    context = await browser.new_context(viewport={"width": 1400, "height": 1000}, locale="pt-BR")
    await context.add_init_script(live.INIT_JS)
    page = await context.new_page()
    page.set_default_timeout(timeout_s * 1000)
    try:
        await login(page, base, user, password)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for c in await context.cookies():
                if c["name"] == COOKIE and c["value"]:
                    return str(c["value"])
            await asyncio.sleep(0.1)
        raise RuntimeError(f"{user}: no {COOKIE} cookie {timeout_s:.0f} s after the login")
    finally:
        await context.close()


class Connection:
    """One Streamlit session over its WebSocket, the session cookie in the handshake."""

    def __init__(self, base: str, cookie: str, *, timeout_s: float = 60) -> None:
        self.base = base
        self.cookie = cookie
        self.timeout_s = timeout_s
        self.ws: Any = None
        self.pages: dict[str, str] = {}        # url path → page_script_hash (the last navigation message)
        self.current = ""                      # the page_script_hash of the last run
        self.max_age = 2                       # NewSession.config.max_cached_message_age
        self.cache: dict[str, int] = {}        # hash of a cacheable element → the run count it was last seen
        self.runs = 0

    async def open(self) -> None:
        from websockets.asyncio.client import connect

        url = urlparse(self.base)
        self.ws = await connect(f"ws://{url.netloc}/_stcore/stream", subprotocols=["streamlit"],  # type: ignore[list-item]
                                origin=self.base,  # type: ignore[arg-type]
                                additional_headers={"Cookie": f"{COOKIE}={self.cookie}"},
                                max_size=None, open_timeout=self.timeout_s, ping_interval=None,
                                compression=None)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    def _rerun(self, page_hash: str, page_name: str) -> bytes:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = ""
        cs.widget_states.SetInParent()
        cs.page_script_hash = page_hash
        cs.page_name = page_name
        cs.cached_message_hashes.extend(self.cache)
        info = cs.context_info
        info.timezone, info.timezone_offset, info.locale = TIMEZONE, TIMEZONE_OFFSET, LOCALE
        info.url = f"{self.base}/{page_name}"
        info.is_embedded = False
        info.color_scheme = "light"
        return msg.SerializeToString()

    def _finished_run(self) -> None:
        """The front end's cache ages by one run at every script_finished; older entries are dropped."""
        self.runs += 1
        self.cache = {h: n for h, n in self.cache.items() if self.runs - n <= self.max_age}

    async def view(self, page_hash: str = "", page_name: str = "") -> Outcome:
        """Run a page (by its hash, or by its url path when the hash is empty) and wait for its end."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if self.ws is None:
            await self.open()
        out = Outcome(None)
        t0 = time.perf_counter()
        await self.ws.send(self._rerun(page_hash, page_name))
        deadline = t0 + self.timeout_s
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                out.why = f"not finished in {self.timeout_s:.0f} s"
                return out
            try:
                raw = await asyncio.wait_for(self.ws.recv(), left)
            except TimeoutError:
                continue
            out.messages += 1
            out.bytes += len(raw)
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if msg.metadata.cacheable and msg.hash:
                self.cache[msg.hash] = self.runs
            if kind == "ref_hash":
                self.cache[msg.ref_hash] = self.runs
            elif kind == "new_session":
                if msg.new_session.config.max_cached_message_age:
                    self.max_age = msg.new_session.config.max_cached_message_age
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
                self.current = out.page_hash = msg.navigation.page_script_hash
                out.pages = dict(self.pages)
                out.login_shown = LOGIN_PATH in self.pages
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                el = msg.delta.new_element
                which = el.WhichOneof("type")
                if which == "exception":
                    out.exceptions.append(f"{el.exception.type}: {el.exception.message[:200]}")
                elif which == "alert" and el.alert.body.startswith(INCIDENT):
                    out.exceptions.append(el.alert.body[:200])
            elif kind == "script_finished":
                status = msg.script_finished
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue   # an st.rerun: the page's next run follows on the same request
                self._finished_run()
                if status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                    continue   # a fragment's own run (run_every), not the page's
                out.seconds = time.perf_counter() - t0
                if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    out.exceptions.append("compile error")
                return out
