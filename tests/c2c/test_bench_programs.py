"""bench.c2c_programs: how a failing generated test is classified and which tests are reported slow."""

from __future__ import annotations

import pytest

from bench.c2c_programs import _failure, _report_timings, java_overflow


@pytest.mark.parametrize(
    ("expected", "got"),
    [
        ("-152944448\n", "748659891388608\n"),  # int arithmetic wrapped modulo 2^32
        ("3\n-4513792\n0\n", "3\n330707968000\n0\n"),  # the first difference decides
        ("2147483647\n", "44598755711600189\n"),  # (int) of a large double saturates
        ("-9223372036854775808\n", "-10000000000000000000000\n"),  # (long) saturates
    ],
)
def test_java_fixed_width_results_are_told_apart(expected: str, got: str) -> None:
    assert java_overflow(expected, got)
    assert _failure({"status": "ran", "stdout": got}, expected)["kind"] == "wrong_answer:int_overflow"


@pytest.mark.parametrize(("expected", "got"), [("-49390\n", "-49391\n"), ("-1\n", "3068375547\n"), ("ab 1", "ac 1")])
def test_other_differences_stay_wrong_answers(expected: str, got: str) -> None:
    assert not java_overflow(expected, got)
    assert _failure({"status": "ran", "stdout": got}, expected)["kind"] == "wrong_answer"


def test_slow_tests_are_those_far_beyond_the_java_or_out_of_time(capsys: pytest.CaptureFixture[str]) -> None:
    def timing(strategy: str, java_s: float, python_s: float, kind: str = "pass") -> dict:
        return {
            "test": 0,
            "strategy": strategy,
            "input_chars": 10,
            "java_s": java_s,
            "python_s": python_s,
            "python_cpu_s": python_s,
            "kind": kind,
        }

    rows = {
        "fast": {"generated_timings": [timing("values", 0.3, 0.5), timing("limits", 0.1, 0.9)]},
        "slow": {"generated_timings": [timing("limits", 0.2, 3.0), timing("large", 0.2, 2.5)]},
        "timeout": {"generated_timings": [timing("grow", 2.0, 10.0, "timeout")]},
    }
    summary: dict = {}
    _report_timings(rows, summary)
    assert set(summary["slow_tests"]) == {"slow", "timeout"}
    assert summary["slow_tests"]["slow"]["strategy"] == "limits" and summary["slow_tests"]["slow"]["ratio"] == 15.0
    assert summary["generated_by_strategy"] == {"values": [1, 1], "limits": [2, 2], "large": [1, 1], "grow": [0, 1]}
    out = capsys.readouterr().out
    assert "slow limits (10 chars): Python 3.00 s" in out and "x15, pass" in out and "fast" not in out
