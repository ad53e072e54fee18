"""A newcomer's first minutes (issue 23 item 17): README's start command, then its command lines.

- `bash scripts/start.sh` (README "Two commands"), run as written on a copy of the full demo in a temporary
  folder (left 0755 with the database 0644, as an earlier start.sh made them: afterwards both, and every file
  the service writes there, are its owner's only — issue 45, item 14): what the terminal shows (stdout and
  stderr, as a person sees them) ends its start-up with one human line — "Painel em http://127.0.0.1:PORT;
  usuários de demonstração no README" — and no JSON; one HTTP request is one log line (uvicorn's handler and
  Streamlit's console handler both wrote each one).
- Every `python -m valuation …` line of README is written `.venv/bin/python -m valuation …` (start.sh makes
  that .venv; a bare `python` is not it), and each one's `--help` form runs with that interpreter; the
  lines that only create and read a new database run exactly as written.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.support.browser import ROOT, _free_port, wait_healthy
from tests.support.service import CLI_ENV, NO_SCHEDULE

README = ROOT / "README.md"
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
REQUEST_LINE = re.compile(r'"(GET|POST|HEAD|PUT|DELETE) \S+ HTTP/')
COMMAND = re.compile(r"(?:^ {4}|`)(\S*python) -m valuation ([^`#\n]*)", re.M)


def _readme_commands() -> list[tuple[str, str]]:
    """(interpreter as written, the words after `-m valuation`) of every command line README shows."""
    return [(m.group(1), m.group(2).strip()) for m in COMMAND.finditer(README.read_text(encoding="utf-8"))]


def _subcommand(words: str) -> list[str]:
    """The command words of a README line: `db init --db PATH [--demo]` → ['db', 'init']."""
    out: list[str] = []
    for word in words.split():
        if not re.fullmatch(r"[a-z][a-z-]*", word):
            break
        out.append(word)
    return out


def test_readme_command_lines_name_the_venv_interpreter_and_run() -> None:
    commands = _readme_commands()
    assert len(commands) >= 9, commands       # the "Command line" block and the first administrator's line
    bare = sorted({f"{py} -m valuation {words}" for py, words in commands if py != ".venv/bin/python"})
    assert not bare, "README lines a newcomer cannot run as written after the start command: " + "; ".join(bare)
    assert VENV_PYTHON.exists(), "the start command's .venv is missing"
    env = {**os.environ, **CLI_ENV}           # this checkout's code (a worktree's .venv may point elsewhere)
    for sub in sorted({tuple(_subcommand(words)) for _, words in commands}):
        done = subprocess.run([str(VENV_PYTHON), "-m", "valuation", *sub, "--help"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.startswith("usage:"), (sub, done.stderr[-800:])
        assert " ".join(sub) in done.stdout.splitlines()[0], (sub, done.stdout[:200])


def test_readme_compute_kinds_are_the_commands_kinds() -> None:
    line = next(words for _, words in _readme_commands() if words.startswith("compute KIND"))
    comment = next(ln for ln in README.read_text(encoding="utf-8").splitlines() if "compute KIND" in ln)
    kinds = [k.strip() for k in comment.split("#", 1)[1].split("(")[0].split("|")]
    done = subprocess.run([str(VENV_PYTHON), "-m", "valuation", "compute", "--help"], cwd=ROOT,
                          env={**os.environ, **CLI_ENV}, capture_output=True, text=True, timeout=120)
    choices = re.search(r"\{([a-z,-]+)\}", done.stdout)
    assert line and choices and sorted(kinds) == sorted(choices.group(1).split(",")), (kinds, done.stdout[:300])


def test_readme_database_lines_run_as_written(tmp_path: Path) -> None:
    """`db init --db PATH`, `db stats --db PATH` and `audit verify --db PATH` exactly as README shows them."""
    lines = {words for _, words in _readme_commands()}
    db = tmp_path / "nova.duckdb"
    outputs: dict[str, str] = {}
    for shown in ("db init --db PATH [--demo]", "db stats --db PATH", "audit verify --db PATH"):
        assert shown in lines, f"README no longer shows `{shown}`"
        argv = shown.replace(" [--demo]", "").replace("PATH", str(db)).split()
        done = subprocess.run([str(VENV_PYTHON), "-m", "valuation", *argv], cwd=tmp_path,
                              env={**os.environ, **CLI_ENV}, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (shown, done.stderr[-800:])
        outputs[shown] = done.stdout
    assert db.exists() and "counts" in json.loads(outputs["db stats --db PATH"])


def _start(db: Path, port: int, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, **CLI_ENV, **NO_SCHEDULE, "VALUATION_DB": str(db), "PORT": str(port),
           "HOST": "127.0.0.1", "PYTHONUNBUFFERED": "1"}
    with open(out, "wb") as sink:
        return subprocess.Popen(["bash", "scripts/start.sh"], cwd=ROOT, env=env, stdout=sink,
                                stderr=subprocess.STDOUT)


def _lines_when(out: Path, pred, timeout: float = 30) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        lines = out.read_text(encoding="utf-8", errors="replace").splitlines()
        if pred(lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)


@pytest.mark.timeout(600)
def test_start_command_ends_with_one_human_line_and_logs_each_request_once(full_demo_db: Path,
                                                                          tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    db = data / "valuation.duckdb"
    shutil.copy(full_demo_db, db)
    os.chmod(data, 0o755)
    os.chmod(db, 0o644)             # issue 45, item 14: what an earlier start.sh left, world-readable
    port = _free_port()
    out = tmp_path / "terminal.txt"
    proc = _start(db, port, out)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, proc, 240, lambda: "start.sh did not serve: " + out.read_text()[-3000:])
        opened = {p.name: oct(p.stat().st_mode & 0o777) for p in (data, *data.iterdir()) if p.stat().st_mode & 0o077}
        assert not opened, f"start.sh left the data folder or its files open to others: {opened}"
        startup = [ln for ln in out.read_text(encoding="utf-8").splitlines() if not REQUEST_LINE.search(ln)]
        probe = uuid.uuid4().hex
        with urllib.request.urlopen(f"{base}/saude?sonda={probe}", timeout=30) as r:
            assert r.status == 200
        _lines_when(out, lambda ls: any(probe in ln for ln in ls))
        time.sleep(1.0)                                 # a second handler's line would follow at once
        hits = [ln for ln in out.read_text(encoding="utf-8").splitlines() if probe in ln]
        problems = []
        ready = f"Painel em {base}; usuários de demonstração no README"
        if not startup or startup[-1] != ready:
            problems.append(f"the start-up does not end with {ready!r}:\n" + "\n".join(startup[-6:]))
        if any(ln.lstrip().startswith(("{", "}", '"')) for ln in startup):
            problems.append("the start-up prints JSON")
        if len(hits) != 1:
            problems.append(f"one request, {len(hits)} log lines:\n" + "\n".join(hits))
        assert not problems, "\n".join(problems)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
