"""plugins/c2c/runtime: the Python a translated program carries, tested as Python and as the tokens emitted."""

from __future__ import annotations

import ast
import importlib.util
import io
import sys
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from plugins.c2c import carried
from plugins.c2c.detok import detokenize
from plugins.c2c.library.classes import SUPPORT_CLASSES, support_lines, support_methods
from plugins.c2c.program import runtime_lines
from plugins.c2c.runtime import containers, enums, helpers, java_time, regex, strings
from plugins.c2c.support import HELPERS, helper_lines
from plugins.c2c.syntax import serialize

C2C = Path(carried.__file__).resolve().parent


def _stdin_module(text: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A fresh ``runtime/stdin.py`` that read ``text`` as its stdin."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    spec = importlib.util.spec_from_file_location("c2c_stdin_runtime", carried.HERE / "stdin.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _program(lines: list[tuple[int, list[str]]], header: str = "") -> dict[str, Any]:
    """Run emitted lines as a program would (its imports first); its globals."""
    source = header + detokenize(" ".join(serialize(lines)))
    scope: dict[str, Any] = {}
    exec(compile(source, "<runtime>", "exec"), scope)  # noqa: S102 - the program under test
    return scope


# -- the files as Python ---------------------------------------------------------------------------
def test_java_split_drops_trailing_empty_strings_only() -> None:
    assert strings.java_split(["a", "b", "", ""]) == ["a", "b"]
    assert strings.java_split(["", "", ""]) == []
    assert strings.java_split([""]) == [""]
    assert strings.java_split(["", "a"]) == ["", "a"]


def test_text_builder_appends_in_place_and_reads_as_its_text() -> None:
    sb = strings.TextBuilder("ab")
    alias = sb
    for part in ("c", 1, "de"):
        sb += part
    assert sb is alias and len(sb) == 6 and str(sb) == "abc1de" and f"{sb}" == "abc1de"
    assert sb[0] == "a" and sb[1:3] == "bc" and sb[::-1] == "ed1cba" and "1d" in sb
    assert sb == "abc1de" and "x" + sb == "xabc1de" and sb + "x" == "abc1dex" and hash(sb) == hash("abc1de")
    assert sb.find("1") == 3 and sb.upper() == "ABC1DE" and list(sb)[:2] == ["a", "b"]
    assert len(strings.TextBuilder()) == 0 and str(strings.TextBuilder()) == ""


def test_half_up_rounds_the_shortest_decimal_half_up() -> None:
    assert strings.half_up(0.15, 1) == Decimal("0.2")
    assert strings.half_up(2.675, 2) == Decimal("2.68")
    assert strings.half_up(-2.5, 0) == Decimal("-3")
    assert strings.half_up(float("inf"), 2) == float("inf")


def test_decimal_format_rounds_the_binary_value_half_even_as_java_8() -> None:
    assert strings.DecimalFormat("0.00").format(0.125) == "0.12"
    assert strings.DecimalFormat("0.00").format(2.675) == "2.67"
    assert strings.DecimalFormat("#.##").format(0.5) == ".5" and strings.DecimalFormat("#.##").format(0) == "0"
    assert strings.DecimalFormat("#,##0.00").format(-1234567.891) == "-1,234,567.89"
    assert (
        strings.DecimalFormat("00000").format(42) == "00042" and strings.DecimalFormat("#0.0%").format(0.314) == "31.4%"
    )
    up = strings.DecimalFormat("0.00")
    up.setRoundingMode(strings.RoundingMode.HALF_UP)
    assert up.format(0.125) == "0.13"


def test_java_sprintf_groups_indexes_and_writes_booleans_as_java() -> None:
    assert strings.java_sprintf("%,d|%,.2f", 1234567, 1234.565) == "1,234,567|1,234.57"
    assert strings.java_sprintf("%2$s %1$s %b%n", "a", "b", True) == "b a true\n"
    assert strings.java_sprintf("%05d|%-4s|%+d|%x|%08.3f", -42, "ab", 7, 255, -3.14159) == "-0042|ab  |+7|ff|-003.142"


def test_string_hash_and_compare_are_javas() -> None:
    assert strings.string_hash("hello") == 99162322
    assert strings.string_hash("polygenelubricants") == -(2**31)  # Java's Integer.MIN_VALUE
    assert strings.java_compare("apple", "banana") == -1
    assert strings.java_compare("ab", "abcd") == -2
    assert strings.java_compare("b", "a") == 1


def test_long_division_truncates_as_javas_exactly() -> None:
    for a in (*range(-13, 14), 9 * 10**18 + 7, -(9 * 10**18 + 7), -(2**63)):
        for b in (1, 2, 3, 5, -1, -4, 10**9 + 7, -(10**18 + 9)):
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # |a| / |b| truncated, with the sign
            assert strings.java_div(a, b) == q and strings.java_mod(a, b) == a - b * q, (a, b)
    assert strings.java_div(-(9 * 10**18 + 7), 10) == -(9 * 10**17)  # int ( a / b ) rounds through a double


def test_casts_of_doubles_saturate_as_javas() -> None:
    inf, nan = float("inf"), float("nan")
    assert [strings.java_int(x) for x in (2.7e10, -2.7e10, inf, -inf, nan, -3.9, 3.9)] == [
        2147483647, -2147483648, 2147483647, -2147483648, 0, -3, 3,
    ]  # fmt: skip
    assert [strings.java_long(x) for x in (2.2e24, -inf, nan, 2**62 * 1.0)] == [2**63 - 1, -(2**63), 0, 2**62]


def test_hash_keys_walks_javas_buckets() -> None:
    # capacity 16: 17 and 1 share bucket 1 (insertion order), 2 is bucket 2, 16 bucket 0
    assert containers.hash_keys({17: 0, 1: 0, 2: 0, 16: 0}) == [16, 17, 1, 2]
    assert containers.java_hash("a") == 97
    assert containers.java_hash(True) == 1231 ^ (1231 >> 16)
    # 13 keys exceed 0.75 of 16: capacity 32, so 17 and 1 part
    table = dict.fromkeys([17, 1, *range(100, 111)], 0)
    assert containers.hash_keys(table)[:2] == [1, 100]


def test_java_iterator_removes_the_last_returned() -> None:
    items = [1, 2, 3, 4]
    it = containers.JavaIterator(items)
    while it.hasNext():
        if it.next() % 2 == 0:
            it.remove()
    assert items == [1, 3]
    table = {"a": 1, "b": 2}
    it = containers.JavaIterator(table)
    it.next()
    it.remove()
    assert table == {"b": 2}


def test_collectors_and_entries() -> None:
    assert containers.group_by(["aa", "b", "cc"], len) == {2: ["aa", "cc"], 1: ["b"]}
    assert containers.group_by(["aa", "b", "cc"], len, count=True) == {2: 2, 1: 1}
    assert containers.to_map([1, 2], str, lambda x: x * x) == {"1": 1, "2": 4}
    assert containers.partition_by([1, 2, 3], lambda x: x > 1) == {False: [1], True: [2, 3]}
    entry = containers.SimpleEntry("k", 1)
    assert entry.setValue(2) == 1 and str(entry) == "k=2" and entry[0] == "k"


def test_tree_map_and_set_navigate_as_a_scan_of_their_keys_does() -> None:
    import random

    rng = random.Random(7)
    containers.SortedKeys.LOAD = 4  # small buckets: splits and emptied buckets happen often
    try:
        tm, ts, plain = containers.TreeMap(), containers.TreeSet([5, 1]), {5, 1}
        for step in range(3000):
            k = rng.randrange(-60, 60)
            op = rng.randrange(9)
            if op < 3:
                tm[k] = step
                ts.add(k)
                plain.add(k)
            elif op == 3:
                tm.pop(k, None)
                ts.discard(k)
                plain.discard(k)
            elif op == 4 and k in plain and k in tm:
                del tm[k]
                ts.remove(k)
                plain.remove(k)
            elif op == 5:
                tm.setdefault(k, 0)
                ts |= {k, k + 1}
                plain |= {k, k + 1}
            elif op == 6:
                ts -= {k, k - 1}
                plain -= {k, k - 1}
            elif op == 7 and step % 50 == 0:
                tm.update({k + 1: 0, k + 2: 0})
                ts.update([k + 2])
                plain.update([k + 2])
            elif op == 8 and plain:
                assert containers.tree_poll_first(ts) == min(plain)
                plain.discard(min(plain))
            for table, keys in ((tm, set(tm)), (ts, plain)):
                assert table.tree.buckets == [] or sum(table.tree.buckets, []) == sorted(keys)
                for f in ("tree_floor", "tree_lower", "tree_ceiling", "tree_higher"):
                    assert getattr(containers, f)(table, k) == getattr(containers, f)(keys, k), (f, k)
                if keys:
                    assert containers.tree_first(table) == min(keys) and containers.tree_last(table) == max(keys)
        assert ts == plain and repr(containers.TreeSet([2, 1])) == repr({1, 2})
        assert containers.tree_poll_last(containers.TreeSet()) is None
        tm.clear()
        assert containers.tree_floor(tm, 0) is None and containers.tree_ceiling(tm, 0) is None
    finally:
        containers.SortedKeys.LOAD = 512


def test_pattern_and_matcher_walk_like_javas() -> None:
    m = regex.Pattern.compile(r"\d+").matcher("a1b22c333")
    found = []
    while m.find():
        found.append((m.group(), m.start(), m.end()))
    assert found == [("1", 1, 2), ("22", 3, 5), ("333", 6, 9)]
    empty = regex.Pattern.compile("a*").matcher("baab")
    assert [empty.find() and (empty.start(), empty.end()) for _ in range(4)] == [(0, 0), (1, 3), (3, 3), (4, 4)]
    assert not empty.find() and not empty.find()  # Java's find is false after the empty match at the end
    assert sum(1 for _ in iter(regex.Pattern.compile("x*").matcher("ab").find, False)) == 3
    assert regex.Pattern.compile(",").split("a,b,,") == ["a", "b"]
    assert regex.Pattern.matches("[a-z]+", "abc") and not regex.Pattern.matches("[a-z]+", "ab1")
    whole = regex.Pattern.compile(r"(\w)(\d)").matcher("a1")
    assert whole.matches() and whole.groupCount() == 2 and whole.group(2) == "1"


def test_java_enum_constants() -> None:
    class Color(enums.JavaEnum):
        pass

    Color.constants(RED=Color(), GREEN=Color())
    assert [str(c) for c in Color.values()] == ["RED", "GREEN"]
    assert Color.valueOf("GREEN").ordinal() == 1
    assert Color.RED.compareTo(Color.GREEN) == -1 and Color.RED < Color.GREEN


def test_java_time() -> None:
    day = java_time.LocalDate.of(2024, 1, 31)
    assert str(day.plusMonths(1)) == "2024-02-29"
    assert str(day.getDayOfWeek()) == "WEDNESDAY" and java_time.DayOfWeek.SUNDAY.getValue() == 7
    later = java_time.LocalDate.parse("2024-03-01")
    assert day.isBefore(later) and later.compareTo(day) == 1 and day == java_time.LocalDate.of(2024, 1, 31)
    assert java_time.ChronoUnit.DAYS.between(day, later) == 30
    assert str(java_time.LocalTime.of(9, 5)) == "09:05" and str(java_time.LocalTime.of(9, 5, 7)) == "09:05:07"
    assert java_time.Duration.between(java_time.LocalTime.of(23, 0), java_time.LocalTime.of(1, 0)).toHours() == -22


def test_helpers() -> None:
    assert helpers.gcd(12, 18) == 6 and helpers.lcm(4, 6) == 12
    assert helpers.power(2, 10, 1000) == 24 and helpers.power(2, 10) == 1024
    arr = [5, 4, 3, 2, 1]
    helpers.bubbleSort(arr, 3)
    assert arr == [3, 4, 5, 2, 1]
    assert helpers.findMin([3, 1, 2], 2) == 1 and helpers.getMax(3, 7) == 7
    assert helpers.binarySearch([1, 3, 5], 0, 2, 5) == 2


def test_stdin_reads_tokens_lines_and_chars(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = _stdin_module("3 4\nhello world\r\nx", monkeypatch)
    assert int(stdin.next_token()) == 3 and stdin.next_token() == "4"
    assert stdin.input() == ""  # the rest of the first line, as Scanner.nextLine
    assert stdin.input() == "hello world"
    assert stdin.has_next() and stdin.read_char() == ord("x")
    assert not stdin.has_line() and stdin.input() is None and stdin.read_char() == -1


# -- the files as a program carries them --------------------------------------------------------------
def test_units_are_cut_from_the_files() -> None:
    date = SUPPORT_CLASSES["LocalDate"]
    assert date.lines[0] == (0, ("class", "LocalDate", ":"))
    assert (1, ("def", "isBefore", "(", "self", ",", "other", ")", ":")) in date.lines  # the private base's
    assert all(toks for _, toks in date.lines)  # no empty line inside the class
    assert date.needs == ("DayOfWeek",)
    assert {"isBefore", "plusDays", "__init__"} <= date.methods
    assert support_methods("SimpleEntry") == {"getKey", "getValue", "setValue", "toString", "__str__", "__hash__"}
    assert "java_hash" not in SUPPORT_CLASSES and SUPPORT_CLASSES["hash_keys"].needs == ("java_hash",)
    assert helper_lines({"findMin"})[0] == (0, ["def", "findMin", "(", "arr", ",", "n", "=", "None", ")", ":"])
    assert {"sort", "heapSort", "swap"} <= HELPERS
    lines = [line for unit in SUPPORT_CLASSES.values() for line in unit.lines]
    assert not any(toks[:1] == ('"""',) for _, toks in lines)  # no docstrings
    assert not any(level == 0 and toks[:1] in (("import",), ("from",)) for level, toks in lines)  # the program's


def test_dependencies_come_first_and_literals_keep_avatar_form() -> None:
    names = [toks[1] for level, toks in support_lines({"Pattern", "hash_keys"}) if level == 0 and toks]
    assert names == ["Matcher", "Pattern", "java_hash", "hash_keys"]
    stdin = {" ".join(toks) for _, toks in runtime_lines({"next_token", "input"})}
    assert '_TOKEN = re . compile ( r" \\S+ " )' in stdin
    assert 'end = _stdin . find ( " \\n " , _pos )' in stdin
    assert not any("has_next" in line for line in stdin)
    assert [toks[0] for _, toks in runtime_lines(set())] == ["_stdin", "_pos"]
    assert ["print", "(", "arr", "[", "i", "]", ",", "end", "=", "'▁'", ")"] in [
        t for _, t in helper_lines({"printArray"})
    ]


def test_emitted_units_run_as_the_files_do() -> None:
    scope = _program(support_lines(set(SUPPORT_CLASSES)), "import re\nimport datetime\nimport calendar\n")
    assert str(scope["LocalDate"].of(2023, 12, 31).plusDays(1)) == "2024-01-01"
    assert scope["LocalDate"].of(2023, 1, 1).isAfter(scope["LocalDate"].of(2022, 1, 1))
    assert scope["java_split"](["a", "", ""]) == ["a"]
    assert scope["string_hash"]("hello") == 99162322
    helper_scope = _program(helper_lines(HELPERS), "import math\n")
    arr = [3, 2, 1]
    helper_scope["insertionSort"](arr, 2)
    assert arr == [2, 3, 1]
    assert helper_scope["__gcd"](12, 18) == 6


def test_no_python_source_in_string_literals() -> None:
    """The translator's own modules hold no program text: a string that parses to a def or class is one."""
    found = []
    for path in sorted(C2C.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value.strip():
                try:
                    tree = ast.parse(node.value.strip("\n"))
                except SyntaxError:
                    continue
                if any(isinstance(n, ast.FunctionDef | ast.ClassDef) for n in ast.walk(tree)):
                    found.append(f"{path.name}:{node.lineno}")
    assert not found


def test_the_plugin_ships_the_runtime_files() -> None:
    """``runtime/`` is read, not imported: the submission carries it as the plugin's data."""
    from submission.build import package_data

    shipped = {p.relative_to(C2C).as_posix() for p in package_data(C2C)}
    assert {f"runtime/{p.name}" for p in carried.HERE.glob("*.py")} <= shipped
