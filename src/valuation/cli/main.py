"""`python -m valuation …`: the command-line interface (spec: ../shared/spec/cli.md).

    compute KIND --input FILE|-      pure calculations, JSON in → JSON out
    db init --db PATH [--demo]       create/migrate the DuckDB store (and seed the demo)
    db stats --db PATH               counts and contracts, as JSON

Exit status: 0 success; 2 bad input (one line per problem on stderr, nothing on
stdout, nothing written); 3 the store cannot be used (e.g. another process holds
the file); 1 an unexpected failure (a plain message, never a traceback).
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, NoReturn

from valuation.core.errors import (
    AccessDenied,
    ConflictError,
    InputError,
    NotFound,
    StoreError,
    ValuationError,
)

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT, EXIT_STORE = 0, 1, 2, 3

# compute KIND → module exposing run(doc) -> dict (raises InputError on bad input)
COMPUTE_KINDS: dict[str, str] = {
    "consensus": "valuation.cli.compute.consensus",
    "selection": "valuation.cli.compute.selection",
    "partition": "valuation.cli.compute.partition",
    "deadline": "valuation.cli.compute.deadline",
    "domain-status": "valuation.cli.compute.domain_status",
    "reclaim": "valuation.cli.compute.reclaim",
}

# Extra top-level command groups registered by other modules: name → "module:function"
# where function(subparsers) adds the parser and sets `handler`.
EXTRA_COMMANDS: tuple[str, ...] = (
    "valuation.cli.db:register_cli",
    "valuation.cli.deadlines:register_cli",
)
# Sub-commands of `python -m valuation import …` (same "module:function" form).
IMPORT_COMMANDS: tuple[str, ...] = (
    "valuation.cli.imports:register_cli",   # import items FILE --db PATH --contract CODE
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse exits 2 with usage: keep that, no traceback
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def print_json(doc: Any, *, default: Callable[[Any], Any] | None = None) -> None:
    """One JSON document on stdout, pt-BR text as is (`default`: how non-JSON values are written)."""
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2, default=default) + "\n")


def _read_input(name: str) -> Any:
    try:
        raw = sys.stdin.read() if name == "-" else open(name, encoding="utf-8").read()
    except OSError as exc:
        raise InputError(f"cannot read input {name}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"input {name} is not UTF-8 text") from exc
    try:
        return json.loads(raw, parse_float=_parse_float, parse_int=_parse_int, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    except ValueError as exc:  # NaN / Infinity
        raise InputError(str(exc)) from exc
    except RecursionError as exc:
        raise InputError("JSON nested too deeply") from exc


MAX_NUMBER_CHARS = 40  # no field of any kind needs a longer number; longer ones are refused plainly


def _parse_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"malformed JSON: a number has more than {MAX_NUMBER_CHARS} digits")
    return int(text)


def _parse_float(text: str) -> Decimal:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"malformed JSON: a number has more than {MAX_NUMBER_CHARS} digits")
    return Decimal(text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"malformed JSON: {name} is not a number")


def cmd_compute(args: argparse.Namespace) -> int:
    doc = _read_input(args.input)
    module = importlib.import_module(COMPUTE_KINDS[args.kind])
    print_json(module.run(doc))
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m valuation", description="Naufrágios e bens resgatados (Lei 7.542/1986).")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser("compute", help="run one calculation on a JSON case (README, Command line)")
    c.add_argument("kind", choices=sorted(COMPUTE_KINDS))
    c.add_argument("--input", required=True, help="JSON file, or - for standard input")
    c.set_defaults(handler=cmd_compute)
    _register(sub, EXTRA_COMMANDS)
    imp = sub.add_parser("import", help="import files into the store (all or nothing)")
    _register(imp.add_subparsers(dest="import_command", required=True, parser_class=_Parser), IMPORT_COMMANDS)
    return p


def _register(subparsers: Any, specs: Sequence[str]) -> None:
    for spec in specs:
        mod_name, fn_name = spec.split(":")
        getattr(importlib.import_module(mod_name), fn_name)(subparsers)


def _report(exc: ValuationError) -> int:
    if isinstance(exc, InputError):
        for problem in exc.problems:
            print(str(problem), file=sys.stderr)
        return EXIT_BAD_INPUT
    print(str(exc), file=sys.stderr)
    if isinstance(exc, StoreError):
        return EXIT_STORE
    if isinstance(exc, (NotFound, ConflictError, AccessDenied)):
        return EXIT_BAD_INPUT
    return EXIT_FAILURE


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    from valuation.cli.service_link import delegate

    delegated = delegate(argv, args)   # a running service holds the file: it runs the command
    if delegated is not None:
        return delegated
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Run a parsed command: its exit status; errors become messages (never a traceback)."""
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except ValuationError as exc:
        return _report(exc)
    except KeyboardInterrupt:
        print("interrompido", file=sys.stderr)
        return EXIT_FAILURE
    except Exception as exc:  # last line of defence: a plain message, never a traceback
        print(f"internal error ({type(exc).__name__}); nothing was written by this command", file=sys.stderr)
        return EXIT_FAILURE
