"""What the pages import, imported once per process in the background (issue 17).

A page's first view in a fresh process paid for its imports: `valuation.exports` alone loads fpdf
and fontTools (~1 s on a quiet machine, 7 s under load), and the first user to open Prazos, the
documents or the statements waited for it. `start()` (called by app.py on every run; only the
first call does anything) reads the `import` statements of pages/*.py, of their tabs (page_tabs/) and
of ui/*.py and imports the modules they name from the package and the libraries (`PREFIXES`) in a
daemon thread, while the login form is shown and the password is checked. Python's import lock makes a
page that needs a module meanwhile wait for that module only; a module that fails to import is left to
the page that needs it (where the error is shown as before).
"""
from __future__ import annotations

import ast
import importlib
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFIXES = ("valuation", "plotly", "pandas", "pyarrow", "numpy")
_started = threading.Event()
done = threading.Event()   # set when every module has been tried (the tests wait on it)


def modules(root: Path = ROOT) -> list[str]:
    """The modules of `PREFIXES` that pages/*.py, page_tabs/**/*.py and ui/*.py import, in a stable order."""
    names: dict[str, None] = {}
    sources = [*sorted(root.glob("pages/*.py")), *sorted(root.glob("page_tabs/**/*.py")), *sorted(root.glob("ui/*.py"))]
    for path in sources:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                # `from valuation.deadlines import engine`: the submodule too (a name that is not one
                # fails to import and is skipped)
                found = [node.module, *(f"{node.module}.{a.name}" for a in node.names if a.name != "*")]
            else:
                continue
            names.update((n, None) for n in found if n.split(".")[0] in PREFIXES)
    return list(names)


def _run(names: list[str]) -> None:
    try:
        for name in names:
            try:
                importlib.import_module(name)
            except ImportError:
                continue   # a name imported from a module, not a module of its own
            except Exception:  # noqa: BLE001 - the page that needs it reports it
                continue
    finally:
        done.set()


def start() -> None:
    """Start the background imports (once per process)."""
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_run, args=(modules(),), name="valuation-warmup", daemon=True).start()
