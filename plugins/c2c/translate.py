"""Syntax-directed Java -> Python translation into the AVATAR token format.

The input is Java in the challenge's token form (tokens separated by spaces,
string contents split into words with ``▁`` marking a real space). It is parsed
with tree-sitter-java inside a wrapper class, and every statement and
expression is rewritten into Python tokens; lines are joined with ``NEW_LINE``
and blocks with ``INDENT`` / ``DEDENT``. Style choices on which the AVATAR
references disagree (parentheses around conditions, trailing ``;``, integer
division, ...) are switches of ``Style``; the learned selector picks them.

Anything the translator does not know is copied token by token from the Java
source, so an unknown construct degrades one line, not the whole program.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

log = logging.getLogger(__name__)

NEW_LINE, INDENT, DEDENT = "NEW_LINE", "INDENT", "DEDENT"
_WRAPPER = "class __W__ {"
Tokens = list[str]


@dataclass(frozen=True, slots=True)
class Style:
    """Binary style switches; defaults are the majority choice of the AVATAR references."""

    cond_parens: bool = True  # `if ( a > b ) :` rather than `if a > b :`
    semicolons: bool = False  # keep Java's trailing `;` on simple statements
    int_cast_div: bool = False  # `int ( a / b )` rather than `a // b` for integer division
    range_zero: bool = False  # `range ( 0 , n )` rather than `range ( n )`
    expand_incr: bool = False  # `i = i + 1` rather than `i += 1`
    comp_array: bool = False  # `[ 0 for i in range ( n ) ]` rather than `[ 0 ] * n`


STYLE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Style))
DEFAULT_STYLE = Style()
DIV_OPTIONS = ("floor", "true", "cast")  # integer `a / b` as `a // b`, `a / b`, `int ( a / b )`


@dataclass(frozen=True, slots=True)
class Site:
    """A decision site: one construct with several accepted translations."""

    index: int  # order of appearance during translation
    kind: str  # e.g. "div"
    java: str  # Java text of the enclosing statement (what the text tower reads)
    options: tuple[str, ...]
    default: str


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_java
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_java.language()))


_INT_TYPES = {"int", "long", "short", "byte", "Integer", "Long", "Short", "Byte", "BigInteger"}
_FLOAT_TYPES = {"double", "float", "Double", "Float"}
_DEFAULTS = {"boolean": "False", "Boolean": "False", "char": "0", "String": '" "'}
_MATH_BUILTIN = {"max": "max", "min": "min", "abs": "abs", "pow": "pow"}
_MATH_DOUBLE = {
    "sqrt",
    "pow",
    "log",
    "log10",
    "exp",
    "sin",
    "cos",
    "tan",
    "atan",
    "atan2",
    "asin",
    "acos",
    "hypot",
    "random",
}
_MAX_CONST = {
    ("Integer", "MAX_VALUE"),
    ("Long", "MAX_VALUE"),
    ("Double", "MAX_VALUE"),
    ("Float", "MAX_VALUE"),
    ("Short", "MAX_VALUE"),
}
_MIN_CONST = {
    ("Integer", "MIN_VALUE"),
    ("Long", "MIN_VALUE"),
    ("Double", "MIN_VALUE"),
    ("Float", "MIN_VALUE"),
    ("Short", "MIN_VALUE"),
}
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
_COLLECTIONS = {"ArrayList", "LinkedList", "List", "Vector", "Stack", "ArrayDeque", "Deque", "Queue", "PriorityQueue"}
_MAPS = {"HashMap", "TreeMap", "LinkedHashMap", "Map"}
_SETS = {"HashSet", "TreeSet", "LinkedHashSet", "Set"}


class Translator:
    """Translate one Java source (functions, fields or whole classes) to AVATAR Python tokens."""

    def __init__(self, style: Style = DEFAULT_STYLE, choices: Mapping[int, str] | None = None) -> None:
        self.style = style
        self.choices = dict(choices or {})  # decision-site index -> chosen option (see ``_decide``)
        self.sites: list[Site] = []
        self.lines: list[tuple[int, Tokens]] = []
        self.scopes: list[dict[str, str]] = [{}]
        self.method_types: dict[str, str] = {}
        self.post: list[Tokens] = []  # side effects of `x++` inside expressions, emitted after the statement
        self.pre: list[Tokens] = []
        self.loop_updates: list[list[Tokens] | None] = []  # per enclosing loop: updates to run before `continue`
        self.src = b""
        self.unknown = 0  # nodes copied verbatim: a rough measure of translation coverage

    # -- entry point --------------------------------------------------------------------------
    def translate(self, java: str) -> Tokens:
        """Java tokens (one string) -> Python tokens in AVATAR format."""
        self.src = f"{_WRAPPER} {java} }}".encode()
        tree = _parser().parse(self.src)
        body = self._wrapper_body(tree.root_node)
        if body is None:  # the wrapper did not survive the parse: translate whatever parsed
            body = tree.root_node
        self._collect_method_types(body)
        main: list[Node] = []
        for child in body.named_children:
            self._member(child, 0, main)
        for m in main:
            self._emit(0, ["if", "__name__", "==", '" __main__ "', ":"])
            self._block(m.child_by_field_name("body"), 1, params=[])
        return serialize(self.lines)

    def _wrapper_body(self, root: Node) -> Node | None:
        for child in root.named_children:
            if child.type == "class_declaration":
                return child.child_by_field_name("body")
        return None

    def _collect_method_types(self, body: Node) -> None:
        for node in _walk(body):
            if node.type == "method_declaration":
                name, typ = node.child_by_field_name("name"), node.child_by_field_name("type")
                if name is not None and typ is not None:
                    self.method_types[self.text(name)] = self._type_name(typ)

    # -- members ---------------------------------------------------------------------------------
    def _member(self, node: Node, level: int, main: list[Node]) -> None:
        kind = node.type
        if kind == "method_declaration" or kind == "constructor_declaration":
            name = self.text(node.child_by_field_name("name"))
            params = self._params(node.child_by_field_name("parameters"))
            if name == "main" and kind == "method_declaration" and level == 0:
                main.append(node)
                return
            names = [p for p, _ in params]
            if kind == "constructor_declaration":
                name, names = "__init__", ["self", *names]
            self._emit(level, ["def", name, "(", *_commas(names), ")", ":"])
            self._block(node.child_by_field_name("body"), level + 1, params=params)
        elif kind == "field_declaration":
            self._declaration(node, level)
        elif kind in ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration"):
            body = node.child_by_field_name("body")
            if level == 0 and body is not None and _has_main(body):
                for child in body.named_children:
                    self._member(child, level, main)
                return
            self._emit(level, ["class", self.text(node.child_by_field_name("name")), ":"])
            start = len(self.lines)
            if body is not None:
                for child in body.named_children:
                    self._member(child, level + 1, main)
            if len(self.lines) == start:
                self._emit(level + 1, ["pass"])
        elif kind in ("block", "static_initializer"):
            self._statement(node, level)
        elif kind in ("line_comment", "block_comment"):
            return
        else:
            self._copy_line(node, level)

    def _params(self, node: Node | None) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if node is None:
            return out
        for p in node.named_children:
            if p.type in ("formal_parameter", "spread_parameter"):
                name = p.child_by_field_name("name")
                if name is None:
                    decl = next((c for c in p.named_children if c.type == "variable_declarator"), None)
                    name = decl.child_by_field_name("name") if decl is not None else None
                typ = self._type_name(p.child_by_field_name("type")) if p.child_by_field_name("type") else "?"
                dims = p.child_by_field_name("dimensions")
                if dims is not None:
                    typ += "[]" * self.text(dims).count("[")
                if p.type == "spread_parameter":
                    typ += "[]"
                if name is not None:
                    out.append((self.text(name), typ))
        return out

    # -- statements --------------------------------------------------------------------------------
    def _block(self, node: Node | None, level: int, params: Sequence[tuple[str, str]] = ()) -> None:
        """A nested suite: statements at ``level``; `pass` when nothing was emitted."""
        self.scopes.append(dict(params))
        start = len(self.lines)
        if node is not None:
            if node.type == "block":
                for child in node.named_children:
                    self._statement(child, level)
            else:
                self._statement(node, level)
        if len(self.lines) == start:
            self._emit(level, ["pass"])
        self.scopes.pop()

    def _statement(self, node: Node, level: int) -> None:
        kind = node.type
        handler = getattr(self, f"_st_{kind}", None)
        if handler is not None:
            handler(node, level)
        elif kind in ("line_comment", "block_comment", "empty_statement"):
            return
        elif kind in ("class_declaration", "method_declaration"):
            self._member(node, level, [])
        else:
            self._copy_line(node, level)

    def _st_block(self, node: Node, level: int) -> None:
        for child in node.named_children:
            self._statement(child, level)

    def _st_local_variable_declaration(self, node: Node, level: int) -> None:
        self._declaration(node, level)

    def _declaration(self, node: Node, level: int) -> None:
        typ = self._type_name(node.child_by_field_name("type"))
        for decl in node.children_by_field_name("declarator"):
            name = self.text(decl.child_by_field_name("name"))
            dims = decl.child_by_field_name("dimensions")
            vtype = typ + ("[]" * self.text(dims).count("[") if dims is not None else "")
            self.scopes[-1][name] = vtype
            value = decl.child_by_field_name("value")
            if value is None:
                continue
            self._simple(level, [name, "=", *self._value(value, vtype)])

    def _value(self, value: Node, vtype: str) -> Tokens:
        if value.type == "array_initializer":
            return self._array_initializer(value)
        out = self.expr(value)
        if vtype in ("int", "long") and self.type_of(value) == "char":
            return ["ord", "(", *out, ")"]
        return out

    def _st_expression_statement(self, node: Node, level: int) -> None:
        expr = node.named_children[0] if node.named_children else None
        if expr is None:
            return
        if expr.type == "update_expression":
            self._simple(level, self._update_tokens(expr))
            return
        if expr.type == "method_invocation":
            special = self._statement_call(expr)
            if special is not None:
                self._simple(level, special)
                return
        if expr.type == "assignment_expression":
            self._simple(level, self._assignment(expr))
            return
        self._simple(level, self.expr(expr))

    def _assignment(self, node: Node) -> Tokens:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = self.text(node.child_by_field_name("operator"))
        lt = self.expr(left)
        if right.type == "assignment_expression" and op == "=":
            return [*lt, "=", *self._assignment(right)]
        if op == ">>>=":
            op = ">>="
        if op == "/=" and self._is_int(left) and self._is_int(right):
            choice = self._decide("div", node, DIV_OPTIONS, "cast" if self.style.int_cast_div else "floor")
            if choice == "cast":
                return [*lt, "=", "int", "(", *lt, "/", *self.expr(right), ")"]
            op = "//=" if choice == "floor" else "/="
        rt = self._value(right, self.type_of(left)) if right.type == "array_initializer" else self.expr(right)
        if op == "=" and self.type_of(left) in ("int", "long") and self.type_of(right) == "char":
            rt = ["ord", "(", *rt, ")"]
        return [*lt, op, *rt]

    def _update_tokens(self, node: Node) -> Tokens:
        target = node.named_children[0]
        op = "+" if "++" in self.text(node) else "-"
        tt = self.expr(target)
        if self.style.expand_incr:
            return [*tt, "=", *tt, op, "1"]
        return [*tt, op + "=", "1"]

    def _st_return_statement(self, node: Node, level: int) -> None:
        value = node.named_children[0] if node.named_children else None
        self._simple(level, ["return", *self.expr(value)] if value is not None else ["return"])

    def _st_break_statement(self, node: Node, level: int) -> None:
        self._simple(level, ["break"])

    def _st_continue_statement(self, node: Node, level: int) -> None:
        updates = self.loop_updates[-1] if self.loop_updates else None
        for upd in updates or []:
            self._simple(level, upd)
        self._simple(level, ["continue"])

    def _st_throw_statement(self, node: Node, level: int) -> None:
        self._simple(level, ["raise", "Exception"])

    def _st_if_statement(self, node: Node, level: int, keyword: str = "if") -> None:
        cond = node.child_by_field_name("condition")
        self._emit(level, [keyword, *self._condition(cond), ":"])
        self._block(node.child_by_field_name("consequence"), level + 1)
        alt = node.child_by_field_name("alternative")
        if alt is None:
            return
        if alt.type == "if_statement":
            self._st_if_statement(alt, level, keyword="elif")
        else:
            self._emit(level, ["else", ":"])
            self._block(alt, level + 1)

    def _condition(self, cond: Node | None) -> Tokens:
        if cond is None:
            return ["True"]
        if cond.type == "parenthesized_expression" and cond.named_children:
            inner = self.expr(cond.named_children[0])
            return ["(", *inner, ")"] if self.style.cond_parens else inner
        return self.expr(cond)

    def _st_while_statement(self, node: Node, level: int) -> None:
        self._emit(level, ["while", *self._condition(node.child_by_field_name("condition")), ":"])
        self._loop_body(node.child_by_field_name("body"), level + 1, None)

    def _st_do_statement(self, node: Node, level: int) -> None:
        self._emit(level, ["while", "(", "True", ")", ":"] if self.style.cond_parens else ["while", "True", ":"])
        self._loop_body(node.child_by_field_name("body"), level + 1, None, keep_pass=False)
        cond = node.child_by_field_name("condition")
        inner = cond.named_children[0] if cond is not None and cond.named_children else cond
        test = ["not", "(", *self.expr(inner), ")"] if inner is not None else ["True"]
        self._emit(level + 1, ["if", *test, ":"])
        self._emit(level + 2, ["break"])

    def _loop_body(self, body: Node | None, level: int, updates: list[Tokens] | None, keep_pass: bool = True) -> None:
        self.loop_updates.append(updates)
        start = len(self.lines)
        self.scopes.append({})
        if body is not None:
            self._statement(body, level)
        for upd in updates or []:
            self._simple(level, upd)
        self.scopes.pop()
        if len(self.lines) == start and keep_pass:
            self._emit(level, ["pass"])
        self.loop_updates.pop()

    def _st_enhanced_for_statement(self, node: Node, level: int) -> None:
        name = self.text(node.child_by_field_name("name"))
        typ = self._type_name(node.child_by_field_name("type"))
        value = node.child_by_field_name("value")
        self.scopes.append({name: typ})
        self._emit(level, ["for", name, "in", *self.expr(value), ":"])
        self._loop_body(node.child_by_field_name("body"), level + 1, None)
        self.scopes.pop()

    def _st_for_statement(self, node: Node, level: int) -> None:
        self.scopes.append({})
        rng = self._range_loop(node)
        if rng is not None:
            self._emit(level, rng)
            self._loop_body(node.child_by_field_name("body"), level + 1, None)
            self.scopes.pop()
            return
        for init in node.children_by_field_name("init"):
            if init.type == "local_variable_declaration":
                self._declaration(init, level)
            elif init.type == "assignment_expression":
                self._simple(level, self._assignment(init))
            else:
                self._simple(level, self.expr(init))
        cond = node.child_by_field_name("condition")
        test = self.expr(cond) if cond is not None else ["True"]
        if self.style.cond_parens:
            test = ["(", *test, ")"]
        self._emit(level, ["while", *test, ":"])
        updates = [self._update_or_expr(u) for u in node.children_by_field_name("update")]
        self._loop_body(node.child_by_field_name("body"), level + 1, updates)
        self.scopes.pop()

    def _update_or_expr(self, node: Node) -> Tokens:
        if node.type == "update_expression":
            return self._update_tokens(node)
        if node.type == "assignment_expression":
            return self._assignment(node)
        return self.expr(node)

    def _range_loop(self, node: Node) -> Tokens | None:
        """`for ( i = a ; i < b ; i ++ )` -> `for i in range ( a , b ) :` when that is exact."""
        inits = node.children_by_field_name("init")
        updates = node.children_by_field_name("update")
        cond = node.child_by_field_name("condition")
        if len(inits) != 1 or len(updates) != 1 or cond is None or cond.type != "binary_expression":
            return None
        init = inits[0]
        if init.type == "local_variable_declaration":
            decls = init.children_by_field_name("declarator")
            if len(decls) != 1 or decls[0].child_by_field_name("value") is None:
                return None
            var = self.text(decls[0].child_by_field_name("name"))
            start_node = decls[0].child_by_field_name("value")
            self.scopes[-1][var] = self._type_name(init.child_by_field_name("type"))
        elif init.type == "assignment_expression" and self.text(init.child_by_field_name("operator")) == "=":
            left = init.child_by_field_name("left")
            if left.type != "identifier":
                return None
            var, start_node = self.text(left), init.child_by_field_name("right")
        else:
            return None
        step = self._step(updates[0], var)
        if step is None:
            return None
        op = self.text(cond.child_by_field_name("operator"))
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if self.text(left) != var:
            if self.text(right) != var:
                return None
            left, right = right, left
            op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
        if op not in ("<", "<=", ">", ">=") or _mentions(right, var):
            return None
        ascending = not step.startswith("-")
        if ascending != (op in ("<", "<=")):
            return None
        body = node.child_by_field_name("body")
        if body is not None and _assigns(body, var):
            return None
        start = self.expr(start_node)
        stop = self.expr(right)
        if op == "<=":
            stop = _plus_one(stop, "+")
        elif op == ">=":
            stop = _plus_one(stop, "-")
        if step == "1" and start == ["0"] and not self.style.range_zero:
            args = stop
        elif step == "1":
            args = [*start, ",", *stop]
        else:
            args = [*start, ",", *stop, ",", *(["-", step[1:]] if step.startswith("-") else [step])]
        return ["for", var, "in", "range", "(", *args, ")", ":"]

    def _step(self, upd: Node, var: str) -> str | None:
        if upd.type == "update_expression":
            if self.text(upd.named_children[0]) != var:
                return None
            return "1" if "++" in self.text(upd) else "-1"
        if upd.type == "assignment_expression":
            left, right = upd.child_by_field_name("left"), upd.child_by_field_name("right")
            op = self.text(upd.child_by_field_name("operator"))
            if self.text(left) != var or right.type != "decimal_integer_literal":
                return None
            if op == "+=":
                return self.text(right)
            if op == "-=":
                return "-" + self.text(right)
        return None

    def _st_switch_expression(self, node: Node, level: int) -> None:
        subject = self.expr(node.child_by_field_name("condition"))
        if subject[:1] == ["("] and subject[-1:] == [")"]:
            subject = subject[1:-1]
        body = node.child_by_field_name("body")
        groups: list[tuple[list[Node], list[Node], bool]] = []
        labels: list[Node] = []
        is_default = False
        for group in body.named_children if body is not None else []:
            if group.type not in ("switch_block_statement_group", "switch_rule"):
                continue
            stmts = []
            for child in group.named_children:
                if child.type == "switch_label":
                    if child.named_children:
                        labels.extend(child.named_children)
                    else:
                        is_default = True
                else:
                    stmts.append(child)
            if stmts:
                groups.append((labels, stmts, is_default))
                labels, is_default = [], False
        keyword = "if"
        for labels_, stmts, default in groups:
            if default or not labels_:
                if keyword == "if":
                    self._emit(level, ["if", "True", ":"])
                else:
                    self._emit(level, ["else", ":"])
            else:
                test: Tokens = []
                for i, lab in enumerate(labels_):
                    test += (["or"] if i else []) + [*subject, "==", *self.expr(lab)]
                self._emit(level, [keyword, *(["(", *test, ")"] if self.style.cond_parens else test), ":"])
            keyword = "elif"
            start = len(self.lines)
            for st in stmts:
                if st.type == "break_statement":
                    continue
                self._statement(st, level + 1)
            if len(self.lines) == start:
                self._emit(level + 1, ["pass"])

    _st_switch_statement = _st_switch_expression

    def _st_try_statement(self, node: Node, level: int) -> None:
        self._emit(level, ["try", ":"])
        self._block(node.child_by_field_name("body"), level + 1)
        for child in node.named_children:
            if child.type == "catch_clause":
                self._emit(level, ["except", ":"])
                self._block(child.child_by_field_name("body"), level + 1)
            elif child.type == "finally_clause":
                self._emit(level, ["finally", ":"])
                self._block(child.named_children[-1] if child.named_children else None, level + 1)

    def _st_labeled_statement(self, node: Node, level: int) -> None:
        for child in node.named_children[1:]:
            self._statement(child, level)

    def _st_synchronized_statement(self, node: Node, level: int) -> None:
        self._statement(node.named_children[-1], level)

    def _st_local_class_declaration(self, node: Node, level: int) -> None:
        self._member(node, level, [])

    # -- statement-level calls -------------------------------------------------------------------
    def _statement_call(self, node: Node) -> Tokens | None:
        obj, name, args = self._call_parts(node)
        obj_text = self.text(obj) if obj is not None else ""
        if obj_text in ("System . out", "System.out") and name in ("println", "print", "printf"):
            return self._print(args, newline=name == "println")
        if obj_text == "Arrays" and name == "sort" and args:
            target = self.expr(args[0])
            if len(args) == 3:
                lo, hi = self.expr(args[1]), self.expr(args[2])
                sl = [*target, "[", *lo, ":", *hi, "]"]
                return [*sl, "=", "sorted", "(", *sl, ")"]
            if len(args) == 2:
                return [*target, ".", "sort", "(", "reverse", "=", "True", ")"]
            return [*target, ".", "sort", "(", ")"]
        if obj_text == "Arrays" and name == "fill" and len(args) == 2:
            target = self.expr(args[0])
            return [*target, "=", "[", *self.expr(args[1]), "]", "*", "len", "(", *target, ")"]
        if obj_text == "Collections" and name == "sort" and args:
            return [*self.expr(args[0]), ".", "sort", "(", ")"]
        if obj_text == "Collections" and name == "reverse" and args:
            return [*self.expr(args[0]), ".", "reverse", "(", ")"]
        if obj is not None:
            otype = self.type_of(obj)
            base = _base_type(otype)
            if base in _MAPS and name == "put" and len(args) == 2:
                return [*self.expr(obj), "[", *self.expr(args[0]), "]", "=", *self.expr(args[1])]
            if base in _COLLECTIONS and name == "set" and len(args) == 2:
                return [*self.expr(obj), "[", *self.expr(args[0]), "]", "=", *self.expr(args[1])]
            if base == "StringBuilder" and name in ("append", "insert"):
                target = self._sb_root(obj)
                if target is not None and name == "append":
                    return [*target, "+=", *self._as_str(args[0])] if args else None
        return None

    def _sb_root(self, obj: Node) -> Tokens | None:
        if obj.type == "identifier":
            return [self.text(obj)]
        return None

    def _as_str(self, node: Node) -> Tokens:
        t = self.type_of(node)
        out = self.expr(node)
        if t in ("String", "char", "StringBuilder"):
            return out
        return ["str", "(", *out, ")"]

    def _print(self, args: list[Node], newline: bool) -> Tokens:
        if not args:
            return ["print", "(", ")"] if newline else ["print", "(", "end", "=", '" "', ")"]
        parts = self._concat_parts(args[0])
        toks: Tokens = []
        end: Tokens | None = None
        if not newline:
            if len(parts) > 1 and parts[-1].type == "string_literal":
                end = self.expr(parts[-1])
                parts = parts[:-1]
            else:
                end = ['" "']
        for i, part in enumerate(parts):
            toks += ([","] if i else []) + self.expr(part)
        if end is not None:
            toks += [",", "end", "=", *end]
        return ["print", "(", *toks, ")"]

    def _concat_parts(self, node: Node) -> list[Node]:
        """`a + " x " + b` in a print -> the operands, when the chain is a string concatenation."""
        if not self._is_string_concat(node):
            return [node]
        chain: list[Node] = []
        cur = node
        while cur.type == "binary_expression" and self.text(cur.child_by_field_name("operator")) == "+":
            chain.append(cur.child_by_field_name("right"))
            cur = cur.child_by_field_name("left")
            if not self._is_string_concat(cur):
                break
        chain.append(cur)
        return chain[::-1]

    def _is_string_concat(self, node: Node) -> bool:
        return (
            node.type == "binary_expression"
            and self.text(node.child_by_field_name("operator")) == "+"
            and self.type_of(node) == "String"
        )

    # -- expressions -------------------------------------------------------------------------------
    def expr(self, node: Node | None) -> Tokens:
        """One Java expression -> Python tokens."""
        if node is None:
            return []
        handler = getattr(self, f"_ex_{node.type}", None)
        if handler is not None:
            return handler(node)
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
        if node.type in ("identifier", "type_identifier"):
            return [self.text(node)]
        if node.type == "this":
            return ["self"]
        self.unknown += 1
        return self.text(node).split()

    def _ex_parenthesized_expression(self, node: Node) -> Tokens:
        inner = node.named_children[0] if node.named_children else None
        return ["(", *self.expr(inner), ")"]

    def _ex_binary_expression(self, node: Node) -> Tokens:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = self.text(node.child_by_field_name("operator"))
        if op in ("&&", "||"):
            return [*self.expr(left), "and" if op == "&&" else "or", *self.expr(right)]
        lt, rt = self.type_of(left), self.type_of(right)
        if op == "+" and (lt == "String" or rt == "String"):
            return [*self._as_str(left), "+", *self._as_str(right)]
        lx, rx = self.expr(left), self.expr(right)
        if op in ("+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=") and (lt == "char") != (rt == "char"):
            if lt == "char" and (op not in ("==", "!=") or rt in _INT_TYPES):
                lx = ["ord", "(", *lx, ")"]
            if rt == "char" and (op not in ("==", "!=") or lt in _INT_TYPES):
                rx = ["ord", "(", *rx, ")"]
        elif op in ("+", "-", "*", "/", "%") and lt == "char" and rt == "char":
            lx, rx = ["ord", "(", *lx, ")"], ["ord", "(", *rx, ")"]
        if op == "/" and self._is_int(left) and self._is_int(right):
            choice = self._decide("div", node, DIV_OPTIONS, "cast" if self.style.int_cast_div else "floor")
            if choice == "cast":
                return ["int", "(", *lx, "/", *rx, ")"]
            op = "//" if choice == "floor" else "/"
        if op == ">>>":
            op = ">>"
        return [*lx, op, *rx]

    def _ex_unary_expression(self, node: Node) -> Tokens:
        op = self.text(node.child_by_field_name("operator"))
        operand = node.child_by_field_name("operand")
        if op == "!":
            negated = self._not_in(operand)
            return negated if negated is not None else ["not", *self.expr(operand)]
        return [op, *self.expr(operand)]

    def _not_in(self, node: Node | None) -> Tokens | None:
        """`! m . containsKey ( k )` -> `k not in m` (the references' idiom)."""
        if node is None or node.type != "method_invocation":
            return None
        obj, name, args = self._call_parts(node)
        if obj is None or name not in ("contains", "containsKey") or len(args) != 1:
            return None
        return [*self.expr(args[0]), "not", "in", *self.expr(obj)]

    def _ex_update_expression(self, node: Node) -> Tokens:
        target = node.named_children[0]
        tt = self.expr(target)
        upd = self._update_tokens(node)
        if self.text(node).strip().startswith(("++", "--")):
            self.pre.append(upd)
        else:
            self.post.append(upd)
        return tt

    def _ex_assignment_expression(self, node: Node) -> Tokens:
        left = node.child_by_field_name("left")
        if left.type == "identifier" and self.text(node.child_by_field_name("operator")) == "=":
            return ["(", self.text(left), ":=", *self.expr(node.child_by_field_name("right")), ")"]
        self.pre.append(self._assignment(node))
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
        value = node.child_by_field_name("value")
        vt = self.type_of(value)
        inner = self.expr(value)
        bare = (
            inner[1:-1]
            if inner[:1] == ["("] and inner[-1:] == [")"] and value.type == "parenthesized_expression"
            else inner
        )
        if typ == "char" and vt != "char":
            return ["chr", "(", *bare, ")"]
        if typ in _INT_TYPES and vt == "char":
            return ["ord", "(", *bare, ")"]
        if typ in _INT_TYPES and vt in _FLOAT_TYPES | {"?"}:
            return ["int", "(", *bare, ")"]
        if typ in _FLOAT_TYPES and vt in _INT_TYPES and value.type not in ("identifier", "decimal_integer_literal"):
            return ["float", "(", *bare, ")"]
        return inner

    def _ex_array_access(self, node: Node) -> Tokens:
        return [*self.expr(node.child_by_field_name("array")), "[", *self.expr(node.child_by_field_name("index")), "]"]

    def _ex_field_access(self, node: Node) -> Tokens:
        obj, field = node.child_by_field_name("object"), self.text(node.child_by_field_name("field"))
        ot = self.text(obj)
        if (ot, field) in _MAX_CONST:
            return ["sys", ".", "maxsize"]
        if (ot, field) in _MIN_CONST:
            return ["-", "sys", ".", "maxsize"]
        if ot == "Math" and field == "PI":
            return ["math", ".", "pi"]
        if ot == "Math" and field == "E":
            return ["math", ".", "e"]
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
        fill = _DEFAULTS.get(base, "0" if base in _INT_TYPES | _FLOAT_TYPES else "None")
        if not sizes:
            return ["[", "]"]
        out: Tokens = [fill]
        loop_vars = ["i", "j", "k", "l", "m"]
        for depth, size in enumerate(reversed(sizes)):
            st = self.expr(size)
            if depth == 0 and not self.style.comp_array:
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
        base = _base_type(self._type_name(node.child_by_field_name("type")))
        args = self._args(node.child_by_field_name("arguments"))
        if base in _MAPS:
            return ["{", "}"]
        if base in _SETS:
            return ["set", "(", *self._arg_tokens(args), ")"]
        if base in _COLLECTIONS:
            return (
                ["list", "(", *self._arg_tokens(args), ")"] if args and self.type_of(args[0]) != "int" else ["[", "]"]
            )
        if base in ("StringBuilder", "StringBuffer", "String"):
            return self.expr(args[0]) if args and self.type_of(args[0]) == "String" else ['" "']
        if base in ("Integer", "Long", "Double"):
            return self.expr(args[0]) if args else ["0"]
        return [base, "(", *self._arg_tokens(args), ")"]

    def _ex_lambda_expression(self, node: Node) -> Tokens:
        self.unknown += 1
        return ["lambda", ":", "None"]

    def _ex_instanceof_expression(self, node: Node) -> Tokens:
        return ["isinstance", "(", *self.expr(node.named_children[0]), ",", self.text(node.named_children[1]), ")"]

    def _ex_method_invocation(self, node: Node) -> Tokens:
        obj, name, args = self._call_parts(node)
        a = [self.expr(x) for x in args]
        flat = self._arg_tokens(args)
        if obj is None:
            return [name, "(", *flat, ")"]
        ot = self.text(obj)
        if ot == "Math":
            if name in _MATH_BUILTIN:
                return [_MATH_BUILTIN[name], "(", *flat, ")"]
            if name == "cbrt" and a:
                return ["(", *a[0], ")", "**", "(", "1", "/", "3", ")"]
            if name in ("floor", "ceil", "round") and a:
                return (
                    ["math", ".", name if name != "round" else "floor", "(", *flat, ")"]
                    if name != "round"
                    else ["round", "(", *flat, ")"]
                )
            if name == "random":
                return ["random", ".", "random", "(", ")"]
            return ["math", ".", name, "(", *flat, ")"]
        if ot in ("Integer", "Long", "Short", "Byte") and name in ("parseInt", "parseLong", "valueOf") and a:
            return ["int", "(", *flat, ")"]
        if ot in ("Double", "Float") and name in ("parseDouble", "parseFloat", "valueOf") and a:
            return ["float", "(", *flat, ")"]
        if ot in ("Integer", "Long") and name == "bitCount" and a:
            return ["bin", "(", *a[0], ")", ".", "count", "(", "'1'", ")"]
        if ot in ("Integer", "Long") and name in ("max", "min") and a:
            return [name, "(", *flat, ")"]
        if ot in ("String", "Integer", "Long", "Double", "Character") and name in ("valueOf", "toString") and a:
            return ["str", "(", *flat, ")"]
        if ot == "Character" and name in _CHAR_METHODS and a:
            return [*a[0], ".", _CHAR_METHODS[name], "(", ")"]
        if ot == "Character" and name == "getNumericValue" and a:
            return ["int", "(", *a[0], ")"]
        if ot == "Arrays" and name == "asList":
            return ["[", *flat, "]"]
        if ot == "Arrays" and name == "toString" and a:
            return ["str", "(", *a[0], ")"]
        if ot == "Collections" and name in ("max", "min") and a:
            return [name, "(", *a[0], ")"]
        otype = self.type_of(obj)
        base = _base_type(otype)
        o = self.expr(obj)
        if name == "length" and not a:
            return ["len", "(", *o, ")"]
        if name == "charAt" and len(a) == 1:
            return [*o, "[", *a[0], "]"]
        if name == "equals" and len(a) == 1:
            return [*o, "==", *a[0]]
        if name == "compareTo" and len(a) == 1:
            return ["(", *o, ">", *a[0], ")", "-", "(", *o, "<", *a[0], ")"]
        if name in ("size",) and not a:
            return ["len", "(", *o, ")"]
        if name == "isEmpty" and not a:
            return ["len", "(", *o, ")", "==", "0"]
        if name == "toString" and not a:
            return o if base in ("StringBuilder", "String") else ["str", "(", *o, ")"]
        if name == "toCharArray" and not a:
            return ["list", "(", *o, ")"]
        if name == "reverse" and not a and base == "StringBuilder":
            return [*o, "[", ":", ":", "-", "1", "]"]
        if name == "reverse" and not a and obj.type == "object_creation_expression":
            return [*o, "[", ":", ":", "-", "1", "]"]
        if name == "substring" and 1 <= len(a) <= 2:
            return [*o, "[", *a[0], ":", *(a[1] if len(a) == 2 else []), "]"]
        if name in ("contains", "containsKey") and len(a) == 1:
            return [*a[0], "in", *o]
        if name == "containsValue" and len(a) == 1:
            return [*a[0], "in", *o, ".", "values", "(", ")"]
        if name == "get" and len(a) == 1 and (base in _MAPS | _COLLECTIONS or otype == "?"):
            return [*o, "[", *a[0], "]"]
        if name == "getOrDefault" and len(a) == 2:
            return [*o, ".", "get", "(", *flat, ")"]
        if name == "add" and base in _COLLECTIONS | {"?"} and len(a) == 1:
            return [*o, ".", "append", "(", *a[0], ")"]
        if name in ("push", "addLast", "offer", "offerLast") and len(a) == 1:
            return [*o, ".", "append", "(", *a[0], ")"]
        if name in ("pop", "removeLast", "pollLast") and not a:
            return [*o, ".", "pop", "(", ")"]
        if name in ("poll", "remove", "removeFirst", "pollFirst") and not a:
            return [*o, ".", "pop", "(", "0", ")"]
        if name in ("peek", "peekLast", "getLast", "lastElement") and not a:
            return [*o, "[", "-", "1", "]"]
        if name in ("peekFirst", "getFirst", "firstElement", "element") and not a:
            return [*o, "[", "0", "]"]
        if name == "remove" and len(a) == 1:
            return (
                [*o, ".", "pop", "(", *a[0], ")"]
                if base in _MAPS | _COLLECTIONS
                else [*o, ".", "remove", "(", *a[0], ")"]
            )
        if name == "keySet" and not a:
            return [*o, ".", "keys", "(", ")"]
        if name == "values" and not a:
            return [*o, ".", "values", "(", ")"]
        if name == "entrySet" and not a:
            return [*o, ".", "items", "(", ")"]
        if name == "getKey" and not a:
            return [*o, "[", "0", "]"]
        if name == "getValue" and not a:
            return [*o, "[", "1", "]"]
        if name == "append" and len(a) == 1:
            return [*o, "+", *self._as_str(args[0])]
        if name in ("intValue", "longValue", "doubleValue") and not a:
            return o
        if name in _STRING_METHODS and base == "String":
            return [*o, ".", _STRING_METHODS[name], "(", *flat, ")"]
        return [*o, ".", name, "(", *flat, ")"]

    def _call_parts(self, node: Node) -> tuple[Node | None, str, list[Node]]:
        obj = node.child_by_field_name("object")
        name = self.text(node.child_by_field_name("name"))
        return obj, name, self._args(node.child_by_field_name("arguments"))

    def _args(self, node: Node | None) -> list[Node]:
        return (
            [c for c in node.named_children if c.type not in ("line_comment", "block_comment")]
            if node is not None
            else []
        )

    def _arg_tokens(self, args: Sequence[Node]) -> Tokens:
        out: Tokens = []
        for i, arg in enumerate(args):
            out += ([","] if i else []) + self.expr(arg)
        return out

    # -- types ------------------------------------------------------------------------------------------
    def _type_name(self, node: Node | None) -> str:
        if node is None:
            return "?"
        if node.type == "array_type":
            elem = self._type_name(node.child_by_field_name("element"))
            return elem + "[]" * self.text(node.child_by_field_name("dimensions")).count("[")
        if node.type == "generic_type":
            return self.text(node.named_children[0]) + "<>"
        return self.text(node)

    def lookup(self, name: str) -> str:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return "?"

    def type_of(self, node: Node | None) -> str:
        """Best-effort static type of a Java expression ("?" when unknown)."""
        if node is None:
            return "?"
        k = node.type
        if k in ("decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal"):
            return "int"
        if k == "decimal_floating_point_literal":
            return "double"
        if k == "character_literal":
            return "char"
        if k == "string_literal":
            return "String"
        if k in ("true", "false"):
            return "boolean"
        if k == "identifier":
            return self.lookup(self.text(node))
        if k == "parenthesized_expression":
            return self.type_of(node.named_children[0]) if node.named_children else "?"
        if k == "array_access":
            t = self.type_of(node.child_by_field_name("array"))
            return t[:-2] if t.endswith("[]") else "?"
        if k == "cast_expression":
            return self._type_name(node.child_by_field_name("type"))
        if k == "binary_expression":
            op = self.text(node.child_by_field_name("operator"))
            if op in ("<", ">", "<=", ">=", "==", "!=", "&&", "||", "instanceof"):
                return "boolean"
            lt = self.type_of(node.child_by_field_name("left"))
            rt = self.type_of(node.child_by_field_name("right"))
            if op == "+" and "String" in (lt, rt):
                return "String"
            if lt in _FLOAT_TYPES or rt in _FLOAT_TYPES:
                return "double"
            if lt == "?" or rt == "?":
                return "?"
            if op in ("<<", ">>", ">>>", "&", "|", "^") and lt == "boolean":
                return "boolean"
            return "long" if "long" in (lt, rt) else "int"
        if k == "unary_expression":
            return (
                "boolean"
                if self.text(node.child_by_field_name("operator")) == "!"
                else self.type_of(node.child_by_field_name("operand"))
            )
        if k == "update_expression":
            return self.type_of(node.named_children[0])
        if k == "ternary_expression":
            a = self.type_of(node.child_by_field_name("consequence"))
            return a if a != "?" else self.type_of(node.child_by_field_name("alternative"))
        if k == "assignment_expression":
            return self.type_of(node.child_by_field_name("left"))
        if k == "field_access":
            field = self.text(node.child_by_field_name("field"))
            if field == "length":
                return "int"
            obj = self.text(node.child_by_field_name("object"))
            if obj in ("Integer", "Long", "Short"):
                return "int"
            if obj in ("Math", "Double"):
                return "double"
            return "?"
        if k == "method_invocation":
            obj, name, args = self._call_parts(node)
            ot = self.text(obj) if obj is not None else ""
            if ot == "Math":
                if name in ("max", "min", "abs"):
                    ts = [self.type_of(a) for a in args]
                    if any(t in _FLOAT_TYPES for t in ts):
                        return "double"
                    return "int" if ts and all(t in _INT_TYPES for t in ts) else "?"
                if name in ("floor", "ceil", "cbrt") or name in _MATH_DOUBLE:
                    return "double"
                if name == "round":
                    return "long"
                return "?"
            if name in (
                "length",
                "size",
                "indexOf",
                "lastIndexOf",
                "compareTo",
                "parseInt",
                "bitCount",
                "getNumericValue",
                "parseLong",
            ):
                return "int"
            if name == "charAt":
                return "char"
            if name in (
                "substring",
                "toString",
                "valueOf",
                "toUpperCase",
                "toLowerCase",
                "trim",
                "reverse",
            ) and ot not in ("Integer", "Long", "Double"):
                return "String" if name != "reverse" or self.type_of(obj) in ("StringBuilder", "String") else "?"
            if (
                name in ("equals", "contains", "containsKey", "isEmpty", "startsWith", "endsWith")
                or ot == "Character"
                and name.startswith("is")
            ):
                return "boolean"
            if ot == "Character" and name in ("toUpperCase", "toLowerCase"):
                return "char"
            if obj is None:
                return self.method_types.get(name, "?")
            return "?"
        if k == "object_creation_expression":
            return self._type_name(node.child_by_field_name("type"))
        return "?"

    def _is_int(self, node: Node) -> bool:
        return self.type_of(node) in _INT_TYPES

    # -- decision sites -----------------------------------------------------------------------------------
    def _decide(self, kind: str, node: Node, options: tuple[str, ...], default: str) -> str:
        """Record a decision site (a construct the references translate in several ways) and pick its option.

        The site's index counts sites in translation order, so a re-translation with
        ``choices`` sees the same indices; the default applies where no choice is given.
        """
        index = len(self.sites)
        self.sites.append(Site(index, kind, self._statement_text(node), options, default))
        choice = self.choices.get(index, default)
        return choice if choice in options else default

    def _statement_text(self, node: Node) -> str:
        """The Java text of the statement (or declaration) enclosing ``node``."""
        cur: Node | None = node
        while cur is not None and not (cur.type.endswith("statement") or cur.type.endswith("declaration")):
            cur = cur.parent
        target = cur if cur is not None and cur.type != "method_declaration" else node
        if target.type in ("for_statement", "while_statement", "if_statement", "do_statement"):
            target = node
        return " ".join(self.text(target).split()[:64])

    # -- emission helpers ---------------------------------------------------------------------------------
    def text(self, node: Node | None) -> str:
        if node is None:
            return ""
        return self.src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    def _emit(self, level: int, toks: Tokens) -> None:
        pre, self.pre = self.pre, []
        post, self.post = self.post, []
        for p in pre:
            self.lines.append((level, self._terminate(p)))
        self.lines.append((level, toks))
        # `while ( k -- > 0 ) :`: the side effect of a header belongs at the top of its block
        inner = level + 1 if toks[-1:] == [":"] else level
        for p in post:
            self.lines.append((inner, self._terminate(p)))

    def _simple(self, level: int, toks: Tokens) -> None:
        self._emit(level, self._terminate(toks))

    def _terminate(self, toks: Tokens) -> Tokens:
        return [*toks, ";"] if self.style.semicolons else toks

    def _copy_line(self, node: Node, level: int) -> None:
        self.unknown += 1
        text = self.src[max(node.start_byte, len(_WRAPPER)) : node.end_byte].decode("utf-8", errors="replace")
        toks = [t for t in text.split() if t not in ("{", "}", ";")]
        if toks:
            self._emit(level, toks)


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))


def _has_main(body: Node) -> bool:
    return any(
        c.type == "method_declaration"
        and c.child_by_field_name("name") is not None
        and c.child_by_field_name("name").text == b"main"
        for c in body.named_children
    )


def _mentions(node: Node | None, var: str) -> bool:
    return node is not None and any(n.type == "identifier" and n.text == var.encode() for n in _walk(node))


def _assigns(node: Node, var: str) -> bool:
    """Does ``node`` write ``var`` (so a Python range loop would not be equivalent)?"""
    enc = var.encode()
    for n in _walk(node):
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


def _plus_one(toks: Tokens, op: str) -> Tokens:
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


def _base_type(typ: str) -> str:
    return typ.removesuffix("<>")


def _commas(items: Sequence[str]) -> Tokens:
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


def parses_cleanly(java: str) -> bool:
    """Does tree-sitter-java parse ``java`` (inside the wrapper class) without error nodes?"""
    return not _parser().parse(f"{_WRAPPER} {java} }}".encode()).root_node.has_error


def translate(java: str, style: Style = DEFAULT_STYLE, choices: Mapping[int, str] | None = None) -> str:
    """Translate Java (AVATAR tokens) to Python (AVATAR tokens); raises on unusable input."""
    return " ".join(Translator(style, choices).translate(java))


def translate_with_sites(
    java: str, style: Style = DEFAULT_STYLE, choices: Mapping[int, str] | None = None
) -> tuple[str, list[Site]]:
    """``translate`` plus the decision sites met on the way."""
    tr = Translator(style, choices)
    return " ".join(tr.translate(java)), tr.sites


def style_variants(base: Style = DEFAULT_STYLE) -> dict[str, Style]:
    """Each switch flipped on its own: the candidates the selector learns to choose among."""
    return {name: replace(base, **{name: not getattr(base, name)}) for name in STYLE_FIELDS}


def coverage(java: str) -> dict[str, Any]:
    """Diagnostics: how many nodes were copied verbatim."""
    tr = Translator()
    tr.translate(java)
    return {"unknown": tr.unknown}
