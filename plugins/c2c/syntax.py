"""Shared pieces of the Java -> Python translator: the parser, token layout, tree helpers.

``serialize`` turns (indent level, tokens) lines into the AVATAR stream; the
helpers here read tree-sitter-java nodes without translator state.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

NEW_LINE, INDENT, DEDENT = "NEW_LINE", "INDENT", "DEDENT"
_WRAPPER = "class __W__ {"
Tokens = list[str]


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_java
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_java.language()))


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))


def _has_main(body: Node) -> bool:
    return any(
        c.type == "method_declaration"
        and c.child_by_field_name("name") is not None
        and c.child_by_field_name("name").text == b"main"
        for c in body.named_children
    )


def _mentions(node: Node | None, var: str) -> bool:
    return node is not None and any(n.type == "identifier" and n.text == var.encode() for n in _walk(node))


def _assigns(node: Node, var: str) -> bool:
    """Does ``node`` write ``var`` (so a Python range loop would not be equivalent)?"""
    enc = var.encode()
    for n in _walk(node):
        if n.type == "assignment_expression":
            left = n.child_by_field_name("left")
            if left is not None and left.type == "identifier" and left.text == enc:
                return True
        elif (
            n.type == "update_expression"
            and n.named_children
            and n.named_children[0].type == "identifier"
            and n.named_children[0].text == enc
        ):
            return True
    return False


def _plus_one(toks: Tokens, op: str) -> Tokens:
    """``b`` -> ``b + 1`` (``op`` "+") or ``b - 1``, simplifying ``n - 1 + 1`` and literals."""
    if len(toks) == 1 and re.fullmatch(r"\d+", toks[0]):
        value = int(toks[0]) + (1 if op == "+" else -1)
        return [str(value)] if value >= 0 else ["-", str(-value)]
    inverse = "-" if op == "+" else "+"
    if len(toks) >= 3 and toks[-2] == inverse and toks[-1] == "1" and "if" not in toks:
        return toks[:-2]
    if len(toks) == 2 and toks[0] == "-" and re.fullmatch(r"\d+", toks[1]):
        value = -int(toks[1]) + (1 if op == "+" else -1)
        return [str(value)] if value >= 0 else ["-", str(-value)]
    if "if" in toks:
        toks = ["(", *toks, ")"]
    return [*toks, op, "1"]


def _base_type(typ: str) -> str:
    return typ.removesuffix("<>")


def _commas(items: Sequence[str]) -> Tokens:
    out: Tokens = []
    for i, item in enumerate(items):
        out += ([","] if i else []) + [item]
    return out


def serialize(lines: Sequence[tuple[int, Tokens]]) -> Tokens:
    """(indent level, tokens) lines -> one AVATAR token stream with NEW_LINE / INDENT / DEDENT."""
    out: Tokens = []
    level = 0
    for lvl, toks in lines:
        if lvl > level:
            out += [INDENT] * (lvl - level)
        elif lvl < level:
            out += [DEDENT] * (level - lvl)
        level = lvl
        out += [*toks, NEW_LINE]
    out += [DEDENT] * level
    return out
