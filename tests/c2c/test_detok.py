"""Detokenizer: AVATAR tokens <-> Python source, exact and round-tripping."""

from __future__ import annotations

import pytest

from plugins.c2c.detok import compiles, detokenize, repair, tokenize_python

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


def test_repair_replaces_only_the_bad_line() -> None:
    broken = "def f ( x ) : NEW_LINE INDENT y = = 2 NEW_LINE return y NEW_LINE DEDENT"
    fixed = repair(broken)
    assert fixed == "def f ( x ) : NEW_LINE INDENT pass NEW_LINE return y NEW_LINE DEDENT"
    assert compiles(fixed)
    assert repair(PROGRAMS[0]) == PROGRAMS[0]
