"""The Streamlit side's layout (README "Architecture"): no SQL in app.py, a page, its tabs or ui/ (a
page asks its capability); `pages/` is one file per registered page, and a page's tabs live in
`page_tabs/<key>/`, each tab module with its `render(view)`."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support.ui import ROOT, glue_files
from ui.registry import BY_KEY

STORE_CALLS = {"fetch", "fetch_one", "fetch_df", "scalar", "execute", "executemany", "cursor", "sql", "transaction"}
SQL_TEXT = re.compile(r"\bSELECT\b.+\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b",
                      re.IGNORECASE | re.DOTALL)


def sql_in(path: Path, root: Path = ROOT) -> list[str]:
    """Calls of the Store's query methods and string constants that read as SQL, as `file:line what`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STORE_CALLS:
            found.append((node.lineno, f".{node.func.attr}(…)"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL_TEXT.search(node.value):
            found.append((node.lineno, repr(node.value[:40])))
    return [f"{path.relative_to(root)}:{line} {what}" for line, what in sorted(found)]


def test_no_sql_outside_the_capabilities() -> None:
    files = glue_files()
    assert any(p.parts[-3:-1] == ("page_tabs", "deadlines") for p in files), "the tab modules are read too"
    found = [f for p in files for f in sql_in(p)]
    assert not found, found


def test_the_sql_check_itself_finds_a_query(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text('offices = {r["code"]: r["name"] for r in store.fetch("SELECT code, name FROM offices")}\n'
                    'n = store.scalar(QUERY)\nQUERY = "select count(*) from users"\nst.title("Selecione")\n',
                    encoding="utf-8")
    assert sql_in(page, tmp_path) == ["page.py:1 'SELECT code, name FROM offices'", "page.py:1 .fetch(…)",
                                      "page.py:2 .scalar(…)", "page.py:3 'select count(*) from users'"]


def test_pages_are_one_file_per_page_and_their_tabs_are_beside_them() -> None:
    pages = sorted(p.stem for p in (ROOT / "pages").glob("*.py"))
    assert pages and set(pages) <= set(BY_KEY), f"not a registered page: {set(pages) - set(BY_KEY)}"
    assert not [p for p in (ROOT / "pages").iterdir() if p.is_dir() and p.name != "__pycache__"], \
        "pages/ holds no folder (a page's tabs go to page_tabs/<key>/)"
    packages = [p for p in (ROOT / "page_tabs").iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert {p.name for p in packages} >= {"commission", "deadlines"}
    for package in packages:
        assert package.name in pages, f"page_tabs/{package.name}/ belongs to no page"
        page = (ROOT / "pages" / f"{package.name}.py").read_text(encoding="utf-8")
        for module in sorted(package.glob("*.py")):
            if module.stem in ("__init__", "view"):
                continue
            tree = ast.parse(module.read_text(encoding="utf-8"))
            functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            used = re.search(rf"\b{module.stem}\.render\b", page) is not None
            helper = any(re.search(rf"from page_tabs\.{package.name}\.{module.stem} import", m.read_text("utf-8"))
                         for m in package.glob("*.py"))
            # a section of the page that is no tab (the record's forms and history): imported by the page itself
            section = re.search(rf"from page_tabs\.{package.name} import [^\n]*\b{module.stem}\b", page) is not None \
                and re.search(rf"\b{module.stem}\.\w+\(", page) is not None
            assert used or helper or section, \
                f"page_tabs/{package.name}/{module.stem}.py is neither a tab of the page, a section of it, nor used"
            assert not used or "render" in functions, f"page_tabs/{package.name}/{module.stem}.py has no render()"
