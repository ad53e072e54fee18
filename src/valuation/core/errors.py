"""The errors of valuation, drawn as a tree (each carries its context as attributes). Every error
class of the package is in it, under its parent, with the module that defines it when that is not
this one (tests/architecture/test_layout.py checks the drawing against the code):

    ValuationError
     ├── InputError             bad input; .problems lists every Problem found (path, line, column, message)
     │    ├── ConsensusError    commission.consensus: a panel or an item the rule cannot decide as given
     │    └── FxError           commission.fx: a rate table or a conversion that cannot be used
     │         └── NoRateError  commission.fx: no rate of the currency on or before the price date
     ├── AccessDenied           the user may not read or change this (.user, .action)
     ├── AuthenticationFailed   accounts.login: login refused, one message whatever the reason
     │    ├── LoginThrottled    accounts.login: refused unchecked while a throttle waits (.scope, .until)
     │    ├── LoginBusy         accounts.login: refused unchecked, every argon2 slot stayed busy
     │    ├── AccountInactive   accounts.login: right password, account deactivated
     │    ├── LevelTooLow       accounts.govbr: gov.br account below the level a signing role needs
     │    └── IdentitySpent     accounts.govbr: gov.br identity already used, or too old
     ├── NotFound               no such record (.what, .key)
     ├── ConflictError          the change conflicts with stored state (immutable record, duplicate)
     │    └── HashingBusy       accounts.passwords: every argon2 slot stayed busy, nothing hashed
     ├── StoreError             the DuckDB store cannot serve the request
     │    ├── StoreLocked       another process holds the database file (.path, .holder)
     │    ├── AuditSealError    db.audit: a write refused, the audit chain's seal does not verify
     │    ├── UnsafeEntry       db.safe_files: a link, FIFO, device or socket where a regular file must be
     │    └── TooLarge          db.safe_files: a file larger than its reader allows
     ├── MailNotConfigured      jobs.mail: no SMTP server configured, nothing sent
     └── JobFailed              jobs.maintenance: a scheduled job ran and found something wrong

Lower-level errors (duckdb, json, decimal) are translated at the boundary with
`raise X(...) from exc`; callers never branch on message text.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One bad input: where and why, as data — never a position written into the message.

    `path`: the field (a JSON path such as `items[3].value`, a form key, or the field a file's
    column feeds; '' for the input as a whole). `line`: the line of a file where the record
    starts (header = line 1; XLSX: the sheet row), None outside files. `column`: the column of
    that file, as the importer names it. `message`: why, in the words the user reads.
    """

    path: str
    message: str
    line: int | None = None
    column: str | None = None

    @property
    def where(self) -> str:
        """The place as printed: 'linha N, coluna X' / 'linha N' in a file (the CLI's and the
        pages' form), else the path."""
        if self.line is not None:
            return f"linha {self.line}" + (f", coluna {self.column}" if self.column else "")
        return f"coluna {self.column}" if self.column else self.path

    def __str__(self) -> str:
        where = self.where
        return f"{where}: {self.message}" if where else self.message


class ValuationError(Exception):
    """Root of every error this package raises on purpose."""


class InputError(ValuationError):
    """Bad input. Nothing was written. `problems` names every bad place found."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem("", problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


class AccessDenied(ValuationError):
    def __init__(self, message: str = "Acesso negado.", *, user: str | None = None, action: str | None = None):
        self.user = user
        self.action = action
        super().__init__(message)


class NotFound(ValuationError):
    def __init__(self, message: str, *, what: str | None = None, key: object = None):
        self.what = what
        self.key = key
        super().__init__(message)


class ConflictError(ValuationError):
    pass


class StoreError(ValuationError):
    pass


class StoreLocked(StoreError):
    def __init__(self, message: str, *, path: str, holder: str | None = None):
        self.path = path
        self.holder = holder
        super().__init__(message)
