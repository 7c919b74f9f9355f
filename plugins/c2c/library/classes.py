"""Library classes whose objects keep state (java.util.regex, java.time, a TreeMap the runtime keeps in
order, ...): small Python classes under the Java names, carried into the program that names one."""

from __future__ import annotations

from plugins.c2c import carried
from plugins.c2c.carried import Unit
from plugins.c2c.library.rows import Call, Emitting, Rule, instance, operand
from plugins.c2c.state import PROGRAM
from plugins.c2c.syntax import Tokens

# -- library classes whose objects keep state: small Python classes under the Java names ------------
# real Python files (``runtime/``), read as text: a program that names one and does not declare it carries it
_SUPPORT_UNITS: dict[str, Unit] = {}

SUPPORT_CLASSES: dict[str, Unit] = {}  # the names a program may ask for (``Pattern``, ``hash_keys``, ...)

for _module in ("regex", "containers", "strings", "enums", "java_time"):
    _runtime = carried.load(_module)
    assert not _runtime.units.keys() & _SUPPORT_UNITS.keys(), f"runtime/{_module}.py redefines a support name"
    _SUPPORT_UNITS |= _runtime.units
    SUPPORT_CLASSES |= {name: _runtime.units[name] for name in _runtime.public}


# a program's class extending a library class: the Python class it extends (a support class, or Exception)
_THROWABLES = (
    "Throwable", "Exception", "RuntimeException", "Error", "IOException", "IllegalArgumentException",
    "IllegalStateException", "ArithmeticException", "UnsupportedOperationException", "InputMismatchException",
)  # fmt: skip

SUPPORT_BASES: dict[str, str] = {
    "AbstractMap.SimpleEntry": "SimpleEntry",
    "AbstractMap.SimpleImmutableEntry": "SimpleEntry",
    "SimpleEntry": "SimpleEntry",
    "SimpleImmutableEntry": "SimpleEntry",
    **{name: "Exception" for name in _THROWABLES},
}


def support_methods(name: str) -> frozenset[str]:
    """The Java methods a base from ``SUPPORT_BASES`` defines (a subclass calls them unqualified)."""
    if name not in SUPPORT_CLASSES:
        return frozenset()
    return SUPPORT_CLASSES[name].methods - {"__init__"}


def _support_call(tr: Emitting, c: Call) -> Tokens | None:
    """A support class's method keeps its Java name (no rule for a like-named collection method applies)."""
    return [*operand(c.obj, c.target(tr)), ".", c.name, "(", *c.joined(tr), ")"]


_TIMES = ("LocalDate", "LocalTime", "Duration")


def support_lines(used: set[str]) -> list[tuple[int, Tokens]]:
    """The support classes named in ``used`` and those they need, as (level, tokens) lines, dependencies first."""
    return carried.lines_by_name(_SUPPORT_UNITS, used & SUPPORT_CLASSES.keys())


RULES: tuple[Rule, ...] = (
    # -- a program's Java iterator (``JavaIterator``, runtime/containers.py)
    instance(("Iterator", "ListIterator"), ("hasNext", "next", "remove"), _support_call, policy=PROGRAM),
    # a support class's methods as called (``runtime/``), and the result types `type_of` reads
    *(
        instance(cls, sorted(support_methods(cls)), _support_call, policy=PROGRAM)
        for cls in SUPPORT_CLASSES
        if support_methods(cls)
    ),
    instance("Pattern", "compile", None, returns="Pattern"),
    instance("Pattern", "matcher", None, returns="Matcher"),
    instance("Pattern", "matches", None, returns="boolean"),
    instance("Matcher", ("matches", "find", "lookingAt"), None, returns="boolean"),
    instance("Matcher", "group", None, returns="String"),
    instance("Matcher", ("start", "end", "groupCount"), None, returns="int"),
    instance(
        _TIMES,
        ("isBefore", "isAfter", "isEqual", "equals", "isLeapYear", "isNegative", "isZero"),
        None,
        returns="boolean",
    ),
    instance("LocalDate", "getDayOfWeek", None, returns="DayOfWeek"),
    instance(
        "LocalDate", ("of", "parse", "plusDays", "minusDays", "plusMonths", "plusYears"), None, returns="LocalDate"
    ),
    instance(
        "LocalTime",
        ("of", "parse", "plusHours", "plusMinutes", "plusSeconds", "minusMinutes"),
        None,
        returns="LocalTime",
    ),
)
