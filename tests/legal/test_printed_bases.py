"""Each printed basis says what the cited text says (issue 44, "Citations").

Table-driven: (name, the basis the product prints, what it must say, what it must not attribute to the text).
Checked against the texts: Lei 7.542/1986 (the seed), Lei 7.203/1984 art. 10 §1 ("Todo ato de assistência e
salvamento com resultado útil dará direito a uma remuneração eqüitativa, que não poderá exceder o valor da
embarcação, coisa ou bem salvos"), Lei 9.784/1999 arts. 56 §1, 59 and 61, Portaria DPC nº 46/2003 (which revoked
NORMAM-10's 2002 edition).
"""
from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import sys
import tokenize
from datetime import date
from decimal import Decimal

import pytest

from tests.support.package_modules import PACKAGE_DIR, docstring_positions
from valuation.core import law
from valuation.core.calendar import BusinessCalendar
from valuation.core.errors import InputError
from valuation.core.law import LegalValue
from valuation.deadlines import edital
from valuation.deadlines import rules as dl
from valuation.partition.rules import ART, ContractTerms, PartitionItem, partition

D = date
RJ = BusinessCalendar("RJ")
ROOT = PACKAGE_DIR.parent.parent
PUBS = [edital.Publication("dou", D(2026, 3, 2)), edital.Publication("capital", D(2026, 3, 4)),
        edital.Publication("porto", D(2026, 3, 6))]
REVISED = LegalValue(120, "Portaria DPC nº 12/2026, item 0301 c", D(2026, 1, 1))


def ids(cases):
    return [c[0] for c in cases]


CASES = [
    ("the removal edital: art. 9 §2 says one publication in each outlet; 'from the last' is the product's reading",
     lambda: "\n".join((d := edital.removal_edital_from(PUBS, RJ)).steps) + "\n" + d.basis,
     ("art. 9 §2", "uma vez em cada veículo", "leitura adotada"),
     ("art. 9 §2 (o prazo do edital corre da última publicação)",)),
    ("modality IV's ceiling is Lei 7.203 art. 10 §1, applied through art. 21 IV",
     lambda: ART["IV"] + " | " + law.SALVAGE_AWARD_CEILING,
     ("Lei 7.203/1984 art. 10 §1", "art. 21 IV", "no que couber", "não excede o valor"),
     ("art. 21 IV (regras de assistência e salvamento; a remuneração não excede o valor salvo)",)),
    ("a deadline on NORMAM-10's default says its 2002 edition was revoked",
     lambda: dl.final_report(D(2025, 5, 10), RJ).basis,
     ("NORMAM-10 (ed. 2002) 0301 c", "revogada pela Portaria DPC nº 46/2003"), ()),
    ("the automatic cancellation too (0305 f)",
     lambda: dl.automatic_cancellation([], D(2025, 1, 1), D(2025, 6, 30), RJ).basis,
     ("NORMAM-10 (ed. 2002) 0305 f", "revogada pela Portaria DPC nº 46/2003"), ()),
    ("the start of operations too (0305 a)", lambda: dl.start_of_operations(D(2025, 5, 10)).basis,
     ("NORMAM-10 (ed. 2002) 0305 a", "revogada pela Portaria DPC nº 46/2003"), ()),
    ("a value DPC recorded from the edition in force replaces the 2002 default",
     lambda: dl.final_report(D(2026, 5, 10), RJ, REVISED).basis,
     ("Portaria DPC nº 12/2026, item 0301 c", "em vigor desde 01/01/2026"), ("ed. 2002", "revogada")),
    ("the appeal: reconsideration and no suspensive effect are art. 33's and arts. 56 §1 and 61's, not art. 59's",
     lambda: dl.appeal(D(2026, 3, 2), RJ).basis,
     ("Lei 7.542/1986 art. 33 (pedido de reconsideração ou recurso, sem efeito suspensivo;",
      "Lei 9.784/1999 arts. 56 §1 e 61", "art. 59 (10 dias da ciência ou divulgação oficial da decisão recorrida)"),
     ("art. 59 (recurso ou reconsideração, sem efeito suspensivo)",)),
    ("the cargo's lapse cites the cargo's own request (art. 14 II), not the liability for damage (art. 13 §1)",
     lambda: dl.cargo_lapse(D(2020, 1, 10), [], RJ).basis, ("art. 14 II", "arts. 6 e 7"), ("13 §1",)),
]


@pytest.mark.parametrize("name, printed, says, never", CASES, ids=ids(CASES))
def test_each_basis_says_what_its_text_says(name, printed, says, never):
    text = printed()
    for words in says:
        assert words in text, (words, text)
    for words in never:
        assert words not in text, (words, text)


def test_the_salvage_ceiling_refusal_cites_lei_7203():
    terms = ContractTerms("C-IV", Decimal("0.40"), "cash", "IV", salvage_award=Decimal("5000.00"))
    with pytest.raises(InputError) as refused:
        partition(terms, [PartitionItem("A-1", False, Decimal("1000.00"))])
    message = refused.value.problems[0].message
    assert refused.value.problems[0].path == "contract.salvage_award"
    assert "Lei 7.203/1984 art. 10 §1" in message and "art. 21 IV" in message


def _compute(kind: str, doc: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "valuation", "compute", kind, "--input", "-"],
                          input=json.dumps(doc), capture_output=True, text=True, timeout=60)


def test_selection_cites_the_law_not_a_spec_file():
    p = _compute("selection", {"target": "1000.00", "tolerance": "0.01", "items": [
        {"id": "A-1", "value": "600.00", "significance": 3, "must_keep": False, "lock": None}]})
    assert p.returncode == 0, p.stderr
    basis = json.loads(p.stdout)["basis"]
    assert not any(".md" in b for b in basis)
    assert any("art. 20 §4" in b and "etapa 1" in b and "etapa 2" in b for b in basis), basis


PAT = re.compile(r"\b(rules|cli|architecture|glossary)\.md\b")


def test_no_text_a_user_reads_cites_a_spec_file():
    """The strings of the app (not its docstrings and comments) never cite the project's spec files: cite the law."""
    hits = []
    for folder in ("src/valuation", "pages", "page_tabs", "ui", "service"):
        for path in (ROOT / folder).rglob("*.py"):
            src = path.read_text(encoding="utf-8")
            if not PAT.search(src):
                continue
            docs = docstring_positions(ast.parse(src))
            hits += [f"{path.relative_to(ROOT)}:{t.start[0]}"
                     for t in tokenize.generate_tokens(io.StringIO(src).readline)
                     if t.type == tokenize.STRING and t.start not in docs and PAT.search(t.string)]
    assert hits == [], hits
