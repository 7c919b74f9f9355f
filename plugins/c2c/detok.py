"""AVATAR token stream <-> Python source.

The challenge writes Python as space-separated tokens: ``NEW_LINE`` ends a
line, ``INDENT`` / ``DEDENT`` open and close a block, and inside string and
character literals the words are split too, with ``▁`` (U+2581) standing for a
real space. ``detokenize`` turns that back into source that ``compile()``
accepts; ``tokenize_python`` goes the other way (used for round trips and for
turning plain Python into the training format).
"""

from __future__ import annotations

import io
import logging
import tokenize as pytokenize
from typing import NamedTuple

log = logging.getLogger(__name__)

SPACE_MARK = "\u2581"
_INDENT_UNIT = "    "


def _collapse_literals(line: str) -> str:
    """Join the words of every string / char literal on a line: `" a ▁ b "` -> `"a b"`."""
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch in ('"', "'"):
            j = i + 1
            while j < n and line[j] != ch:
                j += 2 if line[j] == "\\" else 1
            if j >= n:  # unterminated: leave the rest as it is
                out.append(line[i:])
                break
            body = line[i + 1 : j].replace(" ", "").replace(SPACE_MARK, " ")
            out.append(ch + body + ch)
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


class Row(NamedTuple):
    """One line of the program: its indentation level and its tokens (no layout tokens)."""

    level: int
    tokens: tuple[str, ...]


def rows_of(tokens: str) -> list[Row]:
    """AVATAR tokens -> the lines ``detokenize`` writes, one ``Row`` each, in the same order."""
    rows: list[Row] = []
    level = 0
    current: list[str] = []

    def flush() -> None:
        if current:
            rows.append(Row(level, tuple(current)))
            current.clear()

    for tok in tokens.split():
        if tok == "NEW_LINE":
            flush()
        elif tok == "INDENT":
            flush()
            level += 1
        elif tok == "DEDENT":
            flush()
            level = max(0, level - 1)
        else:
            current.append(tok)
    flush()
    return rows


def detokenize(tokens: str) -> str:
    """AVATAR tokens -> Python source (4-space indentation, one statement per line)."""
    lines = [_INDENT_UNIT * row.level + _collapse_literals(" ".join(row.tokens)) for row in rows_of(tokens)]
    return "\n".join(lines) + "\n"


class CompileError(NamedTuple):
    """Why ``compile`` rejected the detokenized program; ``row`` is 0-based (-1: no line named)."""

    kind: str  # "SyntaxError", "IndentationError", "TabError", "ValueError"
    message: str
    row: int


def compile_error(tokens: str) -> CompileError | None:
    """None when the detokenized program compiles; else what ``compile`` said, and where."""
    try:
        compile(detokenize(tokens), "<c2c>", "exec")
    except SyntaxError as exc:  # IndentationError and TabError are SyntaxErrors
        return CompileError(type(exc).__name__, str(exc.msg), (exc.lineno or 0) - 1)
    except ValueError as exc:  # a NUL byte in the source
        return CompileError("ValueError", str(exc), -1)
    return None


def compiles(tokens: str) -> bool:
    """Does the detokenized program pass ``compile()``?"""
    return compile_error(tokens) is None


def literal_tokens(text: str) -> list[str]:
    """A Python string literal -> AVATAR words: `"a b"` -> `" a ▁ b "`."""
    prefix_end = 0
    while prefix_end < len(text) and text[prefix_end] not in "'\"":
        prefix_end += 1
    prefix, literal = text[:prefix_end], text[prefix_end:]
    quote = literal[:3] if literal[:3] in ('"""', "'''") else literal[:1]
    body = literal[len(quote) : len(literal) - len(quote)]
    if len(body) <= 1 and SPACE_MARK not in body and " " not in body:
        return [text]
    words = body.replace(" ", f" {SPACE_MARK} ").split()
    return [f"{prefix}{quote}", *words, quote] if words else [text]


def tokenize_python(source: str) -> str:
    """Python source -> AVATAR tokens (comments dropped)."""
    out: list[str] = []
    gen = pytokenize.generate_tokens(io.StringIO(source).readline)
    for tok in gen:
        kind = tok.type
        if kind in (pytokenize.COMMENT, pytokenize.NL, pytokenize.ENCODING, pytokenize.ENDMARKER):
            continue
        if kind == pytokenize.NEWLINE:
            if out and out[-1] not in ("NEW_LINE", "INDENT", "DEDENT"):
                out.append("NEW_LINE")
        elif kind == pytokenize.INDENT:
            out.append("INDENT")
        elif kind == pytokenize.DEDENT:
            out.append("DEDENT")
        elif kind == pytokenize.STRING:
            out.extend(literal_tokens(tok.string))
        else:
            out.append(tok.string)
    return " ".join(out)


def readable(tokens: str) -> str:
    """AVATAR tokens -> Python source as a person writes it (``serve.py`` shows C2C's answers this way).

    ``ast.unparse`` of the detokenized source (``def f(n):``, not ``def f ( n ) :``); the detokenized
    text itself when it does not parse.
    """
    import ast

    source = detokenize(tokens)
    try:
        return ast.unparse(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source
