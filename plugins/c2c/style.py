"""Style switches and decision sites of the translator (what the selector chooses among)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True, slots=True)
class Style:
    """Binary style switches; defaults are the majority choice of the AVATAR references."""

    cond_parens: bool = True  # `if ( a > b ) :` rather than `if a > b :`
    semicolons: bool = False  # keep Java's trailing `;` on simple statements
    int_cast_div: bool = False  # `int ( a / b )` rather than `a // b` for integer division
    range_zero: bool = False  # `range ( 0 , n )` rather than `range ( n )`
    expand_incr: bool = False  # `i = i + 1` rather than `i += 1`
    comp_array: bool = False  # `[ 0 for i in range ( n ) ]` rather than `[ 0 ] * n`


STYLE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Style))
DEFAULT_STYLE = Style()
DIV_OPTIONS = ("floor", "true", "cast")  # integer `a / b` as `a // b`, `a / b`, `int ( a / b )`


@dataclass(frozen=True, slots=True)
class Site:
    """A decision site: one construct with several accepted translations."""

    index: int  # order of appearance during translation
    kind: str  # e.g. "div"
    java: str  # Java text of the enclosing statement (what the text tower reads)
    options: tuple[str, ...]
    default: str


def style_variants(base: Style = DEFAULT_STYLE) -> dict[str, Style]:
    """Each switch flipped on its own: the candidates the selector learns to choose among."""
    return {name: replace(base, **{name: not getattr(base, name)}) for name in STYLE_FIELDS}
