"""Issue 45, item 12 — a single-line text field refuses control and separator characters.

Reproduction (failed before the fix): an owner's name with CR/LF or U+2028 inside was stored as typed;
such a name breaks every line-oriented place it reaches (a CSV row, a log line, an e-mail header, the
calendar feed's folding). `Form.text`, the one place form text is read, now refuses in a single-line
field — every field of at most `forms.SINGLE_LINE_MAX` characters (names, addresses, codes, phones), or one
that says so — every character of Unicode's control (Cc: CR, LF, TAB, NUL, ESC…), format (Cf: zero-width,
direction marks, soft hyphen) and line/paragraph separator (Zl, Zp) categories, with a Portuguese message
naming the field and the character; longer fields (descriptions, notes: text areas) keep their line breaks.
"""
from __future__ import annotations

from typing import Any

import pytest

from valuation.core import forms
from valuation.core.errors import InputError
from valuation.registry.owners import create_owner

HOSTILE = {"CR LF": "Fulano\r\nBcc: x@y", "LF": "Fulano\nde Tal", "CR": "Fulano\rde Tal", "TAB": "Fulano\tde Tal",
           "U+2028": "Fulano\u2028de Tal", "U+2029": "Fulano\u2029de Tal", "NUL": "Fulano\x00", "ESC": "Ful\x1b[31mano",
           "NEL (C1)": "Fulano\x85de Tal", "zero-width space": "Ful\u200bano", "right-to-left override":
           "Fulano \u202eoãN", "BOM": "\ufeffFulano", "soft hyphen": "Fu\u00adlano"}


@pytest.mark.parametrize("typed", HOSTILE.values(), ids=HOSTILE.keys())
def test_an_owners_name_with_a_control_or_separator_character_is_refused(small_world: Any, typed: str) -> None:
    before = small_world.store.scalar("SELECT count(*) FROM owners")
    with pytest.raises(InputError) as refused:
        create_owner(small_world.store, small_world.principal("dpc"),
                     {"name": typed, "doc_kind": "desconhecido", "nationality": "brasileira",
                      "whereabouts_known": False})
    problem = refused.value.problems[0]
    assert problem.path == "name" and problem.message.startswith("Nome:"), refused.value.problems
    assert "U+" in problem.message                                   # names the character it found
    assert small_world.store.scalar("SELECT count(*) FROM owners") == before


@pytest.mark.parametrize("typed", HOSTILE.values(), ids=HOSTILE.keys())
def test_every_single_line_field_refuses_them_and_a_text_keeps_its_line_breaks(typed: str) -> None:
    f = forms.Form({"a": typed, "b": typed, "c": typed}, allowed=("a", "b", "c"))
    assert f.text("a", "Endereço", max_len=forms.SINGLE_LINE_MAX) is None
    assert f.text("b", "Motivo", max_len=4000, multiline=False) is None
    assert [p.path for p in f.problems] == ["a", "b"]
    kept = forms.Form({"notes": "Primeira linha.\r\nSegunda linha.\n\tRecuo."}, allowed=("notes",))
    assert kept.text("notes", "Observações", max_len=4000) == "Primeira linha.\r\nSegunda linha.\n\tRecuo."


def test_ordinary_names_pass_untouched() -> None:
    for name in ("José d'Ávila Ñúñez", "Maria-Clara O'Neil", "São Paulo / SP", "Rua 7 de Setembro, 123 – apto 4",
                 "Nº 12/2026-DPC", "Ærø Ltd.", "Łódź", "Ελληνικά"):
        assert forms.Form({"a": name}, allowed=("a",)).text("a", "Nome") == name
