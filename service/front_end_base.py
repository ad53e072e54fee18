"""The page's own address answered with Streamlit's index.html and the service's base path (issue 28).

Streamlit's front end does not know under which path the service answers (a reverse proxy may add a
prefix), so a tab opened on a page's address (`/prazos`: a bookmark, a link in the digest e-mail)
first asks `/prazos/_stcore/health`, gets a 404, and only then tries the parent path — ~0.14 s of a
fresh tab on this machine, before the WebSocket opens. Its documented embedding setting
`window.__streamlit.BACKEND_BASE_URL` names the base and skips that probe.

The service answers its root and every registered page's address (`ROUTES`, placed before Streamlit's
own static files) with Streamlit's index.html plus one inline script: when the address's last segment is
a page of the registry (or empty: the root), the base is the address without it — so the setting is
right behind a prefix too. Any other address keeps Streamlit's own answer and probing. The script is
fixed text (no request data goes into it), allowed by its hash in the Content-Security-Policy
(service/middleware.py).

After Streamlit's module script, a second fixed script starts importing the charts' plotly.js
(service/chart_bundle.py) when the address is a page that draws a chart when opened (`PageSpec.charts`) or
the root: its ~0.2 s of evaluation then overlaps the front end's connection and the page's run on the server,
instead of following the chart's element. Measured on the demo (DPC, 6 chart pages, 5 tabs each, alternated
with the page without it, loaded machine): the median lower on all six, by 0.01–0.23 s.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from service import chart_bundle
from ui.registry import PAGES

LOGIN_KEY = "entrar"          # app.py: the login page's address while nobody is signed in
PAGE_KEYS: tuple[str, ...] = (LOGIN_KEY, *(p.key for p in PAGES))

SCRIPT = (
    "(function(){var keys=" + json.dumps(list(PAGE_KEYS), separators=(",", ":")) + ";"
    "var p=location.pathname.replace(/\\/+$/,''),i=p.lastIndexOf('/'),k=p.slice(i+1);"
    "if(k!==''&&keys.indexOf(k)<0)return;"
    "var base=location.origin+(k===''?p:p.slice(0,i))+'/';"
    "window.__streamlit=Object.assign({},window.__streamlit,{BACKEND_BASE_URL:base});})();"
)


# A page that draws a chart when opened (and the root: Visão geral, or the login page, whose warm-up imports
# the same file) starts importing the charts' plotly.js as soon as Streamlit's own module has run, while the
# front end connects and the page's script runs on the server, instead of after the chart's element arrives.
CHART_KEYS: tuple[str, ...] = ("", *(p.key for p in PAGES if p.charts))
CHARTS_SCRIPT = (
    "var k=location.pathname.replace(/\\/+$/,'').split('/').pop();"
    "if(" + json.dumps(list(CHART_KEYS), separators=(",", ":")) + ".indexOf(k)>=0)"
    "import(new URL(" + json.dumps(chart_bundle.url_path()) + ","
    "(window.__streamlit||{}).BACKEND_BASE_URL||document.baseURI).href).catch(function(){});"
)


@lru_cache(maxsize=1)
def page() -> tuple[bytes, str]:
    """(Streamlit's index.html with the base-path script before its first script and the charts' early import
    after its module script, its ETag)."""
    import streamlit

    html = (Path(streamlit.__file__).parent / "static" / "index.html").read_text(encoding="utf-8")
    at = html.index("<script")
    html = html[:at] + f"<script>{SCRIPT}</script>\n    " + html[at:]
    end = html.index("</script>", html.index('<script type="module"')) + len("</script>")
    html = html[:end] + f'\n    <script type="module">{CHARTS_SCRIPT}</script>' + html[end:]
    body = html.encode("utf-8")
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


async def index(request: Request) -> Response:
    body, etag = page()
    headers = {"Cache-Control": "no-cache", "ETag": etag}
    sent = [t.strip().removeprefix("W/") for t in request.headers.get("if-none-match", "").split(",")]
    if etag in sent:
        return Response(status_code=304, headers=headers)
    return Response(body if request.method == "GET" else b"", media_type="text/html; charset=utf-8",
                    headers={**headers, "Content-Length": str(len(body))})


ROUTES = [Route("/", index, methods=["GET", "HEAD"]),
          *(Route(f"/{key}", index, methods=["GET", "HEAD"]) for key in PAGE_KEYS)]
