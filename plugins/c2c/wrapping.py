"""Where a Java int or long relies on wrapping, which Python's unbounded ints do not do: a hash's step in a
loop, a product a loop waits to turn negative, powers by squaring without a modulus. ``statements.py``'s
assignments wrap there as Java does (``_assignment``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from plugins.c2c.syntax import LOOPS, required, walk_nodes

if TYPE_CHECKING:
    from tree_sitter import Node

_NUMBER_BASES = (b"2", b"8", b"10", b"16")  # `x = x * 10 + d` builds a number: it does not overflow by design


def hash_step(node: Node, op: str) -> bool:
    """Is ``h = 31 * h + c`` (an int or long times a constant, plus, no ``%``) a step of a hash in a loop?
    Java's int and long wrap there by design (``String.hashCode``'s recurrence, a rolling hash modulo 2^64);
    Python's grows without bound: a wrong hash, and each step costs time in proportion to the length so far
    (a 2x10^5-character string: minutes instead of a fraction of a second)."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op != "=" or left is None or left.type != "identifier" or right is None or b"%" in (right.text or b""):
        return False
    if right.type != "binary_expression" or required(right, "operator").type not in ("+", "^"):
        return False
    for side in (right.child_by_field_name("left"), right.child_by_field_name("right")):
        while side is not None and side.type == "parenthesized_expression" and side.named_children:
            side = side.named_children[0]
        if side is None or side.type != "binary_expression" or required(side, "operator").type != "*":
            continue
        a, b = required(side, "left"), required(side, "right")
        factors = {a.type: a.text, b.type: b.text} if a.type != b.type else {}
        constant = factors.get("decimal_integer_literal")
        if factors.get("identifier") == left.text and constant is not None and constant not in _NUMBER_BASES:
            loop = node.parent
            while loop is not None and loop.type not in (*LOOPS, "method_declaration"):
                loop = loop.parent
            return loop is not None and loop.type in LOOPS
    return False


def relies_on_overflow(node: Node, op: str) -> bool:
    """Is ``x = x * y`` / ``x *= y`` in a method that leaves a loop on ``x < 0`` (waiting for the product to wrap)?

    Only then: elsewhere the references (and the unit tests' expected values) do not wrap either.
    """
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or left.type != "identifier" or right is None:
        return False
    while right.type == "parenthesized_expression" and right.named_children:
        right = right.named_children[0]
    if op == "=" and not (right.type == "binary_expression" and required(right, "operator").type == "*"):
        return False
    method = node.parent
    while method is not None and method.type not in ("method_declaration", "constructor_declaration"):
        method = method.parent
    if method is None:
        return False
    for n in walk_nodes(method):
        if n.type != "binary_expression":
            continue
        a, b, cmp = n.child_by_field_name("left"), n.child_by_field_name("right"), n.child_by_field_name("operator")
        if a is None or b is None or cmp is None:
            continue
        negative = (cmp.type == "<" and a.text == left.text and b.text == b"0") or (
            cmp.type == ">" and b.text == left.text and a.text == b"0"
        )
        if negative and _exits_on(n):
            return True
    return False


def _product(node: Node, op: str) -> tuple[bytes, bytes] | None:
    """``x *= y`` / ``x = x * y`` (``y * x``) without ``%``: the names of ``x`` and ``y`` (an identifier), or None."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or left.type != "identifier" or right is None or b"%" in (right.text or b""):
        return None
    while right.type == "parenthesized_expression" and right.named_children:
        right = right.named_children[0]
    if op == "=" and right.type == "binary_expression" and required(right, "operator").type == "*":
        a, b = required(right, "left"), required(right, "right")
        right = b if a.text == left.text else a if b.text == left.text else right
        if right.type == "binary_expression":
            return None
    elif op != "*=":
        return None
    return (left.text or b"", right.text or b"") if right.type == "identifier" else None


def squares_in_loop(node: Node, op: str) -> bool:
    """Is ``x *= y`` in a loop that squares ``x`` or ``y`` (``base *= base``) with no ``%``: powers by squaring
    without a modulus, which Java's int / long wrap after a few steps (Python's grow, and slow the program down)."""
    names = _product(node, op)
    loop = node.parent
    while loop is not None and loop.type not in (*LOOPS, "method_declaration", "lambda_expression"):
        loop = loop.parent
    if names is None or loop is None or loop.type not in LOOPS:
        return False
    squared = set()
    for n in walk_nodes(loop):
        if n.type == "assignment_expression" and required(n, "operator").type in ("=", "*="):
            pair = _product(n, required(n, "operator").type)
            if pair is not None and pair[0] == pair[1]:
                squared.add(pair[0])
    return not squared.isdisjoint(names)


def _exits_on(test: Node) -> bool:
    """Does the loop end when ``test`` holds: ``if ( test ) break / return``, or a loop's condition?"""
    cur = test.parent
    while cur is not None and cur.type in ("parenthesized_expression", "condition"):
        cur = cur.parent
    if cur is None:
        return False
    if cur.type in ("while_statement", "for_statement", "do_statement"):
        return True
    if cur.type != "if_statement":
        return False
    body = cur.child_by_field_name("consequence")
    while body is not None and body.type == "block" and body.named_children:
        body = body.named_children[0]
    return body is not None and body.type in ("break_statement", "return_statement")
