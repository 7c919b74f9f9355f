"""java.lang's calls: Math, the boxed numbers, Character, String (its regex methods too), System and
Object's methods."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from plugins.c2c.library.rows import (
    ADD,
    COMPARE,
    EXPRESSION,
    MULTIPLY,
    STATEMENT,
    Call,
    Emitting,
    Rule,
    bracketed,
    call_arguments,
    function_call,
    instance,
    length,
    listed,
    new,
    operand,
    receiver_base,
    static,
    the_receiver,
)
from plugins.c2c.library.text import builder_field
from plugins.c2c.state import PROGRAM
from plugins.c2c.syntax import Tokens

if TYPE_CHECKING:
    from tree_sitter import Node


# -- java.lang.Math ---------------------------------------------------------------------------------
_MATH_BUILTIN = ("max", "min", "abs", "pow")


def _math_any(tr: Emitting, c: Call) -> Tokens | None:
    return function_call(["math", ".", c.name], c.joined(tr))


def _math_builtin(tr: Emitting, c: Call) -> Tokens | None:
    return function_call([c.name], c.joined(tr))


def _math_cbrt(tr: Emitting, c: Call) -> Tokens | None:
    return ["(", *c.arg(tr, 0), ")", "**", "(", "1", "/", "3", ")"] if c.args else None


def _math_floor_ceil(tr: Emitting, c: Call) -> Tokens | None:
    return function_call(["math", ".", c.name], c.joined(tr)) if c.args else None


def _math_round(tr: Emitting, c: Call) -> Tokens | None:
    return function_call(["round"], c.joined(tr)) if c.args else None


def _math_round_half_up(tr: Emitting, c: Call) -> Tokens | None:
    """Java rounds halves up; Python's ``round`` to even."""
    if len(c.args) != 1:
        return None
    return ["math", ".", "floor", "(", *bracketed(c.args[0], c.arg(tr, 0), ADD, left=True), "+", "0.5", ")"]


def _math_random(tr: Emitting, c: Call) -> Tokens | None:
    return ["random", ".", "random", "(", ")"]


def _math_floor_div_mod(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:  # Python's // and % are floor-based, as floorDiv / floorMod
        return None
    a, b = bracketed(c.args[0], c.arg(tr, 0), MULTIPLY, left=True), bracketed(c.args[1], c.arg(tr, 1), MULTIPLY)
    return ["(", *a, "//" if c.name == "floorDiv" else "%", *b, ")"]


def _math_signum(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    a = bracketed(c.args[0], c.arg(tr, 0), COMPARE)
    return ["float", "(", "(", *a, ">", "0", ")", "-", "(", *a, "<", "0", ")", ")"]


def _math_angle(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return ["math", ".", "radians" if c.name == "toRadians" else "degrees", "(", *c.arg(tr, 0), ")"]


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
    return function_call(["int"], c.joined(tr)) if c.args else None


def _to_float(tr: Emitting, c: Call) -> Tokens | None:
    return function_call(["float"], c.joined(tr)) if c.args else None


_RADIX_FORMATS = {"2": '"b"', "8": '"o"', "16": '"x"'}


def _to_str(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) == 2 and len(c.arg(tr, 1)) == 1 and c.arg(tr, 1)[0] in _RADIX_FORMATS:  # `Integer.toString(n, 2)`
        return ["format", "(", *c.arg(tr, 0), ",", _RADIX_FORMATS[c.arg(tr, 1)[0]], ")"]
    return function_call(["str"], c.joined(tr)) if c.args else None


def _string_value_of(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) == 1 and tr.type_of(c.args[0]) == "char[]":
        return ['" "', ".", "join", "(", *c.arg(tr, 0), ")"]
    if len(c.args) == 3 and tr.type_of(c.args[0]) == "char[]":  # `valueOf ( cs , offset , count )`
        at = c.arg(tr, 1)
        return ['" "', ".", "join", "(", *c.arg(tr, 0), "[", *at, ":", *at, "+", *c.arg(tr, 2), "]", ")"]
    return _to_str(tr, c) if c.name == "valueOf" else None


def _radix_string(tr: Emitting, c: Call) -> Tokens | None:
    return [_RADIX_STRINGS[c.name], "(", *c.arg(tr, 0), ")", "[", "2", ":", "]"] if len(c.args) == 1 else None


def _bit_count(tr: Emitting, c: Call) -> Tokens | None:
    return ["bin", "(", *c.arg(tr, 0), ")", ".", "count", "(", "'1'", ")"] if c.args else None


def _builtin_of_flat(tr: Emitting, c: Call) -> Tokens | None:
    return function_call([c.name], c.joined(tr)) if c.args else None


def _compare(tr: Emitting, c: Call) -> Tokens | None:
    """The sign of ``a - b``, as Java's ``compare`` returns it."""
    if len(c.args) != 2:
        return None
    a, b = (bracketed(x, c.arg(tr, i), COMPARE) for i, x in enumerate(c.args))
    return ["(", "(", *a, ">", *b, ")", "-", "(", *a, "<", *b, ")", ")"]


def _char_method(tr: Emitting, c: Call) -> Tokens | None:
    return [*bracketed(c.args[0], c.arg(tr, 0)), ".", _CHAR_METHODS[c.name], "(", ")"] if c.args else None


def _char_numeric(tr: Emitting, c: Call) -> Tokens | None:
    return ["int", "(", *c.arg(tr, 0), ")"] if c.args else None


def _char_numeric_any(tr: Emitting, c: Call) -> Tokens | None:
    """A program's ``Character.getNumericValue``: letters too (``'a'`` and ``'A'`` are 10, ``'z'`` 35)."""
    return ["int", "(", *c.arg(tr, 0), ",", "36", ")"] if len(c.args) == 1 else None


def _string_join(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) < 2:
        return None
    if len(c.args) > 2 or tr.type_of(c.args[1]) in ("String", "char", "Character"):  # join(sep, a, b, ...)
        parts = [t for i in range(1, len(c.args)) for t in ([","] if i > 1 else []) + c.arg(tr, i)]
        return [*c.arg(tr, 0), ".", "join", "(", "[", *parts, "]", ")"]
    return [*c.arg(tr, 0), ".", "join", "(", *c.arg(tr, 1), ")"]


def _string_format(tr: Emitting, c: Call) -> Tokens | None:
    return tr.format_expr(list(c.args)) if c.args else None


def _system_exit(tr: Emitting, c: Call) -> Tokens | None:
    return ["sys", ".", "exit", "(", *c.joined(tr), ")"]


def _arraycopy(tr: Emitting, c: Call) -> Tokens | None:
    """``System.arraycopy(src, sp, dst, dp, n)``: a slice assignment (a copy first, as Java copies overlaps)."""
    if len(c.args) != 5:
        return None
    src, sp, dst, dp, n = (c.arg(tr, i) for i in range(len(c.args)))
    sp1, dp1, n = (bracketed(c.args[i], x, ADD, left=i != 4) for i, x in ((1, sp), (3, dp), (4, n)))
    return [*dst, "[", *dp, ":", *dp1, "+", *n, "]", "=", *src, "[", *sp, ":", *sp1, "+", *n, "]"]


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
    return ["re", ".", "fullmatch", "(", *c.arg(tr, 0), ",", *c.target(tr), ")", "is", "not", "None"]


def _string_replace_regex(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    regex, repl = c.arg(tr, 0), _regex_replacement(tr, c.args[1])
    once = [",", "count", "=", "1"] if c.name == "replaceFirst" else []
    return ["re", ".", "sub", "(", *regex, ",", *repl, ",", *c.target(tr), *once, ")"]


def _string_compare(tr: Emitting, c: Call) -> Tokens | None:
    """``a . compareTo ( b )`` of Strings: Java's difference (chars, then lengths), not only its sign."""
    if len(c.args) != 1:
        return None
    a, b = c.target(tr), c.arg(tr, 0)
    if c.name == "compareToIgnoreCase":
        a, b = ["(", *a, ")", ".", "lower", "(", ")"], ["(", *b, ")", ".", "lower", "(", ")"]
    return ["java_compare", "(", *a, ",", *b, ")"]


def _string_hash(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["string_hash", "(", *c.target(tr), ")"]


def _string_repeat(tr: Emitting, c: Call) -> Tokens | None:
    return [*operand(c.obj, c.target(tr)), "*", *operand(c.args[0], c.arg(tr, 0))] if len(c.args) == 1 else None


# -- Integer / Long bit twiddling ------------------------------------------------------------------
def _bits(tr: Emitting, c: Call) -> Tokens | None:
    """``numberOfTrailingZeros`` and kin on a 32-bit (Integer) or 64-bit (Long) pattern."""
    if len(c.args) != 1:
        return None
    width = "64" if tr.text(c.obj) == "Long" else "32"
    mask = "0xFFFFFFFFFFFFFFFF" if width == "64" else "0xFFFFFFFF"
    x = operand(c.args[0], c.arg(tr, 0))
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


def _clone(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else [*c.target(tr), ".", "copy", "(", ")"]


def _char_at(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), "[", *c.arg(tr, 0), "]"] if len(c.args) == 1 else None


def _equals_ignore_case(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return [*c.target(tr), ".", "lower", "(", ")", "==", *bracketed(c.args[0], c.arg(tr, 0)), ".", "lower", "(", ")"]


def _concat(tr: Emitting, c: Call) -> Tokens | None:
    return ["(", *c.target(tr), "+", *bracketed(c.args[0], c.arg(tr, 0), ADD), ")"] if len(c.args) == 1 else None


def _equals(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), "==", *bracketed(c.args[0], c.arg(tr, 0), COMPARE)] if len(c.args) == 1 else None


def _compare_to(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    a = bracketed(c.args[0], c.arg(tr, 0), COMPARE)
    out = ["(", *c.target(tr), ">", *a, ")", "-", "(", *c.target(tr), "<", *a, ")"]
    up = c.node.parent  # the difference is one operand where a tighter operator takes it (`- a.compareTo(b)`)
    tighter = up is not None and up.type in ("unary_expression", "binary_expression", "cast_expression")
    if tighter and up is not None and up.type == "binary_expression":
        tighter = (up.child_by_field_name("operator") or up).type in ("*", "/", "%", "-")
    return ["(", *out, ")"] if tighter else out


def _to_string(tr: Emitting, c: Call) -> Tokens | None:
    if c.args:
        return None
    if receiver_base(c) in ("StringBuilder", "String") and not builder_field(c.obj):  # a field's: a TextBuilder
        return list(c.target(tr))
    return ["str", "(", *c.target(tr), ")"]


def _substring(tr: Emitting, c: Call) -> Tokens | None:
    if not 1 <= len(c.args) <= 2:
        return None
    return [*c.target(tr), "[", *c.arg(tr, 0), ":", *(c.arg(tr, 1) if len(c.args) == 2 else []), "]"]


def _string_method(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), ".", _STRING_METHODS[c.name], "(", *c.joined(tr), ")"]


def _java_split(tr: Emitting, c: Call) -> Tokens | None:
    """Java's ``split`` takes a regex: whitespace -> ``split ( )``, one (escaped) char -> ``split ( c )``."""
    if len(c.args) != 1 or c.args[0].type != "string_literal":
        return None
    literal = tr.text(c.args[0])
    o = c.target(tr)
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


def _string_of_range(tr: Emitting, c: Call) -> Tokens | None:
    """``new String ( cs , off , n )``: the characters ``cs [ off : off + n ]``."""
    if len(c.args) != 3 or tr.type_of(c.args[0]) != "char[]":
        return None
    off, n = c.arg(tr, 1), bracketed(c.args[2], c.arg(tr, 2), ADD)
    end = [*bracketed(c.args[1], off, ADD, left=True), "+", *n]
    return ['" "', ".", "join", "(", *c.arg(tr, 0), "[", *off, ":", *end, "]", ")"]


def _boxed_new(tr: Emitting, c: Call) -> Tokens | None:
    return c.arg(tr, 0) if c.args else ["0"]


_INTEGERS = ("Integer", "Long", "Short", "Byte")


# -- java.lang.Thread in programs: the runnable runs in place (``main`` already runs in a big-stack thread
# when a method recurses, ``program.py``)
def _thread_ran(tr: Emitting, c: Call) -> Tokens | None:
    """``t . start ( ) ;`` / ``t . join ( ) ;`` of a thread whose runnable ran where it was made: nothing."""
    return [] if tr.text(c.obj) in tr.state.threads else None


def _thread_runs_here(tr: Emitting, c: Call) -> Tokens | None:
    """``new Thread ( null , runnable , "" , 1 << 26 ) . start ( ) ;`` (a big stack for deep recursion): the
    runnable's run, called here."""
    if not tr.policy.runs_threads or c.args or c.obj.type != "object_creation_expression":
        return None
    made = c.obj.child_by_field_name("type")
    if made is None or re.sub(r"<.*>", "", (made.text or b"").decode()).replace(" ", "") != "Thread":
        return None
    targs = [a for a in call_arguments(c.obj.child_by_field_name("arguments")) if a.type != "null_literal"]
    return tr.runnable_call(targs[0]) if targs else None


RULES: tuple[Rule, ...] = (
    # -- java.lang.Math: any member not listed is `math . name`
    static("Math", "*", _math_any, where=EXPRESSION),
    static("Math", _MATH_BUILTIN, _math_builtin, where=EXPRESSION),
    static("Math", "cbrt", _math_cbrt, where=EXPRESSION),
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
    # -- Character, String, System
    static("Character", tuple(_CHAR_METHODS), _char_method, where=EXPRESSION),
    static("Character", "getNumericValue", _char_numeric, where=EXPRESSION),
    static("Character", "getNumericValue", _char_numeric_any, policy=PROGRAM),
    static("String", ("valueOf", "copyValueOf"), _string_value_of, where=EXPRESSION),
    static("String", "join", _string_join, policy=PROGRAM),
    static("String", "format", _string_format, policy=PROGRAM),
    new("String", _string_of_range, policy=PROGRAM),
    static("System", "exit", _system_exit, policy=PROGRAM),
    static("System", "arraycopy", _arraycopy, where=STATEMENT),
    # -- instance methods of both policies (the receiver's static type; "*" any receiver)
    instance("*", "clone", _clone, where=EXPRESSION),
    instance("*", "length", length, where=EXPRESSION),
    instance("*", "charAt", _char_at, where=EXPRESSION),
    instance("*", "equalsIgnoreCase", _equals_ignore_case, where=EXPRESSION),
    instance("String", "concat", _concat, where=EXPRESSION),
    instance("*", ("equals", "contentEquals"), _equals, where=EXPRESSION),
    instance("*", "compareTo", _compare_to, where=EXPRESSION),
    instance("*", "toString", _to_string, where=EXPRESSION),
    instance("*", "toCharArray", listed, where=EXPRESSION),
    instance("String", "toCharArray", None, returns="char[]"),
    instance("*", "substring", _substring, where=EXPRESSION),
    instance("*", ("intValue", "longValue", "doubleValue"), the_receiver, where=EXPRESSION),
    instance("String", tuple(_STRING_METHODS), _string_method, where=EXPRESSION),
    # -- String's regex methods and Java's orders in programs (java.util.regex and java.time: classes.py)
    instance("String", "matches", _string_matches, policy=PROGRAM, returns="boolean"),
    instance("String", "repeat", _string_repeat, policy=PROGRAM, returns="String"),
    instance("String", "split", None, returns="String[]"),
    instance("String", ("compareTo", "compareToIgnoreCase"), _string_compare, policy=PROGRAM, returns="int"),
    instance("String", "hashCode", _string_hash, policy=PROGRAM, returns="int"),
    instance("String", "equalsIgnoreCase", None, returns="boolean"),
    instance("String", ("replaceAll", "replaceFirst"), _string_replace_regex, policy=PROGRAM, returns="String"),
    instance("*", "split", _java_split, policy=PROGRAM),
    # -- java.lang.Thread in programs, as statements
    instance("*", ("start", "join"), _thread_ran, policy=PROGRAM, where=STATEMENT),
    instance("*", "start", _thread_runs_here, policy=PROGRAM, where=STATEMENT),
    # -- constructors of both policies
    new(("Integer", "Long", "Double"), _boxed_new),
)
