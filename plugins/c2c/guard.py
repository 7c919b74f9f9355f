"""The last check before a C2C answer is written: the Python must compile, repaired per statement,
then per function, never the whole program replaced by nothing.

``ensure_compiles(tokens)`` detokenizes the AVATAR tokens the way a judge does (``detok.detokenize``)
and compiles them (``compile`` checks all that ``ast.parse`` checks, and what the symbol table adds,
such as ``return`` outside a function or a name used before its ``global``). When that fails:

1. **statement**: the statement on the line the error names is replaced with ``pass`` at its own
   indentation; a line that opens a block (``if``, ``while`` ... the next line is deeper) goes with
   its whole block, so no orphan block is left behind, and a decorator goes with what it decorates.
   An "unexpected indent" is the block of a line that should have opened one: that line and the
   block go. A header without a block ("expected an indented block") gets a ``pass`` body. A broken
   ``def`` / ``class`` line that has a body becomes a plain one (its name kept, any arguments
   accepted) and keeps the body. One edit per error, as long as edits help.
2. **function**: after ``MAX_STATEMENT_EDITS`` edits, an error inside a function makes that
   function (the innermost ``def`` around it) keep its signature line and get the body ``pass``;
   a class's other methods and the program's other functions stay as they were.
3. **program**: when the compiler names no line (a NUL character) or no edit applies, the
   top-level statements (each with its block) that compile are kept, the others dropped; ``None``
   when none does (the caller writes its minimal program).

Each step is logged with the line and the compiler's message. Pure string work: no translator import.
"""

from __future__ import annotations

import keyword
import logging
import re
from typing import NamedTuple

from plugins.c2c.detok import CompileError, Row, compile_error, rows_of

log = logging.getLogger(__name__)

MAX_STATEMENT_EDITS = 12  # statement repairs before whole functions get a minimal body
_ON_LINE = re.compile(r"on line (\d+)")


class Guarded(NamedTuple):
    """What ``ensure_compiles`` returns."""

    tokens: str | None  # tokens that compile; None when no line of the program could be kept
    repairs: tuple[str, ...]  # one line per edit made ("" tuple: the input compiled as it was)


def tokens_of(rows: list[Row]) -> str:
    """``Row`` lines -> AVATAR tokens (``rows_of`` inverted; levels made to step by one)."""
    out: list[str] = []
    level = 0
    for row in rows:
        target = min(row.level, level + 1)  # a jump of two levels cannot be written; compile rejects it anyway
        if target > level:
            out.append("INDENT")
        out.extend(["DEDENT"] * (level - target))
        level = target
        out.extend(row.tokens)
        out.append("NEW_LINE")
    out.extend(["DEDENT"] * level)
    return " ".join(out)


def _block_end(rows: list[Row], at: int) -> int:
    """The index after the last row of the block ``rows[at]`` opens (``at + 1`` when it opens none)."""
    end = at + 1
    while end < len(rows) and rows[end].level > rows[at].level:
        end += 1
    return end


def _header_above(rows: list[Row], at: int) -> int:
    """The nearest row before ``at`` that is less indented: the line an indented block hangs from."""
    k = at - 1
    while k >= 0 and rows[k].level >= rows[at].level:
        k -= 1
    return k


def _statement_edit(rows: list[Row], error: CompileError) -> tuple[list[Row], str] | None:
    """One statement-level repair for ``error``, and a description; None when none applies."""
    if not rows or error.row < 0:
        return None
    at = min(error.row, len(rows) - 1)  # past the end: the source ended inside a statement
    if "expected an indented block" in error.message:
        named = _ON_LINE.search(error.message)  # "expected an indented block after 'if' statement on line 4"
        header = min(int(named.group(1)) - 1, len(rows) - 1) if named else max(at - 1, 0)
        body = Row(rows[header].level + 1, ("pass",))
        return [*rows[: header + 1], body, *rows[header + 1 :]], f"line {header + 1}: a block without a body gets pass"
    if "unexpected indent" in error.message or "unindent does not match" in error.message:
        header = _header_above(rows, at)
        if header < 0:  # the program starts indented: its lines move left
            shift = rows[at].level
            moved = [Row(max(0, r.level - shift), r.tokens) for r in rows]
            return moved, f"line {at + 1}: the program's indented start moved left"
        at = header
    signature = _plain_header(rows[at].tokens)
    if signature is not None and _block_end(rows, at) > at + 1:  # a broken signature: its body is kept
        edited = [*rows[:at], Row(rows[at].level, signature), *rows[at + 1 :]]
        return edited, f"line {at + 1}: signature -> {' '.join(signature)} ({error.message})"
    if rows[at].tokens == ("pass",) and _block_end(rows, at) == at + 1:
        return None  # nothing left to take out here
    end = _block_end(rows, at)
    while at > 0 and rows[at - 1].tokens[:1] == ("@",) and rows[at - 1].level == rows[at].level:
        at -= 1  # a decorator goes with what it decorates
    what = f"lines {at + 1}-{end}" if end > at + 1 else f"line {at + 1}"
    return [*rows[:at], Row(rows[at].level, ("pass",)), *rows[end:]], f"{what} -> pass ({error.message})"


def _plain_header(tokens: tuple[str, ...]) -> tuple[str, ...] | None:
    """A ``def`` / ``class`` line the compiler rejected, rewritten plainly: its name kept (or a made-up
    one), any arguments accepted; None for other lines and for lines already plain."""
    if tokens[:1] not in (("def",), ("class",)):
        return None
    name = tokens[1] if len(tokens) > 1 and tokens[1].isidentifier() and not keyword.iskeyword(tokens[1]) else None
    if tokens[0] == "class":
        plain: tuple[str, ...] = ("class", name or "Unparsed", ":")
    else:
        plain = ("def", name or "unparsed", "(", "*", "args", ",", "**", "kwargs", ")", ":")
    return None if plain == tokens else plain


def _enclosing_def(rows: list[Row], at: int) -> int:
    """The innermost ``def`` row whose block holds row ``at``; -1: none (module or class level)."""
    level = rows[at].level
    for k in range(at - 1, -1, -1):
        if rows[k].level < level:
            if rows[k].tokens[:1] == ("def",):
                return k
            level = rows[k].level
    return -1


def _function_edit(rows: list[Row], error: CompileError) -> tuple[list[Row], str] | None:
    """The innermost function around the error keeps its signature and gets the body ``pass``."""
    if not rows or error.row < 0:
        return None
    head = _enclosing_def(rows, min(error.row, len(rows) - 1))
    if head < 0:
        return None
    end = _block_end(rows, head)
    body = Row(rows[head].level + 1, ("pass",))
    if rows[head + 1 : end] == [body]:
        return None
    name = rows[head].tokens[1] if len(rows[head].tokens) > 1 else "?"
    return [*rows[: head + 1], body, *rows[end:]], f"function {name} (line {head + 1}): body -> pass ({error.message})"


def _compiling_lines(rows: list[Row]) -> list[Row]:
    """The last resort: the top-level statements (with their blocks) that compile on their own."""
    kept: list[Row] = []
    at = 0
    while at < len(rows):
        end = _block_end(rows, at)
        unit = [Row(r.level - rows[at].level, r.tokens) for r in rows[at:end]]
        if compile_error(tokens_of([*kept, *unit])) is None:
            kept.extend(unit)
        at = end
    return kept


def ensure_compiles(tokens: str) -> Guarded:
    """``tokens`` unchanged when they compile; else repaired as the module docstring says."""
    error = compile_error(tokens)
    if error is None:
        return Guarded(tokens, ())
    rows = rows_of(tokens)
    repairs: list[str] = []
    for _ in range(2 * len(rows) + MAX_STATEMENT_EDITS):  # every edit shortens the program or ends an error
        edit = None
        if len(repairs) >= MAX_STATEMENT_EDITS:
            edit = _function_edit(rows, error)
        edit = edit or _statement_edit(rows, error)
        if edit is None:
            break
        rows, what = edit
        repairs.append(what)
        log.info("C2C output repaired: %s", what)
        error = compile_error(tokens_of(rows))
        if error is None:
            return Guarded(tokens_of(rows), tuple(repairs))
    rows = _compiling_lines(rows)
    repairs.append(f"only the {len(rows)} lines of top-level statements that compile kept")
    log.info("C2C output repaired: %s", repairs[-1])
    return Guarded(tokens_of(rows) if rows else None, tuple(repairs))
