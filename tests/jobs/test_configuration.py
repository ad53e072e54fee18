"""The configuration's problems, each naming its variable, on Tarefas and in /saude (issue 43, items 1 and 6)."""
from __future__ import annotations

from typing import Any

import pytest

from service import routes, state
from tests.support.ui import page_direct
from valuation.accounts.sessions import TicketBook
from valuation.jobs.configuration import configuration_problems
from valuation.jobs.settings import JobSettings

WRONG_PORT = {"VALUATION_HOST": "127.0.0.1", "VALUATION_PORT": "8080", "VALUATION_BASE_URL": "http://127.0.0.1:8501"}


def test_a_printed_address_on_another_port_is_a_problem_of_the_configuration() -> None:
    (problem,) = configuration_problems(WRONG_PORT)
    assert problem.variable == "VALUATION_BASE_URL"
    assert "porta 8501" in problem.text and "porta 8080" in problem.text
    assert configuration_problems({"VALUATION_PORT": "8080"}) == ()


def test_tarefas_names_the_problem(small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in WRONG_PORT.items():
        monkeypatch.setenv(name, value)
    small_world.store.close()
    at = page_direct(small_world.path, small_world.principal("admin"), "jobs")
    errors = [str(e.value).replace("\\", "").replace("\u2060", "") for e in at.error]   # Markdown escapes off
    assert not at.exception and any("VALUATION_BASE_URL" in e and "porta 8080" in e for e in errors), errors


def test_saude_names_the_problem(small_world: Any, tmp_path: Any) -> None:
    svc = state.ServiceState(store=small_world.store, settings=JobSettings.from_env(str(small_world.path), {}),
                             tickets=TicketBook(), configuration=configuration_problems(WRONG_PORT))
    doc = routes.health_doc(svc)
    assert doc["configuration"] == [{"variable": "VALUATION_BASE_URL", "message": svc.configuration[0].message}]
