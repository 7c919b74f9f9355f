"""Java types for the translator: the table of known types and the sets that are views of it
(static typing over them is ``static_types.py``)."""

from __future__ import annotations

from dataclasses import dataclass


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
    "BigDecimal": JavaType("decimal"),  # Python's decimal.Decimal (library/math.py)
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
    **dict.fromkeys(("TreeMap", "EnumMap"), JavaType("map", sorted=True)),  # an EnumMap: its keys' ordinal order
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


MATH_DOUBLE = {
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
MAX_CONST = {
    ("Integer", "MAX_VALUE"),
    ("Long", "MAX_VALUE"),
    ("Double", "MAX_VALUE"),
    ("Float", "MAX_VALUE"),
    ("Short", "MAX_VALUE"),
}
MIN_CONST = {
    ("Integer", "MIN_VALUE"),
    ("Long", "MIN_VALUE"),
    ("Double", "MIN_VALUE"),
    ("Float", "MIN_VALUE"),
    ("Short", "MIN_VALUE"),
}
# calls that give a collection's element (or a map's value)
ELEMENT_GETTERS = {
    "peek", "pop", "poll", "get", "getOrDefault", "remove", "removeFirst", "removeLast", "pollFirst", "pollLast",
    "peekFirst", "peekLast", "getFirst", "getLast", "first", "last", "element", "firstElement", "lastElement",
    "elementAt", "next",
}  # fmt: skip
