"""Whole compilation units: imports, classes, ``main`` as the script, stdin and stdout idioms.

A Java program (``import ...; public class Main { ... main ... }``) becomes a Python
script: the class holding ``main`` is flattened (its fields become module globals,
its methods module functions, ``main``'s body the script under ``if __name__``),
every other class (top-level or nested) becomes a Python class (static fields as
class attributes, instance fields set in ``__init__``, ``self.`` where Java leaves
``this`` implicit, ``@staticmethod``), functions that assign a module global
declare it ``global``.

Input: every object that reads stdin (``Scanner``, ``BufferedReader``,
``StringTokenizer`` over a line, ``DataInputStream`` and hand-written readers,
recognised by what they wrap, their methods mapped by return type) reads one
shared runtime emitted into the translation only when used: token reads become
``int ( input ( ) )`` over ``sys.stdin``'s tokens when the program reads only
tokens, line reads ``input ( )`` when it reads only lines; a program mixing them
gets small ``next_token`` / ``input`` / ``has_next`` functions over one buffer.
Output: ``PrintWriter`` / ``BufferedWriter`` / hand-written writers become
``print``; ``flush`` and ``close`` vanish.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from plugins.c2c import carried
from plugins.c2c.analysis import (
    CLASS_TYPES,
    COMPARING,
    IO_ROLES,
    base_io,
    class_members,
    has_return,
    io_kind,
    is_main_method,
    key_extractor,
    modifiers,
    receiver_kind,
    stream_field_op,
    type_text,
)
from plugins.c2c.formats import JAVA_ONLY_FORMAT, fixed_precisions, java_format
from plugins.c2c.java_types import (
    OUT_TYPES,
    field_default,
)
from plugins.c2c.library.classes import SUPPORT_CLASSES, support_lines
from plugins.c2c.library.math import BIG_OPS
from plugins.c2c.library.rows import scalar_local
from plugins.c2c.library.table import emit_constant
from plugins.c2c.library.util import THEN_COMPARING
from plugins.c2c.state import ClassInfo, ProgramInfo
from plugins.c2c.syntax import PY_KEYWORDS, Tokens, walk_nodes

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tree_sitter import Node

    from plugins.c2c.library.rows import Emitting
    from plugins.c2c.state import TranslationState

    _Translator = Emitting  # for the checker, a mixin is the Emitting its Translator is
else:
    _Translator = object

# a Java parameter type -> the Python type an argument for it has (telling constructors apart)
_PY_CHECKS = {
    "int": "int", "long": "int", "short": "int", "byte": "int", "Integer": "int", "Long": "int",
    "double": "float", "float": "float", "Double": "float", "String": "str", "boolean": "bool", "Boolean": "bool",
    "List": "list", "ArrayList": "list", "Map": "dict", "HashMap": "dict", "Set": "set", "HashSet": "set",
}  # fmt: skip


def _name_of(call: Node) -> str:
    """The name of a method invocation (the grammar requires it)."""
    name = call.child_by_field_name("name")
    return (name.text or b"").decode() if name is not None else ""


def runtime_lines(funcs: set[str]) -> list[tuple[int, Tokens]]:
    """The shared-buffer stdin runtime (``runtime/stdin.py``): its buffer and position, the functions in
    ``funcs`` and what they read, in the file's order."""
    return carried.lines_in_file_order(carried.load("stdin"), {"_stdin", "_pos", *funcs})


_TOKEN_OPS = {"int", "float", "decimal", "advance", "token", "char", "ints", "floats", "tokens", "chars", "bool"}
_MODULES = (
    "math",
    "sys",
    "re",
    "random",
    "heapq",
    "collections",
    "itertools",
    "threading",
    "bisect",
    "functools",
    "decimal",
    "datetime",
    "calendar",
)
_FROM_IMPORTS = {
    "deque": "collections",
    "defaultdict": "collections",
    "Counter": "collections",
    "cmp_to_key": "functools",
    "lru_cache": "functools",
    "reduce": "functools",
    "gcd": "math",
    "bisect_left": "bisect",
    "bisect_right": "bisect",
    "Random": "random",
}


class ProgramMixin(_Translator):
    """Translates whole compilation units (needs the statement, expression and type mixins)."""

    prog: ProgramInfo | None
    cls_stack: list[ClassInfo]

    if TYPE_CHECKING:  # what it uses of the Translator and its other mixins
        st: TranslationState

        def declared_names(self) -> set[str]: ...
        def _collect_method_types(self, body: Node, by_type: Mapping[str, list[Node]] | None = None) -> None: ...
        def _emit(self, level: int, toks: Tokens) -> None: ...
        def _simple(self, level: int, toks: Tokens) -> None: ...
        def _copy_line(self, node: Node, level: int) -> None: ...
        def _params(self, node: Node | None) -> list[tuple[str, str]]: ...
        def _call_parts(self, node: Node) -> tuple[Node | None, str, list[Node]]: ...
        def _args(self, node: Node | None) -> list[Node]: ...
        def _type_name(self, node: Node | None) -> str: ...
        def _rename_shadowing(self, method: Node, start: int, calls_from: int | None = None) -> None: ...
        def _member(self, node: Node, level: int, main: list[Node]) -> None: ...
        def _statement(self, node: Node, level: int) -> None: ...
        def _value(self, value: Node, vtype: str) -> Tokens: ...
        def _block(self, node: Node | None, level: int, params: Sequence[tuple[str, str]] = ()) -> None: ...
        def _st_block(self, node: Node, level: int) -> None: ...
        def _st_try_statement(self, node: Node, level: int) -> None: ...

    # -- the compilation unit -------------------------------------------------------------------
    def _program(self, root: Node, info: ProgramInfo) -> None:
        """Translate the compilation unit ``root`` (analysed by ``analyze`` into ``info``)."""
        self.st.prog = info
        self._collect_method_types(root, info.nodes_by_type)
        token_reads = info.reads & _TOKEN_OPS
        declares_input = "input" in self.declared_names() and "input" not in info.io
        if not info.reads:
            self.st.read_mode = ""
        elif not info.reads - _TOKEN_OPS and not declares_input:
            self.st.read_mode = "tokens"
        elif info.reads <= {"line"} and not info.line_null_checks and not declares_input:
            self.st.read_mode = "lines"
        else:
            self.st.read_mode = "mixed"
        emitted: set[int] = set()
        main_nodes: list[Node] = []
        deferred: list[Node] = []
        top = [c for c in root.named_children]
        for node in top:
            if node.type in ("package_declaration", "import_declaration", "line_comment", "block_comment"):
                continue
            if info.main is not None and node.id == info.main.node.id:
                self._flatten_main(node, main_nodes, deferred, emitted)
            elif node.type in CLASS_TYPES:
                self._class(node, 0, emitted)
            elif node.type == "method_declaration":
                if is_main_method(node):
                    main_nodes.append(node)
                else:
                    self._function(node, 0, None)
            elif node.type == "ERROR":
                self._copy_line(node, 0)
            else:
                self._member(node, 0, main_nodes)
        for node in deferred:
            self._field(node, 0, None)
        for m in main_nodes:
            self._entry(m)
        if info.entry is not None:
            self._entry_object(info.entry)
        for i, (lvl, toks) in enumerate(self.st.lines):  # `self . in`: a field named like a Python keyword
            if any(t in PY_KEYWORDS and j and toks[j - 1] == "." for j, t in enumerate(toks)):
                fixed = [t + "_" if t in PY_KEYWORDS and j and toks[j - 1] == "." else t for j, t in enumerate(toks)]
                self.st.lines[i] = (lvl, fixed)
        self._header(token_reads)

    def _flatten_main(self, node: Node, main_nodes: list[Node], deferred: list[Node], emitted: set[int]) -> None:
        main = self.st.prog.main
        methods = main.static_methods | main.instance_methods if main is not None else set()
        for m in class_members(node):
            if m.type in CLASS_TYPES:
                self._class(m, 0, emitted)
            elif m.type == "method_declaration":
                if is_main_method(m):
                    main_nodes.append(m)
                else:
                    self._function(m, 0, None)
            elif m.type == "field_declaration":
                calls = any(
                    c.type == "method_invocation" and c.child_by_field_name("object") is None and _name_of(c) in methods
                    for c in walk_nodes(m)
                )
                if calls:
                    deferred.append(m)
                else:
                    self._field(m, 0, None)
            elif m.type in ("static_initializer", "block"):
                self._statement(m, 0)
            elif m.type in ("constructor_declaration", "line_comment", "block_comment"):
                continue
            else:
                self._member(m, 0, main_nodes)

    def _entry(self, m: Node) -> None:
        """``main``: the script (under ``if __name__``), or a thread with a large stack when recursion is deep."""
        body = m.child_by_field_name("body")
        start = len(self.st.lines)
        returns = body is not None and has_return(body)
        if self.st.prog.recursive or returns or self.st.prog.local_main:
            self._emit(0, ["def", "main", "(", ")", ":"])
            glob = self._globals_of(m, None)
            if glob:
                self._emit(1, ["global", *_comma_list(glob)])
            self._method_block(body, 1, [], None, static=True)
            self._rename_shadowing(m, start)
            if not self.st.prog.recursive:
                self._emit(0, ["main", "(", ")"])
                return
            self._emit(0, ["sys", ".", "setrecursionlimit", "(", "1", "<<", "25", ")"])
            self._emit(0, ["threading", ".", "stack_size", "(", "1", "<<", "27", ")"])
            self._emit(0, ["threading", ".", "Thread", "(", "target", "=", "main", ")", ".", "start", "(", ")"])
            return
        self._emit(0, ["if", "__name__", "==", '" __main__ "', ":"])
        self._method_block(body, 1, [], None, static=True)
        self._rename_shadowing(m, start, calls_from=0)  # `int min = ...` must not hide a builtin any function calls

    def _entry_object(self, ci: ClassInfo) -> None:
        """The main class kept a class (``analyze``'s ``entry``): its static ``main`` runs as the script, in a
        thread with a large stack when a method recurses."""
        call = [ci.name, ".", "main", "(", "None", ")"]
        if not self.st.prog.recursive:
            self._emit(0, ["if", "__name__", "==", '" __main__ "', ":"])
            self._emit(1, call)
            return
        self._emit(0, ["sys", ".", "setrecursionlimit", "(", "1", "<<", "25", ")"])
        self._emit(0, ["threading", ".", "stack_size", "(", "1", "<<", "27", ")"])
        target = ["lambda", ":", *call]
        self._emit(0, ["threading", ".", "Thread", "(", "target", "=", *target, ")", ".", "start", "(", ")"])

    def _header(self, token_reads: set[str]) -> None:
        header: list[tuple[int, Tokens]] = []
        mode = self.st.read_mode
        runtime: list[tuple[int, Tokens]] = []
        if mode == "tokens":
            runtime = [
                (
                    0,
                    [
                        "input",
                        "=",
                        "iter",
                        "(",
                        "sys",
                        ".",
                        "stdin",
                        ".",
                        "read",
                        "(",
                        ")",
                        ".",
                        "split",
                        "(",
                        ")",
                        ")",
                        ".",
                        "__next__",
                    ],
                )
            ]
        elif mode == "mixed":
            funcs = set()
            reads = self.st.prog.reads
            if token_reads:
                funcs.add("next_token")
            if "line" in reads:
                funcs.add("input")
            if "has" in reads:
                funcs.add("has_next")
            if "has_line" in reads:
                funcs.add("has_line")
            if "read" in reads:
                funcs.add("read_char")
            runtime = runtime_lines(funcs)
        declared = self.declared_names()
        named = {t for _, toks in self.st.lines for t in toks if t in SUPPORT_CLASSES}
        runtime += support_lines(named - declared - self.st.prog.classes.keys())  # `Pattern`, `LocalDate`, ...
        used = {t for _, toks in [*runtime, *self.st.lines] for t in toks}
        pairs = {a for _, toks in [*runtime, *self.st.lines] for a, b in zip(toks, toks[1:], strict=False) if b == "."}
        for mod in _MODULES:
            if mod in pairs and mod not in declared:
                header.append((0, ["import", mod]))
        for name, mod in _FROM_IMPORTS.items():
            if (
                name in used
                and name not in declared
                and not any(toks[:2] == ["def", name] or toks[:2] == ["class", name] for _, toks in self.st.lines)
            ):
                header.append((0, ["from", mod, "import", name]))
        if "decimal" in pairs and "decimal" not in declared:  # BigDecimal's products are exact
            header.append((0, ["decimal", ".", "getcontext", "(", ")", ".", "prec", "=", "4000"]))
        self.st.lines[:0] = [*header, *runtime]

    # -- classes --------------------------------------------------------------------------------
    def _class(self, node: Node, level: int, emitted: set[int]) -> None:
        if node.id in emitted:
            return
        emitted.add(node.id)
        name_node = node.child_by_field_name("name")
        name = self.text(name_node)
        ci = self.st.prog.classes.get(name)
        members = class_members(node)
        for m in members:  # nested classes first, at module level
            if m.type in CLASS_TYPES:
                self._class(m, level, emitted)
        if ci is None or ci.role in IO_ROLES:
            return
        base_ci = self.st.prog.classes.get(ci.base)
        if base_ci is not None and base_ci.node.id not in emitted:  # Python needs the base class first
            self._class(base_ci.node, level, emitted)
        base = ci.base if ci.base and ci.base not in OUT_TYPES else ""
        self._emit(level, ["class", name, *(["(", base, ")"] if base else []), ":"])
        start = len(self.st.lines)
        self.st.cls_stack.append(ci)
        self.st.scopes.append(self._field_types(members))  # `cnt . put ( k , v )` on a field knows its map
        inner = level + 1
        instance_fields = []
        ctors = []
        own: list[Node] = []  # static fields made of the class itself: Python knows the class only after its body
        for m in members:
            static = "static" in modifiers(m)
            if m.type == "field_declaration":
                if (static or node.type == "interface_declaration") and (
                    own or re.search(rf"\bnew\s+{re.escape(name)}\b", self.text(m))
                ):
                    own.append(m)  # and the static fields after it, in Java's order
                    self._static_defaults(m, inner)
                elif static or node.type == "interface_declaration":
                    self._field(m, inner, None)
                else:
                    instance_fields.append(m)
            elif m.type == "constructor_declaration":
                ctors.append(m)
            elif m.type == "method_declaration":
                if m.child_by_field_name("body") is not None:
                    self._function(m, inner, ci)
            elif m.type in ("static_initializer", "block"):
                self._statement(m, inner)
        if ctors or instance_fields:
            self._constructors(ctors, instance_fields, inner, ci)
        if "toString" in ci.instance_methods:
            self._emit(inner, ["def", "__str__", "(", "self", ")", ":"])
            self._emit(inner + 1, ["return", "self", ".", "toString", "(", ")"])
        if "compareTo" in ci.instance_methods:
            self._emit(inner, ["def", "__lt__", "(", "self", ",", "other", ")", ":"])
            self._emit(inner + 1, ["return", "self", ".", "compareTo", "(", "other", ")", "<", "0"])
        if "equals" in ci.instance_methods:  # keys of dicts and sets compare as Java's HashMap compares them
            methods = ci.instance_methods
            self._emit(inner, ["def", "__eq__", "(", "self", ",", "other", ")", ":"])
            self._emit(inner + 1, ["return", "self", ".", "equals", "(", "other", ")"])
            self._emit(inner, ["def", "__hash__", "(", "self", ")", ":"])
            code = ["self", ".", "hashCode", "(", ")"] if "hashCode" in methods else ["id", "(", "self", ")"]
            self._emit(inner + 1, ["return", *code])
        self.st.scopes.pop()
        self.st.cls_stack.pop()
        if len(self.st.lines) == start:
            self._emit(inner, ["pass"])
        if node.type == "enum_declaration":
            self._enum_values(node, level, name)
        for m in own:
            self._static_values(m, level, name)

    def _enum_values(self, node: Node, level: int, cls: str) -> None:
        """An enum's constants, made after its class: ``Color . constants ( RED = Color ( ) , ... )``."""
        body = node.child_by_field_name("body")
        made: Tokens = []
        for c in body.named_children if body is not None else []:
            if c.type != "enum_constant":
                continue
            args = c.child_by_field_name("arguments")
            values = self.arg_tokens(args.named_children) if args is not None else []
            made += [*([","] if made else []), self.text(c.child_by_field_name("name")), "=", cls, "(", *values, ")"]
        self._simple(level, [cls, ".", "constants", "(", *made, ")"])

    def _static_defaults(self, node: Node, level: int) -> None:
        """A static field whose value waits for the class: Java's default value meanwhile."""
        typ = self._type_name(node.child_by_field_name("type"))
        for decl in node.children_by_field_name("declarator"):
            dims = decl.child_by_field_name("dimensions")
            vtype = typ + ("[]" * self.text(dims).count("[") if dims is not None else "")
            self._simple(level, [self.text(decl.child_by_field_name("name")), "=", field_default(vtype)])

    def _static_values(self, node: Node, level: int, cls: str) -> None:
        """Its value, after the class (``Cls . name = value``)."""
        typ = self._type_name(node.child_by_field_name("type"))
        for decl in node.children_by_field_name("declarator"):
            value = decl.child_by_field_name("value")
            if value is None:
                continue
            dims = decl.child_by_field_name("dimensions")
            vtype = typ + ("[]" * self.text(dims).count("[") if dims is not None else "")
            name = self.text(decl.child_by_field_name("name"))
            self._simple(level, [cls, ".", name, "=", *self._value(value, vtype)])

    def _field_types(self, members: list[Node]) -> dict[str, str]:
        """A class's fields and their declared types (a scope under its methods' own)."""
        types: dict[str, str] = {}
        for m in members:
            if m.type != "field_declaration":
                continue
            typ = self._type_name(m.child_by_field_name("type"))
            for decl in m.children_by_field_name("declarator"):
                dims = decl.child_by_field_name("dimensions")
                types[self.text(decl.child_by_field_name("name"))] = typ + (
                    "[]" * self.text(dims).count("[") if dims is not None else ""
                )
        return types

    def _constructors(self, ctors: list[Node], fields_: list[Node], level: int, ci: ClassInfo) -> None:
        by_arity: dict[int, Node] = {}
        for c in ctors:
            by_arity[len(self._params(c.child_by_field_name("parameters")))] = c
        if len(by_arity) < len(ctors):  # constructors Java tells apart by their parameters' types
            self._typed_constructors(ctors, fields_, level, ci)
            return
        if len(by_arity) <= 1:
            ctor = ctors[-1] if ctors else None
            params = self._params(ctor.child_by_field_name("parameters")) if ctor is not None else []
            def_line = len(self.st.lines)
            self._emit(level, ["def", "__init__", "(", *_comma_list(["self", *[p for p, _ in params]]), ")", ":"])
            start = len(self.st.lines)
            for f in fields_:
                self._field(f, level + 1, ["self", "."])
            if ctor is not None:
                self._ctor_body(ctor, level + 1, params, ci, def_line)
            if len(self.st.lines) == start:
                self._emit(level + 1, ["pass"])
            return
        self._emit(level, ["def", "__init__", "(", "self", ",", "*", "args", ")", ":"])
        for f in fields_:
            self._field(f, level + 1, ["self", "."])
        for k in sorted(by_arity):
            self._emit(level + 1, ["if", "len", "(", "args", ")", "==", str(k), ":"])
            self._emit(level + 2, ["self", ".", f"_init{k}", "(", "*", "args", ")"])
        for k, ctor in sorted(by_arity.items()):
            params = self._params(ctor.child_by_field_name("parameters"))
            def_line = len(self.st.lines)
            self._emit(level, ["def", f"_init{k}", "(", *_comma_list(["self", *[p for p, _ in params]]), ")", ":"])
            start = len(self.st.lines)
            self._ctor_body(ctor, level + 1, params, ci, def_line)
            if len(self.st.lines) == start:
                self._emit(level + 1, ["pass"])

    def _typed_constructors(self, ctors: list[Node], fields_: list[Node], level: int, ci: ClassInfo) -> None:
        """``__init__ ( self , * args )`` choosing by the count of arguments, then by the type of the first
        parameter where constructors of one count differ (``isinstance``); each constructor ``_init{k}_{j}``."""
        groups: dict[int, list[tuple[Node, list[tuple[str, str]]]]] = {}
        for c in ctors:
            params = self._params(c.child_by_field_name("parameters"))
            groups.setdefault(len(params), []).append((c, params))
        self._emit(level, ["def", "__init__", "(", "self", ",", "*", "args", ")", ":"])
        for f in fields_:
            self._field(f, level + 1, ["self", "."])
        keyword = "if"
        for k, group in sorted(groups.items()):
            at = next((i for i in range(k) if len({p[i][1] for _, p in group}) > 1), 0)
            for j, (_, params) in enumerate(group):
                test = ["len", "(", "args", ")", "==", str(k)]
                check = _PY_CHECKS.get(params[at][1].split("<", 1)[0]) if k else None
                if params and params[at][1].endswith("[]"):
                    check = "list"
                elif params and params[at][1] in self.st.prog.classes:
                    check = params[at][1]
                if j < len(group) - 1 and check is not None:
                    test += ["and", "isinstance", "(", "args", "[", str(at), "]", ",", check, ")"]
                self._emit(level + 1, [keyword, *test, ":"])
                self._emit(level + 2, ["self", ".", f"_init{k}_{j}", "(", "*", "args", ")"])
                keyword = "elif"
        for k, group in sorted(groups.items()):
            for j, (ctor, params) in enumerate(group):
                def_line = len(self.st.lines)
                names = _comma_list(["self", *[p for p, _ in params]])
                self._emit(level, ["def", f"_init{k}_{j}", "(", *names, ")", ":"])
                start = len(self.st.lines)
                self._ctor_body(ctor, level + 1, params, ci, def_line)
                if len(self.st.lines) == start:
                    self._emit(level + 1, ["pass"])

    def _ctor_body(self, ctor: Node, level: int, params: list[tuple[str, str]], ci: ClassInfo, start: int) -> None:
        body = ctor.child_by_field_name("body")
        glob = self._globals_of(ctor, ci)
        if glob:
            self._emit(level, ["global", *_comma_list(glob)])
        self._method_block(body, level, params, ci, static=False)
        self._rename_shadowing(ctor, start)

    def _function(self, node: Node, level: int, ci: ClassInfo | None) -> None:
        """A method: a module function (main class, ``ci`` None) or a method of class ``ci``."""
        name = self.text(node.child_by_field_name("name"))
        params = self._params(node.child_by_field_name("parameters"))
        static = ci is None or "static" in modifiers(node)
        if ci is not None and name in PY_KEYWORDS:
            name += "_"
        if ci is not None and name in self.st.prog.class_overloads.get(ci.name, {}):
            name = self.st.prog.class_overloads[ci.name][name].get(len(params), name)
        if ci is None and name in self.st.prog.overloads:
            name = self.st.prog.overloads[name].get(len(params), name)
        elif ci is None:
            name = self.st.prog.renames.get(name, name)
        names = [p for p, _ in params]
        plist = node.child_by_field_name("parameters")
        if names and plist is not None and any(c.type == "spread_parameter" for c in plist.named_children):
            names[-1] = "*" + names[-1]  # `long ... v`
        if ci is not None:
            if static:
                self._emit(level, ["@", "staticmethod"])
            else:
                names = ["self", *names]
        start = len(self.st.lines)
        self._emit(level, ["def", name, "(", *_comma_list(names), ")", ":"])
        glob = self._globals_of(node, ci)
        if glob:
            self._emit(level + 1, ["global", *_comma_list(glob)])
        out = self._out_params().get(self.text(node.child_by_field_name("name"))) if ci is None else None
        saved, self.st.sb_return = self.st.sb_return, out[1] if out else None
        self._method_block(node.child_by_field_name("body"), level + 1, params, ci, static=static)
        if out:
            self._simple(level + 1, ["return", out[1]])
        self.st.sb_return = saved
        self._rename_shadowing(node, start)

    def _method_block(
        self, body: Node | None, level: int, params: list[tuple[str, str]], ci: ClassInfo | None, static: bool
    ) -> None:
        saved = (self.st.method_base, self.st.static_ctx)
        self.st.method_base, self.st.static_ctx = len(self.st.scopes), static
        pushed = ci is not None and (not self.st.cls_stack or self.st.cls_stack[-1] is not ci)
        if pushed and ci is not None:
            self.st.cls_stack.append(ci)
        self._block(body, level, params=params)
        if pushed:
            self.st.cls_stack.pop()
        self.st.method_base, self.st.static_ctx = saved

    def _globals_of(self, method: Node, ci: ClassInfo | None) -> list[str]:
        """Module globals the method assigns (so Python must declare them ``global``)."""
        from plugins.c2c.syntax import local_names

        glob = self.st.prog.module_globals
        if not glob:
            return []
        local = local_names(method)
        own = (ci.instance_fields | ci.static_fields) if ci is not None else set()
        out: list[str] = []
        builders = self._builder_fields()
        for n in walk_nodes(method):
            target = None
            if n.type == "method_invocation" and builders:  # `sb . append ( x )` rebinds the str standing for sb
                root = n.child_by_field_name("object")
                while root is not None and root.type == "method_invocation":
                    root = root.child_by_field_name("object")
                named = root.child_by_field_name("field") if root is not None and root.type == "field_access" else root
                if (
                    named is not None
                    and named.type == "identifier"
                    and named.text is not None
                    and named.text.decode() in builders
                    and _name_of(n) in _SB_EDITS
                ):
                    target = root  # `sb` or `Main . sb` / `this . sb` (the field access is resolved below)
            if n.type == "assignment_expression":
                target = n.child_by_field_name("left")
            elif n.type == "update_expression" and n.named_children:
                target = n.named_children[0]
            if target is None:
                continue
            if target.type == "field_access":
                obj = target.child_by_field_name("object")
                main = self.st.prog.main
                if obj is not None and (  # `this . x` of the flattened main class, `Main . x` from any class
                    (ci is None and obj.type == "this") or (main is not None and obj.text == main.name.encode())
                ):
                    target = target.child_by_field_name("field")
                else:
                    continue
            if target is None or target.type != "identifier" or target.text is None:
                continue
            name = target.text.decode()
            if name in glob and name not in local and name not in own and name not in out:
                out.append(name)
        return out

    def _builder_fields(self) -> set[str]:
        """The main class's StringBuilder fields (module globals that appends rebind)."""
        main = self.st.prog.main
        if main is None:
            return set()
        cached = self.st.builders
        if cached is None:
            cached = set()
            for m in class_members(main.node):
                if m.type == "field_declaration" and _base_type_name(type_text(m.child_by_field_name("type"))) in (
                    "StringBuilder",
                    "StringBuffer",
                ):
                    for d in m.children_by_field_name("declarator"):
                        nm = d.child_by_field_name("name")
                        if nm is not None and nm.text is not None:
                            cached.add(nm.text.decode())
            self.st.builders = cached
        return cached

    def _builder_out_param(self, method: Node) -> str | None:
        """A void method that edits a StringBuilder parameter: that parameter (the translation returns the new
        str and each call statement assigns it back, as Java's caller sees the edits)."""
        if type_text(method.child_by_field_name("type")) != "void":
            return None
        params = self._params(method.child_by_field_name("parameters"))
        names = [p for p, t in params if _base_type_name(t) in ("StringBuilder", "StringBuffer")]
        body = method.child_by_field_name("body")
        if len(names) != 1 or body is None:
            return None
        for n in walk_nodes(body):
            if n.type == "method_invocation" and _name_of(n) in _SB_EDITS:
                root = n.child_by_field_name("object")
                while root is not None and root.type == "method_invocation":
                    root = root.child_by_field_name("object")
                if root is not None and root.type == "identifier" and root.text == names[0].encode():
                    return names[0]
        return None

    def _out_params(self) -> dict[str, tuple[int, str]]:
        """Module functions (main-class methods, not overloaded) with a StringBuilder out-parameter: index, name."""
        cached = self.st.out_params
        if cached is None:
            cached = {}
            main = self.st.prog.main
            if main is not None:
                counts: dict[str, int] = {}
                methods = [m for m in class_members(main.node) if m.type == "method_declaration"]
                for m in methods:
                    counts[self.text(m.child_by_field_name("name"))] = (
                        counts.get(self.text(m.child_by_field_name("name")), 0) + 1
                    )
                for m in methods:
                    name = self.text(m.child_by_field_name("name"))
                    out = self._builder_out_param(m) if counts[name] == 1 else None
                    if out is not None:
                        params = [p for p, _ in self._params(m.child_by_field_name("parameters"))]
                        cached[name] = (params.index(out), out)
            self.st.out_params = cached
        return cached

    def _field(self, node: Node, level: int, prefix: Tokens | None) -> None:
        """A field: ``name = value`` (Java's default value when it has none); io objects vanish."""
        typ = self._type_name(node.child_by_field_name("type"))
        kind = io_kind(base_io(re.sub(r"<.*>", "", typ)), self.st.prog)
        if (kind and kind != "tok") or (self.st.prog.main is not None and typ == self.st.prog.main.name):
            return  # a StringTokenizer stays: the list of a line's tokens a read method refills
        for decl in node.children_by_field_name("declarator"):
            name = self.text(decl.child_by_field_name("name"))
            dims = decl.child_by_field_name("dimensions")
            vtype = typ + ("[]" * self.text(dims).count("[") if dims is not None else "")
            if prefix is None:
                self.st.scopes[0][name] = vtype
            value = decl.child_by_field_name("value")
            if value is None:
                default = field_default(vtype)
                self._simple(level, [*(prefix or []), name, "=", default])
                continue
            saved = self.st.static_ctx
            self.st.static_ctx = prefix is None
            self._simple(level, [*(prefix or []), name, "=", *self._value(value, vtype)])
            self.st.static_ctx = saved

    # -- names ----------------------------------------------------------------------------------
    def _is_local(self, name: str) -> bool:
        return any(name in scope for scope in self.st.scopes[self.st.method_base :])

    def _identifier(self, name: str) -> Tokens:
        prog = self.st.prog
        if self.st.cls_stack and not self._is_local(name):
            ci = self.st.cls_stack[-1]
            if name in ci.instance_fields and not self.st.static_ctx:
                return ["self", ".", name]
            if name in ci.static_fields:
                return [ci.name, ".", name]
            if name in ci.instance_fields:
                return ["self", ".", name]
            outer = self.outer_static(name, methods=False)
            if outer is not None:
                return [outer, ".", name]
        if name in prog.enum_constants and not self._is_local(name) and name not in prog.module_globals:
            return [prog.enum_constants[name], ".", name]  # `case RED :` of a switch on an enum
        kind = prog.io.get(name)
        if kind and kind not in ("tok", "main") and not scalar_local(self, name):
            return ["None"]
        return [name]

    def outer_static(self, name: str, *, methods: bool) -> str | None:
        """The class around the one being translated (a nested class's outer class, kept a class) whose static
        field (or method) ``name`` is: Java reads it unqualified, the Python class at module level cannot."""
        ci = self.st.cls_stack[-1] if self.st.cls_stack else None
        up = ci.node.parent if ci is not None else None
        while up is not None:
            if up.type in CLASS_TYPES:
                outer = self.st.prog.classes.get(self.text(up.child_by_field_name("name")))
                statics = (outer.static_methods if methods else outer.static_fields) if outer is not None else ()
                if outer is not None and outer.role == "class" and name in statics:
                    return outer.name
            up = up.parent
        return None

    def receiver_kind(self, obj: Node) -> str:
        """What the program analysis makes of the object a call is made on (``receiver_kind``)."""
        return receiver_kind(obj, self.st.prog)

    def _field_access(self, node: Node) -> Tokens | None:
        prog = self.st.prog
        obj = node.child_by_field_name("object")
        fld = self.text(node.child_by_field_name("field"))
        if obj is None:
            return None
        op = stream_field_op(node, prog)
        if op:
            return self._read(op, [])
        main = prog.main.name if prog.main is not None else None
        exact = _EXACT_CONSTANTS.get((self.text(obj), fld)) if self.policy.exact_constants else None
        up = node.parent
        while up is not None and up.type == "parenthesized_expression":
            up = up.parent
        arith = (
            up is not None
            and up.type == "binary_expression"
            and self.text(up.child_by_field_name("operator")) in "+-*/%"
        )
        if exact is not None and arith:  # `Integer . MAX_VALUE / 2`: Java's value (a sentinel stays sys.maxsize)
            return list(exact)
        constant = emit_constant(self.policy, self.text(obj), fld)
        if constant is not None:  # a library class's static field (``BigDecimal . ONE``)
            return constant
        if obj.type == "this" and not self.st.cls_stack and self.policy.program_classes:  # the flattened main class
            return [fld]
        if obj.type == "identifier" and self.text(obj) == main:
            return [fld]
        if obj.type == "this" and self.st.cls_stack:
            return ["self", ".", fld]
        return None

    def is_big(self, node: Node | None) -> bool:
        """Is ``node`` a BigInteger (declared so, made so, or the result of a BigInteger operation)?"""
        if node is None:
            return False
        if node.type == "parenthesized_expression" and node.named_children:
            return self.is_big(node.named_children[0])
        if self.type_of(node) == "BigInteger":
            return True
        if node.type == "field_access":
            return self.text(node.child_by_field_name("object")) == "BigInteger"
        if node.type == "object_creation_expression":
            return type_text(node.child_by_field_name("type")) == "BigInteger"
        if node.type == "method_invocation":
            obj, name, _ = self._call_parts(node)
            if self.text(obj) == "BigInteger" and name == "valueOf":
                return True
            return name in BIG_OPS and self.is_big(obj)
        return False

    def comparator_chain(self, cmp: Node) -> tuple[Tokens, bool] | None:
        """``Comparator.comparing(f).thenComparing(g)[.reversed()]`` of key extractors: one key function
        (``f``, or a tuple of the keys) and whether the order is reversed; None for anything else."""
        node: Node | None = cmp
        reverse = False
        keys: list[Tokens] = []
        if cmp.type == "method_invocation" and self._call_parts(cmp)[1] == "reversed":
            obj, _, args = self._call_parts(cmp)
            if args or obj is None:
                return None
            node, reverse = obj, True
        while node is not None and node.type == "method_invocation":
            obj, name, args = self._call_parts(node)
            if len(args) != 1 or not key_extractor(args[0]):
                return None
            if name in THEN_COMPARING:
                keys.insert(0, self.expr(args[0]))
                node = obj
                continue
            if name in COMPARING and self.text(obj) == "Comparator":
                keys.insert(0, self.expr(args[0]))
                if len(keys) == 1:
                    return keys[0], reverse
                parts = [t for i, k in enumerate(keys) for t in ([","] if i else []) + ["(", *k, ")", "(", "_x", ")"]]
                return ["(", "lambda", "_x", ":", "(", *parts, ")", ")"], reverse
            return None
        return None

    def sort_order(self, cmp: Node) -> Tokens:
        """A Java comparator as ``sort``'s arguments: ``reverse = True``, ``key = f`` or ``key = cmp_to_key ( c )``."""
        text = self.text(cmp).replace(" ", "")
        if text in ("Collections.reverseOrder()", "Comparator.reverseOrder()"):
            return ["reverse", "=", "True"]
        if text == "null":
            return []
        if cmp.type == "method_invocation":
            obj, name, args = self._call_parts(cmp)
            if self.text(obj) == "Comparator" and name.startswith("comparing") and len(args) == 1:
                return ["key", "=", *self.expr(args[0])]
            chain = self.comparator_chain(cmp)
            if chain is not None:
                return ["key", "=", *chain[0], *([",", "reverse", "=", "True"] if chain[1] else [])]
            if name in ("comparingByKey", "comparingByValue") and not args:  # Map.Entry's orders
                return [
                    "key",
                    "=",
                    "(",
                    "lambda",
                    "e",
                    ":",
                    "e",
                    "[",
                    "0" if name == "comparingByKey" else "1",
                    "]",
                    ")",
                ]
        return ["key", "=", "cmp_to_key", "(", *self.expr(cmp), ")"]

    def _ex_lambda_expression(self, node: Node) -> Tokens:
        """``( a , b ) -> a [ 0 ] - b [ 0 ]`` -> ``lambda a , b : a [ 0 ] - b [ 0 ]`` (an expression body,
        or a block that only returns); other bodies stay ``lambda : None``."""
        params = node.child_by_field_name("parameters")
        body = node.child_by_field_name("body")
        names: list[str] = []
        if params is not None:
            if params.type == "identifier":
                names = [self.text(params)]
            else:
                for p in params.named_children:
                    nm = p.child_by_field_name("name") if p.type != "identifier" else p
                    if nm is not None:
                        names.append(self.text(nm))
        if body is not None and body.type == "block":
            stmts = [c for c in body.named_children if c.type not in ("line_comment", "block_comment")]
            body = (
                stmts[0].named_children[0]
                if len(stmts) == 1 and stmts[0].type == "return_statement" and (stmts[0].named_children)
                else None
            )
        if body is None or body.type in ("assignment_expression", "update_expression"):  # statements: a def
            return [self._hoist([(n, "?") for n in names], node.child_by_field_name("body"), node)]
        self.st.scopes.append(dict.fromkeys(names, self.st.lambda_type))
        self.st.lambda_type = "?"
        out = self.expr(body)
        self.st.scopes.pop()
        return ["(", "lambda", *_comma_list(names), ":", *out, ")"]

    def _ex_method_reference(self, node: Node) -> Tokens:
        """``Integer::parseInt`` -> ``int``, ``Math::max`` -> ``max``, ``Main::f`` -> ``f``, ``o::f`` -> ``o . f``."""
        parts = [c for c in node.children if c.type not in ("::",)]
        if len(parts) != 2:
            self.st.unknown += 1
            return ["None"]
        owner, meth = self.text(parts[0]), self.text(parts[1])
        known = _METHOD_REFS.get((owner, meth)) or _METHOD_REFS.get(("*", meth))
        if known is not None:
            return list(known)
        if meth == "new":
            base = _base_type_name(owner)
            if base in ("ArrayList", "LinkedList", "ArrayDeque", "Stack", "Vector"):
                return ["list"]
            if base in ("HashSet", "TreeSet", "LinkedHashSet"):
                return ["set"]
            if base in ("HashMap", "TreeMap", "LinkedHashMap"):
                return ["dict"]
            return [base]
        if self.st.prog.main is not None and owner == self.st.prog.main.name:  # `Main::next` of `def next_`
            return self._identifier(self.st.prog.renames.get(meth, meth))
        if owner == "this":
            return ["self", ".", meth]
        if owner in ("System.out", "System . out"):
            return ["print"]
        return [*self.expr(parts[0]), ".", meth]

    def is_stream(self, node: Node | None) -> bool:
        """Does ``node`` give a Java stream (``Arrays.stream``, ``list.stream()``, ``IntStream.range``, ...)?"""
        if node is None or node.type != "method_invocation":
            return False
        obj, name, args = self._call_parts(node)
        ot = self.text(obj) if obj is not None else ""
        if ot in ("Arrays", "IntStream", "LongStream", "Stream", "DoubleStream") and name in _STREAM_SOURCES:
            return True
        if name in ("stream", "chars") and not args and obj is not None:
            return True
        return name in _STREAM_STEPS and self.is_stream(obj)

    def _hoist(self, params: list[tuple[str, str]], body: Node | None, owner: Node) -> str:
        """A function an expression needs (a lambda with statements, an anonymous class's method): ``def _fN``
        emitted before the statement that uses it (``_emit``); its name."""
        self.st.n_hoisted += 1
        name = f"_f{self.st.n_hoisted}"
        saved = (self.st.lines, self.st.pre, self.st.post, self.st.loop_updates, self.st.labels, self.st.hoisted)
        self.st.lines, self.st.pre, self.st.post, self.st.loop_updates, self.st.labels, self.st.hoisted = (
            [],
            [],
            [],
            [],
            [],
            [],
        )
        self._emit(0, ["def", name, "(", *_comma_list([p for p, _ in params]), ")", ":"])
        glob = self._globals_of(owner, None) if not self.st.cls_stack else []
        if glob:
            self._emit(1, ["global", *_comma_list(glob)])
        self._block(body, 1, params=params)
        lines = self.st.lines
        self.st.lines, self.st.pre, self.st.post, self.st.loop_updates, self.st.labels, self.st.hoisted = saved
        self.st.hoisted.extend(lines)
        return name

    def _anonymous_method(self, node: Node) -> Node | None:
        """``new Comparator < T > ( ) { int compare ( ... ) { ... } }``: the one method of an anonymous class."""
        body = next((c for c in node.named_children if c.type == "class_body"), None)
        if body is None:
            return None
        methods = [c for c in body.named_children if c.type == "method_declaration"]
        others = [
            c for c in body.named_children if c.type not in ("method_declaration", "line_comment", "block_comment")
        ]
        return methods[0] if len(methods) == 1 and not others else None

    def runnable_call(self, r: Node) -> Tokens | None:
        """What running the ``Runnable`` ``r`` (given to a ``Thread``) is: a call, or None when it is not one."""
        if r.type == "lambda_expression":
            return ["(", *self.expr(r), ")", "(", ")"]
        if r.type == "method_reference":
            parts = [c for c in r.named_children]
            if len(parts) == 2 and self.st.prog.main is not None and self.text(parts[0]) == self.st.prog.main.name:
                return [*self._identifier(self.text(parts[1])), "(", ")"]
            return None
        if r.type != "object_creation_expression":
            return None
        if self._anonymous_method(r) is not None:
            return [*self.expr(r), "(", ")"]
        t = _base_type_name(type_text(r.child_by_field_name("type")))
        if self.st.prog.main is not None and t == self.st.prog.main.name:
            return [*self._identifier("run"), "(", ")"]
        if t in self.st.prog.classes:
            return [*self.expr(r), ".", "run", "(", ")"]
        return None

    def _thread_declaration(self, node: Node, level: int) -> bool:
        """``Thread t = new Thread ( null , runnable , "" , 1 << 26 )``: the runnable runs here (``t . start``
        and ``t . join`` then vanish); False for any other declaration."""
        decls = node.children_by_field_name("declarator")
        if self.policy.runs_threads and type_text(node.child_by_field_name("type")) == "Thread" and len(decls) == 1:
            value = decls[0].child_by_field_name("value")
            if value is not None and value.type == "object_creation_expression":
                targs = [a for a in self._args(value.child_by_field_name("arguments")) if a.type != "null_literal"]
                run = self.runnable_call(targs[0]) if targs else None
                if run is not None:
                    self.st.threads.add(self.text(decls[0].child_by_field_name("name")))
                    self._simple(level, run)
                    return True
        return False

    def _program_expression_statement(self, node: Node, level: int) -> bool:
        """A stdin / stdout object made for a field (``sc = new Scanner ( System . in )`` in ``main``) vanishes
        as its declaration does. False for any other statement (a Thread's ``start`` and ``join`` are rows of
        the library table, ``library/lang.py``; a call that edits a StringBuilder out-parameter is the
        resolver's, ``resolve.py``)."""
        call = node.named_children[0] if node.named_children else None
        return call is not None and self._io_assignment(call)

    def _read(self, op: str, args: list[Node]) -> Tokens:
        mode = self.st.read_mode
        tok = ["input", "(", ")"] if mode == "tokens" else ["next_token", "(", ")"]
        if op == "int":
            return ["int", "(", *tok, ")"]
        if op == "float":
            return ["float", "(", *tok, ")"]
        if op == "decimal":
            return ["decimal", ".", "Decimal", "(", *tok, ")"]
        if op == "token":
            return tok
        if op == "char":
            return [*tok, "[", "0", "]"]
        if op == "bool":
            return [*tok, "==", '" true "']
        if op in ("ints", "floats"):
            n = self.expr(args[0]) if args else ["0"]
            conv = "int" if op == "ints" else "float"
            return ["[", conv, "(", *tok, ")", "for", "_", "in", "range", "(", *n, ")", "]"]
        if op == "tokens":
            n = self.expr(args[0]) if args else ["0"]
            return ["[", *tok, "for", "_", "in", "range", "(", *n, ")", "]"]
        if op == "chars":
            return ["list", "(", *tok, ")"]
        if op == "line":
            return ["input", "(", ")"]
        if op == "has":
            return ["has_next", "(", ")"]
        if op == "has_line":
            return ["has_line", "(", ")"]
        if op == "read":
            return ["read_char", "(", ")"]
        return ["None"]

    def _printf(self, args: list[Node]) -> Tokens:
        if args and args[0].type == "identifier" and self.type_of(args[0]) == "Locale":
            args = args[1:]
        return ["print", "(", *self.format_expr(args), ",", "end", "=", '" "', ")"]

    def format_expr(self, args: list[Node]) -> Tokens:
        if args and self.text(args[0]).startswith("Locale"):
            args = args[1:]
        fmt = args[0]
        if fmt.type == "string_literal" and JAVA_ONLY_FORMAT.search(self.text(fmt)):  # `%,d`, `%2$s`, `%b`
            literal = self.text(fmt).replace("% n", "%n")
            return ["java_sprintf", "(", literal, *[t for a in args[1:] for t in [",", *self.expr(a)]], ")"]
        ft = [java_format(self.text(fmt))] if fmt.type == "string_literal" else self.expr(fmt)
        if len(args) == 1:
            return ft
        if len(ft) > 1:
            ft = ["(", *ft, ")"]  # `String.format("%" + n + "s", x)`: the whole format
        precisions = fixed_precisions(self.text(fmt)) if fmt.type == "string_literal" else []
        if len(precisions) == len(args) - 1 and any(p is not None for p in precisions):
            parts = [self.expr(a) for a in args[1:]]  # Java rounds `%.2f` half up from the shortest decimal
            parts = [
                x if p is None else ["half_up", "(", *x, ",", p, ")"] for x, p in zip(parts, precisions, strict=True)
            ]
            values = [t for i, x in enumerate(parts) for t in ([","] if i else []) + x]
        else:
            values = self.arg_tokens(args[1:])
        out = [*ft, "%", "(", *values, *([","] if len(args) == 2 else []), ")"]
        call = fmt.parent.parent if fmt.parent is not None else None
        outer = call.parent if call is not None else None
        if outer is not None and outer.type == "method_invocation" and outer.child_by_field_name("object") == call:
            return ["(", *out, ")"]  # `String.format(...).replace(' ', '0')`: the method of the formatted string
        return out

    def _io_assignment(self, node: Node) -> bool:
        """Does ``node`` make a stdin / stdout object (``x = new Scanner ( System . in )``, ``this . out = new
        PrintWriter ( System . out )``) for a variable of that kind? Its reads and prints are the runtime's."""
        if node.type != "assignment_expression" or self.text(node.child_by_field_name("operator")) != "=":
            return False
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and left.type == "field_access":
            left = left.child_by_field_name("field")
        if left is None or right is None or left.type != "identifier" or right.type != "object_creation_expression":
            return False
        kind = io_kind(base_io(type_text(right.child_by_field_name("type"))), self.st.prog)
        return kind not in ("", "tok") and self.st.prog.io.get(self.text(left)) == kind

    def _skip_declaration(self, node: Node) -> bool:
        """Declarations of stdin / stdout objects and of the flattened main class vanish."""
        prog = self.st.prog
        typ = base_io(type_text(node.child_by_field_name("type")))
        kind = io_kind(typ, prog) if self.policy.program_io else ""
        return (kind not in ("", "tok")) or (prog.main is not None and typ == prog.main.name)

    def _st_static_initializer(self, node: Node, level: int) -> None:
        for child in node.named_children:
            self._statement(child, level)

    def _st_try_with_resources_statement(self, node: Node, level: int) -> None:
        """``try ( Scanner sc = ... ) { ... }``: the resources as declarations, then the body."""
        res = node.child_by_field_name("resources")
        for r in res.named_children if res is not None else []:
            if r.type != "resource":
                continue
            typ = r.child_by_field_name("type")
            name = r.child_by_field_name("name")
            value = r.child_by_field_name("value")
            if typ is None or name is None or value is None:
                continue
            kind = io_kind(base_io(type_text(typ)), self.st.prog) if self.policy.program_io else ""
            if kind and kind != "tok":
                continue
            self.st.scopes[-1][self.text(name)] = self._type_name(typ)
            self._simple(level, [self.text(name), "=", *self.expr(value)])
        handlers = [c for c in node.named_children if c.type in ("catch_clause", "finally_clause")]
        if not handlers:
            body = node.child_by_field_name("body")
            if body:
                self._st_block(body, level)
            return
        self._st_try_statement(node, level)

    def _st_explicit_constructor_invocation(self, node: Node, level: int) -> None:
        """``super ( a )`` / ``this ( a )`` in a constructor."""
        args = self._args(node.child_by_field_name("arguments"))
        ctor = node.child_by_field_name("constructor")
        target = ["super", "(", ")"] if ctor is not None and ctor.type == "super" else ["self"]
        self._simple(level, [*target, ".", "__init__", "(", *self.arg_tokens(args), ")"])


# Integer.compare / Long.compare as a value: the sign of a - b, as Java returns it.
_COMPARE = tuple(["(", "lambda", "a", ",", "b", ":", "(", "a", ">", "b", ")", "-", "(", "a", "<", "b", ")", ")"])

_SB_EDITS = {"append", "insert", "reverse", "setCharAt", "deleteCharAt", "delete", "setLength", "replace"}
_EXACT_CONSTANTS: dict[tuple[str, str], tuple[str, ...]] = {
    ("Integer", "MAX_VALUE"): ("2147483647",),
    ("Integer", "MIN_VALUE"): ("(", "-", "2147483648", ")"),
    ("Long", "MIN_VALUE"): ("(", "-", "9223372036854775808", ")"),
    ("Double", "MAX_VALUE"): ("1.7976931348623157e308",),
    ("Double", "MIN_VALUE"): ("5e-324",),
    ("Short", "MAX_VALUE"): ("32767",),
    ("Byte", "MAX_VALUE"): ("127",),
}
_STREAM_SOURCES = ("stream", "range", "rangeClosed", "of")
_STREAM_STEPS = (
    "map", "mapToInt", "mapToLong", "mapToDouble", "mapToObj", "asLongStream", "asDoubleStream", "boxed", "parallel",
    "sequential", "filter", "sorted", "distinct", "limit", "skip",
)  # fmt: skip
_INT_OF = ("int",)
_METHOD_REFS: dict[tuple[str, str], tuple[str, ...]] = {
    ("Integer", "parseInt"): _INT_OF,
    ("Long", "parseLong"): _INT_OF,
    ("Integer", "valueOf"): _INT_OF,
    ("Long", "valueOf"): _INT_OF,
    ("*", "intValue"): _INT_OF,
    ("*", "longValue"): _INT_OF,
    ("Double", "parseDouble"): ("float",),
    ("Double", "valueOf"): ("float",),
    ("*", "doubleValue"): ("float",),
    ("String", "valueOf"): ("str",),
    ("*", "toString"): ("str",),
    ("Integer", "sum"): ("(", "lambda", "a", ",", "b", ":", "a", "+", "b", ")"),
    ("Long", "sum"): ("(", "lambda", "a", ",", "b", ":", "a", "+", "b", ")"),
    ("Double", "sum"): ("(", "lambda", "a", ",", "b", ":", "a", "+", "b", ")"),
    ("Math", "max"): ("max",),
    ("Math", "min"): ("min",),
    ("Integer", "max"): ("max",),
    ("Integer", "min"): ("min",),
    ("Long", "max"): ("max",),
    ("Long", "min"): ("min",),
    ("Math", "abs"): ("abs",),
    ("Integer", "compare"): _COMPARE,
    ("Long", "compare"): _COMPARE,
    ("String", "length"): ("len",),
    ("String", "toUpperCase"): ("str", ".", "upper"),
    ("String", "toLowerCase"): ("str", ".", "lower"),
    ("String", "trim"): ("str", ".", "strip"),
    ("Character", "getNumericValue"): ("int",),
    ("Character", "isDigit"): ("str", ".", "isdigit"),
    ("Character", "isLetter"): ("str", ".", "isalpha"),
    ("*", "getKey"): ("(", "lambda", "e", ":", "e", "[", "0", "]", ")"),
    ("*", "getValue"): ("(", "lambda", "e", ":", "e", "[", "1", "]", ")"),
    ("Objects", "nonNull"): ("(", "lambda", "x", ":", "x", "is", "not", "None", ")"),
}


def _base_type_name(typ: str) -> str:
    return typ.removesuffix("<>")


def _comma_list(items: list[str]) -> Tokens:
    out: Tokens = []
    for i, item in enumerate(items):
        out += ([","] if i else []) + [item]
    return out
