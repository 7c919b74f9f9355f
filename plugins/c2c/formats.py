"""Java's format strings (``printf`` / ``String.format``) as Python's ``%``: the literal converted, the
conversions whose value ``half_up`` rounds, and the patterns only the runtime's ``java_sprintf`` writes."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=256)
def java_format(literal: str) -> str:
    """A Java format string literal (AVATAR tokens) -> a Python ``%`` format literal (AVATAR tokens)."""
    body = literal[1:-1] if len(literal) >= 2 else literal
    body = body.replace("% n", "\\n").replace("%n", "\\n")
    body = re.sub(r"%\s*([-+0 ,#]*)\s*(\d*)\s*(\.\s*\d+)?\s*([bBhHsScCdoxXeEfgGaA])", _fmt, body)
    return '"' + body + '"'


# what Python's % cannot write as Java's Formatter does: grouping, argument indexes, booleans as `true`
JAVA_ONLY_FORMAT = re.compile(r"%\s*(?:\d+\s*\$|[-+0 #]*,|[-+0 ,#]*\s*\d*\s*(?:\.\s*\d+)?\s*[bB])")


def fixed_precisions(literal: str) -> list[str | None]:
    """Per conversion of a Java format literal: the digits of a fixed-point ``%.Nf`` / ``%f`` (6), else None."""
    body = literal[1:-1].replace("%%", "").replace("% n", "").replace("%n", "")
    out: list[str | None] = []
    for m in re.finditer(r"%\s*([-+0 ,#]*)\s*(\d*)\s*(\.\s*\d+)?\s*([bBhHsScCdoxXeEfgGaA])", body):
        prec = (m.group(3) or ".6").replace(" ", "")[1:]
        out.append(prec if m.group(4) == "f" else None)
    return out


def _fmt(m: re.Match) -> str:
    flags = m.group(1).replace(",", "").replace(" ", "")
    width = m.group(2)
    prec = (m.group(3) or "").replace(" ", "")
    conv = m.group(4)
    conv = {"b": "s", "B": "s", "h": "x", "H": "X", "S": "s", "C": "c"}.get(conv, conv)
    return "%" + flags + width + prec + conv
