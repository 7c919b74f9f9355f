"""The Java library's calls as data: one ordered list of rows, ``RULES``.

Each row (``Rule``) says how one ``receiver . member`` call becomes Python tokens: ``Math.round(x)``,
``Arrays.fill(a, v)``, ``list.add(x)``, ``new BigDecimal(s)``, ``IntStream.range(a, b)``, ``BigDecimal.ONE``:

- ``kind``: a static call (keyed by the receiver as written), an instance method (by the receiver's
  static type; ``"*"``: any receiver, ``"?"``: one of unknown type), a constructor (``new``), a stream
  pipeline's call (programs: sources by the receiver as written, steps and terminals under
  ``"Stream"``), a static field;
- ``policy``: None where both policies share the row, PROGRAM where it is the whole-program policy's
  own (asked first, with its arguments untranslated: ``Math.round`` rounds halves up as Java does in
  programs, ``round`` as the function references do);
- ``where``: an expression, a whole statement (``Arrays.fill`` rebinds the array), or either;
- ``returns``: the result's Java type, which ``type_of`` reads (``a . add ( b ) . setScale``).

An emit function returns None when the call does not fit it (another arity, a receiver it does not
know), and the next row is asked: the rows of the receiver's class before ``"*"``'s, each in the
order written. ``Call.a`` holds the arguments already translated where the shared rows are asked
(translating them again would register a ``x ++`` twice); the program's own rows get ``()`` and
translate what they use; ``Call.o`` the receiver, likewise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from plugins.c2c import carried
from plugins.c2c.carried import Unit
from plugins.c2c.java_types import (
    COLLECTION_TYPES,
    CONCRETE_MAP_TYPES,
    INT_TYPES,
    MAP_TYPES,
    OBJECT_CASTS,
    QUEUE_TYPES,
    SET_TYPES,
    SORTED_TYPES,
)
from plugins.c2c.state import PROGRAM, Policy
from plugins.c2c.syntax import Tokens, base_type, plus_one, walk_nodes

if TYPE_CHECKING:
    from tree_sitter import Node

    from plugins.c2c.state import TranslationState


@dataclass(frozen=True, slots=True)
class Call:
    """One call ``Receiver . member ( args )`` as an emitter sees it."""

    node: Node
    obj: Node
    name: str
    args: Sequence[Node]
    statement: bool = False  # the call is a whole statement (rows ``where=STATEMENT`` apply)
    a: Sequence[Tokens] = ()  # the arguments, translated once (the shared rows); () elsewhere
    flat: Tokens = field(default_factory=list)  # ``a`` joined with commas
    o: Tokens = field(default_factory=list)  # the receiver, translated once (shared instance rows); [] elsewhere
    receiver: str = ""  # the receiver's static type (``type_of``; "?" unknown); a constructor's class

    def with_args(self, a: Sequence[Tokens]) -> Call:
        """The call with its arguments translated (``a``, and ``flat``: joined with commas)."""
        return replace(self, a=a, flat=[t for i, toks in enumerate(a) for t in ([","] if i else []) + toks])

    def with_type(self, receiver: str) -> Call:
        """The call with its receiver's static type."""
        return replace(self, receiver=receiver)

    def with_receiver(self, o: Tokens) -> Call:
        """The call with its receiver translated."""
        return replace(self, o=o)


class Emitting(Protocol):
    """What an emit function may ask of the translator (not the whole ``Translator``): translate a node,
    read its text and static type (a local's declared one), translate arguments, the policy and the
    translation's state; and the translations the library shares with the statements (a value as Java's
    text, a comparator as ``sort``'s arguments, a ``printf`` format, a stream, a BigInteger, a comparator
    chain, what the program analysis makes of a receiver)."""

    @property
    def policy(self) -> Policy: ...

    @property
    def state(self) -> TranslationState: ...

    def expr(self, node: Node | None) -> Tokens: ...

    def text(self, node: Node | None) -> str: ...

    def type_of(self, node: Node | None) -> str: ...

    def lookup(self, name: str) -> str: ...

    def arg_tokens(self, args: Sequence[Node]) -> Tokens: ...

    def as_str(self, node: Node) -> Tokens: ...

    def sort_order(self, cmp: Node) -> Tokens: ...

    def format_expr(self, args: list[Node]) -> Tokens: ...

    def is_stream(self, node: Node | None) -> bool: ...

    def is_big(self, node: Node | None) -> bool: ...

    def comparator_chain(self, cmp: Node) -> tuple[Tokens, bool] | None: ...

    def receiver_kind(self, obj: Node) -> str: ...


Emit = Callable[[Emitting, Call], "Tokens | None"]

# what a row translates: a static call (``Math . round``), an instance method (by the receiver's static
# type), a constructor (``new BigDecimal ( s )``), a stream pipeline's call, a static field (``BigDecimal . ONE``)
STATIC, INSTANCE, NEW, STREAM, FIELD = "static", "instance", "new", "stream", "field"
# where the call stands: an expression, a whole statement, or either
EXPRESSION, STATEMENT, ANYWHERE = "expression", "statement", "anywhere"


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the library table: ``receiver . member`` (a call of ``kind``), translated by ``emit``.

    ``receiver`` names the class as written for static calls, fields and constructors (``Math``,
    ``BigDecimal``), the receiver's static type for instance methods (``"*"``: any receiver, ``"?"``: one
    whose type is unknown), ``"Stream"`` for a stream's steps and terminals (its sources by the receiver
    as written, ``"*"`` any). ``member`` ``"*"``: any member of the class (``Math``); ``"new"``: the
    constructor. ``policy``: None for both policies, else the one whose own translation it is (asked
    before the shared rows). ``emit`` returns None to decline: the next row is asked. A row may only type
    its result (``returns``, for ``type_of``; no ``emit``)."""

    receiver: tuple[str, ...]
    member: tuple[str, ...]
    kind: str
    emit: Emit | None = None
    policy: Policy | None = None
    where: str = ANYWHERE
    returns: str = ""
    constant: tuple[str, ...] = ()  # FIELD: the static field's tokens


def _names(names: str | Sequence[str]) -> tuple[str, ...]:
    return (names,) if isinstance(names, str) else tuple(names)


def static(
    receiver: str | Sequence[str],
    member: str | Sequence[str],
    emit: Emit,
    *,
    policy: Policy | None = None,
    where: str = ANYWHERE,
    returns: str = "",
) -> Rule:
    """A static call ``Receiver . member ( args )``, the receiver as written."""
    return Rule(_names(receiver), _names(member), STATIC, emit, policy, where, returns)


def instance(
    receiver: str | Sequence[str],
    member: str | Sequence[str],
    emit: Emit | None,
    *,
    policy: Policy | None = None,
    where: str = ANYWHERE,
    returns: str = "",
) -> Rule:
    """An instance method, by the receiver's static type (``"*"`` any receiver, ``"?"`` unknown)."""
    return Rule(_names(receiver), _names(member), INSTANCE, emit, policy, where, returns)


def new(receiver: str | Sequence[str], emit: Emit, *, policy: Policy | None = None) -> Rule:
    """A constructor, ``new Receiver ( args )`` (``call.obj`` is the type node)."""
    return Rule(_names(receiver), ("new",), NEW, emit, policy)


def stream(receiver: str | Sequence[str], member: str | Sequence[str], emit: Emit) -> Rule:
    """A stream pipeline's call in a program: a source by the receiver as written, or a step / terminal
    of a stream (``"Stream"``)."""
    return Rule(_names(receiver), _names(member), STREAM, emit, PROGRAM)


def constant(receiver: str, member: str, tokens: Sequence[str], returns: str = "") -> Rule:
    """A static field in a program (``BigDecimal . ONE``) as these tokens."""
    return Rule((receiver,), (member,), FIELD, None, PROGRAM, returns=returns, constant=tuple(tokens))


def _call(func: Sequence[str], args: Tokens) -> Tokens:
    return [*func, "(", *args, ")"]


def call_arguments(node: Node | None) -> list[Node]:
    """An argument list's arguments (comments left out)."""
    return [c for c in node.named_children if c.type not in ("line_comment", "block_comment")] if node else []


def _call_parts(tr: Emitting, node: Node) -> tuple[Node | None, str, list[Node]]:
    """A method invocation's receiver, name and arguments."""
    name = tr.text(node.child_by_field_name("name"))
    return node.child_by_field_name("object"), name, call_arguments(node.child_by_field_name("arguments"))


def undeclared_class(src: bytes, name: str) -> bool:
    """Is ``name`` a class the source uses without declaring it (a helper class of its file, java.util)?"""
    return f"class {name} ".encode() not in src


def _undeclared_class(tr: Emitting, name: str) -> bool:
    return undeclared_class(tr.state.src, name)


def scalar_local(tr: Emitting, name: str) -> bool:
    """Is ``name`` a local of a number, char, string or boolean type (not the stdin / stdout object it shadows)?"""
    typ = tr.lookup(name)
    return typ in INT_TYPES or typ in ("String", "char", "double", "boolean")


def joined(state: TranslationState, name: str) -> Tokens:
    """A StringJoiner's text: ``sep . join ( parts )`` (with its prefix and suffix)."""
    parts = state.joiners[name]
    out = [*parts[0], ".", "join", "(", name, ")"]
    if len(parts) == 3:
        out = ["(", *parts[1], "+", *out, "+", *parts[2], ")"]
    return out


# -- java.lang.Math ---------------------------------------------------------------------------------
_MATH_BUILTIN = ("max", "min", "abs", "pow")


def _math_any(tr: Emitting, c: Call) -> Tokens | None:
    return _call(["math", ".", c.name], c.flat)


def _math_builtin(tr: Emitting, c: Call) -> Tokens | None:
    return _call([c.name], c.flat)


def _math_cbrt(tr: Emitting, c: Call) -> Tokens | None:
    return ["(", *c.a[0], ")", "**", "(", "1", "/", "3", ")"] if c.a else None


def _math_floor_ceil(tr: Emitting, c: Call) -> Tokens | None:
    return _call(["math", ".", c.name], c.flat) if c.a else None


def _math_round(tr: Emitting, c: Call) -> Tokens | None:
    return _call(["round"], c.flat) if c.a else None


def _math_round_half_up(tr: Emitting, c: Call) -> Tokens | None:
    """Java rounds halves up; Python's ``round`` to even."""
    if len(c.args) != 1:
        return None
    return ["math", ".", "floor", "(", *tr.expr(c.args[0]), "+", "0.5", ")"]


def _math_random(tr: Emitting, c: Call) -> Tokens | None:
    return ["random", ".", "random", "(", ")"]


def _math_floor_div_mod(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 2:  # Python's // and % are floor-based, as floorDiv / floorMod
        return None
    return ["(", *c.a[0], "//" if c.name == "floorDiv" else "%", *c.a[1], ")"]


def _math_signum(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    return ["float", "(", "(", *c.a[0], ">", "0", ")", "-", "(", *c.a[0], "<", "0", ")", ")"]


def _math_angle(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    return ["math", ".", "radians" if c.name == "toRadians" else "degrees", "(", *c.a[0], ")"]


# -- boxed numbers, Character, String ---------------------------------------------------------------
_RADIX_STRINGS = {"toBinaryString": "bin", "toOctalString": "oct", "toHexString": "hex"}
_CHAR_METHODS = {
    "isDigit": "isdigit",
    "isLetter": "isalpha",
    "isAlphabetic": "isalpha",
    "isLetterOrDigit": "isalnum",
    "isUpperCase": "isupper",
    "isLowerCase": "islower",
    "isWhitespace": "isspace",
    "toUpperCase": "upper",
    "toLowerCase": "lower",
}


def _to_int(tr: Emitting, c: Call) -> Tokens | None:
    return _call(["int"], c.flat) if c.a else None


def _to_float(tr: Emitting, c: Call) -> Tokens | None:
    return _call(["float"], c.flat) if c.a else None


_RADIX_FORMATS = {"2": '"b"', "8": '"o"', "16": '"x"'}


def _to_str(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) == 2 and len(c.a[1]) == 1 and c.a[1][0] in _RADIX_FORMATS:  # `Integer.toString(n, 2)`
        return ["format", "(", *c.a[0], ",", _RADIX_FORMATS[c.a[1][0]], ")"]
    return _call(["str"], c.flat) if c.a else None


def _string_value_of(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) == 1 and tr.type_of(c.args[0]) == "char[]":
        return ['" "', ".", "join", "(", *c.a[0], ")"]
    return _to_str(tr, c) if c.name == "valueOf" else None


def _radix_string(tr: Emitting, c: Call) -> Tokens | None:
    return [_RADIX_STRINGS[c.name], "(", *c.a[0], ")", "[", "2", ":", "]"] if len(c.a) == 1 else None


def _bit_count(tr: Emitting, c: Call) -> Tokens | None:
    return ["bin", "(", *c.a[0], ")", ".", "count", "(", "'1'", ")"] if c.a else None


def _builtin_of_flat(tr: Emitting, c: Call) -> Tokens | None:
    return _call([c.name], c.flat) if c.a else None


def _compare(tr: Emitting, c: Call) -> Tokens | None:
    """The sign of ``a - b``, as Java's ``compare`` returns it."""
    if len(c.args) != 2:
        return None
    a, b = tr.expr(c.args[0]), tr.expr(c.args[1])
    return ["(", "(", *a, ">", *b, ")", "-", "(", *a, "<", *b, ")", ")"]


def _char_method(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.a[0], ".", _CHAR_METHODS[c.name], "(", ")"] if c.a else None


def _char_numeric(tr: Emitting, c: Call) -> Tokens | None:
    return ["int", "(", *c.a[0], ")"] if c.a else None


def _char_numeric_any(tr: Emitting, c: Call) -> Tokens | None:
    """A program's ``Character.getNumericValue``: letters too (``'a'`` and ``'A'`` are 10, ``'z'`` 35)."""
    return ["int", "(", *tr.expr(c.args[0]), ",", "36", ")"] if len(c.args) == 1 else None


def _string_join(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) < 2:
        return None
    if len(c.args) > 2 or tr.type_of(c.args[1]) in ("String", "char", "Character"):  # join(sep, a, b, ...)
        parts = [t for i, a in enumerate(c.args[1:]) for t in ([","] if i else []) + tr.expr(a)]
        return [*tr.expr(c.args[0]), ".", "join", "(", "[", *parts, "]", ")"]
    return [*tr.expr(c.args[0]), ".", "join", "(", *tr.expr(c.args[1]), ")"]


def _string_format(tr: Emitting, c: Call) -> Tokens | None:
    return tr.format_expr(list(c.args)) if c.args else None


def _system_exit(tr: Emitting, c: Call) -> Tokens | None:
    return ["sys", ".", "exit", "(", *tr.arg_tokens(c.args), ")"]


def _arraycopy(tr: Emitting, c: Call) -> Tokens | None:
    """``System.arraycopy(src, sp, dst, dp, n)``: a slice assignment (a copy first, as Java copies overlaps)."""
    if len(c.args) != 5:
        return None
    src, sp, dst, dp, n = (tr.expr(x) for x in c.args)
    return [*dst, "[", *dp, ":", *dp, "+", *n, "]", "=", *src, "[", *sp, ":", *sp, "+", *n, "]"]


def _big_value_of(tr: Emitting, c: Call) -> Tokens | None:
    return tr.expr(c.args[0]) if len(c.args) == 1 else None  # BigInteger is Python's int


def _list_of(tr: Emitting, c: Call) -> Tokens | None:
    """``List.of(a, b)`` / ``Set.of(...)`` / ``Map.of(k1, v1, ...)``: Python's literals."""
    if tr.text(c.obj) == "List":
        return ["[", *tr.arg_tokens(c.args), "]"]
    if tr.text(c.obj) == "Set":
        return ["{", *tr.arg_tokens(c.args), "}"] if c.args else ["set", "(", ")"]
    if len(c.args) % 2:
        return None
    out: Tokens = ["{"]
    for i in range(0, len(c.args), 2):
        out += [*([","] if i else []), *tr.expr(c.args[i]), ":", *tr.expr(c.args[i + 1])]
    return [*out, "}"]


def _objects_hash(tr: Emitting, c: Call) -> Tokens | None:
    return ["hash", "(", "(", *tr.arg_tokens(c.args), *([","] if len(c.args) == 1 else []), ")", ")"]


def _objects_equals(tr: Emitting, c: Call) -> Tokens | None:
    return ["(", *tr.expr(c.args[0]), "==", *tr.expr(c.args[1]), ")"] if len(c.args) == 2 else None


def _map_entry(tr: Emitting, c: Call) -> Tokens | None:
    return ["(", *tr.arg_tokens(c.args), ")"] if len(c.args) == 2 else None  # an entry is a (key, value) tuple


# -- java.util.Arrays / Collections -----------------------------------------------------------------
def _as_list(tr: Emitting, c: Call) -> Tokens | None:
    return ["[", *c.flat, "]"]


def _as_list_of_array(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.asList(array)``: the array's elements, not a list holding it."""
    if len(c.args) != 1 or not tr.type_of(c.args[0]).endswith("[]"):
        return None
    return ["list", "(", *tr.expr(c.args[0]), ")"]


def _copy_of_range(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.a[0], "[", *c.a[1], ":", *c.a[2], "]"] if len(c.a) == 3 else None


def _copy_of(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.a[0], "[", ":", *c.a[1], "]"] if len(c.a) == 2 else None


def _arrays_equals(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.a[0], "==", *c.a[1]] if len(c.a) == 2 else None


def _arrays_stream(tr: Emitting, c: Call) -> Tokens | None:
    return list(c.a[0]) if len(c.a) == 1 else None  # a stream is the list itself


def _arrays_to_string(tr: Emitting, c: Call) -> Tokens | None:
    return ["str", "(", *c.a[0], ")"] if c.a else None


def _text_array_to_string(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.toString`` of strings or chars: ``[a, b]`` as Java writes it (``str`` would quote them)."""
    if len(c.args) != 1 or tr.type_of(c.args[0]) not in ("String[]", "char[]", "Character[]"):
        return None
    joined = ['" , \u2581 "', ".", "join", "(", *tr.expr(c.args[0]), ")"]
    return ["(", '"["', "+", *joined, "+", '"]"', ")"]


def _binary_search(tr: Emitting, c: Call) -> Tokens | None:
    """Found: its index; else -(insertion point) - 1, as Java's."""
    if len(c.a) != 2:
        return None
    arr, x = c.a
    missing = ["-", "len", "(", "[", "v", "for", "v", "in", *arr, "if", "v", "<", *x, "]", ")", "-", "1"]
    return ["(", *arr, ".", "index", "(", *x, ")", "if", *x, "in", *arr, "else", *missing, ")"]


def _frequency(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.a[0], ".", "count", "(", *c.a[1], ")"] if len(c.a) == 2 else None


def _n_copies(tr: Emitting, c: Call) -> Tokens | None:
    return ["[", *c.a[1], "]", "*", *c.a[0]] if len(c.a) == 2 else None


def _collection_extreme(tr: Emitting, c: Call) -> Tokens | None:
    return [c.name, "(", *c.a[0], ")"] if c.a else None


def _swap(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 3:
        return None
    lst, i, j = (tr.expr(x) for x in c.args)
    return [*lst, "[", *i, "]", ",", *lst, "[", *j, "]", "=", *lst, "[", *j, "]", ",", *lst, "[", *i, "]"]


def _arrays_sort(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.sort(a)``, a range of it, or with a comparator."""
    if not c.args:
        return None
    target = tr.expr(c.args[0])
    if len(c.args) in (3, 4):
        lo, hi = tr.expr(c.args[1]), tr.expr(c.args[2])
        sl = [*target, "[", *lo, ":", *hi, "]"]
        rev = [",", "reverse", "=", "True"] if len(c.args) == 4 else []
        return [*sl, "=", "sorted", "(", *sl, *rev, ")"]
    if len(c.args) == 2:  # the comparator as sort's arguments (`reverse = True` for reverseOrder)
        order = tr.sort_order(c.args[1])
        if "cmp_to_key" in order or c.args[1].type == "object_creation_expression":
            order = ["reverse", "=", "True"]  # TransCoder's header imports no functools: the references' use
        return [*target, ".", "sort", "(", *order, ")"]
    return [*target, ".", "sort", "(", ")"]


def _sort_by_comparator(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.sort(a, cmp)`` / ``Collections.sort(list, cmp)``: the comparator as ``key`` / ``reverse``."""
    if not c.statement or len(c.args) != 2:
        return None
    return [*tr.expr(c.args[0]), ".", "sort", "(", *tr.sort_order(c.args[-1]), ")"]


def _fill(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.fill``: a range in place; the whole array rebound (the references' form)."""
    if len(c.args) == 4:
        target, lo, hi = tr.expr(c.args[0]), tr.expr(c.args[1]), tr.expr(c.args[2])
        span = ["(", *hi, "-", *lo, ")"] if len(lo) > 1 or lo != ["0"] else hi
        return [*target, "[", *lo, ":", *hi, "]", "=", "[", *tr.expr(c.args[3]), "]", "*", *span]
    if len(c.args) == 2:
        target = tr.expr(c.args[0])
        return [*target, "=", "[", *tr.expr(c.args[1]), "]", "*", "len", "(", *target, ")"]
    return None


def _fill_in_place(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.fill(a, v)`` in place: the array may be a loop variable or an alias."""
    if len(c.args) != 2 or not c.statement:
        return None
    target = tr.expr(c.args[0])
    return [*target, "[", ":", "]", "=", "[", *tr.expr(c.args[1]), "]", "*", "len", "(", *target, ")"]


def _set_all(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.setAll(a, i -> f(i))``: every element from its index, in place."""
    if len(c.args) != 2 or not c.statement:
        return None
    target = tr.expr(c.args[0])
    indices = ["range", "(", "len", "(", *target, ")", ")"]
    return [*target, "[", ":", "]", "=", "list", "(", "map", "(", *tr.expr(c.args[1]), ",", *indices, ")", ")"]


def _collections_sort(tr: Emitting, c: Call) -> Tokens | None:
    return [*tr.expr(c.args[0]), ".", "sort", "(", ")"] if c.args else None


def _shuffle(tr: Emitting, c: Call) -> Tokens | None:
    """``Collections.shuffle(l)``: ``random . shuffle`` (the module, or a program's ``Random random`` alike)."""
    return ["random", ".", "shuffle", "(", *tr.expr(c.args[0]), ")"] if len(c.args) == 1 else None


def _collections_reverse(tr: Emitting, c: Call) -> Tokens | None:
    return [*tr.expr(c.args[0]), ".", "reverse", "(", ")"] if c.args else None


# -- StringBuilder: a Python str stands for it (edits rebind it) ------------------------------------
def _builder_no_op(tr: Emitting, c: Call) -> Tokens | None:
    """``trimToSize`` / ``ensureCapacity``: nothing to do on a str (as an expression: the str)."""
    return [] if c.statement else tr.expr(c.obj)


def _append_chain(tr: Emitting, node: Node) -> tuple[Tokens, Tokens] | None:
    """``sb . append ( x ) . append ( y )`` of a builder variable: ``sb`` and the text it ends with."""
    parts: list[Node] = []
    while node.type == "method_invocation" and tr.text(node.child_by_field_name("name")) == "append":
        args = call_arguments(node.child_by_field_name("arguments"))
        if len(args) != 1:
            return None
        parts.insert(0, args[0])
        node = node.child_by_field_name("object")
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
        return [*_operand(tr, c.obj), "[", ":", ":", "-", "1", "]"]
    chain = _append_chain(tr, c.obj)  # `sb . append ( x ) . reverse ( )`: the appends, then the reversal
    if chain is None:
        return None
    root, value = chain
    text = value if len(value) == 1 else ["(", *value, ")"]
    return [*root, "=", *text, "[", ":", ":", "-", "1", "]"]


def _builder_find(tr: Emitting, c: Call) -> Tokens | None:
    if c.statement or not 1 <= len(c.args) <= 2:
        return None
    return [*tr.expr(c.obj), ".", "find" if c.name == "indexOf" else "rfind", "(", *tr.arg_tokens(c.args), ")"]


def _builder_is_empty(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["len", "(", *tr.expr(c.obj), ")", "==", "0"]


# -- java.math.BigDecimal: Python's decimal.Decimal (exact sums and products, Java's scales) ---------
_DECIMAL = ["decimal", ".", "Decimal"]
_DECIMAL_OPS = {"add": "+", "subtract": "-", "multiply": "*", "remainder": "%"}
_ROUNDING = ("HALF_UP", "HALF_DOWN", "HALF_EVEN", "UP", "DOWN", "FLOOR", "CEILING")


def _operand(tr: Emitting, node: Node) -> Tokens:
    out = tr.expr(node)
    return out if len(out) == 1 or node.type in ("method_invocation", "parenthesized_expression") else ["(", *out, ")"]


def _tree_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new TreeMap < > ( )`` / ``new TreeSet < > ( items )``: the runtime's ``TreeMap`` / ``TreeSet`` (a dict / set
    that keeps its keys in order for navigation); one made with a comparator stays a plain dict / set."""
    made = c.receiver
    if len(c.args) == 1 and base_type(tr.type_of(c.args[0])) in (
        MAP_TYPES if made == "TreeMap" else COLLECTION_TYPES | SET_TYPES
    ):
        return [made, "(", *tr.expr(c.args[0]), ")"]
    return None if c.args else [made, "(", ")"]


def _decimal_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new BigDecimal ( s | n | x )``: a double's exact binary value, as Java's constructor takes it."""
    return [*_DECIMAL, "(", *tr.expr(c.args[0]), ")"] if len(c.args) == 1 else None


def _decimal_value_of(tr: Emitting, c: Call) -> Tokens | None:
    """``BigDecimal.valueOf(x)``: a double by its shortest decimal text (Double.toString), as Java does."""
    if len(c.args) == 1:
        return [*_DECIMAL, "(", "str", "(", *tr.expr(c.args[0]), ")", ")"]
    if len(c.args) == 2:  # (unscaled, scale)
        return [*_DECIMAL, "(", *tr.expr(c.args[0]), ")", ".", "scaleb", "(", "-", *_operand(tr, c.args[1]), ")"]
    return None


def _rounding(tr: Emitting, node: Node) -> Tokens:
    mode = tr.text(node).replace(" ", "").rsplit(".", 1)[-1].removeprefix("ROUND_")
    return ["decimal", ".", "ROUND_" + mode] if mode in _ROUNDING else tr.expr(node)


def _quantum(tr: Emitting, scale: Node) -> Tokens:
    return [*_DECIMAL, "(", "1", ")", ".", "scaleb", "(", "-", *_operand(tr, scale), ")"]


def _decimal_set_scale(tr: Emitting, c: Call) -> Tokens | None:
    if not 1 <= len(c.args) <= 2:
        return None
    mode = [",", "rounding", "=", *_rounding(tr, c.args[1])] if len(c.args) == 2 else []
    return [*_operand(tr, c.obj), ".", "quantize", "(", *_quantum(tr, c.args[0]), *mode, ")"]


def _decimal_divide(tr: Emitting, c: Call) -> Tokens | None:
    if not c.args:
        return None
    ratio = ["(", *_operand(tr, c.obj), "/", *_operand(tr, c.args[0]), ")"]
    if len(c.args) == 1:
        return ratio
    if len(c.args) == 3:  # (divisor, scale, rounding)
        mode = _rounding(tr, c.args[2])
        return [*ratio, ".", "quantize", "(", *_quantum(tr, c.args[1]), ",", "rounding", "=", *mode, ")"]
    if len(c.args) == 2 and "ROUND" in tr.text(c.args[1]).upper():  # (divisor, rounding): the receiver's scale
        exponent = [*_operand(tr, c.obj), ".", "as_tuple", "(", ")", ".", "exponent"]
        scale = [*_DECIMAL, "(", "1", ")", ".", "scaleb", "(", *exponent, ")"]
        return [*ratio, ".", "quantize", "(", *scale, ",", "rounding", "=", *_rounding(tr, c.args[1]), ")"]
    return ratio


def _decimal_binary(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return ["(", *_operand(tr, c.obj), _DECIMAL_OPS[c.name], *_operand(tr, c.args[0]), ")"]


def _decimal_call(func: Sequence[str]) -> Emit:
    def emit(tr: Emitting, c: Call) -> Tokens | None:
        return None if c.args else [*func, "(", *tr.expr(c.obj), ")"]

    return emit


def _decimal_pair(tr: Emitting, c: Call) -> Tokens | None:
    return [c.name, "(", *tr.expr(c.obj), ",", *tr.expr(c.args[0]), ")"] if len(c.args) == 1 else None


def _decimal_pow(tr: Emitting, c: Call) -> Tokens | None:
    return ["(", *_operand(tr, c.obj), "**", *_operand(tr, c.args[0]), ")"] if len(c.args) == 1 else None


def _decimal_negate(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["(", "-", *_operand(tr, c.obj), ")"]


def _decimal_compare(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    a, b = _operand(tr, c.obj), _operand(tr, c.args[0])
    return ["(", "(", *a, ">", *b, ")", "-", "(", *a, "<", *b, ")", ")"]


def _decimal_signum(tr: Emitting, c: Call) -> Tokens | None:
    if c.args:
        return None
    a = _operand(tr, c.obj)
    return ["(", "(", *a, ">", "0", ")", "-", "(", *a, "<", "0", ")", ")"]


def _decimal_scale(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["(", "-", *_operand(tr, c.obj), ".", "as_tuple", "(", ")", ".", "exponent", ")"]


def _decimal_method(method: str) -> Emit:
    def emit(tr: Emitting, c: Call) -> Tokens | None:
        return None if c.args else [*_operand(tr, c.obj), ".", method, "(", ")"]

    return emit


def _decimal_plain(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["format", "(", *tr.expr(c.obj), ",", '"f"', ")"]


# -- String's regex methods: Python's re -----------------------------------------------------------
def _regex_replacement(tr: Emitting, node: Node) -> Tokens:
    """Java's replacement text names a group ``$1``, Python's ``\\1`` (written ``"\\\\1"`` in a literal)."""
    out = tr.expr(node)
    if node.type != "string_literal":
        return out
    return [re.sub(r"\$(\d)", r"\\\\\1", tok) for tok in out]


def _string_matches(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return ["re", ".", "fullmatch", "(", *tr.expr(c.args[0]), ",", *tr.expr(c.obj), ")", "is", "not", "None"]


def _string_replace_regex(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    regex, repl = tr.expr(c.args[0]), _regex_replacement(tr, c.args[1])
    once = [",", "count", "=", "1"] if c.name == "replaceFirst" else []
    return ["re", ".", "sub", "(", *regex, ",", *repl, ",", *tr.expr(c.obj), *once, ")"]


def _string_compare(tr: Emitting, c: Call) -> Tokens | None:
    """``a . compareTo ( b )`` of Strings: Java's difference (chars, then lengths), not only its sign."""
    if len(c.args) != 1:
        return None
    a, b = tr.expr(c.obj), tr.expr(c.args[0])
    if c.name == "compareToIgnoreCase":
        a, b = ["(", *a, ")", ".", "lower", "(", ")"], ["(", *b, ")", ".", "lower", "(", ")"]
    return ["java_compare", "(", *a, ",", *b, ")"]


def _string_hash(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["string_hash", "(", *tr.expr(c.obj), ")"]


def _string_repeat(tr: Emitting, c: Call) -> Tokens | None:
    return [*_operand(tr, c.obj), "*", *_operand(tr, c.args[0])] if len(c.args) == 1 else None


# -- java.util.function: a functional object is a Python callable ----------------------------------
_FUNCTIONAL = {
    "Function": "apply", "BiFunction": "apply", "UnaryOperator": "apply", "BinaryOperator": "apply",
    "IntFunction": "apply", "LongFunction": "apply", "IntUnaryOperator": "applyAsInt",
    "IntBinaryOperator": "applyAsInt", "LongUnaryOperator": "applyAsLong", "LongBinaryOperator": "applyAsLong",
    "ToIntFunction": "applyAsInt", "ToLongFunction": "applyAsLong", "ToIntBiFunction": "applyAsInt",
    "DoubleUnaryOperator": "applyAsDouble", "DoubleBinaryOperator": "applyAsDouble",
    "Predicate": "test", "BiPredicate": "test", "IntPredicate": "test", "LongPredicate": "test",
    "Supplier": "get", "IntSupplier": "getAsInt", "LongSupplier": "getAsLong",
    "Consumer": "accept", "BiConsumer": "accept", "IntConsumer": "accept",
}  # fmt: skip
_FUNCTIONAL_RESULTS = {"test": "boolean", "applyAsInt": "int", "getAsInt": "int", "applyAsLong": "long",
                       "getAsLong": "long", "applyAsDouble": "double"}  # fmt: skip


def _functional_call(tr: Emitting, c: Call) -> Tokens | None:
    """``op . apply ( a , b )`` of a ``BinaryOperator`` (a lambda or method reference in Python): ``op ( a , b )``."""
    return [*_operand(tr, c.obj), "(", *tr.arg_tokens(c.args), ")"]


# -- Integer / Long bit twiddling ------------------------------------------------------------------
def _bits(tr: Emitting, c: Call) -> Tokens | None:
    """``numberOfTrailingZeros`` and kin on a 32-bit (Integer) or 64-bit (Long) pattern."""
    if len(c.args) != 1:
        return None
    width = "64" if tr.text(c.obj) == "Long" else "32"
    mask = "0xFFFFFFFFFFFFFFFF" if width == "64" else "0xFFFFFFFF"
    x = _operand(tr, c.args[0])
    bits = ["(", *x, "&", mask, ")"]
    if c.name == "numberOfTrailingZeros":  # the lowest one bit's index; the width for 0
        low = ["(", *bits, "&", "-", *bits, ")"]
        return ["(", *low, ".", "bit_length", "(", ")", "-", "1", "if", *x, "else", width, ")"]
    if c.name == "numberOfLeadingZeros":
        return ["(", width, "-", *bits, ".", "bit_length", "(", ")", ")"]
    if c.name == "highestOneBit":
        return ["(", "1", "<<", *bits, ".", "bit_length", "(", ")", ">>", "1", ")"]
    if c.name == "lowestOneBit":
        return ["(", *x, "&", "-", *x, ")"]
    return None


def _decimal_constant(value: str) -> tuple[str, ...]:
    return ("decimal", ".", "Decimal", "(", value, ")")


# -- instance methods of both policies (the receiver's static type; "*" any receiver) ---------------
_STRING_METHODS = {
    "toUpperCase": "upper",
    "toLowerCase": "lower",
    "trim": "strip",
    "indexOf": "find",
    "lastIndexOf": "rfind",
    "startsWith": "startswith",
    "endsWith": "endswith",
    "split": "split",
    "replace": "replace",
}
# java.util.Random on a `random . Random ( )`: method -> (name without arguments, name with arguments)
_RANDOM = {
    "nextInt": (["randrange"], ["randrange"]),
    "nextLong": (["randrange"], ["randrange"]),
    "nextDouble": (["random"], ["uniform"]),
    "nextFloat": (["random"], ["uniform"]),
    "nextBoolean": (["random"], ["random"]),
}
_RANDOM_RANGE = {
    "nextInt": ["-", "2", "**", "31", ",", "2", "**", "31"],
    "nextLong": ["-", "2", "**", "63", ",", "2", "**", "63"],
    "nextDouble": [],
    "nextFloat": [],
    "nextBoolean": [],
}
_REVERSED = ["[", ":", ":", "-", "1", "]"]


def _base(c: Call) -> str:
    return base_type(c.receiver)


def _random_boolean(tr: Emitting, c: Call) -> Tokens | None:
    if c.a or not _undeclared_class(tr, _base(c)):
        return None
    return ["(", *c.o, ".", "random", "(", ")", "<", "0.5", ")"]  # random() alone is a float, always true


def _random_draw(tr: Emitting, c: Call) -> Tokens | None:
    if not _undeclared_class(tr, _base(c)):
        return None
    return [*c.o, ".", *_RANDOM[c.name][len(c.a) > 0], "(", *c.flat, *(_RANDOM_RANGE[c.name] if not c.a else []), ")"]


def _list_index_of(tr: Emitting, c: Call) -> Tokens | None:
    """Java's -1 where ``list.index`` raises."""
    if len(c.a) != 1:
        return None
    return ["(", *c.o, ".", "index", "(", *c.a[0], ")", "if", *c.a[0], "in", *c.o, "else", "-", "1", ")"]


def _list_last_index_of(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    last = ["len", "(", *c.o, ")", "-", "1", "-", *c.o, *_REVERSED, ".", "index", "(", *c.a[0], ")"]
    return ["(", *last, "if", *c.a[0], "in", *c.o, "else", "-", "1", ")"]


def _stream_reduction(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays . stream ( a ) . sum ( )``: the stream is the list itself."""
    if c.a or not _is_arrays_stream(c.obj):
        return None
    return ["len" if c.name == "count" else c.name, "(", *c.o, ")"]


def _receiver(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else list(c.o)


def _clone(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else [*c.o, ".", "copy", "(", ")"]


def _iterator(tr: Emitting, c: Call) -> Tokens | None:
    """``it . next ( )`` is ``next ( it )``; ``while ( it . hasNext ( ) )`` a for loop."""
    return ["iter", "(", *c.o, ")"] if not c.a and tr.policy.python_iterators else None


def _iterator_next(tr: Emitting, c: Call) -> Tokens | None:
    return ["next", "(", *c.o, ")"] if not c.a and tr.policy.python_iterators else None


def _length(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else ["len", "(", *c.o, ")"]


def _char_at(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, "[", *c.a[0], "]"] if len(c.a) == 1 else None


def _equals_ignore_case(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    return [*c.o, ".", "lower", "(", ")", "==", *c.a[0], ".", "lower", "(", ")"]


def _concat(tr: Emitting, c: Call) -> Tokens | None:
    return ["(", *c.o, "+", *c.a[0], ")"] if len(c.a) == 1 else None


def _equals(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, "==", *c.a[0]] if len(c.a) == 1 else None


def _compare_to(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    return ["(", *c.o, ">", *c.a[0], ")", "-", "(", *c.o, "<", *c.a[0], ")"]


def _listed(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else ["list", "(", *c.o, ")"]


def _is_empty(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else ["len", "(", *c.o, ")", "==", "0"]


def _to_string(tr: Emitting, c: Call) -> Tokens | None:
    if c.a:
        return None
    return list(c.o) if _base(c) in ("StringBuilder", "String") else ["str", "(", *c.o, ")"]


def _reversed(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else [*c.o, *_REVERSED]


def _reversed_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new StringBuilder ( s ) . reverse ( )``."""
    return None if c.a or c.obj.type != "object_creation_expression" else [*c.o, *_REVERSED]


def _substring(tr: Emitting, c: Call) -> Tokens | None:
    if not 1 <= len(c.a) <= 2:
        return None
    return [*c.o, "[", *c.a[0], ":", *(c.a[1] if len(c.a) == 2 else []), "]"]


def _contains(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.a[0], "in", *c.o] if len(c.a) == 1 else None


def _contains_value(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.a[0], "in", *c.o, ".", "values", "(", ")"] if len(c.a) == 1 else None


def _map_get_default(tr: Emitting, c: Call) -> Tokens | None:
    """A map whose anonymous class's ``get`` gives a value for a missing key (``syntax.map_get_default``)."""
    if len(c.a) != 1 or c.obj.type != "identifier" or tr.text(c.obj) not in tr.state.map_defaults:
        return None
    return [*c.o, ".", "get", "(", *c.a[0], ",", *tr.state.map_defaults[tr.text(c.obj)], ")"]


def _map_get_nullable(tr: Emitting, c: Call) -> Tokens | None:
    """Java's get gives null for a missing key, where that null can be observed."""
    return [*c.o, ".", "get", "(", *c.a[0], ")"] if len(c.a) == 1 and _null_can_flow(c.node) else None


def _subscript(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, "[", *c.a[0], "]"] if len(c.a) == 1 else None


def _get_or_default(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, ".", "get", "(", *c.flat, ")"] if len(c.a) == 2 else None


def _append(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, ".", "append", "(", *c.a[0], ")"] if len(c.a) == 1 else None


def _sorted_end(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else ["min" if c.name.startswith("first") else "max", "(", *c.o, ")"]


def _deque(tr: Emitting, c: Call) -> bool:
    """Is the receiver a variable the program holds as a ``collections.deque`` (``program._deques``)?"""
    prog = tr.state.prog
    return c.obj is not None and c.obj.type == "identifier" and c.obj.text.decode() in prog.deques


def _add_first(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    return (
        [*c.o, ".", "appendleft", "(", *c.a[0], ")"]
        if _deque(tr, c)
        else [*c.o, ".", "insert", "(", "0", ",", *c.a[0], ")"]
    )


def _insert_at(tr: Emitting, c: Call) -> Tokens | None:
    """``list . add ( index , x )``."""
    return [*c.o, ".", "insert", "(", *c.flat, ")"] if len(c.a) == 2 else None


def _pop_last(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else [*c.o, ".", "pop", "(", ")"]


def _pop_first(tr: Emitting, c: Call) -> Tokens | None:
    if c.a:
        return None
    return [*c.o, ".", "popleft", "(", ")"] if _deque(tr, c) else [*c.o, ".", "pop", "(", "0", ")"]


def _head(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else [*c.o, "[", "0", "]"]


# a `Deque`'s head is its first element: `push`, `pop` and `peek` work there, as `poll` does
_HEAD_FIRST = ("ArrayDeque", "Deque", "LinkedList", "ConcurrentLinkedDeque", "LinkedBlockingDeque", "BlockingDeque")
# what a Deque answers the same whichever end its head is at: used only through these, it is a stack at the list's end
_END_BLIND = frozenset(("push", "pop", "peek", "isEmpty", "size", "clear", "contains", "empty"))


def _stacks_only(node: Node) -> bool:
    """Is every Deque of the source ``node`` is in used only as a stack: through ``_END_BLIND`` calls, declared,
    assigned, or handed to the source's own methods (whose Deque parameters are held to the same)? Then each
    Deque's head can be the list's end (``append`` / ``pop ( )``, O(1), as the references write a stack); one
    Deque whose order shows (iterated, printed, polled, given to the library) puts every head first, so a
    Deque handed from one method to another keeps one end."""
    root = node
    while root.parent is not None:
        root = root.parent
    deques: set[bytes] = set()
    methods: set[bytes] = set()
    for n in walk_nodes(root):
        if n.type in ("local_variable_declaration", "field_declaration", "formal_parameter"):
            typ = n.child_by_field_name("type")
            if typ is not None and re.sub(rb"\s*<.*", b"", typ.text or b"").decode() in _HEAD_FIRST:
                names = (
                    [n.child_by_field_name("name")]
                    if n.type == "formal_parameter"
                    else [d.child_by_field_name("name") for d in n.children_by_field_name("declarator")]
                )
                deques |= {x.text or b"" for x in names if x is not None}
        elif n.type == "method_declaration":
            methods.add(n.child_by_field_name("name").text or b"")
    for n in walk_nodes(root):
        if n.type != "identifier" or n.text not in deques or n.parent is None:
            continue
        parent = n.parent
        if parent.type == "method_invocation" and parent.child_by_field_name("object") == n:
            ok = (parent.child_by_field_name("name").text or b"").decode() in _END_BLIND
        elif parent.type == "argument_list" and parent.parent is not None:
            ok = parent.parent.type == "method_invocation" and parent.parent.child_by_field_name("name").text in methods
        else:
            field = {"variable_declarator": "name", "assignment_expression": "left", "formal_parameter": "name"}
            ok = parent.type in field and parent.child_by_field_name(field[parent.type]) == n
        if not ok:
            return False
    return True


# a queue's calls that give null when it is empty, where Python's pop / index raise
_NULL_WHEN_EMPTY = frozenset(("poll", "pollFirst", "pollLast", "peek", "peekFirst", "peekLast"))


def _null_when_empty(emit: Emit) -> Emit:
    """``q . poll ( )`` as ``emit`` writes it, or None when ``q`` is empty, in a program whose method tests a
    value for null (``while ( ( x = q . poll ( ) ) != null )``); elsewhere an empty queue's poll is a bug of
    the Java's own, and the plain call is what the references write."""

    def nullable(tr: Emitting, c: Call) -> Tokens | None:
        out = emit(tr, c)
        if out is None or c.name not in _NULL_WHEN_EMPTY or not tr.policy.java_nulls or not c.o:
            return out
        scope = c.node.parent
        while scope is not None and scope.type not in ("method_declaration", "constructor_declaration", "class_body"):
            scope = scope.parent
        if scope is None or not re.search(rb"\bnull\b", scope.text or b""):
            return out
        return ["(", *out, "if", *c.o, "else", "None", ")"]

    return nullable


def _deque_head(emit: Emit) -> Emit:
    """``push`` / ``pop`` / ``peek`` of a Deque at its head (``emit``), unless it is only ever a stack."""

    def head(tr: Emitting, c: Call) -> Tokens | None:
        if tr.state.stacks_only is None:
            tr.state.stacks_only = _stacks_only(c.node)
        return None if tr.state.stacks_only else emit(tr, c)

    return head


def _last(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else [*c.o, "[", "-", "1", "]"]


def _list_remove_object(tr: Emitting, c: Call) -> Tokens | None:
    """``List.remove(Object)``, not ``remove(int index)``."""
    if len(c.a) != 1 or not _removes_object(c.args[0], tr.type_of(c.args[0])):
        return None
    return [*c.o, ".", "remove", "(", *c.a[0], ")"]


def _map_remove(tr: Emitting, c: Call) -> Tokens | None:
    """Java's null for a missing key (programs)."""
    if len(c.a) != 1 or not tr.policy.java_nulls:
        return None
    return [*c.o, ".", "pop", "(", *c.a[0], ",", "None", ")"]


def _remove(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    method = "pop" if _base(c) in MAP_TYPES | COLLECTION_TYPES else "remove"
    return [*c.o, ".", method, "(", *c.a[0], ")"]


def _python_method(name: str) -> Emit:
    def emit(tr: Emitting, c: Call) -> Tokens | None:
        return None if c.a else [*c.o, ".", name, "(", ")"]

    return emit


def _entry_part(index: str) -> Emit:
    def emit(tr: Emitting, c: Call) -> Tokens | None:
        return None if c.a else [*c.o, "[", index, "]"]

    return emit


def _builder_append(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, "+", *tr.as_str(c.args[0])] if len(c.a) == 1 else None


def _string_method(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, ".", _STRING_METHODS[c.name], "(", *c.flat, ")"]


def _put(tr: Emitting, c: Call) -> Tokens | None:
    """``m . put ( k , v )`` / ``list . set ( i , v )`` as a statement: an item assignment."""
    if len(c.args) != 2:
        return None
    return [*tr.expr(c.obj), "[", *tr.expr(c.args[0]), "]", "=", *tr.expr(c.args[1])]


def _builder_reversed(tr: Emitting, c: Call) -> Tokens | None:
    if c.args or c.obj.type != "identifier":
        return None
    return [tr.text(c.obj), "=", tr.text(c.obj), *_REVERSED]


def _builder_char_edit(tr: Emitting, c: Call) -> Tokens | None:
    """``sb . setCharAt ( i , x )`` / ``sb . deleteCharAt ( i )``: the str rebuilt around ``i``."""
    if c.obj.type != "identifier" or not c.args:
        return None
    sb, at = tr.text(c.obj), tr.expr(c.args[0])
    mid = [*tr.as_str(c.args[1]), "+"] if c.name == "setCharAt" and len(c.args) == 2 else []
    return [sb, "=", sb, "[", ":", *at, "]", "+", *mid, sb, "[", *plus_one(at, "+"), ":", "]"]


def _builder_insert(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2 or c.obj.type != "identifier":
        return None
    target = [tr.text(c.obj)]
    at, value = tr.expr(c.args[0]), tr.as_str(c.args[1])
    return [*target, "=", *target, "[", ":", *at, "]", "+", *value, "+", *target, "[", *at, ":", "]"]


def _builder_append_statement(tr: Emitting, c: Call) -> Tokens | None:
    if c.obj.type != "identifier" or not c.args:
        return None
    return [tr.text(c.obj), "+=", *tr.as_str(c.args[0])]


def _is_arrays_stream(node: Node | None) -> bool:
    """Is ``node`` a call ``Arrays . stream ( a )`` (translated to the list itself)?"""
    if node is None or node.type != "method_invocation":
        return False
    obj, name = node.child_by_field_name("object"), node.child_by_field_name("name")
    return obj is not None and name is not None and obj.text == b"Arrays" and name.text == b"stream"


def _null_can_flow(node: Node) -> bool:
    """Can a ``null`` from this call be observed (compared, stored, returned) rather than unboxed at once?

    Where the value is unboxed (arithmetic, a comparison other than with ``null``) a missing
    key fails in Java too, so ``m [ k ]`` is exact there; elsewhere it must be ``m . get ( k )``.
    """
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    if parent is None:
        return True
    if parent.type == "binary_expression":
        op = parent.child_by_field_name("operator")
        if op is not None and op.type in ("==", "!="):
            # with null, or another lookup (`m . get ( a ) == m . get ( b )`: both may be missing)
            return any(c.type == "null_literal" or (c != node and _is_get(c)) for c in parent.named_children)
        return False
    if parent.type in ("array_access", "unary_expression", "update_expression", "method_invocation"):
        return parent.type == "method_invocation" and parent.child_by_field_name("object") != node
    return True


def _is_get(node: Node) -> bool:
    """Is ``node`` a one-argument ``x . get ( k )`` call?"""
    name = node.child_by_field_name("name") if node.type == "method_invocation" else None
    args = node.child_by_field_name("arguments")
    return name is not None and name.text == b"get" and args is not None and len(args.named_children) == 1


def _removes_object(arg: Node, arg_type: str) -> bool:
    """Does ``list . remove ( arg )`` remove an element (not the one at an index)?"""
    if arg.type == "cast_expression":
        typ = arg.child_by_field_name("type")
        return typ is not None and typ.text is not None and typ.text.decode() in OBJECT_CASTS
    if arg.type == "method_invocation":
        name = arg.child_by_field_name("name")
        return name is not None and name.text == b"valueOf"
    return arg_type in ("char", "String", "Character", "Integer")


# -- library classes whose objects keep state: small Python classes under the Java names ------------
# real Python files (``runtime/``), read as text: a program that names one and does not declare it carries it
_SUPPORT_UNITS: dict[str, Unit] = {}
SUPPORT_CLASSES: dict[str, Unit] = {}  # the names a program may ask for (``Pattern``, ``hash_keys``, ...)
for _module in ("regex", "containers", "strings", "enums", "java_time"):
    _runtime = carried.load(_module)
    assert not _runtime.units.keys() & _SUPPORT_UNITS.keys(), f"runtime/{_module}.py redefines a support name"
    _SUPPORT_UNITS |= _runtime.units
    SUPPORT_CLASSES |= {name: _runtime.units[name] for name in _runtime.public}


# a program's class extending a library class: the Python class it extends (a support class, or Exception)
_THROWABLES = (
    "Throwable", "Exception", "RuntimeException", "Error", "IOException", "IllegalArgumentException",
    "IllegalStateException", "ArithmeticException", "UnsupportedOperationException", "InputMismatchException",
)  # fmt: skip
SUPPORT_BASES: dict[str, str] = {
    "AbstractMap.SimpleEntry": "SimpleEntry",
    "AbstractMap.SimpleImmutableEntry": "SimpleEntry",
    "SimpleEntry": "SimpleEntry",
    "SimpleImmutableEntry": "SimpleEntry",
    **{name: "Exception" for name in _THROWABLES},
}


def support_methods(name: str) -> frozenset[str]:
    """The Java methods a base from ``SUPPORT_BASES`` defines (a subclass calls them unqualified)."""
    if name not in SUPPORT_CLASSES:
        return frozenset()
    return SUPPORT_CLASSES[name].methods - {"__init__"}


def _support_call(tr: Emitting, c: Call) -> Tokens | None:
    """A support class's method keeps its Java name (no rule for a like-named collection method applies)."""
    return [*_operand(tr, c.obj), ".", c.name, "(", *tr.arg_tokens(c.args), ")"]


# -- streams (PROGRAM): a pipeline as lists -------------------------------------------------------------
# sources by the receiver's name (`IntStream . range`, `*`: any receiver's `stream ( )`); the steps and
# terminals under "Stream", asked when the receiver is itself a stream (``Translator.is_stream``)
def _stream_range(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 2:
        return None
    end = c.a[1] if c.name == "range" else [*c.a[1], "+", "1"]
    return ["list", "(", "range", "(", *c.a[0], ",", *end, ")", ")"]


def _stream_of(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) == 1 and tr.type_of(c.args[0]).endswith("[]"):
        return ["list", "(", *c.a[0], ")"]
    return ["[", *tr.arg_tokens(c.args), "]"]


def _arrays_stream_range(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.a[0], "[", *c.a[1], ":", *c.a[2], "]"] if len(c.a) == 3 else None


def _collection_stream(tr: Emitting, c: Call) -> Tokens | None:
    if c.args or tr.text(c.obj) in ("Arrays",):
        return None
    return ["list", "(", *tr.expr(c.obj), ")"]


def _string_chars(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["list", "(", "map", "(", "ord", ",", *tr.expr(c.obj), ")", ")"]


def _stream_map(tr: Emitting, c: Call) -> Tokens | None:
    return ["list", "(", "map", "(", *c.a[0], ",", *c.o, ")", ")"] if len(c.a) == 1 else None


def _stream_filter(tr: Emitting, c: Call) -> Tokens | None:
    return ["list", "(", "filter", "(", *c.a[0], ",", *c.o, ")", ")"] if len(c.a) == 1 else None


def _stream_sorted(tr: Emitting, c: Call) -> Tokens | None:
    if not c.a:
        return ["sorted", "(", *c.o, ")"]
    return ["sorted", "(", *c.o, ",", *tr.sort_order(c.args[0]), ")"] if len(c.a) == 1 else None


def _stream_distinct(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else ["list", "(", "dict", ".", "fromkeys", "(", *c.o, ")", ")"]


def _stream_limit(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, "[", ":", *c.a[0], "]"] if len(c.a) == 1 else None


def _stream_skip(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.o, "[", *c.a[0], ":", "]"] if len(c.a) == 1 else None


def _stream_extreme(tr: Emitting, c: Call) -> Tokens | None:
    if not c.a:
        return [c.name, "(", *c.o, ")"]
    if len(c.a) == 1 and c.name in ("max", "min"):
        return [c.name, "(", *c.o, ",", *tr.sort_order(c.args[0]), ")"]
    return None


def _stream_average(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.a else ["(", "sum", "(", *c.o, ")", "/", "len", "(", *c.o, ")", ")"]


def _stream_match(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    test = ["any" if c.name != "allMatch" else "all", "(", "map", "(", *c.a[0], ",", *c.o, ")", ")"]
    return ["not", *test] if c.name == "noneMatch" else test


def _stream_reduce(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) == 1:  # an Optional: the value (``get`` / ``orElse`` below read it)
        return ["functools", ".", "reduce", "(", *c.a[0], ",", *c.o, ")"]
    if len(c.a) != 2:
        return None
    return ["functools", ".", "reduce", "(", *c.a[1], ",", *c.o, ",", *c.a[0], ")"]


def _stream_first(tr: Emitting, c: Call) -> Tokens | None:
    """``findFirst ( )`` / ``findAny ( )``: an Optional is its value or None (``Optional`` rows below)."""
    return None if c.a else ["next", "(", "iter", "(", *c.o, ")", ",", "None", ")"]


def _stream_collect(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.a) != 1:
        return None
    col = c.args[0]
    cn = _call_parts(tr, col)[1] if col.type == "method_invocation" else ""
    cargs = call_arguments(col.child_by_field_name("arguments")) if col.type == "method_invocation" else []
    if cn in ("toList", "toCollection"):
        return ["list", "(", *c.o, ")"]
    if cn == "toSet":
        return ["set", "(", *c.o, ")"]
    if cn == "joining":
        sep = tr.expr(cargs[0]) if cargs else ['""']
        if len(cargs) == 3:  # a prefix and a suffix
            return [*tr.expr(cargs[1]), "+", *sep, ".", "join", "(", *c.o, ")", "+", *tr.expr(cargs[2])]
        return [*sep, ".", "join", "(", *c.o, ")"]
    if cn == "counting" and not cargs:
        return ["len", "(", *c.o, ")"]
    if cn in ("summingInt", "summingLong", "summingDouble") and len(cargs) == 1:
        return ["sum", "(", "map", "(", *tr.expr(cargs[0]), ",", *c.o, ")", ")"]
    if cn in ("averagingInt", "averagingLong", "averagingDouble") and len(cargs) == 1:
        total = ["sum", "(", "map", "(", *tr.expr(cargs[0]), ",", *c.o, ")", ")"]
        size = ["len", "(", *c.o, ")"]
        return ["(", *total, "/", *size, "if", *size, "else", "0.0", ")"]
    if cn == "partitioningBy" and len(cargs) == 1:  # {false: [...], true: [...]}, both keys always there
        return ["partition_by", "(", *c.o, ",", *tr.expr(cargs[0]), ")"]
    if cn == "groupingBy" and cargs:  # a dict of lists, or of counts with `counting ( )` (support functions)
        counts = len(cargs) == 2 and tr.text(cargs[1]).replace(" ", "").endswith("counting()")
        if len(cargs) == 1 or counts:
            return ["group_by", "(", *c.o, ",", *tr.expr(cargs[0]), *([",", "True"] if counts else []), ")"]
    if cn == "toMap" and len(cargs) == 2:
        return ["to_map", "(", *c.o, ",", *tr.expr(cargs[0]), ",", *tr.expr(cargs[1]), ")"]
    return None


# -- Map and StringBuilder calls of programs (``method``: the receiver's static type) ----------------------
_SUMS = ("Integer::sum", "Long::sum", "(a,b)->a+b", "(x,y)->x+y")


def _map_parts(tr: Emitting, c: Call) -> tuple[Tokens, list[Tokens]]:
    """The map and every argument, translated in that order (the order hoisted lambdas are numbered in)."""
    return tr.expr(c.obj), [tr.expr(x) for x in c.args]


def _compute_if_absent(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    o, a = _map_parts(tr, c)
    f = c.args[1]
    if f.type == "lambda_expression":
        body = f.child_by_field_name("body")
        if body is not None and body.type != "block":
            return [*o, ".", "setdefault", "(", *a[0], ",", *tr.expr(body), ")"]
    return [*o, ".", "setdefault", "(", *a[0], ",", "(", *a[1], ")", "(", *a[0], ")", ")"]


def _put_if_absent(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    o, a = _map_parts(tr, c)
    return [*o, ".", "setdefault", "(", *a[0], ",", *a[1], ")"]


def _map_replace(tr: Emitting, c: Call) -> Tokens | None:
    if not c.statement or len(c.args) not in (2, 3):
        return None
    o, a = _map_parts(tr, c)
    if len(a) == 2:
        return [*o, ".", "update", "(", "{", *a[0], ":", *a[1], "}", "if", *a[0], "in", *o, "else", "{", "}", ")"]
    test = [*a[0], "in", *o, "and", *o, "[", *a[0], "]", "==", *a[1]]  # replace ( key , oldValue , newValue )
    return [*o, ".", "update", "(", "{", *a[0], ":", *a[2], "}", "if", *test, "else", "{", "}", ")"]


def _map_merge(tr: Emitting, c: Call) -> Tokens | None:
    """``merge ( k , v , f )``: ``f ( old , v )`` where the key is, else ``v`` (a sum: ``_merge_sum``)."""
    if not c.statement or len(c.args) != 3 or tr.text(c.args[2]).replace(" ", "") in _SUMS:
        return None
    o, a = _map_parts(tr, c)
    k, v = a[0], a[1]
    return [*o, "[", *k, "]", "=", "(", *a[2], ")", "(", *o, "[", *k, "]", ",", *v, ")", "if", *k, "in", *o, "else", *v]


def _merge_sum(tr: Emitting, c: Call) -> Tokens | None:
    """``merge ( k , v , Integer :: sum )`` on any receiver: ``o [ k ] = o . get ( k , 0 ) + v``."""
    if not c.statement or len(c.args) != 3 or tr.text(c.args[2]).replace(" ", "") not in _SUMS:
        return None
    o, k, v = tr.expr(c.obj), tr.expr(c.args[0]), tr.expr(c.args[1])
    return [*o, "[", *k, "]", "=", *o, ".", "get", "(", *k, ",", "0", ")", "+", *v]


def _builder_append_chain(tr: Emitting, c: Call) -> Tokens | None:
    """``sb . append ( x ) . append ( y ) ;``: ``sb += x + y`` (one append is the statement rule's)."""
    if not c.statement:
        return None
    parts = [c.args[0]] if len(c.args) == 1 else []
    cur = c.obj
    while cur is not None and cur.type == "method_invocation" and tr.text(cur.child_by_field_name("name")) == "append":
        inner = call_arguments(cur.child_by_field_name("arguments"))
        if len(inner) != 1:
            return None
        parts.insert(0, inner[0])
        cur = cur.child_by_field_name("object")
    if cur is None or cur.type != "identifier" or len(parts) < 2:
        return None
    if class_of(tr.type_of(cur)) not in _BUILDERS:
        return None
    value: Tokens = []
    for i, part in enumerate(parts):
        value += (["+"] if i else []) + tr.as_str(part)
    return [tr.text(cur), "+=", *value]


def _builder_cut(tr: Emitting, c: Call) -> Tokens | None:
    """``deleteCharAt`` / ``setCharAt`` / ``delete`` / ``setLength`` as statements: the str rebuilt."""
    if not c.statement or c.obj.type != "identifier":
        return None
    o = tr.text(c.obj)
    a = [tr.expr(x) for x in c.args]
    if c.name == "deleteCharAt" and len(a) == 1:
        return [o, "=", o, "[", ":", *a[0], "]", "+", o, "[", *a[0], "+", "1", ":", "]"]
    if c.name == "setCharAt" and len(a) == 2:
        return [o, "=", o, "[", ":", *a[0], "]", "+", *a[1], "+", o, "[", *a[0], "+", "1", ":", "]"]
    if c.name == "delete" and len(a) == 2:
        return [o, "=", o, "[", ":", *a[0], "]", "+", o, "[", *a[1], ":", "]"]
    if c.name == "setLength" and len(a) == 1:
        return [o, "=", o, "[", ":", *a[0], "]"]
    return None


# -- programs' own instance calls whose receiver the program analysis knows (``method`` under "*") --------
_BIG_BINARY = {
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "divide": "//",
    "mod": "%",
    "remainder": "%",
    "and": "&",
    "or": "|",
    "xor": "^",
    "shiftLeft": "<<",
    "shiftRight": ">>",
}
_BIG_ARITY = {
    **dict.fromkeys(_BIG_BINARY, 1),
    **dict.fromkeys(("max", "min", "gcd", "pow", "compareTo", "equals"), 1),
    "modPow": 2,
    **dict.fromkeys(("negate", "abs", "longValue", "intValue", "longValueExact", "intValueExact"), 0),
    **dict.fromkeys(("toString", "signum"), 0),
}
BIG_OPS = frozenset(_BIG_ARITY)  # what a BigInteger's methods give is a BigInteger too (``is_big``)
_NAV_CMP = {  # a TreeMap's / TreeSet's navigation: the runtime's (containers.py), O(sqrt n) on a tree it made
    "floorKey": "tree_floor",
    "floor": "tree_floor",
    "lowerKey": "tree_lower",
    "lower": "tree_lower",
    "ceilingKey": "tree_ceiling",
    "ceiling": "tree_ceiling",
    "higherKey": "tree_higher",
    "higher": "tree_higher",
}


def _tokenizer(tr: Emitting, c: Call) -> Tokens | None:
    """A ``StringTokenizer`` is the list of its tokens (``new StringTokenizer`` splits)."""
    if tr.receiver_kind(c.obj) != "tok":
        return None
    o = tr.expr(c.obj)
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
        return [o, ".", "append", "(", *tr.expr(c.args[0]), ")"]
    if c.name == "toString" and not c.args:
        return joined(tr.state, o)
    if c.name == "length" and not c.args:
        return ["len", "(", *joined(tr.state, o), ")"]
    return None


def _optional_value(tr: Emitting, c: Call) -> Tokens | None:
    """``OptionalInt . getAsInt ( )`` / ``orElseThrow``: the value itself (a reduction gave it)."""
    if c.name == "get" and c.args:
        return None
    if c.name == "get" and not (_optional_terminal(tr, c.obj) or base_type(tr.type_of(c.obj)) in _OPTIONALS):
        return None  # a list's or a map's `get`
    return tr.expr(c.obj)


_OPTIONALS = ("Optional", "OptionalInt", "OptionalLong", "OptionalDouble")
_OPTIONAL_TERMINALS = ("max", "min", "findFirst", "findAny", "reduce", "average")


def _optional_terminal(tr: Emitting, node: Node | None) -> bool:
    """Is ``node`` a stream's terminal that gives an Optional (``max ( )``, ``findFirst ( )``, ``reduce ( f )``)?"""
    if node is None or node.type != "method_invocation":
        return False
    source, terminal, targs = _call_parts(tr, node)
    return (
        terminal in _OPTIONAL_TERMINALS
        and tr.is_stream(source)
        and len(targs) <= (terminal in ("reduce", "max", "min"))
    )


def _optional_held(tr: Emitting, c: Call) -> Tokens | None:
    """An Optional held in a variable or returned by a method (its value or None): ``isPresent``, ``isEmpty``,
    ``orElse``."""
    if c.obj is None or base_type(tr.type_of(c.obj)) not in _OPTIONALS:
        return None
    o = tr.expr(c.obj)
    if c.name in ("isPresent", "isEmpty") and not c.args:
        return ["(", *o, "is", *(["not"] if c.name == "isPresent" else []), "None", ")"]
    if c.name == "orElse" and len(c.args) == 1 and c.obj.type == "identifier":
        return ["(", *tr.expr(c.args[0]), "if", *o, "is", "None", "else", *o, ")"]
    if c.name == "orElse" and len(c.args) == 1:  # evaluated once
        test = ["lambda", "v", ":", *tr.expr(c.args[0]), "if", "v", "is", "None", "else", "v"]
        return ["(", *test, ")", "(", *o, ")"]
    return None


def _optional_made(tr: Emitting, c: Call) -> Tokens | None:
    """``Optional . of ( x )`` / ``ofNullable ( x )``: x; ``Optional . empty ( )``: None."""
    if c.name == "empty" and not c.args:
        return ["None"]
    return tr.expr(c.args[0]) if len(c.args) == 1 and c.name in ("of", "ofNullable") else None


def _optional_or_else(tr: Emitting, c: Call) -> Tokens | None:
    """``s . max ( ) . orElse ( d )``: an empty stream's default (``default =``, or a test of the items)."""
    if len(c.args) != 1 or c.obj.type != "method_invocation":
        return None
    source, terminal, targs = _call_parts(tr, c.obj)
    if len(targs) > (terminal == "reduce") or not tr.is_stream(source):
        return None
    if terminal in ("max", "min"):
        return [terminal, "(", *tr.expr(source), ",", "default", "=", *tr.expr(c.args[0]), ")"]
    if terminal in ("findFirst", "findAny"):
        return ["next", "(", "iter", "(", *tr.expr(source), ")", ",", *tr.expr(c.args[0]), ")"]
    if terminal == "average" or (terminal == "reduce" and len(targs) == 1):
        items = tr.expr(source)
        return ["(", *tr.expr(c.obj), "if", "len", "(", *items, ")", "else", *tr.expr(c.args[0]), ")"]
    return None


def _for_each(tr: Emitting, c: Call) -> Tokens | None:
    """``list . forEach ( f )`` / ``map . forEach ( ( k , v ) -> ... )`` of a collection (a stream's is a stream
    step): ``f`` called on every element in Java's order (a TreeMap's sorted, a HashMap's by bucket)."""
    if len(c.args) != 1 or tr.is_stream(c.obj):
        return None
    f, o = tr.expr(c.args[0]), tr.expr(c.obj)
    named = tr.text(c.obj) if c.obj.type == "identifier" else ""
    keys = o
    if named in tr.state.prog.hash_tables:
        keys = ["hash_keys", "(", *o, ")"]
    elif named in tr.state.prog.sorted_maps or base_type(tr.type_of(c.obj)) in SORTED_TYPES:
        keys = ["sorted", "(", *o, ")"]
    if base_type(tr.type_of(c.obj)) in MAP_TYPES:
        return ["[", "(", *f, ")", "(", "k", ",", *o, "[", "k", "]", ")", "for", "k", "in", *keys, "]"]
    return ["[", "(", *f, ")", "(", "x", ")", "for", "x", "in", *keys, "]"]


def _navigable(tr: Emitting, c: Call) -> str | None:
    """The receiver's static type when it is a TreeMap / TreeSet (a sorted map of the analysis too)."""
    base = base_type(tr.type_of(c.obj))
    sorted_map = c.obj.type == "identifier" and tr.text(c.obj) in tr.state.prog.sorted_maps
    return base if base in SORTED_TYPES or sorted_map else None


def _nav_compare(tr: Emitting, c: Call) -> Tokens | None:
    """``floor`` / ``ceilingKey`` / ...: ``tree_floor ( tm , x )`` (a ``TreeMap`` / ``TreeSet`` of the runtime keeps
    its keys in order; a plain dict or set standing for the tree is scanned)."""
    if len(c.args) != 1 or _navigable(tr, c) is None:
        return None
    o = tr.expr(c.obj)
    return [_NAV_CMP[c.name], "(", *o, ",", *tr.expr(c.args[0]), ")"]


def _nav_entry(tr: Emitting, c: Call) -> Tokens | None:
    if c.args or _navigable(tr, c) is None:
        return None
    o = tr.expr(c.obj)
    agg = "min" if c.name == "firstEntry" else "max"
    return ["(", "lambda", "k", ":", "(", "k", ",", *o, "[", "k", "]", ")", ")", "(", agg, "(", *o, ")", ")"]


def _nav_poll(tr: Emitting, c: Call) -> Tokens | None:
    if c.args or _navigable(tr, c) not in ("TreeSet", "NavigableSet", "SortedSet"):
        return None
    return ["tree_poll_first" if c.name == "pollFirst" else "tree_poll_last", "(", *tr.expr(c.obj), ")"]


def _nav_range(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1 or _navigable(tr, c) is None:
        return None
    o = tr.expr(c.obj)
    op = "<" if c.name == "headSet" else ">="
    return ["sorted", "(", "k", "for", "k", "in", *o, "if", "k", op, *tr.expr(c.args[0]), ")"]


def _java_split(tr: Emitting, c: Call) -> Tokens | None:
    """Java's ``split`` takes a regex: whitespace -> ``split ( )``, one (escaped) char -> ``split ( c )``."""
    if len(c.args) != 1 or c.args[0].type != "string_literal":
        return None
    literal = tr.text(c.args[0])
    o = tr.expr(c.obj)
    body = literal[1:-1].replace(" ", "").replace("\u2581", " ")
    if body == "":  # Java's split("") gives the characters
        return ["list", "(", *o, ")"]
    if body in (" ", "\\s+", "\\s", " +", "\\s*", "\\s+$"):
        return [*o, ".", "split", "(", ")"]
    plain = body[2:] if body.startswith("\\") and len(body) == 3 else body
    if len(plain) == 1 or (not re.search(r"[\\.\[\]()*+?^$|{}]", plain) and plain):
        split = [*o, ".", "split", "(", literal if plain == body else f'"{plain}"', ")"]
    else:
        split = ["re", ".", "split", "(", literal, ",", *o, ")"]
    return ["java_split", "(", *split, ")"]  # Java drops the trailing empty strings


def _big_op(tr: Emitting, c: Call) -> Tokens | None:
    """BigInteger is Python's int: ``a . add ( b )`` -> ``a + b`` and so on."""
    if len(c.args) != _BIG_ARITY[c.name] or not tr.is_big(c.obj):
        return None
    o = tr.expr(c.obj)
    if c.obj.type not in ("identifier", "field_access", "parenthesized_expression", "array_access"):
        o = ["(", *o, ")"]
    a = [x if len(x) == 1 else ["(", *x, ")"] for x in (tr.expr(arg) for arg in c.args)]
    if c.name in _BIG_BINARY:
        return ["(", *o, _BIG_BINARY[c.name], *a[0], ")"]
    if c.name in ("max", "min"):
        return [c.name, "(", *o, ",", *a[0], ")"]
    if c.name == "gcd":
        return ["math", ".", "gcd", "(", *o, ",", *a[0], ")"]
    if c.name == "pow":
        return ["(", *o, "**", *a[0], ")"]
    if c.name == "modPow":
        return ["pow", "(", *o, ",", *a[0], ",", *a[1], ")"]
    if c.name == "negate":
        return ["(", "-", *o, ")"]
    if c.name == "abs":
        return ["abs", "(", *o, ")"]
    if c.name == "compareTo":
        return ["(", "(", *o, ">", *a[0], ")", "-", "(", *o, "<", *a[0], ")", ")"]
    if c.name == "equals":
        return ["(", *o, "==", *a[0], ")"]
    if c.name == "toString":
        return ["str", "(", *o, ")"]
    if c.name == "signum":
        return ["(", "(", *o, ">", "0", ")", "-", "(", *o, "<", "0", ")", ")"]
    return o  # longValue / intValue / ...


def _heap_var(tr: Emitting, c: Call) -> str:
    return tr.text(c.obj) if c.obj.type == "identifier" else ""


def _min_heap(tr: Emitting, c: Call) -> Tokens | None:
    """A PriorityQueue in natural order is a ``heapq`` list."""
    ot = _heap_var(tr, c)
    if ot not in tr.state.prog.heaps or scalar_local(tr, ot):
        return None
    if c.name in ("add", "offer") and len(c.args) == 1:
        return ["heapq", ".", "heappush", "(", ot, ",", *tr.expr(c.args[0]), ")"]
    if c.name in ("poll", "remove") and not c.args:
        return ["heapq", ".", "heappop", "(", ot, ")"]
    if c.name in ("peek", "element") and not c.args:
        return [ot, "[", "0", "]"]
    return None


def _comparator_heap(tr: Emitting, c: Call) -> Tokens | None:
    """Another comparator: ``heapq`` over ``cmp_to_key`` keys, ``.obj`` the element."""
    ot = _heap_var(tr, c)
    if ot not in tr.state.prog.cmp_heaps:
        return None
    if c.name in ("add", "offer") and len(c.args) == 1:
        return ["heapq", ".", "heappush", "(", ot, ",", ot + "_key", "(", *tr.expr(c.args[0]), ")", ")"]
    if c.name in ("poll", "remove") and not c.args:
        return ["heapq", ".", "heappop", "(", ot, ")", ".", "obj"]
    if c.name in ("peek", "element") and not c.args:
        return [ot, "[", "0", "]", ".", "obj"]
    return None


def _heap_add_all(tr: Emitting, c: Call) -> Tokens | None:
    ot = _heap_var(tr, c)
    if len(c.args) != 1 or (ot not in tr.state.prog.heaps and ot not in tr.state.prog.max_heaps):
        return None
    sign = ["-"] if ot in tr.state.prog.max_heaps else []
    return ["[", "heapq", ".", "heappush", "(", ot, ",", *sign, "x", ")", "for", "x", "in", *tr.expr(c.args[0]), "]"]


def _max_heap(tr: Emitting, c: Call) -> Tokens | None:
    """``Collections.reverseOrder()``: negated elements."""
    ot = _heap_var(tr, c)
    if ot not in tr.state.prog.max_heaps or scalar_local(tr, ot):
        return None
    oe = tr.expr(c.obj)  # a field of another class is `self . name`
    if c.name in ("add", "offer") and len(c.args) == 1:
        return ["heapq", ".", "heappush", "(", *oe, ",", "-", "(", *tr.expr(c.args[0]), ")", ")"]
    if c.name in ("poll", "remove") and not c.args:
        return ["(", "-", "heapq", ".", "heappop", "(", *oe, ")", ")"]
    if c.name in ("peek", "element") and not c.args:
        return ["(", "-", *oe, "[", "0", "]", ")"]
    return None


def _list_sort(tr: Emitting, c: Call) -> Tokens | None:
    """``list . sort ( cmp ) ;``: the comparator as ``key`` / ``reverse``."""
    if not c.statement or tr.text(c.obj) in ("Arrays", "Collections") or len(c.args) != 1:
        return None
    return [*tr.expr(c.obj), ".", "sort", "(", *tr.sort_order(c.args[-1]), ")"]


def _java_iterator(tr: Emitting, c: Call) -> Tokens | None:
    """``c . iterator ( )`` of a program: an object with ``hasNext`` / ``next`` / ``remove``."""
    if c.args or c.obj is None:
        return None
    if c.obj.type == "identifier" and tr.text(c.obj) in tr.state.prog.sorted_maps:
        return ["JavaIterator", "(", "sorted", "(", *tr.expr(c.obj), ")", ")"]
    return ["JavaIterator", "(", *tr.expr(c.obj), ")"]


def _to_typed_array(tr: Emitting, c: Call) -> Tokens | None:
    """``list . toArray ( new Integer [ 0 ] )``: the elements (the argument only names the type)."""
    return ["list", "(", *tr.expr(c.obj), ")"] if len(c.args) == 1 and c.obj is not None else None


def _sub_list(tr: Emitting, c: Call) -> Tokens | None:
    """``list . subList ( a , b )``: a slice (a copy: read, as contest code reads it, it is the same)."""
    if len(c.args) != 2 or c.obj is None:
        return None
    return [*_operand(tr, c.obj), "[", *tr.expr(c.args[0]), ":", *tr.expr(c.args[1]), "]"]


def _sorted_view(tr: Emitting, c: Call) -> Tokens | None:
    """A TreeMap / TreeSet of the analysis iterated in key order; its ends are ``min`` / ``max``."""
    if c.args or c.obj.type != "identifier" or tr.text(c.obj) not in tr.state.prog.sorted_maps:
        return None
    oe = tr.expr(c.obj)
    if c.name in ("keySet", "navigableKeySet"):
        return ["sorted", "(", *oe, ")"]
    if c.name == "entrySet":
        return ["sorted", "(", *oe, ".", "items", "(", ")", ")"]
    if c.name == "values":
        return ["[", "v", "for", "k", ",", "v", "in", "sorted", "(", *oe, ".", "items", "(", ")", ")", "]"]
    return ["tree_first" if c.name.startswith("first") else "tree_last", "(", *oe, ")"]


# -- comparators and GeeksforGeeks' pairs --------------------------------------------------------
THEN_COMPARING = ("thenComparing", "thenComparingInt", "thenComparingLong", "thenComparingDouble")
TUPLE_FIELDS = {"first": "0", "second": "1", "x": "0", "y": "1", "key": "0", "value": "1"}
_TUPLE_GETTERS = {"get" + f[:1].upper() + f[1:]: index for f, index in TUPLE_FIELDS.items()}


def _comparator_key(tr: Emitting, c: Call) -> Tokens | None:
    """``Comparator.comparing(f).thenComparing(g)[.reversed()]`` as one compare function of the keys."""
    chain = tr.comparator_chain(c.node)
    if chain is None:
        return None
    key, (a, b) = chain[0], ("_b", "_a") if chain[1] else ("_a", "_b")
    ka, kb = ["(", *key, ")", "(", a, ")"], ["(", *key, ")", "(", b, ")"]
    return ["(", "lambda", "_a", ",", "_b", ":", "(", *ka, ">", *kb, ")", "-", "(", *ka, "<", *kb, ")", ")"]


def _pair_getter(tr: Emitting, c: Call) -> Tokens | None:
    """``p . getSecond ( )`` of a pair class the source does not show (made a tuple): ``p [ 1 ]``."""
    if c.a or not _undeclared_class(tr, _base(c)):
        return None
    return [*c.o, "[", _TUPLE_GETTERS[c.name], "]"]


# -- constructors ------------------------------------------------------------------------------------------
# ``call.obj`` is the type node, ``call.receiver`` the class (programs: ``Cls`` of ``a . b . Cls``)
_ENTRIES = ("SimpleEntry",)  # `AbstractMap.SimpleEntry` / `SimpleEntry` (the class as the program names it)
TUPLE_CLASSES = ("Pair", "pair", "Point", "SimpleEntry", "Tuple")  # GeeksforGeeks' pairs from elsewhere in its file
_FIELD_STORE = re.compile(rb"\. ?(first|second|x|y|key|value) ?(=(?!=)|\+=|-=|\*=|/=|\+\+|--)")


def _big_new(tr: Emitting, c: Call) -> Tokens | None:
    return ["int", "(", *tr.expr(c.args[0]), ")"] if len(c.args) == 1 else None


def _string_of_range(tr: Emitting, c: Call) -> Tokens | None:
    """``new String ( cs , off , n )``: the characters ``cs [ off : off + n ]``."""
    if len(c.args) != 3 or tr.type_of(c.args[0]) != "char[]":
        return None
    off = tr.expr(c.args[1])
    return ['" "', ".", "join", "(", *tr.expr(c.args[0]), "[", *off, ":", *off, "+", *tr.expr(c.args[2]), "]", ")"]


def _entry_new(tr: Emitting, c: Call) -> Tokens | None:
    """An entry is a (key, value) tuple, as ``entrySet``'s items."""
    return ["(", *tr.arg_tokens(c.args), ")"] if len(c.args) == 2 else None


def _joiner_new(tr: Emitting, c: Call) -> Tokens | None:
    """A ``StringJoiner`` variable: a list of the parts; ``toString`` / printing joins them (``joined``)."""
    decl = c.node.parent
    if not c.args or decl is None or decl.type != "variable_declarator":
        return None
    tr.state.joiners[tr.text(decl.child_by_field_name("name"))] = [tr.expr(a) for a in c.args[:3]]
    return ["[", "]"]


def _heap_new(tr: Emitting, c: Call) -> Tokens | None:
    """A ``PriorityQueue`` is a list kept as a heap; one with a comparator wraps its elements (``cmp_heaps``)."""
    decl = c.node.parent
    cmp = [a for a in c.args if a.type not in ("decimal_integer_literal", "identifier")]
    if decl is not None and decl.type == "variable_declarator" and cmp:
        name = tr.text(decl.child_by_field_name("name"))
        if name in tr.state.prog.cmp_heaps:  # elements wrapped by cmp_to_key (``.obj`` is the element)
            tr.state.pre.append([name + "_key", "=", "cmp_to_key", "(", *tr.expr(cmp[-1]), ")"])
    return ["[", "]"]


def _tokenizer_new(tr: Emitting, c: Call) -> Tokens | None:
    """A ``StringTokenizer`` is the list of its tokens, reversed (``nextToken`` pops from the end)."""
    if not c.args:
        return None
    src = tr.expr(c.args[0])
    if len(c.args) >= 2 and c.args[1].type == "string_literal":
        delims = ["re", ".", "split", "(", '" [ "', "+", *tr.expr(c.args[1]), "+", '" ] + "', ",", *src, ")"]
        return [*delims, *_REVERSED]
    return [*src, ".", "split", "(", ")", *_REVERSED]


def _map_new(tr: Emitting, c: Call) -> Tokens | None:
    return ["{", "}"]


def _set_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new HashSet < > ( capacity )``: an initial capacity, not elements."""
    given = c.args and tr.type_of(c.args[0]) != "int"
    return ["set", "(", *(tr.arg_tokens(c.args) if given else []), ")"]


def _made_deque(tr: Emitting, node: Node) -> bool:
    """Is ``node`` (``new ArrayDeque < > ( )``) the value of a variable the program holds as a deque?"""
    prog, parent = tr.state.prog, node.parent
    if not prog.deques or parent is None:
        return False
    if parent.type == "variable_declarator":
        name = parent.child_by_field_name("name")
    elif parent.type == "assignment_expression":
        name = parent.child_by_field_name("left")
    else:
        return False
    return name is not None and (name.text or b"").decode() in prog.deques


def _deque_new(tr: Emitting, c: Call) -> Tokens | None:
    return ["deque", "(", ")"] if _made_deque(tr, c.node) else None


def _list_new(tr: Emitting, c: Call) -> Tokens | None:
    return ["list", "(", *tr.arg_tokens(c.args), ")"] if c.args and tr.type_of(c.args[0]) != "int" else ["[", "]"]


def _text_new(tr: Emitting, c: Call) -> Tokens | None:
    """A ``String`` / ``StringBuilder`` (a str): of a char array, of a text; an int argument is a capacity."""
    if c.args and tr.type_of(c.args[0]) == "char[]":
        return ['" "', ".", "join", "(", *tr.expr(c.args[0]), ")"]
    text = c.args and tr.type_of(c.args[0]) not in (*INT_TYPES, "char", "Character")
    return tr.expr(c.args[0]) if text else ['" "']


def _boxed_new(tr: Emitting, c: Call) -> Tokens | None:
    return tr.expr(c.args[0]) if c.args else ["0"]


def _tuple_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new Pair ( x , y )`` of a class the source does not show: a tuple (a list where a field is stored)."""
    if not _undeclared_class(tr, c.receiver):
        return None
    if _FIELD_STORE.search(tr.state.src):  # `p . first = ...` somewhere: a tuple cannot take it, a list can
        return ["[", *tr.arg_tokens(c.args), "]"]
    return ["(", *tr.arg_tokens(c.args), ")"]


def _random_imported(tr: Emitting, c: Call) -> Tokens | None:
    """A program's ``Random random = new Random ( )``: ``Random`` (``from random import Random``)."""
    if not _undeclared_class(tr, c.receiver) or "random" not in tr.state.declared:
        return None
    return ["Random", "(", *tr.arg_tokens(c.args), ")"]


def _random_new(tr: Emitting, c: Call) -> Tokens | None:
    if not _undeclared_class(tr, c.receiver):
        return None
    return ["random", ".", "Random", "(", *tr.arg_tokens(c.args), ")"]


_INTEGERS = ("Integer", "Long", "Short", "Byte")
_BUILDERS = ("StringBuilder", "StringBuffer")
CHAINED = ("append", "insert", "reverse")  # a builder's edits that return the builder
_LISTS = tuple(sorted(COLLECTION_TYPES))
_MAPS = tuple(sorted(MAP_TYPES))
_STREAMS = ("IntStream", "LongStream", "Stream", "DoubleStream")
_HEAP_OPS = ("add", "offer", "poll", "remove", "peek", "element")
_TIMES = ("LocalDate", "LocalTime", "Duration")
_BIG_CONSTANTS = (("ZERO", "0"), ("ONE", "1"), ("TWO", "2"), ("TEN", "10"))

# The Java library's calls, one row each (see ``Rule``). For one call the rows of its receiver and member
# are asked in the order written here, the receiver's own rows before ``"*"``'s (``Math . *``: its rows
# after ``Math . member``'s), a policy's own rows before the shared ones.
RULES: tuple[Rule, ...] = (
    # -- java.lang.Math: any member not listed is `math . name`
    static("Math", "*", _math_any, where=EXPRESSION),
    static("Math", _MATH_BUILTIN, _math_builtin, where=EXPRESSION),
    static("Math", "cbrt", _math_cbrt, where=EXPRESSION),
    static(_OPTIONALS, ("of", "ofNullable", "empty"), _optional_made, policy=PROGRAM),
    static("Math", ("floor", "ceil"), _math_floor_ceil, where=EXPRESSION),
    static("Math", "round", _math_round, where=EXPRESSION),
    static("Math", "round", _math_round_half_up, policy=PROGRAM),  # Java rounds halves up
    static("Math", "random", _math_random, where=EXPRESSION),
    static("Math", ("floorDiv", "floorMod"), _math_floor_div_mod, where=EXPRESSION),
    static("Math", "signum", _math_signum, where=EXPRESSION),
    static("Math", ("toRadians", "toDegrees"), _math_angle, where=EXPRESSION),
    # -- boxed numbers
    static(_INTEGERS, ("parseInt", "parseLong", "valueOf"), _to_int, where=EXPRESSION),
    static(("Double", "Float"), ("parseDouble", "parseFloat", "valueOf"), _to_float, where=EXPRESSION),
    static(("Integer", "Long"), tuple(_RADIX_STRINGS), _radix_string, where=EXPRESSION),
    static(("Integer", "Long"), "bitCount", _bit_count, where=EXPRESSION),
    static(
        ("Integer", "Long"),
        ("numberOfTrailingZeros", "numberOfLeadingZeros", "highestOneBit", "lowestOneBit"),
        _bits,
        policy=PROGRAM,
        returns="int",
    ),
    static(("Integer", "Long"), ("max", "min"), _builtin_of_flat, where=EXPRESSION),
    static(("Integer", "Long", "Double", "Character", "String"), "toString", _to_str, where=EXPRESSION),
    static("Character", "valueOf", _to_str, where=EXPRESSION),
    static((*_INTEGERS, "Double", "Character"), "compare", _compare, policy=PROGRAM),
    static("BigInteger", "valueOf", _big_value_of, policy=PROGRAM),
    new("BigInteger", _big_new, policy=PROGRAM),
    *(constant("BigInteger", name, (value,)) for name, value in _BIG_CONSTANTS),  # a Python int
    # -- Character, String, System, Map, Objects, List
    static("Character", tuple(_CHAR_METHODS), _char_method, where=EXPRESSION),
    static("Character", "getNumericValue", _char_numeric, where=EXPRESSION),
    static("Character", "getNumericValue", _char_numeric_any, policy=PROGRAM),
    static("String", ("valueOf", "copyValueOf"), _string_value_of, where=EXPRESSION),
    static("String", "join", _string_join, policy=PROGRAM),
    static("String", "format", _string_format, policy=PROGRAM),
    new("String", _string_of_range, policy=PROGRAM),
    static("System", "exit", _system_exit, policy=PROGRAM),
    static("System", "arraycopy", _arraycopy, where=STATEMENT),
    static("Map", "entry", _map_entry, policy=PROGRAM),
    new(_ENTRIES, _entry_new, policy=PROGRAM),
    static("Objects", "hash", _objects_hash, policy=PROGRAM, returns="int"),
    static(("List", "Set", "Map"), "of", _list_of, policy=PROGRAM),
    static("Objects", "equals", _objects_equals, policy=PROGRAM, returns="boolean"),
    # -- Arrays
    static("Arrays", "asList", _as_list, where=EXPRESSION, returns="List"),
    static("Arrays", "asList", _as_list_of_array, policy=PROGRAM, returns="List"),
    static("Arrays", "copyOfRange", _copy_of_range, where=EXPRESSION),
    static("Arrays", "copyOf", _copy_of, where=EXPRESSION),
    static("Arrays", "equals", _arrays_equals, where=EXPRESSION),
    static("Arrays", "stream", _arrays_stream, where=EXPRESSION),
    static("Arrays", "toString", _arrays_to_string, where=EXPRESSION),
    static("Arrays", "toString", _text_array_to_string, policy=PROGRAM),
    static("Arrays", "deepToString", _arrays_to_string, where=EXPRESSION),
    static("Arrays", "binarySearch", _binary_search, where=EXPRESSION),
    static("Arrays", "sort", _arrays_sort, where=STATEMENT),
    static("Arrays", "sort", _sort_by_comparator, policy=PROGRAM),  # honours the comparator
    static("Arrays", "fill", _fill, where=STATEMENT),
    static("Arrays", "fill", _fill_in_place, policy=PROGRAM),  # in place: the array may be an alias
    static("Arrays", "setAll", _set_all, policy=PROGRAM),
    # -- Collections
    static("Collections", "frequency", _frequency, where=EXPRESSION),
    static("Collections", "nCopies", _n_copies, where=EXPRESSION),
    static("Collections", ("max", "min"), _collection_extreme, where=EXPRESSION),
    static("Collections", "swap", _swap, where=STATEMENT),
    static("Collections", "sort", _collections_sort, where=STATEMENT),
    static("Collections", "sort", _sort_by_comparator, policy=PROGRAM),
    static("Collections", "reverse", _collections_reverse, where=STATEMENT),
    static("Collections", "shuffle", _shuffle, policy=PROGRAM),
    # -- instance methods of both policies (the receiver's static type; "*" any receiver)
    instance(TUPLE_CLASSES, tuple(_TUPLE_GETTERS), _pair_getter, where=EXPRESSION),
    instance("Random", "nextBoolean", _random_boolean, where=EXPRESSION),
    instance("Random", tuple(_RANDOM), _random_draw, where=EXPRESSION),
    instance(_LISTS, "indexOf", _list_index_of, where=EXPRESSION),
    instance(_LISTS, "lastIndexOf", _list_last_index_of, where=EXPRESSION),
    instance("*", ("sum", "max", "min", "count"), _stream_reduction, where=EXPRESSION),
    instance("*", ("getAsInt", "getAsLong", "getAsDouble"), _receiver, where=EXPRESSION),
    instance("*", "clone", _clone, where=EXPRESSION),
    instance("*", ("iterator", "listIterator"), _iterator, where=EXPRESSION),
    instance(("Iterator", "ListIterator"), "next", _iterator_next, where=EXPRESSION),
    instance("*", "length", _length, where=EXPRESSION),
    instance("*", "charAt", _char_at, where=EXPRESSION),
    instance("*", "equalsIgnoreCase", _equals_ignore_case, where=EXPRESSION),
    instance("String", "concat", _concat, where=EXPRESSION),
    instance("*", ("equals", "contentEquals"), _equals, where=EXPRESSION),
    instance("*", "compareTo", _compare_to, where=EXPRESSION),
    instance("*", "size", _length, where=EXPRESSION),
    instance("*", "toArray", _listed, where=EXPRESSION),
    instance("*", ("isEmpty", "empty"), _is_empty, where=EXPRESSION),
    instance("*", "toString", _to_string, where=EXPRESSION),
    instance("*", "toCharArray", _listed, where=EXPRESSION),
    instance("StringBuilder", "reverse", _reversed, where=EXPRESSION),
    instance("*", "reverse", _reversed_new, where=EXPRESSION),
    instance("*", "substring", _substring, where=EXPRESSION),
    instance("*", ("contains", "containsKey"), _contains, where=EXPRESSION),
    instance("*", "containsValue", _contains_value, where=EXPRESSION),
    instance(_MAPS, "get", _map_get_default, where=EXPRESSION),
    instance(_MAPS, "get", _map_get_nullable, where=EXPRESSION),
    instance((*_MAPS, *_LISTS, "?"), "get", _subscript, where=EXPRESSION),
    instance("*", "getOrDefault", _get_or_default, where=EXPRESSION),
    instance((*_LISTS, "?"), "add", _append, where=EXPRESSION),
    instance(tuple(sorted(SORTED_TYPES)), ("first", "firstKey", "last", "lastKey"), _sorted_end, where=EXPRESSION),
    instance(_HEAD_FIRST, "push", _deque_head(_add_first), where=EXPRESSION),
    instance(_HEAD_FIRST, "pop", _deque_head(_pop_first), where=EXPRESSION),
    instance(_HEAD_FIRST, "peek", _null_when_empty(_deque_head(_head)), where=EXPRESSION),
    instance("*", ("addFirst", "offerFirst"), _add_first, where=EXPRESSION),
    instance(_LISTS, "add", _insert_at, where=EXPRESSION),
    instance(_LISTS, ("elementAt", "get"), _subscript, where=EXPRESSION),
    instance("*", ("push", "addLast", "offer", "offerLast"), _append, where=EXPRESSION),
    instance("*", ("pop", "removeLast", "pollLast"), _null_when_empty(_pop_last), where=EXPRESSION),
    instance("*", ("poll", "remove", "removeFirst", "pollFirst"), _null_when_empty(_pop_first), where=EXPRESSION),
    # a queue's head, where `poll` takes from
    instance(tuple(sorted(QUEUE_TYPES)), "peek", _null_when_empty(_head), where=EXPRESSION),
    instance("*", ("peek", "peekLast", "getLast", "lastElement"), _null_when_empty(_last), where=EXPRESSION),
    instance("*", ("peekFirst", "getFirst", "firstElement", "element"), _null_when_empty(_head), where=EXPRESSION),
    instance(_LISTS, "remove", _list_remove_object, where=EXPRESSION),
    instance(_MAPS, "remove", _map_remove, where=EXPRESSION),
    instance("*", "remove", _remove, where=EXPRESSION),
    instance("*", "keySet", _python_method("keys"), where=EXPRESSION),
    instance("*", "values", _python_method("values"), where=EXPRESSION),
    instance("*", "entrySet", _python_method("items"), where=EXPRESSION),
    instance("*", "getKey", _entry_part("0"), where=EXPRESSION),
    instance("*", "getValue", _entry_part("1"), where=EXPRESSION),
    instance("*", "append", _builder_append, where=EXPRESSION),
    instance("*", ("intValue", "longValue", "doubleValue"), _receiver, where=EXPRESSION),
    instance("String", tuple(_STRING_METHODS), _string_method, where=EXPRESSION),
    # as statements (the receiver translated by the emitter)
    instance(_MAPS, "put", _put, where=STATEMENT),
    instance(_LISTS, "set", _put, where=STATEMENT),
    instance(_BUILDERS, "reverse", _builder_reversed, where=STATEMENT),
    instance(_BUILDERS, ("setCharAt", "deleteCharAt"), _builder_char_edit, where=STATEMENT),
    instance(_BUILDERS, "insert", _builder_insert, where=STATEMENT),
    instance(_BUILDERS, "append", _builder_append_statement, where=STATEMENT),
    # -- StringBuilder / StringBuffer in programs (instance methods the str that stands for it lacks)
    instance(_BUILDERS, ("trimToSize", "ensureCapacity"), _builder_no_op, policy=PROGRAM),
    instance(_BUILDERS, "reverse", _builder_reverse, policy=PROGRAM),
    instance(_BUILDERS, ("indexOf", "lastIndexOf"), _builder_find, policy=PROGRAM, returns="int"),
    instance(_BUILDERS, "isEmpty", _builder_is_empty, policy=PROGRAM, returns="boolean"),
    instance(_BUILDERS, "append", _builder_append_chain, policy=PROGRAM),
    instance(_BUILDERS, ("deleteCharAt", "setCharAt", "delete", "setLength"), _builder_cut, policy=PROGRAM),
    instance(("Iterator", "ListIterator"), ("hasNext", "next", "remove"), _support_call, policy=PROGRAM),
    # -- Map in programs
    instance(_MAPS, "computeIfAbsent", _compute_if_absent, policy=PROGRAM),
    instance(_MAPS, "putIfAbsent", _put_if_absent, policy=PROGRAM),
    instance(_MAPS, "replace", _map_replace, policy=PROGRAM),
    instance(_MAPS, "merge", _map_merge, policy=PROGRAM),
    # -- String's regex methods and Java's orders; java.util.regex and java.time are SUPPORT_CLASSES
    instance("String", "matches", _string_matches, policy=PROGRAM, returns="boolean"),
    instance("String", "repeat", _string_repeat, policy=PROGRAM, returns="String"),
    instance("String", "split", None, returns="String[]"),
    instance("String", ("compareTo", "compareToIgnoreCase"), _string_compare, policy=PROGRAM, returns="int"),
    instance("String", "hashCode", _string_hash, policy=PROGRAM, returns="int"),
    instance("String", "equalsIgnoreCase", None, returns="boolean"),
    instance("String", ("replaceAll", "replaceFirst"), _string_replace_regex, policy=PROGRAM, returns="String"),
    # a support class's methods as called (``runtime/``), and the result types `type_of` reads
    *(
        instance(cls, sorted(support_methods(cls)), _support_call, policy=PROGRAM)
        for cls in SUPPORT_CLASSES
        if support_methods(cls)
    ),
    instance("Pattern", "compile", None, returns="Pattern"),
    instance("Pattern", "matcher", None, returns="Matcher"),
    instance("Pattern", "matches", None, returns="boolean"),
    instance("Matcher", ("matches", "find", "lookingAt"), None, returns="boolean"),
    instance("Matcher", "group", None, returns="String"),
    instance("Matcher", ("start", "end", "groupCount"), None, returns="int"),
    instance(
        _TIMES,
        ("isBefore", "isAfter", "isEqual", "equals", "isLeapYear", "isNegative", "isZero"),
        None,
        returns="boolean",
    ),
    instance("LocalDate", "getDayOfWeek", None, returns="DayOfWeek"),
    instance(
        "LocalDate", ("of", "parse", "plusDays", "minusDays", "plusMonths", "plusYears"), None, returns="LocalDate"
    ),
    instance(
        "LocalTime",
        ("of", "parse", "plusHours", "plusMinutes", "plusSeconds", "minusMinutes"),
        None,
        returns="LocalTime",
    ),
    # -- java.util.function: the functional object is called
    *(
        instance(cls, member, _functional_call, policy=PROGRAM, returns=_FUNCTIONAL_RESULTS.get(member, ""))
        for cls, member in _FUNCTIONAL.items()
    ),
    # -- java.math.BigDecimal
    new("BigDecimal", _decimal_new, policy=PROGRAM),
    new(("TreeMap", "TreeSet"), _tree_new, policy=PROGRAM),  # the runtime's (containers.py)
    static("BigDecimal", "valueOf", _decimal_value_of, policy=PROGRAM, returns="BigDecimal"),
    *(constant("BigDecimal", name, _decimal_constant(value), "BigDecimal") for name, value in _BIG_CONSTANTS),
    instance("BigDecimal", tuple(_DECIMAL_OPS), _decimal_binary, policy=PROGRAM, returns="BigDecimal"),
    instance("BigDecimal", "divide", _decimal_divide, policy=PROGRAM, returns="BigDecimal"),
    instance("BigDecimal", "setScale", _decimal_set_scale, policy=PROGRAM, returns="BigDecimal"),
    instance("BigDecimal", "pow", _decimal_pow, policy=PROGRAM, returns="BigDecimal"),
    instance("BigDecimal", "negate", _decimal_negate, policy=PROGRAM, returns="BigDecimal"),
    instance("BigDecimal", "abs", _decimal_call(["abs"]), policy=PROGRAM, returns="BigDecimal"),
    instance("BigDecimal", ("max", "min"), _decimal_pair, policy=PROGRAM, returns="BigDecimal"),
    instance("BigDecimal", "stripTrailingZeros", _decimal_method("normalize"), policy=PROGRAM, returns="BigDecimal"),
    instance("BigDecimal", "compareTo", _decimal_compare, policy=PROGRAM, returns="int"),
    instance("BigDecimal", "signum", _decimal_signum, policy=PROGRAM, returns="int"),
    instance("BigDecimal", "scale", _decimal_scale, policy=PROGRAM, returns="int"),
    instance(
        "BigDecimal",
        ("intValue", "longValue", "intValueExact", "longValueExact"),
        _decimal_call(["int"]),
        policy=PROGRAM,
        returns="long",
    ),
    instance("BigDecimal", "toBigInteger", _decimal_call(["int"]), policy=PROGRAM, returns="BigInteger"),
    instance("BigDecimal", "doubleValue", _decimal_call(["float"]), policy=PROGRAM, returns="double"),
    instance("BigDecimal", "toString", _decimal_call(["str"]), policy=PROGRAM, returns="String"),
    instance("BigDecimal", "toPlainString", _decimal_plain, policy=PROGRAM, returns="String"),
    # -- programs' instance calls whose receiver the program analysis knows (any receiver's static type)
    instance("*", ("reversed", *THEN_COMPARING), _comparator_key, policy=PROGRAM),
    instance("*", ("orElseThrow", "getAsInt", "getAsLong", "getAsDouble", "get"), _optional_value, policy=PROGRAM),
    instance(_OPTIONALS, ("isPresent", "isEmpty"), _optional_held, policy=PROGRAM, returns="boolean"),
    instance(_OPTIONALS, "orElse", _optional_held, policy=PROGRAM),
    instance(
        "*", ("nextToken", "nextElement", "hasMoreTokens", "hasMoreElements", "countTokens"), _tokenizer, policy=PROGRAM
    ),
    instance("*", ("add", "toString", "length"), _joiner, policy=PROGRAM),
    instance("*", "orElse", _optional_or_else, policy=PROGRAM),
    instance("*", "forEach", _for_each, policy=PROGRAM),
    instance("*", tuple(_NAV_CMP), _nav_compare, policy=PROGRAM),
    instance("*", ("firstEntry", "lastEntry"), _nav_entry, policy=PROGRAM),
    instance("*", ("pollFirst", "pollLast"), _nav_poll, policy=PROGRAM),
    instance("*", ("headSet", "tailSet"), _nav_range, policy=PROGRAM),
    instance("*", "split", _java_split, policy=PROGRAM),
    instance("*", tuple(_BIG_ARITY), _big_op, policy=PROGRAM),
    instance("*", _HEAP_OPS, _min_heap, policy=PROGRAM),
    instance("*", _HEAP_OPS, _comparator_heap, policy=PROGRAM),
    instance("*", "addAll", _heap_add_all, policy=PROGRAM),
    instance("*", _HEAP_OPS, _max_heap, policy=PROGRAM),
    instance("*", "sort", _list_sort, policy=PROGRAM),
    instance("*", ("iterator", "listIterator"), _java_iterator, policy=PROGRAM),
    instance("*", "toArray", _to_typed_array, policy=PROGRAM),
    instance("*", "subList", _sub_list, policy=PROGRAM),
    instance("*", ("keySet", "navigableKeySet", "entrySet", "values"), _sorted_view, policy=PROGRAM),
    instance("*", ("firstKey", "first", "lastKey", "last"), _sorted_view, policy=PROGRAM),
    instance("*", "merge", _merge_sum, policy=PROGRAM),
    # -- constructors in programs
    new("StringJoiner", _joiner_new, policy=PROGRAM),
    new("PriorityQueue", _heap_new, policy=PROGRAM),
    new("StringTokenizer", _tokenizer_new, policy=PROGRAM),
    new("Random", _random_imported, policy=PROGRAM),
    # -- constructors of both policies (a Java collection is its Python counterpart)
    new(tuple(sorted(CONCRETE_MAP_TYPES)), _map_new),
    new(tuple(sorted(SET_TYPES)), _set_new),
    new(_LISTS, _deque_new),
    new(_LISTS, _list_new),
    new((*_BUILDERS, "String"), _text_new),
    new(("Integer", "Long", "Double"), _boxed_new),
    new(TUPLE_CLASSES, _tuple_new),
    new("Random", _random_new),
    # -- stream pipelines in programs: sources by the receiver as written, steps and terminals of a stream
    stream(("IntStream", "LongStream"), ("range", "rangeClosed"), _stream_range),
    stream(_STREAMS, "of", _stream_of),
    stream("Arrays", "stream", _arrays_stream_range),
    stream("*", "stream", _collection_stream),
    stream("*", "chars", _string_chars),
    stream("Stream", ("map", "mapToInt", "mapToLong", "mapToDouble", "mapToObj"), _stream_map),
    stream("Stream", ("asLongStream", "asDoubleStream", "boxed", "parallel", "sequential"), _receiver),
    stream("Stream", "filter", _stream_filter),
    stream("Stream", "sorted", _stream_sorted),
    stream("Stream", "distinct", _stream_distinct),
    stream("Stream", "limit", _stream_limit),
    stream("Stream", "skip", _stream_skip),
    stream("Stream", ("sum", "max", "min"), _stream_extreme),
    stream("Stream", "count", _length),
    stream("Stream", "average", _stream_average),
    stream("Stream", ("toArray", "toList"), _listed),
    stream("Stream", ("anyMatch", "allMatch", "noneMatch"), _stream_match),
    stream("Stream", "forEach", _stream_map),
    stream("Stream", "reduce", _stream_reduce),
    stream("Stream", ("findFirst", "findAny"), _stream_first),
    stream("Stream", "collect", _stream_collect),
)


def _index(rules: Sequence[Rule]) -> dict[tuple[str, str, str], tuple[Rule, ...]]:
    """(kind, receiver, member) -> its rows, in the order written."""
    table: dict[tuple[str, str, str], list[Rule]] = {}
    for rule in rules:
        for cls in rule.receiver:
            for member in rule.member:
                table.setdefault((rule.kind, cls, member), []).append(rule)
    return {key: tuple(rows) for key, rows in table.items()}


_ROWS = _index(RULES)
_RETURNS = {(cls, member): r.returns for r in RULES if r.returns for cls in r.receiver for member in r.member}
_TYPED = frozenset(member for _, member in _RETURNS)  # ask type_of only for these
_OWN = {  # (policy, kind) -> the members that have rows of that policy's own
    (policy, kind): frozenset(m for r in RULES if r.policy is policy and r.kind == kind and r.emit for m in r.member)
    for policy in {r.policy for r in RULES if r.policy is not None}
    for kind in (STATIC, INSTANCE, NEW, STREAM)
}


def ask(tr: Emitting, call: Call, kind: str, keys: Sequence[tuple[str, str]], policy: Policy | None) -> Tokens | None:
    """The first row of ``kind`` and ``policy`` (None: the rows both policies share) that takes ``call``,
    asking the rows of each (receiver, member) of ``keys`` in turn; None when none does."""
    where = STATEMENT if call.statement else EXPRESSION
    for cls, member in keys:
        for rule in _ROWS.get((kind, cls, member), ()):
            if rule.emit is not None and rule.policy is policy and rule.where in (where, ANYWHERE):
                out = rule.emit(tr, call)
                if out is not None:
                    return out
    return None


def own_members(policy: Policy, kind: str) -> frozenset[str]:
    """The members that have rows of ``kind`` which are ``policy``'s own (``policy=PROGRAM``)."""
    return _OWN.get((policy, kind), frozenset())


def class_of(java_type: str) -> str:
    """``java . util . function . BinaryOperator<>`` -> ``BinaryOperator``."""
    return java_type.split("<", 1)[0].rsplit(".", 1)[-1].strip()


def emit_constant(policy: Policy, receiver: str, member: str) -> Tokens | None:
    """A library class's static field (``BigDecimal . ONE``) under ``policy``, or None."""
    rows = [r for r in _ROWS.get((FIELD, receiver, member), ()) if r.policy is None or r.policy is policy]
    return list(rows[0].constant) if rows else None


def returns(tr: Emitting, obj: Node | None, member: str) -> str:
    """The Java type the table gives ``obj . member ( ... )`` ("" when it says nothing)."""
    if obj is None or member not in _TYPED:
        return ""
    return _RETURNS.get((tr.text(obj), member)) or _RETURNS.get((class_of(tr.type_of(obj)), member), "")


def two_policy_apis() -> list[tuple[str, str]]:
    """The APIs with a shared row and a program's own row (they differ), static calls and instance methods."""
    policies: dict[tuple[str, str, str], set[bool]] = {}
    for (kind, cls, member), rows in _ROWS.items():
        if kind in (STATIC, INSTANCE):
            policies.setdefault((kind, cls, member), set()).update(r.policy is None for r in rows if r.emit)
    return sorted({(cls, member) for (_, cls, member), found in policies.items() if len(found) == 2})


def support_lines(used: set[str]) -> list[tuple[int, Tokens]]:
    """The support classes named in ``used`` and those they need, as (level, tokens) lines, dependencies first."""
    return carried.lines_by_name(_SUPPORT_UNITS, used & SUPPORT_CLASSES.keys())
