"""Issue 24, item 12 — `import items` read the whole file before its 200 MB check.

Reproduction (failed before the fix): `python -m valuation items BIG …` read all of BIG into memory and
only then refused it as too large; through the CLI bridge that read happened inside the service (a 2 GB
file took the service's peak from 464 to 2 365 MB). Now the command looks at the file's size first
(`fstat`), refuses what is beyond `MAX_IMPORT_BYTES` or not a regular file without reading a byte of
it, and reads the rest in bounded chunks — the same handler runs in the service through the bridge.
The files are sparse: no disk is used.
"""
from __future__ import annotations

import base64
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from service import cli_bridge  # noqa: E402
from tests.support.fuzz_report import FIGURES, UPLOADS  # noqa: E402
from valuation.inventory.item_import import MAX_IMPORT_BYTES  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


def _bridged(argv: list[str], cwd: Path, db: Path) -> tuple[int, str, int]:
    """Run a command as the service runs a delegated one: (exit, stderr, peak bytes allocated)."""
    cli_bridge.install()                               # as the service does at start
    tracemalloc.start()
    try:
        done = cli_bridge.run_command(argv, str(cwd), str(db))
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        cli_bridge.uninstall()
    return int(done["exit"]), base64.b64decode(done["stderr"]).decode("utf-8"), peak


def test_an_oversized_file_is_refused_without_being_read(small_world: Any, tmp_path: Path) -> None:
    small_world.store.close()
    big = tmp_path / "itens.csv"
    with big.open("wb") as fh:
        fh.truncate(MAX_IMPORT_BYTES + 1)               # sparse: 200 MB + 1 byte that take no disk
    code, err, peak = _bridged(["import", "items", str(big), "--db", str(small_world.path), "--contract", "A-1",
                                "--actor", "dpc.silva"], tmp_path, small_world.path)
    FIGURES.record("import items of 200 MB + 1 byte through the CLI bridge: peak allocated MB",
                   f"{peak / 2**20:.1f} (before: 235)")
    UPLOADS.count("import_size:oversized", outcome="refused")
    assert code == 2 and "200 MB" in err, err
    assert peak < 8 * 2**20                               # not a byte of it read


def test_something_other_than_a_regular_file_is_refused(small_world: Any, tmp_path: Path) -> None:
    small_world.store.close()
    fifo = tmp_path / "itens.csv"
    os.mkfifo(fifo)
    code, err, _peak = _bridged(["import", "items", str(fifo), "--db", str(small_world.path), "--contract", "A-1",
                                 "--actor", "dpc.silva"], tmp_path, small_world.path)
    UPLOADS.count("import_size:not_a_file", outcome="refused")
    assert code == 2 and "arquivo comum" in err, err


def test_a_normal_file_is_still_imported_through_the_bridge(small_world: Any, tmp_path: Path) -> None:
    small_world.store.close()
    good = tmp_path / "itens.csv"
    good.write_text("codigo;descricao;categoria;material;quantidade;data_recuperacao;estado\n"
                    "A1-100;Moeda;moeda;prata;1;02/01/2025;boa\n", encoding="utf-8")
    code, err, _peak = _bridged(["import", "items", str(good), "--db", str(small_world.path), "--contract", "A-1",
                                 "--actor", "dpc.silva"], tmp_path, small_world.path)
    UPLOADS.count("import_size:normal", outcome="accepted")
    assert code == 0, err
