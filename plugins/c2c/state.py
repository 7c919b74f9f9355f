"""What one translation holds: its policy (a function or a program) and its mutable state.

A request is translated under one of two named policies. ``FUNCTION``: class members or
statements, written as the GeeksforGeeks-style references write them (TransCoder's unit tests
compare with what they return). ``PROGRAM``: a whole compilation unit, run as a script on
stdin; it prints what Java prints. Each switch of ``Policy`` is one behaviour where the two
differ, named, instead of a test of whether program analysis exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from plugins.c2c.style import DEFAULT_STYLE, Site, Style
from plugins.c2c.syntax import Tokens

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass
class ClassInfo:
    """One class of a program: its role, members and their types (``program.analyze``)."""

    name: str
    node: Node
    role: str = "class"  # "main" (flattened), "class", "reader" (replaced by the runtime), "writer" (print),
    # "io" (a writer class that also reads: `class FastIO extends PrintWriter` with `nextInt`)
    base: str = ""
    static_fields: set[str] = field(default_factory=set)
    instance_fields: set[str] = field(default_factory=set)
    static_methods: set[str] = field(default_factory=set)
    instance_methods: set[str] = field(default_factory=set)
    field_types: dict[str, str] = field(default_factory=dict)  # field -> its declared Java type (``type_of``)
    ops: dict[str, str] = field(default_factory=dict)  # reader/writer method -> op
    writes: dict[str, str] = field(default_factory=dict)  # an "io" class's print methods -> writer op


@dataclass
class ProgramInfo:
    """What the analysis of a whole program found (``program.analyze``). A function's translation reads an
    empty one: no classes, no stdin / stdout objects, no heaps."""

    classes: dict[str, ClassInfo] = field(default_factory=dict)
    main: ClassInfo | None = None  # the class holding `main`, flattened into the module
    entry: ClassInfo | None = None  # or, when the program makes objects of it, that class kept a class
    io: dict[str, str] = field(default_factory=dict)  # variable name -> "in" | "tok" | "out" | class name
    module_globals: set[str] = field(default_factory=set)
    reads: set[str] = field(default_factory=set)  # ops used
    line_null_checks: bool = False
    recursive: bool = False
    overloads: dict[str, dict[int, str]] = field(default_factory=dict)  # main-class method -> arity -> name
    class_overloads: dict[str, dict[str, dict[int, str]]] = field(default_factory=dict)  # other classes'
    renames: dict[str, str] = field(default_factory=dict)  # main-class method named like a Python builtin
    static_math: bool = False  # `import static java.lang.Math.*`
    heaps: set[str] = field(default_factory=set)  # variables holding a PriorityQueue in natural order
    max_heaps: set[str] = field(default_factory=set)  # PriorityQueues in reverse order (of numbers)
    cmp_heaps: set[str] = field(default_factory=set)  # PriorityQueues with another comparator: heapq over keys
    signed: set[str] = field(default_factory=set)  # variables that may hold a negative number (``_signed_names``)
    local_main: bool = False  # main runs as a function: its locals are fast and a str grows in place
    sorted_maps: set[str] = field(default_factory=set)  # TreeMap / TreeSet variables (iterate in order)
    hash_tables: set[str] = field(default_factory=set)  # HashMap / HashSet variables (iterate in Java's order)
    enum_constants: dict[str, str] = field(default_factory=dict)  # an enum's constant -> its enum (``case RED``)
    deques: frozenset[str] = frozenset()  # queues used only through queue methods: `collections.deque` (``_deques``)
    nodes_by_type: dict[str, list[Node]] = field(default_factory=dict)  # the analysis walk: each kind in order


@dataclass(frozen=True, slots=True)
class Policy:
    """How a request is translated: as a function (the references' idioms) or a program (Java's output)."""

    name: str
    returned_ratio_divides: bool  # `return a * b / c` divides with `/`, as the function references do
    python_iterators: bool  # `list . iterator ( )` is `iter ( list )`, `while ( it . hasNext ( ) )` a for loop
    drops_dummy_return: bool  # a printing procedure's final `return 0 ;` is dropped (its reference returns None)
    java_strings: bool  # a value made a string reads as Java writes it: `true` / `false`, a list `[a, b]`
    unsigned_shift: bool  # `x >>> k` shifts x's 32- or 64-bit pattern (a negative x), as Java does
    truncating_division: bool  # an int variable that may be negative divides toward zero, as Java's `/`
    saturating_casts: bool  # `(int)` / `(long)` of a double saturates at the type's bounds, as Java's does
    java_print: bool  # a print writes exactly Java's text (``_print``), not the references' `print ( a , b )`
    labelled_jumps: bool  # `break outer` / `continue outer` out of a nested loop set flags the loops test
    program_io: bool  # stdin / stdout objects read one stdin and print (``resolve``); else only `System.out` prints
    program_classes: bool  # the program's classes: main flattened into the module (`this . x` a global), calls
    # resolved to its classes, overloads and anonymous classes (``resolve``), `this == o` as `is`
    java_nulls: bool  # `map . remove ( k )` of a missing key gives None, as Java's null
    exact_constants: bool  # `Integer.MAX_VALUE / 2` in arithmetic is Java's value, not the references' sys.maxsize
    runs_threads: bool  # a `Thread`'s runnable runs where the thread is made (`start` / `join` vanish)
    wrapping_hash: bool  # an int / long hash step in a loop (`h = 31 * h + c`) wraps to 32 / 64 bits as Java's


FUNCTION = Policy(
    "function",
    returned_ratio_divides=True,
    python_iterators=True,
    drops_dummy_return=True,
    java_strings=False,
    unsigned_shift=False,
    truncating_division=False,
    saturating_casts=False,
    java_print=False,
    labelled_jumps=False,
    program_io=False,
    program_classes=False,
    java_nulls=False,
    exact_constants=False,
    runs_threads=False,
    wrapping_hash=False,
)
PROGRAM = Policy(
    "program",
    returned_ratio_divides=False,
    python_iterators=False,
    drops_dummy_return=False,
    java_strings=True,
    unsigned_shift=True,
    truncating_division=True,
    saturating_casts=True,
    java_print=True,
    labelled_jumps=True,
    program_io=True,
    program_classes=True,
    java_nulls=True,
    exact_constants=True,
    runs_threads=True,
    wrapping_hash=True,
)


@dataclass(slots=True)
class TranslationState:
    """Everything one translation writes; a new one for every request (and style variant)."""

    policy: Policy
    style: Style = DEFAULT_STYLE
    choices: dict[int, str] = field(default_factory=dict)  # decision-site index -> chosen option (``_decide``)
    prog: ProgramInfo = field(default_factory=ProgramInfo)  # the program's analysis (FUNCTION: an empty one)
    src: bytes = b""
    offset: int = 0  # bytes of wrapper before the Java in ``src`` (FUNCTION)
    sites: list[Site] = field(default_factory=list)
    lines: list[tuple[int, Tokens]] = field(default_factory=list)
    scopes: list[dict[str, str]] = field(default_factory=lambda: [{}])
    method_types: dict[str, str] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)  # every name the source declares
    pre: list[Tokens] = field(default_factory=list)  # side effects of `++ x` inside expressions, before the statement
    post: list[Tokens] = field(default_factory=list)  # side effects of `x ++` inside expressions, after it
    loop_updates: list[list[Tokens] | None] = field(default_factory=list)  # per loop: updates before `continue`
    hoisted: list[tuple[int, Tokens]] = field(default_factory=list)  # defs an expression needs, before its statement
    n_hoisted: int = 0
    unknown: int = 0  # nodes copied verbatim: a rough measure of translation coverage
    helpers_used: set[str] = field(default_factory=set)  # undeclared well-known helpers called (``support.py``)
    constants_used: set[str] = field(default_factory=set)  # undeclared well-known constants read (``support.py``)
    cls_stack: list[ClassInfo] = field(default_factory=list)  # classes being emitted (PROGRAM)
    method_base: int = 0  # index of the current method's first scope
    static_ctx: bool = True
    read_mode: str = ""  # how the program reads stdin: "", "tokens", "lines", "mixed"
    yields: list[tuple[Tokens, bool]] = field(default_factory=list)  # switch expressions: target, case wrapped
    labels: list = field(default_factory=list)  # labelled loops with a nested `break label` (PROGRAM)
    joiners: dict[str, list[Tokens]] = field(default_factory=dict)  # StringJoiner variables: separator, affixes
    map_defaults: dict[str, Tokens] = field(default_factory=dict)  # map variables whose `get` has a default
    threads: set[str] = field(default_factory=set)  # `Thread` variables whose runnable ran in place
    lambda_type: str = "?"  # the Java type of the next lambda's parameters (a stream's elements), when known
    sb_return: str | None = None  # the StringBuilder out-parameter the current method returns
    builders: set[str] | None = None  # the main class's StringBuilder fields (computed once)
    out_params: dict[str, tuple[int, str]] | None = None  # functions with a StringBuilder out-parameter (once)
    stacks_only: bool | None = None  # every Deque of the source is used only as a stack (``library``; once)

    def first(self, *rules: Callable[[], Tokens | None]) -> Tokens | None:
        """The first of ``rules`` that takes a call (its tokens, not None), or None.

        A rule that declines may have translated the call's arguments: what they registered (``x ++``
        updates, hoisted lambdas) is forgotten, so the rule that takes the call registers it once."""
        mark = len(self.pre), len(self.post), len(self.hoisted), self.n_hoisted
        for rule in rules:
            out = rule()
            if out is not None:
                return out
            del self.pre[mark[0] :], self.post[mark[1] :], self.hoisted[mark[2] :]
            self.n_hoisted = mark[3]
        return None
