"""Reading a backup folder's `manifest.json` as hostile input (issues 14 and 24).

`read_manifest(folder)` checks, before anything of the folder is used: every entry of the folder is
a regular file or the real `files/` folder — a symbolic link, FIFO, device or socket is refused and
never opened (item 2); the manifest is at most MAX_MANIFEST_BYTES, UTF-8 JSON nested at most
MAX_DEPTH levels (a deeply nested document is refused cleanly, not by a RecursionError: item 17);
its format is one this program writes; every file it lists is in the folder with that sha256, and
the folder holds nothing it does not list. What the values say (row counts, sequences, the audit
head, attached files) is checked against the restored data by the restore (`check_values`).
"""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from valuation.core.errors import InputError, Problem
from valuation.db import safe_files
from valuation.db.blobs import FILES_DIR

MANIFEST = "manifest.json"
FORMAT = "valuation-backup/3"
# 1: EXPORT DATABASE (its schema.sql/load.sql are never read); 2: Parquet per table, no vouching row;
# 3: the backup is an audited act whose row in the chain vouches for every table of record (issue 24).
FORMATS = ("valuation-backup/1", "valuation-backup/2", FORMAT)
DUCKDB_FILES = ("schema.sql", "load.sql")     # listed by format 1 only
MAX_MANIFEST_BYTES = 64 << 20                 # a manifest lists ~100 bytes per attached file: ~500 000 files
MAX_DEPTH = 8                                 # ours nests 4 levels (manifest → tables → table → rows)


def _unreadable(source: Path, why: str) -> InputError:
    return InputError(Problem("--from", f"{source / MANIFEST} is unreadable: {why}"))


def _depth(value: Any) -> int:
    """The nesting depth of a parsed JSON value, without recursion."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        node, level = pending.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            return level
        if isinstance(node, dict):
            pending.extend((v, level + 1) for v in node.values())
        elif isinstance(node, list):
            pending.extend((v, level + 1) for v in node)
    return deepest


def _parse(source: Path) -> Any:
    try:
        raw = safe_files.read_regular(source / MANIFEST, max_bytes=MAX_MANIFEST_BYTES)
    except FileNotFoundError as exc:
        raise InputError(Problem("--from", f"{source} is not a valuation backup (no {MANIFEST})")) from exc
    except safe_files.UnsafeEntry as exc:
        raise InputError(Problem("--from", f"{exc}: a backup holds regular files only (refused)")) from exc
    except safe_files.TooLarge as exc:
        raise InputError(Problem("--from", f"{exc} for a backup's manifest (refused before reading it)")) from exc
    except OSError as exc:
        raise _unreadable(source, exc.strerror or str(exc)) from exc
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _unreadable(source, "not UTF-8 text") from exc
    except RecursionError as exc:
        raise _unreadable(source, f"nested more than {MAX_DEPTH} levels deep") from exc
    except ValueError as exc:                          # JSONDecodeError, or an integer of thousands of digits
        raise _unreadable(source, str(exc)[:200]) from exc
    if _depth(doc) > MAX_DEPTH:
        raise _unreadable(source, f"nested more than {MAX_DEPTH} levels deep")
    return doc


def peek(source: Path) -> dict[str, Any] | None:
    """The parsed manifest of `source` without checking the files it lists (the jobs list their backup
    folders with it: db/backup folder names, times, vouch digests), or None when it cannot be read as one."""
    try:
        doc = _parse(source)
    except InputError:
        return None
    return doc if isinstance(doc, dict) and doc.get("format") in FORMATS else None


def _top_level(source: Path) -> tuple[set[str], list[Problem]]:
    """The names in the folder, and a problem for each that is not a regular file or the real files/."""
    names, problems = set(), []
    try:
        entries = list(os.scandir(source))
    except OSError as exc:
        raise InputError(Problem("--from", f"{source}: unreadable folder ({exc.strerror or exc})")) from exc
    for entry in entries:
        names.add(entry.name)
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISREG(mode) or (entry.name == FILES_DIR and stat.S_ISDIR(mode)):
            continue
        try:
            safe_files.check_entry(Path(entry.path), folder=entry.name == FILES_DIR)
        except safe_files.UnsafeEntry as exc:
            problems.append(Problem("--from", f"{exc}: a backup holds regular files only (refused)"))
        else:
            problems.append(Problem("--from", f"{entry.name} is a folder: a backup holds no folder but {FILES_DIR}/"))
    return names, problems


def read_manifest(source: str | Path) -> dict[str, Any]:
    """The manifest of a backup directory, after checking every file it lists (InputError otherwise)."""
    source = Path(source)
    if not source.is_dir():
        raise InputError(Problem("--from", f"{source} is not a directory"))
    names, problems = _top_level(source)
    if problems:
        raise InputError(problems)
    manifest = _parse(source)
    if not isinstance(manifest, dict) or manifest.get("format") not in FORMATS:
        raise InputError(Problem("--from", f"{source / MANIFEST}: not a {FORMAT} manifest"))
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()) \
            or not isinstance(manifest.get("tables"), dict):
        raise InputError(Problem("--from", f"{source / MANIFEST}: files or tables missing"))
    problems += table_entry_problems(manifest["tables"])
    for name in DUCKDB_FILES if manifest["format"] == FORMATS[0] else ():
        if name not in files:
            problems.append(Problem("--from", f"{name} is not listed in {MANIFEST}"))
    for name, expected in sorted(files.items()):
        problems += _file_problems(source, name, expected)
    wanted = {f"{t}.parquet" for t in manifest["tables"] if isinstance(t, str)}
    if manifest["format"] == FORMATS[0]:
        wanted |= set(DUCKDB_FILES)
    for name in sorted(set(files) - wanted):
        problems.append(Problem("--from", f"{MANIFEST} lists {name}, which is not the Parquet file of a table: "
                                          f"a backup holds nothing else"))
    listed = set(files) | {MANIFEST, FILES_DIR}
    for extra in sorted(names - listed):
        problems.append(Problem("--from", f"{extra} is in the backup directory but not in {MANIFEST}"))
    if problems:
        raise InputError(problems)
    return manifest


def _file_problems(source: Path, name: str, expected: str) -> list[Problem]:
    if Path(name).name != name or name in (MANIFEST, "", ".", ".."):
        return [Problem("--from", f"{MANIFEST} lists an invalid file name {name!r}")]
    try:
        found = safe_files.sha256_of(source / name)
    except FileNotFoundError:
        return [Problem("--from", f"{name} is missing from the backup")]
    except safe_files.UnsafeEntry as exc:
        return [Problem("--from", f"{exc}: a backup holds regular files only (refused)")]
    if found != expected:
        return [Problem("--from", f"{name} was altered or corrupted (sha256 differs from {MANIFEST})")]
    return []


# -- the manifest's values against the restored data (issue 24, item 11) ------------------------------
SEQUENCE_MARGIN = 1_200_000   # ids a sequence may be ahead of its data: rolled-back writes consume ids
                              # (DuckDB sequences are not transactional); the largest import is 1 100 000 rows


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def sequence_problems(claimed: Any, implied: dict[str, int]) -> list[Problem]:
    """Problems of the manifest's `sequences` against `implied` (per sequence of the schema, one past
    the largest id its columns hold, or its start value when they are empty)."""
    if claimed is None:
        return []
    if not isinstance(claimed, dict):
        return [Problem("--from", f"{MANIFEST}: sequences is not a mapping of sequence names to numbers")]
    problems = []
    for name, value in sorted(claimed.items(), key=lambda kv: str(kv[0])):
        label = str(name)[:80]
        if name not in implied:
            problems.append(Problem("--from", f"{MANIFEST}: sequence {label!r} is not part of the schema: refused"))
        elif not _is_int(value) or value < 1:
            problems.append(Problem("--from", f"{MANIFEST}: sequence {label} = {str(value)[:40]!r} is not a positive "
                                              "integer: refused"))
        elif value > implied[name] + SEQUENCE_MARGIN:
            problems.append(Problem("--from", f"{MANIFEST}: sequence {label} = {value} is more than {SEQUENCE_MARGIN} "
                                              f"past what its data implies ({implied[name]}): refused"))
    return problems


def table_entry_problems(tables: dict[Any, Any]) -> list[Problem]:
    """Each entry of the manifest's `tables` is {"rows": n ≥ 0, "digest": text}."""
    problems = []
    for name, entry in tables.items():
        ok = isinstance(entry, dict) and _is_int(entry.get("rows")) and entry["rows"] >= 0 \
            and isinstance(entry.get("digest"), str)
        if not ok:
            problems.append(Problem("--from", f"{MANIFEST}: the entry of table {str(name)[:80]} is not "
                                              "{rows, digest}: refused"))
    return problems


def audit_problems(claimed: Any, restored: dict[str, Any]) -> list[Problem]:
    """The manifest's audit head (rows, newest id and hash) is the restored chain's."""
    keys = ("rows", "head_id", "head_hash")
    if not isinstance(claimed, dict) or any(claimed.get(k) != restored.get(k) for k in keys):
        return [Problem("--from", f"{MANIFEST}: the audit head it records ({_head(claimed)}) differs from the "
                                  f"restored chain ({_head(restored)}): refused")]
    return []


def _head(state: Any) -> str:
    if not isinstance(state, dict):
        return "none"
    return f"{str(state.get('rows'))[:20]} rows, newest {str(state.get('head_id'))[:20]} " \
           f"{str(state.get('head_hash'))[:12]}"
