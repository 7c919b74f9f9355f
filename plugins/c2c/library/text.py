"""Texts built in steps: StringBuilder / StringBuffer (a Python str stands for one; edits rebind it; a
field's is a ``TextBuilder``, appended in place), StringJoiner and StringTokenizer (lists of their parts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from plugins.c2c.java_types import (
    INT_TYPES,
)
from plugins.c2c.library.rows import (
    EXPRESSION,
    REVERSED,
    STATEMENT,
    Call,
    EmitterState,
    Emitting,
    Rule,
    call_arguments,
    class_of,
    instance,
    new,
    operand,
)
from plugins.c2c.state import PROGRAM
from plugins.c2c.syntax import Tokens, local_names, plus_one, walk_nodes

if TYPE_CHECKING:
    from tree_sitter import Node


def joined(state: EmitterState, name: str) -> Tokens:
    """A StringJoiner's text: ``sep . join ( parts )`` (with its prefix and suffix)."""
    parts = state.joiners[name]
    out = [*parts[0], ".", "join", "(", name, ")"]
    if len(parts) == 3:
        out = ["(", *parts[1], "+", *out, "+", *parts[2], ")"]
    return out


# -- StringBuilder: a Python str stands for it (edits rebind it) ------------------------------------
# A field's is a ``TextBuilder`` (runtime/strings.py): ``sb += x`` on a global or an attribute copies the
# whole str (CPython extends in place only a function's local), the builder keeps the parts, joined when read.
def builder_field(node: Node | None) -> bool:
    """Is ``node`` a StringBuilder field of the source: a name no enclosing method declares, or
    ``this . sb`` / ``Main . sb``, whose name a StringBuilder / StringBuffer field declaration declares?"""
    if node is None or node.type not in ("identifier", "field_access"):
        return False
    name = node.child_by_field_name("field") if node.type == "field_access" else node
    if name is None or name.text is None:
        return False
    up = node.parent
    while up is not None and up.type not in ("method_declaration", "constructor_declaration"):
        up = up.parent
    if node.type == "identifier" and up is not None and name.text.decode() in local_names(up):
        return False
    root = node
    while root.parent is not None:
        root = root.parent
    return any(
        n.type == "field_declaration"
        and class_of((type_node.text or b"").decode()) in _BUILDERS
        and any((d.child_by_field_name("name") or d).text == name.text for d in n.children_by_field_name("declarator"))
        for n in walk_nodes(root)
        if (type_node := n.child_by_field_name("type")) is not None
    )


def _field_builder_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new StringBuilder ( ... )`` that a StringBuilder field holds (its declaration's initializer, or
    assigned to it): a ``TextBuilder``, appended in place."""
    up = c.node.parent
    if up is None or c.receiver not in _BUILDERS:
        return None
    if up.type == "variable_declarator":
        held = up.parent is not None and up.parent.type == "field_declaration"
        held = held and builder_field(up.child_by_field_name("name"))
    else:
        held = up.type == "assignment_expression" and builder_field(up.child_by_field_name("left"))
    if not held:
        return None
    text = _text_new(tr, c) or []
    return ["TextBuilder", "(", *([] if text == ['" "'] else text), ")"]


def _builder_no_op(tr: Emitting, c: Call) -> Tokens | None:
    """``trimToSize`` / ``ensureCapacity``: nothing to do on a str (as an expression: the str)."""
    return [] if c.statement else c.target(tr)


def _append_chain(tr: Emitting, node: Node) -> tuple[Tokens, Tokens] | None:
    """``sb . append ( x ) . append ( y )`` of a builder variable: ``sb`` and the text it ends with."""
    parts: list[Node] = []
    while node.type == "method_invocation" and tr.text(node.child_by_field_name("name")) == "append":
        args = call_arguments(node.child_by_field_name("arguments"))
        if len(args) != 1:
            return None
        parts.insert(0, args[0])
        receiver = node.child_by_field_name("object")
        if receiver is None:  # `append ( x )` of the program's own: no builder
            return None
        node = receiver
    if node.type not in ("identifier", "field_access") or class_of(tr.type_of(node)) not in _BUILDERS:
        return None
    root = tr.expr(node)
    value = list(root)
    for part in parts:
        value += ["+", *tr.as_str(part)]
    return root, value


def _builder_reverse(tr: Emitting, c: Call) -> Tokens | None:
    if c.args:
        return None
    if not c.statement:
        return [*operand(c.obj, c.target(tr)), "[", ":", ":", "-", "1", "]"]
    chain = _append_chain(tr, c.obj)  # `sb . append ( x ) . reverse ( )`: the appends, then the reversal
    if chain is None:
        return None
    root, value = chain
    text = value if len(value) == 1 else ["(", *value, ")"]
    return [*root, "=", *text, "[", ":", ":", "-", "1", "]"]


def _builder_find(tr: Emitting, c: Call) -> Tokens | None:
    if c.statement or not 1 <= len(c.args) <= 2:
        return None
    return [*c.target(tr), ".", "find" if c.name == "indexOf" else "rfind", "(", *c.joined(tr), ")"]


def _builder_is_empty(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["len", "(", *c.target(tr), ")", "==", "0"]


def _reversed(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else [*c.target(tr), *REVERSED]


def _reversed_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new StringBuilder ( s ) . reverse ( )``."""
    return None if c.args or c.obj.type != "object_creation_expression" else [*c.target(tr), *REVERSED]


def _builder_append(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), "+", *tr.as_str(c.args[0])] if len(c.args) == 1 else None


def _builder_target(tr: Emitting, node: Node) -> Tokens | None:
    """The builder a statement edits, as Python names it: ``sb``, ``self . sb`` / ``Cls . sb`` (a field),
    ``a . sb`` (``a . sb . append ( x ) ;``); None for a receiver that is no variable."""
    return tr.expr(node) if node.type in ("identifier", "field_access") else None


def _named(tr: Emitting, call: Node, name: str) -> bool:
    return tr.text(call.child_by_field_name("name")) == name


_LOOPS = ("while_statement", "do_statement", "for_statement")  # their headers run more than once


def _statement_part(node: Node) -> tuple[bool, bool]:
    """Where ``node`` stands in its statement: (is it in a lambda, is it evaluated once each time the
    statement runs: not in a ``&&`` / ``||``'s right operand, a ``? :``'s branch or a loop's header)."""
    cur, parent, once = node, node.parent, True
    while parent is not None and not parent.type.endswith(("statement", "declaration", "block", "program")):
        if parent.type == "lambda_expression":
            return True, False
        if parent.type == "ternary_expression" and parent.child_by_field_name("condition") != cur:
            once = False
        op = parent.child_by_field_name("operator") if parent.type == "binary_expression" else None
        if op is not None and op.type in ("&&", "||") and parent.child_by_field_name("right") == cur:
            once = False
        cur, parent = parent, parent.parent
    return False, once and parent is not None and parent.type not in _LOOPS


def _builder_append_in_place(tr: Emitting, c: Call) -> Tokens | None:
    """``sb . append ( x )`` inside an expression (``sb . append ( x ) . length ( )``), ``sb`` a builder
    variable or field: Java edits ``sb`` there too. A name is rebound in place, ``( sb := sb + x )``; a
    field's ``self . sb += x`` goes before the statement, which reads ``self . sb``. None in a lambda, and
    for a field's append that may not run."""
    root: Node | None = c.obj
    while root is not None and root.type == "method_invocation" and _named(tr, root, "append"):
        root = root.child_by_field_name("object")
    if root is None or len(c.args) != 1 or root.type not in ("identifier", "field_access"):
        return None
    if class_of(tr.type_of(root)) not in _BUILDERS:
        return None
    in_lambda, once = _statement_part(c.node)
    name = tr.expr(root)
    if in_lambda or (len(name) > 1 and not once):
        return None
    current = c.target(tr)  # the chain's earlier appends come first
    if len(name) == 1:
        return ["(", *name, ":=", *current, "+", *tr.as_str(c.args[0]), ")"]
    tr.state.pre.append([*name, "+=", *tr.as_str(c.args[0])])
    return name


_EDITS = ("append", "insert", "reverse", "deleteCharAt", "delete", "replace", "setCharAt", "setLength")
_EDITED_IN_EXPRESSIONS = ("insert", "deleteCharAt", "delete", "replace")  # no row edits them as expressions


# an edit that cuts the text at its first argument: (its arity, where the text after the cut starts: at the cut,
# at the "next" char or at the "second" argument, which argument goes in between)
_CUTS: dict[str, tuple[int, str, int | None]] = {
    "insert": (2, "at", 1),
    "setCharAt": (2, "next", 1),
    "deleteCharAt": (1, "next", None),
    "delete": (2, "second", None),
    "replace": (3, "second", 2),
}


def _edit_chain(tr: Emitting, node: Node) -> tuple[Node, list[Node]] | None:
    """``sb . insert ( 0 , x ) . reverse ( )``: the builder (a variable or a field) and its edits, first first."""
    edits: list[Node] = []
    cur: Node | None = node
    while cur is not None and cur.type == "method_invocation" and tr.text(cur.child_by_field_name("name")) in _EDITS:
        edits.insert(0, cur)
        cur = cur.child_by_field_name("object")
    if cur is None or cur.type not in ("identifier", "field_access") or class_of(tr.type_of(cur)) not in _BUILDERS:
        return None
    return cur, edits


def _edit(tr: Emitting, edit: Node, current: Tokens, sb: Tokens, a: list[Tokens]) -> Tokens | None:
    """The text after one edit (``a``: its arguments translated): ``current`` (the text before it, read first)
    edited as Java edits it; ``sb`` names the builder for the reads after that."""
    name, nodes = tr.text(edit.child_by_field_name("name")), call_arguments(edit.child_by_field_name("arguments"))
    if name == "append" and len(a) == 1:
        return [*current, "+", *tr.as_str(nodes[0])]
    if name == "reverse" and not a:
        return [*current, *REVERSED]
    if name == "setLength" and len(a) == 1:
        return [*current, "[", ":", *a[0], "]"]
    if _CUTS.get(name, (-1,))[0] != len(a):
        return None
    _, end, put = _CUTS[name]
    after = plus_one(a[0], "+") if end == "next" else a[end == "second"]
    middle = [*tr.as_str(nodes[put]), "+"] if put is not None else []
    return [*current, "[", ":", *a[0], "]", "+", *middle, *sb, "[", *after, ":", "]"]


def _builder_edits(tr: Emitting, c: Call) -> Tokens | None:
    """A builder's chained edits (``log . insert ( 0 , '[' ) . reverse ( )``), or one edit of a field (a
    ``TextBuilder``, which it stays, so its appends stay in place), in Java's order. As a statement: one
    statement per edit (``sb = sb [ : 0 ] + '[' + sb [ 0 : ]``, then ``sb = sb [ : : - 1 ]``); in an expression
    (``print ( c . reverse ( ) . insert ( 0 , "<" ) )``): a name rebound in place (``( c := ... )``), a field's
    edits before the statement. Appends alone, a name's one edit as a statement, and a name's reversal after
    appends in an expression (the text reversed, as the references write it) are the rows below; None in a
    lambda, and for a field's edit that may not run."""
    chain = _edit_chain(tr, c.node)
    if chain is None:
        return None
    root, edits = chain
    field, names = builder_field(root), [tr.text(e.child_by_field_name("name")) for e in edits]
    in_lambda, once = _statement_part(c.node)
    if all(n == "append" for n in names) or (c.statement and len(edits) == 1 and not field):
        return None
    if not c.statement and (in_lambda or (field and not once)):
        return None
    if not c.statement and not field and all(n in ("append", "reverse") for n in names[:-1]) and names[-1] == "reverse":
        return None
    sb = tr.expr(root)
    steps: list[Tokens] = []
    current = sb
    for edit, name in zip(edits, names, strict=True):
        if edit is c.node:
            args = [c.arg(tr, i) for i in range(len(c.args))]
        else:
            args = [tr.expr(a) for a in call_arguments(edit.child_by_field_name("arguments"))]
        value = _edit(tr, edit, current, sb, args)
        if value is None:
            return None
        if not (c.statement or field):
            current = ["(", *sb, ":=", *value, ")"]
        elif name == "append":
            steps.append([*sb, "+=", *value[len(sb) + 1 :]])
        else:
            steps.append([*sb, "=", *(["TextBuilder", "(", *value, ")"] if field else value)])
    if not (c.statement or field):
        return current
    tr.state.pre.extend(steps[:-1] if c.statement else steps)
    return steps[-1] if c.statement else sb


def _builder_reversed(tr: Emitting, c: Call) -> Tokens | None:
    target = None if c.args else _builder_target(tr, c.obj)
    if target is None:
        return None
    return [*target, "=", *target, *REVERSED]


def _builder_char_edit(tr: Emitting, c: Call) -> Tokens | None:
    """``sb . setCharAt ( i , x )`` / ``sb . deleteCharAt ( i )``: the str rebuilt around ``i``."""
    sb = _builder_target(tr, c.obj) if c.args else None
    if sb is None:
        return None
    at = c.arg(tr, 0)
    mid = [*tr.as_str(c.args[1]), "+"] if c.name == "setCharAt" and len(c.args) == 2 else []
    return [*sb, "=", *sb, "[", ":", *at, "]", "+", *mid, *sb, "[", *plus_one(at, "+"), ":", "]"]


def _builder_insert(tr: Emitting, c: Call) -> Tokens | None:
    target = _builder_target(tr, c.obj) if len(c.args) == 2 else None
    if target is None:
        return None
    at, value = c.arg(tr, 0), tr.as_str(c.args[1])
    return [*target, "=", *target, "[", ":", *at, "]", "+", *value, "+", *target, "[", *at, ":", "]"]


def _builder_append_statement(tr: Emitting, c: Call) -> Tokens | None:
    target = _builder_target(tr, c.obj) if c.args else None
    if target is None:
        return None
    return [*target, "+=", *tr.as_str(c.args[0])]


def _builder_append_chain(tr: Emitting, c: Call) -> Tokens | None:
    """``sb . append ( x ) . append ( y ) ;``: ``sb += x + y`` (one append is the statement rule's)."""
    if not c.statement:
        return None
    parts = [c.args[0]] if len(c.args) == 1 else []
    cur: Node | None = c.obj
    while cur is not None and cur.type == "method_invocation" and tr.text(cur.child_by_field_name("name")) == "append":
        inner = call_arguments(cur.child_by_field_name("arguments"))
        if len(inner) != 1:
            return None
        parts.insert(0, inner[0])
        cur = cur.child_by_field_name("object")
    if cur is None or len(parts) < 2 or class_of(tr.type_of(cur)) not in _BUILDERS:
        return None
    target = _builder_target(tr, cur)
    if target is None:
        return None
    value: Tokens = []
    for i, part in enumerate(parts):
        value += (["+"] if i else []) + tr.as_str(part)
    return [*target, "+=", *value]


def _builder_cut(tr: Emitting, c: Call) -> Tokens | None:
    """``deleteCharAt`` / ``setCharAt`` / ``delete`` / ``setLength`` as statements: the str rebuilt."""
    o = _builder_target(tr, c.obj) if c.statement else None
    if o is None:
        return None
    a = [c.arg(tr, i) for i in range(len(c.args))]
    if c.name == "deleteCharAt" and len(a) == 1:
        return [*o, "=", *o, "[", ":", *a[0], "]", "+", *o, "[", *a[0], "+", "1", ":", "]"]
    if c.name == "setCharAt" and len(a) == 2:
        return [*o, "=", *o, "[", ":", *a[0], "]", "+", *a[1], "+", *o, "[", *a[0], "+", "1", ":", "]"]
    if c.name == "delete" and len(a) == 2:
        return [*o, "=", *o, "[", ":", *a[0], "]", "+", *o, "[", *a[1], ":", "]"]
    if c.name == "setLength" and len(a) == 1:
        return [*o, "=", *o, "[", ":", *a[0], "]"]
    return None


def _tokenizer(tr: Emitting, c: Call) -> Tokens | None:
    """A ``StringTokenizer`` is the list of its tokens (``new StringTokenizer`` splits)."""
    if tr.receiver_kind(c.obj) != "tok":
        return None
    o = c.target(tr)
    if c.name in ("nextToken", "nextElement"):
        return [*o, ".", "pop", "(", ")"]
    if c.name in ("hasMoreTokens", "hasMoreElements"):
        return ["len", "(", *o, ")", ">", "0"]
    return ["len", "(", *o, ")"]  # countTokens


def _joiner(tr: Emitting, c: Call) -> Tokens | None:
    """A ``StringJoiner`` variable is the list of its parts, joined when read (``joined``)."""
    if c.obj.type != "identifier" or tr.text(c.obj) not in tr.state.joiners:
        return None
    o = tr.text(c.obj)
    if c.name == "add" and len(c.args) == 1:
        return [o, ".", "append", "(", *c.arg(tr, 0), ")"]
    if c.name == "toString" and not c.args:
        return joined(tr.state, o)
    if c.name == "length" and not c.args:
        return ["len", "(", *joined(tr.state, o), ")"]
    return None


def _joiner_new(tr: Emitting, c: Call) -> Tokens | None:
    """A ``StringJoiner`` variable: a list of the parts; ``toString`` / printing joins them (``joined``)."""
    decl = c.node.parent
    if not c.args or decl is None or decl.type != "variable_declarator":
        return None
    tr.state.joiners[tr.text(decl.child_by_field_name("name"))] = [c.arg(tr, i) for i in range(min(3, len(c.args)))]
    return ["[", "]"]


def _tokenizer_new(tr: Emitting, c: Call) -> Tokens | None:
    """A ``StringTokenizer`` is the list of its tokens, reversed (``nextToken`` pops from the end)."""
    if not c.args:
        return None
    src = c.arg(tr, 0)
    if len(c.args) >= 2 and c.args[1].type == "string_literal":
        delims = ["re", ".", "split", "(", '" [ "', "+", *c.arg(tr, 1), "+", '" ] + "', ",", *src, ")"]
        return [*delims, *REVERSED]
    return [*src, ".", "split", "(", ")", *REVERSED]


def _text_new(tr: Emitting, c: Call) -> Tokens | None:
    """A ``String`` / ``StringBuilder`` (a str): of a char array, of a text; an int argument is a capacity."""
    if c.args and tr.type_of(c.args[0]) == "char[]":
        return ['" "', ".", "join", "(", *c.arg(tr, 0), ")"]
    text = c.args and tr.type_of(c.args[0]) not in (*INT_TYPES, "char", "Character")
    if text and builder_field(c.args[0]):  # a copy of a field's TextBuilder: its text
        return ["str", "(", *c.arg(tr, 0), ")"]
    return c.arg(tr, 0) if text else ['" "']


_BUILDERS = ("StringBuilder", "StringBuffer")

CHAINED = ("append", "insert", "reverse", "deleteCharAt", "delete")  # a builder's edits that return the builder


RULES: tuple[Rule, ...] = (
    # -- StringBuilder / StringBuffer of both policies (as statements: the receiver translated by the emitter)
    instance("StringBuilder", "reverse", _reversed, where=EXPRESSION),
    instance("*", "reverse", _reversed_new, where=EXPRESSION),
    instance("*", "append", _builder_append, where=EXPRESSION),
    instance(_BUILDERS, "reverse", _builder_reversed, where=STATEMENT),
    instance(_BUILDERS, ("setCharAt", "deleteCharAt"), _builder_char_edit, where=STATEMENT),
    instance(_BUILDERS, "insert", _builder_insert, where=STATEMENT),
    instance(_BUILDERS, "append", _builder_append_statement, where=STATEMENT),
    # -- StringBuilder / StringBuffer in programs (instance methods the str that stands for it lacks)
    instance(_BUILDERS, _EDITS, _builder_edits, policy=PROGRAM, returns="StringBuilder"),
    instance(_BUILDERS, ("trimToSize", "ensureCapacity"), _builder_no_op, policy=PROGRAM),
    instance(_BUILDERS, "reverse", _builder_reverse, policy=PROGRAM),
    instance(_BUILDERS, ("indexOf", "lastIndexOf"), _builder_find, policy=PROGRAM, returns="int"),
    instance(_BUILDERS, "isEmpty", _builder_is_empty, policy=PROGRAM, returns="boolean"),
    instance(_BUILDERS, "append", _builder_append_chain, policy=PROGRAM),
    instance(("*", *_BUILDERS), "append", _builder_append_in_place, policy=PROGRAM, where=EXPRESSION),
    instance(_BUILDERS, ("deleteCharAt", "setCharAt", "delete", "setLength"), _builder_cut, policy=PROGRAM),
    # -- StringTokenizer and StringJoiner in programs: lists of their parts
    instance(
        "*", ("nextToken", "nextElement", "hasMoreTokens", "hasMoreElements", "countTokens"), _tokenizer, policy=PROGRAM
    ),
    instance("*", ("add", "toString", "length"), _joiner, policy=PROGRAM),
    # -- constructors (a StringJoiner's and a StringTokenizer's in programs)
    new("StringJoiner", _joiner_new, policy=PROGRAM),
    new("StringTokenizer", _tokenizer_new, policy=PROGRAM),
    new(_BUILDERS, _field_builder_new, policy=PROGRAM),
    new((*_BUILDERS, "String"), _text_new),
)
