"""Detokenizer: AVATAR tokens <-> Python source, exact and round-tripping."""

from __future__ import annotations

import pytest

from plugins.c2c.detok import compiles, detokenize, rows_of, tokenize_python

PROGRAMS = [
    "def gcd ( a , b ) : NEW_LINE INDENT if a == 0 : NEW_LINE INDENT return b NEW_LINE DEDENT "
    "return gcd ( b % a , a ) NEW_LINE DEDENT",
    'def show ( x ) : NEW_LINE INDENT print ( " x ▁ = ▁ " , x , end = " ▁ " ) NEW_LINE DEDENT',
    "def f ( s ) : NEW_LINE INDENT return ord ( s [ 0 ] ) - ord ( 'a' ) NEW_LINE DEDENT",
    "MAX = 100 NEW_LINE def lim ( ) : NEW_LINE INDENT for i in range ( MAX ) : NEW_LINE INDENT "
    "if i > 3 : NEW_LINE INDENT break NEW_LINE DEDENT DEDENT return MAX NEW_LINE DEDENT",
]


def test_detokenize_exact() -> None:
    assert detokenize(PROGRAMS[0]) == (
        "def gcd ( a , b ) :\n    if a == 0 :\n        return b\n    return gcd ( b % a , a )\n"
    )
    assert detokenize(PROGRAMS[1]) == 'def show ( x ) :\n    print ( "x = " , x , end = " " )\n'


@pytest.mark.parametrize("tokens", PROGRAMS)
def test_round_trip(tokens: str) -> None:
    source = detokenize(tokens)
    assert compiles(tokens)
    assert tokenize_python(source) == tokens


def test_tokenize_plain_python() -> None:
    source = 'def f(x):\n    # comment\n    if x:\n        return "a b"\n    return 0\n'
    assert tokenize_python(source) == (
        'def f ( x ) : NEW_LINE INDENT if x : NEW_LINE INDENT return " a ▁ b " NEW_LINE DEDENT return 0 NEW_LINE DEDENT'
    )


def test_compiles_rejects_broken_code() -> None:
    assert not compiles("def f ( : NEW_LINE INDENT pass NEW_LINE DEDENT")
    assert not compiles("INDENT x = 1 NEW_LINE")


def test_rows_of_gives_the_lines_detokenize_writes() -> None:
    tokens = "def f ( x ) : NEW_LINE INDENT if x : NEW_LINE INDENT return 1 NEW_LINE DEDENT return 2 NEW_LINE DEDENT"
    rows = rows_of(tokens)
    assert [(r.level, " ".join(r.tokens)) for r in rows] == [
        (0, "def f ( x ) :"),
        (1, "if x :"),
        (2, "return 1"),
        (1, "return 2"),
    ]
    assert detokenize(tokens).splitlines() == ["    " * r.level + " ".join(r.tokens) for r in rows]
