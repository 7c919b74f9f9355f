"""Shared pieces of the Java -> Python translator: the parser, token layout, tree helpers.

``serialize`` turns (indent level, tokens) lines into the AVATAR stream; the
helpers here read tree-sitter-java nodes without translator state.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, cast, overload

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

NEW_LINE, INDENT, DEDENT = "NEW_LINE", "INDENT", "DEDENT"
WRAPPER = "class __W__ {"
Tokens = list[str]


@lru_cache(maxsize=1)
def java_parser() -> Parser:
    import tree_sitter_java
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_java.language()))


# Java identifiers that cannot stay names in Python: its keywords (those Java reserves too can never
# be Java names, so the whole list serves), Python 2's print and exec, and below the builtins /
# modules the translation calls
PY_KEYWORDS = frozenset(keyword.kwlist) | {"print", "exec"}
PY_BUILTINS = frozenset(
    [
        "abs",
        "all",
        "any",
        "bin",
        "bool",
        "chr",
        "dict",
        "divmod",
        "enumerate",
        "filter",
        "float",
        "format",
        "hash",
        "hex",
        "id",
        "input",
        "int",
        "isinstance",
        "iter",
        "len",
        "list",
        "map",
        "max",
        "min",
        "next",
        "oct",
        "ord",
        "pow",
        "range",
        "reversed",
        "round",
        "set",
        "slice",
        "sorted",
        "str",
        "sum",
        "tuple",
        "type",
        "zip",
        "math",
        "sys",
        "random",
        "heapq",
        "collections",
        "itertools",
    ]
)


PY_MODULES = frozenset({"math", "sys", "random", "heapq", "collections", "itertools"})


def local_names(method: Node) -> set[str]:
    """Names a method declares: parameters, local variables, loop and catch variables."""
    names: set[str] = set()
    for n in walk_nodes(method):
        if n.type in ("formal_parameter", "spread_parameter", "variable_declarator", "catch_formal_parameter"):
            name = n.child_by_field_name("name")
            if name is None:
                name = next((c for c in n.named_children if c.type == "variable_declarator"), None)
                name = name.child_by_field_name("name") if name is not None else None
            if name is not None and name.text is not None:
                names.add(name.text.decode())
        elif n.type == "enhanced_for_statement":
            name = n.child_by_field_name("name")
            if name is not None and name.text is not None:
                names.add(name.text.decode())
    return names


LOOPS = ("for_statement", "enhanced_for_statement", "while_statement", "do_statement")


def has_own_continue(body: Node) -> bool:
    """Does ``body`` hold a ``continue`` (unlabeled) that belongs to the enclosing loop, not a nested one?"""
    stack = [body]
    while stack:
        cur = stack.pop()
        if cur.type == "continue_statement" and not cur.named_children:
            return True
        if cur.type in LOOPS or cur.type in ("lambda_expression", "class_body"):
            continue
        stack.extend(cur.children)
    return False


def lambda_params(node: Node) -> list[tuple[str, str]]:
    """A lambda's parameters and their declared types (``"?"`` where inferred)."""
    params = node.child_by_field_name("parameters")
    if params is None:
        return []
    if params.type == "identifier":
        return [((params.text or b"").decode(), "?")]
    out = []
    for p in params.named_children:
        name = p if p.type == "identifier" else p.child_by_field_name("name")
        typ = None if p.type == "identifier" else p.child_by_field_name("type")
        typed = (typ.text or b"?").decode() if typ is not None else "?"
        out.append(((name.text or b"").decode() if name is not None else "_", typed))
    return out


def turn_return(node: Node) -> bool:
    """Is ``node`` a bare ``return ;`` that ends one turn of a ``forEach`` statement's lambda (no loop, switch,
    lambda or class between), which a for loop translates (``statements._lambda_loop``: its ``continue``)?"""
    if node.type != "return_statement" or node.named_children:
        return False
    cur = node.parent
    while cur is not None and cur.type != "lambda_expression":
        if cur.type in LOOPS or cur.type in ("switch_expression", "switch_block", "class_body", "method_declaration"):
            return False
        cur = cur.parent
    call = cur.parent.parent if cur is not None and cur.parent is not None else None
    if call is None or call.type != "method_invocation" or call.parent is None:
        return False
    name = call.child_by_field_name("name")
    return name is not None and name.text == b"forEach" and call.parent.type == "expression_statement"


def returns_besides_turns(body: Node) -> bool:
    """Does a lambda's ``body`` hold a ``return`` of its own other than a ``turn_return``?"""
    stack = [body]
    while stack:
        cur = stack.pop()
        if cur.type == "return_statement" and not turn_return(cur):
            return True
        if cur.type not in ("class_body", "lambda_expression", "object_creation_expression"):
            stack.extend(cur.children)
    return False


def read_after(node: Node, var: str) -> bool:
    """Is ``var`` read after ``node`` (in its method) before being assigned again?"""
    scope = node.parent
    while scope is not None and scope.type not in ("method_declaration", "constructor_declaration"):
        scope = scope.parent
    if scope is None:
        return True
    enc = var.encode()
    later = [n for n in walk_nodes(scope) if n.type == "identifier" and n.text == enc and n.start_byte >= node.end_byte]
    if not later:
        return False
    first = min(later, key=lambda n: n.start_byte)
    parent = first.parent
    return not (
        parent is not None
        and parent.type == "assignment_expression"
        and parent.child_by_field_name("left") == first
        and (op := parent.child_by_field_name("operator")) is not None
        and op.type == "="
    )


def merge_split_shifts(java: str) -> str:
    """``a > > 1`` -> ``a >> 1`` (also ``> > >``, ``< <`` and their ``=`` forms): shifts split into tokens."""
    toks = java.split(" ")
    out: list[str] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok in (">", "<") and i + 1 < len(toks) and toks[i + 1] == tok:
            run = 2 + (tok == ">" and i + 2 < len(toks) and toks[i + 2] == ">")
            op = tok * run
            if i + run < len(toks) and toks[i + run] == "=":
                op, run = op + "=", run + 1
            out.append(op)
            i += run
            continue
        out.append(tok)
        i += 1
    return " ".join(out)


def walk_nodes(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))


def has_main(body: Node) -> bool:
    return any(
        c.type == "method_declaration" and (name := c.child_by_field_name("name")) is not None and name.text == b"main"
        for c in body.named_children
    )


def mentions(node: Node | None, var: str) -> bool:
    return node is not None and any(n.type == "identifier" and n.text == var.encode() for n in walk_nodes(node))


def writes_var(node: Node, var: str) -> bool:
    """Does ``node`` write ``var`` (so a Python range loop would not be equivalent)?"""
    enc = var.encode()
    for n in walk_nodes(node):
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


def plus_one(toks: Tokens, op: str) -> Tokens:
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


def base_type(typ: str) -> str:
    return typ.removesuffix("<>")


def comma_joined(items: Sequence[str]) -> Tokens:
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


def required(node: Node, name: str) -> Node:
    """The field ``name`` that the grammar requires of ``node`` (a binary expression's ``left``), typed as such."""
    return cast("Node", node.child_by_field_name(name))


@overload
def unparenthesized(node: Node) -> Node: ...
@overload
def unparenthesized(node: Node | None) -> Node | None: ...
def unparenthesized(node: Node | None) -> Node | None:
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node


def _is_super_get(node: Node | None, key: bytes) -> bool:
    """Is ``node`` ``super . get ( key )``?"""
    node = unparenthesized(node)
    if node is None or node.type != "method_invocation":
        return False
    obj, name, args = (node.child_by_field_name(f) for f in ("object", "name", "arguments"))
    return (
        obj is not None
        and obj.type == "super"
        and name is not None
        and name.text == b"get"
        and args is not None
        and [a.text for a in args.named_children] == [key]
    )


def _is_contains_key(node: Node | None, key: bytes) -> bool:
    """Is ``node`` ``containsKey ( key )`` (or ``this`` / ``super . containsKey ( key )``)?"""
    node = unparenthesized(node)
    if node is None or node.type != "method_invocation":
        return False
    obj, name, args = (node.child_by_field_name(f) for f in ("object", "name", "arguments"))
    return (
        (obj is None or obj.type in ("this", "super"))
        and name is not None
        and name.text == b"containsKey"
        and args is not None
        and [a.text for a in args.named_children] == [key]
    )


def map_get_default(node: Node) -> Node | None:
    """``new HashMap < K , V > ( ) { public V get ( Object key ) { ... } }`` whose ``get`` gives a value
    for a missing key instead of null: that value's expression, else None.

    The override's body is ``if ( ! containsKey ( key ) ) return D ; return super . get ( key ) ;``
    or ``return containsKey ( key ) ? super . get ( key ) : D ;``.
    """
    body = next((c for c in node.named_children if c.type == "class_body"), None)
    members = [c for c in body.named_children if c.type not in ("line_comment", "block_comment")] if body else []
    if len(members) != 1 or members[0].type != "method_declaration":
        return None
    method = members[0]
    name, params, block = (method.child_by_field_name(f) for f in ("name", "parameters", "body"))
    formal = [p for p in params.named_children if p.type == "formal_parameter"] if params is not None else []
    if name is None or name.text != b"get" or len(formal) != 1 or block is None:
        return None
    key_node = formal[0].child_by_field_name("name")
    key = key_node.text if key_node is not None and key_node.text is not None else b""
    stmts = [c for c in block.named_children if c.type not in ("line_comment", "block_comment")]
    if len(stmts) == 1 and stmts[0].type == "return_statement" and stmts[0].named_children:
        ternary = unparenthesized(stmts[0].named_children[0])
        if ternary is not None and ternary.type == "ternary_expression":
            cond, then, other = (ternary.child_by_field_name(f) for f in ("condition", "consequence", "alternative"))
            if _is_contains_key(cond, key) and _is_super_get(then, key):
                return other
        return None
    if len(stmts) != 2 or stmts[0].type != "if_statement" or stmts[1].type != "return_statement":
        return None
    cond = unparenthesized(stmts[0].child_by_field_name("condition"))
    then = stmts[0].child_by_field_name("consequence")
    if then is not None and then.type == "block" and len(then.named_children) == 1:
        then = then.named_children[0]
    if (
        cond is None
        or cond.type != "unary_expression"
        or stmts[0].child_by_field_name("alternative") is not None
        or then is None
        or then.type != "return_statement"
        or not then.named_children
        or not stmts[1].named_children
    ):
        return None
    negated = cond.child_by_field_name("operand")
    op = cond.child_by_field_name("operator")
    if op is None or op.type != "!" or not _is_contains_key(negated, key):
        return None
    return then.named_children[0] if _is_super_get(stmts[1].named_children[0], key) else None
