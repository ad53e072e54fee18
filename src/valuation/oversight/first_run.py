"""A first run that guides: what a new database still lacks before an office can work, and where to add it.

On a database made by `db init` (no demo) the administrator logs in first. The overview then lists, until each is
done, the steps the product cannot do by itself — the offices' directory is loaded by `db init`, the rest is
people: a DPC headquarters user, the officers of the offices, and the Commission's panel (three members named by
the Navy's heritage directorate and three by the Ministry of Culture, the president a Navy member: NORMAM-10 (ed.
2002) 0303 c 1 I). Headquarters then reads the next steps of the registry (companies, wrecks, contracts).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuation.core import law
from valuation.db.access import Principal, allowed, presides, users_with_roles


@dataclass(frozen=True)
class Step:
    key: str
    label: str         # pt-BR: what to do
    done: bool
    detail: str        # pt-BR: where things stand
    page: str          # the page where it is done (a key of the page registry)


def _count(store: Any, sql: str, params: list[Any] | None = None) -> int:
    return int(store.scalar(sql, params or []))


def _people(store: Any, roles: tuple[str, ...]) -> int:
    where, params = users_with_roles(roles, "u")
    return _count(store, f"SELECT count(*) FROM users u WHERE u.active AND {where}", params)


def _panel(store: Any) -> tuple[bool, str]:
    where, params = users_with_roles(("commission", "commission_president"), "u")
    rows = store.fetch(f"SELECT u.role, u.commission_body FROM users u WHERE u.active AND {where}", params)
    navy = sum(1 for r in rows if r["commission_body"] == "navy")
    culture = sum(1 for r in rows if r["commission_body"] == "culture")
    president = any(presides(r["role"]) and r["commission_body"] == "navy" for r in rows)
    done = navy >= law.COMMISSION_PER_BODY and culture >= law.COMMISSION_PER_BODY and president
    return done, (f"{navy} membro(s) da Marinha, {culture} do Ministério da Cultura; "
                  + ("presidente designado" if president else "sem presidente (um membro da Marinha)"))


def setup_steps(store: Any, user: Principal) -> list[Step]:
    """The steps of a new database, for the administrator (the people) and headquarters (the registry); [] for
    anyone else. Each says whether it is done and where it is done."""
    steps: list[Step] = []
    if allowed(user, "manage_users") or allowed(user, "manage_offices"):
        offices = _count(store, "SELECT count(*) FROM offices WHERE closed_on IS NULL OR closed_on > ?",
                         [store.today()])
        steps.append(Step("offices", "Conferir a relação de Capitanias, Delegacias e Agências", offices > 0,
                          f"{offices} organização(ões) em funcionamento", "offices"))
    if allowed(user, "manage_users"):
        dpc = _people(store, ("dpc",))
        steps.append(Step("dpc_user", "Criar ao menos um usuário da DPC (sede)", dpc > 0, f"{dpc} usuário(s) da DPC",
                          "users"))
        officers = _people(store, ("officer",))
        steps.append(Step("officers", "Criar os usuários das Capitanias (perfil Capitania/Delegacia/Agência)",
                          officers > 0, f"{officers} usuário(s) de Capitania", "users"))
        done, detail = _panel(store)
        steps.append(Step("panel", "Compor a Comissão Interministerial: 3 membros da Marinha (um deles presidente) "
                                   "e 3 do Ministério da Cultura", done, detail, "users"))
    if allowed(user, "register_contracts"):
        companies = _count(store, "SELECT count(*) FROM organisations")
        wrecks = _count(store, "SELECT count(*) FROM wrecks")
        contracts = _count(store, "SELECT count(*) FROM contracts")
        steps += [Step("companies", "Inscrever as empresas (NORMAM-10 (ed. 2002) 0401)", companies > 0,
                       f"{companies} empresa(s)", "organisations"),
                  Step("wrecks", "Cadastrar os naufrágios e seus responsáveis", wrecks > 0, f"{wrecks} naufrágio(s)",
                       "wrecks"),
                  Step("contracts", "Cadastrar contratos e autorizações", contracts > 0, f"{contracts} contrato(s)",
                       "contracts")]
    return steps
