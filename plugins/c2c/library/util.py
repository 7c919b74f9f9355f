"""The rest of java.util: Objects, Random, java.util.function's functional objects, Comparator chains, and
GeeksforGeeks' pairs (a tuple)."""

from __future__ import annotations

import re

from plugins.c2c.library.rows import (
    COMPARE,
    EXPRESSION,
    Call,
    Emitting,
    Rule,
    bracketed,
    instance,
    new,
    operand,
    receiver_base,
    static,
    undeclared_class,
)
from plugins.c2c.state import PROGRAM
from plugins.c2c.syntax import Tokens


def _undeclared_class(tr: Emitting, name: str) -> bool:
    return undeclared_class(tr.state.src, name)


def _objects_hash(tr: Emitting, c: Call) -> Tokens | None:
    return ["hash", "(", "(", *c.joined(tr), *([","] if len(c.args) == 1 else []), ")", ")"]


def _objects_equals(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    a, b = (bracketed(x, c.arg(tr, i), COMPARE) for i, x in enumerate(c.args))
    return ["(", *a, "==", *b, ")"]


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
    return [*operand(c.obj, c.target(tr)), "(", *c.joined(tr), ")"]


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


def _random_boolean(tr: Emitting, c: Call) -> Tokens | None:
    if c.args or not _undeclared_class(tr, receiver_base(c)):
        return None
    return ["(", *c.target(tr), ".", "random", "(", ")", "<", "0.5", ")"]  # random() alone is a float, always true


def _random_draw(tr: Emitting, c: Call) -> Tokens | None:
    if not _undeclared_class(tr, receiver_base(c)):
        return None
    draw = [*c.target(tr), ".", *_RANDOM[c.name][len(c.args) > 0]]
    return [*draw, "(", *c.joined(tr), *(_RANDOM_RANGE[c.name] if not c.args else []), ")"]


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
    if c.args or not _undeclared_class(tr, receiver_base(c)):
        return None
    return [*c.target(tr), "[", _TUPLE_GETTERS[c.name], "]"]


TUPLE_CLASSES = ("Pair", "pair", "Point", "SimpleEntry", "Tuple")  # GeeksforGeeks' pairs from elsewhere in its file

_FIELD_STORE = re.compile(rb"\. ?(first|second|x|y|key|value) ?(=(?!=)|\+=|-=|\*=|/=|\+\+|--)")


def _tuple_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new Pair ( x , y )`` of a class the source does not show: a tuple (a list where a field is stored)."""
    if not _undeclared_class(tr, c.receiver):
        return None
    if _FIELD_STORE.search(tr.state.src):  # `p . first = ...` somewhere: a tuple cannot take it, a list can
        return ["[", *c.joined(tr), "]"]
    return ["(", *c.joined(tr), ")"]


def _random_imported(tr: Emitting, c: Call) -> Tokens | None:
    """A program's ``Random random = new Random ( )``: ``Random`` (``from random import Random``)."""
    if not _undeclared_class(tr, c.receiver) or "random" not in tr.state.declared:
        return None
    return ["Random", "(", *c.joined(tr), ")"]


def _random_new(tr: Emitting, c: Call) -> Tokens | None:
    if not _undeclared_class(tr, c.receiver):
        return None
    return ["random", ".", "Random", "(", *c.joined(tr), ")"]


RULES: tuple[Rule, ...] = (
    # -- java.util.Objects in programs
    static("Objects", "hash", _objects_hash, policy=PROGRAM, returns="int"),
    static("Objects", "equals", _objects_equals, policy=PROGRAM, returns="boolean"),
    # -- GeeksforGeeks' pairs and java.util.Random, both policies
    instance(TUPLE_CLASSES, tuple(_TUPLE_GETTERS), _pair_getter, where=EXPRESSION),
    instance("Random", "nextBoolean", _random_boolean, where=EXPRESSION),
    instance("Random", tuple(_RANDOM), _random_draw, where=EXPRESSION),
    # -- java.util.function: the functional object is called
    *(
        instance(cls, member, _functional_call, policy=PROGRAM, returns=_FUNCTIONAL_RESULTS.get(member, ""))
        for cls, member in _FUNCTIONAL.items()
    ),
    # -- Comparator chains in programs; the constructors
    instance("*", ("reversed", *THEN_COMPARING), _comparator_key, policy=PROGRAM),
    new("Random", _random_imported, policy=PROGRAM),
    new(TUPLE_CLASSES, _tuple_new),
    new("Random", _random_new),
)
