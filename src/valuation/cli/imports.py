"""`python -m valuation items FILE --db PATH --contract CODE --actor USERNAME` (issue 4).

Imports a recovered-items file (CSV or XLSX; Windows-1252 or UTF-8; `;`, `,` or TAB; decimal
comma or point; dd/mm/aaaa or ISO dates — see `valuation.inventory.importer`) into a contract
in force of a recovery kind (exploração, remoção, demolição; Lei 7.542/1986 art. 18 sole
paragraph), through the same store function as the inventory page
(`valuation.inventory.item_import.import_items`): all or nothing, one transaction, an `imports`
record and an audit row.

Output: on success, a JSON summary on stdout (import_id, contract, rows, items_in_contract,
file, sha256, format, encoding, separator, ignored_columns) and exit 0. A bad file: one line
per bad cell on stderr — `linha N, coluna X: motivo` (Portuguese, as the page shows them) —
nothing on stdout, nothing written, exit 2. A refused contract, an unknown actor or a role
that may not import: one line on stderr, exit 2. The database held by another process
(the dashboard): exit 3 with which process and what to do.

Who is the actor — the choice made here and why
------------------------------------------------
`--actor USERNAME` is required and must name an ACTIVE user of the database. The import then
runs as that user, with exactly the page's permissions: a dpc user may import into any
contract in force; an explorer only into its own organisation's contracts; anyone else is
refused. The audit row and the `imports.imported_by` column name that user, and the audit
row also records the operating-system account that ran the command (`os_user`) and
`channel: "cli"`. Why not the OS user alone: OS accounts are not users of the dashboard and
have no role, so the trail would name someone the access policy does not know; why not a
built-in system actor: an import is a declaration by someone answerable for it (art. 23),
and a nameless "cli" actor would hide who that was. No password is asked: whoever can run
this command can already read and write the database file directly, so a password would
protect nothing; the OS account is recorded for that reason.

The single-process lock: DuckDB lets one process own the file. While the service runs, this
command is handed to it (`valuation.cli.service_link`, issue 13) and imports through the service's
own Store, with the same output and exit status; otherwise it opens the file itself.
"""
from __future__ import annotations

import argparse
import getpass
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from valuation.accounts.login import PRINCIPAL_COLUMNS, principal_from_row
from valuation.core import clock
from valuation.core.errors import InputError, Problem
from valuation.db.access import Principal
from valuation.db.store import Store


def actor_principal(store: Store, username: str) -> Principal:
    """The Principal of an active user, for a command run on that user's behalf."""
    uname = (username or "").strip().lower()
    row = store.fetch_one(f"SELECT {PRINCIPAL_COLUMNS}, active FROM users WHERE username = ?",
                          [uname]) if uname else None
    if row is None or not row["active"]:
        raise InputError(Problem("--actor", f"no active user named {username!r} in this database"))
    return principal_from_row(row)


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name (some containers): record that instead
        return "desconhecido"


READ_CHUNK = 1 << 20


def read_file_bounded(name: str, limit: int) -> bytes:
    """The bytes of the file `name`, refused (InputError, pt-BR) before any is read when it is not a
    regular file or is larger than `limit` — and read in chunks, never past `limit` (a file growing
    while read is refused too). Issue 24, item 12: the whole file used to be read first, inside the
    service when the command runs through the bridge."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK)     # a FIFO opens without waiting for a writer
    except OSError as exc:
        raise InputError(Problem("FILE", f"cannot read {name}: {exc.strerror or exc}")) from exc
    with os.fdopen(fd, "rb", buffering=0) as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InputError(Problem("FILE", f"{name}: não é um arquivo comum (pipe, dispositivo ou pasta); "
                                             "informe o caminho de um arquivo CSV ou XLSX"))
        too_big = InputError(Problem("FILE", f"{name}: o arquivo tem mais de {limit // (1024 * 1024)} MB, o limite "
                                             "(nada foi lido). Divida-o em partes."))
        if info.st_size > limit:
            raise too_big
        parts, total = [], 0
        while True:
            chunk = fh.read(min(READ_CHUNK, limit + 1 - total))
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
            if total > limit:
                raise too_big
        return b"".join(parts)


def cmd_items(args: argparse.Namespace) -> int:
    from valuation.inventory.item_import import MAX_IMPORT_BYTES, import_items

    path = Path(args.file)
    data = read_file_bounded(args.file, MAX_IMPORT_BYTES)
    from valuation.db.shared import using

    with using(args.db, must_exist=True) as store:   # the service's own Store when it runs the command
        user = actor_principal(store, args.actor)
        result = import_items(store, user, args.contract, data, path.name, today=clock.today_brasilia(), channel="cli",
                              note={"os_user": _os_user()})
    doc: dict[str, Any] = {
        "import_id": result.import_id, "contract": result.contract_code, "rows": result.rows,
        "items_in_contract": result.items_in_contract, "file": result.file_name, "sha256": result.sha256,
        "format": result.format, "encoding": result.encoding, "separator": result.separator,
        "ignored_columns": list(result.ignored_columns), "actor": user.username,
    }
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return 0


def register_cli(subparsers: Any) -> None:
    """Add the `items` command (called by valuation.cli.main.build_parser via EXTRA_COMMANDS)."""
    p = subparsers.add_parser("items", help="import a recovered-items file (CSV/XLSX) into a contract in force",
                              description="Import recovered items, all or nothing (Lei 7.542/1986 art. 23).")
    p.add_argument("file", metavar="FILE", help="the CSV or XLSX file")
    p.add_argument("--db", required=True, help="path of the DuckDB file (run through the service when it holds it)")
    p.add_argument("--contract", required=True, help="code of the contract in force (exploração, remoção, demolição)")
    p.add_argument("--actor", required=True,
                   help="username of the active dpc user (or the contract's explorer) answerable for the import")
    p.set_defaults(handler=cmd_items)
