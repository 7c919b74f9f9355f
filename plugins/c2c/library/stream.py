"""java.util.stream in programs (a pipeline as lists), its Collectors, and Optional (its value or None)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from plugins.c2c.library.rows import (
    ADD,
    EXPRESSION,
    Call,
    Emitting,
    Rule,
    bracketed,
    call_arguments,
    call_parts,
    instance,
    length,
    listed,
    static,
    stream,
    the_receiver,
)
from plugins.c2c.state import PROGRAM
from plugins.c2c.syntax import Tokens, base_type

if TYPE_CHECKING:
    from tree_sitter import Node


def _stream_reduction(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays . stream ( a ) . sum ( )``: the stream is the list itself."""
    if c.args or not _is_arrays_stream(c.obj):
        return None
    return ["len" if c.name == "count" else c.name, "(", *c.target(tr), ")"]


def _is_arrays_stream(node: Node | None) -> bool:
    """Is ``node`` a call ``Arrays . stream ( a )`` (translated to the list itself)?"""
    if node is None or node.type != "method_invocation":
        return False
    obj, name = node.child_by_field_name("object"), node.child_by_field_name("name")
    return obj is not None and name is not None and obj.text == b"Arrays" and name.text == b"stream"


# -- streams (PROGRAM): a pipeline as lists -------------------------------------------------------------
# sources by the receiver's name (`IntStream . range`, `*`: any receiver's `stream ( )`); the steps and
# terminals under "Stream", asked when the receiver is itself a stream (``Translator.is_stream``)
def _stream_range(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    end = c.arg(tr, 1) if c.name == "range" else [*bracketed(c.args[1], c.arg(tr, 1), ADD, left=True), "+", "1"]
    return ["list", "(", "range", "(", *c.arg(tr, 0), ",", *end, ")", ")"]


def _stream_of(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) == 1 and tr.type_of(c.args[0]).endswith("[]"):
        return ["list", "(", *c.arg(tr, 0), ")"]
    return ["[", *c.joined(tr), "]"]


def _arrays_stream_range(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.arg(tr, 0), "[", *c.arg(tr, 1), ":", *c.arg(tr, 2), "]"] if len(c.args) == 3 else None


def _collection_stream(tr: Emitting, c: Call) -> Tokens | None:
    if c.args or tr.text(c.obj) in ("Arrays",):
        return None
    return ["list", "(", *c.target(tr), ")"]


def _string_chars(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["list", "(", "map", "(", "ord", ",", *c.target(tr), ")", ")"]


def _stream_map(tr: Emitting, c: Call) -> Tokens | None:
    return ["list", "(", "map", "(", *c.arg(tr, 0), ",", *c.target(tr), ")", ")"] if len(c.args) == 1 else None


def _stream_filter(tr: Emitting, c: Call) -> Tokens | None:
    return ["list", "(", "filter", "(", *c.arg(tr, 0), ",", *c.target(tr), ")", ")"] if len(c.args) == 1 else None


def _stream_sorted(tr: Emitting, c: Call) -> Tokens | None:
    if not c.args:
        return ["sorted", "(", *c.target(tr), ")"]
    return ["sorted", "(", *c.target(tr), ",", *tr.sort_order(c.args[0]), ")"] if len(c.args) == 1 else None


def _stream_distinct(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["list", "(", "dict", ".", "fromkeys", "(", *c.target(tr), ")", ")"]


def _stream_limit(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), "[", ":", *c.arg(tr, 0), "]"] if len(c.args) == 1 else None


def _stream_skip(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), "[", *c.arg(tr, 0), ":", "]"] if len(c.args) == 1 else None


def _stream_extreme(tr: Emitting, c: Call) -> Tokens | None:
    if not c.args:
        return [c.name, "(", *c.target(tr), ")"]
    if len(c.args) == 1 and c.name in ("max", "min"):
        return [c.name, "(", *c.target(tr), ",", *tr.sort_order(c.args[0]), ")"]
    return None


def _stream_average(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["(", "sum", "(", *c.target(tr), ")", "/", "len", "(", *c.target(tr), ")", ")"]


def _stream_match(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    test = ["any" if c.name != "allMatch" else "all", "(", "map", "(", *c.arg(tr, 0), ",", *c.target(tr), ")", ")"]
    return ["not", *test] if c.name == "noneMatch" else test


def _stream_reduce(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) == 1:  # an Optional: the value (``get`` / ``orElse`` below read it)
        return ["functools", ".", "reduce", "(", *c.arg(tr, 0), ",", *c.target(tr), ")"]
    if len(c.args) != 2:
        return None
    return ["functools", ".", "reduce", "(", *c.arg(tr, 1), ",", *c.target(tr), ",", *c.arg(tr, 0), ")"]


def _stream_first(tr: Emitting, c: Call) -> Tokens | None:
    """``findFirst ( )`` / ``findAny ( )``: an Optional is its value or None (``Optional`` rows below)."""
    return None if c.args else ["next", "(", "iter", "(", *c.target(tr), ")", ",", "None", ")"]


def _stream_collect(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    col = c.args[0]
    cn = call_parts(tr, col)[1] if col.type == "method_invocation" else ""
    cargs = call_arguments(col.child_by_field_name("arguments")) if col.type == "method_invocation" else []
    if cn in ("toList", "toCollection"):
        return ["list", "(", *c.target(tr), ")"]
    if cn == "toSet":
        return ["set", "(", *c.target(tr), ")"]
    if cn == "joining":
        sep = tr.expr(cargs[0]) if cargs else ['""']
        if len(cargs) == 3:  # a prefix and a suffix
            return [*tr.expr(cargs[1]), "+", *sep, ".", "join", "(", *c.target(tr), ")", "+", *tr.expr(cargs[2])]
        return [*sep, ".", "join", "(", *c.target(tr), ")"]
    if cn == "counting" and not cargs:
        return ["len", "(", *c.target(tr), ")"]
    if cn in ("summingInt", "summingLong", "summingDouble") and len(cargs) == 1:
        return ["sum", "(", "map", "(", *tr.expr(cargs[0]), ",", *c.target(tr), ")", ")"]
    if cn in ("averagingInt", "averagingLong", "averagingDouble") and len(cargs) == 1:
        total = ["sum", "(", "map", "(", *tr.expr(cargs[0]), ",", *c.target(tr), ")", ")"]
        size = ["len", "(", *c.target(tr), ")"]
        return ["(", *total, "/", *size, "if", *size, "else", "0.0", ")"]
    if cn == "partitioningBy" and len(cargs) == 1:  # {false: [...], true: [...]}, both keys always there
        return ["partition_by", "(", *c.target(tr), ",", *tr.expr(cargs[0]), ")"]
    if cn == "groupingBy" and cargs:  # a dict of lists, or of counts with `counting ( )` (support functions)
        counts = len(cargs) == 2 and tr.text(cargs[1]).replace(" ", "").endswith("counting()")
        if len(cargs) == 1 or counts:
            return ["group_by", "(", *c.target(tr), ",", *tr.expr(cargs[0]), *([",", "True"] if counts else []), ")"]
    if cn == "toMap" and len(cargs) == 2:
        return ["to_map", "(", *c.target(tr), ",", *tr.expr(cargs[0]), ",", *tr.expr(cargs[1]), ")"]
    return None


def _optional_value(tr: Emitting, c: Call) -> Tokens | None:
    """``OptionalInt . getAsInt ( )`` / ``orElseThrow``: the value itself (a reduction gave it)."""
    if c.name == "get" and c.args:
        return None
    if c.name == "get" and not (_optional_terminal(tr, c.obj) or base_type(tr.type_of(c.obj)) in _OPTIONALS):
        return None  # a list's or a map's `get`
    return c.target(tr)


_OPTIONALS = ("Optional", "OptionalInt", "OptionalLong", "OptionalDouble")

_OPTIONAL_TERMINALS = ("max", "min", "findFirst", "findAny", "reduce", "average")


def _optional_terminal(tr: Emitting, node: Node | None) -> bool:
    """Is ``node`` a stream's terminal that gives an Optional (``max ( )``, ``findFirst ( )``, ``reduce ( f )``)?"""
    if node is None or node.type != "method_invocation":
        return False
    source, terminal, targs = call_parts(tr, node)
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
    o = c.target(tr)
    if c.name in ("isPresent", "isEmpty") and not c.args:
        return ["(", *o, "is", *(["not"] if c.name == "isPresent" else []), "None", ")"]
    if c.name == "orElse" and len(c.args) == 1 and c.obj.type == "identifier":
        return ["(", *c.arg(tr, 0), "if", *o, "is", "None", "else", *o, ")"]
    if c.name == "orElse" and len(c.args) == 1:  # evaluated once
        test = ["lambda", "v", ":", *c.arg(tr, 0), "if", "v", "is", "None", "else", "v"]
        return ["(", *test, ")", "(", *o, ")"]
    return None


def _optional_made(tr: Emitting, c: Call) -> Tokens | None:
    """``Optional . of ( x )`` / ``ofNullable ( x )``: x; ``Optional . empty ( )``: None."""
    if c.name == "empty" and not c.args:
        return ["None"]
    return c.arg(tr, 0) if len(c.args) == 1 and c.name in ("of", "ofNullable") else None


def _optional_or_else(tr: Emitting, c: Call) -> Tokens | None:
    """``s . max ( ) . orElse ( d )``: an empty stream's default (``default =``, or a test of the items)."""
    if len(c.args) != 1 or c.obj.type != "method_invocation":
        return None
    source, terminal, targs = call_parts(tr, c.obj)
    if len(targs) > (terminal == "reduce") or not tr.is_stream(source):
        return None
    if terminal in ("max", "min"):
        return [terminal, "(", *tr.expr(source), ",", "default", "=", *c.arg(tr, 0), ")"]
    if terminal in ("findFirst", "findAny"):
        return ["next", "(", "iter", "(", *tr.expr(source), ")", ",", *c.arg(tr, 0), ")"]
    if terminal == "average" or (terminal == "reduce" and len(targs) == 1):
        items = tr.expr(source)
        return ["(", *c.target(tr), "if", "len", "(", *items, ")", "else", *c.arg(tr, 0), ")"]
    return None


_STREAMS = ("IntStream", "LongStream", "Stream", "DoubleStream")


RULES: tuple[Rule, ...] = (
    # -- Optional (its value or None) and an array stream's reductions
    static(_OPTIONALS, ("of", "ofNullable", "empty"), _optional_made, policy=PROGRAM),
    instance("*", ("sum", "max", "min", "count"), _stream_reduction, where=EXPRESSION),
    instance("*", ("getAsInt", "getAsLong", "getAsDouble"), the_receiver, where=EXPRESSION),
    instance("*", ("orElseThrow", "getAsInt", "getAsLong", "getAsDouble", "get"), _optional_value, policy=PROGRAM),
    instance(_OPTIONALS, ("isPresent", "isEmpty"), _optional_held, policy=PROGRAM, returns="boolean"),
    instance(_OPTIONALS, "orElse", _optional_held, policy=PROGRAM),
    instance("*", "orElse", _optional_or_else, policy=PROGRAM),
    # -- stream pipelines in programs: sources by the receiver as written, steps and terminals of a stream
    stream(("IntStream", "LongStream"), ("range", "rangeClosed"), _stream_range),
    stream(_STREAMS, "of", _stream_of),
    stream("Arrays", "stream", _arrays_stream_range),
    stream("*", "stream", _collection_stream),
    stream("*", "chars", _string_chars),
    stream("Stream", ("map", "mapToInt", "mapToLong", "mapToDouble", "mapToObj"), _stream_map),
    stream("Stream", ("asLongStream", "asDoubleStream", "boxed", "parallel", "sequential"), the_receiver),
    stream("Stream", "filter", _stream_filter),
    stream("Stream", "sorted", _stream_sorted),
    stream("Stream", "distinct", _stream_distinct),
    stream("Stream", "limit", _stream_limit),
    stream("Stream", "skip", _stream_skip),
    stream("Stream", ("sum", "max", "min"), _stream_extreme),
    stream("Stream", "count", length),
    stream("Stream", "average", _stream_average),
    stream("Stream", ("toArray", "toList"), listed),
    stream("Stream", ("anyMatch", "allMatch", "noneMatch"), _stream_match),
    stream("Stream", "forEach", _stream_map),
    stream("Stream", "reduce", _stream_reduce),
    stream("Stream", ("findFirst", "findAny"), _stream_first),
    stream("Stream", "collect", _stream_collect),
)
