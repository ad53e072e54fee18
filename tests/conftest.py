"""Shared fixtures: a fresh store and a small, fully known world of every role.

Fixtures (function-scoped; each test gets its own copy of the database file):

- `store`        a fresh, migrated, empty `Store` in tmp_path.
- `small_world`  a `World`: a `Store` on a copy of a database built once per session with
                 3 offices, 3 organisations, 1 owner, 4 wrecks, 3 contracts, 10 items and
                 8 users (every role, one inactive); see WORLD below for every value.
                 `world.principal("explorer_a")` gives a Principal; `world.passwords[username]`
                 the plain password; `world.ids["w1"]` the ids; `world.path` the file (for
                 subprocess or AppTest tests: close `world.store` first, one process owns the file).
- `principal`    shortcut for `small_world.principal`: `principal("dpc")`, `principal("explorer")`.

Password hashing: argon2id at its real cost (64 MiB, ~0.2 s on 2 cores) would make
every login in a test slow, so an autouse fixture swaps `valuation.accounts.passwords._hasher` for
an argon2id hasher with minimal cost (FAST_HASHER) and the world's hashes use it
too. `REAL_HASHER` is the product's hasher, for the test that checks its parameters.

Principal keys: dpc, commission (navy), commission_culture, commission_president,
explorer / explorer_a (organisation A), explorer_b (organisation B), admin; the
inactive user ('inactive', role dpc) is in `world.passwords` only.

Who may see which position (rules.md §8), by construction of the data:
  w1 (contract A-1 with items: under assessment)     dpc, commission*, explorer_a
  w2 (contract B-1 with items: under assessment)     dpc, commission*, explorer_b
  w3 (contract A-2 without items)                    dpc, explorer_a
  w4 (no contract)                                   dpc
`EXPECTED_CLEARED` states it; tests compare the store against it, not against the code.
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from filelock import FileLock
from hypothesis import HealthCheck, settings

from valuation.accounts import passwords
from valuation.db.access import Principal
from valuation.db.store import Store

# The hostile-input, kill and cross-company tallies print their summary in every run, a parallel one
# included (the controller of pytest-xdist collects no test module, so the plugin is loaded here).
pytest_plugins = ["tests.support.fuzz_report"]

# Property tests assert what holds, never how fast: no per-example deadline (a loaded CI machine made
# `test_never_a_later_rate` fail its default 200 ms on one example), speed is shown by bench/.
settings.register_profile("valuation", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("valuation")

REAL_HASHER = passwords._hasher
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)  # still argon2id; tests only


@pytest.fixture(autouse=True)
def _fast_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(passwords, "_hasher", FAST_HASHER)

PASSWORDS: dict[str, str] = {
    "dpc.silva": "dpc-senha-forte-1",
    "com.navy": "comissao-navy-22",
    "com.culture": "comissao-cult-33",
    "com.pres": "presidente-da-44",
    "exp.alfa": "alfa-explora-55",
    "exp.beta": "beta-salvage-66",
    "admin": "admin-senha-77x",
    "inactive": "inativo-senha-88",
    "om.rio": "capitania-rio-99",
}

# key → (username, full_name, role, organisation key, commission_body, active)
USERS: dict[str, tuple[str, str, str, str | None, str | None, bool]] = {
    "dpc": ("dpc.silva", "Ana Silva (DPC)", "dpc", None, None, True),
    "commission": ("com.navy", "Capitão Bruno Costa", "commission", None, "navy", True),
    "commission_culture": ("com.culture", "Dra. Carla Dias", "commission", None, "culture", True),
    "commission_president": ("com.pres", "CMG Daniel Lima", "commission_president", None, "navy", True),
    "explorer_a": ("exp.alfa", "Eduardo Alves", "explorer", "org_a", None, True),
    "explorer_b": ("exp.beta", "Fernanda Braga", "explorer", "org_b", None, True),
    "admin": ("admin", "Gustavo Admin", "admin", None, None, True),
    "inactive": ("inactive", "Hugo Inativo", "dpc", None, None, False),
    "office_rj": ("om.rio", "CT Irene Rocha (CPRJ)", "officer", None, None, True),
}
# key → the office of an office officer (users.office_code)
USER_OFFICES: dict[str, str] = {"office_rj": "CPRJ"}
ALIASES = {"explorer": "explorer_a"}

OFFICES = [
    ("CPRJ", "Capitania dos Portos do Rio de Janeiro", "CP", "RJ", "Rio de Janeiro", 1),
    ("CPBA", "Capitania dos Portos da Bahia", "CP", "BA", "Salvador", 2),
    ("CPSP", "Capitania dos Portos de São Paulo", "CP", "SP", "Santos", 8),
]
# key → (name, cnpj, city, state)
ORGANISATIONS = {
    "org_a": ("Alfa Arqueologia Subaquática Ltda", "11222333000181", "Salvador", "BA"),
    "org_b": ("Beta Salvatagem S.A.", "11444777000161", "Rio de Janeiro", "RJ"),
    "org_c": ("Gama Pesquisas Marinhas Ltda", "45723174000110", "Santos", "SP"),
}
# key → (code, name, hull, year, type, lat (deg, min, hem), lon, datum, depth, office, situation)
WRECKS = {
    "w1": ("NAU-1668-01", "Galeão Santíssimo Sacramento", "madeira", 1668, "naufrágio",
           (13, Decimal("0.50"), "S"), (38, Decimal("31.20"), "W"), "WGS-84", Decimal("12.50"), "CPBA", "soçobrada"),
    "w2": ("NAU-1890-02", "Vapor Bahia", "ferro", 1890, "encalhe",
           (22, Decimal("54.35"), "S"), (43, Decimal("10.20"), "W"), "SIRGAS 2000", Decimal("8.00"), "CPRJ",
           "soçobrada"),
    "w3": ("NAU-1995-03", "Pesqueiro Três Irmãos", "aço", 1995, "colisão",
           (24, Decimal("1.05"), "S"), (46, Decimal("18.75"), "W"), "WGS-84", Decimal("30.00"), "CPSP", "soçobrada"),
    "w4": ("NAU-1750-04", "Navio Desconhecido de Cabo Frio", "madeira", 1750, "fortuna do mar",
           (23, Decimal("0.00"), "S"), (42, Decimal("0.00"), "W"), "SAD-69", None, "CPRJ", "soçobrada"),
}
# key → (code, kind, act, organisation, wreck, office, status)
CONTRACTS = {
    "A-1": ("A-1", "exploração", "contrato", "org_a", "w1", "CPBA", "vigente"),
    "B-1": ("B-1", "remoção", "autorização", "org_b", "w2", "CPRJ", "vigente"),
    "A-2": ("A-2", "pesquisa", "autorização", "org_a", "w3", "CPSP", "solicitado"),
}
# (contract, item_code, description, category, material, quantity, weight_g, delivered_on or None)
ITEMS = [
    ("A-1", "A1-001", "Moeda de prata de 8 reales", "moeda", "prata", 1, Decimal("27.05"), date(2025, 3, 1)),
    ("A-1", "A1-002", "Moeda de ouro de 4 escudos", "moeda", "ouro", 1, Decimal("13.50"), date(2025, 3, 1)),
    ("A-1", "A1-003", "Prato de faiança portuguesa", "cerâmica", "faiança", 1, Decimal("410.00"), None),
    ("A-1", "A1-004", "Canhão de bronze", "armamento", "bronze", 1, Decimal("850000.00"), None),
    ("A-1", "A1-005", "Botija de azeite", "cerâmica", "barro", 3, None, None),
    ("A-1", "A1-006", "Astrolábio náutico", "instrumento", "latão", 1, Decimal("3200.00"), date(2025, 4, 2)),
    ("B-1", "B1-001", "Sino de bordo", "equipamento", "bronze", 1, Decimal("45000.00"), date(2025, 5, 5)),
    ("B-1", "B1-002", "Hélice", "equipamento", "ferro", 1, Decimal("1200000.00"), None),
    ("B-1", "B1-003", "Garrafa de vidro", "vidro", "vidro", 12, Decimal("9600.00"), None),
    ("B-1", "B1-004", "Moeda de 1000 réis", "moeda", "prata", 2, Decimal("25.00"), None),
]

# What each principal key is cleared to see (positions), by construction of the data above.
EXPECTED_CLEARED: dict[str, set[str]] = {
    "dpc": {"w1", "w2", "w3", "w4"},
    "commission": {"w1", "w2"},
    "commission_culture": {"w1", "w2"},
    "commission_president": {"w1", "w2"},
    "explorer_a": {"w1", "w3"},
    "explorer_b": {"w2"},
    "admin": set(),
    "office_rj": {"w2", "w4"},        # the wrecks of its office (CPRJ)
}
# Contracts each principal key may read.
EXPECTED_CONTRACTS: dict[str, set[str]] = {
    "dpc": {"A-1", "B-1", "A-2"},
    "commission": {"A-1", "B-1"},
    "commission_culture": {"A-1", "B-1"},
    "commission_president": {"A-1", "B-1"},
    "explorer_a": {"A-1", "A-2"},
    "explorer_b": {"B-1"},
    "admin": set(),
    "office_rj": {"B-1"},             # the contracts of its office (CPRJ)
}


@dataclass
class World:
    store: Store
    path: Path
    ids: dict[str, int]
    passwords: dict[str, str] = field(default_factory=lambda: dict(PASSWORDS))
    principals: dict[str, Principal] = field(default_factory=dict)
    template: Path | None = None             # the session's file it is a copy of
    revision_at_open: int | None = None      # the Store's revision before the test wrote (tests/support/commission)

    def principal(self, key: str) -> Principal:
        return self.principals[ALIASES.get(key, key)]

    def username(self, key: str) -> str:
        return USERS[ALIASES.get(key, key)][0]


def _build_world(path: Path) -> dict[str, int]:
    hashes = {u: FAST_HASHER.hash(p) for u, p in PASSWORDS.items()}
    ids: dict[str, int] = {}
    with Store(path) as store:
        def fill(tx: Any) -> None:
            for row in OFFICES:
                tx.execute("INSERT INTO offices (code, name, kind, state, city, naval_district) "
                           "VALUES (?, ?, ?, ?, ?, ?)", list(row))
            for key, (name, cnpj, city, state) in ORGANISATIONS.items():
                ids[key] = tx.scalar(
                    "INSERT INTO organisations (name, cnpj, nationality, address, city, state, "
                    "representative_name, representative_cpf, registered_on) VALUES (?, ?, 'brasileira', "
                    "'Rua do Porto, 1', ?, ?, 'Representante', '52998224725', DATE '2020-01-15') RETURNING id",
                    [name, cnpj, city, state])
            ids["owner1"] = tx.scalar(
                "INSERT INTO owners (name, doc_kind, doc_number, nationality, whereabouts_known, address) "
                "VALUES ('Companhia de Navegação Bahiana', 'CNPJ', '11444777000161', 'brasileira', true, "
                "'Av. da França, 100, Salvador') RETURNING id")
            for key, (code, name, hull, year, ctype, lat, lon, datum, depth, office, situation) in WRECKS.items():
                ids[key] = tx.scalar(
                    "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_precision, casualty_type, "
                    "lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, depth_m, office_code, situation, "
                    "owner_id, notes, signalling) "
                    "VALUES (?, ?, ?, ?, 'year', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    [code, name, hull, year, ctype, *lat, *lon, datum, depth, office, situation,
                     ids["owner1"] if key == "w2" else None, f"Marco secreto de {code}", f"Boia de {code}"])
            for key, (code, kind, act, org, wreck, office, status) in CONTRACTS.items():
                ids[key] = tx.scalar(
                    "INSERT INTO contracts (code, kind, act, organisation_id, wreck_id, office_code, status, "
                    "fixed_amount, signed_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?, DATE '2024-02-01') RETURNING id",
                    [code, kind, act, ids[org], ids[wreck], office, status, Decimal("150000.10")])
            for contract, code, desc, cat, material, qty, weight, delivered in ITEMS:
                item_id = tx.scalar(
                    "INSERT INTO items (contract_id, item_code, description, category, material, quantity, weight_g, "
                    "recovered_on, depth_m) VALUES (?, ?, ?, ?, ?, ?, ?, DATE '2025-02-10', 10.5) RETURNING id",
                    [ids[contract], code, desc, cat, material, qty, weight])
                ids[code] = item_id
                if delivered is not None:
                    tx.execute("INSERT INTO item_deliveries (item_id, delivered_on, received_by, place, recorded_by) "
                               "VALUES (?, ?, 'Sgt. Recebedor', 'CPBA', 'dpc.silva')", [item_id, delivered])
            for key, (username, full_name, role, org, body, active) in USERS.items():
                ids[username] = tx.scalar(
                    "INSERT INTO users (username, full_name, role, organisation_id, commission_body, password_hash, "
                    "active, office_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    [username, full_name, role, ids[org] if org else None, body, hashes[username], active,
                     USER_OFFICES.get(key)])

        store.write("fixture", fill)
        store.checkpoint()
    # The fixture's rows are data the tests start from, not application writes: no audit row and no
    # row seals of their own (db/seals.py seals them at the first write of each test, as for a database
    # that predates sealing), so a test starts from an empty audit log.
    import duckdb

    con = duckdb.connect(str(path))
    try:
        con.execute("DELETE FROM audit_log; DROP TABLE IF EXISTS audit_head; DELETE FROM row_seals; CHECKPOINT")
    finally:
        con.close()
    return ids


@pytest.fixture(scope="session")
def _world_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    path = tmp_path_factory.mktemp("world") / "template.duckdb"
    ids = _build_world(path)
    return path, ids


@pytest.fixture
def store(tmp_path: Path):
    """A fresh, migrated, empty Store in tmp_path (closed after the test)."""
    s = Store(tmp_path / "valuation.duckdb")
    yield s
    s.close()


@pytest.fixture
def small_world(request: pytest.FixtureRequest, tmp_path: Path, _world_template: tuple[Path, dict[str, int]]):
    """A World on a private copy of the session's template database (see the module docstring). Parametrized
    indirectly with a clock (a callable giving aware instants), its Store runs on that clock."""
    template, ids = _world_template
    path = tmp_path / "world.duckdb"
    shutil.copyfile(template, path)
    s = Store(path, clock=getattr(request, "param", None))
    principals = {
        key: Principal(id=ids[username], username=username, full_name=full_name, role=role,
                       organisation_id=ids[org] if org else None, commission_body=body,
                       office_code=USER_OFFICES.get(key))
        for key, (username, full_name, role, org, body, _active) in USERS.items()
    }
    world = World(store=s, path=path, ids=dict(ids), principals=principals, template=template,
                  revision_at_open=s._revision)
    yield world
    world.store.close()


@pytest.fixture
def principal(small_world: World):
    """`principal("dpc")` → the Principal of that key in small_world."""
    return small_world.principal


# A fixed instant for login tests (aware UTC: the login refuses a naive one).
NOW = datetime(2025, 6, 30, 12, 0, 0, tzinfo=UTC)


# -- the shipped data sets, built once per session by the product's own commands -------------------
DEMO_BUILD_TIMEOUT_S = 900    # the 100 000-item database on a loaded machine, beside another worker


def _run_python(args: list[str], cwd: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
    done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=DEMO_BUILD_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-2000:]


def _built_once(tmp_path_factory: pytest.TempPathFactory, name: str, file_name: str,
                build: Callable[[Path], None]) -> Path:
    """A session database built once for the whole run and copied to this worker: under pytest-xdist
    the first worker to ask builds it in the run's common temporary folder (a file lock), the others
    wait and copy it with its folder (the attached files) — a DuckDB file belongs to one process, so
    each worker has its own copy."""
    own = tmp_path_factory.mktemp(name) / file_name
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        build(own)
        return own
    shared = tmp_path_factory.getbasetemp().parent / f"shared_{name}"
    shared.mkdir(exist_ok=True)
    built, done = shared / file_name, shared / "built"
    with FileLock(str(shared / "lock")):
        if not done.exists():
            build(built)
            done.touch()
    # the file and what lies beside it (the demo's attached files under files/)
    shutil.copytree(shared, own.parent, dirs_exist_ok=True, ignore=shutil.ignore_patterns("lock", "built"))
    return own


# A full demo already built (its file; the attached files beside it) that `full_demo_db` copies instead of
# building another: a test that runs pytest in a child process hands it its own (the build takes a minute, and
# the demo is the same whatever the child's time zone: every instant it stores is UTC).
FULL_DEMO_ENV = "VALUATION_TEST_FULL_DEMO"


@pytest.fixture(scope="session")
def full_demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The full demo database as README's start command makes it (`python -m valuation db init
    --demo`), built once per run (or copied from FULL_DEMO_ENV's). Copy it before handing it to a server
    (one process per file)."""
    built = os.environ.get(FULL_DEMO_ENV)
    if built:
        from tests.support.db_copies import copy_database

        return _built_once(tmp_path_factory, "full_demo", "demo.duckdb", lambda path: copy_database(built, path))
    return _built_once(tmp_path_factory, "full_demo", "demo.duckdb", lambda path: _run_python(
        ["-m", "valuation", "db", "init", "--db", str(path), "--demo"], path.parent))


BENCH_ITEMS = 100_000


@pytest.fixture(scope="session")
def bench_db(tmp_path_factory: pytest.TempPathFactory, full_demo_db: Path) -> Path:
    """The full demo plus a 100 000-item treasure contract (bench/generate.py: one round valued by
    the six members, decided, published, União's choice and draft statement), built once per session
    from a copy of `full_demo_db` (the demo is not seeded twice)."""
    code = ("import sys; from bench import generate as g; "
            f"info = g.build_main(sys.argv[1], {BENCH_ITEMS}, template=sys.argv[2]); "
            "g.decide_main(sys.argv[1], info.round_id)")
    return _built_once(tmp_path_factory, "bench_db", "bench.duckdb", lambda path: _run_python(
        ["-c", code, str(path), str(full_demo_db)], Path(__file__).resolve().parent.parent))


# -- the order the parallel run hands the files out in ----------------------------------------------------------------
# pytest-xdist (`--dist loadfile`) gives each worker one file at a time, in the order of the collection; its own
# reordering (by number of tests) put the one-test browser walks of two minutes last, so one worker ran them alone
# while the other idled (the run's last 8 % took 17 of its 42 minutes). scripts/test.sh turns that reordering off
# (`--no-loadscope-reorder`) and this hook sorts the files instead: the slowest first (their times measured by
# `--durations` on a full run, longest first), then the others by their number of tests, most first — the longest
# jobs first, so the last ones to finish are short.
SLOWEST_FIRST = (
    "tests/bench/test_bench_smoke.py", "tests/ui/test_browser_walk.py", "tests/ui/test_pages_walk.py",
    "tests/walks/test_signed_acts.py", "tests/walks/test_filing_to_appeal.py", "tests/demo/test_demo_atomic.py",
    "tests/walks/test_empty_database_case.py",
    "tests/ui/test_pages_full_data.py", "tests/db/test_restore_planted_rows.py", "tests/db/test_kill_campaign.py",
    "tests/service/test_service.py", "tests/security/test_input_bounds.py", "tests/ui/test_browser_login_and_pages.py",
    "tests/commission/test_browser_entry.py", "tests/db/test_backup_restore.py",
    "tests/commission/test_browser_session_ended.py", "tests/accounts/test_throttle_distributed.py",
    "tests/service/test_logout_after_restart.py", "tests/commission/test_consensus_sql.py",
    "tests/commission/test_pages.py", "tests/accounts/test_throttle.py", "tests/db/test_hostile_manifests.py",
    "tests/attachments/test_browser_photos.py", "tests/db/test_restore_planted_session.py",
    "tests/bench/test_load_light.py", "tests/accounts/test_govbr_login.py", "tests/deadlines/test_browser_case_pdf.py",
    "tests/service/test_front_end_base.py", "tests/security/test_hostile_input.py",
)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    order = sorted(files, key=lambda f: (rank.get(f, len(rank)), -len(files[f]), f))
    items[:] = [item for f in order for item in files[f]]
