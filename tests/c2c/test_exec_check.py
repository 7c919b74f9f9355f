# ruff: noqa: E501
"""Differential execution: signatures, inputs, the sandboxed Python runner, the Java oracle, comparison."""

from __future__ import annotations

import pytest

from bench.c2c_exec_check import compare, make_inputs, run_java, run_python, same, signature

SUM = "static int sum ( int arr [ ] , int n ) { int s = 0 ; for ( int i = 0 ; i < n ; i ++ ) s += arr [ i ] ; return s ; }"


def test_signature_of_the_last_method() -> None:
    java = "static int helper ( int x ) { return x ; } static boolean f ( String s , char c , int [ ] [ ] g ) { return true ; }"
    sig = signature(java)
    assert sig is not None and sig.name == "f" and sig.static and sig.returns == "boolean"
    assert [(p.name, p.kind, p.dims) for p in sig.params] == [("s", "String", 0), ("c", "char", 0), ("g", "int", 2)]


def test_unsupported_parameter_type() -> None:
    assert signature("static int f ( Node root ) { return 0 ; }") is None


def test_inputs_are_seeded_and_sizes_follow_arrays() -> None:
    sig = signature(SUM)
    assert sig is not None
    a, b = make_inputs(sig, seed=3), make_inputs(sig, seed=3)
    assert a == b and len(a) == 6
    assert all(n == len(arr) for arr, n in a)
    assert make_inputs(sig, seed=4) != a


def test_python_runner_results_and_mutation() -> None:
    src = "def f ( a ) :\n    a [ 0 ] = 9\n    return len ( a )\n"
    out = run_python(src, "f", [[[1, 2]]])
    assert out["results"] == [{"ret": 2, "args": [[9, 2]], "out": ""}]


def test_python_runner_sandbox_blocks_network_and_times_out() -> None:
    src = (
        "import socket\ndef net ( ) :\n    socket.socket()\n    return 1\n"
        "def spin ( ) :\n    while True :\n        pass\n"
    )
    assert run_python(src, "net", [[]])["results"][0]["exc"] == "OSError"
    assert run_python(src, "spin", [[]], per_call_s=0.3)["results"][0]["exc"] == "Timeout"


def test_python_runner_load_error() -> None:
    assert run_python("def f ( :\n", "f", [[]])["load_error"] == "SyntaxError"


def test_compare_kinds() -> None:
    oracle = [{"ret": 3, "args": [[1, 2]], "out": ""}, {"exc": "ArrayIndexOutOfBoundsException"}]
    assert (
        compare(oracle, {"results": [{"ret": 3.0, "args": [[1, 2]], "out": ""}, {"exc": "IndexError"}]}, [0])[0]
        == "pass"
    )
    assert compare(oracle, {"results": [{"ret": 4, "args": [[1, 2]], "out": ""}]}, [0])[1] == "wrong_value"
    assert compare(oracle, {"results": [{"ret": 3, "args": [[2, 1]], "out": ""}]}, [0])[1] == "wrong_mutation"
    assert compare(oracle, {"results": [{"exc": "NameError"}]}, [0])[1] == "name_error"
    assert compare(oracle, {"load_error": "SyntaxError", "results": []}, [0])[1] == "syntax_error"
    assert compare([{"exc": "Timeout"}], {"results": []}, [])[0] == "no_valid_input"
    assert same(2**31 - 1, 2**63 - 1) and same(-(2**31), -(2**63) + 1) and not same(2**31 - 1, 5)
    big = [{"ret": 2004310016, "args": [15], "out": ""}]  # 15! in Java's int
    assert compare(big, {"results": [{"ret": 1307674368000, "args": [15], "out": ""}]}, [])[0] == "no_valid_input"
    assert same([1, 2.0], [1.0, 2]) and not same("1", 1) and not same([1], [1, 2])


@pytest.mark.usefixtures("jdk")
def test_java_oracle() -> None:
    sig = signature(SUM)
    assert sig is not None
    bad = "static int g ( int x ) { return undefinedHelper ( x ) ; }"
    bad_sig = signature(bad)
    assert bad_sig is not None
    out = run_java({"ok": (SUM, sig, [[[1, 2, 3], 3], [[4], 1]]), "bad": (bad, bad_sig, [[1]])})
    assert [r["ret"] for r in out["ok"]["results"]] == [6, 4]
    assert "compile_error" in out["bad"]
    flip = "static void flip ( int [ ] [ ] m ) { m [ 0 ] [ 0 ] = 7 ; }"
    flip_sig = signature(flip)
    assert flip_sig is not None
    res = run_java({"flip": (flip, flip_sig, [[[[1, 2], [3, 4]]]])})["flip"]["results"][0]
    assert res["args"] == [[[7, 2], [3, 4]]]


def test_non_finite_java_results_are_left_out() -> None:
    oracle = [{"ret": "NaN", "args": [0.0], "out": ""}, {"ret": None, "args": [0.0], "out": "(Infinity, 1.0)\n"}]
    assert compare(oracle, {"results": [{"exc": "ZeroDivisionError"}, {"exc": "ZeroDivisionError"}]}, [])[0] == (
        "no_valid_input"
    )
