"""Names a Java function uses without defining them: well-known helpers and constants.

GeeksforGeeks functions call helpers that lived elsewhere in their class (``swap``,
``quickSort``, ``getMin``, ``reverse``...) and read its constants (``MAX_CHAR``,
``NO_OF_CHARS``, ``MOD``). Where the source does not declare such a name, the
translation defines it after the function (which stays the first name before a
parenthesis, how TransCoder's unit-test scripts find it): helpers as small functions,
constants as ``NAME = value`` lines (after, not before: the references have no such
line, and one before the function costs CodeBLEU's dataflow match). Statement-level
``swap ( a , i , j )`` is inlined instead.
"""

from __future__ import annotations

import re

from plugins.c2c import carried
from plugins.c2c.syntax import Tokens

# undeclared upper-case constants -> value tokens (the usual GeeksforGeeks values; 256 covers any char index)
CONSTANTS: dict[str, Tokens] = {
    "MAX_CHAR": ["256"],
    "MAX_CHARS": ["256"],
    "NO_OF_CHARS": ["256"],
    "NO_OF_CHAR": ["256"],
    "TOTAL_CHARS": ["256"],
    "CHAR_SIZE": ["256"],
    "ASCII_SIZE": ["256"],
    "ALPHABET_SIZE": ["26"],
    "MOD": ["1000000007"],
    "INF": ["sys", ".", "maxsize"],
    "INFINITY": ["sys", ".", "maxsize"],
    "MAX": ["1000"],
    "MAXN": ["1000"],
    "MAX_N": ["1000"],
    "MAX_SIZE": ["1000"],
    "MAX_LEN": ["1000"],
    "NO_OF_BITS": ["32"],
    "INT_SIZE": ["32"],
    "INT_BITS": ["32"],
}
_CONST_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")

# undeclared helper functions (``runtime/helpers.py``, arguments as GeeksforGeeks passes them)
_HELPERS = carried.load("helpers")
HELPERS: frozenset[str] = frozenset(_HELPERS.public)


def is_constant(name: str) -> bool:
    """Is ``name`` one of the undeclared constants the translation can define?"""
    return name in CONSTANTS and _CONST_NAME.match(name) is not None


def constant_lines(names: set[str]) -> list[tuple[int, Tokens]]:
    """``NAME = value`` lines (level 0) for the used undeclared constants, in name order."""
    return [(0, [name, "=", *CONSTANTS[name]]) for name in sorted(names)]


def helper_lines(names: set[str]) -> list[tuple[int, Tokens]]:
    """The used undeclared helpers' definitions as (level, tokens) lines, in name order."""
    return carried.lines_by_name(_HELPERS.units, names)
