"""The layout's rules, checked on the code's own imports (README "Architecture"):

- `src/valuation` never imports streamlit (the package runs in the CLI, the jobs and the tests);
- `core/` imports nothing of the package above it; `db/` imports only `core/` and `db/` (nothing under
  db/ knows a capability);
- no capability imports `cli/` or `demo/` (they are callers);
- the module-level imports have no cycle (a function-level import is a deliberate late binding and
  is not counted).
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.package_modules import PACKAGE_DIR, source_files

CALLERS = ("cli", "demo", "__main__")


def _module(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(("valuation", *parts))


def _imports(path: Path, *, top_level_only: bool) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = _module(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    for node in nodes:
        if top_level_only and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            yield base
            for a in node.names:  # `from valuation.x import y` may import the module y
                yield f"{base}.{a.name}"


def _known(name: str, modules: set[str]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _graph(*, top_level_only: bool) -> dict[str, set[str]]:
    files = source_files()
    modules = {_module(p) for p in files}
    graph: dict[str, set[str]] = {}
    for p in files:
        me = _module(p)
        graph[me] = {k for imp in _imports(p, top_level_only=top_level_only)
                     if imp.startswith("valuation") and (k := _known(imp, modules)) and k != me and k != "valuation"}
    return graph


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_package_never_imports_streamlit() -> None:
    offenders = [str(p.relative_to(PACKAGE_DIR)) for p in source_files()
                 if any(i == "streamlit" or i.startswith("streamlit.") for i in _imports(p, top_level_only=False))]
    assert not offenders


def test_core_and_db_know_no_capability() -> None:
    allowed = {"core": {"core"}, "db": {"core", "db"}}
    bad = [f"{m} -> {d}" for m, deps in _graph(top_level_only=False).items() if _layer(m) in allowed
           for d in deps if _layer(d) not in allowed[_layer(m)]]
    assert not bad


def test_no_capability_imports_the_cli_or_the_demo() -> None:
    bad = [f"{m} -> {d}" for m, deps in _graph(top_level_only=False).items() if _layer(m) not in CALLERS
           for d in deps if _layer(d) in CALLERS]
    assert not bad


def test_module_level_imports_have_no_cycle() -> None:
    graph = _graph(top_level_only=True)
    seen: dict[str, int] = {}  # 1 on the path, 2 done
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if seen.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in seen:
                visit(nxt, path + [nxt])
        seen[node] = 2

    for start in sorted(graph):
        if start not in seen:
            visit(start, [start])
    assert not cycles, cycles[:5]
