"""bench.c2c_inputs: further stdin tests made from a program's sample input keep its shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.c2c_inputs import (
    MAX_INPUT_CHARS,
    SIZE_LIMIT,
    STRATEGIES,
    Limits,
    candidate,
    candidates,
    limits_of,
    parse,
    render,
    shape_links,
)

ROWS = "3 2\n1 5\n2 7\n9 4\n"  # n m, then n rows of m numbers
ARRAY = "4\n3 8 5 1\n"  # n, then a row of n numbers
STRING = "5\nabcab\n"  # n, then a string of n letters


def _shape(text: str) -> list[int]:
    return [len(line.split()) for line in text.splitlines()]


def test_parse_and_render_round_trip() -> None:
    for sample in (ROWS, ARRAY, STRING, "198 1.10\n", "1,1,40,60\n", "oder atc\n", "-3 x=2\n"):
        assert render(parse(sample)) == sample
    kinds = [p.kind for p in parse("198 1.10,ab\n")[0]]
    assert kinds == ["int", "text", "float", "text", "word"]


def test_shape_numbers_are_found() -> None:
    links = {(lk.line, lk.index): (lk.what, lk.targets) for lk in shape_links(parse(ROWS))}
    assert links[(0, 0)] == ("lines", (1, 2, 3))
    assert links[(0, 2)] == ("tokens", (1, 2, 3))
    assert shape_links(parse(ARRAY))[0].what == "tokens"
    assert shape_links(parse(STRING))[0].what == "letters"
    # data lines (words beside numbers, long rows) hold no shape numbers
    assert shape_links(parse("2 5\n1 WA\n1 AC\n2 WA\n2 AC\n2 WA\n"))[0].line == 0
    assert all(lk.line == 0 for lk in shape_links(parse("2 5\n1 WA\n1 AC\n2 WA\n2 AC\n2 WA\n")))


@pytest.mark.parametrize("sample", [ROWS, ARRAY, STRING])
@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s not in ("grow", "large", "limits")])
def test_strategies_keep_the_shape(sample: str, strategy: str) -> None:
    for seed in range(20):
        text = candidate(sample, seed, strategy)
        assert _shape(text) == _shape(sample)
        head, *rest = text.splitlines()
        assert head.split()[0] == sample.split()[0]  # the count is kept
        if sample is STRING:
            assert len(rest[0]) == 5 and rest[0].isalpha()


@pytest.mark.parametrize("strategy", ["grow", "large", "limits"])
@pytest.mark.parametrize("sample", [ROWS, ARRAY, STRING])
def test_grow_keeps_counts_consistent(sample: str, strategy: str) -> None:
    grew, seeds = 0, {"grow": 20, "large": 4, "limits": 2}[strategy]
    for seed in range(seeds):
        lines = candidate(sample, seed, strategy).splitlines()
        first = [int(x) for x in lines[0].split()]
        if sample is ROWS:
            n, m = first
            assert len(lines) == 1 + n and all(len(row.split()) == m for row in lines[1:])
            grew += n > 3 or m > 2
        elif sample is ARRAY:
            assert len(lines[1].split()) == first[0]
            grew += first[0] > 4
        else:
            assert len(lines[1]) == first[0]
            grew += first[0] > 5
    assert grew >= seeds * 3 // 4


def test_values_stay_in_the_sample_ranges() -> None:
    sample = "5\n10 20 30 40 50\n"
    for seed in range(20):
        values = [int(x) for x in candidate(sample, seed, "values").splitlines()[1].split()]
        assert all(10 <= v <= 50 for v in values)


def test_magnitude_keeps_the_first_line_and_reaches_the_value_limit() -> None:
    sample = "5 3\n10 20 30 40 50\n"
    tops = []
    for seed in range(20):
        head, row = candidate(sample, seed, "magnitude").splitlines()
        assert head == "5 3" and len(row.split()) == 5
        values = [int(x) for x in row.split()]
        assert all(10 <= v <= 10**9 for v in values)
        tops.append(max(values))
    assert max(tops) > 10**7  # no longer within 100x the sample (5,000)
    small = [int(x) for x in candidate(sample, 0, "magnitude", Limits(value=1000)).splitlines()[1].split()]
    assert all(10 <= v <= 1000 for v in small)


def test_limits_come_from_the_java_array_bounds() -> None:
    assert limits_of("int[] a = new int[100005];") == Limits(size=100_000)
    java = "static final int MAX = 200_000; long[][] d = new long[MAX + 1][1005]; char[] buf = new char[1 << 16];"
    assert limits_of(java).size == 200_000
    assert limits_of("boolean[] seen = new boolean[256]; char[] b = new char[8192];") == Limits()
    assert limits_of("int[][] g = new int[1001][1001];").size == 1000


@pytest.mark.parametrize("sample", [ROWS, ARRAY, STRING, "2 3\n-1 0 5\n"])
def test_limits_fill_the_size_and_values_up_to_the_limit(sample: str) -> None:
    text = candidate(sample, 3, "limits")
    assert text == candidate(sample, 3, "limits") and len(text) <= MAX_INPUT_CHARS
    lines = text.splitlines()
    if sample is ROWS:  # n rows of m numbers: as many rows as fit 4 MB of 10-digit values
        n, m = map(int, lines[0].split())
        assert 100_000 < n <= SIZE_LIMIT and m == 2 and len(lines) == n + 1
        values = [int(v) for row in lines[1:] for v in row.split()]
    elif sample is STRING:
        assert int(lines[0]) == SIZE_LIMIT == len(lines[1]) and set(lines[1]) <= set("abc")
        return
    else:
        *_, n = map(int, lines[0].split())
        values = [int(v) for v in lines[1].split()]
        assert n == SIZE_LIMIT == len(values)
    assert min(values) >= (-(10**9) if "-" in sample else 1) and max(values) <= 10**9
    assert max(values) > 1000  # drawn far beyond the sample's magnitudes
    assert len(set(values)) > 1000
    sized = candidate(sample, 3, "limits", Limits(size=5000)).splitlines()
    assert max(map(int, sized[0].split())) == 5000


def test_candidates_are_seeded_and_distinct() -> None:
    small = Limits(size=2000)  # the limits candidates kept small: this test is about seeds
    first = candidates(ROWS, 7, 14, small)
    assert first == candidates(ROWS, 7, 14, small)
    assert first != candidates(ROWS, 8, 14, small)
    texts = [candidate(ROWS, seed, strategy, small) for strategy, seed in first]
    assert len(set(texts)) == len(texts) and ROWS not in texts
    assert {s for s, _ in first} == set(STRATEGIES)


@pytest.mark.usefixtures("jdk")
def test_generated_tests_keep_what_the_java_accepts(tmp_path: Path) -> None:
    """Candidates the Java rejects (an exception) are dropped; the kept ones carry its output."""
    from bench.c2c_programs import generated_tests

    java = """import java.util.*;
    public class Main { public static void main(String[] a) {
      Scanner sc = new Scanner(System.in); int n = sc.nextInt(); long s = 0;
      for (int i = 0; i < n; i++) s += sc.nextInt();
      if (s % 7 == 0) throw new RuntimeException("rejected");
      System.out.println(s); } }"""
    kw = {"cache": tmp_path / "gen", "java_cache": tmp_path / "java", "java_limit": 5.0, "jobs": 2}
    tests = generated_tests("p1", java, ARRAY, 6, **kw)
    assert 0 < len(tests) <= 6
    for t in tests:
        n, *values = map(int, t["stdin"].split())
        assert n == len(values) and sum(values) % 7 and int(t["expected"]) == sum(values)
    saved = json.loads((tmp_path / "gen" / "p1.json").read_text(encoding="utf-8"))
    assert [{**t, "stdin": tt["stdin"]} for t, tt in zip(saved["tests"], tests, strict=True)] == tests
    assert generated_tests("p1", java, ARRAY, 6, **kw) == tests  # from the cache


def test_limits_keep_digit_strings_and_numbers_beyond_int64() -> None:
    binary = candidate("5\n01101\n", 1, "limits").splitlines()
    assert binary[0] == str(SIZE_LIMIT) and len(binary[1]) == SIZE_LIMIT and set(binary[1]) <= {"0", "1"}
    head, row = candidate("3\n123456789012345678901234 7 9\n", 2, "limits", Limits(size=1000)).splitlines()
    values = [int(v) for v in row.split()]
    assert head == "1000" and len(values) == 1000
    assert all(v <= 10**18 or v == 123456789012345678901234 for v in values)
