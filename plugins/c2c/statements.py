"""Members and statements: Java declarations, control flow and statement-level calls -> Python lines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

from plugins.c2c.errors import BUG_ERRORS, TranslationBug
from plugins.c2c.java_types import COLLECTION_TYPES, FLOAT_TYPES, INT_TYPES, MAP_TYPES, SET_TYPES
from plugins.c2c.library.collections import walked
from plugins.c2c.library.rows import FOR_EACH, LOOP_HEADER, Loop
from plugins.c2c.library.text import joined
from plugins.c2c.style import DIV_OPTIONS
from plugins.c2c.syntax import (
    PY_BUILTINS,
    PY_KEYWORDS,
    PY_MODULES,
    Tokens,
    base_type,
    comma_joined,
    has_main,
    has_own_continue,
    lambda_params,
    local_names,
    map_get_default,
    mentions,
    plus_one,
    read_after,
    required,
    returns_besides_turns,
    turn_return,
    unparenthesized,
    walk_nodes,
    writes_var,
)
from plugins.c2c.wrapping import hash_step, relies_on_overflow, squares_in_loop

if TYPE_CHECKING:
    from tree_sitter import Node

    from plugins.c2c.library.rows import Emitting
    from plugins.c2c.state import TranslationState

    _Translator = Emitting  # for the checker, a mixin is the Emitting its Translator is
else:
    _Translator = object


class StatementsMixin(_Translator):
    """Emits Python lines for members and statements (uses the expression and type mixins)."""

    if TYPE_CHECKING:  # what it uses of the Translator and its other mixins
        st: TranslationState

        def _emit(self, level: int, toks: Tokens) -> None: ...
        def _simple(self, level: int, toks: Tokens) -> None: ...
        def _copy_line(self, node: Node, level: int) -> None: ...
        def resolve_statement(self, node: Node) -> Tokens | None: ...
        def resolve_in(self, node: Node | None, context: str, loop: Loop | None = None) -> Tokens | None: ...
        def declared_names(self) -> set[str]: ...
        def element_type(self, node: Node | None) -> str | None: ...
        def _decide(self, kind: str, node: Node, options: tuple[str, ...], default: str) -> str: ...
        def _type_name(self, node: Node | None) -> str: ...
        def _is_int(self, node: Node) -> bool: ...
        def _truncates(self, left: Node, right: Node) -> bool: ...
        def _wide(self, left: Node, right: Node) -> bool: ...
        def _call_parts(self, node: Node) -> tuple[Node | None, str, list[Node]]: ...
        def _array_initializer(self, node: Node) -> Tokens: ...
        def _thread_declaration(self, node: Node, level: int) -> bool: ...
        def _skip_declaration(self, node: Node) -> bool: ...
        def _program_expression_statement(self, node: Node, level: int) -> bool: ...

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
            elif name in PY_KEYWORDS:  # `def print` does not parse or hides the builtin its body calls
                name = py_method_name(name)
            start = len(self.st.lines)
            self._emit(level, ["def", name, "(", *comma_joined(names), ")", ":"])
            self._block(node.child_by_field_name("body"), level + 1, params=params)
            self._rename_shadowing(node, start)
        elif kind == "field_declaration":
            self._declaration(node, level)
        elif kind in ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration"):
            body = node.child_by_field_name("body")
            if level == 0 and body is not None and has_main(body):
                for child in body.named_children:
                    self._member(child, level, main)
                return
            self._emit(level, ["class", self.text(node.child_by_field_name("name")), ":"])
            start = len(self.st.lines)
            if body is not None:
                for child in body.named_children:
                    self._member(child, level + 1, main)
            if len(self.st.lines) == start:
                self._emit(level + 1, ["pass"])
        elif kind in ("block", "static_initializer"):
            self._statement(node, level)
        elif kind in ("line_comment", "block_comment"):
            return
        else:
            self._copy_line(node, level)

    def _rename_shadowing(self, method: Node, start: int, calls_from: int | None = None) -> None:
        """Rename the method's variables that are Python keywords, or builtins its translation calls (or, from
        ``calls_from``, the translation: a module-level ``main``'s variables are globals every function sees).

        ``len = len ( s )`` raises ``UnboundLocalError`` and ``in = 0`` does not parse: such a
        variable becomes ``Len`` (``len_`` when the source already has ``Len``).
        """
        lines = self.st.lines[start:]
        used = {t for _, toks in lines for t in toks}
        if used.isdisjoint(self.declared_names() & (PY_KEYWORDS | PY_BUILTINS)):
            return  # the common case: no declared name to rename, no walk of the method
        declared = local_names(method)
        if not declared:
            return
        # a builtin is in use when called (`len (`), a module when an attribute is read (`math .`)
        calls = {
            a
            for _, toks in self.st.lines[start if calls_from is None else calls_from :]
            for a, b in zip(toks, toks[1:], strict=False)
            if b == ("." if a in PY_MODULES else "(")
        }
        idents = {(n.text or b"").decode() for n in walk_nodes(method) if n.type == "identifier"}
        renames = {}
        for name in declared:
            if name in PY_KEYWORDS or (name in PY_BUILTINS and name in calls):
                new = name[:1].upper() + name[1:]
                renames[name] = new if new not in idents and new not in used and new != name else name + "_"
        if not renames:
            return
        for i, (lvl, toks) in enumerate(lines, start):
            out: Tokens = []
            for j, tok in enumerate(toks):
                nxt = toks[j + 1] if j + 1 < len(toks) else ""
                prev = out[-1] if out else ""
                kept = nxt == ("." if tok in PY_MODULES else "(") and tok not in PY_KEYWORDS
                if tok in _INFIX_KEYWORDS and _ends_expression(prev):
                    kept = True  # `for i in range`, `x in s`: the translation's own keyword, not the variable
                if tok == "pass" and len(toks) == 1:
                    kept = True
                if tok in renames and prev != "." and not kept:
                    tok = renames[tok]
                out.append(tok)
            self.st.lines[i] = (lvl, out)

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
        self.st.scopes.append(dict(params))
        start = len(self.st.lines)
        if node is not None:
            if node.type in ("block", "constructor_body"):
                for child in node.named_children:
                    self._statement(child, level)
            elif node.type in _EFFECTS:  # a lambda's body `acc [ 0 ] += x`
                self._expression_statement(node, level)
            else:
                self._statement(node, level)
        if len(self.st.lines) == start:
            self._emit(level, ["pass"])
        self.st.scopes.pop()

    def _statement(self, node: Node, level: int) -> None:
        """One statement; a loop inside a labelled loop whose ``break`` / ``continue label`` jumps out of it
        resets and tests the label's flags (``_st_labeled_statement``)."""
        inner = self.st.labels and node.type in _LOOP_TYPES
        if inner:
            for label, loop, _brk, cont in self.st.labels:
                if (
                    cont
                    and node.id != loop.id
                    and not _loop_between(node, loop)
                    and _jumps_to(node, label, "continue_statement", nested_only=False)
                ):
                    self._simple(level, [f"{label}_continue", "=", "False"])
        self._dispatch(node, level)
        if inner:
            for label, loop, brk, cont in self.st.labels:
                if node.id == loop.id:
                    continue
                if brk and _jumps_to(node, label, "break_statement", nested_only=False):
                    self._emit(level, ["if", f"{label}_break", ":"])
                    self._simple(level + 1, ["break"])
                if cont and _jumps_to(node, label, "continue_statement", nested_only=False):
                    self._emit(level, ["if", f"{label}_continue", ":"])
                    if _loop_between(node, loop):
                        self._simple(level + 1, ["break"])
                    else:
                        self._continue(level + 1)

    def _dispatch(self, node: Node, level: int) -> None:
        kind = node.type
        handler = getattr(self, f"_st_{kind}", None)
        if handler is not None:
            try:
                handler(node, level)
            except TranslationBug:
                raise
            except BUG_ERRORS as exc:
                raise TranslationBug.at(node, self.st.src, self.st.offset, exc) from exc
        elif kind in ("line_comment", "block_comment", "empty_statement", "assert_statement"):
            return  # Java runs without `-ea`: an `assert` is neither checked nor evaluated
        elif kind in ("class_declaration", "method_declaration"):
            self._member(node, level, [])
        else:
            self._copy_line(node, level)

    def _st_block(self, node: Node, level: int) -> None:
        for child in node.named_children:
            self._statement(child, level)

    def _st_local_variable_declaration(self, node: Node, level: int) -> None:
        if not self._thread_declaration(node, level):  # a Thread whose runnable runs here (program.py)
            self._declaration(node, level)

    def _declaration(self, node: Node, level: int) -> None:
        if self._skip_declaration(node):  # `Scanner sc = new Scanner ( System . in )` (program.py)
            return
        typ = self._type_name(node.child_by_field_name("type"))
        elem = self.element_type(node.child_by_field_name("type"))
        for decl in node.children_by_field_name("declarator"):
            name = self.text(decl.child_by_field_name("name"))
            dims = decl.child_by_field_name("dimensions")
            vtype = typ + ("[]" * self.text(dims).count("[") if dims is not None else "")
            value = decl.child_by_field_name("value")
            if typ == "var" and value is not None:  # Java 10's `var x = ...`: the value's type
                vtype = self.type_of(value)
                if value.type == "object_creation_expression":
                    elem = self.element_type(value.child_by_field_name("type"))
            self.st.scopes[-1][name] = vtype
            if elem is not None and dims is None:
                self.st.scopes[-1][name + "<elem>"] = elem  # what `st . peek ( )` gives (``type_of``)
            if value is None:
                continue
            default = map_get_default(value) if value.type == "object_creation_expression" else None
            if default is not None and base_type(vtype) in MAP_TYPES:  # its `get` has a value for a missing key
                self.st.map_defaults[name] = self.expr(default)
                self._simple(level, [name, "=", "{", "}"])
                continue
            self.st.map_defaults.pop(name, None)
            self._simple(level, [name, "=", *self._value(value, vtype)])

    def _value(self, value: Node, vtype: str) -> Tokens:
        if value.type == "array_initializer":
            return self._array_initializer(value)
        out = self.expr(value)
        if vtype in ("int", "long") and self.type_of(value) == "char":
            return ["ord", "(", *out, ")"]
        if vtype == "char" and self.type_of(value) in INT_TYPES:
            return ["chr", "(", *out, ")"]  # `char c = 'a' + 2`: a constant int expression narrowed to a char
        return out

    def _st_expression_statement(self, node: Node, level: int) -> None:
        if self._program_expression_statement(node, level):  # an I/O object made for a field (program.py)
            return
        expr = node.named_children[0] if node.named_children else None
        if expr is not None:
            self._expression_statement(expr, level)

    def _expression_statement(self, expr: Node, level: int) -> None:
        if expr.type == "update_expression":
            self._simple(level, self._update_tokens(expr))
            return
        if expr.type == "method_invocation" and self._lambda_loop(expr, level):
            return
        if expr.type == "method_invocation":
            special = self.resolve_statement(expr)  # resolve.py: the one place a call is translated
            if special is not None:
                if special:  # [] for `out . flush ( )`, `sc . close ( )`: nothing to do in Python
                    self._simple(level, special)
                return
        if expr.type == "assignment_expression":
            self._simple(level, self._assignment(expr))
            return
        self._simple(level, self.expr(expr))

    def _lambda_loop(self, call: Node, level: int) -> bool:
        """``xs . forEach ( x -> ... ) ;`` of a collection, a stream or a map (``( k , v ) ->``): a for loop over
        what it walks, in Java's order (``walked``), the lambda's body its suite, so that the body's edits of a
        builder (a Python str) or of a local are kept (a lambda or a hoisted def loses them). False for another
        call, and for a body that returns a value or returns from inside a loop of its own (a bare ``return``
        that ends a turn is the loop's ``continue``: ``turn_return``)."""
        obj, name, args = self._call_parts(call)
        if name != "forEach" or obj is None or len(args) != 1 or args[0].type != "lambda_expression":
            return False
        body, params = args[0].child_by_field_name("body"), lambda_params(args[0])
        if body is None or returns_besides_turns(body) or len(params) != (2 if self._is_map(obj) else 1):
            return False
        if len(params) == 2 and obj.type not in ("identifier", "field_access"):
            return False  # a map walked by its keys is read twice
        if params[-1][1] == "?" and obj.type == "identifier":
            params[-1] = (params[-1][0], self.lookup(self.text(obj) + "<elem>"))
        if self.is_stream(obj) or obj.type == "method_invocation":
            walk = self._iterated(obj)
        else:
            o = self.expr(obj)
            walk = walked(self, obj, o)
        self._emit(level, ["for", params[0][0], "in", *walk, ":"])
        self.st.scopes.append(dict(params))
        if len(params) == 2:
            self._simple(level + 1, [params[1][0], "=", *o, "[", params[0][0], "]"])
        if body.type == "block":
            self._loop_body(body, level + 1, None)
        else:
            self._expression_statement(body, level + 1)
        self.st.scopes.pop()
        return True

    def _is_map(self, node: Node) -> bool:
        return base_type(self.type_of(node)) in MAP_TYPES

    def _assignment(self, node: Node) -> Tokens:
        left, right = required(node, "left"), required(node, "right")
        op = self.text(node.child_by_field_name("operator"))
        lt = self.expr(left)
        if right.type == "assignment_expression" and op == "=":
            return [*lt, "=", *self._assignment(right)]
        if op == ">>>=":
            op = ">>="
        if op == "/=" and self._is_int(left) and self._is_int(right):
            choice = self._decide("div", node, DIV_OPTIONS, "cast" if self.st.style.int_cast_div else "floor")
            if self._truncates(left, right) and self._wide(left, right):
                return [*lt, "=", "java_div", "(", *lt, ",", *self.expr(right), ")"]
            if choice == "cast" or self._truncates(left, right):
                return [*lt, "=", "int", "(", *lt, "/", *self.expr(right), ")"]
            op = "//=" if choice == "floor" else "/="
        if op == "%=" and self._truncates(left, right) and self._wide(left, right):
            return [*lt, "=", "java_mod", "(", *lt, ",", *self.expr(right), ")"]
        if op == "%=" and self._truncates(left, right):
            return [*lt, "=", "int", "(", "math", ".", "fmod", "(", *lt, ",", *self.expr(right), ")", ")"]
        rt = self._value(right, self.type_of(left)) if right.type == "array_initializer" else self.expr(right)
        if op in ("+=", "-=", "*=", "^=", "|=", "&=") and self.type_of(left) == "char":
            # char arithmetic: Python strings have no `+= 1` / `^=`; go through the code point
            if self.type_of(right) == "char":
                rt = ["ord", "(", *rt, ")"]
            return [*lt, "=", "chr", "(", "ord", "(", *lt, ")", op[:-1], *rt, ")"]
        if op == "+=" and self.type_of(left) == "String" and self.type_of(right) in INT_TYPES | FLOAT_TYPES:
            rt = ["str", "(", *rt, ")"]  # Java's `s += 3` appends "3"
        if op in ("=", "+=", "-=", "*=") and self.type_of(left) in INT_TYPES and self.type_of(right) == "char":
            rt = ["ord", "(", *rt, ")"]
        hashes = self.policy.wrapping_hash and self.type_of(left) in ("int", "long") and hash_step(node, op)
        if (
            op in ("=", "*=")
            and self.type_of(left) in ("int", "long")
            and (hashes or relies_on_overflow(node, op) or squares_in_loop(node, op))
        ):
            half = "63" if self.type_of(left) == "long" else "31"  # wrap as Java's int / long do
            value = [*lt, "*", "(", *rt, ")"] if op == "*=" else ["(", *rt, ")"]
            return [
                *lt,
                "=",
                "(",
                *value,
                "+",
                "2",
                "**",
                half,
                ")",
                "%",
                "(",
                "2",
                "**",
                half,
                "*",
                "2",
                ")",
                "-",
                "2",
                "**",
                half,
            ]
        return [*lt, op, *rt]

    def _update_tokens(self, node: Node) -> Tokens:
        target = node.named_children[0]
        op = "+" if "++" in self.text(node) else "-"
        tt = self.expr(target)
        if self.type_of(target) == "char":
            return [*tt, "=", "chr", "(", "ord", "(", *tt, ")", op, "1", ")"]
        if self.st.style.expand_incr:
            return [*tt, "=", *tt, op, "1"]
        return [*tt, op + "=", "1"]

    def _st_return_statement(self, node: Node, level: int) -> None:
        if self.st.loop_updates and turn_return(node):  # `return ;` in a forEach lambda made a loop
            self._continue(level)
            return
        if self.st.sb_return and not node.named_children:  # a method returning its StringBuilder out-parameter
            self._simple(level, ["return", self.st.sb_return])
            return
        value = node.named_children[0] if node.named_children else None
        inner = unparenthesized(value)
        if inner is not None and inner.type == "ternary_expression" and _has_assignment(inner):
            self._return_value(inner, level)  # `return p [ x ] == x ? x : ( p [ x ] = find ( p [ x ] ) )`
            return
        if self.policy.drops_dummy_return and _dummy_return(node, value):
            return  # a printing procedure's `return 0 ;`: its reference is the void original, returning None
        self._simple(level, ["return", *self.expr(value)] if value is not None else ["return"])

    def _return_value(self, value: Node | None, level: int) -> None:
        """``return value``; a conditional holding an assignment as ``if`` / ``else`` returns (the assignment
        only on its branch)."""
        value = unparenthesized(value)
        if value is not None and value.type == "ternary_expression" and _has_assignment(value):
            self._emit(level, ["if", *self.expr(value.child_by_field_name("condition")), ":"])
            self._return_value(value.child_by_field_name("consequence"), level + 1)
            self._emit(level, ["else", ":"])
            self._return_value(value.child_by_field_name("alternative"), level + 1)
            return
        self._simple(level, ["return", *self.expr(value)] if value is not None else ["return"])

    def _st_break_statement(self, node: Node, level: int) -> None:
        if not self._labelled_jump(node, level, "break"):
            self._simple(level, ["break"])

    def _st_continue_statement(self, node: Node, level: int) -> None:
        if not self._labelled_jump(node, level, "continue"):
            self._continue(level)

    def _continue(self, level: int) -> None:
        updates = self.st.loop_updates[-1] if self.st.loop_updates else None
        for upd in updates or []:
            self._simple(level, upd)
        self._simple(level, ["continue"])

    def _st_throw_statement(self, node: Node, level: int) -> None:
        self._simple(level, ["raise", "Exception"])

    def _st_if_statement(self, node: Node, level: int, keyword: str = "if") -> None:
        cond = node.child_by_field_name("condition")
        header = [keyword, *self._condition(cond), ":"]
        # `if ( c ++ > 0 )`: the increment lands at the top of the block; the else branch needs it too
        effects = list(self.st.post) if self._post_effects_needed(cond, node) else []
        self._emit(level, header)
        self._block(node.child_by_field_name("consequence"), level + 1)
        alt = node.child_by_field_name("alternative")
        if effects:
            self._emit(level, ["else", ":"])
            for eff in effects:
                self._simple(level + 1, eff)
            if alt is not None:
                self._statement(alt, level + 1)
            return
        if alt is None:
            return
        if alt.type == "if_statement":
            self._st_if_statement(alt, level, keyword="elif")
        else:
            self._emit(level, ["else", ":"])
            self._block(alt, level + 1)

    def _post_effects_needed(self, cond: Node | None, stmt: Node) -> bool:
        """Do the condition's post-increments matter when it is false (an else branch, or read later)?

        Only unconditional ones (not behind ``&&`` / ``||``) are handled; others keep the old form.
        """
        if cond is None or not self.st.post:
            return False
        updates = [n for n in walk_nodes(cond) if n.type == "update_expression"]
        if not updates or any(_short_circuited(n, cond) for n in updates):
            return False
        if stmt.type == "if_statement" and stmt.child_by_field_name("alternative") is not None:
            return True
        targets = [n.named_children[0] for n in updates if n.named_children]
        return any(t.type != "identifier" or read_after(stmt, (t.text or b"").decode()) for t in targets)

    def _condition(self, cond: Node | None) -> Tokens:
        if cond is None:
            return ["True"]
        if cond.type == "parenthesized_expression" and cond.named_children:
            inner = self.expr(cond.named_children[0])
            return ["(", *inner, ")"] if self.st.style.cond_parens else inner
        return self.expr(cond)

    def _st_while_statement(self, node: Node, level: int) -> None:
        cond = node.child_by_field_name("condition")
        test = cond.named_children[0] if cond is not None and cond.named_children else None
        # a loop whose test is an idiom's call (`while ( it . hasNext ( ) )`): that row writes it (`library/`)
        if self.resolve_in(test, LOOP_HEADER, Loop(node.child_by_field_name("body"), partial(self._suite, level))):
            return
        header = ["while", *self._condition(cond), ":"]
        # `while ( n -- > 0 )` decrements once more when the test fails: `while ... else` runs exactly then
        effects = list(self.st.post) if self._post_effects_needed(cond, node) else []
        self._emit(level, header)
        self._loop_body(node.child_by_field_name("body"), level + 1, None)
        if effects:
            self._emit(level, ["else", ":"])
            for eff in effects:
                self._simple(level + 1, eff)

    def _suite(self, level: int, header: Tokens, scope: Mapping[str, str], rest: Sequence[Node]) -> Tokens:
        """A loop a LOOP_HEADER row writes (``library.rows.Loop.write``): ``header`` at ``level``, then ``rest``
        inside a scope typing ``scope``'s names (``pass`` when they write nothing); returns ``header``."""
        self._emit(level, header)
        self.st.loop_updates.append(None)
        start = len(self.st.lines)
        self.st.scopes.append(dict(scope))
        for stmt in rest:
            self._statement(stmt, level + 1)
        self.st.scopes.pop()
        if len(self.st.lines) == start:
            self._emit(level + 1, ["pass"])
        self.st.loop_updates.pop()
        return header

    def _st_do_statement(self, node: Node, level: int) -> None:
        self._emit(level, ["while", "(", "True", ")", ":"] if self.st.style.cond_parens else ["while", "True", ":"])
        cond = node.child_by_field_name("condition")
        inner = cond.named_children[0] if cond is not None and cond.named_children else cond
        body = node.child_by_field_name("body")
        check = None
        if inner is not None and body is not None and has_own_continue(body):
            # `continue` in a do-while jumps to the condition: test it before continuing
            check = [["if", "not", "(", *self.expr(inner), ")", ":", "break"]]
        self._loop_body(body, level + 1, check, keep_pass=False, tail=False)
        test = ["not", "(", *self.expr(inner), ")"] if inner is not None else ["True"]
        self._emit(level + 1, ["if", *test, ":"])
        self._emit(level + 2, ["break"])

    def _loop_body(
        self,
        body: Node | None,
        level: int,
        updates: list[Tokens] | None,
        keep_pass: bool = True,
        tail: bool = True,
    ) -> None:
        """A loop's suite; ``updates`` run before every ``continue`` and, with ``tail``, at the end."""
        self.st.loop_updates.append(updates)
        start = len(self.st.lines)
        self.st.scopes.append({})
        if body is not None:
            self._statement(body, level)
        for upd in (updates or []) if tail else []:
            self._simple(level, upd)
        self.st.scopes.pop()
        if len(self.st.lines) == start and keep_pass:
            self._emit(level, ["pass"])
        self.st.loop_updates.pop()

    def _st_enhanced_for_statement(self, node: Node, level: int) -> None:
        name = self.text(node.child_by_field_name("name"))
        typ = self._type_name(node.child_by_field_name("type"))
        value = required(node, "value")
        if typ == "var":  # `for ( var x : a )`: an array's element type
            typ = self.type_of(value).removesuffix("[]") if self.type_of(value).endswith("[]") else "?"
        self.st.scopes.append({name: typ})
        self._emit(level, ["for", name, "in", *self._iterated(value), ":"])
        self._loop_body(node.child_by_field_name("body"), level + 1, None)
        self.st.scopes.pop()

    def _iterated(self, value: Node) -> Tokens:
        """What a for-each walks: a HashSet / HashMap of a program in Java's bucket order (``hash_keys``; its
        ``keySet`` / ``entrySet`` / ``values``: rows of the FOR_EACH context, ``library/collections.py``)."""
        if value.type == "method_invocation":
            walked = self.resolve_in(value, FOR_EACH)  # resolve.py
            return walked if walked is not None else self.expr(value)
        name = value.child_by_field_name("field") if value.type == "field_access" else value
        if name is None or name.type != "identifier" or self.text(name) not in self.st.prog.hash_tables:
            return self.expr(value)
        return ["hash_keys", "(", *self.expr(value), ")"]

    def _st_for_statement(self, node: Node, level: int) -> None:
        self.st.scopes.append({})
        rng = self._range_loop(node)
        if rng is not None:
            self._emit(level, rng)
            self._loop_body(node.child_by_field_name("body"), level + 1, None)
            self.st.scopes.pop()
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
        if self.st.style.cond_parens:
            test = ["(", *test, ")"]
        self._emit(level, ["while", *test, ":"])
        updates = [self._update_or_expr(u) for u in node.children_by_field_name("update")]
        self._loop_body(node.child_by_field_name("body"), level + 1, updates)
        self.st.scopes.pop()

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
            self.st.scopes[-1][var] = self._type_name(init.child_by_field_name("type"))
        elif init.type == "assignment_expression" and self.text(init.child_by_field_name("operator")) == "=":
            left = required(init, "left")
            if left.type != "identifier":
                return None
            var, start_node = self.text(left), init.child_by_field_name("right")
            if read_after(node, var):  # Java leaves it at the bound when the loop ends; range does not
                return None
        else:
            return None
        step = self._step(updates[0], var)
        body = node.child_by_field_name("body")
        stride = self._variable_step(updates[0], var, body) if step is None else None
        if stride is not None:  # `j += i` of a sieve: `range ( i * i , n + 1 , i )`, where a while loop is 2x slower
            step = "-" if stride[0] == "-" else "+"
        elif step is None:
            return None
        op = self.text(cond.child_by_field_name("operator"))
        left, right = required(cond, "left"), required(cond, "right")
        if self.text(left) != var:
            if self.text(right) != var:
                return None
            left, right = right, left
            op = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}.get(op, op)
        if op not in ("<", "<=", ">", ">=") or mentions(right, var):
            return None
        if body is not None and _bound_changes(right, body):
            return None
        ascending = not step.startswith("-")
        if ascending != (op in ("<", "<=")):
            return None
        if body is not None and writes_var(body, var):
            return None
        start = self.expr(start_node)
        stop = self.expr(right)
        if self.lookup(var) == "char":  # a char loop variable: the while loop steps it through chr/ord
            return None
        if self.lookup(var) in INT_TYPES:  # `for ( int i = 'a' ; i <= 'z' ; i ++ )`: code points
            if self.type_of(start_node) == "char":
                start = ["ord", "(", *start, ")"]
            if self.type_of(right) == "char":
                stop = ["ord", "(", *stop, ")"]
        if self.type_of(right) in FLOAT_TYPES:  # `i <= Math.sqrt(n)`: range wants an int bound
            if op == "<=":
                stop = ["int", "(", *stop, ")"]
            else:
                stop = ["math", ".", "ceil" if op in ("<", ">=") else "floor", "(", *stop, ")"]
        if op == "<=":
            stop = plus_one(stop, "+")
        elif op == ">=":
            stop = plus_one(stop, "-")
        if step == "1" and start == ["0"] and not self.st.style.range_zero:
            args = stop
        elif step == "1":
            args = [*start, ",", *stop]
        elif stride is not None:
            args = [*start, ",", *stop, ",", *stride]
        else:
            args = [*start, ",", *stop, ",", *(["-", step[1:]] if step.startswith("-") else [step])]
        return ["for", var, "in", "range", "(", *args, ")", ":"]

    def _variable_step(self, upd: Node, var: str, body: Node | None) -> Tokens | None:
        """The step of ``var += s`` / ``var -= s`` (``-`` and ``s`` for the latter) when ``s`` is made of names the
        loop never writes, and literals (a zero or negative ``s`` loops forever in Java, a range raises)."""
        if upd.type != "assignment_expression" or self.text(upd.child_by_field_name("operator")) not in ("+=", "-="):
            return None
        left, right = upd.child_by_field_name("left"), upd.child_by_field_name("right")
        if self.text(left) != var or right is None:
            return None
        names = [n for n in walk_nodes(right) if n.type == "identifier"]
        simple = all(
            n.type in ("identifier", "decimal_integer_literal", "binary_expression", "parenthesized_expression")
            or not n.is_named
            for n in walk_nodes(right)
        )
        if (
            not names
            or not simple
            or any(self.text(n) == var or (body and writes_var(body, self.text(n))) for n in names)
        ):
            return None
        if any(self.lookup(self.text(n)) not in INT_TYPES for n in names):
            return None
        stride = self.expr(right)
        if len(stride) > 1:
            stride = ["(", *stride, ")"]
        return ["-", *stride] if self.text(upd.child_by_field_name("operator")) == "-=" else stride

    def _step(self, upd: Node, var: str) -> str | None:
        if upd.type == "update_expression":
            if self.text(upd.named_children[0]) != var:
                return None
            return "1" if "++" in self.text(upd) else "-1"
        if upd.type == "assignment_expression":
            left, right = required(upd, "left"), required(upd, "right")
            op = self.text(upd.child_by_field_name("operator"))
            if self.text(left) != var or right.type != "decimal_integer_literal":
                return None
            if op == "+=":
                return self.text(right)
            if op == "-=":
                return "-" + self.text(right)
        return None

    def _st_switch_expression(self, node: Node, level: int, target: Tokens | None = None) -> None:
        """A switch as an ``if`` / ``elif`` chain; a switch expression's value (``yield x``, a rule's ``case 1 -> x``)
        is assigned to ``target`` (``_ex_switch_expression``)."""
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
                groups.append((labels, _case_body(stmts), is_default))
                labels, is_default = [], False
        arrows = body is not None and any(group.type == "switch_rule" for group in body.named_children)
        groups = _fall_through(groups, arrows)
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
                self._emit(level, [keyword, *(["(", *test, ")"] if self.st.style.cond_parens else test), ":"])
            keyword = "elif"
            start = len(self.st.lines)
            inner = level + 1
            wrapped = _breaks_inside(stmts)
            if wrapped:  # `case 0: if ( x ) break ; ...`: the case runs in a loop that break leaves
                self._emit(inner, ["while", "True", ":"])
                inner += 1
            if target is not None:
                self.st.yields.append((target, wrapped))
            for st in stmts:
                if st.type == "break_statement":
                    break  # the end of this case (statements after it never run)
                if target is not None and st.type == "expression_statement" and arrows and len(stmts) == 1:
                    self._simple(inner, [*target, "=", *self.expr(st.named_children[0])])  # `case 1 -> x ;`
                    continue
                if target is not None and st.type == "yield_statement":  # the end of this case, with its value
                    self._simple(inner, [*target, "=", *self.expr(st.named_children[0])])
                    break
                self._statement(st, inner)
            if target is not None:
                self.st.yields.pop()
            if inner > level + 1:
                self._simple(inner, ["break"])
            if len(self.st.lines) == start:
                self._emit(level + 1, ["pass"])

    _st_switch_statement = _st_switch_expression

    def _st_yield_statement(self, node: Node, level: int) -> None:
        """``yield x ;`` of a switch expression: its value assigned to the switch's target (and the case's
        ``while True`` left, when the yield is not the case's last statement)."""
        if not self.st.yields:
            self._copy_line(node, level)
            return
        target, wrapped = self.st.yields[-1]
        self._simple(level, [*target, "=", *self.expr(node.named_children[0] if node.named_children else None)])
        if wrapped:
            self._simple(level, ["break"])

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
        """``outer : for ( ... ) { for ( ... ) { break outer ; } }`` under ``Policy.labelled_jumps``: a flag set
        before the inner ``break`` and tested after every inner loop that holds it (Python has no labelled
        break); ``continue outer`` from an inner loop sets ``outer_continue``, breaks out, and the loop
        directly inside ``outer`` continues ``outer`` when it is set. Else the label is dropped."""
        label = self.text(node.named_children[0]) if node.named_children else ""
        loops = [c for c in node.named_children[1:] if c.type in _LOOP_TYPES]
        brk = bool(loops) and _jumps_to(loops[0], label, "break_statement", nested_only=True)
        cont = bool(loops) and _jumps_to(loops[0], label, "continue_statement", nested_only=True)
        jumps = self.policy.labelled_jumps and (brk or cont)
        if jumps:
            if brk:
                self._simple(level, [f"{label}_break", "=", "False"])
            self.st.labels.append((label, loops[0], brk, cont))
        for child in node.named_children[1:]:
            self._statement(child, level)
        if jumps:
            self.st.labels.pop()

    def _labelled_jump(self, node: Node, level: int, kind: str) -> bool:
        """``break label`` / ``continue label`` from a loop nested in the labelled one: set its flag (then break)."""
        target = next((c for c in node.named_children if c.type == "identifier"), None)
        if target is None or not self.st.labels:
            return False
        for label, loop, _brk, _cont in reversed(self.st.labels):
            if self.text(target) == label and _loop_between(node, loop):
                self._simple(level, [f"{label}_{kind}", "=", "True"])
                self._simple(level, ["break"])
                return True
        return False

    def _st_synchronized_statement(self, node: Node, level: int) -> None:
        self._statement(node.named_children[-1], level)

    def _st_local_class_declaration(self, node: Node, level: int) -> None:
        self._member(node, level, [])

    # -- statement-level calls -------------------------------------------------------------------
    def as_str(self, node: Node) -> Tokens:
        t = self.type_of(node)
        out = self.expr(node)
        if t in ("String", "char", "StringBuilder"):
            return out
        if t == "boolean" and self.policy.java_strings:  # Java prints `true`
            return ["str", "(", *out, ")", ".", "lower", "(", ")"]
        listed = self._collection_text(node, out)
        return listed if listed is not None else ["str", "(", *out, ")"]

    def _collection_text(self, node: Node, out: Tokens) -> Tokens | None:
        """A list or set as a program's Java prints it, ``[a, b]`` (a HashSet in its bucket order, a TreeSet
        sorted); else None."""
        prog = self.st.prog
        if not self.policy.java_strings or base_type(self.type_of(node)) not in COLLECTION_TYPES | SET_TYPES:
            return None
        if node.type == "identifier" and self.text(node) in prog.hash_tables:
            out = ["hash_keys", "(", *out, ")"]
        elif node.type == "identifier" and self.text(node) in prog.sorted_maps:
            out = ["sorted", "(", *out, ")"]
        joined = ['" , \u2581 "', ".", "join", "(", "map", "(", "str", ",", *out, ")", ")"]
        return ['"["', "+", *joined, "+", '"]"']

    def _print(self, args: list[Node], newline: bool) -> Tokens:
        """``System.out.print`` / ``println`` (and a program's writers): ``print ( ... )``.

        Under ``Policy.java_print`` (programs) exactly Java's text: parts joined by one space use print's
        separator, others ``sep = ""``; each part as Java writes it (``_printed``). Else as the references
        write it: print's separator, and a ``print`` ends with its last string literal."""
        if not args:
            return ["print", "(", ")"] if newline else ["print", "(", "end", "=", '" "', ")"]
        parts = self._concat_parts(args[0])
        end: Tokens | None = None if newline else ['" "']
        spaced = False
        if self.policy.java_print:
            space = '" \u2581 "'
            spaced = len(parts) % 2 == 1 and all((self.text(p) == space) == (i % 2 == 1) for i, p in enumerate(parts))
            items = [self._printed(part) for part in (parts[::2] if spaced else parts)]
        else:
            if end is not None and len(parts) > 1 and parts[-1].type == "string_literal":
                end, parts = self.expr(parts[-1]), parts[:-1]
            items = [self.expr(part) for part in parts]
        out: Tokens = ["print", "("]
        for i, toks in enumerate(items):
            out += ([","] if i else []) + toks
        if self.policy.java_print and len(items) > 1 and not spaced:
            out += [",", "sep", "=", '" "']
        if end is not None:
            out += [",", "end", "=", *end]
        return [*out, ")"]

    def _printed(self, part: Node) -> Tokens:
        """One part of a print as Java writes it: booleans ``true`` / ``false``, a char array's characters, a
        StringJoiner's text, a collection as ``[a, b]``, ``( double ) n`` as ``4.0``."""
        toks = self.expr(part)
        if self.type_of(part) == "boolean":
            return ["str", "(", *toks, ")", ".", "lower", "(", ")"]
        if self.type_of(part) == "char[]":
            return ['" "', ".", "join", "(", *toks, ")"]
        if part.type == "identifier" and self.text(part) in self.st.joiners:
            return joined(self.st, self.text(part))
        listed = self._collection_text(part, toks)
        if listed is not None:
            return listed
        if self.type_of(part) in ("double", "float") and unparenthesized(part).type == "cast_expression":
            return ["float", "(", *toks, ")"]  # the cast alone leaves an int
        return toks

    def _concat_parts(self, node: Node) -> list[Node]:
        """`a + " x " + b` in a print -> the operands, when the chain is a string concatenation."""
        if not self._is_string_concat(node):
            return [node]
        chain: list[Node] = []
        cur = node
        while cur.type == "binary_expression" and self.text(cur.child_by_field_name("operator")) == "+":
            chain.append(required(cur, "right"))
            cur = required(cur, "left")
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


_EFFECTS = ("assignment_expression", "update_expression")  # expressions that are statements in Python
_INFIX_KEYWORDS = frozenset({"in", "is", "and", "or"})


def _ends_expression(tok: str) -> bool:
    """Can ``tok`` end an operand (a name, a literal, a closing bracket)? Then an infix keyword may follow."""
    if tok in (")", "]", "}", "True", "False", "None") or tok[:1] in ('"', "'") or tok[:1].isdigit():
        return True
    return tok.isidentifier() and tok not in PY_KEYWORDS


_JUMPS = ("break_statement", "return_statement", "continue_statement", "throw_statement", "yield_statement")


def _case_body(stmts: list[Node]) -> list[Node]:
    """A case's statements with a braced block that ends them opened (``case 0: { ...; break; }``, also
    nested ``{ { } }``): its ``break`` then ends the case as a bare one does, instead of being emitted inside
    the ``if`` chain, where it would break the loop around the switch. Python has no block scope, so
    opening the block changes nothing else."""
    body = list(stmts)
    while body and body[-1].type == "block":
        body[-1:] = [child for child in body[-1].named_children if not child.type.endswith("comment")]
    return body


def _breaks_inside(stmts: list[Node]) -> bool:
    """Does a case hold a ``break`` of its switch before its end (in an ``if`` or a block: not in a loop or
    switch of its own)? Not when it holds a ``continue`` or a labelled jump: the loop a ``while True`` wraps
    the case in would take those."""
    found = False
    ends = ("break_statement", "yield_statement")
    todo = [st for i, st in enumerate(stmts) if not (st.type in ends and i == len(stmts) - 1)]
    for node in todo:
        for n in walk_nodes(node):
            if n.type == "continue_statement" or (n.type == "break_statement" and n.named_children):
                return False
            if n.type in ends and not _loop_or_switch_between(n, node):
                found = True
    return found


def _loop_or_switch_between(node: Node, top: Node) -> bool:
    cur = node.parent
    while cur is not None and cur != top.parent:
        if cur.type in (*_LOOPS, "switch_expression", "switch_statement", "lambda_expression", "class_body"):
            return True
        cur = cur.parent
    return False


def _fall_through(
    groups: list[tuple[list[Node], list[Node], bool]], arrows: bool = False
) -> list[tuple[list[Node], list[Node], bool]]:
    """Switch groups as Python if/elif branches: a case that does not end in a jump runs on into the next.

    Its branch gets the following groups' statements appended (up to the first that ends in a
    jump); a ``default`` that is not last moves to the end when it ends in a jump itself. The rules of
    an ``arrows`` switch (``case 1 -> ...``) never run on into the next, so their ``default`` always moves.
    """
    out = []
    for g, (labels, stmts, default) in enumerate(groups):
        body = list(stmts)
        k = g
        while not arrows and body and body[-1].type not in _JUMPS and k + 1 < len(groups):
            k += 1
            body += groups[k][1]
        out.append((labels, body, default))
    defaults = [i for i, (_, _, d) in enumerate(out) if d]
    if (
        defaults
        and defaults[0] != len(out) - 1
        and (arrows or (groups[defaults[0]][1][-1:] and groups[defaults[0]][1][-1].type in _JUMPS))
    ):
        out.append(out.pop(defaults[0]))
    return out


_LOOPS = ("for_statement", "enhanced_for_statement", "while_statement", "do_statement")


# calls that change how many items a collection, a map or a builder holds
_RESIZING = frozenset(
    {
        *("add", "addAll", "addFirst", "addLast", "append", "insert", "offer", "offerFirst", "offerLast", "push"),
        *("put", "putAll", "putIfAbsent", "merge", "compute", "computeIfAbsent", "computeIfPresent"),
        *("remove", "removeAll", "removeIf", "removeFirst", "removeLast", "retainAll", "clear"),
        *("poll", "pollFirst", "pollLast", "pop", "delete", "deleteCharAt", "setLength"),
    }
)


def _called_name(ident: Node) -> bool:
    """Is the identifier the method a call names (``length`` of ``s . length ( )``), not a variable?"""
    call = ident.parent
    return call is not None and call.type == "method_invocation" and call.child_by_field_name("name") == ident


def _bound_changes(bound: Node, body: Node) -> bool:
    """Can the loop's body change its bound: ``i < n`` with ``n --`` or ``n = ...`` inside, ``i < q . size ( )``
    with ``q . add ( x )`` inside (a breadth-first walk over a list that grows)? Python's ``range`` reads its
    bound once; Java's condition reads it on every turn."""
    names = {n.text for n in walk_nodes(bound) if n.type == "identifier" and not _called_name(n)}
    for n in walk_nodes(body):
        if n.type == "method_invocation":
            obj, name = n.child_by_field_name("object"), n.child_by_field_name("name")
            receiver = obj is not None and obj.type == "identifier" and obj.text in names
            if receiver and name is not None and (name.text or b"").decode() in _RESIZING:
                return True
        elif n.type in ("assignment_expression", "update_expression"):
            target = n.child_by_field_name("left") if n.type == "assignment_expression" else n.named_children[0]
            if target is not None and target.type == "identifier" and target.text in names:
                return True
    return False


def _short_circuited(node: Node, root: Node) -> bool:
    """Is ``node`` in the right operand of a ``&&`` / ``||`` under ``root`` (so it may not run)?"""
    cur: Node | None = node
    while cur is not None and cur != root:
        parent = cur.parent
        if parent is not None and parent.type == "binary_expression":
            op = parent.child_by_field_name("operator")
            if op is not None and op.type in ("&&", "||") and parent.child_by_field_name("right") == cur:
                return True
        cur = parent
    return False


def py_method_name(name: str) -> str:
    """A Java method name that is a Python keyword (``print``, ``in``) as the references spell it: ``Print``."""
    return name[:1].upper() + name[1:] if name in PY_KEYWORDS else name


def _dummy_return(node: Node, value: Node | None) -> bool:
    """Is ``node`` the closing ``return 0 ;`` (any int literal) of a method that prints?

    TransCoder's Java versions of GeeksforGeeks void procedures (print a sieve, a union,
    a matrix) gained an ``int`` type and a constant final return; their reference Pythons
    are the void originals, which return None.
    """
    while value is not None and value.type == "unary_expression" and value.named_children:
        value = value.named_children[-1]
    if value is None or value.type != "decimal_integer_literal":
        return False
    block = node.parent
    method = block.parent if block is not None else None
    if block is None or method is None or method.type != "method_declaration" or block.named_children[-1] != node:
        return False
    text = method.text or b""
    if b"System . out" not in text and b"System.out" not in text:
        return False
    returns = [n for n in walk_nodes(method) if n.type == "return_statement" and n.named_children]
    return returns == [node]  # no other value returned: the int type is the only trace of a result


_LOOP_TYPES = ("for_statement", "enhanced_for_statement", "while_statement", "do_statement")


def _jumps_to(loop: Node, label: str, kind: str, nested_only: bool) -> bool:
    """Does ``loop`` hold a ``break label`` (``nested_only``: inside a loop nested in it)?"""
    for n in walk_nodes(loop):
        if (
            n.type == kind
            and any(c.type == "identifier" and c.text == label.encode() for c in n.named_children)
            and (not nested_only or _loop_between(n, loop))
        ):
            return True
    return False


def _loop_between(node: Node, loop: Node) -> bool:
    """Is there a loop between ``node`` and its enclosing ``loop``?"""
    cur = node.parent
    while cur is not None and cur.id != loop.id:
        if cur.type in _LOOP_TYPES:
            return True
        cur = cur.parent
    return False


def _has_assignment(node: Node) -> bool:
    """Does the expression hold an assignment or an increment (a side effect Python cannot inline)?"""
    return any(n.type in ("assignment_expression", "update_expression") for n in walk_nodes(node))
