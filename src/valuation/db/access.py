"""Who may see and change what: the one place that decides (roles, permissions, row scopes).

Roles (README "Roles"):

    commission            reads the contracts under assessment, their items, their wrecks' positions
    commission_president  as commission; opens and closes rounds, records decisions
    dpc                   headquarters (DPC): reads everything, positions included; registers wrecks, owners,
                          organisations and contracts; sets policies, issues statements, decides appeals
    officer               the officer of one Capitania, Delegacia or Agência (users.office_code): DPC's work on
                          its office's records only — wrecks, contracts, requests, deadlines, found things and
                          deliveries of that office (docs/decisions/003-office-officer-role.md)
    explorer              only its own organisation: its contracts and items, the positions of its own wrecks
    admin                 users and the audit log only: no wreck, contract, item or position

Every function that reads or writes on behalf of a user takes the `Principal` and calls
`require(user, action)` (PERMISSION_TABLE names every action, with its roles and its pt-BR label),
and the role-scoped queries build their WHERE clause from `contract_scope` / `position_scope` /
`organisation_scope`, so the rule lives here alone; `PAGES_BY_ROLE` only decides which pages the
navigation offers (a page checks again).

Own company (an explorer's rows): `own_organisation` / `require_own` (a row of another company
answers as a missing one), `own_scope` (its SQL twin), `chosen_organisation` (an explorer always
gets its own, whatever it asks for). Users by role or company (recipients, the panel):
`users_with_roles`, `users_allowed`, `users_of_organisation`. No other module compares a role or
reads the user's organisation (tests/architecture/test_layout.py checks it).

Positions (NORMAM-10 0105 a and b: the observers' instructions include "a manutenção de sigilo
confidencial acerca da posição dos bens e coisas afundados, quando localizados"; Lei 7.542 itself
says nothing of it) — `position_cleared` and its SQL twin `position_scope`: dpc every wreck;
commission roles the wrecks of contracts under assessment (contracts with recovered items); explorer
the wrecks of its own organisation's contracts; admin none.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, NoReturn

from valuation.core.errors import AccessDenied

ROLES: tuple[str, ...] = ("commission", "commission_president", "dpc", "officer", "explorer", "admin")
COMMISSION_ROLES: tuple[str, ...] = ("commission", "commission_president")
ROLE_LABELS: dict[str, str] = {
    "commission": "Comissão",
    "commission_president": "Presidente da Comissão",
    "dpc": "DPC (gestão)",
    "officer": "Capitania/Delegacia/Agência",
    "explorer": "Empresa exploradora",
    "admin": "Administrador",
}
COMMISSION_BODY_LABELS: dict[str, str] = {"navy": "Marinha (DPHCM)", "culture": "Ministério da Cultura"}


@dataclass(frozen=True)
class Principal:
    """The logged-in user, passed to every store query."""

    id: int
    username: str
    full_name: str
    role: str                     # one of ROLES
    organisation_id: int | None   # explorers: their organisation
    commission_body: str | None   # 'navy' | 'culture' for commission roles
    office_code: str | None = None  # office officers: their office (offices.code)

    @property
    def is_commission(self) -> bool:
        return self.role in COMMISSION_ROLES

    @property
    def role_label(self) -> str:
        return ROLE_LABELS.get(self.role, self.role)


# -- access policy ----------------------------------------------------------------
_READERS = ("commission", "commission_president", "dpc", "officer", "explorer")
# DPC's work that an office officer does too, on its own office's records (the scopes below narrow it)
_AUTHORITY = ("dpc", "officer")
PAGES_BY_ROLE: dict[str, tuple[str, ...]] = {
    # explorers: organisations, inventory, decisions, statements… show their own only (the store scopes rows)
    "commission": ("overview", "notices", "wrecks", "organisations", "inventory", "commission", "rates"),
    "commission_president": ("overview", "notices", "wrecks", "organisations", "inventory", "commission", "rates"),
    "dpc": ("overview", "notices", "deadlines", "filings", "calendar", "domain", "wrecks", "organisations", "inventory",
            "custody", "found_things", "commission", "rates", "decisions", "contract_terms", "selection",
            "survey_costs", "statements", "policies", "subscriptions", "documents", "contracts", "offices",
            "calendar_records"),
    # an office officer: its own office's records (the store scopes the rows); no policy, statement or terms
    "officer": ("overview", "notices", "deadlines", "filings", "calendar", "domain", "wrecks", "organisations",
                "contracts", "inventory", "custody", "found_things", "decisions", "statements", "subscriptions",
                "documents", "offices"),
    "explorer": ("overview", "notices", "deadlines", "filings", "calendar", "wrecks", "organisations", "inventory",
                 "custody", "decisions", "survey_costs", "statements", "subscriptions", "documents"),
    "admin": ("overview", "notices", "users", "audit", "jobs", "offices"),
}


# What each role may do in the store (the query functions call `require`), one record per action:
# its key, the roles that may perform it, and its pt-BR label (how a refusal names it: "o perfil …
# não permite <label>"). PERMISSIONS and ACTION_LABELS derive from this table.
@dataclass(frozen=True)
class Permission:
    """One action of the store: `require(user, key)` lets `roles` through and names `label` when it refuses."""

    key: str
    roles: tuple[str, ...]
    label: str


PERMISSION_TABLE: tuple[Permission, ...] = (
    Permission("read_offices", ROLES, "consultar as Capitanias"),
    # the directory of offices (reference data shipped with the product): its maintenance
    Permission("manage_offices", ("admin", "dpc"), "cadastrar, corrigir e encerrar Capitanias"),
    Permission("read_wrecks", _READERS, "consultar naufrágios"),
    Permission("create_wreck", ("dpc", "officer"), "cadastrar naufrágios"),
    Permission("read_organisations", _READERS, "consultar empresas"),
    Permission("create_organisation", ("dpc", "officer"), "cadastrar empresas"),
    Permission("read_owners", ("dpc", "officer"), "consultar responsáveis"),
    Permission("create_owner", ("dpc", "officer"), "cadastrar responsáveis"),
    # corrections of the registry (a new version with its reason; an office officer: its office's records)
    Permission("correct_registry", _AUTHORITY, "corrigir registros do cadastro"),
    # contracts and authorisations: DPC elaborates, signs and issues them (NORMAM-10 (ed. 2002) 0301–0303)
    Permission("register_contracts", ("dpc",), "cadastrar contratos e autorizações"),
    Permission("correct_contracts", ("dpc",), "corrigir contratos e registrar atos de situação"),
    # the logins of a company's representatives: its office (or DPC) creates and disables them
    Permission("manage_company_users", _AUTHORITY, "administrar os usuários das empresas"),
    Permission("read_contracts", _READERS, "consultar contratos"),
    Permission("read_items", _READERS, "consultar bens resgatados"),
    Permission("read_overview", ROLES, "ver a visão geral"),
    Permission("manage_users", ("admin",), "administrar usuários"),
    Permission("read_audit", ("admin",), "consultar o registro de auditoria"),
    # issue 4 (inventory): explorers import into their own contracts only (the store checks the organisation)
    Permission("import_items", ("dpc", "officer", "explorer"), "importar bens resgatados"),
    Permission("read_custody", ("dpc", "officer", "explorer"), "consultar a custódia dos bens"),
    Permission("record_deliveries", ("dpc", "officer"), "registrar entregas à Autoridade Naval"),
    Permission("read_found_things", ("dpc", "officer"), "consultar coisas achadas"),
    Permission("manage_found_things", ("dpc", "officer"), "registrar coisas achadas"),
    # issue 5 (partition): explorers read their own issued statements and file their own cost sheets
    Permission("read_statements", ("dpc", "officer", "explorer"), "consultar demonstrativos de partilha"),
    Permission("file_survey_costs", ("dpc", "officer", "explorer"), "registrar planilhas de custos de pesquisa"),
    Permission("record_inspection_expenses", ("dpc", "officer", "explorer"), "registrar despesas de fiscalização"),
    # issue 12 (partition): one key per action of valuation.partition
    # contract terms, rubric, salvage award, compensation
    Permission("manage_terms", ("dpc",), "registrar os termos de pagamento dos contratos"),
    # the União's choice: pools, locks, stored runs
    Permission("choose_items", ("dpc",), "registrar a escolha da União"),
    # compute, draft and issue statements
    Permission("issue_statements", ("dpc",), "gerar e emitir demonstrativos de partilha"),
    # drafts (explorers read only issued statements, their own)
    Permission("read_statement_drafts", ("dpc",), "consultar rascunhos de demonstrativos"),
    # spending above the survey cost sheet (NORMAM-10 0303 c 2 I)
    Permission("approve_survey_overruns", ("dpc",), "aprovar excesso de gastos de pesquisa"),
    # issue 12 (inventory): explorers read only the published decisions on their items
    Permission("read_unpublished_values", ("commission", "commission_president", "dpc"),
               "consultar decisões ainda não publicadas"),
    # issue 11 (policies page): the DPC reads and changes the policies
    Permission("read_policies", ("dpc",), "consultar as políticas"),
    Permission("manage_policies", ("dpc",), "alterar as políticas"),
    # issue 12 (deadlines, calendars, registry): one key per action of valuation.deadlines / registry
    # explorers: their own contracts' deadlines (contract_scope)
    Permission("read_deadlines", ("dpc", "officer", "explorer"), "consultar prazos"),
    # wreck-, office- and event-level deadlines, every company
    Permission("read_all_deadlines", ("dpc", "officer"), "consultar os prazos de todas as empresas e Capitanias"),
    # explorers: their own contracts' reports and appeals
    Permission("record_deadline_events", ("dpc", "officer", "explorer"), "registrar eventos de prazos"),
    # every event kind, waivers
    Permission("manage_deadlines", ("dpc", "officer"), "registrar eventos da Autoridade Naval e dispensar prazos"),
    # a private calendar feed of the deadlines the user reads
    Permission("subscribe_deadlines", ("dpc", "officer", "explorer"), "assinar o calendário de prazos"),
    # municipal holidays and early closings of the offices
    Permission("manage_calendars", ("dpc",), "alterar feriados municipais e encerramentos antecipados"),
    Permission("read_domain_status", ("dpc", "officer"), "consultar o domínio dos naufrágios"),
    Permission("read_removal_orders", ("dpc", "officer"), "consultar determinações de remoção"),
    Permission("manage_removal_orders", ("dpc",), "registrar determinações de remoção"),
    # issue 26 §3: process numbers (NUP, Portaria Interministerial MJSP/ME 11/2019); what a NUP finds is read
    # with the permission of the record it numbers (valuation.process.cases)
    Permission("find_by_nup", _READERS, "buscar processo pelo NUP"),
    Permission("manage_protocol_units", ("dpc",), "cadastrar unidades protocolizadoras (NUP)"),
    Permission("manage_owner_balances", ("dpc",), "registrar saldos do responsável"),
    Permission("read_preference", ("dpc", "officer"), "consultar a preferência entre pedidos"),
    Permission("record_co_signature", ("dpc",), "registrar a coassinatura do Ministério da Cultura"),
    # issue 25: the registry's records of Lei 7.542 arts. 8, 13 §1 and 14, and of Constituição art. 20 X
    Permission("manage_archaeological_sites", ("dpc",), "registrar sítios arqueológicos"),
    Permission("manage_cessions", ("dpc", "officer"), "registrar cessões e pedidos dos responsáveis"),
    Permission("manage_cargo", ("dpc", "officer"), "registrar a carga e o seu responsável"),
    # issue 26: requests to the Authority and the periods of Lei 9.784/1999 (explorers: their own company's)
    Permission("read_requests", ("dpc", "officer", "explorer"), "consultar requerimentos e os prazos da Autoridade"),
    Permission("read_all_requests", ("dpc", "officer"), "consultar os requerimentos de todas as empresas"),
    Permission("manage_requests", ("dpc", "officer"), "registrar requerimentos e as etapas do processo"),
    # issue 42 item 1: a company's representative files in the system (its own company's processes)
    Permission("file_filings", ("explorer",), "protocolar requerimentos e documentos (peticionamento eletrônico)"),
    # issue 26 §2: the Authority's decisions and the appeals against them (read with read_requests, same scope)
    Permission("manage_appeals", ("dpc",), "registrar decisões administrativas e recursos"),
    # issue 42 item 5: a step or event recorded by mistake is annulled with its reason, never deleted (Lei 9.784/1999
    # arts. 50 and 53) — by whoever may record it, in its scope (an office officer: its office's), never a company
    Permission("annul_records", ("dpc", "officer"), "anular etapas e eventos registrados por engano"),
    # explorers read only their own organisation's row
    Permission("read_representative_cpf", ("dpc", "officer", "explorer"), "consultar o CPF do representante"),
    # issue 16 (attached files): the owner row decides which rows (attachment_owner_scope, may_attach)
    Permission("read_attachments", _READERS, "consultar arquivos anexados"),  # the files of the rows the user may read
    # explorers: EXPLORER_ATTACH_KINDS on their own rows
    Permission("attach_files", ("dpc", "officer", "explorer"), "anexar este arquivo"),
    # every kind, every owner row, wrecks included
    Permission("attach_any_file", ("dpc", "officer"), "anexar arquivos a qualquer registro"),
    # a ZIP of photos for a contract's items
    Permission("attach_photos", ("dpc", "officer", "explorer"), "anexar fotos"),
    # the SHA-256 of the file as uploaded (proof)
    Permission("read_original_checksums", ("dpc", "officer"), "consultar o SHA-256 do arquivo original"),
    Permission("read_minutes_photos", ("commission", "commission_president", "dpc"), "consultar as atas da Comissão"),
    # issue 12 (commission): one key per action of valuation.commission
    # every round, any status (explorers: the next key)
    Permission("read_rounds", (*COMMISSION_ROLES, "dpc"), "consultar as rodadas da Comissão"),
    # explorers: their own contracts'
    Permission("read_published_decisions", (*COMMISSION_ROLES, "dpc", "officer", "explorer"),
               "consultar decisões da Comissão"),
    Permission("enter_assessments", COMMISSION_ROLES, "registrar avaliações"),  # a member's own votes and values
    Permission("read_own_assessments", COMMISSION_ROLES, "consultar avaliações próprias"),
    Permission("open_rounds", ("commission_president",), "abrir rodadas de avaliação"),
    Permission("close_rounds", ("commission_president",), "encerrar rodadas"),
    Permission("record_decisions", ("commission_president",), "registrar decisões"),
    Permission("publish_decisions", ("commission_president",), "publicar decisões"),
    # entries per member, never a value
    Permission("follow_round_progress", ("commission_president", "dpc"), "acompanhar o andamento da rodada"),
    # after the close; members see pseudonyms
    Permission("read_member_names", ("dpc",), "ver os nomes dos membros junto das avaliações"),
    Permission("read_agreement", (*COMMISSION_ROLES, "dpc"), "consultar a concordância da Comissão"),
    Permission("make_minutes", (*COMMISSION_ROLES, "dpc"), "gerar a ata da Comissão"),
    # issue 27 §2: a signed PDF of an issued act sent back; the verifier decides whose signature counts
    Permission("upload_signed_document", (*COMMISSION_ROLES, "dpc"), "enviar documento assinado eletronicamente"),
    Permission("read_comparables", (*COMMISSION_ROLES, "dpc"), "consultar decisões de outros contratos"),
    Permission("read_comparable_flags", ("commission_president", "dpc"), "consultar os sinais de comparáveis"),
    Permission("read_rates", (*COMMISSION_ROLES, "dpc"), "consultar cotações"),
    Permission("add_rates", ("commission_president", "dpc"), "cadastrar cotações"),
    Permission("import_rates", ("commission_president", "dpc"), "importar cotações"),
    # issue 42 item 4: each person's notices (Avisos) — every role has an inbox; the rows are the person's own
    Permission("read_own_notices", ROLES, "consultar os próprios avisos"),
    Permission("manage_own_notices", ROLES, "marcar os próprios avisos como lidos e escolher como recebê-los"),
)
PERMISSIONS: dict[str, tuple[str, ...]] = {p.key: p.roles for p in PERMISSION_TABLE}
ACTION_LABELS: dict[str, str] = {p.key: p.label for p in PERMISSION_TABLE}


def role_allows(role: str | None, action: str) -> bool:
    """True when `role` may perform `action` (a key of PERMISSIONS): for a role being assigned."""
    return role in PERMISSIONS.get(action, ())


def allowed(user: Principal, action: str) -> bool:
    """True when the user's role may perform `action` (a key of PERMISSIONS)."""
    return role_allows(user.role, action)


def needs_organisation(role: str | None) -> bool:
    """Does a user of `role` belong to one organisation (its rows scoped to it)? Explorers do."""
    return role == "explorer"


def needs_commission_body(role: str | None) -> bool:
    """Does a user of `role` sit for a body on the Commission (navy or culture)?"""
    return role in COMMISSION_ROLES


def presides(role: str | None) -> bool:
    """Does a user of `role` preside over the Commission (one president, a Navy member: the panel's rules)?"""
    return role == "commission_president"


def needs_office(role: str | None) -> bool:
    """Is a user of `role` bound to one office (its rows scoped to it)? Office officers are."""
    return role == "officer"


def office_of(user: Principal) -> str | None:
    """The office `user` is bound to (an office officer's), None for a national role. An officer without an
    office (the schema refuses one) is bound to the empty code, which matches no row."""
    return (user.office_code or "") if needs_office(user.role) else None


def chosen_office(user: Principal, asked: str | None) -> str | None:
    """The office a read is about: an office officer's own, whatever it asked for; for anyone else what it
    asked for (None: every office)."""
    bound = office_of(user)
    return asked if bound is None else bound


def office_cleared(user: Principal, office_code: str | None) -> bool:
    """May `user` act on a row of `office_code`? A national role, any office; an office officer, its own."""
    bound = office_of(user)
    return bound is None or office_code == bound


def office_scope(user: Principal, alias: str, column: str = "office_code") -> tuple[str, list[Any]]:
    """(predicate over rows `alias` that carry an office code in `column`, params): an office officer's own
    office's rows; every row for anyone else (their other scopes apply apart)."""
    return office_match(user, f"{alias}.{column}")


def office_match(user: Principal, expr: str) -> tuple[str, list[Any]]:
    """(predicate, params): the SQL expression `expr` (an office code: a row's own, or the one it takes from its
    contract or wreck) is the office officer's office; TRUE for anyone else."""
    bound = office_of(user)
    if bound is None:
        return "TRUE", []
    return f"{expr} = ?", [bound]


def answers_for_offices(role: str | None) -> bool:
    """Does a user of `role` answer for some offices (user_offices: the daily deadline digest of each)?
    DPC management does."""
    return role == "dpc"


def signs_acts(role: str | None) -> bool:
    """Does a user of `role` sign the system's acts (the Commission's minutes and decisions: its members and
    president; statements and the institutional signature: DPC)? A gov.br login of such a role needs the account
    level the policy `govbr_min_level_signers` requires (valuation.accounts.govbr)."""
    return role in (*COMMISSION_ROLES, "dpc")


def is_role(role: object) -> bool:
    """Is `role` one of ROLES (a role being assigned)?"""
    return isinstance(role, str) and role in ROLES


def deny(user: Principal, action: str) -> NoReturn:
    """Raise AccessDenied (pt-BR) naming `action` (for a rule finer than the role: kind, row)."""
    label = ACTION_LABELS.get(action, action)
    raise AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite {label}.",
                       user=user.username, action=action)


def require(user: Principal, action: str) -> None:
    """Raise AccessDenied (pt-BR) unless the user's role may perform `action`."""
    if not allowed(user, action):
        deny(user, action)


# -- own company (an explorer's rows) ---------------------------------------------------------
def own_organisation(user: Principal, organisation_id: int | None) -> bool:
    """Is `organisation_id` the user's own organisation? Never for a user without one (only
    explorers have one) nor for a row without one."""
    return user.organisation_id is not None and organisation_id == user.organisation_id


def require_own(user: Principal, organisation_id: int | None, missing: Exception) -> None:
    """Raise `missing` (a NotFound naming the row: another company's row answers as a missing one)
    unless `organisation_id` is the user's own organisation (None: the row does not exist)."""
    if not own_organisation(user, organisation_id):
        raise missing


def organisation_cleared(user: Principal, organisation_id: int | None, office_code: str | None = None) -> bool:
    """May `user` read a row that belongs to `organisation_id` (a contract's holder) and `office_code` (the
    contract's office)? Explorers only their own organisation's; office officers only their office's; the other
    roles as their permissions say (checked apart)."""
    if needs_organisation(user.role):
        return own_organisation(user, organisation_id)
    return office_cleared(user, office_code)


def own_scope(user: Principal, alias: str = "c") -> tuple[str, list[Any]]:
    """(predicate over rows `alias` that carry an organisation_id, params): the rows of the user's
    own organisation; FALSE for a user without one."""
    if user.organisation_id is None:
        return "FALSE", []
    return f"{alias}.organisation_id = ?", [user.organisation_id]


def request_scope(user: Principal, alias: str = "p") -> tuple[str, list[Any]]:
    """(predicate over rows `alias` of the administrative process — `requests`, `administrative_decisions` —
    that carry the interested company's organisation_id, params): every row for a user allowed
    `read_all_requests` (dpc), its own organisation's for anyone else (explorers), none for a role that may not
    read requests."""
    if allowed(user, "read_all_requests"):
        return office_scope(user, alias)
    if not allowed(user, "read_requests"):
        return "FALSE", []
    return own_scope(user, alias)


def chosen_organisation(user: Principal, asked: int | None, *, any_with: str) -> int | None:
    """The organisation a request is about: for a user allowed `any_with` (an action over every
    company) the one it asked for (None: no one in particular); for anyone else its own, whatever
    it asked for."""
    return asked if allowed(user, any_with) else user.organisation_id


# -- users by role or company (recipients of mail, the Commission's panel) ------------------
def users_with_roles(roles: Collection[str], alias: str = "u") -> tuple[str, list[Any]]:
    """(predicate over users `alias`, params): the users whose role is one of `roles`."""
    chosen = tuple(roles)
    if not chosen:
        return "FALSE", []
    return f"{alias}.role IN ({', '.join('?' for _ in chosen)})", list(chosen)


def users_allowed(action: str, alias: str = "u") -> tuple[str, list[Any]]:
    """(predicate over users `alias`, params): the users whose role may perform `action`."""
    return users_with_roles(PERMISSIONS.get(action, ()), alias)


def users_of_office(office_code: str, alias: str = "u") -> tuple[str, list[Any]]:
    """(predicate over users `alias`, params): the users who answer for `office_code` — its officers, and the
    headquarters users who chose to follow it (user_offices)."""
    return (f"({alias}.office_code = ? OR {alias}.id IN (SELECT user_id FROM user_offices WHERE office_code = ?))",
            [office_code, office_code])


def national_users(alias: str = "u") -> tuple[str, list[Any]]:
    """(predicate over users `alias`, params): the users who answer for no office in particular (headquarters)."""
    return (f"({alias}.office_code IS NULL AND NOT EXISTS (SELECT 1 FROM user_offices uo "
            f"WHERE uo.user_id = {alias}.id))", [])


def users_of_organisation(organisation_id: int, alias: str = "u") -> tuple[str, list[Any]]:
    """(predicate over users `alias`, params): the users who act for `organisation_id` (explorers)."""
    return f"{alias}.organisation_id = ?", [organisation_id]


def named_people_scope(user: Principal, alias: str = "u") -> tuple[str, list[Any]]:
    """(predicate over users `alias`, params): the people whose name `user` may read beside what they recorded
    (a rate, a delivery, a statement): everyone for the public servants and the admin; for an explorer, the
    public servants and the people of its own company — never another company's staff."""
    if not needs_organisation(user.role):
        return "TRUE", []
    explorers = [r for r in ROLES if needs_organisation(r)]
    return (f"({alias}.role NOT IN ({', '.join('?' for _ in explorers)}) OR {alias}.organisation_id = ?)",
            [*explorers, user.organisation_id])


# -- pages and positions -------------------------------------------------------------------------


def may_view_page(user: Principal, page_key: str) -> bool:
    """True when the navigation should offer `page_key` to this user's role."""
    return page_key in PAGES_BY_ROLE.get(user.role, ())


def position_cleared(user: Principal, *, contract_organisation_ids: Collection[int],
                     under_assessment: bool, wreck_office: str | None = None) -> bool:
    """May this user see a wreck's position? (rules.md §8; NORMAM-10 0105 and 0403 a)

    `contract_organisation_ids`: the organisations holding a contract on the wreck;
    `under_assessment`: some contract on the wreck has recovered items before the
    commission; `wreck_office`: the wreck's office. dpc: always; an office officer: the wrecks of its
    office; commission roles: when under assessment; explorer: when its organisation holds a contract
    on the wreck; admin and anyone else: never.
    The store applies the same rule in SQL (`position_scope`).
    """
    if user.role == "dpc":
        return True
    if needs_office(user.role):
        return wreck_office is not None and office_cleared(user, wreck_office)
    if user.role in COMMISSION_ROLES:
        return under_assessment
    if user.role == "explorer":
        return user.organisation_id is not None and user.organisation_id in set(contract_organisation_ids)
    return False


# Contract ids under assessment (commission workload).
UNDER_ASSESSMENT = "SELECT DISTINCT contract_id FROM items"


def contract_scope(user: Principal, alias: str = "c") -> tuple[str, list[Any]]:
    """(predicate over contracts `alias`, params): which contracts `user` may read."""
    require(user, "read_contracts")
    if user.role == "dpc":
        return "TRUE", []
    if needs_office(user.role):
        return office_scope(user, alias)
    if user.role == "explorer":
        return f"{alias}.organisation_id = ?", [user.organisation_id]
    if user.role in COMMISSION_ROLES:
        return f"{alias}.id IN ({UNDER_ASSESSMENT})", []
    raise AccessDenied(user=user.username, action="read_contracts")


def position_scope(user: Principal, alias: str = "w") -> tuple[str, list[Any]]:
    """(boolean SQL expression over wrecks `alias`, params): is the position cleared? (rules.md §8)"""
    if user.role == "dpc":
        return "TRUE", []
    if needs_office(user.role):
        return office_scope(user, alias)
    if user.role == "explorer":
        return f"({alias}.id IN (SELECT wreck_id FROM contracts WHERE organisation_id = ?))", [user.organisation_id]
    if user.role in COMMISSION_ROLES:
        return f"({alias}.id IN (SELECT wreck_id FROM contracts WHERE id IN ({UNDER_ASSESSMENT})))", []
    return "FALSE", []


def scope_name(user: Principal) -> str:
    """The name of the user's contract scope: 'all' (dpc), 'own_office' (office officers),
    'under_assessment' (commission roles), 'own_organisation' (explorer); AccessDenied for a role that
    reads no contract."""
    require(user, "read_contracts")
    if user.role == "dpc":
        return "all"
    if needs_office(user.role):
        return "own_office"
    return "under_assessment" if user.role in COMMISSION_ROLES else "own_organisation"


def organisation_scope(user: Principal, alias: str = "o") -> tuple[str, list[Any]]:
    """(predicate over organisations `alias`, params): explorers see only their own; an office officer the
    companies registered at its office or holding a contract or a request there."""
    require(user, "read_organisations")
    if user.role == "explorer":
        return f"{alias}.id = ?", [user.organisation_id]
    office = office_of(user)
    if office is not None:
        return (f"({alias}.office_code = ? OR {alias}.id IN (SELECT organisation_id FROM contracts WHERE "
                f"office_code = ?) OR {alias}.id IN (SELECT organisation_id FROM requests WHERE office_code = ? "
                "AND organisation_id IS NOT NULL))", [office, office, office])
    return "TRUE", []


# -- attached files (issue 16 §4): the owner row decides ------------------------------
# Reading follows the owner through `contract_scope`: item (dpc; explorer its own contracts' items;
# commission roles items under assessment), deadline_event and contract (dpc; explorer its own),
# wreck (dpc only); admin nothing. Attaching: dpc everything; an explorer the kinds below on its own
# contracts' rows; the commission nothing. The owner kinds name their tables.
ATTACHMENT_OWNER_TABLES: dict[str, str] = {"item": "items", "deadline_event": "deadline_events",
                                           "contract": "contracts", "wreck": "wrecks"}
EXPLORER_ATTACH_KINDS: dict[str, tuple[str, ...]] = {"item": ("photo",), "deadline_event": ("report",),
                                                     "contract": ("cost_sheet",)}
_NO_ROWS: tuple[str, list[Any]] = ("SELECT NULL::BIGINT WHERE FALSE", [])


def may_attach(user: Principal, owner_kind: str, kind: str | None = None) -> bool:
    """May the user attach a `kind` file (any kind when None) to some `owner_kind` row? The row's
    organisation is checked by the caller (valuation.attachments.owners.require_attach)."""
    if allowed(user, "attach_any_file"):
        return True
    kinds = EXPLORER_ATTACH_KINDS.get(owner_kind, ()) if allowed(user, "attach_files") else ()
    return bool(kinds) if kind is None else kind in kinds


def attachment_owner_scope(user: Principal, owner_kind: str) -> tuple[str, list[Any]]:
    """(SQL selecting the ids of `owner_kind` rows whose files the user may read, params);
    'SELECT NULL WHERE FALSE' when none."""
    if user.role == "dpc":
        return f"SELECT id FROM {ATTACHMENT_OWNER_TABLES[owner_kind]}", []
    if needs_office(user.role):
        return _office_owner_rows(user, owner_kind)
    if not allowed(user, "read_attachments") or owner_kind == "wreck":
        return _NO_ROWS
    if user.role in COMMISSION_ROLES and owner_kind != "item":
        return _NO_ROWS
    scope, params = contract_scope(user, "c")
    if owner_kind == "item":
        return f"SELECT i.id FROM items i JOIN contracts c ON c.id = i.contract_id WHERE {scope}", params
    if owner_kind == "deadline_event":
        return (f"SELECT e.id FROM deadline_events e JOIN contracts c ON c.id = e.contract_id WHERE {scope}",
                params)
    return f"SELECT c.id FROM contracts c WHERE {scope}", params


def _office_owner_rows(user: Principal, owner_kind: str) -> tuple[str, list[Any]]:
    """An office officer's owner rows: those of its office — a wreck's jurisdiction, a contract's office, an
    event's contract, wreck or office."""
    office = [office_of(user)]
    if owner_kind == "wreck":
        return "SELECT w.id FROM wrecks w WHERE w.office_code = ?", office
    if owner_kind == "item":
        return "SELECT i.id FROM items i JOIN contracts c ON c.id = i.contract_id WHERE c.office_code = ?", office
    if owner_kind == "deadline_event":
        return ("SELECT e.id FROM deadline_events e LEFT JOIN contracts c ON c.id = e.contract_id "
                "LEFT JOIN wrecks w ON w.id = e.wreck_id "
                "WHERE coalesce(c.office_code, w.office_code, e.office_code) = ?", office)
    return "SELECT c.id FROM contracts c WHERE c.office_code = ?", office


def attachment_scope(user: Principal, alias: str = "a") -> tuple[str, list[Any]]:
    """(boolean SQL over attachments `alias`, params): may the user read this row?"""
    if user.role == "dpc":
        return "TRUE", []
    parts: list[str] = []
    params: list[Any] = []
    for kind in ATTACHMENT_OWNER_TABLES:
        sql, p = attachment_owner_scope(user, kind)
        if "WHERE FALSE" in sql:
            continue
        parts.append(f"({alias}.owner_kind = '{kind}' AND {alias}.owner_id IN ({sql}))")
        params += p
    return ("(" + " OR ".join(parts) + ")" if parts else "FALSE"), params
