"""The deadline-rule registry (issue 22): one table, `valuation.deadlines.rule_specs.RULES`, from which the
labels, groups, periods, the NORMAM-10 parameters each rule takes, the engine's rows, the CLI's
`compute deadline` and the digest derive. Each test asks a part of the product what it does and
compares it with the table, so a rule that one part forgets fails here:

- the engine builds a row of every rule of the table, and of no other, on the demo (`full_demo_db`)
  plus the few records `_exercise_every_rule` adds (a new rule: the demo or those records show it);
- the row builder an entry names builds it; the CLI lists and computes exactly the CLI rules;
- each rule function is named as its rule and takes, after the calendar, the NORMAM-10 parameters
  its entry names, defaulting to the policy's default; every NORMAM policy is taken by some rule;
- a deadline key of every rule resolves to its subject when it is marked met, the views write
  every rule's key in words, a closed period reads "encerrado";
- the digest counts every state of the state table and lists the digest's states, in its JSON and
  in its e-mail.
"""
from __future__ import annotations

import ast
import inspect
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import first_user
from valuation.cli.compute import deadline as cli_deadline
from valuation.core.errors import InputError
from valuation.core.jsonin import boolean, iso_date, iso_month
from valuation.db.store import Store
from valuation.deadlines import events as deadline_events
from valuation.deadlines import frames, params, views
from valuation.deadlines.engine import compute_deadlines
from valuation.deadlines.rule_specs import (
    CLI_RULES,
    GROUPS,
    PERIOD_RULES,
    RULES,
    SOURCES,
    SPECS,
    SUBJECTS,
)
from valuation.deadlines.states import CLOSED_LABEL, DIGEST_STATES, STATE_HEADINGS, STATES
from valuation.deadlines.vocabulary import COURT_PARTIES_NOTIFIED, DEADLINE_MET, EVENT_RULES, RECOVERY_FOR_OWNER
from valuation.inventory import found_things
from valuation.jobs.digest_mail import digest_mails
from valuation.policies.defaults import DEFAULTS, NORMAM_KEYS
from valuation.policies.fields import NORMAM_RANGES
from valuation.registry import removal_orders

DEADLINES_DIR = Path(__file__).resolve().parents[2] / "src" / "valuation" / "deadlines"
AS_OF = date(2026, 12, 1)          # the day after the demo's "today" (30/11/2026)
SAMPLE = {iso_date: "2025-03-10", iso_month: "2025-03", boolean: False}


def _exercise_every_rule(store: Store, dpc: Any, court_wreck: str) -> None:
    """What the demo does not show, recorded through the product: a recovery on the owner's account
    (owner_reclaim), the Maritime Court's notice of the report's conclusions (court_prior_defence), a
    removal order by edital (removal_edital) and a found thing sold (found_unclaimed, found_proceeds)."""
    deadline_events.record_event(store, dpc, {"kind": RECOVERY_FOR_OWNER, "wreck_code": court_wreck,
                                              "event_date": date(2026, 11, 20), "note": "Âncora resgatada"})
    deadline_events.record_event(store, dpc, {"kind": COURT_PARTIES_NOTIFIED, "wreck_code": court_wreck,
                                              "event_date": date(2026, 11, 23)})
    store.write("test", lambda tx: tx.execute(   # an owner of unknown whereabouts is notified by edital (art. 9 II)
        "INSERT INTO wrecks (code, name, hull_material, casualty_year, casualty_month, casualty_day, "
        "casualty_precision, casualty_type, lat_deg, lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, office_code, "
        "situation, owner_id) VALUES ('NAU-2025-99', 'Rebocador Tupã', 'aço', 2025, 5, 10, 'day', 'naufrágio', 22, 55, "
        "'S', 43, 9, 'W', 'WGS-84', 'CPRJ', 'soçobrada', NULL)"))
    removal_orders.record_removal_order(store, dpc, {
        "wreck_code": "NAU-2025-99", "kind": "remoção", "act": "Ofício nº 12/2026-CPRJ", "ordered_on": "03/11/2026",
        "notice": "edital", "notified_on": None, "published_on": "06/11/2026", "starts_by": "01/12/2026",
        "ends_by": "30/03/2027", "reason": "Casco no canal de acesso: obstáculo à navegação."})
    today = date(2026, 11, 30)
    found_id = found_things.register_found_thing(store, dpc, {
        "office_code": "CPRJ", "description": "Sino de bronze com inscrição", "place": "Praia Vermelha, Urca",
        "collected_on": date(2026, 6, 1), "finder_name": "João Pescador", "finder_document": "52998224725"},
        today=today)
    found_things.record_found_event(store, dpc, found_id, {
        "kind": "sold", "event_date": date(2026, 8, 10), "amount": "1234,56", "reference": "Hasta pública 3/2026",
        "note": "Oxidação acelerada fora d'água", "party": "Antiquário Silva"}, today=today)


@pytest.fixture(scope="module")
def world(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo plus `_exercise_every_rule`, its deadlines on AS_OF and its digest (JSON and e-mails)."""
    path = tmp_path_factory.mktemp("rule_registry") / "rules.duckdb"
    shutil.copyfile(full_demo_db, path)
    dpc = first_user(path, "dpc")
    with Store(path) as store:
        before = compute_deadlines(store, dpc, as_of=AS_OF)
        court = before[before["rule"] == "court_inquiry_opening"]
        assert not court.empty, "the demo has no Maritime Court inquiry to hang the court's events on"
        _exercise_every_rule(store, dpc, str(court.iloc[0]["wreck"]))
        frame = compute_deadlines(store, dpc, as_of=AS_OF)
        digest = frames.digest(store, dpc, as_of=AS_OF)
        mails = digest_mails(store, as_of=AS_OF, base_url="http://127.0.0.1:8501")
    return {"path": path, "dpc": dpc, "frame": frame, "digest": digest, "mails": mails}


# -- the engine ------------------------------------------------------------------------------------------------------
def test_the_engine_builds_a_row_of_every_rule_and_of_no_other(world: dict[str, Any]) -> None:
    built = set(world["frame"]["rule"])
    missing = sorted(set(SPECS) - built)
    assert not missing, (f"rules of rule_specs.RULES without a row on the demo: {missing} — build them in the "
                         "module their entry names (`source`), and show one in the demo or in _exercise_every_rule")
    assert built <= set(SPECS), f"rows of rules the table lacks: {sorted(built - set(SPECS))}"


def _names(path: Path) -> set[str]:
    """The string constants and the identifiers a module's code uses."""
    nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
    return ({n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            | {n.id for n in nodes if isinstance(n, ast.Name)})


def test_each_entry_names_the_builder_subject_and_group_it_has() -> None:
    """A rule's `source` module names it, or (a rule an event kind `starts`) builds every EVENT_RULES entry."""
    named = {source: _names(DEADLINES_DIR / f"{source}.py") for source in SOURCES}
    wrong = [s.key for s in RULES if s.source not in SOURCES or not (
        s.key in named[s.source] or (s.key in EVENT_RULES.values() and "EVENT_RULES" in named[s.source]))]
    assert not wrong, f"rules whose entry's `source` module never names them: {wrong}"
    assert all(SPECS[rule].subject == "event" for rule in EVENT_RULES.values()), "an event starts a rule of the table"
    assert {s.source for s in RULES} == set(SOURCES)
    assert {s.subject for s in RULES} == set(SUBJECTS), "every subject is some rule's, and only those"
    assert {s.group for s in RULES} == set(GROUPS), "every group is some rule's, and only those"
    labels = [s.label for s in RULES]
    assert all(label.strip() for label in labels) and len(set(labels)) == len(labels)


# -- the CLI ---------------------------------------------------------------------------------------------------------
def test_the_cli_lists_and_computes_exactly_the_cli_rules_of_the_table() -> None:
    with pytest.raises(InputError) as bad:
        cli_deadline.run({"rule": "no_such_rule"})
    listed = bad.value.problems[0].message.removeprefix("must be one of ").split(", ")
    assert listed == [s.key for s in RULES if s.cli is not None] == list(CLI_RULES)
    for spec in CLI_RULES.values():
        doc: dict[str, Any] = {"rule": spec.key, "office": {"state": "RJ"}, "as_of": "2025-03-20"}
        doc.update({f.name: SAMPLE.get(f.read, 2025) for f in spec.cli or ()})
        if spec.suspensions:
            doc["suspensions"] = []
        out = cli_deadline.run(doc)
        assert out["rule"] == spec.key and out["state"] in STATES and out["basis"], spec.key


# -- the rules and their NORMAM-10 parameters ------------------------------------------------------------------------
def test_each_rule_function_takes_the_normam_parameters_its_entry_names() -> None:
    for spec in RULES:
        assert spec.fn.__name__ == spec.key, f"{spec.key}: the function is {spec.fn.__name__}"
        names = list(inspect.signature(spec.fn).parameters.values())
        after_cal = names[[p.name for p in names].index("cal") + 1:]
        assert [p.default for p in after_cal] == [params.DEFAULT[k] for k in spec.normam], spec.key
    named = {k for s in RULES for k in (*s.normam, *s.gates)}
    assert named == set(NORMAM_KEYS), (f"NORMAM policies no rule takes: {sorted(set(NORMAM_KEYS) - named)}; "
                                       f"named by a rule but not NORMAM policies: {sorted(named - set(NORMAM_KEYS))}")
    assert set(NORMAM_RANGES) == {p.key for p in DEFAULTS if p.normam and isinstance(p.value, int)}


# -- keys, words, periods --------------------------------------------------------------------------------------------
def test_labels_and_periods_of_the_rows_come_from_the_table(world: dict[str, Any]) -> None:
    frame = world["frame"]
    for rule, rows in frame.groupby("rule"):
        key = str(rows.iloc[0]["key"])
        assert views.key_text(key) != key, f"views.key_text does not know {rule}"
    met = frame[frame["state"] == "met"]
    closed = met[met["state_pt"].str.startswith(CLOSED_LABEL)]
    assert set(closed["rule"]) <= PERIOD_RULES | {"five_year_lapse"}     # the five years close by running out
    periods = met[met["rule"].isin(PERIOD_RULES)]
    assert not periods.empty and periods["state_pt"].str.startswith(CLOSED_LABEL).all()


def test_marking_met_resolves_the_subject_of_every_rules_key(world: dict[str, Any], tmp_path: Path) -> None:
    """The events page's 'prazo cumprido' names a deadline by its key: its subject must be found for every
    rule (a found thing's deadlines close on the Achados page instead)."""
    path = tmp_path / "met.duckdb"
    shutil.copyfile(world["path"], path)
    frame = world["frame"]
    with Store(path) as store:
        for rule, rows in frame.groupby("rule", sort=True):
            row = rows.iloc[0]
            data = {"kind": DEADLINE_MET, "reference": row["key"], "event_date": AS_OF}
            if SPECS[str(rule)].subject == "found":
                with pytest.raises(InputError) as refused:
                    deadline_events.record_event(store, world["dpc"], data)
                assert refused.value.problems[0].path == "reference"
                continue
            event_id = deadline_events.record_event(store, world["dpc"], data)
            got = store.fetch_one("SELECT contract_id, wreck_id, office_code FROM deadline_events WHERE id = ?",
                                  [event_id])
            assert got is not None
            if SPECS[str(rule)].subject in ("contract", "decision"):
                assert got["contract_id"] == row["contract_id"], rule
            elif row["wreck_id"] is not None:
                assert got["wreck_id"] == row["wreck_id"], rule
            else:
                assert got["office_code"] == row["office_code"], rule


# -- the digest ------------------------------------------------------------------------------------------------------
def test_the_digest_counts_every_state_and_lists_the_digest_states(world: dict[str, Any]) -> None:
    digest, frame = world["digest"], world["frame"]
    assert list(digest["counts"]) == list(STATES)
    assert digest["counts"] == {s: int((frame["state"] == s).sum()) for s in STATES}
    listed = {item["state"] for item in digest["deadlines"]}
    assert listed == set(DIGEST_STATES), "the demo has overdue and due-soon deadlines on AS_OF"
    labels = dict(zip(frame["key"], frame["label_pt"]))
    assert all(item["rule"] in SPECS and item["label"] == labels[item["key"]] for item in digest["deadlines"])
    everything = world["mails"][0]      # DPC headquarters: every office's deadlines
    for state in DIGEST_STATES:
        assert f"{STATE_HEADINGS[state].upper()} ({digest['counts'][state]})" in everything.text
        assert f"<h3>{STATE_HEADINGS[state]} ({digest['counts'][state]})</h3>" in everything.html
