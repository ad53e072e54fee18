"""The partial plotly.js the dashboard's charts draw with (issue 28), served by the service itself.

Streamlit's own st.plotly_chart loads its bundled chunk of the whole plotly.js (4.7 MB, ~0.8–1.1 s of
main-thread evaluation in a fresh tab on the measuring machine); the charts of this product use three trace
types, built into service/vendor/plotly-<sha256[:12]>.min.js (1.4 MB, ~0.2 s) by front_end/plotly/build.sh.
The file is named by its content, so it is served `immutable` for a year: a browser fetches and compiles it
once and keeps V8's compiled code with it. service/assets/plotly_chart.js imports it (ui/charts.py).

    GET /graficos/plotly-<hash>.min.js    the bundle (any other name under /graficos/: 404)
"""
from __future__ import annotations

import functools
from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

VENDOR = Path(__file__).resolve().parent / "vendor"
ROUTE_PREFIX = "graficos/"
CACHE = "public, max-age=31536000, immutable"


@functools.lru_cache(maxsize=1)
def bundle() -> Path:
    """The one built bundle in service/vendor."""
    found = sorted(VENDOR.glob("plotly-*.min.js"))
    if len(found) != 1:
        raise RuntimeError(f"service/vendor must hold exactly one plotly-*.min.js (found {len(found)})")
    return found[0]


def url_path() -> str:
    """The bundle's address relative to the app's base (resolved against the page's address in the browser,
    so a reverse proxy's path prefix is kept)."""
    return ROUTE_PREFIX + bundle().name


@functools.lru_cache(maxsize=1)
def _body() -> bytes:
    return bundle().read_bytes()


async def serve(request: Request) -> Response:
    if request.path_params.get("name") != bundle().name:
        return PlainTextResponse("não encontrado\n", status_code=404)
    return Response(_body(), media_type="text/javascript; charset=utf-8", headers={"Cache-Control": CACHE})
