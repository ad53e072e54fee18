"""What the running service shares with the Streamlit script of the same process.

The lifespan sets it once (`set_current`); `ui.session` looks it up through `sys.modules`
so that `streamlit run app.py` (no service) never imports this package.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuation.accounts.sessions import TicketBook
from valuation.db.store import Store
from valuation.jobs.configuration import ConfigurationProblem
from valuation.jobs.settings import JobSettings


@dataclass
class ServiceState:
    store: Store
    settings: JobSettings
    tickets: TicketBook
    scheduler: Any = None          # service.scheduler.JobScheduler
    cli_token: str | None = None   # the token of the <db>.service link file
    components_served: bool = False   # service/assets declared (the served components may be mounted)
    chart_bundle: str | None = None   # the partial plotly.js's address (service/chart_bundle.py)
    configuration: tuple[ConfigurationProblem, ...] = ()   # found at start-up (valuation.jobs.configuration)


_current: ServiceState | None = None


def current() -> ServiceState | None:
    return _current


def set_current(state: ServiceState | None) -> None:
    global _current
    _current = state
