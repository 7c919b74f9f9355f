"""java.math: BigInteger (Python's int) and BigDecimal (Python's ``decimal.Decimal``: exact sums and
products, Java's scales)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from plugins.c2c.library.rows import Call, Emit, Emitting, Rule, constant, instance, new, operand, static
from plugins.c2c.state import PROGRAM
from plugins.c2c.syntax import Tokens

if TYPE_CHECKING:
    from tree_sitter import Node


def _big_value_of(tr: Emitting, c: Call) -> Tokens | None:
    return c.arg(tr, 0) if len(c.args) == 1 else None  # BigInteger is Python's int


# -- java.math.BigDecimal: Python's decimal.Decimal (exact sums and products, Java's scales) ---------
_DECIMAL = ["decimal", ".", "Decimal"]

_DECIMAL_OPS = {"add": "+", "subtract": "-", "multiply": "*", "remainder": "%"}

_ROUNDING = ("HALF_UP", "HALF_DOWN", "HALF_EVEN", "UP", "DOWN", "FLOOR", "CEILING")


def _decimal_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new BigDecimal ( s | n | x )``: a double's exact binary value, as Java's constructor takes it."""
    return [*_DECIMAL, "(", *c.arg(tr, 0), ")"] if len(c.args) == 1 else None


def _decimal_value_of(tr: Emitting, c: Call) -> Tokens | None:
    """``BigDecimal.valueOf(x)``: a double by its shortest decimal text (Double.toString), as Java does."""
    if len(c.args) == 1:
        return [*_DECIMAL, "(", "str", "(", *c.arg(tr, 0), ")", ")"]
    if len(c.args) == 2:  # (unscaled, scale)
        return [*_DECIMAL, "(", *c.arg(tr, 0), ")", ".", "scaleb", "(", "-", *operand(c.args[1], c.arg(tr, 1)), ")"]
    return None


def _rounding(tr: Emitting, node: Node) -> Tokens:
    mode = tr.text(node).replace(" ", "").rsplit(".", 1)[-1].removeprefix("ROUND_")
    return ["decimal", ".", "ROUND_" + mode] if mode in _ROUNDING else tr.expr(node)


def _quantum(tr: Emitting, scale: Node) -> Tokens:
    return [*_DECIMAL, "(", "1", ")", ".", "scaleb", "(", "-", *operand(scale, tr.expr(scale)), ")"]


def _decimal_set_scale(tr: Emitting, c: Call) -> Tokens | None:
    if not 1 <= len(c.args) <= 2:
        return None
    mode = [",", "rounding", "=", *_rounding(tr, c.args[1])] if len(c.args) == 2 else []
    return [*operand(c.obj, c.target(tr)), ".", "quantize", "(", *_quantum(tr, c.args[0]), *mode, ")"]


def _decimal_divide(tr: Emitting, c: Call) -> Tokens | None:
    if not c.args:
        return None
    ratio = ["(", *operand(c.obj, c.target(tr)), "/", *operand(c.args[0], c.arg(tr, 0)), ")"]
    if len(c.args) == 1:
        return ratio
    if len(c.args) == 3:  # (divisor, scale, rounding)
        mode = _rounding(tr, c.args[2])
        return [*ratio, ".", "quantize", "(", *_quantum(tr, c.args[1]), ",", "rounding", "=", *mode, ")"]
    if len(c.args) == 2 and "ROUND" in tr.text(c.args[1]).upper():  # (divisor, rounding): the receiver's scale
        exponent = [*operand(c.obj, c.target(tr)), ".", "as_tuple", "(", ")", ".", "exponent"]
        scale = [*_DECIMAL, "(", "1", ")", ".", "scaleb", "(", *exponent, ")"]
        return [*ratio, ".", "quantize", "(", *scale, ",", "rounding", "=", *_rounding(tr, c.args[1]), ")"]
    return ratio


def _decimal_binary(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return ["(", *operand(c.obj, c.target(tr)), _DECIMAL_OPS[c.name], *operand(c.args[0], c.arg(tr, 0)), ")"]


def _decimal_call(func: Sequence[str]) -> Emit:
    def emit(tr: Emitting, c: Call) -> Tokens | None:
        return None if c.args else [*func, "(", *c.target(tr), ")"]

    return emit


def _decimal_pair(tr: Emitting, c: Call) -> Tokens | None:
    return [c.name, "(", *c.target(tr), ",", *c.arg(tr, 0), ")"] if len(c.args) == 1 else None


def _decimal_pow(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return ["(", *operand(c.obj, c.target(tr)), "**", *operand(c.args[0], c.arg(tr, 0)), ")"]


def _decimal_negate(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["(", "-", *operand(c.obj, c.target(tr)), ")"]


def _decimal_compare(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    a, b = operand(c.obj, c.target(tr)), operand(c.args[0], c.arg(tr, 0))
    return ["(", "(", *a, ">", *b, ")", "-", "(", *a, "<", *b, ")", ")"]


def _decimal_signum(tr: Emitting, c: Call) -> Tokens | None:
    if c.args:
        return None
    a = operand(c.obj, c.target(tr))
    return ["(", "(", *a, ">", "0", ")", "-", "(", *a, "<", "0", ")", ")"]


def _decimal_scale(tr: Emitting, c: Call) -> Tokens | None:
    if c.args:
        return None
    return ["(", "-", *operand(c.obj, c.target(tr)), ".", "as_tuple", "(", ")", ".", "exponent", ")"]


def _decimal_method(method: str) -> Emit:
    def emit(tr: Emitting, c: Call) -> Tokens | None:
        return None if c.args else [*operand(c.obj, c.target(tr)), ".", method, "(", ")"]

    return emit


def _decimal_plain(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["format", "(", *c.target(tr), ",", '"f"', ")"]


def _decimal_constant(value: str) -> tuple[str, ...]:
    return ("decimal", ".", "Decimal", "(", value, ")")


# -- java.math.BigInteger: Python's int (its methods: ``_big_op``, for a receiver ``is_big`` knows) ------------
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


def _big_op(tr: Emitting, c: Call) -> Tokens | None:
    """BigInteger is Python's int: ``a . add ( b )`` -> ``a + b`` and so on."""
    if len(c.args) != _BIG_ARITY[c.name] or not tr.is_big(c.obj):
        return None
    o = c.target(tr)
    if c.obj.type not in ("identifier", "field_access", "parenthesized_expression", "array_access"):
        o = ["(", *o, ")"]
    a = [x if len(x) == 1 else ["(", *x, ")"] for x in (c.arg(tr, i) for i in range(len(c.args)))]
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


def _big_new(tr: Emitting, c: Call) -> Tokens | None:
    return ["int", "(", *c.arg(tr, 0), ")"] if len(c.args) == 1 else None


_BIG_CONSTANTS = (("ZERO", "0"), ("ONE", "1"), ("TWO", "2"), ("TEN", "10"))


RULES: tuple[Rule, ...] = (
    # -- java.math.BigInteger in programs: a Python int (its methods: ``_big_op``, last)
    static("BigInteger", "valueOf", _big_value_of, policy=PROGRAM),
    new("BigInteger", _big_new, policy=PROGRAM),
    *(constant("BigInteger", name, (value,)) for name, value in _BIG_CONSTANTS),  # a Python int
    # -- java.math.BigDecimal
    new("BigDecimal", _decimal_new, policy=PROGRAM),
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
    instance("*", tuple(_BIG_ARITY), _big_op, policy=PROGRAM),
)
