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


def detokenize(tokens: str) -> str:
    """AVATAR tokens -> Python source (4-space indentation, one statement per line)."""
    lines: list[str] = []
    level = 0
    current: list[str] = []

    def flush() -> None:
        if current:
            lines.append(_INDENT_UNIT * level + _collapse_literals(" ".join(current)))
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
    return "\n".join(lines) + "\n"


def compiles(tokens: str) -> bool:
    """Does the detokenized program pass ``compile()``?"""
    try:
        compile(detokenize(tokens), "<c2c>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


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


def _lines(tokens: str) -> list[list[str]]:
    """Token stream -> lines, each holding its leading layout tokens and ending with NEW_LINE when it had one."""
    lines: list[list[str]] = [[]]
    for tok in tokens.split():
        lines[-1].append(tok)
        if tok == "NEW_LINE":
            lines.append([])
    return [line for line in lines if line]


def repair(tokens: str, max_edits: int = 8) -> str:
    """Make a token stream compile by replacing the lines ``compile()`` rejects with ``pass``.

    Best effort for programs the translator could only partly understand: the
    layout tokens of a replaced line are kept, so the block structure survives.
    Returns the input unchanged when it already compiles, and the last attempt
    when ``max_edits`` replacements were not enough.
    """
    current = tokens
    for _ in range(max_edits):
        try:
            compile(detokenize(current), "<c2c>", "exec")
            return current
        except (SyntaxError, ValueError) as exc:
            lineno = getattr(exc, "lineno", None) or 0
        lines = _lines(current)
        code_rows = [i for i, line in enumerate(lines) if any(t not in ("INDENT", "DEDENT", "NEW_LINE") for t in line)]
        if not 1 <= lineno <= len(code_rows):
            return current
        row = lines[code_rows[lineno - 1]]
        layout = [t for t in row if t in ("INDENT", "DEDENT")]
        lines[code_rows[lineno - 1]] = [*layout, "pass", *(["NEW_LINE"] if row[-1] == "NEW_LINE" else [])]
        current = " ".join(t for line in lines for t in line)
    return current


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
