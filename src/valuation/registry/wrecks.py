"""Wrecks: role-scoped reads with confidential positions, and their registration by DPC.

Positions (rules.md §8; NORMAM-10 0105 and 0403 a): the position columns
(`lat_*`, `lon_*`, `datum`, `position_approximate`, `depth_m`, the decimal `lat`/`lon`
for the map), and the free texts that may describe the spot (`notes`, `signalling`),
come back NULL for a wreck the user is not cleared for; the SQL never reads them
for such a wreck. Such a user sees the jurisdiction only: office and state.
`position_cleared` says which rows are which. The owner (a person's data) is
shown to DPC only. Admin reads no wreck at all.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.casualty import PRECISIONS
from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.core.law import CASUALTY_TYPES
from valuation.core.positions import (
    DATUMS,
    Coordinate,
    Position,
    coordinate,
    coordinate_problems,
    format_position,
    normalise_datum,
    parse_coordinate,
)
from valuation.db.access import (
    Principal,
    allowed,
    contract_scope,
    office_cleared,
    office_scope,
    position_scope,
    require,
)
from valuation.db.search import search_clause
from valuation.registry import versions

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

HULL_MATERIALS: tuple[str, ...] = ("madeira", "ferro", "aço", "concreto", "compósito", "alumínio", "fibra",
                                   "desconhecido")
SITUATIONS: tuple[str, ...] = ("encalhada", "soçobrada")
PRECISION_LABELS: dict[str, str] = {"day": "dia", "month": "mês", "year": "ano", "century": "século"}
MIN_CASUALTY_YEAR = 1000   # anything earlier is a typing error, not a wreck on the Brazilian coast
MAX_DEPTH_M = Decimal("11000")  # deeper than the deepest ocean trench

_POSITION_COLS = ("lat_deg", "lat_min", "lat_hem", "lon_deg", "lon_min", "lon_hem", "datum",
                  "position_approximate", "depth_m")
_PRIVATE_TEXT_COLS = ("signalling", "notes")
_PUBLIC_COLS = ("id", "code", "name", "vessel_type", "flag", "hull_material", "casualty_year", "casualty_month",
                "casualty_day", "casualty_precision", "casualty_type", "situation", "protected_area",
                "office_code")
_DETAIL_COLS = ("visible_high_tide", "visible_low_tide", "owner_declared_lost", "owner_licence_requested",
                "court_known_on", "created_at")


def _select(user: Principal, *, detail: bool) -> tuple[str, list[Any]]:
    cleared, params = position_scope(user, "w")
    cols = [f"w.{c}" for c in _PUBLIC_COLS]
    cols += ["o.name AS office_name", "o.state", "v.cleared AS position_cleared"]
    cols += [f"CASE WHEN v.cleared THEN w.{c} END AS {c}" for c in _POSITION_COLS]
    cols += [
        "CASE WHEN v.cleared THEN CAST((w.lat_deg + w.lat_min / 60) * "
        "(CASE WHEN w.lat_hem = 'S' THEN -1 ELSE 1 END) AS DOUBLE) END AS lat",
        "CASE WHEN v.cleared THEN CAST((w.lon_deg + w.lon_min / 60) * "
        "(CASE WHEN w.lon_hem = 'W' THEN -1 ELSE 1 END) AS DOUBLE) END AS lon",
    ]
    if detail:
        cols += [f"w.{c}" for c in _DETAIL_COLS]
        cols += [f"CASE WHEN v.cleared THEN w.{c} END AS {c}" for c in _PRIVATE_TEXT_COLS]
        if allowed(user, "read_owners"):
            cols += ["w.owner_id", "ow.name AS owner_name", "ow.doc_kind AS owner_doc_kind",
                     "ow.doc_number AS owner_doc_number"]
    joins = ("FROM wrecks w JOIN offices o ON o.code = w.office_code "
             f"JOIN (SELECT id, {cleared} AS cleared FROM wrecks w) v ON v.id = w.id ")
    if detail and allowed(user, "read_owners"):
        joins += "LEFT JOIN owners ow ON ow.id = w.owner_id "
    return f"SELECT {', '.join(cols)} {joins}", params


def list_wrecks(store: Any, user: Principal, *, office: str | None = None, state: str | None = None,
                hull: str | None = None, century: int | None = None, search: str | None = None) -> pd.DataFrame:
    """Wrecks the user may list (every non-admin role), ordered by code; positions only where cleared.

    Filters: `office` (code), `state` (UF), `hull` (hull_material), `century`
    (ordinal: 18 → years 1701–1800), `search` (name, code, vessel type, flag;
    case- and accent-insensitive). Columns: id, code, name, vessel_type, flag,
    hull_material, casualty_year/month/day/precision, casualty_type, situation,
    protected_area, office_code, office_name, state, position_cleared, lat_deg,
    lat_min, lat_hem, lon_deg, lon_min, lon_hem, datum, position_approximate,
    depth_m, lat, lon (float degrees for the map).
    """
    require(user, "read_wrecks")
    sql, params = _select(user, detail=False)
    scope, sparams = office_scope(user, "w")      # an office officer: its office's wrecks alone
    clauses: list[str] = [scope]
    params += sparams
    if office:
        clauses.append("w.office_code = ?")
        params.append(office)
    if state:
        clauses.append("o.state = ?")
        params.append(state.upper())
    if hull:
        clauses.append("w.hull_material = ?")
        params.append(hull)
    if century is not None:
        if isinstance(century, bool) or not isinstance(century, int) or not 1 <= century <= 30:
            raise InputError(Problem("century", "Século: deve ser um número inteiro de 1 a 30."))
        clauses.append("w.casualty_year BETWEEN ? AND ?")
        params += [(century - 1) * 100 + 1, century * 100]
    if search and search.strip():
        clause, extra = search_clause(("w.name", "w.code", "w.vessel_type", "w.flag"), search)
        clauses.append(clause)
        params += extra
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    return store.fetch_df(f"{sql}{where} ORDER BY w.code", params)


def get_wreck(store: Any, user: Principal, wreck_id: int) -> dict[str, Any]:
    """One wreck as a dict (the columns of list_wrecks plus details), with `position`
    (a Position or None) and `position_text` ('22°54,35' S 43°10,20' W (WGS-84)' or the
    jurisdiction), and `contracts`: the codes of its contracts this user may read."""
    require(user, "read_wrecks")
    sql, params = _select(user, detail=True)
    ok = isinstance(wreck_id, int) and not isinstance(wreck_id, bool) and 0 < wreck_id < 2 ** 63
    scope, sparams = office_scope(user, "w")
    row = store.fetch_one(f"{sql} WHERE w.id = ? AND {scope}", [*params, wreck_id, *sparams]) if ok else None
    if row is None:
        raise NotFound(f"Naufrágio {str(wreck_id)[:40]} não encontrado.", what="wreck", key=wreck_id)
    if row["position_cleared"]:
        pos = Position(Coordinate(row["lat_deg"], row["lat_min"], row["lat_hem"]),
                       Coordinate(row["lon_deg"], row["lon_min"], row["lon_hem"]),
                       row["datum"], bool(row["position_approximate"]))
        row["position"] = pos
        row["position_text"] = format_position(pos)
    else:
        row["position"] = None
        row["position_text"] = f"posição sigilosa — jurisdição: {row['office_name']} ({row['state']})"
    scope, sparams = contract_scope(user, "c")
    row["contracts"] = [r["code"] for r in store.fetch(
        f"SELECT c.code FROM contracts c WHERE c.wreck_id = ? AND {scope} ORDER BY c.code", [wreck_id, *sparams])]
    return row


WRECK_FIELDS: tuple[str, ...] = (
    "code", "name", "vessel_type", "flag", "hull_material", "casualty_year", "casualty_month", "casualty_day",
    "casualty_precision", "casualty_type", "lat_deg", "lat_min", "lat_hem", "lon_deg", "lon_min", "lon_hem",
    "latitude", "longitude", "datum", "position_approximate", "depth_m", "office_code", "situation",
    "visible_high_tide", "visible_low_tide", "signalling", "protected_area", "owner_id", "owner_declared_lost",
    "owner_licence_requested", "court_known_on", "notes",
)


def _casualty_fields(store: Any, f: Form) -> dict[str, Any]:
    """casualty_year/month/day/precision: a date that exists, not in the future, its precision agreeing."""
    rec: dict[str, Any] = {}
    this_year = store.now().year
    year = rec["casualty_year"] = f.integer("casualty_year", "Ano do sinistro", minimum=MIN_CASUALTY_YEAR,
                                            maximum=this_year)
    month = rec["casualty_month"] = f.integer("casualty_month", "Mês do sinistro", required=False,
                                              minimum=1, maximum=12)
    day = rec["casualty_day"] = f.integer("casualty_day", "Dia do sinistro", required=False, minimum=1, maximum=31)
    precision = f.choice("casualty_precision", "Precisão da data do sinistro", PRECISIONS, required=False)
    casualty: date | None = None
    if day is not None and month is None and f.ok("casualty_month"):
        f.fail("casualty_month", "Mês do sinistro: informe o mês quando o dia é informado.")
    elif year is not None and month is not None and day is not None:
        try:
            casualty = date(year, month, day)
        except ValueError:
            f.fail("casualty_day", f"Data do sinistro inexistente: {day:02d}/{month:02d}/{year}.")
        else:
            if casualty > store.today():
                f.fail("casualty_day", "Data do sinistro: não pode estar no futuro.")
    derived = "day" if day is not None else "month" if month is not None else "year"
    if precision is None:
        precision = derived
    elif (precision != derived and not (precision == "century" and derived == "year")
          and f.ok("casualty_day", "casualty_month")):
        f.fail("casualty_precision", f"Precisão da data do sinistro: '{PRECISION_LABELS[precision]}' não confere com "
                                     "o dia e o mês informados.")
    rec["casualty_precision"] = precision

    return rec


def validate_wreck(store: Any, data: Mapping[str, Any], *, user: Principal | None = None,
                   current_id: int | None = None) -> dict[str, Any]:
    """The row to insert for a new wreck (or the new state of wreck `current_id`), or InputError naming every
    bad field (pt-BR). With `user`, an office officer may name its own office alone.

    The position is either `latitude`/`longitude` texts ('22°54,35' S') or the
    separate fields lat_deg/lat_min/lat_hem and lon_deg/lon_min/lon_hem
    (NORMAM-10 0403 a: degrees, minutes and hundredths, datum; or 'posição aproximada').
    """
    f = Form(data, allowed=WRECK_FIELDS)
    rec: dict[str, Any] = {}
    rec["code"] = f.text("code", "Código", max_len=40, pattern=r"[A-Za-z0-9][A-Za-z0-9._/-]*",
                         pattern_msg="use letras, números, ponto, barra ou hífen.")
    rec["name"] = f.text("name", "Nome da embarcação", max_len=200)
    rec["vessel_type"] = f.text("vessel_type", "Tipo de embarcação", required=False, max_len=100)
    rec["flag"] = f.text("flag", "Bandeira", required=False, max_len=100)
    rec["hull_material"] = f.choice("hull_material", "Material do casco", HULL_MATERIALS)
    rec["casualty_type"] = f.choice("casualty_type", "Tipo de sinistro", CASUALTY_TYPES)
    rec.update(_casualty_fields(store, f))
    rec.update(_position_fields(f, f.data))
    rec["depth_m"] = f.decimal("depth_m", "Profundidade (m)", required=False, minimum=Decimal(0),
                               maximum=MAX_DEPTH_M, places=2)
    office = rec["office_code"] = f.text("office_code", "Capitania/Delegacia/Agência", max_len=20)
    if office is not None and store.scalar("SELECT count(*) FROM offices WHERE code = ?", [office]) == 0:
        f.fail("office_code", f"Capitania/Delegacia/Agência desconhecida: {office}.")
    elif office is not None and user is not None and not office_cleared(user, office):
        f.fail("office_code", "Capitania/Delegacia/Agência: o seu perfil cadastra naufrágios da sua jurisdição "
                              "apenas.")
    rec["situation"] = f.choice("situation", "Situação", SITUATIONS)
    rec["visible_high_tide"] = f.boolean("visible_high_tide", "Visível na preamar")
    rec["visible_low_tide"] = f.boolean("visible_low_tide", "Visível na baixa-mar")
    rec["signalling"] = f.text("signalling", "Sinalização", required=False, max_len=500)
    rec["protected_area"] = f.boolean("protected_area", "Em área protegida")
    owner = rec["owner_id"] = f.integer("owner_id", "Responsável", required=False, minimum=1)
    if owner is not None and store.scalar("SELECT count(*) FROM owners WHERE id = ?", [owner]) == 0:
        f.fail("owner_id", f"Responsável desconhecido: {owner}.")
    rec["owner_declared_lost"] = f.date("owner_declared_lost", "Data da declaração de perda", required=False)
    rec["owner_licence_requested"] = f.date("owner_licence_requested", "Data do pedido de licença", required=False)
    rec["court_known_on"] = f.date("court_known_on", "Data de conhecimento do sinistro", required=False)
    rec["notes"] = f.text("notes", "Observações", required=False, max_len=4000)
    code = rec["code"]
    if code is not None and store.scalar("SELECT count(*) FROM wrecks WHERE code = ? AND id IS DISTINCT FROM ?",
                                         [code, current_id]):
        f.fail("code", f"Código: já existe um naufrágio com o código {code}.")
    f.done()
    return rec


def _position_fields(f: Form, data: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for axis, text_key in (("lat", "latitude"), ("lon", "longitude")):
        keys = (f"{axis}_deg", f"{axis}_min", f"{axis}_hem")
        c: Coordinate | None = None
        if f.has(text_key):
            if any(f.has(k) for k in keys):
                f.fail(text_key, f"{text_key.capitalize()}: informe o texto ou os campos separados, não ambos.")
                continue
            try:
                c = parse_coordinate(data[text_key], axis=axis, field=text_key)
            except InputError as exc:
                f.problems.extend(exc.problems)
        else:
            problems = coordinate_problems(*(data.get(k) for k in keys), axis=axis)
            if problems:
                f.problems.extend(problems)
            else:
                c = coordinate(*(data.get(k) for k in keys), axis=axis)
        if c is not None:
            out[f"{axis}_deg"], out[f"{axis}_min"], out[f"{axis}_hem"] = c.degrees, c.minutes, c.hemisphere
    approximate = out["position_approximate"] = f.boolean("position_approximate", "Posição aproximada")
    datum = f.text("datum", "Datum", max_len=40)
    if datum is not None:
        canon = normalise_datum(datum)
        if canon is None:
            f.fail("datum", f"Datum desconhecido ({datum}); use um de: {', '.join(DATUMS)}.")
        elif canon == "desconhecido" and not approximate:
            f.fail("datum", "Datum: 'desconhecido' só com a indicação \"posição aproximada\".")
        out["datum"] = canon
    return out


def create_wreck(store: Any, user: Principal, data: Mapping[str, Any]) -> int:
    """Register a wreck (DPC only); returns its id. Bad input → InputError naming each field; nothing written."""
    require(user, "create_wreck")
    rec = validate_wreck(store, data, user=user)

    def insert(tx: Any) -> int:
        cols = list(rec)
        new_id = tx.scalar(f"INSERT INTO wrecks ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) "
                           "RETURNING id", [rec[c] for c in cols])
        versions.created(tx, "wreck", new_id, rec)
        tx.audit("create", "wreck", new_id, None, rec)     # redacted by the log itself (db.audit.redact)
        return int(new_id)

    return store.write(user.username, insert)


STORED_FIELDS: tuple[str, ...] = tuple(k for k in WRECK_FIELDS if k not in ("latitude", "longitude"))


def wreck_record(store: Any, user: Principal, wreck_id: int) -> dict[str, Any]:
    """The stored columns of a wreck the user may correct (its office's, for an office officer), as the correction
    form starts from them; NotFound otherwise (another office's wreck answers as a missing one)."""
    require(user, "correct_registry")
    scope, params = office_scope(user, "w")
    ok = isinstance(wreck_id, int) and not isinstance(wreck_id, bool) and 0 < wreck_id < 2 ** 63
    row = store.fetch_one(f"SELECT {', '.join(STORED_FIELDS)} FROM wrecks w WHERE w.id = ? AND {scope}",
                          [wreck_id, *params]) if ok else None
    if row is None:
        raise NotFound(f"Naufrágio {str(wreck_id)[:40]} não encontrado.", what="wreck", key=wreck_id)
    return row


def correct_wreck(store: Any, user: Principal, wreck_id: int, data: Mapping[str, Any], reason: str) -> int:
    """Correct a wreck's record (every field of the registration form; `reason` required): a new version — who,
    when, why — and the record's row becomes it (valuation.registry.versions). What reads the wreck (its deadlines,
    its domain status) reads the new facts; an issued statement is not changed. Returns the new version number.
    Bad input → InputError naming each field; nothing written."""
    before = wreck_record(store, user, wreck_id)
    why = versions.checked_reason(reason)
    rec = validate_wreck(store, data, user=user, current_id=wreck_id)
    after = {c: rec.get(c) for c in STORED_FIELDS}
    changed = [c for c in STORED_FIELDS if after[c] != before[c]]
    if not changed:
        raise InputError(Problem("reason", "Nada a corrigir: os dados informados são os que estão registrados."))

    def update(tx: Any) -> int:
        tx.execute(f"UPDATE wrecks SET {', '.join(f'{c} = ?' for c in changed)} WHERE id = ?",
                   [*(after[c] for c in changed), wreck_id])
        version = versions.corrected(tx, "wreck", wreck_id, before, after, reason=why)
        tx.audit("correct", "wreck", wreck_id, {c: before[c] for c in changed},
                 {**{c: after[c] for c in changed}, "reason": why, "version": version})
        return version

    return int(store.write(user.username, update))


HISTORY_LABELS: dict[str, str] = {
    "code": "Código", "name": "Nome da embarcação", "vessel_type": "Tipo de embarcação", "flag": "Bandeira",
    "hull_material": "Material do casco", "casualty_year": "Ano do sinistro", "casualty_month": "Mês do sinistro",
    "casualty_day": "Dia do sinistro", "casualty_precision": "Precisão da data do sinistro",
    "casualty_type": "Tipo de sinistro", "lat_deg": "Latitude (graus)", "lat_min": "Latitude (minutos)",
    "lat_hem": "Latitude (hemisfério)", "lon_deg": "Longitude (graus)", "lon_min": "Longitude (minutos)",
    "lon_hem": "Longitude (hemisfério)", "datum": "Datum", "position_approximate": "Posição aproximada",
    "depth_m": "Profundidade (m)", "office_code": "Capitania/Delegacia/Agência", "situation": "Situação",
    "visible_high_tide": "Visível na preamar", "visible_low_tide": "Visível na baixa-mar",
    "signalling": "Sinalização", "protected_area": "Em área protegida", "owner_id": "Responsável",
    "owner_declared_lost": "Data da declaração de perda", "owner_licence_requested": "Data do pedido de licença",
    "court_known_on": "Data de conhecimento do sinistro", "notes": "Observações",
}


def wreck_history(store: Any, user: Principal, wreck_id: int) -> list[versions.Version]:
    """The versions of a wreck the user may read (get_wreck's rule), oldest first; its position, depth and free
    texts read "sigilosa" for a user not cleared for its position (NORMAM-10 (ed. 2002) 0105)."""
    w = get_wreck(store, user, wreck_id)
    hidden = () if w["position_cleared"] else (*_POSITION_COLS, *_PRIVATE_TEXT_COLS)
    labels = dict(HISTORY_LABELS)
    if not allowed(user, "read_owners"):
        labels.pop("owner_id")
    return versions.history(store, "wreck", wreck_id, labels, hidden=hidden)
