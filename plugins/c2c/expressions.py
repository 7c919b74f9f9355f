"""Expressions: Java expressions, literals and calls -> Python tokens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from plugins.c2c.errors import BUG_ERRORS, TranslationBug
from plugins.c2c.java_types import (
    FIXED_INTS,
    FLOAT_TYPES,
    INT_TYPES,
    MAX_CONST,
    MIN_CONST,
    array_fill,
)
from plugins.c2c.library.rows import NEGATED, call_arguments, undeclared_class
from plugins.c2c.library.util import TUPLE_CLASSES, TUPLE_FIELDS
from plugins.c2c.style import DIV_OPTIONS
from plugins.c2c.support import is_constant
from plugins.c2c.syntax import Tokens, base_type, required

if TYPE_CHECKING:
    from tree_sitter import Node

    from plugins.c2c.library.rows import Emitting
    from plugins.c2c.state import TranslationState

    _Translator = Emitting  # for the checker, a mixin is the Emitting its Translator is
else:
    _Translator = object

# constants Java code uses without declaring (static imports, C habits), where nothing declares them
_STATIC_CONSTANTS = {
    "PI": ("math", ".", "pi"),
    "M_PI": ("math", ".", "pi"),
    "E": ("math", ".", "e"),
    "M_E": ("math", ".", "e"),
    "INT_MAX": ("sys", ".", "maxsize"),
    "INT_MIN": ("-", "sys", ".", "maxsize"),
    "MAX_VALUE": ("sys", ".", "maxsize"),
    "MIN_VALUE": ("-", "sys", ".", "maxsize"),
}


# Math functions whose result is no larger than their arguments (in magnitude, from 1 up): a cast of one cannot saturate
_NOT_GROWING = {
    "floor", "ceil", "rint", "round", "abs", "sqrt", "cbrt", "log", "log10", "log1p", "signum", "atan2", "random",
}  # fmt: skip
_INT_RANGE = {"int", "short", "byte", "char", "Integer", "Short", "Byte", "Character"}
_TRUNCATED = {"int", "short", "byte", "long", "Integer", "Long"}  # the types a truncating `/` is emitted for
_CHAR_ARITHMETIC = ("+", "-", "*", "/", "%", "^", "&", "|", "<<", ">>")  # a char operand is its code point


class ExpressionsMixin(_Translator):
    """Translates expressions (uses the type mixin and the translator's emission state)."""

    if TYPE_CHECKING:  # what it uses of the Translator and its other mixins
        st: TranslationState

        def resolve(self, node: Node) -> Tokens: ...
        def resolve_in(self, node: Node | None, context: str) -> Tokens | None: ...
        def declared_names(self) -> set[str]: ...
        def _decide(self, kind: str, node: Node, options: tuple[str, ...], default: str) -> str: ...
        def _type_name(self, node: Node | None) -> str: ...
        def _is_int(self, node: Node) -> bool: ...
        def _identifier(self, name: str) -> Tokens: ...
        def _field_access(self, node: Node) -> Tokens | None: ...
        def _assignment(self, node: Node) -> Tokens: ...
        def _update_tokens(self, node: Node) -> Tokens: ...
        def _st_switch_expression(self, node: Node, level: int, target: Tokens | None = None) -> None: ...

    def expr(self, node: Node | None) -> Tokens:
        """One Java expression -> Python tokens."""
        if node is None:
            return []
        handler = getattr(self, f"_ex_{node.type}", None)
        if handler is not None:
            try:
                return handler(node)
            except TranslationBug:
                raise
            except BUG_ERRORS as exc:  # the innermost construct that failed names the bug
                raise TranslationBug.at(node, self.st.src, self.st.offset, exc) from exc
        if node.type in (
            "decimal_integer_literal",
            "hex_integer_literal",
            "octal_integer_literal",
            "binary_integer_literal",
        ):
            text = self.text(node).replace("_", "")
            text = text.rstrip("lL")
            if node.type == "octal_integer_literal" and len(text) > 1 and text.startswith("0") and text[1].isdigit():
                text = "0o" + text[1:]
            return [text]
        if node.type in ("decimal_floating_point_literal", "hex_floating_point_literal"):
            text = self.text(node).rstrip("fFdD")
            return [text + "0" if text.endswith(".") else text]
        if node.type in ("string_literal", "character_literal", "text_block"):
            return [self.text(node)]
        if node.type == "true":
            return ["True"]
        if node.type == "false":
            return ["False"]
        if node.type == "null_literal":
            return ["None"]
        if (
            node.type == "identifier"
            and self.text(node) in _STATIC_CONSTANTS
            and self.text(node) not in self.declared_names()
        ):
            return list(_STATIC_CONSTANTS[self.text(node)])  # `PI` of `import static java.lang.Math.*`, C's `INT_MAX`
        if node.type == "identifier" and is_constant(self.text(node)) and self.text(node) not in self.declared_names():
            self.st.constants_used.add(self.text(node))  # `MAX_CHAR` of the function's class: defined before it
        if node.type == "identifier":
            return self._identifier(self.text(node))  # `self . x` / `Cls . x` inside classes (program.py)
        if node.type == "type_identifier":
            return [self.text(node)]
        if node.type == "this":
            return ["self"]
        self.st.unknown += 1
        return self.text(node).split()

    def _ex_switch_expression(self, node: Node) -> Tokens:
        """A switch expression (``int w = switch ( k ) { case 0 : yield 10 ; ... }``, ``case 1 -> x``): its
        ``if`` / ``elif`` chain assigns ``_swN``, emitted before the statement that reads it."""
        self.st.n_hoisted += 1
        name = f"_sw{self.st.n_hoisted}"
        saved = self.st.lines, self.st.pre, self.st.post, self.st.hoisted
        self.st.lines, self.st.pre, self.st.post, self.st.hoisted = [], [], [], []
        self._st_switch_expression(node, 0, [name])
        lines = self.st.lines
        self.st.lines, self.st.pre, self.st.post, self.st.hoisted = saved
        self.st.hoisted.extend(lines)
        return [name]

    def _ex_parenthesized_expression(self, node: Node) -> Tokens:
        inner = node.named_children[0] if node.named_children else None
        return ["(", *self.expr(inner), ")"]

    def _ex_binary_expression(self, node: Node) -> Tokens:
        left, right = required(node, "left"), required(node, "right")
        op = self.text(node.child_by_field_name("operator"))
        if op in ("&&", "||"):
            return [*self.expr(left), "and" if op == "&&" else "or", *self.expr(right)]
        lt, rt = self.type_of(left), self.type_of(right)
        if op == "+" and (lt == "String" or rt == "String"):
            return [*self.as_str(left), "+", *self.as_str(right)]
        lx, rx = self.expr(left), self.expr(right)
        if op in (*_CHAR_ARITHMETIC, "<", ">", "<=", ">=", "==", "!=") and (lt == "char") != (rt == "char"):
            if lt == "char" and (op not in ("==", "!=") or rt in INT_TYPES):
                lx = ["ord", "(", *lx, ")"]
            if rt == "char" and (op not in ("==", "!=") or lt in INT_TYPES):
                rx = ["ord", "(", *rx, ")"]
        elif op in _CHAR_ARITHMETIC and lt == "char" and rt == "char":
            lx, rx = ["ord", "(", *lx, ")"], ["ord", "(", *rx, ")"]
        if op == "/" and (self._is_int(left) and self._is_int(right) or self._int_division(node, left, right)):
            default = "cast" if self.st.style.int_cast_div else "floor"
            if self.policy.returned_ratio_divides and _returned_ratio(node, right):
                default = "true"  # `return a * b / c` of a function: the references' `/` (see _returned_ratio)
            choice = self._decide("div", node, DIV_OPTIONS, default)
            if self._truncates(left, right) and self._wide(left, right):
                return ["java_div", "(", *lx, ",", *rx, ")"]  # exact for a long (runtime/strings.py)
            if self._truncates(left, right):
                choice = "cast"
            if choice == "cast":
                return ["int", "(", *lx, "/", *rx, ")"]
            op = "//" if choice == "floor" else "/"
        if op in ("==", "!=") and self.policy.program_classes and "this" in (left.type, right.type):
            return [*lx, "is" if op == "==" else "is not", *rx]  # identity (`equals` may be `__eq__`)
        if op == "%" and self._truncates(left, right) and self._wide(left, right):
            return ["java_mod", "(", *lx, ",", *rx, ")"]
        if op == "%" and self._truncates(left, right):  # the remainder takes the dividend's sign
            return ["int", "(", "math", ".", "fmod", "(", *lx, ",", *rx, ")", ")"]
        if op == ">>>" and self.policy.unsigned_shift:
            bits = "0xFFFFFFFFFFFFFFFF" if lt in ("long", "Long") else "0xFFFFFFFF"
            return ["(", *lx, "&", bits, ")", ">>", *rx]
        if op == ">>>":
            op = ">>"
        return [*lx, op, *rx]

    def _int_division(self, node: Node, left: Node, right: Node) -> bool:
        """Is ``left / right`` an int division though an operand's type is unknown, because its value is an
        index (``a [ i / 2 ]``, ``new int [ n / 2 ]``, ``s . charAt ( m / 2 )``, through arithmetic only),
        where Java takes nothing but an int? (Python's ``/`` would index with a float.)"""
        if not {self.type_of(left), self.type_of(right)}.isdisjoint(FLOAT_TYPES):
            return False
        child, cur = node, node.parent
        while cur is not None and (
            cur.type == "parenthesized_expression"
            or (cur.type == "binary_expression" and self.text(cur.child_by_field_name("operator")) in _ARITHMETIC)
            or (cur.type == "unary_expression" and self.text(cur.child_by_field_name("operator")) in ("-", "+"))
        ):
            child, cur = cur, cur.parent
        if cur is None:
            return False
        if cur.type == "array_access":
            index = cur.child_by_field_name("index")
            return index is not None and index.id == child.id
        if cur.type == "dimensions_expr":
            return True
        call = cur.parent if cur.type == "argument_list" else None
        return call is not None and call.type == "method_invocation" and self._call_parts(call)[1] in _INDEX_METHODS

    def _truncates(self, left: Node, right: Node) -> bool:
        """Must ``left / right`` (``%``) truncate toward zero, as Java's does? In a program, where ``left`` is an int
        or long variable (or an array's element) that may hold a negative number (``int ( a / b )``: exact for
        32-bit ints; a long's is ``java_div``; a difference written in place keeps ``//``, as the references write
        it: see the README)."""
        prog = self.st.prog
        name = left.child_by_field_name("array") if left.type == "array_access" else left  # `w [ i ] / 5`
        if not self.policy.truncating_division or name is None or name.type != "identifier":
            return False
        return self.text(name) in prog.signed and {self.type_of(left), self.type_of(right)} <= _TRUNCATED

    def _wide(self, left: Node, right: Node) -> bool:
        """Is an operand of a truncating ``/`` / ``%`` a long? (``java_div``: ``int ( a / b )`` goes via a double)"""
        return not {self.type_of(left), self.type_of(right)}.isdisjoint({"long", "Long"})

    def _ex_unary_expression(self, node: Node) -> Tokens:
        op = self.text(node.child_by_field_name("operator"))
        operand = node.child_by_field_name("operand")
        if op == "!":
            negated = self.resolve_in(operand, NEGATED)  # resolve.py: the rows of a negated call
            return negated if negated is not None else ["not", *self.expr(operand)]
        return [op, *self.expr(operand)]

    def _ex_update_expression(self, node: Node) -> Tokens:
        target = node.named_children[0]
        tt = self.expr(target)
        pre = self.text(node).strip().startswith(("++", "--"))
        if _may_not_run(node) and len(tt) == 1 and tt[0].isidentifier() and self.type_of(target) != "char":
            # `a && seen ++ < k`, `c ? i ++ : j`: the update happens only when its operand is evaluated, so it
            # stays in place (a walrus) instead of becoming a statement before / after the whole one
            op = "+" if "++" in self.text(node) else "-"
            step = ["(", tt[0], ":=", tt[0], op, "1", ")"]
            return step if pre else ["(", *step, "-" if op == "+" else "+", "1", ")"]
        upd = self._update_tokens(node)
        if pre:
            self.st.pre.append(upd)
        else:
            self.st.post.append(upd)
        return tt

    def _ex_assignment_expression(self, node: Node) -> Tokens:
        left = required(node, "left")
        if left.type == "identifier" and self.text(node.child_by_field_name("operator")) == "=":
            return ["(", self.text(left), ":=", *self.expr(node.child_by_field_name("right")), ")"]
        self.st.pre.append(self._assignment(node))
        return self.expr(left)

    def _ex_ternary_expression(self, node: Node) -> Tokens:
        cond = node.child_by_field_name("condition")
        return [
            *self.expr(node.child_by_field_name("consequence")),
            "if",
            *self.expr(cond),
            "else",
            *self.expr(node.child_by_field_name("alternative")),
        ]

    def _ex_cast_expression(self, node: Node) -> Tokens:
        typ = self._type_name(node.child_by_field_name("type"))
        value = required(node, "value")
        vt = self.type_of(value)
        inner = self.expr(value)
        bare = (
            inner[1:-1]
            if inner[:1] == ["("] and inner[-1:] == [")"] and value.type == "parenthesized_expression"
            else inner
        )
        if typ == "char" and vt != "char":
            return ["chr", "(", *bare, ")"]
        if typ in INT_TYPES and vt == "char":
            return ["ord", "(", *bare, ")"]
        if (
            typ in ("int", "long")
            and vt in FLOAT_TYPES
            and self.policy.saturating_casts
            and not self._in_range(value, typ)
        ):
            return ["java_int" if typ == "int" else "java_long", "(", *bare, ")"]  # runtime/strings.py
        if typ in INT_TYPES and vt in FLOAT_TYPES | {"?"}:
            return ["int", "(", *bare, ")"]
        if typ in FLOAT_TYPES and vt in INT_TYPES and value.type not in ("identifier", "decimal_integer_literal"):
            return ["float", "(", *bare, ")"]
        return inner

    def _in_range(self, value: Node, typ: str) -> bool:
        """Is the double ``value`` within ``typ``'s bounds by construction: a literal, or a Math function that does
        not grow its arguments (``Math . floor ( a / b )``, ``Math . sqrt ( n )``, ``Math . random ( )``) of values
        of that type? Then ``( int )`` cannot saturate and stays ``int ( x )``."""
        while value.type == "parenthesized_expression" and value.named_children:
            value = value.named_children[0]
        if value.type == "decimal_floating_point_literal":  # `( int ) 1e9`
            bound = 2**31 if typ == "int" else 2**63
            return -bound <= float(self.text(value).rstrip("dDfF")) < bound
        if value.type != "method_invocation":
            return False
        obj, name, args = self._call_parts(value)
        fits = _INT_RANGE if typ == "int" else FIXED_INTS | _INT_RANGE
        return (
            obj is not None
            and self.text(obj) == "Math"
            and name in _NOT_GROWING
            and all(self.type_of(a) in fits for a in args)
        )

    def _ex_array_access(self, node: Node) -> Tokens:
        index = node.child_by_field_name("index")
        it = self.expr(index)
        if self.type_of(index) == "char":  # `occ [ c ]`: a char index is its code point
            it = ["ord", "(", *it, ")"]
        return [*self.expr(node.child_by_field_name("array")), "[", *it, "]"]

    def _ex_field_access(self, node: Node) -> Tokens:
        special = self._field_access(node)  # `this . x`, `Main . x` (program.py)
        if special is not None:
            return special
        obj, field = required(node, "object"), self.text(node.child_by_field_name("field"))
        ot = self.text(obj)
        if (ot, field) in MAX_CONST:
            return ["sys", ".", "maxsize"]
        if (ot, field) in MIN_CONST:
            return ["-", "sys", ".", "maxsize"]
        if ot == "Math" and field == "PI":
            return ["math", ".", "pi"]
        if ot == "Math" and field == "E":
            return ["math", ".", "e"]
        pair = self._tuple_field(obj, field)
        if pair is not None:
            return pair
        if field == "length" and self.type_of(obj).endswith("[]"):
            return ["len", "(", *self.expr(obj), ")"]
        if field == "length":
            return ["len", "(", *self.expr(obj), ")"]
        return [*self.expr(obj), ".", field]

    def _ex_array_creation_expression(self, node: Node) -> Tokens:
        init = node.child_by_field_name("value")
        if init is not None:
            return self._array_initializer(init)
        base = self._type_name(node.child_by_field_name("type"))
        sizes = [
            c.named_children[0]
            for c in node.children_by_field_name("dimensions")
            if c.type == "dimensions_expr" and c.named_children
        ]
        fill = array_fill(base)
        if not sizes:
            return ["[", "]"]
        out: Tokens = [fill]
        loop_vars = ["i", "j", "k", "l", "m"]
        for depth, size in enumerate(reversed(sizes)):
            st = self.expr(size)
            if depth == 0 and not self.st.style.comp_array:
                out = ["[", *out, "]", "*", *(st if len(st) == 1 else ["(", *st, ")"])]
            else:
                var = loop_vars[min(len(sizes) - 1 - depth, 4)]
                out = ["[", *out, "for", var, "in", "range", "(", *st, ")", "]"]
        return out

    def _array_initializer(self, node: Node) -> Tokens:
        items: Tokens = []
        for i, child in enumerate(node.named_children):
            items += ([","] if i else []) + (
                self._array_initializer(child) if child.type == "array_initializer" else self.expr(child)
            )
        return ["[", *items, "]"]

    def _ex_array_initializer(self, node: Node) -> Tokens:
        return self._array_initializer(node)

    def _ex_object_creation_expression(self, node: Node) -> Tokens:
        return self.resolve(node)  # resolve.py: the one place a call or an object creation is translated

    def _tuple_field(self, obj: Node, field: str) -> Tokens | None:
        """`p . first` / `p . getSecond ( )` of an undeclared pair class (made a tuple): `p [ 0 ]`."""
        if field not in TUPLE_FIELDS:
            return None
        base = base_type(self.type_of(obj))
        if base not in TUPLE_CLASSES or not undeclared_class(self.st.src, base):
            return None
        return [*self.expr(obj), "[", TUPLE_FIELDS[field], "]"]

    def _ex_instanceof_expression(self, node: Node) -> Tokens:
        return ["isinstance", "(", *self.expr(node.named_children[0]), ",", self.text(node.named_children[1]), ")"]

    def _ex_method_invocation(self, node: Node) -> Tokens:
        return self.resolve(node)

    def _call_parts(self, node: Node) -> tuple[Node | None, str, list[Node]]:
        obj = node.child_by_field_name("object")
        name = self.text(node.child_by_field_name("name"))
        return obj, name, self._args(node.child_by_field_name("arguments"))

    def _args(self, node: Node | None) -> list[Node]:
        return call_arguments(node)

    def arg_tokens(self, args: Sequence[Node]) -> Tokens:
        out: Tokens = []
        for i, arg in enumerate(args):
            out += ([","] if i else []) + self.expr(arg)
        return out


_ARITHMETIC = ("+", "-", "*", "/", "%")
_INDEX_METHODS = frozenset({"charAt", "substring", "setCharAt", "deleteCharAt", "subList", "codePointAt"})


def _returned_ratio(node: Node, divisor: Node | None) -> bool:
    """Is integer ``node`` (``a / b``, ``b`` not a literal) part of the arithmetic a ``return`` gives back?

    GeeksforGeeks' Python ports of such formula functions (``return n * (x - y) / (2 * n - 1)``, or any
    returned ratio of a ``double`` method: ``return ((b1 + b2) / 2) * h``)
    divide with ``/``, and unit tests compare with what they return; a division anywhere
    else (an index, a loop's ``x = x / 10``, a literal ``/ 2``) keeps ``//``.
    """
    while divisor is not None and divisor.type == "parenthesized_expression" and divisor.named_children:
        divisor = divisor.named_children[0]
    if divisor is None or (divisor.type.endswith("_literal") and not _returns_floating(node)):
        return False
    cur = node.parent
    while cur is not None and (
        cur.type == "parenthesized_expression"
        or (cur.type == "binary_expression" and required(cur, "operator").type in ("+", "-", "*", "/"))
        or (cur.type == "unary_expression" and required(cur, "operator").type == "-")
    ):
        cur = cur.parent
    return cur is not None and cur.type == "return_statement"


def _returns_floating(node: Node) -> bool:
    """Is ``node`` inside a method declared to return ``double`` / ``float`` (``return ( a + b ) / 2 * h``)?"""
    cur = node.parent
    while cur is not None and cur.type not in ("method_declaration", "lambda_expression"):
        cur = cur.parent
    typ = cur.child_by_field_name("type") if cur is not None and cur.type == "method_declaration" else None
    return typ is not None and typ.text in (b"double", b"float", b"Double", b"Float")


def _may_not_run(node: Node) -> bool:
    """Is ``node`` evaluated only on some paths of its statement: in the right operand of a ``&&`` / ``||``
    or in a branch of a ``? :`` (up to the statement, a lambda or a method reference that holds it)?"""
    cur, parent = node, node.parent
    while parent is not None and not parent.type.endswith(("statement", "declaration", "block", "program")):
        if parent.type == "binary_expression":
            op = parent.child_by_field_name("operator")
            if op is not None and op.type in ("&&", "||") and parent.child_by_field_name("right") == cur:
                return True
        if parent.type == "ternary_expression" and parent.child_by_field_name("condition") != cur:
            return True
        if parent.type == "lambda_expression":
            return False
        cur, parent = parent, parent.parent
    return False
