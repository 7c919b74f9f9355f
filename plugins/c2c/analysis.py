"""The analysis of a whole program, before any of it is written: its classes and their roles (the main
class flattened or kept a class, readers, writers, io classes), the stdin / stdout objects and the reads
they make, the variables that are heaps, deques, sorted or hash maps, the names that may hold a negative
number, overloads, recursion. ``analyze(root)`` gives the ``ProgramInfo`` that ``program.py``'s emission,
``resolve.py`` and ``library/``'s rows read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from plugins.c2c.java_types import (
    FIXED_INTS,
    FLOAT_TYPES,
    IN_TYPES,
    OUT_TYPES,
)
from plugins.c2c.library.classes import SUPPORT_BASES, support_methods
from plugins.c2c.state import ClassInfo, ProgramInfo
from plugins.c2c.syntax import required, walk_nodes

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
PRINT_OPS = {
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


def modifiers(node: Node) -> str:
    for c in node.children:
        if c.type == "modifiers":
            return c.text.decode() if c.text else ""
    return ""


_TYPE_ARGS = re.compile(r"<.*>")


def type_text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    text = node.text.decode()
    if "<" in text:
        text = _TYPE_ARGS.sub("", text)
    return text.replace(" ", "")


def base_io(typ: str) -> str:
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
    return [(required(c, "name").text or b"").decode() for c in consts]


def is_main_method(node: Node) -> bool:
    name = node.child_by_field_name("name")
    return (
        node.type == "method_declaration"
        and name is not None
        and name.text == b"main"
        and ("static" in modifiers(node))
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


COMPARING = ("comparing", "comparingInt", "comparingLong", "comparingDouble")


def key_extractor(node: Node) -> bool:
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
# the queue methods a `collections.deque` answers as the list did (library/collections.py), by their argument count
_DEQUE_METHODS = {
    **dict.fromkeys(("add", "offer", "addLast", "offerLast", "push", "addFirst", "offerFirst", "contains"), 1),
    **dict.fromkeys(("poll", "pollFirst", "pollLast", "pop", "remove", "removeFirst", "removeLast"), 0),
    **dict.fromkeys(("peek", "peekFirst", "peekLast", "getFirst", "getLast", "element", "isEmpty", "size"), 0),
    "clear": 0,
}


def _deques(nodes: _Nodes) -> frozenset[str]:
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
            and type_text(value.child_by_field_name("type")) in ("ArrayDeque", "LinkedList")
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
                and type_text(decl.child_by_field_name("type")) in _DEQUE_TYPES
                and (parent.child_by_field_name("value") is None or empty_queue(parent.child_by_field_name("value")))
            )
        if parent.type == "method_invocation" and parent.child_by_field_name("object") == ident:
            name, args = parent.child_by_field_name("name"), parent.child_by_field_name("arguments")
            n_args = len(args.named_children) if args is not None else 0
            return name is not None and _DEQUE_METHODS.get((name.text or b"").decode()) == n_args
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") == ident:
            return required(parent, "operator").type == "=" and empty_queue(required(parent, "right"))
        return parent.type == "enhanced_for_statement" and parent.child_by_field_name("value") == ident

    # only a name declared with a queue type can be one; the other identifiers need no look
    candidates = {
        (required(d, "name").text or b"").decode()
        for n in nodes.of("local_variable_declaration", "field_declaration")
        if type_text(n.child_by_field_name("type")) in _DEQUE_TYPES
        for d in n.children_by_field_name("declarator")
    }
    if not candidates:
        return frozenset()
    declared: set[str] = set()
    refused: set[str] = set()
    for n in nodes.of("identifier"):
        if n.text is None or (name := n.text.decode()) not in candidates:
            continue
        if not queue_use(n):
            refused.add(name)
        elif n.parent is not None and n.parent.type == "variable_declarator":
            declared.add(name)
    return frozenset(declared - refused)


class _Nodes:
    """A program's nodes from one walk, in source order, with their types read once: the passes of
    ``analyze`` take the kinds they look at (reading ``Node.type`` of every node in each pass was most of
    its time)."""

    def __init__(self, root: Node) -> None:
        self.nodes = list(walk_nodes(root))
        self.types = [n.type for n in self.nodes]
        self.by_type: dict[str, list[Node]] = {}
        for n, t in zip(self.nodes, self.types, strict=True):
            self.by_type.setdefault(t, []).append(n)

    def of(self, *kinds: str) -> list[Node]:
        """The nodes of these kinds, in source order."""
        if len(kinds) == 1:
            return self.by_type.get(kinds[0], [])
        return [n for n, t in zip(self.nodes, self.types, strict=True) if t in kinds]


def analyze(root: Node) -> ProgramInfo:
    """Classes, their members and roles, the io variables and the reads a program makes."""
    info = ProgramInfo()
    nodes = _Nodes(root)  # one walk; the passes below take the kinds they read
    info.nodes_by_type = nodes.by_type  # the translator's declared names and method types read it, not a walk
    classes = nodes.of(*CLASS_TYPES)
    for cls in classes:
        name_node = cls.child_by_field_name("name")
        if name_node is None or name_node.text is None:
            continue
        ci = ClassInfo(name_node.text.decode(), cls)
        sup = cls.child_by_field_name("superclass")
        if sup is not None:
            ci.base = type_text(sup.named_children[0] if sup.named_children else None)
            if ci.base.replace(" ", "") in SUPPORT_BASES:  # `extends AbstractMap.SimpleEntry<K, V>`
                ci.base = SUPPORT_BASES[ci.base.replace(" ", "")]
                ci.instance_methods |= support_methods(ci.base)
        wraps_in = wraps_out = False
        for m in class_members(cls):
            static = "static" in modifiers(m)
            if m.type == "field_declaration":
                t = base_io(type_text(m.child_by_field_name("type")))
                wraps_in |= t in IN_TYPES or t == "StringTokenizer"
                wraps_out |= t in OUT_TYPES
                tnode = m.child_by_field_name("type")
                typ = type_text(tnode) + ("<>" if tnode is not None and tnode.type == "generic_type" else "")
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
                    t = base_io(type_text(p.child_by_field_name("type")))
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
    for ci in info.classes.values():  # `implements Shape` where Shape has `default` methods: its Python base
        ci.base = ci.base or _default_interface(ci.node, info)
    if info.main is not None and _made_as_object(info.main, nodes):
        info.main.role, info.entry, info.main = "class", info.main, None
    for ci in info.classes.values():  # a solver holding the reader and the writer (`run`, `dfs`) stays a class
        if ci.role == "writer" and any(
            info.classes[t].role == "reader" for t in _field_type_names(ci.node) if t in info.classes
        ):
            ci.role = "class"
    for ci in info.classes.values():
        if ci.role == "io":  # its own methods read; what it inherits from its writer base prints
            ci.writes = {name: op for name, op in PRINT_OPS.items() if name not in ci.instance_methods}
        if ci.role in ("reader", "io"):
            for m in class_members(ci.node):
                if m.type != "method_declaration" or "private" in modifiers(m):
                    continue
                ci.ops[(required(m, "name").text or b"").decode()] = _reader_op(m)
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
    for n in nodes.of("field_declaration", "local_variable_declaration", "formal_parameter", "resource"):
        t = base_io(type_text(n.child_by_field_name("type")))
        made = n.child_by_field_name("declarator")
        made = made.child_by_field_name("value") if made is not None and made.type != "identifier" else None
        if t == "var" and made is not None and made.type == "object_creation_expression":
            t = base_io(type_text(made.child_by_field_name("type")))  # `var sc = new Scanner ( System . in )`
        kind = io_kind(t, info)
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
    for n in nodes.of("variable_declarator", "assignment_expression"):
        if n.type == "variable_declarator":
            value = n.child_by_field_name("value")
            nm = n.child_by_field_name("name")
            if value is not None and nm is not None and value.type == "object_creation_expression":
                t = type_text(value.child_by_field_name("type"))
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
            left, value = required(n, "left"), required(n, "right")
            if value.type == "object_creation_expression" and left.type in ("identifier", "field_access"):
                t = type_text(value.child_by_field_name("type"))
                field = left if left.type == "identifier" else left.child_by_field_name("field")
                if t in ("HashMap", "HashSet") and field is not None:
                    info.hash_tables.add((field.text or b"").decode())
    _passed_tables(nodes, info)
    info.deques = _deques(nodes)
    # reads made outside reader classes
    readers = [c.node for c in info.classes.values() if c.role in ("reader", "io")]
    for n in nodes.of("field_access"):  # a StreamTokenizer's `nval` / `sval`: the token its `nextToken ( )` read
        op = stream_field_op(n, info)
        if op and not any(_inside(n, r) for r in readers):
            info.reads.add(op)
    calls = nodes.of("method_invocation")
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
    declared = {required(n, "name").text or b"" for n in nodes.of("method_declaration")}
    info.recursive = _recursive(calls, info, declared)
    info.signed = _signed_names(nodes.of("assignment_expression", "variable_declarator", "enhanced_for_statement"))
    info.local_main = _builds_text_in_loop(
        nodes.of("local_variable_declaration", "method_invocation", "assignment_expression")
    ) or _nested_loops_in_main(nodes.of(*_LOOPS))
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


def _passed_tables(nodes: _Nodes, info: ProgramInfo) -> None:
    """A method's parameter given a HashMap / HashSet (a TreeMap / TreeSet) variable at every call that gives it
    one of those (``static void show ( Map < K , V > m )`` called ``show ( count )``) iterates as it does."""
    params: dict[str, list[list[str]]] = {}
    for m in nodes.of("method_declaration"):
        listed = m.child_by_field_name("parameters")
        declared = [p.child_by_field_name("name") for p in listed.named_children] if listed is not None else []
        params.setdefault((required(m, "name").text or b"").decode(), []).append(
            [(n.text or b"").decode() if n is not None else "" for n in declared]
        )
    given: dict[str, set[str]] = {}
    for call in nodes.of("method_invocation"):
        args = call.child_by_field_name("arguments")
        passed = [a for a in args.named_children] if args is not None else []
        for listed_names in params.get((required(call, "name").text or b"").decode(), []):
            same = len(listed_names) == len(passed)
            for arg, name in zip(passed, listed_names if same else [], strict=False):
                text = (arg.text or b"").decode() if arg.type == "identifier" else ""
                kind = "hash" if text in info.hash_tables else "sorted" if text in info.sorted_maps else ""
                if kind:
                    given.setdefault(name, set()).add(kind)
    for param, kinds in given.items():
        if kinds == {"hash"}:
            info.hash_tables.add(param)
        elif kinds == {"sorted"}:
            info.sorted_maps.add(param)


def _default_interface(cls: Node, info: ProgramInfo) -> str:
    """The first interface of the program that ``cls`` implements and that has ``default`` methods, or ""."""
    listed = cls.child_by_field_name("interfaces")
    types = listed.named_children[0].named_children if listed is not None and listed.named_children else []
    for t in types:
        found = info.classes.get(type_text(t).split("<", 1)[0])
        if found is not None and any(
            m.type == "method_declaration" and "default" in modifiers(m) for m in class_members(found.node)
        ):
            return found.name
    return ""


def _made_as_object(main: ClassInfo, nodes: _Nodes) -> bool:
    """Does the program use objects of its main class as objects: a constructor that does work, several
    objects (made twice, or in a loop), or an object's field read from outside (``ins . x``)? Then the main
    class stays a class; flattened into the module, its one object's state would be the module's globals."""
    made = [n for n in nodes.of("object_creation_expression") if type_text(n.child_by_field_name("type")) == main.name]
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
        (required(d, "name").text or b"").decode()
        for n in nodes.of("local_variable_declaration", "field_declaration")
        if type_text(n.child_by_field_name("type")) == main.name
        for d in n.children_by_field_name("declarator")
    }
    return any(
        (required(n, "object").text or b"").decode() in held
        and (required(n, "field").text or b"").decode() in main.instance_fields
        for n in nodes.of("field_access")
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
            params = required(m, "parameters")
            k = len([p for p in params.named_children if p.type in ("formal_parameter", "spread_parameter")])
            arities.setdefault((required(m, "name").text or b"").decode(), set()).add(k)
    return arities


def has_return(body: Node) -> bool:
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
_LOOPS = ("for_statement", "enhanced_for_statement", "while_statement", "do_statement")


def _builds_text_in_loop(nodes: list[Node]) -> bool:
    """Does ``main`` append to a local String / StringBuilder in a loop? At module level CPython copies the
    whole str on every ``+=`` (it extends in place only a function's local): quadratic on 10^5 pieces."""
    texts: set[bytes] = set()
    appends: list[tuple[Node, bytes]] = []
    for n in nodes:
        if n.type == "local_variable_declaration" and type_text(n.child_by_field_name("type")) in _TEXT_TYPES:
            texts |= {required(d, "name").text or b"" for d in n.children_by_field_name("declarator")}
        elif n.type == "method_invocation" and (required(n, "name").text or b"") in (b"append", b"insert"):
            target = n.child_by_field_name("object")
            while target is not None and target.type == "method_invocation":
                target = target.child_by_field_name("object")
            if target is not None and target.type == "identifier":
                appends.append((n, target.text or b""))
        elif n.type == "assignment_expression" and required(n, "operator").type == "+=":
            target = required(n, "left")
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
        t = type_text(m.child_by_field_name("type"))
        name = (required(m, "name").text or b"").decode()
        helper = "private" in modifiers(m) or name.startswith(("next", "read", "skip"))  # a private one helps reads
        if t == "void" and name not in ("close", "flush") and not helper:
            return False
        if b"System.out" in (m.text or b"").replace(b" ", b""):
            return False
    return True


def _inside(node: Node, ancestor: Node) -> bool:
    return ancestor.start_byte <= node.start_byte and node.end_byte <= ancestor.end_byte


def io_kind(t: str, info: ProgramInfo) -> str:
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
    name = (required(method, "name").text or b"").decode()
    t = type_text(method.child_by_field_name("type"))
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
    return {type_text(m.child_by_field_name("type")) for m in class_members(cls) if m.type == "field_declaration"}


def _writer_op(name: str) -> str:
    if name in PRINT_OPS:
        return PRINT_OPS[name]
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
        if o is not None and o.type == "identifier" and (o.text or b"").decode() in info.classes and f is not None:
            return info.io.get((f.text or b"").decode(), "")  # `Main . sc` from another class
        return ""
    if obj.type == "identifier" and obj.text is not None:
        name = obj.text.decode()
        if name in info.classes and info.classes[name].role in IO_ROLES:
            return name  # a reader with static methods: `sc . nextInt ( )`
        return info.io.get(name, "")
    if obj.type == "object_creation_expression":
        return io_kind(base_io(type_text(obj.child_by_field_name("type"))), info)
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
