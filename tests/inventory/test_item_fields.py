"""Issue 12: one table of an item's fields, and problems that carry their place as data."""
from __future__ import annotations

from datetime import date

import pytest

from valuation.core.errors import InputError, Problem
from valuation.importing.tabular import normalise_header
from valuation.inventory import fields, importer, item_import, queries
from valuation.inventory.importer import parse_items


def test_every_field_reads_back_its_own_export_header() -> None:
    for f in fields.ITEM_FIELDS:
        assert f.headers[0] == f.key, f.key                     # named first when the column is missing
        assert normalise_header(f.label) in f.headers, f.label  # an export can be imported again
    every = [h for f in fields.ITEM_FIELDS for h in f.headers]
    assert len(every) == len(set(every))                        # no header feeds two fields


def test_importer_and_queries_derive_from_the_table() -> None:
    assert importer.COLUMNS == fields.KEYS
    assert set(importer.REQUIRED_COLUMNS) | importer.OPTIONAL_COLUMNS == set(fields.KEYS)
    assert queries.EXPORT_COLUMNS[1:1 + len(fields.KEYS)] == fields.KEYS
    assert all(queries.COLUMN_LABELS[f.key] == f.label for f in fields.ITEM_FIELDS)
    assert fields.columns_caption().split(", ") == [f.label for f in fields.ITEM_FIELDS]
    assert fields.FIELD_BY_KEY["weight_g"].largest == "9999999999,99"


def test_a_problem_prints_its_place() -> None:
    assert str(Problem("quantity", "motivo", line=4, column="quantity")) == "linha 4, coluna quantity: motivo"
    assert str(Problem("", "motivo", line=1)) == "linha 1: motivo"
    assert str(Problem("campo", "motivo")) == "campo: motivo"
    assert str(Problem("", "motivo")) == "motivo"


def test_the_problem_table_reads_lines_and_labels_from_the_problems() -> None:
    data = (b"item_code;description;category;material;quantity;recovered_on;condition\n"
            b"A-1;Moeda;moeda;prata;zero;01/02/2024;boa\n")
    with pytest.raises(InputError) as info:
        parse_items(data, "x.csv", today=date(2025, 1, 1))
    (p,) = info.value.problems
    assert (p.line, p.column, p.path) == (2, "quantity", "quantity")
    table = item_import.problems_frame(info.value)
    assert table["linha"].tolist() == [2] and table["coluna"].tolist() == ["Quantidade"]
