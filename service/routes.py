"""The service's own routes, mounted by st.App next to Streamlit's:

    POST /sessao                 redeem a login ticket (request body) for the HttpOnly session cookie
    POST /sessao/sair            revoke the cookie's session and delete the cookie
    GET  /calendario/<token>.ics a user's calendar subscription (text/calendar, ETag, Cache-Control)
    GET  /saude                  readiness: schema version, last job outcomes, last night's audit check,
                                 partial copies left by killed backups and restores, the recovery point
                                 (the newest proven backup's age, and whether it is late: issue 24), and the
                                 configuration's problems, each naming its variable (issue 43)
    POST /servico/cli            the command line's batch commands (loopback + bearer token only)
    GET/POST /verificar          a document's verification code, without login (service/verify.py, issue 27)
    GET  /graficos/<bundle>      the charts' partial plotly.js, immutable (service/chart_bundle.py, issue 28)
    GET  / and /<page>           Streamlit's index.html with the service's base path (service/front_end_base.py)

The cookie routes accept only same-origin requests (Origin / Sec-Fetch-Site), so another site
cannot plant its own session in a user's browser (login CSRF). No token is ever logged: uvicorn's
access log is redacted for /calendario/ (service/asgi.py) and the others carry tokens only in
bodies, headers or cookies.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from typing import Any

from anyio import to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from service import chart_bundle, front_end_base, state
from service.hosts import allowed_hosts, host_allowed, same_origin
from service.verify import verify_page
from valuation.accounts import sessions
from valuation.core import clock
from valuation.deadlines import feeds
from valuation.proceedings import feeds as proceedings_feeds

LOOPBACK = ("127.0.0.1", "::1")
FEED_MAX_AGE_S = 900
MAX_BODY = 4096


def _svc() -> state.ServiceState:
    svc = state.current()
    if svc is None:
        raise RuntimeError("the service is not running")
    return svc


def _same_origin(request: Request) -> bool:
    """Sec-Fetch-Site same-origin, and an Origin (when sent) that is this very Host — which the
    middleware has already checked against the service's own names (service/hosts.py), so a page
    whose name resolves here (DNS rebinding) never matches."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return site == "same-origin"
    host = request.headers.get("host", "")
    if not host_allowed(host, allowed_hosts(os.environ)):
        return False
    return same_origin(origin, host, request.url.scheme)


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


async def set_cookie(request: Request) -> Response:
    if not _same_origin(request):
        return _no_store(Response(status_code=403))
    body = (await request.body())[:MAX_BODY].decode("ascii", "replace").strip()
    token = _svc().tickets.redeem(body)
    if token is None:
        return _no_store(Response(status_code=400))
    response = _no_store(Response(status_code=204))
    response.set_cookie(sessions.COOKIE_NAME, token, path="/", httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")
    return response


async def clear_cookie(request: Request) -> Response:
    if not _same_origin(request):
        return _no_store(Response(status_code=403))
    token = request.cookies.get(sessions.COOKIE_NAME)
    if token:
        svc = _svc()
        await to_thread.run_sync(lambda: sessions.revoke_token(svc.store, token, now=clock.now_utc()))
    response = _no_store(Response(status_code=204))
    response.delete_cookie(sessions.COOKIE_NAME, path="/", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")
    return response


async def calendar_feed(request: Request) -> Response:
    svc = _svc()
    token = request.path_params["token"]
    as_of = clock.now_utc().astimezone(svc.settings.tz).date()
    body = await to_thread.run_sync(lambda: feeds.feed_ics(svc.store, token, as_of=as_of,
                                                           extra=proceedings_feeds.authority_events))
    if body is None:
        return _no_store(Response("Assinatura não encontrada ou revogada.\n", status_code=404,
                                  media_type="text/plain; charset=utf-8"))
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": f"private, max-age={FEED_MAX_AGE_S}",
               "Content-Disposition": 'inline; filename="prazos.ics"'}
    if etag in [t.strip() for t in request.headers.get("if-none-match", "").split(",")]:
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="text/calendar; charset=utf-8", headers=headers)


def health_doc(svc: state.ServiceState) -> dict[str, Any]:
    from valuation.jobs.drill import recovery_point
    from valuation.jobs.maintenance import partial_copies
    from valuation.jobs.runs import audit_verified_recently, last_outcomes

    store = svc.store
    outcomes = last_outcomes(store)
    return {
        "status": "ok",
        "schema_version": store.schema_version(),
        "jobs": {name: {"outcome": r["outcome"], "ended_at": r["ended_at"].isoformat(timespec="seconds") + "Z"
                        if r["ended_at"] else None} for name, r in sorted(outcomes.items())},
        "audit_verified_last_night": audit_verified_recently(store, store.now()),
        "partial_copies": partial_copies(svc.settings.backup_dir, store.path, svc.settings.mirror),
        "backups": recovery_point(store, svc.settings, store.now()).as_json(),
        "configuration": [p.as_json() for p in svc.configuration],   # named at start-up too (issue 43)
    }


async def health(request: Request) -> Response:
    svc = _svc()
    doc = await to_thread.run_sync(lambda: health_doc(svc))
    return _no_store(JSONResponse(doc))


async def cli(request: Request) -> Response:
    from service.cli_bridge import run_command

    svc = _svc()
    client = request.client.host if request.client else ""
    expected = svc.cli_token or ""
    given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    if client not in LOOPBACK or "x-forwarded-for" in request.headers or not expected \
            or not hmac.compare_digest(given.encode(), expected.encode()):
        return _no_store(Response(status_code=403))
    try:
        doc = json.loads(await request.body())
        argv, cwd = [str(a) for a in doc["argv"]], str(doc["cwd"])
    except (ValueError, KeyError, TypeError):
        return _no_store(Response(status_code=400))
    result = await to_thread.run_sync(lambda: run_command(argv, cwd, svc.store.path))
    return _no_store(JSONResponse(result))


ROUTES = [
    Route("/sessao", set_cookie, methods=["POST"]),
    Route("/sessao/sair", clear_cookie, methods=["POST"]),
    Route("/calendario/{token}.ics", calendar_feed, methods=["GET"]),
    Route("/saude", health, methods=["GET"]),
    Route("/verificar", verify_page, methods=["GET", "POST"]),
    Route("/servico/cli", cli, methods=["POST"]),
    Route("/" + chart_bundle.ROUTE_PREFIX + "{name}", chart_bundle.serve, methods=["GET"]),
    *front_end_base.ROUTES,
]
