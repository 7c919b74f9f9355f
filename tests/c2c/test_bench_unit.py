"""bench.c2c_unit's TransCoder harness: the name rule, the #TOFILL script, the #Results parsing."""

from __future__ import annotations

import pytest

from bench.c2c_unit import TRANSCODER_HEADER, fill_script, function_name, parse_results, real_kind, run_script

MODEL = """def f_gold ( a , b ) :
    return a + b


#TOFILL

if __name__ == '__main__':
    param = [
    (1, 2,),
    (3, 4,)
        ]
    n_success = 0
    for i, parameters_set in enumerate(param):
        if f_filled(*parameters_set) == f_gold(*parameters_set):
            n_success+=1
    print("#Results: %i, %i" % (n_success, len(param)))"""


def test_function_name_is_the_token_before_the_first_parenthesis() -> None:
    assert function_name("def addNums ( a , b ) : NEW_LINE INDENT return a + b NEW_LINE DEDENT") == "addNums"
    # a helper first takes the name, as it does in TransCoder's harness
    assert function_name("def swap ( a , i , j ) : NEW_LINE ... def sortIt ( a ) : ...") == "swap"
    assert function_name("MAX = 100 NEW_LINE") is None
    assert function_name("( a )") is None


def test_fill_script_puts_the_translation_at_tofill_with_f_filled() -> None:
    script = fill_script(MODEL, "def addNums(a, b):\n    return addNums2(a) + b\n", "addNums")
    assert script.startswith(TRANSCODER_HEADER) and TRANSCODER_HEADER.startswith("import numpy as np \n")
    assert "#TOFILL" not in script
    # a plain string replace: substrings are renamed too
    assert "def f_filled(a, b):\n    return f_filled2(a) + b" in script
    assert script.index("def f_gold") < script.index("def f_filled") < script.index("__main__")


def test_parse_results() -> None:
    assert parse_results("noise\n#Results: 10, 10\n") == (10, 10)
    assert parse_results("#Results: 3, 10") == (3, 10)
    assert parse_results("#Results: 1, 2\n#Results: 2, 2\n") == (2, 2)  # the last one, as TransCoder splits
    assert parse_results("Traceback ...") is None
    assert parse_results("#Results: x, 10") is None


@pytest.mark.parametrize(
    ("body", "status", "kind"),
    [
        ("def add(a, b):\n    return a + b\n", "success", "success"),
        ("def add(a, b):\n    return a - b\n", "failure", "wrong_results"),
        ("def add(a, b):\n    return a + c\n", "error", "runtime:NameError"),
        ("def add(a, b):\n    return a +\n", "error", "compile:SyntaxError"),
        ("def add(a, b):\n    while True:\n        pass\n", "timeout", "timeout"),
    ],
)
def test_run_script_outcomes(body: str, status: str, kind: str) -> None:
    result = run_script(fill_script(MODEL, body, "add"), timeout=3.0)
    assert result["status"] == status
    assert kind == "success" or real_kind(result) == kind
    if status == "failure":
        assert (result["passed"], result["total"]) == (0, 2)
