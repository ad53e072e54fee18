"""What is wrong with the service's configuration, named by its variable (issue 43): the same list in the log at
start-up (service/asgi.py), in /saude (`configuration`) and on the Tarefas page.

    configuration_problems(env)     [ConfigurationProblem(variable, message)], [] when all is well

- the public address printed on issued documents is not one the service answers on
  (`valuation.core.address.address_problem`);
- the institutional A1 (VALUATION_SIGNING_P12, VALUATION_SIGNING_P12_PASSWORD) is named but cannot be used: a
  missing or unreadable file, a wrong password, a certificate out of date (`signatures.institutional`) — acts
  then go out unsigned, and the page that issues them says so.

A message names the variable and never shows a secret's value.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from valuation.core.address import ENV_BASE_URL, address_problem
from valuation.signatures.institutional import signing_setup


@dataclass(frozen=True)
class ConfigurationProblem:
    variable: str
    message: str                   # pt-BR, for the admin

    @property
    def text(self) -> str:
        return self.message if self.message.startswith(self.variable) else f"{self.variable}: {self.message}"

    def as_json(self) -> dict[str, str]:
        return {"variable": self.variable, "message": self.message}


def configuration_problems(env: Mapping[str, str] | None = None) -> tuple[ConfigurationProblem, ...]:
    """Every problem of the configuration `env` (default: the process's environment), see the module."""
    source = env if env is not None else os.environ
    found: list[ConfigurationProblem] = []
    address = address_problem(source)
    if address is not None:
        found.append(ConfigurationProblem(ENV_BASE_URL, address))
    signing = signing_setup(source).problem
    if signing is not None:
        found.append(ConfigurationProblem(signing.path, signing.message))
    return tuple(found)
