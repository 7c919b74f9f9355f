"""Syntax-directed Java -> Python translation into the AVATAR token format.

The input is Java in the challenge's token form (tokens separated by spaces,
string contents split into words with ``▁`` marking a real space). It is parsed
with tree-sitter-java inside a wrapper class, and every statement and
expression is rewritten into Python tokens; lines are joined with ``NEW_LINE``
and blocks with ``INDENT`` / ``DEDENT``. Style choices on which the AVATAR
references disagree (parentheses around conditions, trailing ``;``, integer
division, ...) are switches of ``Style``; the learned selector picks them.

Anything the translator does not know is copied token by token from the Java
source, so an unknown construct degrades one line, not the whole program.

The translator is split by concern: ``statements.py`` (members, statements),
``expressions.py`` (expressions, calls), ``java_types.py`` (type tables),
``static_types.py`` (static typing), ``style.py`` (style switches, decision sites) and ``syntax.py``
(parser, layout, tree helpers); this module keeps the translator's state, its
emission helpers and the public functions.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from plugins.c2c.analysis import CLASS_TYPES, analyze
from plugins.c2c.errors import BUG_ERRORS, TranslationBug
from plugins.c2c.expressions import ExpressionsMixin
from plugins.c2c.program import ProgramMixin
from plugins.c2c.resolve import ResolverMixin
from plugins.c2c.state import FUNCTION, PROGRAM, Policy, ProgramInfo, TranslationState
from plugins.c2c.statements import StatementsMixin
from plugins.c2c.static_types import TypesMixin
from plugins.c2c.style import DEFAULT_STYLE, DIV_OPTIONS, STYLE_FIELDS, Site, Style, style_variants
from plugins.c2c.support import constant_lines, helper_lines
from plugins.c2c.syntax import (
    DEDENT,
    INDENT,
    NEW_LINE,
    WRAPPER,
    Tokens,
    java_parser,
    merge_split_shifts,
    serialize,
    walk_nodes,
)

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = [
    "DEDENT",
    "DEFAULT_STYLE",
    "DIV_OPTIONS",
    "INDENT",
    "NEW_LINE",
    "STYLE_FIELDS",
    "Site",
    "Style",
    "Tokens",
    "TranslationBug",
    "Translator",
    "coverage",
    "is_program",
    "parses_cleanly",
    "serialize",
    "style_variants",
    "translate",
    "translate_with_sites",
]

log = logging.getLogger(__name__)

_DECLARES = ("variable_declarator", "formal_parameter", "enum_constant", "catch_formal_parameter")


class Translator(ResolverMixin, ProgramMixin, StatementsMixin, ExpressionsMixin, TypesMixin):
    """Translate one Java source (functions, fields or whole classes) to AVATAR Python tokens."""

    def __init__(self, state: TranslationState) -> None:
        self.st = state  # all the translator writes; the policy and style it reads

    @property
    def policy(self) -> Policy:
        return self.st.policy

    @property
    def state(self) -> TranslationState:
        return self.st

    # -- entry points -------------------------------------------------------------------------
    def translate_program(self, unit: tuple[bytes, Any, ProgramInfo]) -> Tokens:
        """A whole compilation unit (imports, classes, main) -> Python tokens (PROGRAM policy)."""
        self.st.src, tree, info = unit
        self._program(tree.root_node, info)
        return serialize(self.st.lines)

    def translate_members(self, java: str) -> Tokens:
        """Class members or statements, parsed inside a wrapper class -> Python tokens (FUNCTION policy)."""
        self.st.offset = len(WRAPPER)
        self.st.src = f"{WRAPPER} {java} }}".encode()
        tree = java_parser().parse(self.st.src)
        if tree.root_node.has_error and ("> >" in java or "< <" in java):
            merged = f"{WRAPPER} {merge_split_shifts(java)} }}".encode()
            merged_tree = java_parser().parse(merged)
            if not merged_tree.root_node.has_error:  # the split tokens were shifts, not closing generics
                self.st.src, tree = merged, merged_tree
        if tree.root_node.has_error:
            whole = _complete_members(tree.root_node, self.st.src)
            if whole is not None:
                self.st.src, tree = whole
        body = self._wrapper_body(tree.root_node)
        if body is None:  # the wrapper did not survive the parse: translate whatever parsed
            body = tree.root_node
        self._collect_method_types(body)
        main: list[Node] = []
        for child in body.named_children:
            self._member(child, 0, main)
        # what the function uses but does not define, after it (see support.py)
        self.st.lines += helper_lines(self.st.helpers_used) + constant_lines(self.st.constants_used)
        for m in main:
            self._emit(0, ["if", "__name__", "==", '" __main__ "', ":"])
            self._block(m.child_by_field_name("body"), 1, params=[])
        return serialize(self.st.lines)

    def declared_names(self) -> set[str]:
        """Every name the source declares (fields, locals, parameters, enum constants)."""
        return self.st.declared

    def _wrapper_body(self, root: Node) -> Node | None:
        for child in root.named_children:
            if child.type == "class_declaration":
                return child.child_by_field_name("body")
        return None

    def _collect_method_types(self, body: Node, by_type: Mapping[str, list[Node]] | None = None) -> None:
        """Each method's return type, and every declared name: from one walk of the source, or from a
        program's nodes by type (``ProgramInfo.nodes_by_type``, the analysis's walk of ``body``)."""
        if by_type is None:
            walked: dict[str, list[Node]] = {}
            for node in walk_nodes(body):
                walked.setdefault(node.type, []).append(node)
            by_type = walked
        for node in by_type.get("method_declaration", ()):
            name, typ = node.child_by_field_name("name"), node.child_by_field_name("type")
            if name is not None and typ is not None:
                self.st.method_types[self.text(name)] = self._type_name(typ)
        self.st.declared = {
            self.text(name)
            for kind in _DECLARES
            for node in by_type.get(kind, ())
            if (name := node.child_by_field_name("name")) is not None
        }

    # -- decision sites -----------------------------------------------------------------------------------
    def _decide(self, kind: str, node: Node, options: tuple[str, ...], default: str) -> str:
        """Record a decision site (a construct the references translate in several ways) and pick its option.

        The site's index counts sites in translation order, so a re-translation with
        ``choices`` sees the same indices; the default applies where no choice is given.
        """
        index = len(self.st.sites)
        self.st.sites.append(Site(index, kind, self._statement_text(node), options, default))
        choice = self.st.choices.get(index, default)
        return choice if choice in options else default

    def _statement_text(self, node: Node) -> str:
        """The Java text of the statement (or declaration) enclosing ``node``."""
        cur: Node | None = node
        while cur is not None and not (cur.type.endswith("statement") or cur.type.endswith("declaration")):
            cur = cur.parent
        target = cur if cur is not None and cur.type != "method_declaration" else node
        if target.type in ("for_statement", "while_statement", "if_statement", "do_statement"):
            target = node
        return " ".join(self.text(target).split()[:64])

    # -- emission helpers ---------------------------------------------------------------------------------
    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.st.src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def _emit(self, level: int, toks: Tokens) -> None:
        pre, self.st.pre = self.st.pre, []
        post, self.st.post = self.st.post, []
        if self.st.hoisted:
            hoisted, self.st.hoisted = self.st.hoisted, []
            self.st.lines += [(level + lvl, t) for lvl, t in hoisted]
        for p in pre:
            self.st.lines.append((level, self._terminate(p)))
        self.st.lines.append((level, toks))
        # `while ( k -- > 0 ) :`: the side effect of a header belongs at the top of its block
        inner = level + 1 if toks[-1:] == [":"] else level
        for p in post:
            self.st.lines.append((inner, self._terminate(p)))

    def _simple(self, level: int, toks: Tokens) -> None:
        self._emit(level, self._terminate(toks))

    def _terminate(self, toks: Tokens) -> Tokens:
        return [*toks, ";"] if self.st.style.semicolons else toks

    def _copy_line(self, node: Node, level: int) -> None:
        self.st.unknown += 1
        text = self.st.src[max(node.start_byte, self.st.offset) : node.end_byte].decode("utf-8", errors="replace")
        toks = [t for t in text.split() if t not in ("{", "}", ";")]
        if toks:
            self._emit(level, toks)


_MEMBERS = ("method_declaration", "constructor_declaration", "field_declaration", "class_declaration")


def _complete_members(root: Node, src: bytes) -> tuple[bytes, Any] | None:
    """A request cut off inside its last member (a string literal left open, a block never closed):
    the members before that one, in the wrapper, when they parse cleanly; else None."""
    found: list[Node] = []
    for top in root.named_children:
        if top.type in _MEMBERS and top.start_byte >= len(WRAPPER):
            found.append(top)
            continue
        body = top.child_by_field_name("body") if top.type == "class_declaration" else None
        found += (body or top).named_children  # the wrapper's members, or what an ERROR node holds
    ends = [n.end_byte for n in found if n.type in _MEMBERS and not n.has_error and n.start_byte >= len(WRAPPER)]
    if not ends or max(ends) >= len(src) - 2:
        return None
    cut = src[: max(ends)] + b" }"
    tree = java_parser().parse(cut)
    return None if tree.root_node.has_error else (cut, tree)


_QUALIFIED = re.compile(
    r"(\bimport\s+(?:static\s+)?)?\bjava\s*\.\s*(?:util|lang|io|math|text)\s*\.\s*(?:(?:stream|function|regex)\s*\.\s*)?"
)


@lru_cache(maxsize=8)
def _program_unit(java: str) -> tuple[bytes, Any, ProgramInfo] | None:
    """``compilation_unit`` plus its analysis, kept for the style variants of the same program."""
    unit = compilation_unit(java)
    if unit is None:
        return None
    return unit[0], unit[1], analyze(unit[1].root_node)


def is_program(java: str) -> bool:
    """Is ``java`` a whole program (translated by ``program.py``) rather than members or statements?"""
    return _program_unit(java) is not None


def compilation_unit(java: str) -> tuple[bytes, Any] | None:
    """``java`` as a whole program (source bytes, tree), or None when it is class members or statements.

    A program is what starts with ``package`` / ``import`` or parses cleanly at the top level
    into type declarations (a class holding ``main``, helper classes). Split shifts
    (``> >``) are merged when that is what makes it parse.
    """
    head = java.lstrip()
    if "java" in java:  # `java . util . Arrays . sort ( a )`: the qualified name as the imported one
        java = _QUALIFIED.sub(lambda m: m.group(0) if m.group(1) else "", java)
    src = java.encode()
    tree = java_parser().parse(src)
    root = tree.root_node
    if root.has_error and ("> >" in java or "< <" in java):
        merged = merge_split_shifts(java).encode()
        merged_tree = java_parser().parse(merged)
        if not merged_tree.root_node.has_error:
            src, tree, root = merged, merged_tree, merged_tree.root_node
    kinds = {c.type for c in root.named_children} - {"line_comment", "block_comment"}
    if head.startswith(("import ", "package ")) and any(k in CLASS_TYPES for k in kinds):
        return src, tree
    if not root.has_error and kinds and kinds <= {*CLASS_TYPES, "import_declaration", "package_declaration"}:
        return src, tree
    return None


def parses_cleanly(java: str) -> bool:
    """Does tree-sitter-java parse ``java`` (as a program, or inside the wrapper class) without error nodes?"""
    if not java_parser().parse(java.encode()).root_node.has_error:
        return True
    if not java_parser().parse(merge_split_shifts(java).encode()).root_node.has_error:
        return True
    return not java_parser().parse(f"{WRAPPER} {java} }}".encode()).root_node.has_error


def translate_state(
    java: str, style: Style = DEFAULT_STYLE, choices: Mapping[int, str] | None = None
) -> tuple[str, TranslationState]:
    """Translate ``java`` under the policy it calls for (a program or members); the tokens and the state."""
    unit = _program_unit(java)
    state = TranslationState(PROGRAM if unit is not None else FUNCTION, style, dict(choices or {}))
    tr = Translator(state)
    try:
        tokens = tr.translate_program(unit) if unit is not None else tr.translate_members(java)
    except TranslationBug:
        raise
    except BUG_ERRORS as exc:  # outside any statement or expression: the whole request is the construct
        root = unit[1].root_node if unit is not None else java_parser().parse(state.src).root_node
        raise TranslationBug.at(root, state.src, state.offset, exc) from exc
    return " ".join(tokens), state


def translate(java: str, style: Style = DEFAULT_STYLE, choices: Mapping[int, str] | None = None) -> str:
    """Translate Java (AVATAR tokens) to Python (AVATAR tokens).

    Raises ``TranslationBug`` (naming the Java construct) when the translator fails on a construct,
    and ``RecursionError`` on input nested deeper than Python's stack.
    """
    return translate_state(java, style, choices)[0]


def translate_with_sites(
    java: str, style: Style = DEFAULT_STYLE, choices: Mapping[int, str] | None = None
) -> tuple[str, list[Site]]:
    """``translate`` plus the decision sites met on the way."""
    text, state = translate_state(java, style, choices)
    return text, state.sites


def coverage(java: str) -> dict[str, Any]:
    """Diagnostics: how many nodes were copied verbatim."""
    return {"unknown": translate_state(java)[1].unknown}
