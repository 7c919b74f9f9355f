"""Java types for the translator: the tables of known types and calls, and best-effort static typing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from plugins.c2c.library import returns

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True, slots=True)
class JavaType:
    """What the translator knows of one Java type (a row of ``JAVA_TYPES``)."""

    kind: str  # int, float, boolean, char, string, list, map, set, stdin, stdout, tokenizer, object
    array_fill: str = "None"  # an element of `new T [ n ]`
    field_default: str = "None"  # a field declared without a value (boxed types: null, but see Integer)
    big: bool = False  # BigInteger: an int without a fixed width (no `0` default, no reader op)
    sorted: bool = False  # TreeMap / TreeSet and their interfaces: iterated and navigated in key order
    head_peek: bool = False  # a queue: `peek` reads the head, where `poll` takes from
    object_cast: bool = False  # `list . remove ( ( T ) x )` removes an element, not the one at an index
    interface: bool = False  # never instantiated (`new` does not make one)


_INT = JavaType("int", array_fill="0", field_default="0")
_BOXED_INT = JavaType("int", array_fill="0", field_default="0", object_cast=True)
_LIST = JavaType("list")
_MAP = JavaType("map")
_SET = JavaType("set")
_STDIN = JavaType("stdin")
_STDOUT = JavaType("stdout")

# The one table of Java types: every set below is a view of it.
JAVA_TYPES: dict[str, JavaType] = {
    **dict.fromkeys(("int", "long", "short", "byte"), _INT),
    **dict.fromkeys(("Integer", "Long", "Short", "Byte"), _BOXED_INT),
    "BigInteger": JavaType("int", array_fill="0", big=True),
    "BigDecimal": JavaType("decimal"),  # Python's decimal.Decimal (library.py)
    "double": JavaType("float", array_fill="0", field_default="0.0"),
    "float": JavaType("float", array_fill="0", field_default="0.0"),
    "Double": JavaType("float", array_fill="0", object_cast=True),
    "Float": JavaType("float", array_fill="0"),
    "boolean": JavaType("boolean", array_fill="False", field_default="False"),
    "Boolean": JavaType("boolean", array_fill="False", field_default="False"),
    "char": JavaType("char", array_fill="0", field_default="' '"),
    "Character": JavaType("char", object_cast=True),
    "String": JavaType("string", array_fill='" "', object_cast=True),
    "Object": JavaType("object", object_cast=True),
    **dict.fromkeys(("ArrayList", "List", "Vector", "Stack", "ArrayDeque", "Deque"), _LIST),
    **dict.fromkeys(("LinkedList", "Queue", "PriorityQueue"), JavaType("list", head_peek=True)),
    **dict.fromkeys(("HashMap", "LinkedHashMap", "Map"), _MAP),
    "TreeMap": JavaType("map", sorted=True),
    **dict.fromkeys(("SortedMap", "NavigableMap"), JavaType("map", sorted=True, interface=True)),
    **dict.fromkeys(("HashSet", "LinkedHashSet", "Set"), _SET),
    "TreeSet": JavaType("set", sorted=True),
    **dict.fromkeys(("SortedSet", "NavigableSet"), JavaType("set", sorted=True, interface=True)),
    **dict.fromkeys(("Scanner", "BufferedReader", "InputStreamReader", "DataInputStream", "InputStream"), _STDIN),
    "StreamTokenizer": _STDIN,
    "StringTokenizer": JavaType("tokenizer"),
    **dict.fromkeys(
        ("PrintWriter", "BufferedWriter", "PrintStream", "OutputStreamWriter", "OutputStream", "Writer"), _STDOUT
    ),
    "BufferedOutputStream": _STDOUT,
}


def _types(kind: str, **flags: bool) -> frozenset[str]:
    return frozenset(
        n for n, t in JAVA_TYPES.items() if t.kind == kind and all(getattr(t, f) == v for f, v in flags.items())
    )


INT_TYPES = _types("int")
FIXED_INTS = _types("int", big=False)
FLOAT_TYPES = _types("float")
COLLECTION_TYPES = _types("list")
QUEUE_TYPES = frozenset(n for n in COLLECTION_TYPES if JAVA_TYPES[n].head_peek)
MAP_TYPES = _types("map")
# the maps `new` makes (SortedMap / NavigableMap are interfaces: variables of them are maps all the same)
CONCRETE_MAP_TYPES = _types("map", interface=False)
SET_TYPES = _types("set")
SORTED_TYPES = frozenset(n for n, t in JAVA_TYPES.items() if t.sorted)
IN_TYPES = _types("stdin")
OUT_TYPES = _types("stdout")
OBJECT_CASTS = frozenset(n for n, t in JAVA_TYPES.items() if t.object_cast)


def array_fill(typ: str) -> str:
    """The element of a new array of ``typ`` (Java's default value)."""
    row = JAVA_TYPES.get(typ)
    return row.array_fill if row is not None else "None"


def field_default(typ: str) -> str:
    """A field of ``typ`` declared without a value."""
    if typ.endswith("[]"):
        return "None"
    row = JAVA_TYPES.get(typ)
    return row.field_default if row is not None else "None"


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
# calls that give a collection's element (or a map's value)
_ELEMENT_GETTERS = {
    "peek", "pop", "poll", "get", "getOrDefault", "remove", "removeFirst", "removeLast", "pollFirst", "pollLast",
    "peekFirst", "peekLast", "getFirst", "getLast", "first", "last", "element", "firstElement", "lastElement",
    "elementAt", "next",
}  # fmt: skip


class TypesMixin:
    """Type names, scopes and ``type_of`` (a Java expression's static type, "?" when unknown)."""

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
        for scope in reversed(self.st.scopes):
            if name in scope:
                typ = scope[name]
                # a boxed Character is a one-character str like a char: the same arithmetic (`c - 'a'`)
                return "char" + typ[9:] if typ.startswith("Character") else typ
        return "?"

    def element_type(self, node: Node | None) -> str | None:
        """The element (or map value) type a generic collection type declares: ``Stack < Character >``."""
        if node is None or node.type != "generic_type":
            return None
        args = next((c for c in node.named_children if c.type == "type_arguments"), None)
        types = [self._type_name(c) for c in args.named_children] if args is not None else []
        return types[-1] if len(types) in (1, 2) else None

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
            if lt in FLOAT_TYPES or rt in FLOAT_TYPES:
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
            table = returns(self, node.child_by_field_name("object"), field)  # type: ignore[arg-type]
            if table:  # `BigDecimal . ONE`
                return table
            obj = self.text(node.child_by_field_name("object"))
            if obj == "this":  # a field of the class being translated
                return self.lookup(field)
            if obj in ("Integer", "Long", "Short"):
                return "int"
            if obj in ("Math", "Double"):
                return "double"
            return "?"
        if k == "method_invocation":
            obj, name, args = self._call_parts(node)
            table = returns(self, obj, name)  # type: ignore[arg-type]
            if table:
                return table
            ot = self.text(obj) if obj is not None else ""
            if ot == "Math":
                if name in ("max", "min", "abs"):
                    ts = [self.type_of(a) for a in args]
                    if any(t in FLOAT_TYPES for t in ts):
                        return "double"
                    return "int" if ts and all(t in INT_TYPES for t in ts) else "?"
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
                "readLine",
                "nextLine",
                "nextToken",
            ) and ot not in ("Integer", "Long", "Double"):
                return "String" if name != "reverse" or self.type_of(obj) in ("StringBuilder", "String") else "?"
            if (
                name
                in ("equals", "contains", "containsKey", "isEmpty", "startsWith", "endsWith", "anyMatch", "allMatch")
                or ot == "Character"
                and name.startswith("is")
            ):
                return "boolean"
            if ot == "Character" and name in ("toUpperCase", "toLowerCase"):
                return "char"
            if obj is None:
                return self.st.method_types.get(name, "?")
            if obj.type == "identifier" and name in _ELEMENT_GETTERS:  # `st . peek ( )` of a Stack<Character>
                elem = self.lookup(self.text(obj) + "<elem>")
                return elem
            return "?"
        if k == "object_creation_expression":
            return self._type_name(node.child_by_field_name("type"))
        return "?"

    def _is_int(self, node: Node) -> bool:
        return self.type_of(node) in INT_TYPES
