"""gov.br's setup is documented once (issue 43, items 7 and 13): SECURITY.md described another configuration
shape, an e-mail lookup instead of the CPF and no scope for the account level, while the README described the
real one. Now docs/operations.md "gov.br" holds the one configuration — the same shape the end-to-end login test
gives the real service —, the level codes, the local provider to try it with and the logout address to register;
the README and SECURITY.md point to it."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from tests.accounts.test_govbr_login import SECRETS
from valuation.core.ids import cpf_is_valid
from valuation.demo.parties import DEMO_CPFS
from valuation.policies.defaults import GOVBR_LEVEL_LABELS, GOVBR_LEVELS

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = ROOT / "docs" / "operations.md"


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def _shape(doc: dict[str, object], prefix: str = "") -> set[str]:
    keys = set()
    for key, value in doc.items():
        keys.add(prefix + key)
        if isinstance(value, dict):
            keys |= _shape(value, f"{prefix}{key}.")
    return keys


def test_the_configuration_is_written_once_and_pointed_to() -> None:
    texts = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
             for p in (ROOT / "README.md", ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md")))}
    assert [name for name, text in texts.items() if "[auth.govbr]" in text] == ["docs/operations.md"]
    for name in ("README.md", "SECURITY.md"):
        assert "docs/operations.md#govbr" in texts[name], name
    assert "\n## gov.br\n" in texts["docs/operations.md"]            # GitHub's anchor of '## gov.br' is #govbr
    assert "users.email" not in texts["SECURITY.md"]                   # the old e-mail lookup is gone


def test_the_documented_configuration_is_the_one_the_login_test_runs() -> None:
    section = _section(OPERATIONS.read_text(encoding="utf-8"), "gov.br")
    (block,) = re.findall(r"```toml\n(.*?)```", section, re.S)
    documented = tomllib.loads(block)
    tested = tomllib.loads(SECRETS.format(base="http://x", cookie_secret="s", client_id="c", client_secret="c",
                                          metadata_url="http://x"))
    assert _shape(documented) == _shape(tested) - {"auth.govbr.client_kwargs.prompt"}   # prompt: the test's own
    scope = documented["auth"]["govbr"]["client_kwargs"]["scope"]
    assert scope == tested["auth"]["govbr"]["client_kwargs"]["scope"] and "govbr_confiabilidades_idtoken" in scope
    assert documented["auth"]["redirect_uri"].endswith("/oauth2callback")


def test_levels_logout_and_the_local_provider_are_documented() -> None:
    section = _section(OPERATIONS.read_text(encoding="utf-8"), "gov.br")
    for code in GOVBR_LEVELS:
        assert f"`{code}`" in section, code
    for label in GOVBR_LEVEL_LABELS.values():
        assert label in section, label
    assert "post_logout_redirect_uri" in section and "logout" in section
    claims = json.loads(re.search(r"--user-claims \\\n\s*'(.*?)'", section, re.S).group(1))   # type: ignore[union-attr]
    assert claims["reliability_info"]["level"] in GOVBR_LEVELS and cpf_is_valid(claims["sub"])
    assert claims["sub"] in DEMO_CPFS.values()                      # a demo user the reader can log in as
    pinned = (ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    assert "oidc-provider-mock==" in pinned and "oidc-provider-mock" in section
