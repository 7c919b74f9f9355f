"""Best-effort static typing of Java expressions (``type_of``), over the type table (``java_types``)
and the result types the library table names (``library.table.returns``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from plugins.c2c.java_types import ELEMENT_GETTERS, FLOAT_TYPES, INT_TYPES, MATH_DOUBLE
from plugins.c2c.library.table import returns

if TYPE_CHECKING:
    from tree_sitter import Node

    from plugins.c2c.library.rows import Emitting
    from plugins.c2c.state import ClassInfo, TranslationState

    _Translator = Emitting  # for the checker, a mixin is the Emitting its Translator is
else:
    _Translator = object

# a Scanner's (or any reader's) typed reads
_READS = {"nextInt": "int", "nextLong": "long", "nextShort": "int", "nextByte": "int", "nextDouble": "double"}


_BOOLEAN_METHODS = frozenset(
    ("equals", "contains", "containsKey", "containsValue", "isEmpty", "empty", "startsWith", "endsWith")
    + ("anyMatch", "allMatch", "noneMatch")
)  # `Stack.empty ( )` prints `true` / `false`


class TypesMixin(_Translator):
    """Type names, scopes and ``type_of`` (a Java expression's static type, "?" when unknown)."""

    if TYPE_CHECKING:  # what it uses of the Translator and its other mixins
        st: TranslationState

        def _call_parts(self, node: Node) -> tuple[Node | None, str, list[Node]]: ...

    def _type_name(self, node: Node | None) -> str:
        if node is None:
            return "?"
        if node.type == "array_type":
            elem = self._type_name(node.child_by_field_name("element"))
            return elem + "[]" * self.text(node.child_by_field_name("dimensions")).count("[")
        if node.type == "generic_type":
            return self.text(node.named_children[0]) + "<>"
        return self.text(node)

    def type_name(self, node: Node | None) -> str:
        """A declaration's type node as its scope records it (``int[]``, ``ArrayList<>``; "?" for none): what
        an emitter may ask (``library.rows.Emitting``)."""
        return self._type_name(node)

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
            table = returns(self, node.child_by_field_name("object"), field)
            if table:  # `BigDecimal . ONE`
                return table
            written = self.text(node.child_by_field_name("object"))
            if written == "this":  # a field of the class being translated
                return self.lookup(field)
            if written in ("Integer", "Long", "Short"):
                return "int"
            if written in ("Math", "Double"):
                return "double"
            owner = self._program_class(node.child_by_field_name("object"))
            if owner is None and self.lookup(written) == "?":  # `Main . sb`: a static field of the program's class
                owner = self.st.prog.classes.get(written)
            return owner.field_types.get(field, "?") if owner is not None else "?"
        if k == "method_invocation":
            obj, name, args = self._call_parts(node)
            table = returns(self, obj, name)
            if table:
                return table
            ot = self.text(obj) if obj is not None else ""
            prog = self.st.prog
            if name == "values" and not args and ot in prog.enum_constants.values():
                return ot + "[]"  # an enum's constants
            if ot == "Math":
                if name in ("max", "min", "abs"):
                    ts = [self.type_of(a) for a in args]
                    if any(t in FLOAT_TYPES for t in ts):
                        return "double"
                    return "int" if ts and all(t in INT_TYPES for t in ts) else "?"
                if name in ("floor", "ceil", "cbrt") or name in MATH_DOUBLE:
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
            if name == "charAt" or ot == "Character" and name in ("toUpperCase", "toLowerCase"):
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
            if name in _BOOLEAN_METHODS or ot == "Character" and name.startswith("is"):
                return "boolean"
            if obj is None or self._program_class(obj) is not None:  # `p . area ( )` of a class of the program
                return self.st.method_types.get(name, "?")
            if name in _READS:
                return _READS[name]
            if obj.type == "identifier" and name in ELEMENT_GETTERS:  # `st . peek ( )` of a Stack<Character>
                elem = self.lookup(self.text(obj) + "<elem>")
                return elem
            return "?"
        if k == "object_creation_expression":
            return self._type_name(node.child_by_field_name("type"))
        if k == "array_creation_expression":  # `new int [ n ] [ m ]`
            dims = sum(self.text(c).count("[") for c in node.children if c.type in ("dimensions_expr", "dimensions"))
            return self._type_name(node.child_by_field_name("type")) + "[]" * dims
        return "?"

    def _program_class(self, node: Node | None) -> ClassInfo | None:
        """The program's own class that ``node``'s static type names (PROGRAM), or None."""
        prog = self.st.prog
        if node is None or node.type == "this":
            return None
        return prog.classes.get(self.type_of(node).split("<", 1)[0])

    def _is_int(self, node: Node) -> bool:
        return self.type_of(node) in INT_TYPES
