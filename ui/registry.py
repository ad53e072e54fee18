"""The ordered page registry built into st.navigation (section → pages).

`key` is the access-policy key (`valuation.db.access.PAGES_BY_ROLE` says which roles are
offered it; a page reached by URL checks it again through `ui.session.guard`).
The page file is `pages/<key>.py`; a registered page whose file is not there
yet is left out of the navigation.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class PageSpec:
    key: str
    title: str
    icon: str
    section: str
    charts: bool = False      # draws a chart when opened (service/front_end_base.py imports the charts' code early)

    @property
    def path(self) -> str:
        return f"pages/{self.key}.py"

    def exists(self) -> bool:
        return (ROOT / self.path).is_file()


PAGES: tuple[PageSpec, ...] = (
    PageSpec("overview", "Visão geral", ":material/dashboard:", "Painel", charts=True),
    PageSpec("notices", "Avisos", ":material/notifications:", "Painel"),
    PageSpec("deadlines", "Prazos", ":material/event:", "Painel", charts=True),
    PageSpec("filings", "Protocolo", ":material/move_to_inbox:", "Painel"),
    PageSpec("calendar", "Calendário de dias úteis", ":material/calendar_month:", "Painel", charts=True),
    PageSpec("calendar_records", "Registros do calendário", ":material/edit_calendar:", "Painel"),
    PageSpec("subscriptions", "Assinatura de calendário", ":material/event_repeat:", "Painel"),
    PageSpec("domain", "Domínio dos naufrágios", ":material/gavel:", "Painel", charts=True),
    PageSpec("wrecks", "Naufrágios", ":material/sailing:", "Cadastro", charts=True),
    PageSpec("organisations", "Empresas", ":material/business:", "Cadastro"),
    PageSpec("contracts", "Contratos e autorizações", ":material/description:", "Cadastro"),
    PageSpec("offices", "Capitanias", ":material/anchor:", "Cadastro"),
    PageSpec("documents", "Documentos e fotos", ":material/folder_open:", "Cadastro"),
    PageSpec("inventory", "Inventário de bens", ":material/inventory_2:", "Bens resgatados", charts=True),
    PageSpec("custody", "Entrega e custódia", ":material/local_shipping:", "Bens resgatados", charts=True),
    PageSpec("found_things", "Achados", ":material/search:", "Bens resgatados"),
    PageSpec("commission", "Avaliação da Comissão", ":material/how_to_vote:", "Comissão"),
    PageSpec("rates", "Câmbio", ":material/currency_exchange:", "Comissão"),
    PageSpec("decisions", "Decisões publicadas", ":material/verified:", "Comissão"),
    PageSpec("contract_terms", "Termos do contrato", ":material/contract:", "Partilha"),
    PageSpec("selection", "Escolha da União", ":material/balance:", "Partilha"),
    PageSpec("survey_costs", "Custos de pesquisa", ":material/request_quote:", "Partilha", charts=True),
    PageSpec("statements", "Demonstrativos", ":material/receipt_long:", "Partilha"),
    PageSpec("policies", "Políticas", ":material/tune:", "Administração"),
    PageSpec("users", "Usuários", ":material/group:", "Administração"),
    PageSpec("audit", "Auditoria", ":material/fact_check:", "Administração"),
    PageSpec("jobs", "Tarefas", ":material/schedule:", "Administração"),
)

BY_KEY: dict[str, PageSpec] = {p.key: p for p in PAGES}
