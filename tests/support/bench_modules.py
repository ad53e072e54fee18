"""bench/ is not a package: its scripts are loaded by file path, once per test process."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_module(script: str, name: str) -> ModuleType:
    """The module of bench/`script` under `name` (loaded on first use)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCH / script)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
