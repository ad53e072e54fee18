"""Issue 24, item 11 — every value of a backup's manifest is checked against what the data implies.

Reproduction (failed before the fix): a manifest whose `sequences` said 10^15 made the restore call
nextval 10^15 times (it never ended; 2·10^9 took a minute), and a sequence name the schema does not
know, a negative, boolean or text value, an audit head or an attached-file count that contradict the
restored data were taken as they were. Now a sequence may be at most one past the largest id its
columns hold plus SEQUENCE_MARGIN (ids consumed by rolled-back writes: DuckDB sequences are not
transactional), must name a sequence of the schema and be a positive integer; the audit head and the
attached files' count and bytes must be the restored data's. Otherwise the restore is refused,
naming the value, and creates nothing.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support import attachments as F
from tests.support import backup as B
from valuation.accounts.login import PRINCIPAL_COLUMNS, principal_from_row
from valuation.attachments import records
from valuation.core.errors import InputError
from valuation.db import backup
from valuation.db.backup_manifest import SEQUENCE_MARGIN
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory, _world_template: tuple[Path, dict[str, int]]) -> Path:
    """The backup of the small world with an attached file, taken once for the module (each test edits a copy)."""
    template, ids = _world_template
    tmp = tmp_path_factory.mktemp("manifest-values")
    shutil.copyfile(template, tmp / "world.duckdb")
    with Store(tmp / "world.duckdb") as store:
        dpc = principal_from_row(store.fetch_one(f"SELECT {PRINCIPAL_COLUMNS} FROM users WHERE username = 'dpc.silva'"))
        records.attach(store, dpc, "contract", ids["A-1"], "edital", [records.Upload("edital.pdf", F.pdf())])
        backup.backup(store, tmp / "b")
    return tmp / "b"


@pytest.fixture
def folder(pristine: Path, tmp_path: Path) -> Path:
    """A copy of the module's backup, in the test's own folder."""
    shutil.copytree(pristine, tmp_path / "b")
    return tmp_path / "b"


def _set(path: tuple[str, ...], value: Any):
    def change(doc: dict[str, Any]) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _max_id(folder: Path, table: str) -> int:
    con = duckdb.connect()
    try:
        return int(con.execute(f"SELECT max(id) FROM read_parquet('{folder / (table + '.parquet')}')").fetchall()[0][0])
    finally:
        con.close()


def _top(folder: Path, seq: str) -> int:
    return int(B.manifest(folder)["sequences"][seq])


HOSTILE: dict[str, Any] = {
    "sequence 10^15": (("sequences", "seq_owners"), 10**15, "seq_owners"),
    "sequence 2·10^9": (("sequences", "seq_owners"), 2 * 10**9, "seq_owners"),
    "sequence negative": (("sequences", "seq_owners"), -5, "seq_owners"),
    "sequence zero": (("sequences", "seq_wrecks"), 0, "seq_wrecks"),
    "sequence boolean": (("sequences", "seq_owners"), True, "seq_owners"),
    "sequence text": (("sequences", "seq_owners"), "12", "seq_owners"),
    "sequence fraction": (("sequences", "seq_owners"), 1.5, "seq_owners"),
    "sequence unknown": (("sequences", "seq_intruder"), 3, "seq_intruder"),
    "sequences not a mapping": (("sequences",), [1, 2], "sequences"),
    "audit head id": (("audit", "head_id"), 10**6, "audit"),
    "audit head hash": (("audit", "head_hash"), "0" * 64, "audit"),
    "audit rows": (("audit", "rows"), 10**12, "audit"),
    "attachment count": (("attachment_files", "count"), 10**9, "attachment_files"),
    "attachment bytes": (("attachment_files", "bytes"), 1, "attachment_files"),
    "table rows": (("tables", "owners", "rows"), "três", "owners"),
}


@pytest.mark.timeout(120)       # the 10^15 case ran forever before the fix
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_manifest_value_the_data_contradicts_is_refused(folder: Path, tmp_path: Path, name: str) -> None:
    path, value, word = HOSTILE[name]
    B.edit_manifest(folder, _set(path, value))
    target = tmp_path / "r.duckdb"
    with pytest.raises(InputError) as refused:
        backup.restore(folder, target)
    TAMPER.count(f"restore:manifest-values:{path[0]}", outcome="refused")
    assert word in str(refused.value), str(refused.value)
    assert not target.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".r.duckdb")]


def test_a_sequence_ahead_of_the_data_within_the_margin_is_kept(folder: Path, tmp_path: Path) -> None:
    """Rolled-back writes consume ids (DuckDB sequences are not transactional): a sequence ahead of
    its largest id by up to SEQUENCE_MARGIN is genuine, and the restored database never reuses those ids."""
    ahead = _top(folder, "seq_owners") + SEQUENCE_MARGIN - 1
    B.edit_manifest(folder, _set(("sequences", "seq_owners"), ahead))
    summary = backup.restore(folder, tmp_path / "r.duckdb")
    TAMPER.count("restore:manifest-values:sequences", outcome="accepted")
    assert summary["sequences"]["seq_owners"] == ahead
    with Store(tmp_path / "r.duckdb") as s:
        assert s.scalar("SELECT nextval('seq_owners')") == ahead


def test_one_past_the_margin_is_refused(folder: Path, tmp_path: Path) -> None:
    top_id = _max_id(folder, "owners")
    B.edit_manifest(folder, _set(("sequences", "seq_owners"), top_id + 1 + SEQUENCE_MARGIN + 1))
    with pytest.raises(InputError, match="seq_owners"):
        backup.restore(folder, tmp_path / "r.duckdb")
