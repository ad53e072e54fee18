"""Issue 24, the hostile-input campaign raised to backup manifests (property-based, hypothesis): a real
backup of the small world with one value of its manifest replaced — sequences, table entries, the
audit head, the vouch, the attached files, the schema version, the format, the file list — by a
generated hostile value (huge and negative numbers, booleans, text, lists, nested objects, nulls).
The restore either creates a database whose chain verifies, or refuses with an `InputError`/
`ValuationError` and creates nothing — never another exception, never a minute of work (a sequence of
10^15 used to run forever). Counted in the run's summary (tests/support/fuzz_report.py).
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from valuation.core.errors import ValuationError
from valuation.db import audit, backup
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import FUZZ  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]

N_MANIFEST = 30          # generated manifests (each a backup folder restored)
_HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory, _world_template: tuple[Path, dict[str, int]]) -> Path:
    folder = tmp_path_factory.mktemp("hostile-manifests")
    db = folder / "world.duckdb"
    shutil.copyfile(_world_template[0], db)
    with Store(db) as s:
        s.write("fixture", lambda tx: tx.audit("touch", "test", 1, None, {"v": 1}))
        backup.backup(s, folder / "b")
    return folder / "b"


def _paths(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    """Every place of the manifest a hostile value can go: its top-level keys and one level below."""
    out: list[tuple[str, ...]] = []
    for key, value in doc.items():
        out.append((key,))
        if isinstance(value, dict):
            out += [(key, sub) for sub in list(value)[:12]]
    out += [("sequences", "seq_intruder"), ("tables", "intruder"), ("vouch", "extra")]
    return out


HOSTILE = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**20), max_value=10**20)
    | st.sampled_from([10**15, 2 * 10**9, -1, 0, 2**63, 10**400]) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40) | st.sampled_from(["0" * 64, "f" * 64, "../../etc/passwd", "valuation-backup/2"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12)


def test_a_hostile_manifest_value_restores_verified_or_is_refused(pristine: Path) -> None:
    doc = json.loads((pristine / backup.MANIFEST).read_text(encoding="utf-8"))
    paths = _paths(doc)

    @settings(max_examples=N_MANIFEST, deadline=None, suppress_health_check=_HEALTH, print_blob=True)
    @given(path=st.sampled_from(paths), value=HOSTILE)
    def run(path: tuple[str, ...], value: Any) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch) / "b"
            shutil.copytree(pristine, folder)
            changed = json.loads((folder / backup.MANIFEST).read_text(encoding="utf-8"))
            node = changed
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
            (folder / backup.MANIFEST).write_text(json.dumps(changed), encoding="utf-8")
            target = Path(scratch) / "r.duckdb"
            try:
                backup.restore(folder, target)
            except ValuationError as exc:
                assert str(exc) and "Traceback" not in str(exc)
                assert not target.exists()
                FUZZ.count(f"restore:manifest:{path[0]}", outcome="refused")
                return
            with Store(target, read_only=True) as s:          # accepted: a value the restore does not rely on
                assert audit.verify_chain(s)[0]
            FUZZ.count(f"restore:manifest:{path[0]}", outcome="accepted")

    run()
