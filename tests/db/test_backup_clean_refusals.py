"""Issue 24, item 17 — `db backup` and `db restore` refuse bad folders with a message, never an
"internal error".

Reproduction (failed before the fix): `db backup --to /proc/x` (a folder that cannot be created),
`--to` under a regular file, and a `manifest.json` nested 100 000 levels deep (RecursionError in the
JSON parser) all ended in "internal error (…)". Now each is a refusal naming the option and the cause
(exit 2), and nothing is left behind.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from valuation.cli.main import main

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import TAMPER  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def db(small_world: Any) -> Path:
    small_world.store.close()
    return Path(small_world.path)


@pytest.mark.parametrize("to", ["/proc/x", "/proc/self/x", "/dev/null/x", "/sys/x/y"])
def test_a_backup_folder_that_cannot_be_created_is_refused_cleanly(db: Path, capsys, to: str) -> None:
    rc, out, err = cli(capsys, "db", "backup", "--db", str(db), "--to", to)
    TAMPER.count("backup:to", outcome="refused" if rc == 2 else "internal error")
    assert "internal error" not in err and "Traceback" not in err, err
    assert rc == 2 and out == "" and "--to" in err and "cannot be created" in err, err


def test_a_backup_under_a_regular_file_is_refused_cleanly(db: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "plain").write_text("x")
    rc, _out, err = cli(capsys, "db", "backup", "--db", str(db), "--to", str(tmp_path / "plain" / "b"))
    assert rc == 2 and "internal error" not in err and "--to" in err, err
    assert (tmp_path / "plain").read_text() == "x"


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000,                        # RecursionError in json
    '{"format": ' + "[" * 50 + "]" * 50 + "}",           # parses, but deeper than any manifest
    '{"format": "valuation-backup/2", "files": {}, "tables": {}, "x": ' + "9" * 5000 + "}",   # int digits limit
    "\ufeff{}",                                           # a BOM
    "",
])
def test_a_hostile_manifest_is_refused_cleanly(db: Path, tmp_path: Path, capsys, text: str) -> None:
    assert cli(capsys, "db", "backup", "--db", str(db), "--to", str(tmp_path / "b"))[0] == 0
    (tmp_path / "b" / "manifest.json").write_text(text, encoding="utf-8")
    rc, out, err = cli(capsys, "db", "restore", "--from", str(tmp_path / "b"), "--db", str(tmp_path / "r.duckdb"))
    TAMPER.count("restore:manifest-shape", outcome="refused" if rc == 2 else "internal error")
    assert "internal error" not in err and "Traceback" not in err, err
    assert rc == 2 and out == "" and "manifest.json" in err, err
    assert not (tmp_path / "r.duckdb").exists()


def test_a_huge_manifest_is_refused_before_it_is_parsed(db: Path, tmp_path: Path, capsys,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from valuation.db import backup_manifest

    monkeypatch.setattr(backup_manifest, "MAX_MANIFEST_BYTES", 4096)
    assert cli(capsys, "db", "backup", "--db", str(db), "--to", str(tmp_path / "b"))[0] == 0
    with (tmp_path / "b" / "manifest.json").open("a", encoding="utf-8") as fh:
        fh.write(" " * 5000)
    rc, _out, err = cli(capsys, "db", "restore", "--from", str(tmp_path / "b"), "--db", str(tmp_path / "r.duckdb"))
    assert rc == 2 and "more than the 4096 bytes allowed for a backup's manifest" in err, err
