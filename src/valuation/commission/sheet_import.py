"""Importing a member's filled-in assessment sheet (CSV/XLSX) into an open round (issue 3).

All or nothing: when any row is bad nothing is written and every bad cell is listed ("linha N,
coluna X: motivo"). The parsing and the rules of a cell are `valuation.commission.sheet`; the
template a member downloads is `views.round_template`; the writes are `entries.write_entries`,
in one transaction, with the file recorded in `imports` (name, SHA-256, rows).
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.commission.entries import AssessmentImport, member_round, write_entries
from valuation.commission.rounds import register
from valuation.commission.sheet import Problems, as_mask, parse_sheet
from valuation.core.errors import InputError, Problem
from valuation.db.access import Principal, require

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

__all__ = ["IMPORT_KIND", "import_assessments"]

IMPORT_KIND = "avaliacoes_comissao"


def import_assessments(store: Store, user: Principal, round_id: int, data: bytes, file_name: str) -> AssessmentImport:
    """Record the member's entries from a CSV/XLSX sheet — all or nothing: when any row is
    bad nothing is written and every bad cell is listed (`linha N, coluna X: motivo`).
    Items are named by their code in the contract; an item already entered gets a
    correction row. Bulk writes go through Arrow, one transaction."""
    require(user, "enter_assessments")
    if not isinstance(data, (bytes, bytearray)):
        raise InputError(Problem("", "arquivo ausente"))
    sheet = parse_sheet(bytes(data), file_name, today=store.now().date())
    entries = sheet.entries
    sha = hashlib.sha256(data).hexdigest()

    def run(tx: Tx) -> AssessmentImport:
        rnd = member_round(tx, round_id)
        item_ids = _item_ids(tx, rnd, entries.frame["item_code"], entries.problems)
        import_id = int(tx.scalar(
            "INSERT INTO imports (contract_id, kind, file_name, sha256, row_count, imported_by, imported_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [rnd["contract_id"], IMPORT_KIND, file_name[:255], sha, len(entries), user.username, store.now()]))
        written, corrections = write_entries(tx, rnd, user, entries, item_ids, import_id=import_id)
        result = AssessmentImport(round_id=round_id, import_id=import_id, file_name=file_name, sha256=sha,
                                  rows=written.num_rows, new=written.num_rows - corrections, corrections=corrections,
                                  ignored_columns=sheet.ignored_columns)
        tx.audit("assessments_imported", "assessment_round", round_id, None, {
            "file": file_name, "sha256": sha, "import_id": import_id, "rows": result.rows, "new": result.new,
            "corrections": corrections, "member_id": user.id})
        return result

    return store.write(user.username, run)


def _item_ids(tx: Tx, rnd: Mapping[str, Any], codes_column: pd.Series, problems: Problems) -> pa.Array:
    """The item id of each row's code (null when unknown); a code outside the contract or the
    round is a problem of its row."""
    codes = pa.array(codes_column.array, from_pandas=True)
    stage = pa.table({"row": pa.array(np.arange(len(codes)), type=pa.int64()), "item_code": codes})
    view = register(tx, "codes", stage)
    try:
        found = tx.cur.sql(
            f"SELECT s.row, i.id AS item_id, ri.item_id IS NOT NULL AS in_round FROM {view} s "
            f"LEFT JOIN items i ON i.contract_id = {int(rnd['contract_id'])} AND i.item_code = s.item_code "
            f"LEFT JOIN round_items ri ON ri.round_id = {int(rnd['id'])} AND ri.item_id = i.id "
            f"ORDER BY s.row").to_arrow_table()
    finally:
        tx.cur.unregister(view)
    item_ids = found["item_id"].combine_chunks()
    has_code = as_mask(pc.not_equal(codes, ""))
    known = as_mask(item_ids.is_valid())
    problems.add(has_code & ~known, "item_code", f"item não encontrado no contrato {rnd['contract_code']}")
    problems.add(has_code & known & ~as_mask(found["in_round"]), "item_code",
                 f"o item não faz parte da rodada {rnd['number']}")
    return item_ids
