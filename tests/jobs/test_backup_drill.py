"""Issue 24, "Losing at most an hour", in-process: the hourly backup into dated folders with its mirror
copy and the retention schedule applied in both (never the newest nor the newest proven backup), the
restore drill that proves a backup (and fails on a tampered one), and the late recovery point on
Tarefas, in /saude's document and by e-mail to the admins (a local SMTP server, once per late spell).
The real service, a deleted live database and the measured RPO/RTO: test_recovery_measured.py."""
from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.support import backup as B
from tests.support.service import smtp_env, smtp_server
from tests.support.ui import page_direct, texts
from valuation.db.backup_manifest import FORMAT
from valuation.jobs import backups, drill, runs
from valuation.jobs.maintenance import JobFailed
from valuation.jobs.settings import JobSettings


def _settings(world: Any, tmp_path: Path, env: dict[str, str] | None = None) -> JobSettings:
    return JobSettings.from_env(str(world.path), {"VALUATION_JOB_RETRY_SECONDS": "0",
                                                  "VALUATION_BACKUP_DIR": str(tmp_path / "copias"), **(env or {})})


def _fake(folder: Path, name: str, created_at: str, digest: str = "0" * 64) -> None:
    """A finished-looking old backup folder (a manifest is all the schedule reads)."""
    (folder / name).mkdir(parents=True)
    (folder / name / "manifest.json").write_text(json.dumps(
        {"format": FORMAT, "created_at": created_at, "files": {}, "tables": {}, "vouch": {"digest": digest}}))


def _names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if not p.name.startswith(".")}


OLD = {"2026-01-05-100000": "2026-01-05T13:00:00", "2026-01-05-110000": "2026-01-05T14:00:00",
       "2026-01-06-100000": "2026-01-06T13:00:00", "2026-01-07-100000": "2026-01-07T13:00:00"}


def test_the_hourly_backup_is_mirrored_and_both_folders_kept_by_the_schedule(small_world: Any, tmp_path: Path) -> None:
    mirror = tmp_path / "espelho"
    mirror.mkdir()
    cfg = _settings(small_world, tmp_path, {"VALUATION_BACKUP_MIRROR": str(mirror), "VALUATION_BACKUP_KEEP_HOURLY": "2",
                                            "VALUATION_BACKUP_KEEP_DAILY": "2", "VALUATION_BACKUP_KEEP_WEEKLY": "0"})
    proven_digest = "a" * 64
    for folder in (cfg.backup_dir, mirror):
        for name, at in OLD.items():
            _fake(folder, name, at, proven_digest if name == "2026-01-05-100000" else "0" * 64)
    (cfg.backup_dir / "notas").mkdir()                                        # not ours: never touched
    small_world.store.write("test", lambda tx: tx.audit(backups.PROOF_ACTION, "backup", "2026-01-05-100000", None,
                                                        {"digest": proven_digest}))
    assert runs.run_job(small_world.store, "backup_hourly", cfg)
    new = [n for n in _names(cfg.backup_dir) if n not in OLD and n != "notas"]
    assert len(new) == 1 and backups.DATED.match(new[0]) and len(new[0]) == 17      # AAAA-MM-DD-HHMMSS
    # hourly 2: the new one and 2026-01-07; daily 2: the new one's day and 2026-01-07; the newest proven
    # (2026-01-05 10:00) is protected; 2026-01-05 11:00 and 2026-01-06 go
    expected = {new[0], "2026-01-07-100000", "2026-01-05-100000"}
    assert _names(cfg.backup_dir) == expected | {"notas"}
    assert _names(mirror) == expected
    message = runs.recent_runs(small_world.store)[0]["message"]
    assert "2 cópias antigas removidas" in message and "espelho (2 antigas removidas lá)" in message
    ours, theirs = cfg.backup_dir / new[0], mirror / new[0]
    files = sorted(str(p.relative_to(ours)) for p in ours.rglob("*") if p.is_file())
    assert files == sorted(str(p.relative_to(theirs)) for p in theirs.rglob("*") if p.is_file()) and files
    for rel in files:
        a, b = os.lstat(ours / rel), os.lstat(theirs / rel)
        assert (a.st_ino, a.st_dev) != (b.st_ino, b.st_dev) and b.st_nlink == 1 and (b.st_mode & 0o777) == 0o600
        assert B.sha(ours / rel) == B.sha(theirs / rel)
    assert not [p for p in mirror.iterdir() if ".partial-" in p.name]


def test_a_mirror_that_is_not_mounted_fails_the_job_and_is_never_created(small_world: Any, tmp_path: Path) -> None:
    cfg = _settings(small_world, tmp_path, {"VALUATION_BACKUP_MIRROR": str(tmp_path / "share" / "valuation")})
    assert not runs.run_job(small_world.store, "backup_hourly", cfg)         # tried twice, kept locally
    rows = runs.recent_runs(small_world.store)
    assert [r["outcome"] for r in rows] == ["failed", "failed"]
    assert "O espelho" in rows[0]["message"] and "a pasta não existe" in rows[0]["message"]
    # the retry's backup replaced the first one: the schedule keeps the newest of each hour
    assert "1 cópia antiga removida" in rows[0]["message"]
    assert len(_names(cfg.backup_dir)) == 1 and not (tmp_path / "share").exists()


def test_the_drill_proves_the_newest_backup_and_refuses_a_tampered_one(small_world: Any, tmp_path: Path) -> None:
    store = small_world.store
    cfg = _settings(small_world, tmp_path)
    assert drill.recovery_point(store, cfg, store.now()).late                 # no proven backup yet
    assert runs.run_job(store, "backup_hourly", cfg) and runs.run_job(store, "restore_drill", cfg)
    (first,) = _names(cfg.backup_dir)
    proof = store.fetch_one("SELECT entity_id, after_json FROM audit_log WHERE action = 'backup_proven'")
    assert proof is not None and proof["entity_id"] == first
    facts = json.loads(proof["after_json"])
    assert facts["rows"] > 0 and facts["seconds"] >= 0 and facts["digest"] == B.manifest(
        cfg.backup_dir / first)["vouch"]["digest"]
    assert "provada" in runs.recent_runs(store)[0]["message"]
    assert not [p for p in cfg.backup_dir.iterdir() if ".drilling-" in p.name]   # the scratch copy is gone
    point = drill.recovery_point(store, cfg, store.now())
    assert point.proven is not None and point.proven.name == first and not point.late and point.unproven == 0
    assert drill.recovery_point(store, cfg, store.now() + timedelta(minutes=71)).late       # 60 min + 10 of grace
    assert not drill.recovery_point(store, cfg, store.now() + timedelta(minutes=69)).late
    assert "Nada a provar" in drill.drill(store, cfg)

    assert runs.run_job(store, "backup_hourly", cfg)
    (second,) = _names(cfg.backup_dir) - {first}
    B.rewrite_table(cfg.backup_dir / second, "wrecks", "SELECT * REPLACE (name || ' (alterado)' AS name) FROM {src}")
    with pytest.raises(JobFailed, match=f"A cópia {second} não restaura"):
        drill.drill(store, cfg)                       # the job: retried once, then the admins' e-mail
    point = drill.recovery_point(store, cfg, store.now())
    assert point.proven is not None and point.proven.name == first and point.unproven == 1
    assert not [p for p in cfg.backup_dir.iterdir() if ".drilling-" in p.name]


def test_a_late_recovery_point_is_shown_and_mailed_to_the_admins_once(small_world: Any, tmp_path: Path,
                                                                        monkeypatch: Any) -> None:
    store = small_world.store
    store.write("test", lambda tx: tx.execute("UPDATE users SET email = 'gustavo@dpc.example' WHERE username = ?",
                                              [small_world.username("admin")]))
    started = store.now() - timedelta(minutes=30)          # the service has run long enough for a backup
    with smtp_server() as box:
        cfg = _settings(small_world, tmp_path, smtp_env(box))
        assert not drill.check_recovery_point(store, cfg, since=store.now(), now=store.now())   # just started
        assert drill.check_recovery_point(store, cfg, since=started, now=store.now())
        assert not drill.check_recovery_point(store, cfg, since=started, now=store.now())      # once a spell
        rcpt, msg = box.wait_for(1)[0]
    assert rcpt == ["gustavo@dpc.example"] and "ponto de recuperação" in msg["Subject"]
    assert "Nenhuma cópia de segurança provada" in msg.get_body(("plain",)).get_content()
    assert drill.recovery_point(store, cfg, store.now()).as_json()["older_than_recovery_point"] is True
    monkeypatch.setenv("VALUATION_BACKUP_DIR", str(cfg.backup_dir))
    store.close()
    at = page_direct(small_world.path, small_world.principal("admin"), "jobs")
    assert not at.exception and "Nenhuma cópia de segurança provada" in texts(at)
    assert "Alerta: ponto de recuperação" in list(at.dataframe[0].value["Tarefa"])
    at.button(key="run_backup_hourly").click().run()
    at.button(key="run_restore_drill").click().run()
    at.run()                                                # the notice is drawn before the buttons run
    assert not at.exception and "Cópia provada mais recente" in texts(at)
    assert "mais antiga que o ponto de recuperação" not in texts(at)
