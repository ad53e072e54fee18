"""People by their names: the one reading of a login (`users.username`, what a row keeps in its `*_by`
column and the audit log in `actor`) as the person a user reads — "CF Eduardo Gouveia Prado (DPC)", never
"dpc.prado" (issue 23 item 10). The program's own actors (the demo seed, the job agenda, the command line)
read by their Portuguese label.

`names(store, user)` is {login: full name} of the people `user` may read (db.access.named_people_scope:
an explorer never reads another company's staff); `person(names, login)` is the one label of a login.
"""
from __future__ import annotations

from collections.abc import Mapping

from valuation.db.access import Principal, named_people_scope
from valuation.db.store import Store

# The actors that are not people: what writes under them (valuation.demo.constants.DEMO_ACTOR, jobs.runs,
# cli.db, jobs.drill, jobs.backups) and how a reader names them.
SYSTEM_ACTORS: Mapping[str, str] = {
    "demo": "Carga de demonstração",
    "agenda": "Agenda automática",
    "cli": "Linha de comando",
    "prova": "Prova de restauração",
    "digest": "Resumo diário de prazos",
}
UNKNOWN = "—"


def names(store: Store, user: Principal) -> dict[str, str]:
    """{login: full name} of every person whose name `user` may read (active or not: a row outlives its
    author's account)."""
    where, params = named_people_scope(user)
    rows = store.fetch(f"SELECT u.username, u.full_name FROM users u WHERE {where}", params)
    return {str(r["username"]): str(r["full_name"]) for r in rows}


def person(known: Mapping[str, str], login: object) -> str:
    """The name a reader sees for `login`: the person's full name, a system actor's label, or '—' (no
    author, or one `user` may not read)."""
    if login is None or (isinstance(login, float) and login != login):
        return UNKNOWN
    key = str(login)
    return known.get(key) or SYSTEM_ACTORS.get(key) or UNKNOWN
