"""User administration (admin only): list without hashes, create, change role, (de)activate, unlock.

Every change is written to the audit log with before → after, never with the
password hash. Guards: an admin cannot deactivate or demote themself, and the
last active admin cannot be removed (nobody could manage users any more).
Role rules (schema + access policy): an explorer belongs to an organisation;
commission roles name their body (navy / culture); an office officer names its office; other roles have none.

A company's logins (its representatives) are also made by its office or DPC (`create_company_user`,
`set_company_user_active`: `manage_company_users`), for a company of their scope, with the CPF checked —
the representative then logs in with gov.br (the CPF) or with the initial password handed over.

`add_user(store, data, *, actor)` is the same validated, audited insert without the
role check, for the command line (`db add-user`) and the demo seed, which run with
the file's owner's authority.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from valuation.accounts import throttle
from valuation.accounts.login import PRINCIPAL_COLUMNS, USERNAME_PATTERN, normalise_username
from valuation.accounts.passwords import hash_password, password_problem
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.core.ids import cpf_is_valid, normalise_digits
from valuation.core.law import COMMISSION_BODIES
from valuation.db.access import (
    COMMISSION_BODY_LABELS,
    ROLE_LABELS,
    ROLES,
    Principal,
    answers_for_offices,
    is_role,
    needs_commission_body,
    needs_office,
    needs_organisation,
    organisation_scope,
    require,
    role_allows,
    users_allowed,
    users_of_organisation,
    users_with_roles,
)
from valuation.db.search import search_clause

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

_COLS = ("u.id, u.username, u.full_name, u.email, u.cpf, u.role, u.organisation_id, o.name AS organisation_name, "
         "u.commission_body, u.office_code, u.active, u.failed_attempts, u.locked_until, u.created_at")
_FROM = "FROM users u LEFT JOIN organisations o ON o.id = u.organisation_id"
_AUDITED = ("username", "full_name", "email", "cpf", "role", "organisation_id", "commission_body", "office_code",
            "active", "failed_attempts", "locked_until")
USER_FIELDS: tuple[str, ...] = ("username", "full_name", "email", "cpf", "role", "organisation_id",
                                "commission_body", "office_code", "password")
CPF_LABEL = "CPF"


def list_users(store: Any, user: Principal, *, role: str | None = None, search: str | None = None) -> pd.DataFrame:
    """Every user (admin only), ordered by username; no password hash."""
    require(user, "manage_users")
    clauses, params = [], []
    if role:
        clause, extra = users_with_roles([role], "u")
        clauses.append(clause)
        params += extra
    if search and search.strip():
        clause, extra = search_clause(("u.username", "u.full_name", "u.email"), search)
        clauses.append(clause)
        params += extra
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    return store.fetch_df(f"SELECT {_COLS} {_FROM}{where} ORDER BY u.username", params)


def get_user(store: Any, user: Principal, user_id: int) -> dict[str, Any]:
    require(user, "manage_users")
    row = store.fetch_one(f"SELECT {_COLS} {_FROM} WHERE u.id = ?", [user_id])
    if row is None:
        raise NotFound(f"Usuário {user_id} não encontrado.", what="user", key=user_id)
    return row


def organisation_choices(store: Any, user: Principal) -> list[dict[str, Any]]:
    """id and name of every organisation, to attach an explorer user to one (admin only)."""
    require(user, "manage_users")
    return store.fetch("SELECT id, name FROM organisations ORDER BY name")


def office_choices(store: Any, user: Principal) -> dict[str, str]:
    """code → name of every office, by code: the offices a DPC user may answer for (admin only)."""
    require(user, "manage_users")
    return {r["code"]: r["name"] for r in store.fetch("SELECT code, name FROM offices ORDER BY code")}


def _role_problems(store: Any, role: str | None, organisation_id: Any, commission_body: Any,
                   office_code: Any = None) -> list[Problem]:
    problems: list[Problem] = []
    if needs_office(role):
        if office_code is None:
            problems.append(Problem("office_code", "Capitania: obrigatória para o perfil Capitania/Delegacia/Agência."))
        elif store.scalar("SELECT count(*) FROM offices WHERE code = ? AND (closed_on IS NULL OR closed_on > ?)",
                          [office_code, store.today()]) == 0:
            problems.append(Problem("office_code", f"Capitania desconhecida ou encerrada: {office_code}."))
    elif office_code is not None:
        problems.append(Problem("office_code", "Capitania: só se informa para o perfil Capitania/Delegacia/Agência."))
    if needs_organisation(role):
        if organisation_id is None:
            problems.append(Problem("organisation_id", "Empresa: obrigatória para o perfil Empresa exploradora."))
        elif store.scalar("SELECT count(*) FROM organisations WHERE id = ?", [organisation_id]) == 0:
            problems.append(Problem("organisation_id", f"Empresa desconhecida: {organisation_id}."))
    elif organisation_id is not None:
        problems.append(Problem("organisation_id", "Empresa: só se informa para o perfil Empresa exploradora."))
    if needs_commission_body(role):
        if commission_body not in COMMISSION_BODIES:
            bodies = " ou ".join(COMMISSION_BODY_LABELS[b] for b in COMMISSION_BODIES)
            problems.append(Problem("commission_body", f"Órgão na Comissão: escolha {bodies}."))
    elif commission_body is not None:
        problems.append(Problem("commission_body", "Órgão na Comissão: só se informa para os perfis da Comissão."))
    return problems


def _checked_cpf(store: Any, f: Form, user_id: int | None) -> str | None:
    """The form's CPF as 11 digits (None when blank), or a problem named `cpf`: wrong check digits, or the CPF
    of another user (a CPF is one person: the signer of an act, the key of a gov.br login)."""
    raw = f.text("cpf", CPF_LABEL, required=False, max_len=20)
    if raw is None:
        return None
    if not cpf_is_valid(raw):
        f.fail("cpf", f"CPF inválido: {raw} (11 dígitos com os dois dígitos verificadores certos).")
        return None
    cpf = normalise_digits(raw)
    other = store.scalar("SELECT id FROM users WHERE cpf = ? AND id IS DISTINCT FROM ?", [cpf, user_id])
    if other is not None:
        f.fail("cpf", "CPF: já cadastrado para outro usuário.")
    return cpf


def set_cpf(store: Any, user: Principal, user_id: int, cpf: str | None) -> None:
    """Set or clear a user's CPF (admin only): validated (check digits, one user per CPF), audited."""
    require(user, "manage_users")
    f = Form({"cpf": cpf}, allowed=("cpf",))
    value = _checked_cpf(store, f, user_id)
    f.done()
    _change(store, user, user_id, "set_cpf", lambda tx, before: None, "UPDATE users SET cpf = ? WHERE id = ?",
            [value])


def user_by_cpf(store: Any, cpf: object) -> dict[str, Any] | None:
    """The active user whose CPF is `cpf` (any punctuation), or None — the gov.br login's and the
    signature check's lookup (no access check: the caller is the login or the verifier). The row holds
    every column `login.principal_from_row` reads, and cpf and email."""
    digits = normalise_digits(str(cpf)) if cpf is not None else ""
    if len(digits) != 11:
        return None
    return store.fetch_one(f"SELECT {PRINCIPAL_COLUMNS}, cpf, email FROM users WHERE cpf = ? AND active", [digits])


def users_by_email(store: Any, email: str) -> list[dict[str, Any]]:
    """The active users whose e-mail is `email` (case-insensitive), with the columns of `user_by_cpf` — the
    single sign-on's lookup when the identity carries no known CPF (no access check: the caller is the login)."""
    address = email.strip().lower() if isinstance(email, str) else ""
    if "@" not in address:
        return []
    return store.fetch(f"SELECT {PRINCIPAL_COLUMNS}, cpf, email FROM users WHERE lower(email) = ? AND active "
                       "ORDER BY id", [address])


def validate_user(store: Any, data: Mapping[str, Any]) -> dict[str, Any]:
    """The row for a new user (with the argon2id hash), or InputError naming every bad field (pt-BR)."""
    f = Form(data, allowed=USER_FIELDS)
    rec: dict[str, Any] = {}
    raw = f.text("username", "Usuário", max_len=32)
    username = normalise_username(raw) if raw is not None else None
    if username is not None:
        if not re.fullmatch(USERNAME_PATTERN, username):
            f.fail("username", "Usuário: de 3 a 32 caracteres, letras minúsculas, números, ponto, hífen ou "
                               "sublinhado, começando por letra ou número.")
        elif store.scalar("SELECT count(*) FROM users WHERE username = ?", [username]):
            f.fail("username", f"Usuário: o nome {username} já está em uso.")
    rec["username"] = username
    rec["full_name"] = f.text("full_name", "Nome completo", max_len=200)
    rec["email"] = f.email("email")
    rec["cpf"] = _checked_cpf(store, f, None)
    role = rec["role"] = f.choice("role", "Perfil", ROLES, labels=ROLE_LABELS)
    rec["organisation_id"] = f.integer("organisation_id", "Empresa", required=False, minimum=1)
    rec["commission_body"] = f.choice("commission_body", "Órgão na Comissão", COMMISSION_BODIES, required=False,
                                        labels=COMMISSION_BODY_LABELS)
    rec["office_code"] = f.text("office_code", "Capitania", required=False, max_len=20)
    if role is not None and f.ok("organisation_id", "commission_body", "office_code"):
        f.problems.extend(_role_problems(store, role, rec["organisation_id"], rec["commission_body"],
                                         rec["office_code"]))
    password = data.get("password") if isinstance(data, Mapping) else None
    why = password_problem(password)
    if why:
        f.fail("password", f"Senha: {why}")
    f.done()
    rec["password_hash"] = hash_password(str(password))
    return rec


def _public(rec: Mapping[str, Any]) -> dict[str, Any]:
    return {k: rec.get(k) for k in _AUDITED if k in rec}


def add_user(store: Any, data: Mapping[str, Any], *, actor: str) -> int:
    """Validated, audited insert of a user without a role check (CLI bootstrap, demo seed)."""
    rec = validate_user(store, data)

    def insert(tx: Any) -> int:
        cols = list(rec)
        new_id = int(tx.scalar(f"INSERT INTO users ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
                               "RETURNING id", [rec[c] for c in cols]))
        tx.audit("create", "user", new_id, None, _public(rec))
        return new_id

    return store.write(actor, insert)


def create_user(store: Any, user: Principal, data: Mapping[str, Any]) -> int:
    """Create a user (admin only); returns the id. `data`: username, full_name, email, role,
    organisation_id (explorer), commission_body (commission roles), password."""
    require(user, "manage_users")
    return add_user(store, data, actor=user.username)


def _change(store: Any, user: Principal, user_id: int, action: str, check: Any, sql: str, params: list[Any],
            *, revoke: str | None = None) -> None:
    """Apply one audited change; `revoke` (a reason) also ends the user's login sessions at once."""
    def run(tx: Any) -> None:
        before = tx.fetch_one(f"SELECT {', '.join(_AUDITED)} FROM users WHERE id = ?", [user_id])
        if before is None:
            raise NotFound(f"Usuário {user_id} não encontrado.", what="user", key=user_id)
        check(tx, before)
        tx.execute(sql, [*params, user_id])
        after = tx.fetch_one(f"SELECT {', '.join(_AUDITED)} FROM users WHERE id = ?", [user_id])
        tx.audit(action, "user", user_id, before, after)
        if revoke and (revoke == "password_reset" or before != after):
            from valuation.accounts.sessions import revoke_user

            revoke_user(tx, user_id, reason=revoke, now=store.now_utc())

    store.write(user.username, run)


def _other_active_admins(tx: Any, user_id: int) -> int:
    """Active users other than `user_id` whose role may manage users (administrar usuários)."""
    admins, params = users_allowed("manage_users", "u")
    return int(tx.scalar(f"SELECT count(*) FROM users u WHERE {admins} AND u.active AND u.id <> ?",
                         [*params, user_id]))


def set_role(store: Any, user: Principal, user_id: int, role: str, *, organisation_id: int | None = None,
             commission_body: str | None = None, office_code: str | None = None) -> None:
    """Change a user's role (with its organisation / commission body / office)."""
    require(user, "manage_users")
    if not is_role(role):
        raise InputError(Problem("role", f"Perfil desconhecido: {role}."))
    problems = _role_problems(store, role, organisation_id, commission_body, office_code)
    if problems:
        raise InputError(problems)

    def check(tx: Any, before: Mapping[str, Any]) -> None:
        admin_after = role_allows(role, "manage_users")
        if user_id == user.id and not admin_after:
            raise InputError(Problem("role", "Você não pode retirar o seu próprio perfil de administrador."))
        admin_before = role_allows(before["role"], "manage_users")
        if admin_before and not admin_after and before["active"] and _other_active_admins(tx, user_id) == 0:
            raise InputError(Problem("role", "Este é o último administrador ativo: crie outro antes."))

    _change(store, user, user_id, "set_role", check,
            "UPDATE users SET role = ?, organisation_id = ?, commission_body = ?, office_code = ? WHERE id = ?",
            [role, organisation_id, commission_body, office_code], revoke="role_changed")


def set_active(store: Any, user: Principal, user_id: int, active: bool) -> None:
    """Activate or deactivate a user (a deactivated user cannot log in)."""
    require(user, "manage_users")
    if not isinstance(active, bool):
        raise InputError(Problem("active", "Ativo: deve ser sim ou não."))

    def check(tx: Any, before: Mapping[str, Any]) -> None:
        if not active and user_id == user.id:
            raise InputError(Problem("active", "Você não pode desativar o seu próprio usuário."))
        if not active and role_allows(before["role"], "manage_users") and _other_active_admins(tx, user_id) == 0:
            raise InputError(Problem("active", "Este é o último administrador ativo: crie outro antes."))

    _change(store, user, user_id, "activate" if active else "deactivate", check,
            "UPDATE users SET active = ? WHERE id = ?", [active], revoke=None if active else "deactivated")


def unlock_user(store: Any, user: Principal, user_id: int) -> None:
    """Lift the login throttles of a user (its account key and its pairs with any address; the
    throttle of an address stays: it slows whoever sends from there)."""
    require(user, "manage_users")

    def lift(tx: Any, before: Mapping[str, Any]) -> None:
        throttle.clear_for_username(tx, str(before["username"]))

    _change(store, user, user_id, "unlock", lift,
            "UPDATE users SET failed_attempts = 0, locked_until = NULL WHERE id = ?", [])


def reset_password(store: Any, user: Principal, user_id: int, new_password: str) -> None:
    """Set a new password (the audit row records that it changed, never the hash)."""
    require(user, "manage_users")
    why = password_problem(new_password)
    if why:
        raise InputError(Problem("password", f"Senha: {why}"))
    _change(store, user, user_id, "reset_password", lambda tx, before: None,
            "UPDATE users SET password_hash = ?, failed_attempts = 0, locked_until = NULL WHERE id = ?",
            [hash_password(new_password)], revoke="password_reset")


def user_offices(store: Any, user: Principal, user_id: int) -> list[str]:
    """The offices (codes) a DPC user answers for in the daily digest (admin only)."""
    require(user, "manage_users")
    return [r["office_code"] for r in store.fetch(
        "SELECT office_code FROM user_offices WHERE user_id = ? ORDER BY office_code", [user_id])]


def set_user_offices(store: Any, user: Principal, user_id: int, offices: list[str]) -> None:
    """Which offices a DPC user answers for (none: headquarters, every office's digest). Audited."""
    require(user, "manage_users")
    codes = sorted({str(c) for c in offices})

    def run(tx: Any) -> None:
        row = tx.fetch_one("SELECT role FROM users WHERE id = ?", [user_id])
        if row is None:
            raise NotFound(f"Usuário {user_id} não encontrado.", what="user", key=user_id)
        if not answers_for_offices(row["role"]) and codes:
            raise InputError(Problem("offices", "Capitanias: só se informam para o perfil DPC (gestão)."))
        known = {r["code"] for r in tx.fetch("SELECT code FROM offices")}
        unknown = [c for c in codes if c not in known]
        if unknown:
            raise InputError(Problem("offices", f"Capitanias: {len(unknown)} código(s) desconhecido(s); "
                                                "escolha na lista."))
        before = [r["office_code"] for r in tx.fetch(
            "SELECT office_code FROM user_offices WHERE user_id = ? ORDER BY office_code", [user_id])]
        if before == codes:
            return
        tx.execute("DELETE FROM user_offices WHERE user_id = ?", [user_id])
        for code in codes:
            tx.execute("INSERT INTO user_offices VALUES (?, ?)", [user_id, code])
        tx.audit("set_offices", "user", user_id, {"offices": before}, {"offices": codes})

    store.write(user.username, run)


# -- a company's logins, made by its office (or DPC) -----------------------------------------------------------
COMPANY_USER_FIELDS: tuple[str, ...] = ("username", "full_name", "email", "cpf", "password")
COMPANY_USER_LABELS: dict[str, str] = {"username": "Usuário", "full_name": "Nome completo do representante",
                                       "email": "E-mail", "cpf": "CPF do representante", "password": "Senha inicial"}


def _company_in_scope(store: Any, user: Principal, organisation_id: object) -> int:
    """The id of a company whose logins `user` may manage (an office officer: one of its office's), else NotFound."""
    require(user, "manage_company_users")
    scope, params = organisation_scope(user, "o")
    ok = isinstance(organisation_id, int) and not isinstance(organisation_id, bool) and organisation_id > 0
    if not ok or not store.scalar(f"SELECT count(*) FROM organisations o WHERE o.id = ? AND {scope}",
                                  [organisation_id, *params]):
        raise NotFound(f"Empresa {str(organisation_id)[:20]} não encontrada.", what="organisation",
                       key=organisation_id)
    return int(str(organisation_id))


def company_users(store: Any, user: Principal, organisation_id: int) -> list[dict[str, Any]]:
    """The logins of a company (its representatives), by name: id, username, full_name, email, cpf, active,
    created_at."""
    org = _company_in_scope(store, user, organisation_id)
    people, params = users_of_organisation(org, "u")
    return store.fetch(f"SELECT u.id, u.username, u.full_name, u.email, u.cpf, u.active, u.created_at FROM users u "
                       f"WHERE {people} ORDER BY u.full_name", params)


def create_company_user(store: Any, user: Principal, organisation_id: int, data: Mapping[str, Any]) -> int:
    """Create the login of a company's representative (role explorer, tied to the company); the CPF is required
    and checked (the gov.br login's key, one person one CPF). Returns the new user's id; audited."""
    org = _company_in_scope(store, user, organisation_id)
    f = Form(data, allowed=COMPANY_USER_FIELDS)    # unknown fields and a missing CPF refused before anything else
    f.text("cpf", COMPANY_USER_LABELS["cpf"], max_len=20)
    if f.problems:
        f.done()
    explorer = [r for r in ROLES if needs_organisation(r)][0]
    return add_user(store, {**{k: data.get(k) for k in COMPANY_USER_FIELDS}, "role": explorer,
                            "organisation_id": org}, actor=user.username)


def set_company_user_active(store: Any, user: Principal, organisation_id: int, user_id: int, active: bool) -> None:
    """Disable (or enable again) a company's login; its sessions end at once when disabled."""
    org = _company_in_scope(store, user, organisation_id)
    people, params = users_of_organisation(org, "u")
    if not store.scalar(f"SELECT count(*) FROM users u WHERE u.id = ? AND {people}", [user_id, *params]):
        raise NotFound(f"Usuário {str(user_id)[:20]} não encontrado.", what="user", key=user_id)
    if not isinstance(active, bool):
        raise InputError(Problem("active", "Ativo: deve ser sim ou não."))
    _change(store, user, user_id, "activate" if active else "deactivate", lambda tx, before: None,
            "UPDATE users SET active = ? WHERE id = ?", [active], revoke=None if active else "deactivated")
