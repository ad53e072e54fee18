"""The fields of a recovered item — ONE definition, from which everything else is derived.

Every recovered thing is registered and delivered to the Naval Authority (Lei 7.542/1986
art. 23). `ITEM_FIELDS` says, for each field of that register: its key (the column of
`items` and the importer's canonical column name, the X of its `linha N, coluna X`), its
pt-BR label (the header of the template, of the exports and of the page's table: an export
can be imported again), its kind, whether the importer requires it, the header names it
accepts, the decimal type of a number, and whether the inventory's text search reads it.

Derived from here, never written again: the importer's columns, aliases, per-kind checks and
frame (`inventory.importer`); the select lists, labels, export columns and search columns of
`inventory.queries`; the import caption and the table formats of the Inventário page.
Adding a field = a migration adding the column + one `ItemField` below (+ the demo, bench
and sample data that should carry it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["text", "integer", "decimal", "date"]

INT32_MAX = 2_147_483_647    # items.quantity is INTEGER


@dataclass(frozen=True)
class ItemField:
    """One field of a recovered item (module docstring)."""

    key: str                          # items.<key>; the importer's canonical column name
    label: str                        # pt-BR: template/export header, page column title
    kind: Kind
    required: bool                    # the importer refuses a file without the column / an empty cell
    headers: tuple[str, ...]          # header names accepted, in `normalise_header` form; the first
    #                                   four are named when the column is missing
    precision: int = 0                # decimal: DECIMAL(precision, scale) of the column
    scale: int = 0
    what: str = ""                    # decimal: what the number is, in its message ('peso em gramas')
    searched: bool = False            # read by the inventory's text search
    shown_places: int | None = None   # decimal: places the page shows (None: `scale`)

    @property
    def largest(self) -> str:
        """The largest value a decimal column holds, as the importer's message writes it: '99999,99'."""
        whole = "9" * (self.precision - self.scale)
        return whole + ("," + "9" * self.scale if self.scale else "")


# Header names in `normalise_header` form (lower case, no accents, '_' for any run of spaces or
# punctuation): 'Código do item' → codigo_do_item, 'Peso (g)' → peso_g. Each holds its key and its
# label's form (so an export reads back). A bare `peso`/`weight` is not accepted (grams or
# kilograms?); a bare `profundidade`/`depth` is read as metres.
ITEM_FIELDS: tuple[ItemField, ...] = (
    ItemField("item_code", "Código do item", "text", True, searched=True,
              headers=("item_code", "code", "codigo", "cod", "codigo_item", "codigo_do_item", "cod_item",
                       "numero_do_item", "numero_item", "n_item")),
    ItemField("description", "Descrição", "text", True, searched=True,
              headers=("description", "descricao", "descricao_do_item", "item_description")),
    ItemField("category", "Categoria", "text", True, headers=("category", "categoria")),
    ItemField("material", "Material", "text", True, searched=True, headers=("material", "materiais")),
    ItemField("quantity", "Quantidade", "integer", True,
              headers=("quantity", "qty", "quantidade", "qtd", "qtde", "quant")),
    ItemField("weight_g", "Peso (g)", "decimal", False, precision=12, scale=2, what="peso em gramas",
              headers=("weight_g", "weight_grams", "weight_in_grams", "peso_g", "peso_gramas", "peso_em_gramas",
                       "peso_em_g", "peso_gr")),
    ItemField("recovered_on", "Data de recuperação", "date", True,
              headers=("recovered_on", "recovery_date", "date_recovered", "data_recuperacao", "data_de_recuperacao",
                       "data_da_recuperacao", "recuperado_em", "data_resgate", "data_de_resgate",
                       "data_do_resgate")),
    ItemField("depth_m", "Profundidade (m)", "decimal", False, precision=7, scale=2, what="profundidade em metros",
              shown_places=1,
              headers=("depth_m", "depth", "depth_metres", "depth_meters", "profundidade_m", "profundidade",
                       "profundidade_em_metros", "profundidade_metros", "prof_m")),
    ItemField("lot", "Lote", "text", False, searched=True,
              headers=("lot", "lote", "numero_do_lote", "numero_lote", "n_lote")),
    ItemField("condition", "Condição", "text", True,
              headers=("condition", "condicao", "estado", "estado_de_conservacao", "estado_conservacao",
                       "conservacao")),
    ItemField("notes", "Observações", "text", False, searched=True,
              headers=("notes", "note", "observacoes", "observacao", "obs", "comentarios")),
)

KEYS: tuple[str, ...] = tuple(f.key for f in ITEM_FIELDS)
FIELD_BY_KEY: dict[str, ItemField] = {f.key: f for f in ITEM_FIELDS}
FIELD_LABELS: dict[str, str] = {f.key: f.label for f in ITEM_FIELDS}
SEARCHED: tuple[str, ...] = tuple(f.key for f in ITEM_FIELDS if f.searched)


def columns_caption() -> str:
    """The import caption's list of columns: 'Código do item, Descrição, …'."""
    return ", ".join(f.label for f in ITEM_FIELDS)


def select_list(alias: str) -> str:
    """'i.item_code, i.description, …' — the item's fields as a select list over `alias`."""
    return ", ".join(f"{alias}.{key}" for key in KEYS)


@dataclass(frozen=True)
class DisplayFormats:
    """How a table shows the item's fields (`ui.fmt.for_display` arguments)."""

    dates: tuple[str, ...]
    counts: tuple[str, ...]
    numbers: dict[str, int]          # decimal field → places shown


def display_formats() -> DisplayFormats:
    """The dates, counts and numbers (with their places) among the item's fields."""
    return DisplayFormats(dates=tuple(f.key for f in ITEM_FIELDS if f.kind == "date"),
                          counts=tuple(f.key for f in ITEM_FIELDS if f.kind == "integer"),
                          numbers={f.key: f.scale if f.shown_places is None else f.shown_places
                                   for f in ITEM_FIELDS if f.kind == "decimal"})
