"""java.util's collections: Arrays, Collections, List, Map, Set, Deque / Queue, PriorityQueue (``heapq``),
TreeMap / TreeSet navigation, iterators, and their constructors."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from plugins.c2c.java_types import (
    COLLECTION_TYPES,
    CONCRETE_MAP_TYPES,
    MAP_TYPES,
    OBJECT_CASTS,
    QUEUE_TYPES,
    SET_TYPES,
    SORTED_TYPES,
)
from plugins.c2c.library.rows import (
    ADD,
    COMPARE,
    EXPRESSION,
    FOR_EACH,
    LOOP_HEADER,
    MULTIPLY,
    NEGATED,
    REVERSED,
    STATEMENT,
    Call,
    Emit,
    Emitting,
    Rule,
    bracketed,
    call_parts,
    instance,
    length,
    listed,
    new,
    operand,
    receiver_base,
    scalar_local,
    static,
)
from plugins.c2c.state import PROGRAM
from plugins.c2c.syntax import Tokens, base_type, walk_nodes

if TYPE_CHECKING:
    from tree_sitter import Node


def _list_of(tr: Emitting, c: Call) -> Tokens | None:
    """``List.of(a, b)`` / ``Set.of(...)`` / ``Map.of(k1, v1, ...)``: Python's literals."""
    if tr.text(c.obj) == "List":
        return ["[", *c.joined(tr), "]"]
    if tr.text(c.obj) == "Set":
        return ["{", *c.joined(tr), "}"] if c.args else ["set", "(", ")"]
    if len(c.args) % 2:
        return None
    out: Tokens = ["{"]
    for i in range(0, len(c.args), 2):
        out += [*([","] if i else []), *c.arg(tr, i), ":", *c.arg(tr, i + 1)]
    return [*out, "}"]


def _map_entry(tr: Emitting, c: Call) -> Tokens | None:
    return ["(", *c.joined(tr), ")"] if len(c.args) == 2 else None  # an entry is a (key, value) tuple


# -- java.util.Arrays / Collections -----------------------------------------------------------------
def _as_list(tr: Emitting, c: Call) -> Tokens | None:
    return ["[", *c.joined(tr), "]"]


def _as_list_of_array(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.asList(array)``: the array's elements, not a list holding it."""
    if len(c.args) != 1 or not tr.type_of(c.args[0]).endswith("[]"):
        return None
    return ["list", "(", *c.arg(tr, 0), ")"]


def _copy_of_range(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.arg(tr, 0), "[", *c.arg(tr, 1), ":", *c.arg(tr, 2), "]"] if len(c.args) == 3 else None


def _copy_of(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.arg(tr, 0), "[", ":", *c.arg(tr, 1), "]"] if len(c.args) == 2 else None


def _arrays_equals(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    return [*bracketed(c.args[0], c.arg(tr, 0), COMPARE), "==", *bracketed(c.args[1], c.arg(tr, 1), COMPARE)]


def _arrays_stream(tr: Emitting, c: Call) -> Tokens | None:
    return list(c.arg(tr, 0)) if len(c.args) == 1 else None  # a stream is the list itself


def _arrays_to_string(tr: Emitting, c: Call) -> Tokens | None:
    return ["str", "(", *c.arg(tr, 0), ")"] if c.args else None


def _text_array_to_string(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.toString`` of strings or chars: ``[a, b]`` as Java writes it (``str`` would quote them)."""
    if len(c.args) != 1 or tr.type_of(c.args[0]) not in ("String[]", "char[]", "Character[]"):
        return None
    joined = ['" , \u2581 "', ".", "join", "(", *c.arg(tr, 0), ")"]
    return ["(", '"["', "+", *joined, "+", '"]"', ")"]


def _binary_search(tr: Emitting, c: Call) -> Tokens | None:
    """Found: its index; else -(insertion point) - 1, as Java's."""
    if len(c.args) != 2:
        return None
    arr, x = bracketed(c.args[0], c.arg(tr, 0)), bracketed(c.args[1], c.arg(tr, 1), COMPARE)
    missing = ["-", "len", "(", "[", "v", "for", "v", "in", *arr, "if", "v", "<", *x, "]", ")", "-", "1"]
    return ["(", *arr, ".", "index", "(", *x, ")", "if", *x, "in", *arr, "else", *missing, ")"]


def _frequency(tr: Emitting, c: Call) -> Tokens | None:
    return [*bracketed(c.args[0], c.arg(tr, 0)), ".", "count", "(", *c.arg(tr, 1), ")"] if len(c.args) == 2 else None


def _n_copies(tr: Emitting, c: Call) -> Tokens | None:
    return ["[", *c.arg(tr, 1), "]", "*", *bracketed(c.args[0], c.arg(tr, 0), MULTIPLY)] if len(c.args) == 2 else None


def _collection_extreme(tr: Emitting, c: Call) -> Tokens | None:
    return [c.name, "(", *c.arg(tr, 0), ")"] if c.args else None


def _swap(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 3:
        return None
    lst, i, j = (c.arg(tr, i) for i in range(len(c.args)))
    return [*lst, "[", *i, "]", ",", *lst, "[", *j, "]", "=", *lst, "[", *j, "]", ",", *lst, "[", *i, "]"]


def _arrays_sort(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.sort(a)``, a range of it, or with a comparator."""
    if not c.args:
        return None
    target = c.arg(tr, 0)
    if len(c.args) in (3, 4):
        lo, hi = c.arg(tr, 1), c.arg(tr, 2)
        sl = [*target, "[", *lo, ":", *hi, "]"]
        rev = [",", "reverse", "=", "True"] if len(c.args) == 4 else []
        return [*sl, "=", "sorted", "(", *sl, *rev, ")"]
    if len(c.args) == 2:  # the comparator as sort's arguments (`reverse = True` for reverseOrder)
        order = tr.sort_order(c.args[1])
        if "cmp_to_key" in order or c.args[1].type == "object_creation_expression":
            order = ["reverse", "=", "True"]  # TransCoder's header imports no functools: the references' use
        return [*target, ".", "sort", "(", *order, ")"]
    return [*target, ".", "sort", "(", ")"]


def _sort_by_comparator(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.sort(a, cmp)`` / ``Collections.sort(list, cmp)``: the comparator as ``key`` / ``reverse``."""
    if not c.statement or len(c.args) != 2:
        return None
    return [*c.arg(tr, 0), ".", "sort", "(", *tr.sort_order(c.args[-1]), ")"]


def _fill(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.fill``: a range in place; the whole array rebound (the references' form)."""
    if len(c.args) == 4:
        target, lo, hi = c.arg(tr, 0), c.arg(tr, 1), c.arg(tr, 2)
        difference = [*bracketed(c.args[2], hi, ADD, left=True), "-", *bracketed(c.args[1], lo, ADD)]
        span = ["(", *difference, ")"] if len(lo) > 1 or lo != ["0"] else bracketed(c.args[2], hi, MULTIPLY)
        return [*target, "[", *lo, ":", *hi, "]", "=", "[", *c.arg(tr, 3), "]", "*", *span]
    if len(c.args) == 2:
        target = c.arg(tr, 0)
        return [*target, "=", "[", *c.arg(tr, 1), "]", "*", "len", "(", *target, ")"]
    return None


def _fill_in_place(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.fill(a, v)`` in place: the array may be a loop variable or an alias."""
    if len(c.args) != 2 or not c.statement:
        return None
    target = c.arg(tr, 0)
    return [*target, "[", ":", "]", "=", "[", *c.arg(tr, 1), "]", "*", "len", "(", *target, ")"]


def _set_all(tr: Emitting, c: Call) -> Tokens | None:
    """``Arrays.setAll(a, i -> f(i))``: every element from its index, in place."""
    if len(c.args) != 2 or not c.statement:
        return None
    target = c.arg(tr, 0)
    indices = ["range", "(", "len", "(", *target, ")", ")"]
    return [*target, "[", ":", "]", "=", "list", "(", "map", "(", *c.arg(tr, 1), ",", *indices, ")", ")"]


def _collections_sort(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.arg(tr, 0), ".", "sort", "(", ")"] if c.args else None


def _shuffle(tr: Emitting, c: Call) -> Tokens | None:
    """``Collections.shuffle(l)``: ``random . shuffle`` (the module, or a program's ``Random random`` alike)."""
    return ["random", ".", "shuffle", "(", *c.arg(tr, 0), ")"] if len(c.args) == 1 else None


def _collections_reverse(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.arg(tr, 0), ".", "reverse", "(", ")"] if c.args else None


def _tree_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new TreeMap < > ( )`` / ``new TreeSet < > ( items )``: the runtime's ``TreeMap`` / ``TreeSet`` (a dict / set
    that keeps its keys in order for navigation); one made with a comparator stays a plain dict / set."""
    made = c.receiver
    if len(c.args) == 1 and base_type(tr.type_of(c.args[0])) in (
        MAP_TYPES if made == "TreeMap" else COLLECTION_TYPES | SET_TYPES
    ):
        return [made, "(", *c.arg(tr, 0), ")"]
    return None if c.args else [made, "(", ")"]


def _list_index_of(tr: Emitting, c: Call) -> Tokens | None:
    """Java's -1 where ``list.index`` raises."""
    if len(c.args) != 1:
        return None
    o, x = c.target(tr), bracketed(c.args[0], c.arg(tr, 0), COMPARE)
    return ["(", *o, ".", "index", "(", *c.arg(tr, 0), ")", "if", *x, "in", *o, "else", "-", "1", ")"]


def _list_last_index_of(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    o = c.target(tr)
    last = ["len", "(", *o, ")", "-", "1", "-", *o, *REVERSED, ".", "index", "(", *c.arg(tr, 0), ")"]
    return ["(", *last, "if", *bracketed(c.args[0], c.arg(tr, 0), COMPARE), "in", *o, "else", "-", "1", ")"]


def _iterator(tr: Emitting, c: Call) -> Tokens | None:
    """``it . next ( )`` is ``next ( it )``; ``while ( it . hasNext ( ) )`` a for loop."""
    return ["iter", "(", *c.target(tr), ")"] if not c.args and tr.policy.python_iterators else None


def _iterator_next(tr: Emitting, c: Call) -> Tokens | None:
    return ["next", "(", *c.target(tr), ")"] if not c.args and tr.policy.python_iterators else None


def _for_in_iterator(tr: Emitting, c: Call) -> Tokens | None:
    """``while ( it . hasNext ( ) ) { T x = it . next ( ) ; ... }`` (``where=LOOP_HEADER``, functions) -> ``for x
    in it :`` over the rest of the body, ``x`` typed ``T`` there; the first statement may assign a variable
    declared before (``x = ( T ) it . next ( ) ;``). Any other body is declined: the loop stays a while loop."""
    loop, it = c.loop, c.obj
    body = loop.body if loop is not None else None
    if loop is None or body is None or body.type != "block" or not tr.policy.python_iterators:
        return None
    first = body.named_children[0] if body.named_children else None
    if it.type != "identifier" or c.args or first is None:
        return None
    if first.type == "local_variable_declaration" and len(first.children_by_field_name("declarator")) == 1:
        decl = first.children_by_field_name("declarator")[0]
        target, value = decl.child_by_field_name("name"), decl.child_by_field_name("value")
        typ = tr.type_name(first.child_by_field_name("type"))
    elif first.type == "expression_statement" and first.named_children[0].type == "assignment_expression":
        assign = first.named_children[0]
        target, value = assign.child_by_field_name("left"), assign.child_by_field_name("right")
        typ = tr.type_of(target)
        if tr.text(assign.child_by_field_name("operator")) != "=":
            return None
    else:
        return None
    while value is not None and value.type in ("cast_expression", "parenthesized_expression"):
        value = value.child_by_field_name("value") if value.type == "cast_expression" else value.named_children[0]
    if target is None or target.type != "identifier" or value is None or value.type != "method_invocation":
        return None
    nobj, nname, nargs = call_parts(tr, value)
    if nobj is None or tr.text(nobj) != tr.text(it) or nname != "next" or nargs:
        return None
    var = tr.text(target)
    return loop.write(["for", var, "in", tr.text(it), ":"], {var: typ}, body.named_children[1:])


def _is_empty(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["len", "(", *c.target(tr), ")", "==", "0"]


def _contains(tr: Emitting, c: Call) -> Tokens | None:
    return [*bracketed(c.args[0], c.arg(tr, 0), COMPARE), "in", *c.target(tr)] if len(c.args) == 1 else None


def _not_contains(tr: Emitting, c: Call) -> Tokens | None:
    """``! m . containsKey ( k )`` (``where=NEGATED``): ``k not in m``, the references' idiom."""
    if len(c.args) != 1:
        return None
    return [*bracketed(c.args[0], c.arg(tr, 0), COMPARE), "not", "in", *c.target(tr)]


def _hash_ordered(tr: Emitting, c: Call) -> Tokens | None:
    """``for ( K k : m . keySet ( ) )`` (``entrySet``, ``values``; ``where=FOR_EACH``) of a program's HashMap:
    Java's bucket order (``hash_keys``, runtime/containers.py)."""
    name = c.obj.child_by_field_name("field") if c.obj.type == "field_access" else c.obj
    if c.args or name is None or name.type != "identifier" or tr.text(name) not in tr.state.prog.hash_tables:
        return None
    table = c.target(tr)
    keys = ["hash_keys", "(", *table, ")"]
    if c.name == "entrySet":
        return ["(", "(", "k", ",", *table, "[", "k", "]", ")", "for", "k", "in", *keys, ")"]
    if c.name == "values":
        return ["(", *table, "[", "k", "]", "for", "k", "in", *keys, ")"]
    return keys


def _contains_value(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return [*bracketed(c.args[0], c.arg(tr, 0), COMPARE), "in", *c.target(tr), ".", "values", "(", ")"]


def _map_get_default(tr: Emitting, c: Call) -> Tokens | None:
    """A map whose anonymous class's ``get`` gives a value for a missing key (``syntax.map_get_default``)."""
    if len(c.args) != 1 or c.obj.type != "identifier" or tr.text(c.obj) not in tr.state.map_defaults:
        return None
    return [*c.target(tr), ".", "get", "(", *c.arg(tr, 0), ",", *tr.state.map_defaults[tr.text(c.obj)], ")"]


def _map_get_nullable(tr: Emitting, c: Call) -> Tokens | None:
    """Java's get gives null for a missing key, where that null can be observed."""
    return [*c.target(tr), ".", "get", "(", *c.arg(tr, 0), ")"] if len(c.args) == 1 and _null_can_flow(c.node) else None


def _subscript(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), "[", *c.arg(tr, 0), "]"] if len(c.args) == 1 else None


def _get_or_default(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), ".", "get", "(", *c.joined(tr), ")"] if len(c.args) == 2 else None


def _append(tr: Emitting, c: Call) -> Tokens | None:
    return [*c.target(tr), ".", "append", "(", *c.arg(tr, 0), ")"] if len(c.args) == 1 else None


def _sorted_end(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else ["min" if c.name.startswith("first") else "max", "(", *c.target(tr), ")"]


def _deque(tr: Emitting, c: Call) -> bool:
    """Is the receiver a variable the program holds as a ``collections.deque`` (``program._deques``)?"""
    prog = tr.state.prog
    return c.obj is not None and c.obj.type == "identifier" and (c.obj.text or b"").decode() in prog.deques


def _add_first(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return (
        [*c.target(tr), ".", "appendleft", "(", *c.arg(tr, 0), ")"]
        if _deque(tr, c)
        else [*c.target(tr), ".", "insert", "(", "0", ",", *c.arg(tr, 0), ")"]
    )


def _insert_at(tr: Emitting, c: Call) -> Tokens | None:
    """``list . add ( index , x )``."""
    return [*c.target(tr), ".", "insert", "(", *c.joined(tr), ")"] if len(c.args) == 2 else None


def _pop_last(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else [*c.target(tr), ".", "pop", "(", ")"]


def _pop_first(tr: Emitting, c: Call) -> Tokens | None:
    if c.args:
        return None
    return [*c.target(tr), ".", "popleft", "(", ")"] if _deque(tr, c) else [*c.target(tr), ".", "pop", "(", "0", ")"]


def _head(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else [*c.target(tr), "[", "0", "]"]


# a `Deque`'s head is its first element: `push`, `pop` and `peek` work there, as `poll` does
_HEAD_FIRST = ("ArrayDeque", "Deque", "LinkedList", "ConcurrentLinkedDeque", "LinkedBlockingDeque", "BlockingDeque")


# what a Deque answers the same whichever end its head is at: used only through these, it is a stack at the list's end
_END_BLIND = frozenset(("push", "pop", "peek", "isEmpty", "size", "clear", "contains", "empty"))


def _stacks_only(node: Node) -> bool:
    """Is every Deque of the source ``node`` is in used only as a stack: through ``_END_BLIND`` calls, declared,
    assigned, or handed to the source's own methods (whose Deque parameters are held to the same)? Then each
    Deque's head can be the list's end (``append`` / ``pop ( )``, O(1), as the references write a stack); one
    Deque whose order shows (iterated, printed, polled, given to the library) puts every head first, so a
    Deque handed from one method to another keeps one end."""
    root = node
    while root.parent is not None:
        root = root.parent
    deques: set[bytes] = set()
    methods: set[bytes] = set()
    for n in walk_nodes(root):
        if n.type in ("local_variable_declaration", "field_declaration", "formal_parameter"):
            typ = n.child_by_field_name("type")
            if typ is not None and re.sub(rb"\s*<.*", b"", typ.text or b"").decode() in _HEAD_FIRST:
                names = (
                    [n.child_by_field_name("name")]
                    if n.type == "formal_parameter"
                    else [d.child_by_field_name("name") for d in n.children_by_field_name("declarator")]
                )
                deques |= {x.text or b"" for x in names if x is not None}
        elif n.type == "method_declaration" and (declared := n.child_by_field_name("name")) is not None:
            methods.add(declared.text or b"")
    for n in walk_nodes(root):
        if n.type != "identifier" or n.text not in deques or n.parent is None:
            continue
        parent = n.parent
        if parent.type == "method_invocation" and parent.child_by_field_name("object") == n:
            called = parent.child_by_field_name("name")
            ok = called is not None and (called.text or b"").decode() in _END_BLIND
        elif parent.type == "argument_list" and parent.parent is not None:
            called = parent.parent.child_by_field_name("name") if parent.parent.type == "method_invocation" else None
            ok = called is not None and called.text in methods
        else:
            field = {"variable_declarator": "name", "assignment_expression": "left", "formal_parameter": "name"}
            ok = parent.type in field and parent.child_by_field_name(field[parent.type]) == n
        if not ok:
            return False
    return True


# a queue's calls that give null when it is empty, where Python's pop / index raise
_NULL_WHEN_EMPTY = frozenset(("poll", "pollFirst", "pollLast", "peek", "peekFirst", "peekLast"))


def _null_when_empty(emit: Emit) -> Emit:
    """``q . poll ( )`` as ``emit`` writes it, or None when ``q`` is empty, in a program whose method tests a
    value for null (``while ( ( x = q . poll ( ) ) != null )``); elsewhere an empty queue's poll is a bug of
    the Java's own, and the plain call is what the references write."""

    def nullable(tr: Emitting, c: Call) -> Tokens | None:
        out = emit(tr, c)
        if out is None or c.name not in _NULL_WHEN_EMPTY or not tr.policy.java_nulls or not c.target(tr):
            return out
        scope = c.node.parent
        while scope is not None and scope.type not in ("method_declaration", "constructor_declaration", "class_body"):
            scope = scope.parent
        if scope is None or not re.search(rb"\bnull\b", scope.text or b""):
            return out
        return ["(", *out, "if", *c.target(tr), "else", "None", ")"]

    return nullable


def _deque_head(emit: Emit) -> Emit:
    """``push`` / ``pop`` / ``peek`` of a Deque at its head (``emit``), unless it is only ever a stack."""

    def head(tr: Emitting, c: Call) -> Tokens | None:
        if tr.state.stacks_only is None:
            tr.state.stacks_only = _stacks_only(c.node)
        return None if tr.state.stacks_only else emit(tr, c)

    return head


def _last(tr: Emitting, c: Call) -> Tokens | None:
    return None if c.args else [*c.target(tr), "[", "-", "1", "]"]


def _list_remove_object(tr: Emitting, c: Call) -> Tokens | None:
    """``List.remove(Object)``, not ``remove(int index)``."""
    if len(c.args) != 1 or not _removes_object(c.args[0], tr.type_of(c.args[0])):
        return None
    return [*c.target(tr), ".", "remove", "(", *c.arg(tr, 0), ")"]


def _map_remove(tr: Emitting, c: Call) -> Tokens | None:
    """Java's null for a missing key (programs)."""
    if len(c.args) != 1 or not tr.policy.java_nulls:
        return None
    return [*c.target(tr), ".", "pop", "(", *c.arg(tr, 0), ",", "None", ")"]


def _remove(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    method = "pop" if receiver_base(c) in MAP_TYPES | COLLECTION_TYPES else "remove"
    return [*c.target(tr), ".", method, "(", *c.arg(tr, 0), ")"]


def _python_method(name: str) -> Emit:
    def emit(tr: Emitting, c: Call) -> Tokens | None:
        return None if c.args else [*c.target(tr), ".", name, "(", ")"]

    return emit


def _entry_part(index: str) -> Emit:
    def emit(tr: Emitting, c: Call) -> Tokens | None:
        return None if c.args else [*c.target(tr), "[", index, "]"]

    return emit


def _put(tr: Emitting, c: Call) -> Tokens | None:
    """``m . put ( k , v )`` / ``list . set ( i , v )`` as a statement: an item assignment."""
    if len(c.args) != 2:
        return None
    return [*c.target(tr), "[", *c.arg(tr, 0), "]", "=", *c.arg(tr, 1)]


def _null_can_flow(node: Node) -> bool:
    """Can a ``null`` from this call be observed (compared, stored, returned) rather than unboxed at once?

    Where the value is unboxed (arithmetic, a comparison other than with ``null``) a missing
    key fails in Java too, so ``m [ k ]`` is exact there; elsewhere it must be ``m . get ( k )``.
    """
    parent = node.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    if parent is None:
        return True
    if parent.type == "binary_expression":
        op = parent.child_by_field_name("operator")
        if op is not None and op.type in ("==", "!="):
            # with null, or another lookup (`m . get ( a ) == m . get ( b )`: both may be missing)
            return any(c.type == "null_literal" or (c != node and _is_get(c)) for c in parent.named_children)
        return False
    if parent.type in ("array_access", "unary_expression", "update_expression", "method_invocation"):
        return parent.type == "method_invocation" and parent.child_by_field_name("object") != node
    return True


def _is_get(node: Node) -> bool:
    """Is ``node`` a one-argument ``x . get ( k )`` call?"""
    name = node.child_by_field_name("name") if node.type == "method_invocation" else None
    args = node.child_by_field_name("arguments")
    return name is not None and name.text == b"get" and args is not None and len(args.named_children) == 1


def _removes_object(arg: Node, arg_type: str) -> bool:
    """Does ``list . remove ( arg )`` remove an element (not the one at an index)?"""
    if arg.type == "cast_expression":
        typ = arg.child_by_field_name("type")
        return typ is not None and typ.text is not None and typ.text.decode() in OBJECT_CASTS
    if arg.type == "method_invocation":
        name = arg.child_by_field_name("name")
        return name is not None and name.text == b"valueOf"
    return arg_type in ("char", "String", "Character", "Integer")


# -- Map calls of programs, TreeMap / TreeSet navigation, PriorityQueue, iterators ---------------------------------
_SUMS = ("Integer::sum", "Long::sum", "(a,b)->a+b", "(x,y)->x+y")


def _map_parts(tr: Emitting, c: Call) -> tuple[Tokens, list[Tokens]]:
    """The map and every argument, translated in that order (the order hoisted lambdas are numbered in)."""
    return c.target(tr), [c.arg(tr, i) for i in range(len(c.args))]


def _compute_if_absent(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    o, a = _map_parts(tr, c)
    f = c.args[1]
    if f.type == "lambda_expression":
        body = f.child_by_field_name("body")
        if body is not None and body.type != "block":
            return [*o, ".", "setdefault", "(", *a[0], ",", *tr.expr(body), ")"]
    return [*o, ".", "setdefault", "(", *a[0], ",", "(", *a[1], ")", "(", *a[0], ")", ")"]


def _put_if_absent(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 2:
        return None
    o, a = _map_parts(tr, c)
    return [*o, ".", "setdefault", "(", *a[0], ",", *a[1], ")"]


def _map_replace(tr: Emitting, c: Call) -> Tokens | None:
    if not c.statement or len(c.args) not in (2, 3):
        return None
    o, a = _map_parts(tr, c)
    if len(a) == 2:
        return [*o, ".", "update", "(", "{", *a[0], ":", *a[1], "}", "if", *a[0], "in", *o, "else", "{", "}", ")"]
    test = [*a[0], "in", *o, "and", *o, "[", *a[0], "]", "==", *a[1]]  # replace ( key , oldValue , newValue )
    return [*o, ".", "update", "(", "{", *a[0], ":", *a[2], "}", "if", *test, "else", "{", "}", ")"]


def _map_merge(tr: Emitting, c: Call) -> Tokens | None:
    """``merge ( k , v , f )``: ``f ( old , v )`` where the key is, else ``v`` (a sum: ``_merge_sum``)."""
    if not c.statement or len(c.args) != 3 or tr.text(c.args[2]).replace(" ", "") in _SUMS:
        return None
    o, a = _map_parts(tr, c)
    k, v = a[0], a[1]
    return [*o, "[", *k, "]", "=", "(", *a[2], ")", "(", *o, "[", *k, "]", ",", *v, ")", "if", *k, "in", *o, "else", *v]


def _merge_sum(tr: Emitting, c: Call) -> Tokens | None:
    """``merge ( k , v , Integer :: sum )`` on any receiver: ``o [ k ] = o . get ( k , 0 ) + v``."""
    if not c.statement or len(c.args) != 3 or tr.text(c.args[2]).replace(" ", "") not in _SUMS:
        return None
    o, k, v = c.target(tr), c.arg(tr, 0), c.arg(tr, 1)
    return [*o, "[", *k, "]", "=", *o, ".", "get", "(", *k, ",", "0", ")", "+", *v]


_NAV_CMP = {  # a TreeMap's / TreeSet's navigation: the runtime's (containers.py), O(sqrt n) on a tree it made
    "floorKey": "tree_floor",
    "floor": "tree_floor",
    "lowerKey": "tree_lower",
    "lower": "tree_lower",
    "ceilingKey": "tree_ceiling",
    "ceiling": "tree_ceiling",
    "higherKey": "tree_higher",
    "higher": "tree_higher",
}


def _for_each(tr: Emitting, c: Call) -> Tokens | None:
    """``list . forEach ( f )`` / ``map . forEach ( ( k , v ) -> ... )`` of a collection (a stream's is a stream
    step): ``f`` called on every element in Java's order (a TreeMap's sorted, a HashMap's by bucket)."""
    if len(c.args) != 1 or tr.is_stream(c.obj):
        return None
    f, o = c.arg(tr, 0), c.target(tr)
    keys = walked(tr, c.obj, o)
    if base_type(tr.type_of(c.obj)) in MAP_TYPES:
        return ["[", "(", *f, ")", "(", "k", ",", *o, "[", "k", "]", ")", "for", "k", "in", *keys, "]"]
    return ["[", "(", *f, ")", "(", "x", ")", "for", "x", "in", *keys, "]"]


def walked(tr: Emitting, obj: Node, o: Tokens) -> Tokens:
    """What a collection's or a map's ``forEach`` walks (``o``, the receiver ``obj`` translated), in Java's
    order: a program's HashMap / HashSet by bucket (``hash_keys``), a TreeMap / TreeSet sorted."""
    name = obj.child_by_field_name("field") if obj.type == "field_access" else obj  # `this . m`
    named = tr.text(name) if name is not None and name.type == "identifier" else ""
    if named in tr.state.prog.hash_tables:
        return ["hash_keys", "(", *o, ")"]
    if named in tr.state.prog.sorted_maps or base_type(tr.type_of(obj)) in SORTED_TYPES:
        return ["sorted", "(", *o, ")"]
    return o


_VIEWS = {"entrySet": ["(", "_k", ",", "_v", ")"], "keySet": ["_k"], "values": ["_v"]}  # what a view's test gets


def _remove_if(tr: Emitting, c: Call) -> Tokens | None:
    """``xs . removeIf ( f ) ;`` in place: a list keeps what ``f`` rejects, in order (``xs [ : ] = [ ... ]``), a set
    drops what it accepts; a map's view (``m . values ( ) . removeIf ( v -> v == 0 )``) pops those keys."""
    if not c.statement or len(c.args) != 1:
        return None
    view = tr.text(c.obj.child_by_field_name("name")) if c.obj.type == "method_invocation" else ""
    owner = c.obj.child_by_field_name("object") if view in _VIEWS else None
    if owner is not None and base_type(tr.type_of(owner)) in MAP_TYPES:
        m, f = tr.expr(owner), c.arg(tr, 0)
        test = ["(", *f, ")", "(", *_VIEWS[view], ")"]
        return [
            "[",
            *m,
            ".",
            "pop",
            "(",
            "_k",
            ")",
            "for",
            "_k",
            ",",
            "_v",
            "in",
            "list",
            "(",
            *m,
            ".",
            "items",
            "(",
            ")",
            ")",
            "if",
            *test,
            "]",
        ]
    base, named = base_type(tr.type_of(c.obj)), tr.text(c.obj)
    prog = tr.state.prog
    if base not in (*COLLECTION_TYPES, *SET_TYPES) or named in (
        *prog.deques,
        *prog.heaps,
        *prog.max_heaps,
        *prog.cmp_heaps,
    ):
        return None
    o, f = c.target(tr), c.arg(tr, 0)
    if base in SET_TYPES:
        return [
            *o,
            ".",
            "difference_update",
            "(",
            "[",
            "_e",
            "for",
            "_e",
            "in",
            *o,
            "if",
            "(",
            *f,
            ")",
            "(",
            "_e",
            ")",
            "]",
            ")",
        ]
    return [*o, "[", ":", "]", "=", "[", "_e", "for", "_e", "in", *o, "if", "not", "(", *f, ")", "(", "_e", ")", "]"]


def _bulk(tr: Emitting, c: Call) -> Tokens | None:
    """A collection's bulk edits as statements, in place: ``addAll`` (a list's ``extend``, ``addAll ( i , c )`` a
    slice, a set's ``update``), ``removeAll`` / ``retainAll`` (a list keeps its order, a set ``difference_update`` /
    ``intersection_update``)."""
    prog, base = tr.state.prog, base_type(tr.type_of(c.obj))
    if not c.statement or tr.text(c.obj) in (*prog.heaps, *prog.max_heaps, *prog.cmp_heaps) or len(c.args) > 2:
        return None
    o, a = c.target(tr), [c.arg(tr, i) for i in range(len(c.args))]
    listed = base in COLLECTION_TYPES and tr.text(c.obj) not in prog.deques
    if c.name == "addAll" and len(a) == 2 and listed:
        return [*o, "[", *a[0], ":", *a[0], "]", "=", *a[1]]
    if len(a) != 1:
        return None
    if base in SET_TYPES:
        return [*o, ".", _SET_EDITS[c.name], "(", *a[0], ")"]
    if c.name == "addAll" and base in COLLECTION_TYPES:
        return [*o, ".", "extend", "(", *a[0], ")"]
    if not listed:
        return None
    test = ["in"] if c.name == "retainAll" else ["not", "in"]
    return [*o, "[", ":", "]", "=", "[", "_e", "for", "_e", "in", *o, "if", "_e", *test, *a[0], "]"]


_SET_EDITS = {"addAll": "update", "removeAll": "difference_update", "retainAll": "intersection_update"}


def _contains_all(tr: Emitting, c: Call) -> Tokens | None:
    if len(c.args) != 1:
        return None
    return ["all", "(", "_e", "in", *c.target(tr), "for", "_e", "in", *c.arg(tr, 0), ")"]


def _collections_add_all(tr: Emitting, c: Call) -> Tokens | None:
    """``Collections . addAll ( xs , a , b ) ;``: ``xs . extend ( [ a , b ] )`` (a set's ``update``)."""
    if not c.statement or len(c.args) < 2:
        return None
    base = base_type(tr.type_of(c.args[0]))
    if base not in (*COLLECTION_TYPES, *SET_TYPES):
        return None
    o, rest = c.arg(tr, 0), [c.arg(tr, i) for i in range(1, len(c.args))]
    joined = [t for i, r in enumerate(rest) for t in ([","] if i else []) + r]
    items = rest[0] if len(rest) == 1 and tr.type_of(c.args[1]).endswith("[]") else ["[", *joined, "]"]
    return [*o, ".", "update" if base in SET_TYPES else "extend", "(", *items, ")"]


def _replace_all(tr: Emitting, c: Call) -> Tokens | None:
    """``xs . replaceAll ( f ) ;`` of a list: each element replaced by ``f`` of it, in place; of a map
    (``( k , v ) -> ...``): each value by ``f`` of its key and value."""
    if not c.statement or len(c.args) != 1 or tr.text(c.obj) in tr.state.prog.deques:
        return None
    o, f = c.target(tr), c.arg(tr, 0)
    if base_type(tr.type_of(c.obj)) in MAP_TYPES:
        pairs = ["(", "_k", ",", "(", *f, ")", "(", "_k", ",", "_v", ")", ")"]
        return [*o, ".", "update", "(", "[", *pairs, "for", "_k", ",", "_v", "in", *o, ".", "items", "(", ")", "]", ")"]
    return [*o, "[", ":", "]", "=", "[", "(", *f, ")", "(", "_e", ")", "for", "_e", "in", *o, "]"]


def _navigable(tr: Emitting, c: Call) -> str | None:
    """The receiver's static type when it is a TreeMap / TreeSet (a sorted map of the analysis too)."""
    base = base_type(tr.type_of(c.obj))
    sorted_map = c.obj.type == "identifier" and tr.text(c.obj) in tr.state.prog.sorted_maps
    return base if base in SORTED_TYPES or sorted_map else None


def _nav_compare(tr: Emitting, c: Call) -> Tokens | None:
    """``floor`` / ``ceilingKey`` / ...: ``tree_floor ( tm , x )`` (a ``TreeMap`` / ``TreeSet`` of the runtime keeps
    its keys in order; a plain dict or set standing for the tree is scanned)."""
    if len(c.args) != 1 or _navigable(tr, c) is None:
        return None
    o = c.target(tr)
    return [_NAV_CMP[c.name], "(", *o, ",", *c.arg(tr, 0), ")"]


def _nav_entry(tr: Emitting, c: Call) -> Tokens | None:
    if c.args or _navigable(tr, c) is None:
        return None
    o = c.target(tr)
    agg = "min" if c.name == "firstEntry" else "max"
    return ["(", "lambda", "k", ":", "(", "k", ",", *o, "[", "k", "]", ")", ")", "(", agg, "(", *o, ")", ")"]


def _nav_poll(tr: Emitting, c: Call) -> Tokens | None:
    if c.args or _navigable(tr, c) not in ("TreeSet", "NavigableSet", "SortedSet"):
        return None
    return ["tree_poll_first" if c.name == "pollFirst" else "tree_poll_last", "(", *c.target(tr), ")"]


def _nav_range(tr: Emitting, c: Call) -> Tokens | None:
    """``headSet ( x )`` / ``tailSet ( x )`` (``, inclusive``): the keys below / from ``x``, sorted; a map's
    ``headMap`` / ``tailMap``: a dict of those keys in order."""
    if not 1 <= len(c.args) <= 2 or _navigable(tr, c) is None:
        return None
    o = c.target(tr)
    head = c.name.startswith("head")
    inclusive = tr.text(c.args[1]) == "true" if len(c.args) == 2 else not head
    if len(c.args) == 2 and tr.text(c.args[1]) not in ("true", "false"):
        return None
    op = ("<=" if inclusive else "<") if head else (">=" if inclusive else ">")
    if c.name.endswith("Map"):
        return [
            "{",
            "k",
            ":",
            *o,
            "[",
            "k",
            "]",
            "for",
            "k",
            "in",
            "sorted",
            "(",
            *o,
            ")",
            "if",
            "k",
            op,
            *c.arg(tr, 0),
            "}",
        ]
    return ["sorted", "(", "k", "for", "k", "in", *o, "if", "k", op, *c.arg(tr, 0), ")"]


def _heap_var(tr: Emitting, c: Call) -> str:
    return tr.text(c.obj) if c.obj.type == "identifier" else ""


def _min_heap(tr: Emitting, c: Call) -> Tokens | None:
    """A PriorityQueue in natural order is a ``heapq`` list."""
    ot = _heap_var(tr, c)
    if ot not in tr.state.prog.heaps or scalar_local(tr, ot):
        return None
    if c.name in ("add", "offer") and len(c.args) == 1:
        return ["heapq", ".", "heappush", "(", ot, ",", *c.arg(tr, 0), ")"]
    if c.name in ("poll", "remove") and not c.args:
        return ["heapq", ".", "heappop", "(", ot, ")"]
    if c.name in ("peek", "element") and not c.args:
        return [ot, "[", "0", "]"]
    return None


def _comparator_heap(tr: Emitting, c: Call) -> Tokens | None:
    """Another comparator: ``heapq`` over ``cmp_to_key`` keys, ``.obj`` the element."""
    ot = _heap_var(tr, c)
    if ot not in tr.state.prog.cmp_heaps:
        return None
    if c.name in ("add", "offer") and len(c.args) == 1:
        return ["heapq", ".", "heappush", "(", ot, ",", ot + "_key", "(", *c.arg(tr, 0), ")", ")"]
    if c.name in ("poll", "remove") and not c.args:
        return ["heapq", ".", "heappop", "(", ot, ")", ".", "obj"]
    if c.name in ("peek", "element") and not c.args:
        return [ot, "[", "0", "]", ".", "obj"]
    return None


def _heap_add_all(tr: Emitting, c: Call) -> Tokens | None:
    ot = _heap_var(tr, c)
    if len(c.args) != 1 or (ot not in tr.state.prog.heaps and ot not in tr.state.prog.max_heaps):
        return None
    sign = ["-"] if ot in tr.state.prog.max_heaps else []
    return ["[", "heapq", ".", "heappush", "(", ot, ",", *sign, "x", ")", "for", "x", "in", *c.arg(tr, 0), "]"]


def _max_heap(tr: Emitting, c: Call) -> Tokens | None:
    """``Collections.reverseOrder()``: negated elements."""
    ot = _heap_var(tr, c)
    if ot not in tr.state.prog.max_heaps or scalar_local(tr, ot):
        return None
    oe = c.target(tr)  # a field of another class is `self . name`
    if c.name in ("add", "offer") and len(c.args) == 1:
        return ["heapq", ".", "heappush", "(", *oe, ",", "-", "(", *c.arg(tr, 0), ")", ")"]
    if c.name in ("poll", "remove") and not c.args:
        return ["(", "-", "heapq", ".", "heappop", "(", *oe, ")", ")"]
    if c.name in ("peek", "element") and not c.args:
        return ["(", "-", *oe, "[", "0", "]", ")"]
    return None


def _list_sort(tr: Emitting, c: Call) -> Tokens | None:
    """``list . sort ( cmp ) ;``: the comparator as ``key`` / ``reverse``."""
    if not c.statement or tr.text(c.obj) in ("Arrays", "Collections") or len(c.args) != 1:
        return None
    return [*c.target(tr), ".", "sort", "(", *tr.sort_order(c.args[-1]), ")"]


def _java_iterator(tr: Emitting, c: Call) -> Tokens | None:
    """``c . iterator ( )`` of a program: an object with ``hasNext`` / ``next`` / ``remove``."""
    if c.args or c.obj is None:
        return None
    if c.obj.type == "identifier" and tr.text(c.obj) in tr.state.prog.sorted_maps:
        return ["JavaIterator", "(", "sorted", "(", *c.target(tr), ")", ")"]
    return ["JavaIterator", "(", *c.target(tr), ")"]


def _to_typed_array(tr: Emitting, c: Call) -> Tokens | None:
    """``list . toArray ( new Integer [ 0 ] )``: the elements (the argument only names the type)."""
    return ["list", "(", *c.target(tr), ")"] if len(c.args) == 1 and c.obj is not None else None


def _sub_list(tr: Emitting, c: Call) -> Tokens | None:
    """``list . subList ( a , b )``: a slice (a copy: read, as contest code reads it, it is the same)."""
    if len(c.args) != 2 or c.obj is None:
        return None
    return [*operand(c.obj, c.target(tr)), "[", *c.arg(tr, 0), ":", *c.arg(tr, 1), "]"]


def _sorted_view(tr: Emitting, c: Call) -> Tokens | None:
    """A TreeMap / TreeSet of the analysis iterated in key order; its ends are ``min`` / ``max``."""
    if c.args or c.obj.type != "identifier" or tr.text(c.obj) not in tr.state.prog.sorted_maps:
        return None
    oe = c.target(tr)
    if c.name in ("keySet", "navigableKeySet"):
        return ["sorted", "(", *oe, ")"]
    if c.name == "entrySet":
        return ["sorted", "(", *oe, ".", "items", "(", ")", ")"]
    if c.name == "values":
        return ["[", "v", "for", "k", ",", "v", "in", "sorted", "(", *oe, ".", "items", "(", ")", ")", "]"]
    return ["tree_first" if c.name.startswith("first") else "tree_last", "(", *oe, ")"]


# -- constructors ------------------------------------------------------------------------------------------
# ``call.obj`` is the type node, ``call.receiver`` the class (programs: ``Cls`` of ``a . b . Cls``)
_ENTRIES = ("SimpleEntry",)  # `AbstractMap.SimpleEntry` / `SimpleEntry` (the class as the program names it)


def _entry_new(tr: Emitting, c: Call) -> Tokens | None:
    """An entry is a (key, value) tuple, as ``entrySet``'s items."""
    return ["(", *c.joined(tr), ")"] if len(c.args) == 2 else None


def _heap_new(tr: Emitting, c: Call) -> Tokens | None:
    """A ``PriorityQueue`` is a list kept as a heap; one with a comparator wraps its elements (``cmp_heaps``)."""
    decl = c.node.parent
    cmp = [a for a in c.args if a.type not in ("decimal_integer_literal", "identifier")]
    if decl is not None and decl.type == "variable_declarator" and cmp:
        name = tr.text(decl.child_by_field_name("name"))
        if name in tr.state.prog.cmp_heaps:  # elements wrapped by cmp_to_key (``.obj`` is the element)
            tr.state.pre.append([name + "_key", "=", "cmp_to_key", "(", *tr.expr(cmp[-1]), ")"])
    return ["[", "]"]


def _map_new(tr: Emitting, c: Call) -> Tokens | None:
    return ["{", "}"]


def _set_new(tr: Emitting, c: Call) -> Tokens | None:
    """``new HashSet < > ( capacity )``: an initial capacity, not elements."""
    given = c.args and tr.type_of(c.args[0]) != "int"
    return ["set", "(", *(c.joined(tr) if given else []), ")"]


def _made_deque(tr: Emitting, node: Node) -> bool:
    """Is ``node`` (``new ArrayDeque < > ( )``) the value of a variable the program holds as a deque?"""
    prog, parent = tr.state.prog, node.parent
    if not prog.deques or parent is None:
        return False
    if parent.type == "variable_declarator":
        name = parent.child_by_field_name("name")
    elif parent.type == "assignment_expression":
        name = parent.child_by_field_name("left")
    else:
        return False
    return name is not None and (name.text or b"").decode() in prog.deques


def _deque_new(tr: Emitting, c: Call) -> Tokens | None:
    return ["deque", "(", ")"] if _made_deque(tr, c.node) else None


def _list_new(tr: Emitting, c: Call) -> Tokens | None:
    return ["list", "(", *c.joined(tr), ")"] if c.args and tr.type_of(c.args[0]) != "int" else ["[", "]"]


_LISTS = tuple(sorted(COLLECTION_TYPES))

_MAPS = tuple(sorted(MAP_TYPES))

_BULK = tuple(sorted(COLLECTION_TYPES | SET_TYPES))

_HEAP_OPS = ("add", "offer", "poll", "remove", "peek", "element")


RULES: tuple[Rule, ...] = (
    # -- Map.entry, List.of / Set.of / Map.of and SimpleEntry in programs: Python's tuples and literals
    static("Map", "entry", _map_entry, policy=PROGRAM),
    new(_ENTRIES, _entry_new, policy=PROGRAM),
    static(("List", "Set", "Map"), "of", _list_of, policy=PROGRAM),
    # -- Arrays
    static("Arrays", "asList", _as_list, where=EXPRESSION, returns="List"),
    static("Arrays", "asList", _as_list_of_array, policy=PROGRAM, returns="List"),
    static("Arrays", "copyOfRange", _copy_of_range, where=EXPRESSION),
    static("Arrays", "copyOf", _copy_of, where=EXPRESSION),
    static("Arrays", "equals", _arrays_equals, where=EXPRESSION),
    static("Arrays", "stream", _arrays_stream, where=EXPRESSION),
    static("Arrays", "toString", _arrays_to_string, where=EXPRESSION),
    static("Arrays", "toString", _text_array_to_string, policy=PROGRAM),
    static("Arrays", "deepToString", _arrays_to_string, where=EXPRESSION),
    static("Arrays", "binarySearch", _binary_search, where=EXPRESSION),
    static("Arrays", "sort", _arrays_sort, where=STATEMENT),
    static("Arrays", "sort", _sort_by_comparator, policy=PROGRAM),  # honours the comparator
    static("Arrays", "fill", _fill, where=STATEMENT),
    static("Arrays", "fill", _fill_in_place, policy=PROGRAM),  # in place: the array may be an alias
    static("Arrays", "setAll", _set_all, policy=PROGRAM),
    # -- Collections
    static("Collections", "frequency", _frequency, where=EXPRESSION),
    static("Collections", "nCopies", _n_copies, where=EXPRESSION),
    static("Collections", ("max", "min"), _collection_extreme, where=EXPRESSION),
    static("Collections", "swap", _swap, where=STATEMENT),
    static("Collections", "sort", _collections_sort, where=STATEMENT),
    static("Collections", "sort", _sort_by_comparator, policy=PROGRAM),
    static("Collections", "reverse", _collections_reverse, where=STATEMENT),
    static("Collections", "shuffle", _shuffle, policy=PROGRAM),
    # -- instance methods of both policies (the receiver's static type; "*" any receiver)
    instance(_LISTS, "indexOf", _list_index_of, where=EXPRESSION),
    instance(_LISTS, "lastIndexOf", _list_last_index_of, where=EXPRESSION),
    instance("*", ("iterator", "listIterator"), _iterator, where=EXPRESSION),
    instance(("Iterator", "ListIterator"), "next", _iterator_next, where=EXPRESSION),
    instance("*", "hasNext", _for_in_iterator, where=LOOP_HEADER),  # any receiver, as written (README)
    instance("*", "size", length, where=EXPRESSION),
    instance("*", "toArray", listed, where=EXPRESSION),
    instance("*", ("isEmpty", "empty"), _is_empty, where=EXPRESSION),
    instance("*", ("contains", "containsKey"), _contains, where=EXPRESSION),
    instance("*", ("contains", "containsKey"), _not_contains, where=NEGATED),
    instance("*", ("keySet", "entrySet", "values"), _hash_ordered, where=FOR_EACH),
    instance("*", "containsValue", _contains_value, where=EXPRESSION),
    instance(_MAPS, "get", _map_get_default, where=EXPRESSION),
    instance(_MAPS, "get", _map_get_nullable, where=EXPRESSION),
    instance((*_MAPS, *_LISTS, "?"), "get", _subscript, where=EXPRESSION),
    instance("*", "getOrDefault", _get_or_default, where=EXPRESSION),
    instance((*_LISTS, "?"), "add", _append, where=EXPRESSION),
    instance(tuple(sorted(SORTED_TYPES)), ("first", "firstKey", "last", "lastKey"), _sorted_end, where=EXPRESSION),
    instance(_HEAD_FIRST, "push", _deque_head(_add_first), where=EXPRESSION),
    instance(_HEAD_FIRST, "pop", _deque_head(_pop_first), where=EXPRESSION),
    instance(_HEAD_FIRST, "peek", _null_when_empty(_deque_head(_head)), where=EXPRESSION),
    instance("*", ("addFirst", "offerFirst"), _add_first, where=EXPRESSION),
    instance(_LISTS, "add", _insert_at, where=EXPRESSION),
    instance(_LISTS, ("elementAt", "get"), _subscript, where=EXPRESSION),
    instance("*", ("push", "addLast", "offer", "offerLast"), _append, where=EXPRESSION),
    instance("*", ("pop", "removeLast", "pollLast"), _null_when_empty(_pop_last), where=EXPRESSION),
    instance("*", ("poll", "remove", "removeFirst", "pollFirst"), _null_when_empty(_pop_first), where=EXPRESSION),
    # a queue's head, where `poll` takes from
    instance(tuple(sorted(QUEUE_TYPES)), "peek", _null_when_empty(_head), where=EXPRESSION),
    instance("*", ("peek", "peekLast", "getLast", "lastElement"), _null_when_empty(_last), where=EXPRESSION),
    instance("*", ("peekFirst", "getFirst", "firstElement", "element"), _null_when_empty(_head), where=EXPRESSION),
    instance(_LISTS, "remove", _list_remove_object, where=EXPRESSION),
    instance(_MAPS, "remove", _map_remove, where=EXPRESSION),
    instance("*", "remove", _remove, where=EXPRESSION),
    instance("*", "keySet", _python_method("keys"), where=EXPRESSION),
    instance("*", "values", _python_method("values"), where=EXPRESSION),
    instance("*", "entrySet", _python_method("items"), where=EXPRESSION),
    instance("*", "getKey", _entry_part("0"), where=EXPRESSION),
    instance("*", "getValue", _entry_part("1"), where=EXPRESSION),
    # as statements (the receiver translated by the emitter)
    instance(_MAPS, "put", _put, where=STATEMENT),
    instance("*", "removeIf", _remove_if, where=STATEMENT),
    instance(_BULK, ("addAll", "removeAll", "retainAll"), _bulk, where=STATEMENT),
    instance(_BULK, "containsAll", _contains_all, where=EXPRESSION, returns="boolean"),
    static("Collections", "addAll", _collections_add_all, where=STATEMENT),
    instance((*_LISTS, *_MAPS), "replaceAll", _replace_all, where=STATEMENT),
    instance(_LISTS, "set", _put, where=STATEMENT),
    # -- in programs: Map, TreeMap / TreeSet navigation, PriorityQueue, List and iterators
    instance(_MAPS, "computeIfAbsent", _compute_if_absent, policy=PROGRAM),
    instance(_MAPS, "putIfAbsent", _put_if_absent, policy=PROGRAM),
    instance(_MAPS, "replace", _map_replace, policy=PROGRAM),
    instance(_MAPS, "merge", _map_merge, policy=PROGRAM),
    new(("TreeMap", "TreeSet"), _tree_new, policy=PROGRAM),  # the runtime's (containers.py)
    instance("*", "forEach", _for_each, policy=PROGRAM),
    instance("*", tuple(_NAV_CMP), _nav_compare, policy=PROGRAM),
    instance("*", ("firstEntry", "lastEntry"), _nav_entry, policy=PROGRAM),
    instance("*", ("pollFirst", "pollLast"), _nav_poll, policy=PROGRAM),
    instance("*", ("headSet", "tailSet", "headMap", "tailMap"), _nav_range, policy=PROGRAM),
    instance("*", _HEAP_OPS, _min_heap, policy=PROGRAM),
    instance("*", _HEAP_OPS, _comparator_heap, policy=PROGRAM),
    instance("*", "addAll", _heap_add_all, policy=PROGRAM),
    instance("*", _HEAP_OPS, _max_heap, policy=PROGRAM),
    instance("*", "sort", _list_sort, policy=PROGRAM),
    instance("*", ("iterator", "listIterator"), _java_iterator, policy=PROGRAM),
    instance("*", "toArray", _to_typed_array, policy=PROGRAM),
    instance("*", "subList", _sub_list, policy=PROGRAM),
    instance("*", ("keySet", "navigableKeySet", "entrySet", "values"), _sorted_view, policy=PROGRAM),
    instance("*", ("firstKey", "first", "lastKey", "last"), _sorted_view, policy=PROGRAM),
    instance("*", "merge", _merge_sum, policy=PROGRAM),
    new("PriorityQueue", _heap_new, policy=PROGRAM),
    # -- constructors of both policies (a Java collection is its Python counterpart)
    new(tuple(sorted(CONCRETE_MAP_TYPES)), _map_new),
    new(tuple(sorted(SET_TYPES)), _set_new),
    new(_LISTS, _deque_new),
    new(_LISTS, _list_new),
)
