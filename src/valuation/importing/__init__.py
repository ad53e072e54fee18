"""Bulk uploads (CSV or XLSX) parsed and validated without touching the database.

`tabular` reads any upload into strings and parses pt-BR numbers and dates (shared by
every bulk upload); `items` validates the recovered-items file of issue 4.
"""
from valuation.inventory.importer import COLUMNS, HEADER_ALIASES, MAX_PROBLEMS, ParsedItems, parse_items
from valuation.importing.tabular import TableMeta, read_table

__all__ = ["COLUMNS", "HEADER_ALIASES", "MAX_PROBLEMS", "ParsedItems", "TableMeta", "parse_items", "read_table"]
