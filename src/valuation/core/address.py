"""The service's addresses: the names it answers to, and its public address (issue 43, item 6).

    allowed_hosts(env)       the host names the service answers to (service/hosts.py refuses any other Host)
    base_url(env)            the public address: the links in e-mails and the verification address and QR code
                             printed on every issued document lead there (`<base>/verificar`)
    address_problem(env)     why that printed address is not one the service answers on, or None

The public address is the administrator's `VALUATION_BASE_URL` (behind a reverse proxy, its public name:
`https://valuation.dpc.mar.mil.br`). Unset, it is derived from where uvicorn listens — `VALUATION_HOST` and
`VALUATION_PORT`, which scripts/start.sh sets from HOST and PORT (default 127.0.0.1:8501) —, with the machine's
own name for a wildcard host (0.0.0.0, ::). An issued copy keeps the address it was printed with, so a wrong
one is named by /saude and Tarefas (`address_problem`) before documents go out with it.
"""
from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from urllib.parse import urlsplit

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501
DEFAULT_BASE_URL = f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARDS = ("0.0.0.0", "::", "")
ENV_BASE_URL = "VALUATION_BASE_URL"


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return env if env is not None else os.environ


def name_key(text: str) -> str:
    """A host name as compared: no brackets, lower case, no trailing dot."""
    return text.strip().strip("[]").lower().rstrip(".")


def allowed_hosts(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The host names the service answers to: the loopback names, the address uvicorn listens on
    (`VALUATION_HOST`; for a wildcard, the machine's host name and fully qualified name) and
    `VALUATION_ALLOWED_HOSTS` (comma-separated, the names a reverse proxy serves)."""
    source = _env(env)
    names = list(LOOPBACK_NAMES)
    bound = name_key(source.get("VALUATION_HOST", DEFAULT_HOST))
    if bound in WILDCARDS:
        names += [name_key(socket.gethostname()), name_key(socket.getfqdn())]
    else:
        names.append(bound)
    names += [name_key(n) for n in source.get("VALUATION_ALLOWED_HOSTS", "").split(",")]
    return tuple(dict.fromkeys(n for n in names if n))


def listening_port(env: Mapping[str, str] | None = None) -> int:
    """VALUATION_PORT (what uvicorn was told), DEFAULT_PORT when unset or not a port number."""
    text = _env(env).get("VALUATION_PORT", "").strip()
    return int(text) if text.isdigit() and 0 < int(text) < 65536 else DEFAULT_PORT


def derived_base_url(env: Mapping[str, str] | None = None) -> str:
    """http://<VALUATION_HOST>:<VALUATION_PORT> (a wildcard host: the machine's fully qualified name)."""
    host = name_key(_env(env).get("VALUATION_HOST", DEFAULT_HOST))
    if host in WILDCARDS:
        host = name_key(socket.getfqdn()) or DEFAULT_HOST
    return f"http://{f'[{host}]' if ':' in host else host}:{listening_port(env)}"


def base_url(env: Mapping[str, str] | None = None) -> str:
    """The public address, without a trailing slash: VALUATION_BASE_URL, else `derived_base_url`."""
    given = _env(env).get(ENV_BASE_URL, "").strip()
    return given.rstrip("/") if given else derived_base_url(env)


def address_problem(env: Mapping[str, str] | None = None) -> str | None:
    """Why the printed address (`base_url`) is not one the service answers on (pt-BR, naming the variable), or
    None. A name the service answers to directly (a loopback name, VALUATION_HOST) must carry the port it listens
    on; a name a reverse proxy serves (VALUATION_ALLOWED_HOSTS) may carry any."""
    source = _env(env)
    url = base_url(source)
    if not source.get(ENV_BASE_URL, "").strip():
        public = [n for n in (name_key(x) for x in source.get("VALUATION_ALLOWED_HOSTS", "").split(",")) if n]
        if public:
            return (f"{ENV_BASE_URL} não definido: os documentos emitidos imprimem {url}/verificar, mas o serviço "
                    f"é publicado como {public[0]} (VALUATION_ALLOWED_HOSTS); defina {ENV_BASE_URL} com o endereço "
                    "público.")
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return f"{ENV_BASE_URL} ({url}) não é um endereço válido."
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.username:
        return f"{ENV_BASE_URL} ({url}) deve ser só o endereço do serviço, como https://painel.exemplo.gov.br."
    host = name_key(parts.hostname)
    proxied = {name_key(x) for x in source.get("VALUATION_ALLOWED_HOSTS", "").split(",")} - {""}
    if host not in allowed_hosts(source):
        return (f"{ENV_BASE_URL} ({url}) não é um endereço que este serviço atende: o nome {host} não está entre "
                f"os seus (VALUATION_HOST, VALUATION_ALLOWED_HOSTS).")
    if host not in proxied:
        given = port or (443 if parts.scheme == "https" else 80)
        if given != listening_port(source):
            return (f"{ENV_BASE_URL} ({url}) aponta a porta {given}, mas o serviço escuta na porta "
                    f"{listening_port(source)} (VALUATION_PORT).")
    return None
