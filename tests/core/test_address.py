"""The public address printed on issued documents (issue 43, item 6): derived from where the service listens,
set by the administrator, and named when it is not one the service answers on."""
from __future__ import annotations

import socket

import pytest

from valuation.authenticity.registry import new_stamp
from valuation.core.address import address_problem, base_url
from valuation.jobs.settings import JobSettings


@pytest.mark.parametrize(("env", "expected"), [
    ({}, "http://127.0.0.1:8501"),
    ({"VALUATION_HOST": "127.0.0.1", "VALUATION_PORT": "8080"}, "http://127.0.0.1:8080"),  # start.sh's PORT=8080
    ({"VALUATION_HOST": "10.1.2.3", "VALUATION_PORT": "9000"}, "http://10.1.2.3:9000"),
    ({"VALUATION_HOST": "::1", "VALUATION_PORT": "8080"}, "http://[::1]:8080"),
    ({"VALUATION_PORT": "8080", "VALUATION_BASE_URL": "https://painel.dpc.mar.mil.br/"}, "https://painel.dpc.mar.mil.br"),
    ({"VALUATION_PORT": "8080", "VALUATION_BASE_URL": "  "}, "http://127.0.0.1:8080"),
])
def test_the_address_is_the_administrators_or_derived_from_host_and_port(env: dict[str, str], expected: str) -> None:
    assert base_url(env) == expected


def test_a_wildcard_host_prints_the_machines_name() -> None:
    assert base_url({"VALUATION_HOST": "0.0.0.0", "VALUATION_PORT": "8080"}) == \
        f"http://{socket.getfqdn().lower().rstrip('.')}:8080"


def test_the_printed_code_and_the_mail_links_follow_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, both said 127.0.0.1:8501 whatever the port the service ran on."""
    monkeypatch.delenv("VALUATION_BASE_URL", raising=False)
    monkeypatch.setenv("VALUATION_HOST", "127.0.0.1")
    monkeypatch.setenv("VALUATION_PORT", "8080")
    assert new_stamp().verify_url == "http://127.0.0.1:8080/verificar"
    assert JobSettings.from_env("x.duckdb").base_url == "http://127.0.0.1:8080"


@pytest.mark.parametrize(("env", "fragment"), [
    ({"VALUATION_PORT": "8080", "VALUATION_BASE_URL": "http://127.0.0.1:8501"},
     "aponta a porta 8501, mas o serviço escuta na porta 8080"),
    ({"VALUATION_BASE_URL": "https://outro.exemplo.gov.br"}, "o nome outro.exemplo.gov.br não está entre os seus"),
    ({"VALUATION_BASE_URL": "http://localhost"}, "aponta a porta 80"),
    ({"VALUATION_BASE_URL": "ftp://127.0.0.1:8501"}, "deve ser só o endereço do serviço"),
    ({"VALUATION_BASE_URL": "https://painel.gov.br/verificar?x=1", "VALUATION_ALLOWED_HOSTS": "painel.gov.br"},
     "deve ser só o endereço do serviço"),
    ({"VALUATION_BASE_URL": "http://127.0.0.1:99999"}, "não é um endereço válido"),
    ({"VALUATION_ALLOWED_HOSTS": "painel.dpc.mar.mil.br"},
     "VALUATION_BASE_URL não definido: os documentos emitidos imprimem http://127.0.0.1:8501/verificar"),
])
def test_an_address_the_service_does_not_answer_on_is_named(env: dict[str, str], fragment: str) -> None:
    problem = address_problem(env)
    assert problem is not None and fragment in problem, problem
    assert "VALUATION_BASE_URL" in problem


@pytest.mark.parametrize("env", [
    {},
    {"VALUATION_PORT": "8080"},
    {"VALUATION_PORT": "8080", "VALUATION_BASE_URL": "http://localhost:8080"},
    {"VALUATION_BASE_URL": "https://painel.dpc.mar.mil.br", "VALUATION_ALLOWED_HOSTS": "painel.dpc.mar.mil.br"},
    {"VALUATION_HOST": "10.1.2.3", "VALUATION_PORT": "80", "VALUATION_BASE_URL": "http://10.1.2.3"},
])
def test_an_address_the_service_answers_on_is_no_problem(env: dict[str, str]) -> None:
    assert address_problem(env) is None
