"""The library table's row (``Rule``), the call an emitter sees (``Call``), what it may ask of the
translator (``Emitting``), and the helpers the emitters of every Java package share."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from plugins.c2c.java_types import INT_TYPES
from plugins.c2c.state import PROGRAM, Policy
from plugins.c2c.syntax import Tokens, base_type

if TYPE_CHECKING:
    from tree_sitter import Node

    from plugins.c2c.state import ProgramInfo


# where the call stands (a row's ``where``, a call's ``context``): an expression, a whole statement, or either
EXPRESSION, STATEMENT, ANYWHERE = "expression", "statement", "anywhere"
# the contexts whose idioms have rows of their own, asked only there (never by ANYWHERE): the operand of
# ``!`` (``! m . containsKey ( k )`` is ``k not in m``), what a for-each walks (``for ( K k : m . keySet ( ) )``),
# a while loop's condition (``while ( it . hasNext ( ) ) { T x = it . next ( ) ; ... }`` is ``for x in it :``)
NEGATED, FOR_EACH, LOOP_HEADER = "negated", "for_each", "loop_header"
CONTEXTS = (EXPRESSION, STATEMENT, NEGATED, FOR_EACH, LOOP_HEADER)


@dataclass(frozen=True, slots=True)
class Loop:
    """The while loop whose condition a ``LOOP_HEADER`` row is asked about (``Call.loop``): its body as
    written, and the one way to write the loop in its place. The row decides everything else: which
    headers, which bodies and how much of them it takes, the loop's Python header and what it types."""

    body: Node | None  # the loop's body as written: a block, or one statement
    # ``write(header, scope, rest)``: writes ``header`` at the loop's level, then translates the statements
    # ``rest`` one level deeper inside a new scope typing ``scope``'s names (``pass`` when they write
    # nothing), with no update to run before a ``continue``; returns ``header``, what the row returns
    write: Callable[[Tokens, Mapping[str, str], Sequence[Node]], Tokens]


@dataclass(frozen=True, slots=True)
class Call:
    """One call ``Receiver . member ( args )`` as an emitter sees it.

    Every emitter takes one form: the raw nodes (``obj``, ``args``: to read their text, type or shape) and
    their translations through ``arg``, ``joined`` and ``target``, each translated at most once per call
    (the resolver translates the shared rows' arguments before asking them, a program's own rows
    translate what they use when they use it). An emitter never calls ``tr.expr`` on ``args`` or ``obj``
    itself: translating twice registers twice what the translation registers (an ``x ++``'s statement, a
    hoisted lambda)."""

    node: Node
    obj: Node
    name: str
    args: Sequence[Node]
    context: str = EXPRESSION  # where the call stands: the rows whose ``where`` is this context apply
    receiver: str = ""  # the receiver's static type (``type_of``; "?" unknown); a constructor's class
    loop: Loop | None = None  # LOOP_HEADER: the loop whose condition the call is
    # the translations made so far (argument index, or -1 for the receiver); a fresh call (``replace``) has none
    _done: dict[int, Tokens] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def statement(self) -> bool:
        """Is the call a whole statement (rows ``where=STATEMENT`` apply)?"""
        return self.context == STATEMENT

    def arg(self, tr: Emitting, i: int) -> Tokens:
        """Argument ``i`` translated (once)."""
        if i < 0:
            i += len(self.args)
        if i not in self._done:
            self._done[i] = tr.expr(self.args[i])
        return self._done[i]

    def joined(self, tr: Emitting) -> Tokens:
        """The arguments translated (once), joined with commas."""
        return [t for i in range(len(self.args)) for t in ([","] if i else []) + self.arg(tr, i)]

    def target(self, tr: Emitting) -> Tokens:
        """The receiver translated (once)."""
        if -1 not in self._done:
            self._done[-1] = tr.expr(self.obj)
        return self._done[-1]

    def fresh(self) -> Call:
        """The call with nothing translated yet (for a step whose translations a rewind forgets)."""
        return replace(self)

    def with_args(self, tr: Emitting) -> Call:
        """The call with its arguments translated now, in order (what the shared rows are asked with)."""
        c = self.fresh()
        for i in range(len(c.args)):
            c.arg(tr, i)
        return c

    def with_type(self, receiver: str) -> Call:
        """The call with its receiver's static type (what it has translated kept)."""
        c = replace(self, receiver=receiver)
        c._done.update(self._done)
        return c

    def with_receiver(self, tr: Emitting) -> Call:
        """The call with its receiver translated now."""
        self.target(tr)
        return self


class EmitterState(Protocol):
    """What of the translation's state (``TranslationState``, 32 fields) an emit function reads or writes:
    the source and its analysis, and the few records the library's idioms keep."""

    @property
    def src(self) -> bytes: ...  # the Java source (``undeclared_class``, a pair's stored fields)

    @property
    def prog(self) -> ProgramInfo: ...  # the program's analysis: heaps, deques, sorted and hash maps

    @property
    def declared(self) -> set[str]: ...  # every name the source declares

    pre: list[Tokens]  # statements before the one being written (a PriorityQueue's comparator key)
    joiners: dict[str, list[Tokens]]  # StringJoiner variables: separator, affixes
    map_defaults: dict[str, Tokens]  # map variables whose ``get`` has a default
    threads: set[str]  # Thread variables whose runnable ran in place
    stacks_only: bool | None  # every Deque of the source is used only as a stack (asked once)


class Emitting(Protocol):
    """What an emit function may ask of the translator (not the whole ``Translator``): translate a node,
    read its text and static type (a local's declared one), translate arguments, the policy and what of
    the translation's state the library keeps (``EmitterState``); and the translations the library shares
    with the statements (a value as Java's text, a comparator as ``sort``'s arguments, a ``printf``
    format, a stream, a BigInteger, a comparator chain, what the program analysis makes of a receiver, a
    Runnable's run as a call)."""

    @property
    def policy(self) -> Policy: ...

    @property
    def state(self) -> EmitterState: ...

    def expr(self, node: Node | None) -> Tokens: ...

    def text(self, node: Node | None) -> str: ...

    def type_of(self, node: Node | None) -> str: ...

    def lookup(self, name: str) -> str: ...

    def type_name(self, node: Node | None) -> str: ...  # a declaration's type node as its scope records it

    def arg_tokens(self, args: Sequence[Node]) -> Tokens: ...

    def as_str(self, node: Node) -> Tokens: ...

    def sort_order(self, cmp: Node) -> Tokens: ...

    def format_expr(self, args: list[Node]) -> Tokens: ...

    def is_stream(self, node: Node | None) -> bool: ...

    def is_big(self, node: Node | None) -> bool: ...

    def comparator_chain(self, cmp: Node) -> tuple[Tokens, bool] | None: ...

    def receiver_kind(self, obj: Node) -> str: ...

    def runnable_call(self, r: Node) -> Tokens | None: ...


Emit = Callable[[Emitting, Call], "Tokens | None"]


# what a row translates: a static call (``Math . round``), an instance method (by the receiver's static
# type), a constructor (``new BigDecimal ( s )``), a stream pipeline's call, a static field (``BigDecimal . ONE``)
STATIC, INSTANCE, NEW, STREAM, FIELD = "static", "instance", "new", "stream", "field"


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


# -- what the emitters of several Java packages share ------------------------------------------------
def function_call(func: Sequence[str], args: Tokens) -> Tokens:
    """``func ( args )``."""
    return [*func, "(", *args, ")"]


def call_arguments(node: Node | None) -> list[Node]:
    """An argument list's arguments (comments left out)."""
    return [c for c in node.named_children if c.type not in ("line_comment", "block_comment")] if node else []


def call_parts(tr: Emitting, node: Node) -> tuple[Node | None, str, list[Node]]:
    """A method invocation's receiver, name and arguments."""
    name = tr.text(node.child_by_field_name("name"))
    return node.child_by_field_name("object"), name, call_arguments(node.child_by_field_name("arguments"))


def undeclared_class(src: bytes, name: str) -> bool:
    """Is ``name`` a class the source uses without declaring it (a helper class of its file, java.util)?"""
    return f"class {name} ".encode() not in src


def scalar_local(tr: Emitting, name: str) -> bool:
    """Is ``name`` a local of a number, char, string or boolean type (not the stdin / stdout object it shadows)?"""
    typ = tr.lookup(name)
    return typ in INT_TYPES or typ in ("String", "char", "double", "boolean")


# how tightly a Java expression's translation binds, on Python's scale (higher binds tighter): a name, a
# call, an element, parenthesized (PRIMARY); unary; then the binary operators; a ternary or a lambda loosest
PRIMARY, UNARY, MULTIPLY, ADD, SHIFT, COMPARE = 9, 7, 6, 5, 4, 0
_PRIMARIES = ("identifier", "method_invocation", "parenthesized_expression", "array_access", "field_access", "this")
_BINARY = {
    **dict.fromkeys(("*", "/", "%"), MULTIPLY),
    **dict.fromkeys(("+", "-"), ADD),
    **dict.fromkeys(("<<", ">>", ">>>"), SHIFT),
    "&": 3,
    "^": 2,
    "|": 1,
    **dict.fromkeys(("<", ">", "<=", ">=", "==", "!="), COMPARE),
    "&&": -1,  # and
    "||": -2,  # or
}


def _binds(node: Node, out: Tokens) -> int:
    if out[:1] == ["-"] and node.type != "binary_expression":  # `Integer.MIN_VALUE` is `- 2147483648`
        return UNARY
    if node.type in _PRIMARIES or node.type.endswith("literal"):
        return PRIMARY
    if node.type == "binary_expression":
        return _BINARY.get((node.child_by_field_name("operator") or node).type, -3)
    if node.type == "unary_expression":
        return -1 if (node.child_by_field_name("operator") or node).type == "!" else UNARY
    if node.type == "cast_expression":
        return UNARY
    if node.type == "instanceof_expression":
        return COMPARE
    return -3  # a ternary, a lambda, an assignment, anything else


def bracketed(node: Node, out: Tokens, beside: int = PRIMARY, *, left: bool = False) -> Tokens:
    """``out`` (``node`` translated) ready to stand as an operand of an operator that binds ``beside``
    (PRIMARY: ``x . attr``, ``x [ i ]``), ``left`` of it or right: in parentheses where it binds less
    tightly, or as tightly on the right (``Math.floorMod(a - i, 7)`` is ``( ( a - i ) % 7 )``, not
    ``( a - i % 7 )``; comparisons chain, so a comparison beside one is bracketed on either side)."""
    binds = _binds(node, out)
    loose = binds < beside or (binds == beside and beside < PRIMARY and (not left or beside == COMPARE))
    return ["(", *out, ")"] if len(out) > 1 and loose else list(out)


def operand(node: Node, out: Tokens) -> Tokens:
    """``out`` (``node`` translated), in parentheses unless it is one token, a call or parenthesized already."""
    return out if len(out) == 1 or node.type in ("method_invocation", "parenthesized_expression") else ["(", *out, ")"]


REVERSED = ["[", ":", ":", "-", "1", "]"]


def receiver_base(c: Call) -> str:
    """The receiver's static type without its type arguments."""
    return base_type(c.receiver)


def the_receiver(tr: Emitting, c: Call) -> Tokens | None:
    """The receiver itself (``x . intValue ( )``, a stream's ``boxed ( )``)."""
    return None if c.args else list(c.target(tr))


def length(tr: Emitting, c: Call) -> Tokens | None:
    """``len ( receiver )`` (a String's ``length``, a collection's ``size``, a stream's ``count``)."""
    return None if c.args else ["len", "(", *c.target(tr), ")"]


def listed(tr: Emitting, c: Call) -> Tokens | None:
    """``list ( receiver )`` (``toArray``, ``toCharArray``, a stream's ``toList``)."""
    return None if c.args else ["list", "(", *c.target(tr), ")"]


def class_of(java_type: str) -> str:
    """``java . util . function . BinaryOperator<>`` -> ``BinaryOperator``."""
    return java_type.split("<", 1)[0].rsplit(".", 1)[-1].strip()
