"""The package's modules, for the tests that check every function of a kind: every store function
that takes the user (access matrix, hostile input), every parser of uploads, every exporter, and
every module that writes (the audit guard). New modules are found without editing a list.

Keys are the module path under `valuation` plus the function: 'registry.wrecks.list_wrecks'.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import valuation

PACKAGE_DIR = Path(valuation.__file__).parent
NOT_CAPABILITIES = ("valuation.cli.main", "valuation.demo.base", "valuation.__main__")  # callers, not store functions


def modules(*, include_callers: bool = False) -> list[ModuleType]:
    found = []
    for info in pkgutil.walk_packages(valuation.__path__, prefix="valuation."):
        if not include_callers and info.name.startswith(NOT_CAPABILITIES):
            continue
        found.append(importlib.import_module(info.name))
    return found


def functions(match: Callable[[str, list[inspect.Parameter]], bool]) -> dict[str, Callable[..., Any]]:
    """Public functions defined in a capability module for which `match(name, parameters)` holds."""
    found = {}
    for mod in modules():
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or name.startswith("_"):
                continue
            if match(name, list(inspect.signature(fn).parameters.values())):
                found[f"{mod.__name__.removeprefix('valuation.')}.{name}"] = fn
    return found


def store_functions(match: Callable[[list[inspect.Parameter]], bool] = lambda rest: True
                    ) -> dict[str, Callable[..., Any]]:
    """Functions `(store|db, user, …)`; `match` sees the parameters after the user."""
    return functions(lambda name, ps: len(ps) >= 2 and ps[0].name in ("store", "db") and ps[1].name == "user"
                     and match(ps[2:]))


def source_files() -> list[Path]:
    return sorted(p for p in PACKAGE_DIR.rglob("*.py") if "__pycache__" not in p.parts)


def docstring_positions(tree: ast.AST) -> set[tuple[int, int]]:
    """(line, column) of every docstring of a parsed module: its own, its classes' and its functions'."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                out.add((first.lineno, first.col_offset))
    return out
