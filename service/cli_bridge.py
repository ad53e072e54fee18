"""Running the command line's batch commands inside the service (issue 13, item 4).

`python -m valuation …` finds the 0600 link file beside the database and POSTs its argv here
(`valuation.cli.service_link`). The command is parsed by the same parser and run by the same
handler, on the service's own Store (`valuation.db.shared.using`), in a worker thread whose
stdout and stderr are captured — by a router installed on sys.stdout/sys.stderr that sends
only that thread's writes to its buffers — and returned with the exit status.
"""
from __future__ import annotations

import base64
import io
import sys
import threading
from pathlib import Path
from typing import Any

_local = threading.local()


class _Router(io.TextIOBase):
    """Stand-in for sys.stdout / sys.stderr: a thread with a capture writes there, others to `real`."""

    def __init__(self, real: Any, slot: str) -> None:
        self.real = real
        self.slot = slot

    def _target(self) -> Any:
        return getattr(_local, self.slot, None) or self.real

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    @property
    def buffer(self) -> Any:
        return self._target().buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]  # typeshed declares TextIO.encoding an attribute
        return getattr(self._target(), "encoding", "utf-8")

    def isatty(self) -> bool:
        return False if getattr(_local, self.slot, None) else self.real.isatty()

    def fileno(self) -> int:
        return self.real.fileno()


def install() -> None:
    if not isinstance(sys.stdout, _Router):
        sys.stdout = _Router(sys.stdout, "out")
    if not isinstance(sys.stderr, _Router):
        sys.stderr = _Router(sys.stderr, "err")


def uninstall() -> None:
    if isinstance(sys.stdout, _Router):
        sys.stdout = sys.stdout.real
    if isinstance(sys.stderr, _Router):
        sys.stderr = sys.stderr.real


def _capture_stream(raw: io.BytesIO) -> io.TextIOWrapper:
    return io.TextIOWrapper(raw, encoding="utf-8", newline="", write_through=True)


def run_command(argv: list[str], cwd: str, db_path: str) -> dict[str, Any]:
    """Parse and run one delegated command; {"exit", "stdout", "stderr"} (output base64)."""
    from valuation.cli import main as cli
    from valuation.cli.service_link import DELEGABLE, absolutise, handler_name

    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out, err = _capture_stream(out_bytes), _capture_stream(err_bytes)
    _local.out, _local.err = out, err
    try:
        try:
            args = cli.build_parser().parse_args(argv)
        except SystemExit as exc:   # argparse already wrote its message to (captured) stderr
            code = int(exc.code or 0)
        else:
            absolutise(args, cwd)
            if handler_name(args) not in DELEGABLE:
                print("this command does not run through the service", file=sys.stderr)
                code = 2
            elif Path(args.db).resolve() != Path(db_path).resolve():
                print(f"the service holds {db_path}, not {args.db}", file=sys.stderr)
                code = 2
            else:
                code = cli.run(args)
        out.flush()
        err.flush()
        return {"exit": code, "stdout": base64.b64encode(out_bytes.getvalue()).decode("ascii"),
                "stderr": base64.b64encode(err_bytes.getvalue()).decode("ascii")}
    finally:
        _local.out = _local.err = None
