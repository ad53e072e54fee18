"""The wreck's record on the Naufrágios page: its registration form (every field the store and the law read — the
responsible party, the declaration of loss and the licence request of arts. 3 I and 4, the day the office learned
of the casualty for the Maritime Court, depth, flag, notes), the same form to correct it (a new version with its
reason), its versions, and the responsible parties (register, correct)."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

import streamlit as st

from ui.expanders import lazy_expander
from ui.fields import date_field, money_field
from ui.fmt import option_label, text
from ui.forms import blanks_to_none, save
from ui.history import versions_table
from valuation.core.law import CASUALTY_TYPES
from valuation.core.positions import DATUMS, Coordinate, format_coordinate
from valuation.db.access import Principal, allowed
from valuation.db.store import Store
from valuation.registry import offices, owners, wrecks
from valuation.registry.versions import REASON_LABEL

LAT_EXAMPLE, LON_EXAMPLE = "22°54,35' S", "43°10,20' W"   # as the messages of valuation.core.positions show them
# form keys → the labels the form shows (problems name the field so)
FORM_LABELS = {
    "code": "Código", "name": "Nome da embarcação", "vessel_type": "Tipo de embarcação", "flag": "Bandeira",
    "hull_material": "Material do casco", "casualty_type": "Tipo de sinistro",
    "casualty_precision": "Precisão da data do sinistro", "casualty_year": "Ano do sinistro",
    "casualty_month": "Mês do sinistro", "casualty_day": "Dia do sinistro", "latitude": "Latitude",
    "longitude": "Longitude", "datum": "Datum", "position_approximate": "Posição aproximada",
    "depth_m": "Profundidade (m)", "office_code": "Capitania/Delegacia/Agência", "situation": "Situação",
    "visible_high_tide": "Visível na preamar", "visible_low_tide": "Visível na baixa-mar",
    "protected_area": "Em área protegida", "signalling": "Sinalização", "owner_id": "Responsável (arts. 3–9)",
    "owner_declared_lost": "Declaração de perda pelo responsável (art. 3 I)",
    "owner_licence_requested": "Pedido de licença do responsável (art. 4)",
    "court_known_on": "Conhecimento do sinistro pela Capitania (Lei 2.180/1954 art. 33)", "notes": "Observações",
    "reason": REASON_LABEL,
}
OWNER_LABELS = {"name": "Nome", "doc_kind": "Tipo de documento", "doc_number": "Número do documento",
                "nationality": "Nacionalidade", "whereabouts_known": "Paradeiro conhecido",
                "address": "Endereço", "notes": "Observações", "reason": REASON_LABEL}


def _index(options: list[Any], value: Any) -> int:
    return options.index(value) if value in options else 0


def _depth(v: object) -> Decimal | None:
    return None if v is None else Decimal(str(v))


def _number(v: object) -> str:
    return "" if v is None else str(v)


def _coordinate(current: dict[str, Any] | None, axis: str) -> str:
    if not current or current.get(f"{axis}_deg") is None:
        return ""
    return format_coordinate(Coordinate(current[f"{axis}_deg"], Decimal(current[f"{axis}_min"]),
                                        current[f"{axis}_hem"]))


def wreck_fields(store: Store, user: Principal, key: str, current: dict[str, Any] | None) -> dict[str, Any]:
    """Every field of the wreck's form, empty or filled with `current` (wrecks.wreck_record)."""
    L, c = FORM_LABELS, current or {}
    f1, f2, f3 = st.columns(3)
    office_names = offices.office_choices(store, user)
    office_codes = list(office_names)
    if c.get("office_code") and c["office_code"] not in office_names:   # a closed office keeps its records
        office_codes.insert(0, c["office_code"])
        office_names[c["office_code"]] = c["office_code"]
    people = owners.list_owners(store, user) if allowed(user, "read_owners") else None
    owner_names = {} if people is None else dict(zip(people["id"].tolist(), people["name"].tolist()))
    owner_ids = [None, *owner_names]
    hulls, types, precisions = list(wrecks.HULL_MATERIALS), list(CASUALTY_TYPES), list(wrecks.PRECISIONS)
    datums, situations = list(DATUMS), list(wrecks.SITUATIONS)
    data: dict[str, Any] = {
        "code": f1.text_input(L["code"], value=c.get("code") or "", max_chars=40),
        "name": f2.text_input(L["name"], value=c.get("name") or "", max_chars=200),
        "vessel_type": f3.text_input(L["vessel_type"], value=c.get("vessel_type") or "", max_chars=100),
        "flag": f1.text_input(L["flag"], value=c.get("flag") or "", max_chars=100),
        "hull_material": f2.selectbox(L["hull_material"], hulls, index=_index(hulls, c.get("hull_material"))),
        "casualty_type": f3.selectbox(L["casualty_type"], types, index=_index(types, c.get("casualty_type"))),
        "casualty_precision": f1.selectbox(L["casualty_precision"], precisions,
                                           index=_index(precisions, c.get("casualty_precision")),
                                           format_func=option_label(wrecks.PRECISION_LABELS)),
        "casualty_year": f2.text_input(L["casualty_year"], value=_number(c.get("casualty_year")), placeholder="1998"),
        "casualty_month": f3.text_input(L["casualty_month"], value=_number(c.get("casualty_month")),
                                        placeholder="1 a 12"),
        "casualty_day": f1.text_input(L["casualty_day"], value=_number(c.get("casualty_day")), placeholder="1 a 31"),
        "latitude": f2.text_input(L["latitude"], value=_coordinate(current, "lat"), placeholder=LAT_EXAMPLE,
                                  help=f"Graus, minutos e centésimos de minuto e o hemisfério, p. ex. {LAT_EXAMPLE} "
                                       "(NORMAM-10 (ed. 2002) 0403 a)."),
        "longitude": f3.text_input(L["longitude"], value=_coordinate(current, "lon"), placeholder=LON_EXAMPLE,
                                   help=f"Graus, minutos e centésimos de minuto e o hemisfério, p. ex. {LON_EXAMPLE}."),
        "datum": f1.selectbox(L["datum"], datums, index=_index(datums, c.get("datum"))),
        "position_approximate": f2.checkbox(L["position_approximate"], value=bool(c.get("position_approximate"))),
        "depth_m": money_field(L["depth_m"], value=_depth(c.get("depth_m")), maximum=wrecks.MAX_DEPTH_M,
                               placeholder="ex.: 12,50", where=f3, path="depth_m", key=f"{key}_depth_m"),
        "office_code": f1.selectbox(L["office_code"], office_codes, index=_index(office_codes, c.get("office_code")),
                                    format_func=option_label(office_names)),
        "situation": f2.selectbox(L["situation"], situations, index=_index(situations, c.get("situation"))),
        "visible_high_tide": f3.checkbox(L["visible_high_tide"], value=bool(c.get("visible_high_tide"))),
        "visible_low_tide": f1.checkbox(L["visible_low_tide"], value=bool(c.get("visible_low_tide"))),
        "protected_area": f2.checkbox(L["protected_area"], value=bool(c.get("protected_area"))),
        "signalling": st.text_input(L["signalling"], value=c.get("signalling") or "", max_chars=500),
    }
    if people is not None:
        data["owner_id"] = f1.selectbox(L["owner_id"], owner_ids, index=_index(owner_ids, c.get("owner_id")),
                                        format_func=lambda i: "desconhecido / não cadastrado" if i is None
                                        else owner_names[i])
    for i, field in enumerate(("owner_declared_lost", "owner_licence_requested", "court_known_on")):
        data[field] = date_field(L[field], value=c.get(field), where=(f2, f3, f1)[i], path=field, key=f"{key}_{field}")
    data["notes"] = st.text_area(L["notes"], value=c.get("notes") or "", max_chars=4000)
    return data


def register_box(store: Store, user: Principal) -> None:
    with lazy_expander("Cadastrar naufrágio", key="wrecks_new_box") as opened:
        if opened:
            with st.form("new_wreck"):
                data = wreck_fields(store, user, "new_wreck", None)
                submitted = st.form_submit_button("Cadastrar")
            if submitted:
                save(wrecks.create_wreck, store, user, blanks_to_none(data),
                     success="Naufrágio cadastrado (id {result}).", labels=FORM_LABELS)


def correct_box(store: Store, user: Principal, wreck_id: int) -> None:
    with lazy_expander("Corrigir o registro", key=f"wrecks_correct_{wreck_id}") as opened:
        if opened:
            current = wrecks.wreck_record(store, user, wreck_id)
            with st.form(f"correct_wreck_{wreck_id}"):
                data = wreck_fields(store, user, f"correct_wreck_{wreck_id}", current)
                reason = st.text_area(REASON_LABEL, max_chars=1000,
                                      help="Obrigatório: fica na versão, com quem corrigiu e quando.")
                submitted = st.form_submit_button("Salvar correção")
            if submitted:
                save(wrecks.correct_wreck, store, user, wreck_id, blanks_to_none(data), reason,
                     success="Correção registrada: versão {result}. Prazos e domínio passam a ler os novos dados.",
                     labels=FORM_LABELS)


def history_box(store: Store, user: Principal, wreck_id: int) -> None:
    with st.expander("Histórico de versões do registro"):
        names: dict[Any, str] = {}
        if allowed(user, "read_owners"):
            people = owners.list_owners(store, user)
            names = {str(i): n for i, n in zip(people["id"], people["name"])}
        versions_table(wrecks.wreck_history(store, user, wreck_id),
                       shown={"owner_id": lambda v: "—" if v is None else names.get(str(v), f"responsável {v}")})


def owner_fields(current: dict[str, Any] | None) -> dict[str, Any]:
    L, c = OWNER_LABELS, current or {}
    a, b = st.columns(2)
    kinds = list(owners.DOC_KINDS)
    return {"name": a.text_input(L["name"], value=c.get("name") or "", max_chars=200),
            "doc_kind": b.selectbox(L["doc_kind"], kinds, index=_index(kinds, c.get("doc_kind"))),
            "doc_number": a.text_input(L["doc_number"], value=c.get("doc_number") or "", max_chars=40,
                                       help="CPF ou CNPJ com os dígitos verificadores; documento estrangeiro como "
                                            "está; em branco quando desconhecido."),
            "nationality": b.text_input(L["nationality"], value=c.get("nationality") or "brasileira", max_chars=100),
            "whereabouts_known": a.checkbox(L["whereabouts_known"], value=bool(c.get("whereabouts_known")),
                                            help="Conhecido: intimação pessoal; desconhecido: edital (art. 9)."),
            "address": b.text_input(L["address"], value=c.get("address") or "", max_chars=300),
            "notes": st.text_area(L["notes"], value=c.get("notes") or "", max_chars=4000)}


def owners_box(store: Store, user: Principal) -> None:
    """Register a responsible party, or correct one (arts. 3–9: the owner or the party responsible)."""
    with lazy_expander("Responsáveis (cadastrar ou corrigir)", key="wrecks_owners_box") as opened:
        if not opened:
            return
        with st.form("new_owner", clear_on_submit=True):
            st.markdown("**Cadastrar responsável**")
            data = owner_fields(None)
            if st.form_submit_button("Cadastrar responsável"):
                save(owners.create_owner, store, user, blanks_to_none(data),
                     success="Responsável cadastrado (nº {result}); escolha-o no registro do naufrágio.",
                     labels=OWNER_LABELS)
        people = owners.list_owners(store, user)
        if people.empty:
            return
        names = dict(zip(people["id"].tolist(), people["name"].tolist()))
        pick = st.selectbox("Corrigir o responsável", list(names), format_func=option_label(names))
        current = owners.get_owner(store, user, int(pick))
        with st.form(f"correct_owner_{pick}"):
            data = owner_fields(current)
            reason = st.text_area(REASON_LABEL, max_chars=1000)
            if st.form_submit_button("Salvar correção do responsável"):
                save(owners.correct_owner, store, user, int(pick), blanks_to_none(data), reason,
                     success="Correção registrada: versão {result}.", labels=OWNER_LABELS)
        versions_table(owners.owner_history(store, user, int(pick)))
        st.caption(f"Documento: {text(current.get('doc_number'))}")
