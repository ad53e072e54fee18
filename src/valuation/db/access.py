"""Who may see and change what: the one place that decides (roles, permissions, row scopes).

Roles (README "Roles"):

    commission            reads the contracts under assessment, their items, their wrecks' positions
    commission_president  as commission; opens and closes rounds, records decisions
    dpc                   management: reads everything, positions included; creates wrecks, owners, organisations
    explorer              only its own organisation: its contracts and items, the positions of its own wrecks
    admin                 users and the audit log only: no wreck, contract, item or position

Every function that reads or writes on behalf of a user takes the `Principal` and calls
`require(user, action)` (PERMISSIONS names every action), and the role-scoped queries build their
WHERE clause from `contract_scope` / `position_scope` / `organisation_scope`, so the rule lives here
alone; `PAGES_BY_ROLE` only decides which pages the navigation offers (a page checks again).

Positions (Lei 7.542 art. 3 sole paragraph is silent; NORMAM-10 0105: "sigilo confidencial acerca da
posição dos bens e coisas afundados, quando localizados") — `position_cleared` and its SQL twin
`position_scope`: dpc every wreck; commission roles the wrecks of contracts under assessment
(contracts with recovered items); explorer the wrecks of its own organisation's contracts; admin none.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, NoReturn

from valuation.core.errors import AccessDenied

ROLES: tuple[str, ...] = ("commission", "commission_president", "dpc", "explorer", "admin")
COMMISSION_ROLES: tuple[str, ...] = ("commission", "commission_president")
ROLE_LABELS: dict[str, str] = {
    "commission": "Comissão",
    "commission_president": "Presidente da Comissão",
    "dpc": "DPC (gestão)",
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

    @property
    def is_commission(self) -> bool:
        return self.role in COMMISSION_ROLES

    @property
    def role_label(self) -> str:
        return ROLE_LABELS.get(self.role, self.role)


# -- access policy ----------------------------------------------------------------
_READERS = ("commission", "commission_president", "dpc", "explorer")
PAGES_BY_ROLE: dict[str, tuple[str, ...]] = {
    # explorers: organisations, inventory, decisions, statements… show their own only (the store scopes rows)
    "commission": ("overview", "wrecks", "organisations", "inventory", "commission", "rates"),
    "commission_president": ("overview", "wrecks", "organisations", "inventory", "commission", "rates"),
    "dpc": ("overview", "deadlines", "calendar", "domain", "wrecks", "organisations", "inventory", "custody",
            "found_things", "commission", "rates", "decisions", "contract_terms", "selection", "survey_costs",
            "statements", "policies", "subscriptions", "documents"),
    "explorer": ("overview", "deadlines", "calendar", "wrecks", "organisations", "inventory", "custody", "decisions",
                 "survey_costs", "statements", "subscriptions", "documents"),
    "admin": ("overview", "users", "audit", "jobs"),
}


# What each role may do in the store; the query functions call `require`.
PERMISSIONS: dict[str, tuple[str, ...]] = {
    "read_offices": ROLES,
    "read_wrecks": _READERS,
    "create_wreck": ("dpc",),
    "read_organisations": _READERS,
    "create_organisation": ("dpc",),
    "read_owners": ("dpc",),
    "create_owner": ("dpc",),
    "read_contracts": _READERS,
    "read_items": _READERS,
    "read_overview": ROLES,
    "manage_users": ("admin",),
    "read_audit": ("admin",),
    # issue 4 (inventory): explorers import into their own contracts only (the store checks the organisation)
    "import_items": ("dpc", "explorer"),
    "read_custody": ("dpc", "explorer"),
    "record_deliveries": ("dpc",),
    "read_found_things": ("dpc",),
    "manage_found_things": ("dpc",),
    # issue 5 (partition): explorers read their own issued statements and file their own cost sheets
    "read_statements": ("dpc", "explorer"),
    "file_survey_costs": ("dpc", "explorer"),
    "record_inspection_expenses": ("dpc", "explorer"),
    # issue 12 (partition): one key per action of valuation.partition
    "manage_terms": ("dpc",),                 # contract terms, rubric, salvage award, compensation
    "choose_items": ("dpc",),                 # the União's choice: pools, locks, stored runs
    "issue_statements": ("dpc",),             # compute, draft and issue statements
    "read_statement_drafts": ("dpc",),        # drafts (explorers read only issued statements, their own)
    "approve_survey_overruns": ("dpc",),      # spending above the survey cost sheet (NORMAM-10 0303 c 2 I)
    # issue 12 (inventory): explorers read only the published decisions on their items
    "read_unpublished_values": ("commission", "commission_president", "dpc"),
    # issue 11 (policies page): the DPC reads and changes the policies
    "read_policies": ("dpc",),
    "manage_policies": ("dpc",),
    # issue 12 (deadlines, calendars, registry): one key per action of valuation.deadlines / registry
    "read_deadlines": ("dpc", "explorer"),              # explorers: their own contracts' deadlines (contract_scope)
    "read_all_deadlines": ("dpc",),                     # wreck-, office- and event-level deadlines, every company
    "record_deadline_events": ("dpc", "explorer"),      # explorers: their own contracts' reports and appeals
    "manage_deadlines": ("dpc",),                       # every event kind, waivers
    "subscribe_deadlines": ("dpc", "explorer"),         # a private calendar feed of the deadlines the user reads
    "manage_calendars": ("dpc",),                       # municipal holidays and early closings of the offices
    "read_domain_status": ("dpc",),
    "read_removal_orders": ("dpc",),
    "manage_removal_orders": ("dpc",),
    "manage_owner_balances": ("dpc",),
    "read_preference": ("dpc",),
    "record_co_signature": ("dpc",),
    "read_representative_cpf": ("dpc", "explorer"),     # explorers read only their own organisation's row
    # issue 16 (attached files): the owner row decides which rows (attachment_owner_scope, may_attach)
    "read_attachments": _READERS,                       # the files of the rows the user may read
    "attach_files": ("dpc", "explorer"),                # explorers: EXPLORER_ATTACH_KINDS on their own rows
    "attach_any_file": ("dpc",),                        # every kind, every owner row, wrecks included
    "attach_photos": ("dpc", "explorer"),               # a ZIP of photos for a contract's items
    "read_original_checksums": ("dpc",),                # the SHA-256 of the file as uploaded (proof)
    "read_minutes_photos": ("commission", "commission_president", "dpc"),
    # issue 12 (commission): one key per action of valuation.commission
    "read_rounds": (*COMMISSION_ROLES, "dpc"),          # every round, any status (explorers: the next key)
    "read_published_decisions": (*COMMISSION_ROLES, "dpc", "explorer"),  # explorers: their own contracts'
    "enter_assessments": COMMISSION_ROLES,              # a member's own votes and values
    "read_own_assessments": COMMISSION_ROLES,
    "open_rounds": ("commission_president",),
    "close_rounds": ("commission_president",),
    "record_decisions": ("commission_president",),
    "publish_decisions": ("commission_president",),
    "follow_round_progress": ("commission_president", "dpc"),   # entries per member, never a value
    "read_member_names": ("dpc",),                      # after the close; members see pseudonyms
    "read_agreement": (*COMMISSION_ROLES, "dpc"),
    "make_minutes": (*COMMISSION_ROLES, "dpc"),
    "read_comparables": (*COMMISSION_ROLES, "dpc"),
    "read_comparable_flags": ("commission_president", "dpc"),
    "read_rates": (*COMMISSION_ROLES, "dpc"),
    "add_rates": ("commission_president", "dpc"),
    "import_rates": ("commission_president", "dpc"),
}
_ACTION_LABELS: dict[str, str] = {
    "manage_terms": "registrar os termos de pagamento dos contratos",
    "choose_items": "registrar a escolha da União",
    "issue_statements": "gerar e emitir demonstrativos de partilha",
    "read_statement_drafts": "consultar rascunhos de demonstrativos",
    "approve_survey_overruns": "aprovar excesso de gastos de pesquisa",
    "read_unpublished_values": "consultar decisões ainda não publicadas",
    "read_statements": "consultar demonstrativos de partilha",
    "file_survey_costs": "registrar planilhas de custos de pesquisa",
    "record_inspection_expenses": "registrar despesas de fiscalização",
    "import_items": "importar bens resgatados",
    "read_custody": "consultar a custódia dos bens",
    "record_deliveries": "registrar entregas à Autoridade Naval",
    "read_found_things": "consultar coisas achadas",
    "manage_found_things": "registrar coisas achadas",
    "read_offices": "consultar as Capitanias",
    "read_wrecks": "consultar naufrágios",
    "create_wreck": "cadastrar naufrágios",
    "read_organisations": "consultar empresas",
    "create_organisation": "cadastrar empresas",
    "read_owners": "consultar responsáveis",
    "create_owner": "cadastrar responsáveis",
    "read_contracts": "consultar contratos",
    "read_items": "consultar bens resgatados",
    "read_overview": "ver a visão geral",
    "manage_users": "administrar usuários",
    "read_audit": "consultar o registro de auditoria",
    "read_policies": "consultar as políticas",
    "manage_policies": "alterar as políticas",
    "read_deadlines": "consultar prazos",
    "read_all_deadlines": "consultar os prazos de todas as empresas e Capitanias",
    "record_deadline_events": "registrar eventos de prazos",
    "manage_deadlines": "registrar eventos da Autoridade Naval e dispensar prazos",
    "subscribe_deadlines": "assinar o calendário de prazos",
    "manage_calendars": "alterar feriados municipais e encerramentos antecipados",
    "read_domain_status": "consultar o domínio dos naufrágios",
    "read_removal_orders": "consultar determinações de remoção",
    "manage_removal_orders": "registrar determinações de remoção",
    "manage_owner_balances": "registrar saldos do responsável",
    "read_preference": "consultar a preferência entre pedidos",
    "record_co_signature": "registrar a coassinatura do Ministério da Cultura",
    "read_representative_cpf": "consultar o CPF do representante",
    "read_attachments": "consultar arquivos anexados",
    "attach_files": "anexar este arquivo",
    "attach_any_file": "anexar arquivos a qualquer registro",
    "attach_photos": "anexar fotos",
    "read_original_checksums": "consultar o SHA-256 do arquivo original",
    "read_minutes_photos": "consultar as atas da Comissão",
    "read_rounds": "consultar as rodadas da Comissão",
    "read_published_decisions": "consultar decisões da Comissão",
    "enter_assessments": "registrar avaliações",
    "read_own_assessments": "consultar avaliações próprias",
    "open_rounds": "abrir rodadas de avaliação",
    "close_rounds": "encerrar rodadas",
    "record_decisions": "registrar decisões",
    "publish_decisions": "publicar decisões",
    "follow_round_progress": "acompanhar o andamento da rodada",
    "read_member_names": "ver os nomes dos membros junto das avaliações",
    "read_agreement": "consultar a concordância da Comissão",
    "make_minutes": "gerar a ata da Comissão",
    "read_comparables": "consultar decisões de outros contratos",
    "read_comparable_flags": "consultar os sinais de comparáveis",
    "read_rates": "consultar cotações",
    "add_rates": "cadastrar cotações",
    "import_rates": "importar cotações",
}


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


def deny(user: Principal, action: str) -> NoReturn:
    """Raise AccessDenied (pt-BR) naming `action` (for a rule finer than the role: kind, row)."""
    label = _ACTION_LABELS.get(action, action)
    raise AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite {label}.",
                       user=user.username, action=action)


def require(user: Principal, action: str) -> None:
    """Raise AccessDenied (pt-BR) unless the user's role may perform `action`."""
    if not allowed(user, action):
        deny(user, action)


def organisation_cleared(user: Principal, organisation_id: int | None) -> bool:
    """May `user` read a row that belongs to `organisation_id` (a contract's holder)? Explorers
    only their own organisation's; the other roles as their permissions say (checked apart)."""
    return user.role != "explorer" or (user.organisation_id is not None and organisation_id == user.organisation_id)


def may_view_page(user: Principal, page_key: str) -> bool:
    """True when the navigation should offer `page_key` to this user's role."""
    return page_key in PAGES_BY_ROLE.get(user.role, ())


def position_cleared(user: Principal, *, contract_organisation_ids: Collection[int],
                     under_assessment: bool) -> bool:
    """May this user see a wreck's position? (rules.md §8; NORMAM-10 0105 and 0403 a)

    `contract_organisation_ids`: the organisations holding a contract on the wreck;
    `under_assessment`: some contract on the wreck has recovered items before the
    commission. dpc: always; commission roles: when under assessment; explorer: when
    its organisation holds a contract on the wreck; admin and anyone else: never.
    The store applies the same rule in SQL (`position_scope`).
    """
    if user.role == "dpc":
        return True
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
    if user.role == "explorer":
        return f"{alias}.organisation_id = ?", [user.organisation_id]
    if user.role in COMMISSION_ROLES:
        return f"{alias}.id IN ({UNDER_ASSESSMENT})", []
    raise AccessDenied(user=user.username, action="read_contracts")


def position_scope(user: Principal, alias: str = "w") -> tuple[str, list[Any]]:
    """(boolean SQL expression over wrecks `alias`, params): is the position cleared? (rules.md §8)"""
    if user.role == "dpc":
        return "TRUE", []
    if user.role == "explorer":
        return f"({alias}.id IN (SELECT wreck_id FROM contracts WHERE organisation_id = ?))", [user.organisation_id]
    if user.role in COMMISSION_ROLES:
        return f"({alias}.id IN (SELECT wreck_id FROM contracts WHERE id IN ({UNDER_ASSESSMENT})))", []
    return "FALSE", []


def scope_name(user: Principal) -> str:
    """The name of the user's contract scope: 'all' (dpc), 'under_assessment' (commission roles),
    'own_organisation' (explorer); AccessDenied for a role that reads no contract."""
    require(user, "read_contracts")
    if user.role == "dpc":
        return "all"
    return "under_assessment" if user.role in COMMISSION_ROLES else "own_organisation"


def organisation_scope(user: Principal, alias: str = "o") -> tuple[str, list[Any]]:
    """(predicate over organisations `alias`, params): explorers see only their own."""
    require(user, "read_organisations")
    if user.role == "explorer":
        return f"{alias}.id = ?", [user.organisation_id]
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
