"""The layout's rules, checked on the code's own imports (README "Architecture"):

- `src/valuation` never imports streamlit (the package runs in the CLI, the jobs and the tests);
- `core/` imports nothing of the package above it; `db/` imports only `core/` and `db/` (nothing under
  db/ knows a capability);
- no capability imports `cli/` or `demo/` (they are callers);
- the module-level imports have no cycle (a function-level import is a deliberate late binding and
  is not counted);
- no private name crosses a module: no `from m import _x`, no `m._x` of an imported module `m`, and a
  private module (`_x.py`) is imported only inside its own package — in src/, ui/, service/, pages/
  and app.py (tests may reach a private where they must: swapping the password hasher, forcing a
  solver path);
- no cycle between capabilities (folders of the package), counting every import: a function-level
  import, a TYPE_CHECKING one too, is still one capability knowing the other;
- every error class derives from ValuationError and is drawn, under its parent, in core/errors.py.
"""
from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from pathlib import Path

from tests.support.package_modules import PACKAGE_DIR, source_files

CALLERS = ("cli", "demo", "__main__")
ROOT = PACKAGE_DIR.parent.parent
GLUE = ("ui", "service", "pages")


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


# -- private names stay in their module -----------------------------------------------------------
def _project_files() -> dict[str, Path]:
    """Module name → file, for the package and the Streamlit/ASGI glue around it."""
    files = {_module(p): p for p in source_files()}
    for folder in GLUE:
        for p in sorted((ROOT / folder).rglob("*.py")):
            rel = p.relative_to(ROOT).with_suffix("")
            files[".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)] = p
    files["app"] = ROOT / "app.py"
    return files


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_crossings(me: str, path: Path, modules: set[str]) -> Iterator[str]:
    """`from m import _x`, `m._x` of an imported project module and a private module imported from
    outside its package, as 'file:line what'."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = me.split(".") if path.name == "__init__.py" else me.split(".")[:-1]
    bound: dict[str, str] = {}                        # local name → project module it is bound to
    where = path.relative_to(ROOT)

    def private_module(module: str) -> bool:          # valuation.exports._values from outside exports
        parts = module.split(".")
        return any(_private(part) and ".".join(parts[:i]) != ".".join(package[:i])
                   for i, part in enumerate(parts))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            if base not in modules and not any(f"{base}.{a.name}" in modules for a in node.names):
                continue
            if base != me and private_module(base):
                yield f"{where}:{node.lineno} from {base} import …"
            for a in node.names:
                if f"{base}.{a.name}" in modules:
                    bound[a.asname or a.name] = f"{base}.{a.name}"
                    if private_module(f"{base}.{a.name}"):
                        yield f"{where}:{node.lineno} from {base} import {a.name}"
                elif _private(a.name) and base != me:
                    yield f"{where}:{node.lineno} from {base} import {a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules:
                    bound[a.asname or a.name] = a.name
                    if private_module(a.name):
                        yield f"{where}:{node.lineno} import {a.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = ast.unparse(node.value)
            module = bound.get(owner, owner if owner in modules else None)
            if module is not None and module != me:
                yield f"{where}:{node.lineno} {owner}.{node.attr}"


def test_no_private_name_is_used_across_modules() -> None:
    """A name that starts with `_` is its module's own: another module that needs it needs a seam,
    a public name with its docstring (issue 22). Dunder names (`__version__`) are not private."""
    files = _project_files()
    modules = set(files)
    crossings = [c for me, path in sorted(files.items()) for c in _private_crossings(me, path, modules)]
    assert not crossings, crossings


# -- one error tree ---------------------------------------------------------------------------------
_TREE_LINE = re.compile(r"^(?P<indent>[ │├└─]*?)(?P<name>[A-Z]\w*)(?:\s+(?P<module>[a-z_]+\.[a-z_.]+):)?")


def _drawn_tree() -> dict[str, tuple[str | None, str | None]]:
    """class → (drawn parent, module named beside it) from core/errors.py's docstring."""
    doc = ast.get_docstring(ast.parse((PACKAGE_DIR / "core" / "errors.py").read_text(encoding="utf-8"))) or ""
    tree: dict[str, tuple[str | None, str | None]] = {}
    stack: list[tuple[int, str]] = []
    for line in doc.splitlines():
        m = _TREE_LINE.match(line.strip("\n")[4:]) if line.startswith("    ") else None
        if not m or not (line[4:].startswith("ValuationError") or "──" in line):
            continue
        column = len(m["indent"])
        while stack and stack[-1][0] >= column:
            stack.pop()
        tree[m["name"]] = (stack[-1][1] if stack else None, m["module"])
        stack.append((column, m["name"]))
    return tree


def _error_classes() -> dict[str, tuple[str, str]]:
    """Every exception class defined in the package and its glue: name → (first base, module)."""
    bases: dict[str, tuple[str, str]] = {}
    for me, path in _project_files().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.bases:
                first = node.bases[0]
                bases[node.name] = (first.attr if isinstance(first, ast.Attribute) else getattr(first, "id", ""), me)

    def is_error(name: str, seen: frozenset[str] = frozenset()) -> bool:
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type):
            return issubclass(builtin, BaseException)
        return name in bases and name not in seen and is_error(bases[name][0], seen | {name})

    return {name: base for name, base in bases.items() if is_error(name)}


def test_every_error_class_is_rooted_and_drawn_in_the_error_tree() -> None:
    """Issue 22: every error the code raises on purpose derives from ValuationError (callers catch one
    root, the CLI and the pages report it), and core/errors.py draws each one under its parent, with
    the module that defines it."""
    drawn, code = _drawn_tree(), _error_classes()
    assert drawn.get("ValuationError") == (None, None) and len(drawn) > 6, drawn
    problems = []
    for name, (base, module) in sorted(code.items()):
        chain, at = [name], name
        while at in code and at != "ValuationError":
            at = code[at][0]
            chain.append(at)
        if name != "ValuationError" and chain[-1] != "ValuationError":
            problems.append(f"{module}.{name} is not a ValuationError ({' < '.join(chain)})")
        if name not in drawn:
            problems.append(f"{module}.{name} is not drawn in core/errors.py")
        elif name != "ValuationError":
            parent, where = drawn[name]
            if parent != base:
                problems.append(f"{name} is drawn under {parent}, its base is {base}")
            if (where or "core.errors") != module.removeprefix("valuation."):
                problems.append(f"{name} is drawn as {where or 'core.errors'}'s, it is defined in {module}")
    problems += [f"{name} is drawn but defined nowhere" for name in drawn if name not in code]
    assert not problems, problems


# -- capabilities form no cycle ---------------------------------------------------------------------
# Cycles another branch of issue 22 removes (h22-rules: the domain code and the deadline rules); an entry
# that no longer closes a cycle fails the test too, so that it is deleted when that branch lands.
def _capability_cycles() -> dict[frozenset[str], list[str]]:
    """Each set of folders that import one another in a ring (a strongly connected component of the
    folder graph over every import), with the module imports that close it."""
    edges: dict[tuple[str, str], list[str]] = {}
    for module, deps in _graph(top_level_only=False).items():
        for dep in deps:
            if _layer(module) != _layer(dep):
                edges.setdefault((_layer(module), _layer(dep)), []).append(f"{module} -> {dep}")
    folders = sorted({f for edge in edges for f in edge})
    reach = {f: {b for (a, b) in edges if a == f} for f in folders}
    changed = True
    while changed:                                   # transitive closure: a dozen folders, a few passes
        changed = False
        for f in folders:
            more = set().union(*(reach[g] for g in reach[f])) - reach[f]
            if more:
                reach[f] |= more
                changed = True
    rings: dict[frozenset[str], list[str]] = {}
    for f in folders:
        ring = frozenset({f} | {g for g in reach[f] if f in reach[g]})
        if len(ring) > 1 and ring not in rings:
            rings[ring] = sorted(w for (a, b), why in edges.items() if a in ring and b in ring for w in why)
    return rings


def test_no_cycle_between_capabilities() -> None:
    """A capability (a folder of the package) never depends, through any chain of imports, on one that
    depends on it. Every import counts — a function-level one and a TYPE_CHECKING one too: a late
    import only postpones the binding, the two capabilities still cannot be read, tested or moved
    apart. What both need moves below both (core/, or the lower of the two)."""
    rings = _capability_cycles()
    assert not rings, {" <-> ".join(sorted(ring)): why for ring, why in rings.items()}


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


# -- access decided in one place (issue 22): no role or own-company check outside db/access.py ---------
# A role is only ever an access fact, so no code outside access compares one (in Python or in SQL).
# An organisation id is also a business fact (the surveyor, the requester, the holder: Lei 7.542
# art. 16 §2, NORMAM-10 0303), so what belongs to access is the *user's* organisation: a Principal's
# `organisation_id` is read only by access (compared, bound into SQL or substituted for the one asked),
# and so is a user row's (the `users` table) when compared with a value in SQL.
ACCESS_FILE = PACKAGE_DIR / "db" / "access.py"
REPO_DIR = PACKAGE_DIR.parents[1]
NOT_PRODUCT = ("tests", "bench")          # fixtures and measurement harnesses build principals of every role
ROLE, ORGANISATION = "role", "organisation_id"
_SQL_TEST = r"(?:^|\(|\b(?:WHERE|AND|OR|ON|NOT|WHEN|HAVING)\s)\s*"
_SQL_COMPARED = r"\s*(?:=|<>|!=|\bNOT\s+IN\b|\bIN\b)"


def _product_files() -> list[Path]:
    """Every Python file of the product: the package, the pages, the UI, the service, app.py."""
    files = [p for p in REPO_DIR.glob("*.py")]
    for top in sorted(REPO_DIR.iterdir()):
        if top.is_dir() and not top.name.startswith((".", "_")) and top.name not in NOT_PRODUCT:
            files += [p for p in top.rglob("*.py") if "__pycache__" not in p.parts and ".venv" not in p.parts]
    return sorted(p for p in files if p.resolve() != ACCESS_FILE.resolve())


def _role_values() -> tuple[frozenset[str], frozenset[str]]:
    """(the roles' names, the names of access's constants that hold roles: ROLES, COMMISSION_ROLES…)."""
    from dataclasses import fields

    from valuation.db import access

    assert {ROLE, ORGANISATION} <= {f.name for f in fields(access.Principal)}  # a rename must reach this test
    roles = frozenset(access.ROLES)
    holders = {n for n, v in vars(access).items() if (isinstance(v, str) and v in roles) or (
        isinstance(v, tuple | frozenset | set) and v and all(isinstance(x, str) and x in roles for x in v))}
    return roles, frozenset(holders)


def _mentions_principal(annotation: ast.expr | None) -> bool:
    return annotation is not None and re.search(r"\bPrincipal\b", ast.unparse(annotation)) is not None


def _principal_sources(trees: dict[Path, ast.Module]) -> tuple[frozenset[str], frozenset[str]]:
    """(functions that return a Principal, attributes annotated Principal), across the product."""
    makers, attrs = {"Principal"}, set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _mentions_principal(node.returns):
                makers.add(node.name)
            elif isinstance(node, ast.ClassDef):
                attrs |= {s.target.id for s in node.body if isinstance(s, ast.AnnAssign)
                          and isinstance(s.target, ast.Name) and _mentions_principal(s.annotation)}
    return frozenset(makers), frozenset(attrs)


def _bound_principals(scope: ast.AST, makers: frozenset[str]) -> set[str]:
    """Names that hold a Principal in `scope`: parameters annotated so, and names assigned a Principal."""
    names: set[str] = set()
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        a = scope.args
        names |= {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs) if _mentions_principal(p.annotation)}
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    for stmt in body:
        for node in [stmt, *_walk_here(stmt)]:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and (
                    _mentions_principal(node.annotation)):
                names.add(node.target.id)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                fn = node.value.func
                if (fn.id if isinstance(fn, ast.Name) else getattr(fn, "attr", None)) in makers:
                    names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _walk_here(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes under `node` in its own scope: a nested function or class, but not what is inside it."""
    for child in ast.iter_child_nodes(node):
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            yield from _walk_here(child)


def _mentions_role(node: ast.AST, roles: frozenset[str], holders: frozenset[str]) -> bool:
    """Does the expression name a role: a role's name, access's role constants, or a `role` name,
    attribute, key or `.get("role")`?"""
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in roles:
            return True
        if isinstance(n, ast.Name) and (n.id in holders or ROLE in n.id.lower().split("_")):
            return True
        if isinstance(n, ast.Attribute) and (n.attr in holders or ROLE in n.attr.lower().split("_")):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and n.slice.value == ROLE:
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get" and any(
                isinstance(a, ast.Constant) and a.value == ROLE for a in n.args):
            return True
    return False


def _is_presence_test(node: ast.Compare) -> bool:
    """`x is None` / `x is not None`: whether a value is given, not what it is."""
    return all(isinstance(op, ast.Is | ast.IsNot) for op in node.ops) and all(
        isinstance(c, ast.Constant) and c.value is None for c in node.comparators)


def _docstrings(tree: ast.Module) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def _texts(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, text) of each string literal but the docstrings; an f-string's fields read as {}."""
    skip = _docstrings(tree)
    parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip | parts:
            yield n.lineno, n.value
        elif isinstance(n, ast.JoinedStr):
            yield n.lineno, "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in n.values)


def _users_aliases(trees: dict[Path, ast.Module]) -> frozenset[str]:
    """The aliases the product's SQL gives the `users` table (FROM users u, JOIN users AS u…)."""
    found = {"users"}
    for tree in trees.values():
        for _, text in _texts(tree):
            for m in re.finditer(r"(?i)\b(?:FROM|JOIN)\s+users(?:\s+(?:AS\s+)?(\w+))?", text):
                if m[1] and m[1].upper() not in {"WHERE", "JOIN", "LEFT", "INNER", "ON", "ORDER", "GROUP", "USING",
                                                 "LIMIT", "SET", "AND", "OR"}:
                    found.add(m[1])
    return frozenset(found)


def _sql_offences(tree: ast.Module, roles: frozenset[str], users: frozenset[str]) -> Iterator[tuple[int, str]]:
    quoted = "|".join(re.escape(r) for r in sorted(roles))
    role_sql = re.compile(rf"(?i){_SQL_TEST}(?:[\w{{}}]+\.)?{ROLE}{_SQL_COMPARED}|'(?:{quoted})'")
    aliased = "|".join(re.escape(a) for a in sorted(users))
    user_org = re.compile(rf"(?i){_SQL_TEST}(?:{aliased})\.{ORGANISATION}{_SQL_COMPARED}\s*(?:\?|'|\d|\()")
    bare_org = re.compile(rf"(?i){_SQL_TEST}{ORGANISATION}{_SQL_COMPARED}\s*(?:\?|'|\d|\()")
    on_users = re.compile(r"(?i)\b(?:FROM|JOIN|UPDATE)\s+users\b")
    for line, text in _texts(tree):
        if m := role_sql.search(text):
            yield line, f"SQL compares a role: {m[0].strip()!r}"
        if m := user_org.search(text) or (on_users.search(text) and bare_org.search(text)):
            yield line, f"SQL compares a user's organisation: {m[0].strip()!r}"


def _python_offences(tree: ast.Module, roles: frozenset[str], holders: frozenset[str], makers: frozenset[str],
                     principal_attrs: frozenset[str]) -> Iterator[tuple[int, str]]:
    dict_values = {id(v) for n in ast.walk(tree) if isinstance(n, ast.Dict) for v in n.values}

    def visit(scope: ast.AST, principals: set[str]) -> Iterator[tuple[int, str]]:
        principals = principals | _bound_principals(scope, makers)
        for node in _walk_here(scope):
            if isinstance(node, ast.Compare) and not _is_presence_test(node) and any(
                    _mentions_role(x, roles, holders) for x in (node.left, *node.comparators)):
                yield node.lineno, f"compares a role: {ast.unparse(node)}"
            elif isinstance(node, ast.MatchValue) and _mentions_role(node.value, roles, holders):
                yield node.value.lineno, f"matches a role: {ast.unparse(node.value)}"
            elif isinstance(node, ast.Attribute) and node.attr in (ROLE, ORGANISATION) and (
                    (isinstance(node.value, ast.Name) and node.value.id in principals)
                    or (isinstance(node.value, ast.Attribute) and node.value.attr in principal_attrs)) and not (
                    node.attr == ROLE and id(node) in dict_values):   # reported as data, not decided on
                yield node.lineno, f"reads the user's {node.attr}: {ast.unparse(node)}"
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                yield from visit(node, principals)

    yield from visit(tree, set())


def access_offences(files: list[Path]) -> list[str]:
    """Each role comparison and each check of the user's organisation in `files` (path:line: what)."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in files}
    roles, holders = _role_values()
    makers, principal_attrs = _principal_sources(trees)
    users = _users_aliases(trees)
    out = []
    for path, tree in trees.items():
        found = [*_python_offences(tree, roles, holders, makers, principal_attrs), *_sql_offences(tree, roles, users)]
        out += [f"{path.relative_to(REPO_DIR)}:{line}: {what}" for line, what in sorted(set(found))]
    return out


def test_only_access_compares_a_role_or_checks_the_users_organisation() -> None:
    """The one place that decides whether a user may see a record is valuation.db.access (README
    "Architecture"): anything else asks it (`require`, the scopes, `own_organisation`…)."""
    offences = access_offences(_product_files())
    assert not offences, "\n".join(["role or own-company check outside db/access.py:", *offences])
