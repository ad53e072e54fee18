"""Registry records live their whole life in the product: a correction is a new version with who, when and why,
never an overwrite; an office officer corrects its own office's records only; nothing is written on a refusal."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from valuation.core.errors import AccessDenied, InputError, NotFound
from valuation.registry import organisations, owners, versions, wrecks


def _audit(world: Any) -> int:
    return int(world.store.scalar("SELECT count(*) FROM audit_log"))


def _wreck_form(world: Any, wreck_id: int, **changes: Any) -> dict[str, Any]:
    rec = wrecks.wreck_record(world.store, world.principal("dpc"), wreck_id)
    return {**rec, **changes}


def test_correcting_a_wrecks_depth_keeps_both_versions_with_who_when_and_why(small_world: Any) -> None:
    w, dpc = small_world.ids["w2"], small_world.principal("dpc")
    version = wrecks.correct_wreck(small_world.store, dpc, w, _wreck_form(small_world, w, depth_m=Decimal("9.40")),
                                   "Levantamento batimétrico de 2026 refinou a profundidade")
    assert version == 2
    assert small_world.store.scalar("SELECT depth_m FROM wrecks WHERE id = ?", [w]) == Decimal("9.40")
    history = wrecks.wreck_history(small_world.store, dpc, w)
    assert [v.version for v in history] == [1, 2]
    first, second = history
    assert first.origin == "found" and first.data["depth_m"] == "8.00"
    assert second.data["depth_m"] == "9.40" and second.reason.startswith("Levantamento batimétrico")
    assert second.changed_by == "Ana Silva (DPC)"          # the person's name, not the login
    assert [(c.field, c.before, c.after) for c in second.changes] == [("depth_m", "8.00", "9.40")]
    # the audit log says it too, and the version is sealed (audit verify proves it)
    row = small_world.store.fetch_one("SELECT action, entity FROM audit_log ORDER BY id DESC LIMIT 1")
    assert row == {"action": "correct", "entity": "wreck"}


def test_a_second_correction_is_version_three_and_the_position_is_masked_for_a_reader_not_cleared(
        small_world: Any) -> None:
    w, dpc = small_world.ids["w2"], small_world.principal("dpc")
    wrecks.correct_wreck(small_world.store, dpc, w, _wreck_form(small_world, w, flag="brasileira"), "Bandeira apurada")
    wrecks.correct_wreck(small_world.store, dpc, w, _wreck_form(small_world, w, lat_min=Decimal("54.40")),
                         "Posição refinada por sonar")
    # explorer B holds B-1 on w2: cleared, it reads the positions; explorer A holds nothing there: masked
    seen = wrecks.wreck_history(small_world.store, small_world.principal("explorer_b"), w)
    assert [v.version for v in seen] == [1, 2, 3]
    assert [v.data["lat_min"] for v in seen] == ["54.35", "54.35", "54.40"]
    hidden = wrecks.wreck_history(small_world.store, small_world.principal("explorer_a"), w)
    assert [v.data["lat_min"] for v in hidden] == ["sigilosa"] * 3
    assert [(c.field, c.before, c.after) for c in hidden[2].changes] == [("lat_min", "sigilosa", "sigilosa")]
    assert all("Marco secreto" not in str(v.data) for v in hidden)       # the notes are masked too


def test_a_correction_without_a_reason_or_without_a_change_writes_nothing(small_world: Any) -> None:
    w, dpc = small_world.ids["w2"], small_world.principal("dpc")
    before = _audit(small_world)
    with pytest.raises(InputError) as err:
        wrecks.correct_wreck(small_world.store, dpc, w, _wreck_form(small_world, w, depth_m=Decimal("7")), "  ")
    assert err.value.problems[0].where == "reason"
    with pytest.raises(InputError) as err:
        wrecks.correct_wreck(small_world.store, dpc, w, _wreck_form(small_world, w), "nada mudou")
    assert "Nada a corrigir" in err.value.problems[0].message
    with pytest.raises(InputError) as err:
        wrecks.correct_wreck(small_world.store, dpc, w, _wreck_form(small_world, w, depth_m="-3"), "profundidade")
    assert err.value.problems[0].where == "depth_m"
    assert _audit(small_world) == before
    assert small_world.store.scalar("SELECT count(*) FROM registry_versions") == 0


def test_an_office_officer_corrects_its_own_offices_wreck_and_cannot_reach_another_offices(small_world: Any) -> None:
    officer = small_world.principal("office_rj")                 # CPRJ
    w2, w1 = small_world.ids["w2"], small_world.ids["w1"]        # w2 in CPRJ, w1 in CPBA
    rec = wrecks.wreck_record(small_world.store, officer, w2)
    assert wrecks.correct_wreck(small_world.store, officer, w2, {**rec, "depth_m": Decimal("8.50")},
                                "Sondagem da Capitania") == 2
    before = _audit(small_world)
    with pytest.raises(NotFound):
        wrecks.wreck_record(small_world.store, officer, w1)
    with pytest.raises(NotFound):
        wrecks.correct_wreck(small_world.store, officer, w1, {**rec, "code": "X"}, "tentativa")
    with pytest.raises(NotFound):
        wrecks.get_wreck(small_world.store, officer, w1)
    # moving its own wreck to another office is refused by field
    with pytest.raises(InputError) as err:
        wrecks.correct_wreck(small_world.store, officer, w2, {**rec, "office_code": "CPBA"}, "mudança de jurisdição")
    assert err.value.problems[0].where == "office_code"
    assert _audit(small_world) == before
    listed = set(wrecks.list_wrecks(small_world.store, officer)["code"])
    assert listed == {"NAU-1890-02", "NAU-1750-04"}


def test_correcting_a_companys_address_keeps_both_versions(small_world: Any) -> None:
    org, dpc = small_world.ids["org_b"], small_world.principal("dpc")
    rec = organisations.organisation_record(small_world.store, dpc, org)
    version = organisations.correct_organisation(small_world.store, dpc, org,
                                                 {**rec, "address": "Av. Rodrigues Alves, 10"},
                                                 "Mudança de sede comunicada em ofício")
    assert version == 2
    history = organisations.organisation_history(small_world.store, dpc, org)
    assert [v.data["address"] for v in history] == ["Rua do Porto, 1", "Av. Rodrigues Alves, 10"]
    assert history[1].reason == "Mudança de sede comunicada em ofício"
    # explorer B reads its own company's history; explorer A does not find it
    assert len(organisations.organisation_history(small_world.store, small_world.principal("explorer_b"), org)) == 2
    with pytest.raises(NotFound):
        organisations.organisation_history(small_world.store, small_world.principal("explorer_a"), org)
    with pytest.raises(AccessDenied):
        organisations.correct_organisation(small_world.store, small_world.principal("explorer_b"), org,
                                           {**rec, "address": "x"}, "eu mesmo")


def test_a_registered_record_starts_at_version_one_created(small_world: Any) -> None:
    dpc = small_world.principal("dpc")
    new = owners.create_owner(small_world.store, dpc, {"name": "Armadora Atlântica Ltda", "doc_kind": "desconhecido",
                                                       "nationality": "brasileira", "whereabouts_known": False})
    history = owners.owner_history(small_world.store, dpc, new)
    assert [(v.version, v.origin) for v in history] == [(1, "created")]
    owners.correct_owner(small_world.store, dpc, new, {"name": "Armadora Atlântica Ltda", "doc_kind": "desconhecido",
                                                       "nationality": "brasileira", "whereabouts_known": True,
                                                       "address": "Rua da Alfândega, 5, Recife"},
                         "Paradeiro apurado: intimação pessoal (art. 9)")
    history = owners.owner_history(small_world.store, dpc, new)
    assert [v.origin for v in history] == ["created", "corrected"]
    assert {c.field for c in history[1].changes} == {"whereabouts_known", "address"}


def test_a_reason_is_bounded_and_refuses_control_characters() -> None:
    with pytest.raises(InputError):
        versions.checked_reason("x" * (versions.REASON_MAX + 1))
    with pytest.raises(InputError):
        versions.checked_reason("motivo\x00oculto")
    assert versions.checked_reason("  motivo  ") == "motivo"
