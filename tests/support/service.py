"""The real service in tests: uvicorn serving `service.asgi:app` on 127.0.0.1 and a free port, and a
local SMTP server (aiosmtpd) that keeps every message it receives.

    with smtp_server() as mailbox:                  # mailbox.messages: [(envelope recipients, EmailMessage)]
        with running_service(db, env=smtp_env(mailbox)) as svc:   # svc.base, svc.port, svc.stop()
            ...

`running_service` waits for /_stcore/health, and on exit sends SIGTERM and checks that the
service stopped cleanly (exit status 0, link file removed).
"""
from __future__ import annotations

import contextlib
import email
import email.policy
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.browser import ROOT, _free_port, wait_healthy

CLI_ENV = {"PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}


@dataclass
class Mailbox:
    host: str
    port: int
    messages: list[tuple[list[str], Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd handler
        msg = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append((list(envelope.rcpt_tos), msg))
        return "250 OK"

    def wait_for(self, count: int, timeout: float = 90) -> list[tuple[list[str], Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.messages) >= count:
                    return list(self.messages)
            time.sleep(0.2)
        raise AssertionError(f"expected {count} messages, got {len(self.messages)}")


@contextlib.contextmanager
def smtp_server() -> Iterator[Mailbox]:
    from aiosmtpd.controller import Controller

    port = _free_port()
    box = Mailbox("127.0.0.1", port)
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


def smtp_env(box: Mailbox) -> dict[str, str]:
    return {"VALUATION_SMTP_HOST": box.host, "VALUATION_SMTP_PORT": str(box.port),
            "VALUATION_SMTP_FROM": "painel@dpc.example", "VALUATION_SMTP_SECURITY": "none"}


@dataclass
class Service:
    base: str
    port: int
    proc: subprocess.Popen
    log: Path

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def get(self, path: str, headers: dict[str, str] | None = None) -> Any:
        req = urllib.request.Request(self.base + path, headers=headers or {})
        try:
            return urllib.request.urlopen(req, timeout=60)
        except urllib.error.HTTPError as exc:
            return exc


NO_SCHEDULE = {"VALUATION_DIGEST_AT": "off", "VALUATION_BACKUP_AT": "off", "VALUATION_AUDIT_AT": "off",
               "VALUATION_BACKUP_EVERY": "off",
               "VALUATION_JOB_RETRY_SECONDS": "0"}


@contextlib.contextmanager
def running_service(db_path: Path | str, *, env: dict[str, str] | None = None, port: int | None = None,
                    timeout: float = 90, clock_days: int = 0) -> Iterator[Service]:
    """The service (uvicorn, `service.asgi`) on `db_path`; `clock_days`: its clock that many days ahead
    (`tests.support.shifted_clock`)."""
    port = port or _free_port()
    full_env = {**os.environ, **CLI_ENV, **NO_SCHEDULE, **(env or {}), "VALUATION_DB": str(db_path),
                "VALUATION_PORT": str(port), "PYTHONUNBUFFERED": "1",
                "VALUATION_BASE_URL": f"http://127.0.0.1:{port}"}
    log_path = Path(db_path).with_suffix(f".service-{port}.log")
    log = open(log_path, "a")
    runner = ["-m", "tests.support.shifted_clock", str(clock_days)] if clock_days else ["-m", "uvicorn"]
    proc = subprocess.Popen([sys.executable, *runner, "service.asgi:app", "--host", "127.0.0.1",
                             "--port", str(port)], cwd=ROOT, env=full_env, stdout=log, stderr=subprocess.STDOUT)
    svc = Service(f"http://127.0.0.1:{port}", port, proc, log_path)
    try:
        wait_healthy(svc.base, proc, timeout, lambda: "the service did not start: " + log_path.read_text()[-3000:])
        yield svc
    finally:
        svc.stop()
        log.close()


def cli(*args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "valuation", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **CLI_ENV}, cwd=cwd or ROOT, input=input)
