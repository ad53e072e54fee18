"""Page arguments of the paginated store queries (one check and one size limit for all of them)."""
from __future__ import annotations

from valuation.core.errors import InputError, Problem

MAX_PAGE_SIZE = 500            # a page is for people to read; the one page-size limit of the package
DEFAULT_PAGE_SIZE = 50
MAX_PAGE = 1_000_000_000       # (page − 1) × page_size stays far inside DuckDB's BIGINT OFFSET


def check_page(page: object, page_size: object, max_page_size: int = MAX_PAGE_SIZE) -> None:
    """InputError (pt-BR, naming `page` / `page_size`) unless both are whole numbers in range."""
    problems = []
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= MAX_PAGE:
        problems.append(Problem("page", "Página: deve ser um número inteiro a partir de 1."))
    if isinstance(page_size, bool) or not isinstance(page_size, int) or not 1 <= page_size <= max_page_size:
        problems.append(Problem("page_size", f"Itens por página: um número inteiro de 1 a {max_page_size}."))
    if problems:
        raise InputError(problems)
