"""People by their names, codes by their labels, on every page and tab for every demo role on the full demo
(issue 23 item 10; the walk and its check: test_pages_walk.py): no demo login (users.username: 'dpc.prado',
'exp.arqueonautica') where a person's name exists ("Cadastrada por dpc.prado", "enviada por
exp.arqueonautica", the audit's "Usuário" column), and no stored code from `RAW_CODES` ("Tipo:
authorisation", "Versão do arquivo: thumb", "Anexado a: item", "informe navy (Marinha) ou culture (Cultura)").

The users page is the one place a login is the thing read: the admin creates and finds accounts by it
(its "Usuário" column and account selector) — there only the codes are checked.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.ui import visible_texts
from valuation.accounts import people, users
from valuation.core.errors import InputError
from valuation.db import access
from valuation.db.store import Store
from valuation.oversight import audit_text

# Stored codes a reader must never meet, as whole lowercase words (attachment kinds, owners and variants,
# Commission bodies, roles, job outcomes and triggers): each has a Portuguese label where it is shown.
RAW_CODES = ("authorisation", "co_signature", "cost_sheet", "photo", "report", "document", "thumb", "preview",
             "deadline_event", "contract", "wreck", "navy", "culture", "explorer", "commission",
             "commission_president", "running", "failed", "succeeded", "schedule", "retry")
LOGINS_READ_AS_SUCH = ("users",)   # the account administration: the login is the record itself


@pytest.fixture(scope="module")
def logins(full_demo_db: Path) -> tuple[str, ...]:
    with Store(full_demo_db, migrate=False) as s:
        found = tuple(str(r["username"]) for r in s.fetch("SELECT username FROM users"))
    return found


def words(names: tuple[str, ...]) -> re.Pattern[str]:
    """Whole words: a login is not found inside an e-mail address or a longer name."""
    return re.compile(r"(?<![\w.@-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w@-]|\.\w)")


def seen(at) -> list[str]:  # type: ignore[no-untyped-def]
    """What the run shows: the whole-demo checks' texts plus plain st.text lines and expander labels."""
    return [*visible_texts(at), *(str(t.value) for t in at.text), *(str(e.label) for e in at.expander)]


def test_the_checks_see_what_they_look_for(full_demo_db: Path, logins: tuple[str, ...]) -> None:
    """The patterns match the defects as they were shown, and not the names that replace them."""
    assert words(logins).findall("Cadastrada por dpc.prado") == ["dpc.prado"]
    assert words(logins).findall("enviada por exp.arqueonautica em 02/12/2026") == ["exp.arqueonautica"]
    assert not words(logins).findall("Administrador do sistema · dpc.prado@marinha.mil.br")
    assert words(RAW_CODES).findall("Tipo: authorisation; Versão do arquivo: thumb") == ["authorisation", "thumb"]
    with Store(full_demo_db, migrate=False) as s:
        dpc = s.fetch_one("SELECT full_name FROM users WHERE username = 'dpc.prado'")["full_name"]
        admin = access.Principal(id=16, username="admin", full_name="", role="admin", organisation_id=None,
                                 commission_body=None)
        assert people.person(people.names(s, admin), "dpc.prado") == dpc
    assert people.person({}, "demo") == "Carga de demonstração"


def test_an_explorer_reads_no_other_companys_people(full_demo_db: Path) -> None:
    """The names behind the logins follow the rows' scope: public servants and one's own company only."""
    with Store(full_demo_db, migrate=False) as s:
        row = s.fetch_one("SELECT * FROM users WHERE username = 'exp.arqueonautica'")
        me = access.Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"],
                              role=row["role"], organisation_id=row["organisation_id"], commission_body=None)
        known = people.names(s, me)
    assert "dpc.prado" in known and "exp.arqueonautica" in known
    assert "exp.salvamar" not in known and people.person(known, "exp.salvamar") == "—"


def test_the_audit_and_the_user_form_speak_portuguese(full_demo_db: Path) -> None:
    """The audit's summary of an attachment and the user form's message, as the defects were reported."""
    line = audit_text.summary("attachment_upload", None,
                              '{"files": [{"id": 1, "kind": "authorisation", "owner_kind": "item", '
                              '"variant": "thumb"}]}', entity="contract")
    assert "authorisation" not in line and "thumb" not in line and "item;" not in line, line
    assert "Ato de autorização" in line and "miniatura" in line and "Bem resgatado" in line, line
    with Store(full_demo_db, migrate=False) as s, pytest.raises(InputError) as refused:
        users.validate_user(s, {"username": "cf.nova", "full_name": "CF Nova Silva (DPHCM)", "role": "commission",
                                "commission_body": "army", "password": "uma senha longa e boa 2026"})
    message = " ".join(p.message for p in refused.value.problems if p.path == "commission_body")
    assert "Marinha (DPHCM)" in message and "Ministério da Cultura" in message, message
    assert not words(RAW_CODES).findall(message), message


def test_a_job_runs_outcome_reads_in_portuguese() -> None:
    """The audit's line of a finished job run (found by the walk on a demo with a job run): it read
    'Outcome: running → ok'."""
    line = audit_text.summary("finish_job", '{"outcome": "running"}', '{"outcome": "ok"}', entity="job_run")
    assert line == "Resultado: em execução → concluída", line
