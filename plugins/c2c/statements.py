"""Members and statements: Java declarations, control flow and statement-level calls -> Python lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from plugins.c2c.java_types import _COLLECTIONS, _MAPS
from plugins.c2c.style import DIV_OPTIONS
from plugins.c2c.syntax import Tokens, _assigns, _base_type, _commas, _has_main, _mentions, _plus_one

if TYPE_CHECKING:
    from tree_sitter import Node


class StatementsMixin:
    """Emits Python lines for members and statements (uses the expression and type mixins)."""

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
