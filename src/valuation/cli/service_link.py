"""The command line's way into a running service (issue 13, item 4).

While the service (`service/asgi.py`) holds a database, no other process may open the
file. Its lifespan writes `<db>.service` beside the database — mode 0600, so only the
service's own operating-system user can read it — holding the loopback port and a random
token. The commands that must keep working while users work (`db backup`, `audit verify`,
`deadlines`, `import items`) look for that file *before* opening the database: when it is
there, they POST their arguments to the service's loopback route, which runs the very same
handler on its own Store and sends back stdout, stderr and the exit status, printed here
unchanged. A stale file (the service died) is noticed by a refused connection and the
command opens the file itself as before.
"""
from __future__ import annotations

import base64
import json
import os
import secrets
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROUTE = "/servico/cli"
DELEGABLE = frozenset({
    "valuation.cli.db:cmd_backup",
    "valuation.cli.db:cmd_audit_verify",
    "valuation.cli.deadlines:cmd_deadlines",
    "valuation.cli.imports:cmd_items",
})
PATH_ARGS = ("db", "to", "file")   # argparse destinations that name files: made absolute for the service
TIMEOUT_S = 3600


def link_path(db_path: str | Path) -> Path:
    p = Path(db_path)
    return p.with_name(p.name + ".service")


def write_link(db_path: str | Path, *, host: str, port: int) -> str:
    """Write the 0600 link file (replacing a stale one); returns the token."""
    token = secrets.token_urlsafe(32)
    path = link_path(db_path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"host": host, "port": int(port), "pid": os.getpid(), "token": token}, fh)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return token


def remove_link(db_path: str | Path, token: str) -> None:
    """Remove the link file if it is still ours (a newer service may have replaced it)."""
    path = link_path(db_path)
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("token") == token:
            path.unlink()
    except (OSError, ValueError):
        pass


def handler_name(args: Any) -> str:
    fn = getattr(args, "handler", None)
    return f"{getattr(fn, '__module__', '')}:{getattr(fn, '__name__', '')}"


def delegate(argv: list[str], args: Any) -> int | None:
    """Run the command in the service holding `args.db`: its exit status, or None to run it here."""
    if handler_name(args) not in DELEGABLE or not getattr(args, "db", None):
        return None
    try:
        link = json.loads(link_path(args.db).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    body = json.dumps({"argv": list(argv), "cwd": os.getcwd()}).encode("utf-8")
    host = "[::1]" if link.get("host") == "::1" else "127.0.0.1"
    req = urllib.request.Request(f"http://{host}:{int(link['port'])}{ROUTE}", data=body, method="POST",
                                 headers={"Authorization": f"Bearer {link['token']}",
                                          "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
            doc = json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        print(f"the service holding {args.db} refused the command (HTTP {exc.code})", file=sys.stderr)
        return 3
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None   # nobody listens: a stale link file; open the database here as before
    sys.stdout.buffer.write(base64.b64decode(doc["stdout"]))
    sys.stdout.flush()
    sys.stderr.buffer.write(base64.b64decode(doc["stderr"]))
    sys.stderr.flush()
    return int(doc["exit"])


def absolutise(args: Any, cwd: str) -> None:
    """Make the file arguments of a parsed command absolute against the caller's `cwd`."""
    for name in PATH_ARGS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value and not os.path.isabs(value):
            setattr(args, name, os.path.join(cwd, value))
