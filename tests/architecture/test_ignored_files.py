"""What the service and the command line write beside the database never reaches git (issue 43, item 14): the
backups, the attached and signed files, the admin's trust folder, the CLI's token file — besides the database."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from valuation.cli.service_link import link_path

ROOT = Path(__file__).resolve().parents[2]
WRITTEN = ["data/valuation.duckdb", "data/valuation.duckdb.wal", str(link_path("data/valuation.duckdb")),
           "data/backups/2026-05-01/manifest.json", "data/files/ab/cd/" + "ab" * 32,
           "data/trust/anchors/ac-raiz-v10.crt", "data/trust/crls/LCRacfGovBr.crl"]


@pytest.mark.parametrize("path", WRITTEN)
def test_what_the_service_writes_in_data_is_ignored_by_git(path: str) -> None:
    done = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, capture_output=True)
    assert done.returncode == 0, f"{path} is not ignored by .gitignore"


@pytest.mark.parametrize("path", ["src/valuation/signatures/trust.py", "data/samples/itens_galeao_santo_antonio.csv",
                                  "data/.gitkeep"])
def test_the_code_and_the_samples_are_not_ignored(path: str) -> None:
    done = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, capture_output=True)
    assert done.returncode == 1, f"{path} is ignored by .gitignore"
