"""RPO and RTO measured (issue 24, "Losing at most an hour"): bench/recovery.py's procedure on the test
world — the real service takes the hourly backup, mirrors and proves it; more items are imported
through it; the live database, its files and the local backups are deleted while it runs; the
database is restored from the mirror and served again. Exactly the writes after the backup are lost,
none before; the restored chain verifies. The figures are printed (no timing is asserted: SECURITY.md
has the figures of a run on the demo database)."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _recovery() -> Any:
    name = "valuation_bench_recovery"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "recovery.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_a_lost_disk_loses_only_the_writes_after_the_hourly_backup(small_world: Any, tmp_path: Path) -> None:
    small_world.store.close()
    figures = _recovery().measure(small_world.path, tmp_path / "medida", contract="A-1", actor="dpc.silva",
                                  split=120)
    print("\nrecovery measured:", json.dumps(figures, ensure_ascii=False))
    assert (figures["written_before_backup"], figures["written_after_backup"]) == (120, 80)
    assert (figures["kept"], figures["lost"]) == (120, 80)
    assert figures["backup_restored"] == figures["backup_proven"] and figures["audit_verify_ok"] is True
    assert figures["saude_older_than_recovery_point"] is False         # /saude, once the backup was proven
    assert figures["backup_age_at_loss_s"] >= 0 and figures["rto_s"]["total"] > 0
