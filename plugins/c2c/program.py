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
from functools import lru_cache
from typing import TYPE_CHECKING

from plugins.c2c import carried
from plugins.c2c.java_types import (
    FIXED_INTS,
    FLOAT_TYPES,
    IN_TYPES,
    OUT_TYPES,
    field_default,
)
from plugins.c2c.library import (
    _BIG_OPS,
    _THEN_COMPARING,
    SUPPORT_BASES,
    SUPPORT_CLASSES,
    _scalar_local,
    emit_constant,
    support_lines,
    support_methods,
)
from plugins.c2c.state import ClassInfo, ProgramInfo
from plugins.c2c.syntax import PY_KEYWORDS, Tokens, _walk

if TYPE_CHECKING:
    from tree_sitter import Node

CLASS_TYPES = ("class_declaration", "interface_declaration", "enum_declaration", "record_declaration")
# what a Java reading method gives: op name by (receiver kind, method)
SCANNER_OPS = {
    "nextInt": "int",
    "nextLong": "int",
    "nextShort": "int",
    "nextByte": "int",
    "nextBigInteger": "int",
    "nextDouble": "float",
    "nextFloat": "float",
    "nextBigDecimal": "decimal",
    "nextToken": "advance",  # a StreamTokenizer's (a StringTokenizer is a "tok" receiver)
    "next": "token",
    "nextLine": "line",
    "readLine": "line",
    "hasNext": "has",
    "hasNextInt": "has",
    "hasNextLong": "has",
    "hasNextLine": "has_line",
    "ready": "has",
    "nextBoolean": "bool",
    "read": "read",
    "close": "noop",
}
IO_ROLES = ("reader", "writer", "io")  # classes a program's stdin / stdout replaces
_PRINT_OPS = {
    "println": "println",
    "print": "print",
    "printf": "printf",
    "format": "printf",
    "write": "print",
    "append": "print",
    "newLine": "newline",
    "flush": "noop",
    "close": "noop",
}


def _modifiers(node: Node) -> str:
    for c in node.children:
        if c.type == "modifiers":
            return c.text.decode() if c.text else ""
    return ""


def _type_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    text = node.text.decode()
    return re.sub(r"<.*>", "", text).replace(" ", "")


def _base_io(typ: str) -> str:
    return typ.split(".")[-1]


def class_members(node: Node) -> list[Node]:
    body = node.child_by_field_name("body")
    if body is None:
        return []
    out = []
    for c in body.named_children:
        if c.type == "enum_body_declarations":
            out.extend(c.named_children)
        else:
            out.append(c)
    return out


def _enum_constants(node: Node) -> list[str]:
    body = node.child_by_field_name("body")
    consts = [c for c in (body.named_children if body is not None else []) if c.type == "enum_constant"]
    return [c.child_by_field_name("name").text.decode() for c in consts]


def is_main_method(node: Node) -> bool:
    name = node.child_by_field_name("name")
    return (
        node.type == "method_declaration"
        and name is not None
        and name.text == b"main"
        and ("static" in _modifiers(node))
    )


def _recursive(calls: list[Node], info: ProgramInfo, methods: set[bytes]) -> bool:
    """Does a method call itself, directly or through others (``even`` -> ``odd`` -> ``even``), by name,
    unqualified, through ``this`` / its class, or on another object that may be of the program's classes
    (``left . insert ( v )`` of a tree's node: a method the program declares, called on an object that is
    no stdin / stdout object and no library class: not ``sc . nextInt ( )``, ``Math . min ( a , b )``)?"""
    graph: dict[bytes, set[bytes]] = {}
    for c in calls:
        obj, callee = c.child_by_field_name("object"), c.child_by_field_name("name")
        if callee is None:
            continue
        receiver = (obj.text or b"").decode() if obj is not None else ""
        if obj is not None and obj.type != "this" and receiver not in info.classes:
            library = obj.type == "identifier" and (receiver in info.io or receiver[:1].isupper())
            if library or callee.text not in methods:
                continue
        method = c.parent
        while method is not None and method.type not in ("method_declaration", "class_body"):
            method = method.parent
        name = (
            method.child_by_field_name("name") if method is not None and method.type == "method_declaration" else None
        )
        if name is not None:
            graph.setdefault(name.text or b"", set()).add(callee.text or b"")
    for start in graph:  # a cycle through ``start``: a walk from its callees reaches it again
        seen: set[bytes] = set()
        todo = list(graph[start])
        while todo:
            cur = todo.pop()
            if cur == start:
                return True
            if cur not in seen:
                seen.add(cur)
                todo.extend(graph.get(cur, ()))
    return False


_COMPARING = ("comparing", "comparingInt", "comparingLong", "comparingDouble")


def _key_extractor(node: Node) -> bool:
    """A one-parameter lambda or a method reference (a key, not a comparator of two)."""
    if node.type == "method_reference":
        return True
    if node.type != "lambda_expression":
        return False
    params = node.child_by_field_name("parameters")
    return params is not None and (params.type == "identifier" or len(params.named_children) == 1)


def _holds_minus(node: Node | None) -> bool:
    """Does ``node`` subtract or negate at its top (through parentheses and casts)?"""
    while node is not None and node.type in ("parenthesized_expression", "cast_expression"):
        node = node.named_children[-1] if node.named_children else None
    if node is None:
        return False
    if node.type == "unary_expression":
        return node.children[0].type == "-"
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        return (op is not None and op.type == "-") or any(
            _holds_minus(node.child_by_field_name(side)) for side in ("left", "right")
        )
    return False


def _signed_names(nodes: list[Node]) -> set[str]:
    """Variables that may hold a negative number: targets of ``-=``, given a difference or a negation, or
    copied from such a variable; an array given such an element (``{ a , - b }``, ``v [ i ] = - x``) and a
    for-each variable over such an array."""
    given: list[tuple[str, Node | None, bool]] = []  # (variable, value, by `-=`)
    for n in nodes:
        if n.type == "assignment_expression":
            left, op = n.child_by_field_name("left"), n.child_by_field_name("operator")
            if left is not None and left.type == "array_access":  # `v [ i ] = - x`: an element of v
                left = left.child_by_field_name("array")
            if left is not None and left.type == "identifier" and op is not None and op.type in ("=", "-="):
                given.append(((left.text or b"").decode(), n.child_by_field_name("right"), op.type == "-="))
        elif n.type == "variable_declarator":
            name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
            if name is not None and name.text is not None:
                given.append((name.text.decode(), value, False))
                if value is not None and value.type == "array_initializer":  # `{ a , - b }`: its elements
                    given += [(name.text.decode(), item, False) for item in value.named_children]
        elif n.type == "enhanced_for_statement":  # `for ( int e : v )`: an element of v
            name = n.child_by_field_name("name")
            if name is not None and name.text is not None:
                given.append((name.text.decode(), n.child_by_field_name("value"), False))
    out = {name for name, value, minus in given if minus or _holds_minus(value)}
    grew = True
    while grew:
        more = {
            name
            for name, value, _ in given
            if value is not None and value.type == "identifier" and (value.text or b"").decode() in out
        }
        grew = not more <= out
        out |= more
    return out


_DEQUE_TYPES = ("Queue", "Deque", "ArrayDeque", "LinkedList")
# the queue methods a `collections.deque` answers as the list did (library.py's rules), by their argument count
_DEQUE_METHODS = {
    **dict.fromkeys(("add", "offer", "addLast", "offerLast", "push", "addFirst", "offerFirst", "contains"), 1),
    **dict.fromkeys(("poll", "pollFirst", "pollLast", "pop", "remove", "removeFirst", "removeLast"), 0),
    **dict.fromkeys(("peek", "peekFirst", "peekLast", "getFirst", "getLast", "element", "isEmpty", "size"), 0),
    "clear": 0,
}


def _deques(everything: list[Node]) -> frozenset[str]:
    """Variables that are a ``collections.deque`` (``poll`` an O(1) ``popleft``, where a list's ``pop ( 0 )`` is
    O(n)): declared only as ``Queue`` / ``Deque`` / ``ArrayDeque`` / ``LinkedList``, made only by an empty
    ``new ArrayDeque`` / ``new LinkedList``, and otherwise only the receiver of a queue method of
    ``_DEQUE_METHODS`` or walked by a for-each. A name used any other way anywhere (an argument, printed,
    indexed, sorted, another variable's name) stays a list: the rules that read it as one still apply."""

    def empty_queue(value: Node | None) -> bool:
        args = value.child_by_field_name("arguments") if value is not None else None
        return (
            value is not None
            and value.type == "object_creation_expression"
            and _type_text(value.child_by_field_name("type")) in ("ArrayDeque", "LinkedList")
            and (args is None or not args.named_children)
        )

    def queue_use(ident: Node) -> bool:
        parent = ident.parent
        if parent is None:
            return False
        if parent.type == "variable_declarator" and parent.child_by_field_name("name") == ident:
            decl = parent.parent
            return (
                decl is not None
                and decl.type in ("local_variable_declaration", "field_declaration")
                and _type_text(decl.child_by_field_name("type")) in _DEQUE_TYPES
                and (parent.child_by_field_name("value") is None or empty_queue(parent.child_by_field_name("value")))
            )
        if parent.type == "method_invocation" and parent.child_by_field_name("object") == ident:
            name, args = parent.child_by_field_name("name"), parent.child_by_field_name("arguments")
            n_args = len(args.named_children) if args is not None else 0
            return name is not None and _DEQUE_METHODS.get((name.text or b"").decode()) == n_args
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") == ident:
            return parent.child_by_field_name("operator").type == "=" and empty_queue(
                parent.child_by_field_name("right")
            )
        return parent.type == "enhanced_for_statement" and parent.child_by_field_name("value") == ident

    declared: set[str] = set()
    refused: set[str] = set()
    for n in everything:
        if n.type == "identifier" and n.text is not None:
            name = n.text.decode()
            if not queue_use(n):
                refused.add(name)
            elif n.parent is not None and n.parent.type == "variable_declarator":
                declared.add(name)
    return frozenset(declared - refused)


def analyze(root: Node) -> ProgramInfo:
    """Classes, their members and roles, the io variables and the reads a program makes."""
    info = ProgramInfo()
    everything = list(_walk(root))  # one walk; the passes below filter it
    classes = [n for n in everything if n.type in CLASS_TYPES]
    for cls in classes:
        name_node = cls.child_by_field_name("name")
        if name_node is None or name_node.text is None:
            continue
        ci = ClassInfo(name_node.text.decode(), cls)
        sup = cls.child_by_field_name("superclass")
        if sup is not None:
            ci.base = _type_text(sup.named_children[0] if sup.named_children else None)
            if ci.base.replace(" ", "") in SUPPORT_BASES:  # `extends AbstractMap.SimpleEntry<K, V>`
                ci.base = SUPPORT_BASES[ci.base.replace(" ", "")]
                ci.instance_methods |= support_methods(ci.base)
        wraps_in = wraps_out = False
        for m in class_members(cls):
            static = "static" in _modifiers(m)
            if m.type == "field_declaration":
                t = _base_io(_type_text(m.child_by_field_name("type")))
                wraps_in |= t in IN_TYPES or t == "StringTokenizer"
                wraps_out |= t in OUT_TYPES
                tnode = m.child_by_field_name("type")
                typ = _type_text(tnode) + ("<>" if tnode is not None and tnode.type == "generic_type" else "")
                for d in m.children_by_field_name("declarator"):
                    n = d.child_by_field_name("name")
                    if n is not None and n.text is not None:
                        (ci.static_fields if static else ci.instance_fields).add(n.text.decode())
                        dims = d.child_by_field_name("dimensions")
                        ci.field_types[n.text.decode()] = typ + "[]" * (dims.text or b"").count(b"[") if dims else typ
            elif m.type == "method_declaration":
                n = m.child_by_field_name("name")
                if n is not None and n.text is not None:
                    (ci.static_methods if static else ci.instance_methods).add(n.text.decode())
            elif m.type == "constructor_declaration":
                params = m.child_by_field_name("parameters")
                for p in params.named_children if params is not None else []:
                    t = _base_io(_type_text(p.child_by_field_name("type")))
                    wraps_in |= t in IN_TYPES
                    wraps_out |= t in OUT_TYPES
        if cls.type == "enum_declaration":
            ci.base = "JavaEnum"
            ci.instance_methods |= support_methods("JavaEnum") - {"constants"}  # `values ( )` in its methods
            for const in _enum_constants(cls):
                ci.static_fields.add(const)
                ci.field_types[const] = ci.name
                info.enum_constants.setdefault(const, ci.name)
        if any(is_main_method(m) for m in class_members(cls)) and info.main is None:
            ci.role = "main"
            info.main = ci
        elif ci.base in OUT_TYPES:
            ci.role = "io" if wraps_in and _only_reads(cls) else "writer"
        elif wraps_in and not wraps_out and _only_reads(cls):
            ci.role = "reader"
        elif wraps_out and not wraps_in and not ci.static_methods:
            ci.role = "writer"
        info.classes.setdefault(ci.name, ci)
    if info.main is not None and _made_as_object(info.main, everything):
        info.main.role, info.entry, info.main = "class", info.main, None
    for ci in info.classes.values():  # a solver holding the reader and the writer (`run`, `dfs`) stays a class
        if ci.role == "writer" and any(
            info.classes[t].role == "reader" for t in _field_type_names(ci.node) if t in info.classes
        ):
            ci.role = "class"
    for ci in info.classes.values():
        if ci.role == "io":  # its own methods read; what it inherits from its writer base prints
            ci.writes = {name: op for name, op in _PRINT_OPS.items() if name not in ci.instance_methods}
        if ci.role in ("reader", "io"):
            for m in class_members(ci.node):
                if m.type != "method_declaration" or "private" in _modifiers(m):
                    continue
                ci.ops[m.child_by_field_name("name").text.decode()] = _reader_op(m)
        elif ci.role == "writer":
            for name in ci.instance_methods | ci.static_methods:
                ci.ops[name] = _writer_op(name)
    if info.main is not None:
        info.module_globals = info.main.static_fields | info.main.instance_fields
    for imp in root.named_children:  # `import static java.lang.System.out;`
        if imp.type == "import_declaration" and imp.text is not None:
            text = imp.text.decode().replace(" ", "")
            if text.startswith("importstatic"):
                if text.endswith(("System.out;", "System.*;")):
                    info.io["out"] = "out"
                if text.endswith(("System.err;", "System.*;")):
                    info.io["err"] = "err"
                if ".Math." in text:
                    info.static_math = True
    # io variables: declared with an io type or a reader / writer class
    for n in everything:
        if n.type in ("field_declaration", "local_variable_declaration", "formal_parameter", "resource"):
            t = _base_io(_type_text(n.child_by_field_name("type")))
            made = n.child_by_field_name("declarator")
            made = made.child_by_field_name("value") if made is not None and made.type != "identifier" else None
            if t == "var" and made is not None and made.type == "object_creation_expression":
                t = _base_io(_type_text(made.child_by_field_name("type")))  # `var sc = new Scanner ( System . in )`
            kind = _io_kind(t, info)
            if info.main is not None and t == info.main.name:
                kind = "main"
            if not kind:
                continue
            if n.type in ("formal_parameter", "resource"):
                nm = n.child_by_field_name("name")
                if nm is not None and nm.text is not None:
                    _set_io(info, nm.text.decode(), kind)
            else:
                for d in n.children_by_field_name("declarator"):
                    nm = d.child_by_field_name("name")
                    if nm is not None and nm.text is not None:
                        _set_io(info, nm.text.decode(), kind)
    # priority queues in natural order: heapq over a list
    for n in everything:
        if n.type == "variable_declarator":
            value = n.child_by_field_name("value")
            nm = n.child_by_field_name("name")
            if value is not None and nm is not None and value.type == "object_creation_expression":
                t = _type_text(value.child_by_field_name("type"))
                args = value.child_by_field_name("arguments")
                plain = args is None or all(
                    a.type in ("decimal_integer_literal", "identifier") for a in args.named_children
                )
                order = _heap_order(args) if t == "PriorityQueue" and not plain else ""
                if t == "PriorityQueue" and (plain or order == "natural") and nm.text is not None:
                    info.heaps.add(nm.text.decode())
                if t == "PriorityQueue" and order == "reverse" and nm.text is not None:
                    info.max_heaps.add(nm.text.decode())
                if t == "PriorityQueue" and not plain and not order and nm.text is not None:
                    info.cmp_heaps.add(nm.text.decode())
                if t in ("TreeMap", "TreeSet", "EnumMap") and nm.text is not None:
                    info.sorted_maps.add(nm.text.decode())
                if t in ("HashMap", "HashSet") and nm.text is not None:
                    info.hash_tables.add(nm.text.decode())
        elif n.type == "assignment_expression":  # `m = new HashMap<>()` of a field
            left, value = n.child_by_field_name("left"), n.child_by_field_name("right")
            if value.type == "object_creation_expression" and left.type in ("identifier", "field_access"):
                t = _type_text(value.child_by_field_name("type"))
                name = left if left.type == "identifier" else left.child_by_field_name("field")
                if t in ("HashMap", "HashSet") and name is not None:
                    info.hash_tables.add((name.text or b"").decode())
    info.deques = _deques(everything)
    # reads made outside reader classes
    readers = [c.node for c in info.classes.values() if c.role in ("reader", "io")]
    for n in everything:  # a StreamTokenizer's `nval` / `sval`: the token its `nextToken ( )` read
        op = stream_field_op(n, info)
        if op and not any(_inside(n, r) for r in readers):
            info.reads.add(op)
    calls = [n for n in everything if n.type == "method_invocation"]
    for n in calls:
        if any(_inside(n, r) for r in readers):
            continue
        op = read_op(n, info)
        if op:
            info.reads.add(op)
            if op == "line" and n.parent is not None and n.parent.type in ("assignment_expression",):
                gp = n.parent.parent
                while gp is not None and gp.type == "parenthesized_expression":
                    gp = gp.parent
                if gp is not None and gp.type == "binary_expression" and b"null" in (gp.text or b""):
                    info.line_null_checks = True
    declared = {n.child_by_field_name("name").text or b"" for n in everything if n.type == "method_declaration"}
    info.recursive = _recursive(calls, info, declared)
    info.signed = _signed_names(everything)
    info.local_main = _builds_text_in_loop(everything) or _nested_loops_in_main(everything)
    for ci in info.classes.values():
        if ci.role != "class":
            continue
        per = {name: {k: f"{name}_{k}" for k in ks} for name, ks in _arities(ci.node).items() if len(ks) > 1}
        if per:
            info.class_overloads[ci.name] = per
    if info.main is not None:
        arities = _arities(info.main.node)
        from plugins.c2c.syntax import PY_BUILTINS, PY_KEYWORDS

        taken = PY_BUILTINS | PY_KEYWORDS | {"input", "next_token", "has_next", "has_line", "read_char"}
        for name, ks in arities.items():
            if len(ks) > 1:
                info.overloads[name] = {k: f"{name}_{k}" for k in ks}
            elif name in taken:
                info.renames[name] = name + "_"
    return info


def _made_as_object(main: ClassInfo, everything: list[Node]) -> bool:
    """Does the program use objects of its main class as objects: a constructor that does work, several
    objects (made twice, or in a loop), or an object's field read from outside (``ins . x``)? Then the main
    class stays a class; flattened into the module, its one object's state would be the module's globals."""
    made = [
        n
        for n in everything
        if n.type == "object_creation_expression" and _type_text(n.child_by_field_name("type")) == main.name
    ]
    if not made:
        return False
    for m in class_members(main.node):
        if m.type == "constructor_declaration":
            params, body = m.child_by_field_name("parameters"), m.child_by_field_name("body")
            if (params is not None and params.named_children) or (body is not None and body.named_children):
                return True
    if len(made) > 1 or any(_in_loop(n) for n in made):
        return True
    held = {
        (d.child_by_field_name("name").text or b"").decode()
        for n in everything
        if n.type in ("local_variable_declaration", "field_declaration")
        and _type_text(n.child_by_field_name("type")) == main.name
        for d in n.children_by_field_name("declarator")
    }
    return any(
        n.type == "field_access"
        and (n.child_by_field_name("object").text or b"").decode() in held
        and (n.child_by_field_name("field").text or b"").decode() in main.instance_fields
        for n in everything
    )


def _in_loop(node: Node) -> bool:
    up = node.parent
    while up is not None and up.type not in ("method_declaration", "lambda_expression", *CLASS_TYPES):
        if up.type in _LOOPS:
            return True
        up = up.parent
    return False


def _arities(cls: Node) -> dict[str, set[int]]:
    """Each method name of the class -> the numbers of parameters its overloads take."""
    arities: dict[str, set[int]] = {}
    for m in class_members(cls):
        if m.type == "method_declaration" and not is_main_method(m):
            params = m.child_by_field_name("parameters")
            k = len([p for p in params.named_children if p.type in ("formal_parameter", "spread_parameter")])
            arities.setdefault(m.child_by_field_name("name").text.decode(), set()).add(k)
    return arities


def _returns(body: Node) -> bool:
    """Does the block hold a ``return`` of its own (not one of a local class or lambda)?"""
    stack = [body]
    while stack:
        cur = stack.pop()
        if cur.type == "return_statement":
            return True
        if cur.type not in (*CLASS_TYPES, "lambda_expression", "object_creation_expression"):
            stack.extend(cur.children)
    return False


_TEXT_TYPES = ("String", "StringBuilder", "StringBuffer")
# a Java parameter type -> the Python type an argument for it has (telling constructors apart)
_PY_CHECKS = {
    "int": "int", "long": "int", "short": "int", "byte": "int", "Integer": "int", "Long": "int",
    "double": "float", "float": "float", "Double": "float", "String": "str", "boolean": "bool", "Boolean": "bool",
    "List": "list", "ArrayList": "list", "Map": "dict", "HashMap": "dict", "Set": "set", "HashSet": "set",
}  # fmt: skip
_LOOPS = ("for_statement", "enhanced_for_statement", "while_statement", "do_statement")


def _builds_text_in_loop(nodes: list[Node]) -> bool:
    """Does ``main`` append to a local String / StringBuilder in a loop? At module level CPython copies the
    whole str on every ``+=`` (it extends in place only a function's local): quadratic on 10^5 pieces."""
    texts: set[bytes] = set()
    appends: list[tuple[Node, bytes]] = []
    for n in nodes:
        if n.type == "local_variable_declaration" and _type_text(n.child_by_field_name("type")) in _TEXT_TYPES:
            texts |= {d.child_by_field_name("name").text or b"" for d in n.children_by_field_name("declarator")}
        elif n.type == "method_invocation" and (n.child_by_field_name("name").text or b"") in (b"append", b"insert"):
            target = n.child_by_field_name("object")
            while target is not None and target.type == "method_invocation":
                target = target.child_by_field_name("object")
            if target is not None and target.type == "identifier":
                appends.append((n, target.text or b""))
        elif n.type == "assignment_expression" and n.child_by_field_name("operator").type == "+=":
            target = n.child_by_field_name("left")
            if target.type == "identifier":
                appends.append((n, target.text or b""))
    for n, name in appends:
        up, looped = n.parent, False
        while name in texts and up is not None and up.type not in ("method_declaration", *CLASS_TYPES):
            looped |= up.type in _LOOPS
            up = up.parent
        if looped and up is not None and is_main_method(up):
            return True
    return False


def _nested_loops_in_main(nodes: list[Node]) -> bool:
    """Does ``main`` hold a loop inside a loop? Module-level names are dict lookups: such a loop runs about
    1.7 times slower at module level than in a function (a 2,000 x 2,000 DP: 1.23 s against 0.74 s)."""
    for n in nodes:
        if n.type not in _LOOPS:
            continue
        up, outer = n.parent, False
        while up is not None and up.type not in ("method_declaration", "lambda_expression", *CLASS_TYPES):
            outer |= up.type in _LOOPS
            up = up.parent
        if outer and up is not None and up.type == "method_declaration" and is_main_method(up):
            return True
    return False


def _set_io(info: ProgramInfo, name: str, kind: str) -> None:
    """One name may be declared several times (`in` a reader here, an InputStream there): the most
    specific kind wins (a reader or writer class, then a stream, then a tokenizer)."""
    rank = {"tok": 1, "in": 2, "out": 2, "err": 2, "main": 3}
    old = info.io.get(name)
    if old is None or rank.get(kind, 4) >= rank.get(old, 4):
        info.io[name] = kind


def _heap_order(args: Node | None) -> str:
    """A PriorityQueue's comparator: "reverse" (numbers, largest first), "natural" (by the first
    element, as Python compares lists), or "" (anything else)."""
    if args is None:
        return ""
    comps = [a for a in args.named_children if a.type not in ("decimal_integer_literal", "identifier")]
    if len(comps) != 1 or comps[0].text is None:
        return ""
    text = comps[0].text.decode().replace(" ", "")
    if text in ("Collections.reverseOrder()", "Comparator.reverseOrder()"):
        return "reverse"
    m = re.fullmatch(r"\((\w+),(\w+)\)->(\w+)-(\w+)", text)
    if m and m.group(3) == m.group(2) and m.group(4) == m.group(1):
        return "reverse"
    m = re.fullmatch(r"\((\w+),(\w+)\)->(?:Integer\.compare\()?(\w+)\[0\](?:-|,)(\w+)\[0\]\)?", text)
    if m and m.group(3) == m.group(1) and m.group(4) == m.group(2):
        return "natural"
    if re.fullmatch(r"Comparator\.comparing(?:Int|Long)?\(\(?(\w+)\)?->\1\[0\]\)", text):
        return "natural"
    return ""


def _only_reads(cls: Node) -> bool:
    """Is every method of the class a read or a helper of reads (no void method but close, no printing)?"""
    for m in class_members(cls):
        if m.type != "method_declaration":
            continue
        t = _type_text(m.child_by_field_name("type"))
        name = (m.child_by_field_name("name").text or b"").decode()
        helper = "private" in _modifiers(m) or name.startswith(("next", "read", "skip"))  # a private one helps reads
        if t == "void" and name not in ("close", "flush") and not helper:
            return False
        if b"System.out" in (m.text or b"").replace(b" ", b""):
            return False
    return True


def _inside(node: Node, ancestor: Node) -> bool:
    return ancestor.start_byte <= node.start_byte and node.end_byte <= ancestor.end_byte


def _io_kind(t: str, info: ProgramInfo) -> str:
    if t in info.classes and info.classes[t].role in IO_ROLES:
        return t
    if t in info.classes:
        return ""
    if t in IN_TYPES:
        return "in"
    if t == "StringTokenizer":
        return "tok"
    if t in OUT_TYPES:
        return "out"
    return ""


def _reader_op(method: Node) -> str:
    name = method.child_by_field_name("name").text.decode()
    t = _type_text(method.child_by_field_name("type"))
    low = name.lower()
    if t in FIXED_INTS:
        return "read" if low in ("read", "readbyte") else "int"
    if t in FLOAT_TYPES:
        return "float"
    if t == "String":
        return "line" if "line" in low else "token"
    if t == "char":
        return "char"
    if t == "boolean":
        return "has" if low.startswith("has") or low in ("ready",) else "bool"
    if t in ("int[]", "long[]"):
        return "ints"
    if t in ("double[]",):
        return "floats"
    if t == "String[]":
        return "tokens"
    if t == "char[]":
        return "chars"
    return "noop"


def _field_type_names(cls: Node) -> set[str]:
    """The type names of a class's fields."""
    return {_type_text(m.child_by_field_name("type")) for m in class_members(cls) if m.type == "field_declaration"}


def _writer_op(name: str) -> str:
    if name in _PRINT_OPS:
        return _PRINT_OPS[name]
    low = name.lower()
    if low in ("flush", "close"):
        return "noop"
    if low.endswith("ln") or "line" in low:
        return "println"
    if low.startswith(("printf", "format")):
        return "printf"
    return "print"


def receiver_kind(obj: Node | None, info: ProgramInfo) -> str:
    """ "in" / "tok" / "out" / a reader or writer class name / "" for the object a call is made on."""
    if obj is None:
        return ""
    if obj.type == "field_access":
        f = obj.child_by_field_name("field")
        o = obj.child_by_field_name("object")
        if o is not None and o.text == b"System" and f is not None and f.text in (b"out", b"err"):
            return "out" if f.text == b"out" else "err"
        if o is not None and o.type == "this" and f is not None and f.text is not None:
            return info.io.get(f.text.decode(), "")
        return ""
    if obj.type == "identifier" and obj.text is not None:
        name = obj.text.decode()
        if name in info.classes and info.classes[name].role in IO_ROLES:
            return name  # a reader with static methods: `sc . nextInt ( )`
        return info.io.get(name, "")
    if obj.type == "object_creation_expression":
        return _io_kind(_base_io(_type_text(obj.child_by_field_name("type"))), info)
    if obj.type == "parenthesized_expression" and obj.named_children:
        return receiver_kind(obj.named_children[0], info)
    return ""


_STREAM_FIELDS = {"nval": "float", "sval": "token"}


def stream_field_op(node: Node, info: ProgramInfo) -> str:
    """``in . nval`` / ``in . sval`` of a StreamTokenizer: the read op it stands for (``nextToken`` reads nothing)."""
    if node.type != "field_access":
        return ""
    field = node.child_by_field_name("field")
    name = field.text.decode() if field is not None and field.text is not None else ""
    if name not in _STREAM_FIELDS or receiver_kind(node.child_by_field_name("object"), info) != "in":
        return ""
    return _STREAM_FIELDS[name]


def read_op(call: Node, info: ProgramInfo) -> str:
    """The stdin op of a call (``int``, ``token``, ``line``, ``has``, ...), or ""."""
    obj = call.child_by_field_name("object")
    name_node = call.child_by_field_name("name")
    if name_node is None or name_node.text is None:
        return ""
    name = name_node.text.decode()
    if (
        obj is not None
        and obj.type == "field_access"
        and obj.text is not None
        and obj.text.replace(b" ", b"") == (b"System.in")
    ):
        return "read" if name == "read" else ""
    kind = receiver_kind(obj, info)
    if kind == "in":
        return SCANNER_OPS.get(name, "")
    if kind in info.classes and info.classes[kind].role in ("reader", "io"):
        return info.classes[kind].ops.get(name, "")
    return ""


def runtime_lines(funcs: set[str]) -> list[tuple[int, Tokens]]:
    """The shared-buffer stdin runtime (``runtime/stdin.py``): its buffer and position, the functions in
    ``funcs`` and what they read, in the file's order."""
    return carried.lines_in_file_order(carried.load("stdin"), {"_stdin", "_pos", *funcs})


@lru_cache(maxsize=256)
def java_format(literal: str) -> str:
    """A Java format string literal (AVATAR tokens) -> a Python ``%`` format literal (AVATAR tokens)."""
    body = literal[1:-1] if len(literal) >= 2 else literal
    body = body.replace("% n", "\\n").replace("%n", "\\n")
    body = re.sub(r"%\s*([-+0 ,#]*)\s*(\d*)\s*(\.\s*\d+)?\s*([bBhHsScCdoxXeEfgGaA])", _fmt, body)
    return '"' + body + '"'


# what Python's % cannot write as Java's Formatter does: grouping, argument indexes, booleans as `true`
_JAVA_ONLY_FORMAT = re.compile(r"%\s*(?:\d+\s*\$|[-+0 #]*,|[-+0 ,#]*\s*\d*\s*(?:\.\s*\d+)?\s*[bB])")


def _fixed_precisions(literal: str) -> list[str | None]:
    """Per conversion of a Java format literal: the digits of a fixed-point ``%.Nf`` / ``%f`` (6), else None."""
    body = literal[1:-1].replace("%%", "").replace("% n", "").replace("%n", "")
    out: list[str | None] = []
    for m in re.finditer(r"%\s*([-+0 ,#]*)\s*(\d*)\s*(\.\s*\d+)?\s*([bBhHsScCdoxXeEfgGaA])", body):
        prec = (m.group(3) or ".6").replace(" ", "")[1:]
        out.append(prec if m.group(4) == "f" else None)
    return out


def _fmt(m: re.Match) -> str:
    flags = m.group(1).replace(",", "").replace(" ", "")
    width = m.group(2)
    prec = (m.group(3) or "").replace(" ", "")
    conv = m.group(4)
    conv = {"b": "s", "B": "s", "h": "x", "H": "X", "S": "s", "C": "c"}.get(conv, conv)
    return "%" + flags + width + prec + conv


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


class ProgramMixin:
    """Translates whole compilation units (needs the statement, expression and type mixins)."""

    prog: ProgramInfo | None
    cls_stack: list[ClassInfo]

    # -- the compilation unit -------------------------------------------------------------------
    def _program(self, root: Node, info: ProgramInfo) -> None:
        """Translate the compilation unit ``root`` (analysed by ``analyze`` into ``info``)."""
        self.st.prog = info
        self._collect_method_types(root)
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
                    c.type == "method_invocation"
                    and c.child_by_field_name("object") is None
                    and (c.child_by_field_name("name").text or b"").decode() in methods
                    for c in _walk(m)
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
        returns = body is not None and _returns(body)
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
        self._rename_shadowing(m, start)  # `int min = ...` must not hide the builtin the translation calls

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
        own = []  # static fields made of the class itself: Python knows the class only after its body
        for m in members:
            static = "static" in _modifiers(m)
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
        static = ci is None or "static" in _modifiers(node)
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
        if pushed:
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
        for n in _walk(method):
            target = None
            if n.type == "method_invocation" and builders:  # `sb . append ( x )` rebinds the str standing for sb
                root = n.child_by_field_name("object")
                while root is not None and root.type == "method_invocation":
                    root = root.child_by_field_name("object")
                if (
                    root is not None
                    and root.type == "identifier"
                    and root.text is not None
                    and root.text.decode() in builders
                    and (n.child_by_field_name("name").text or b"").decode() in _SB_EDITS
                ):
                    target = root
            if n.type == "assignment_expression":
                target = n.child_by_field_name("left")
            elif n.type == "update_expression" and n.named_children:
                target = n.named_children[0]
            if target is None:
                continue
            if target.type == "field_access":
                obj = target.child_by_field_name("object")
                if (
                    obj is not None
                    and ci is None
                    and (
                        obj.type == "this"
                        or (self.st.prog.main is not None and obj.text == self.st.prog.main.name.encode())
                    )
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
                if m.type == "field_declaration" and _base_type_name(_type_text(m.child_by_field_name("type"))) in (
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
        if _type_text(method.child_by_field_name("type")) != "void":
            return None
        params = self._params(method.child_by_field_name("parameters"))
        names = [p for p, t in params if _base_type_name(t) in ("StringBuilder", "StringBuffer")]
        body = method.child_by_field_name("body")
        if len(names) != 1 or body is None:
            return None
        for n in _walk(body):
            if n.type == "method_invocation" and (n.child_by_field_name("name").text or b"").decode() in _SB_EDITS:
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
        kind = _io_kind(_base_io(re.sub(r"<.*>", "", typ)), self.st.prog)
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
        if name in prog.enum_constants and not self._is_local(name) and name not in prog.module_globals:
            return [prog.enum_constants[name], ".", name]  # `case RED :` of a switch on an enum
        kind = prog.io.get(name)
        if kind and kind not in ("tok", "main") and not _scalar_local(self, name):
            return ["None"]
        return [name]

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
            return _type_text(node.child_by_field_name("type")) == "BigInteger"
        if node.type == "method_invocation":
            obj, name, _ = self._call_parts(node)
            if self.text(obj) == "BigInteger" and name == "valueOf":
                return True
            return name in _BIG_OPS and self.is_big(obj)
        return False

    def comparator_chain(self, cmp: Node) -> tuple[Tokens, bool] | None:
        """``Comparator.comparing(f).thenComparing(g)[.reversed()]`` of key extractors: one key function
        (``f``, or a tuple of the keys) and whether the order is reversed; None for anything else."""
        node, reverse, keys = cmp, False, []
        if node.type == "method_invocation" and self._call_parts(node)[1] == "reversed":
            obj, _, args = self._call_parts(node)
            if args or obj is None:
                return None
            node, reverse = obj, True
        while node is not None and node.type == "method_invocation":
            obj, name, args = self._call_parts(node)
            if len(args) != 1 or not _key_extractor(args[0]):
                return None
            if name in _THEN_COMPARING:
                keys.insert(0, self.expr(args[0]))
                node = obj
                continue
            if name in _COMPARING and self.text(obj) == "Comparator":
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
            return [self._hoist(names and [(n, "?") for n in names], node.child_by_field_name("body"), node)]
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
        if self.st.prog.main is not None and owner == self.st.prog.main.name:
            return self._identifier(meth)
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

    def _runnable_call(self, r: Node) -> Tokens | None:
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
        t = _base_type_name(_type_text(r.child_by_field_name("type")))
        if self.st.prog.main is not None and t == self.st.prog.main.name:
            return [*self._identifier("run"), "(", ")"]
        if t in self.st.prog.classes:
            return [*self.expr(r), ".", "run", "(", ")"]
        return None

    def _thread_declaration(self, node: Node, level: int) -> bool:
        """``Thread t = new Thread ( null , runnable , "" , 1 << 26 )``: the runnable runs here (``t . start``
        and ``t . join`` then vanish); False for any other declaration."""
        decls = node.children_by_field_name("declarator")
        if self.policy.runs_threads and _type_text(node.child_by_field_name("type")) == "Thread" and len(decls) == 1:
            value = decls[0].child_by_field_name("value")
            if value is not None and value.type == "object_creation_expression":
                targs = [a for a in self._args(value.child_by_field_name("arguments")) if a.type != "null_literal"]
                run = self._runnable_call(targs[0]) if targs else None
                if run is not None:
                    self.st.threads.add(self.text(decls[0].child_by_field_name("name")))
                    self._simple(level, run)
                    return True
        return False

    def _program_expression_statement(self, node: Node, level: int) -> bool:
        """``new Thread ( null , runnable , "" , 1 << 26 ) . start ( )`` (a big stack for deep recursion):
        the runnable runs in place (``main`` already runs in a big-stack thread when a method recurses); a
        call that edits a StringBuilder out-parameter assigns it back; a stdin / stdout object made for a field
        (``sc = new Scanner ( System . in )`` in ``main``) vanishes as its declaration does. False for any other
        statement."""
        call = node.named_children[0] if node.named_children else None
        if call is None:
            return False
        if self._io_assignment(call):
            return True
        if call.type == "method_invocation":
            obj, name, args = self._call_parts(call)
            if obj is not None and self.text(obj) in self.st.threads and name in ("start", "join"):
                return True  # the thread's runnable already ran where the thread was made
            if (
                self.policy.runs_threads
                and name == "start"
                and not args
                and obj is not None
                and obj.type == "object_creation_expression"
                and _base_type_name(_type_text(obj.child_by_field_name("type"))) == "Thread"
            ):
                targs = [a for a in self._args(obj.child_by_field_name("arguments")) if a.type != "null_literal"]
                run = self._runnable_call(targs[0]) if targs else None
                if run is not None:
                    self._simple(level, run)
                    return True
            main = self.st.prog.main.name if self.st.prog.main is not None else None
            out = self._out_params().get(name) if obj is None or self.text(obj) == main else None
            if out is not None and len(args) > out[0] and args[out[0]].type == "identifier":
                self._simple(level, [*self.expr(args[out[0]]), "=", *self.expr(call)])  # the edited builder
                return True
        return False

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
        if fmt.type == "string_literal" and _JAVA_ONLY_FORMAT.search(self.text(fmt)):  # `%,d`, `%2$s`, `%b`
            literal = self.text(fmt).replace("% n", "%n")
            return ["java_sprintf", "(", literal, *[t for a in args[1:] for t in [",", *self.expr(a)]], ")"]
        ft = [java_format(self.text(fmt))] if fmt.type == "string_literal" else self.expr(fmt)
        if len(args) == 1:
            return ft
        if len(ft) > 1:
            ft = ["(", *ft, ")"]  # `String.format("%" + n + "s", x)`: the whole format
        precisions = _fixed_precisions(self.text(fmt)) if fmt.type == "string_literal" else []
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
        if left.type == "field_access":
            left = left.child_by_field_name("field")
        if left.type != "identifier" or right.type != "object_creation_expression":
            return False
        kind = _io_kind(_base_io(_type_text(right.child_by_field_name("type"))), self.st.prog)
        return kind not in ("", "tok") and self.st.prog.io.get(self.text(left)) == kind

    def _skip_declaration(self, node: Node) -> bool:
        """Declarations of stdin / stdout objects and of the flattened main class vanish."""
        prog = self.st.prog
        typ = _base_io(_type_text(node.child_by_field_name("type")))
        kind = _io_kind(typ, prog) if self.policy.program_io else ""
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
            kind = _io_kind(_base_io(_type_text(typ)), self.st.prog) if self.policy.program_io else ""
            if kind and kind != "tok":
                continue
            self.st.scopes[-1][self.text(name)] = self._type_name(typ)
            self._simple(level, [self.text(name), "=", *self.expr(value)])
        handlers = [c for c in node.named_children if c.type in ("catch_clause", "finally_clause")]
        if not handlers:
            self._st_block(node.child_by_field_name("body"), level) if node.child_by_field_name("body") else None
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
