"""Issue 25: every NORMAM-10 item number the product prints says which edition it comes from.

NORMAM-10 edição 2002 (the text in /work/shared/seeds, whose item numbers the product cites) was revoked by
Portaria DPC nº 46/2003; README "Decisions" lists the editions. A user reads the code's string literals
(pages, messages, bases, PDFs): each "NORMAM-10 0xxx" among them carries "(ed. 2002)", and the deadline
bases carry the policy's own reference. Docstrings and comments are the code's, not the user's.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from datetime import date
from pathlib import Path

from tests.support.package_modules import PACKAGE_DIR, docstring_positions
from valuation.core.calendar import BusinessCalendar
from valuation.deadlines.rules import final_report

ROOT = PACKAGE_DIR.parent.parent
BARE = re.compile(r"NORMAM-10(?! \(ed\. \d{4}\))(?=,? (?:item )?0\d{3}|, Anexo)")


def _bare(path: Path) -> list[str]:
    src = path.read_text(encoding="utf-8")
    if "NORMAM-10" not in src:
        return []
    docs = docstring_positions(ast.parse(src))
    return [f"{path.relative_to(ROOT)}:{t.start[0]}" for t in tokenize.generate_tokens(io.StringIO(src).readline)
            if t.type == tokenize.STRING and t.start not in docs and BARE.search(t.string)]


def test_every_printed_normam_item_names_its_edition():
    files = [p for d in ("src/valuation", "pages", "page_tabs", "ui") for p in (ROOT / d).rglob("*.py")]
    files.append(ROOT / "app.py")
    assert len(files) > 100
    bare = [hit for p in files for hit in _bare(p)]
    assert bare == [], "NORMAM-10 item without its edition: " + ", ".join(bare)
    assert BARE.search("NORMAM-10 0301 c") and not BARE.search("NORMAM-10 (ed. 2002) 0301 c")


def test_a_deadline_basis_prints_the_edition():
    d = final_report(date(2025, 5, 10), BusinessCalendar("RJ"))
    assert d.basis.startswith("NORMAM-10 (ed. 2002) 0301 c"), d.basis
