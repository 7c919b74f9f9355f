"""The guard (``plugins.c2c.guard``): every C2C answer compiles, repaired per statement, then per
function, never the whole program replaced by nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.c2c_parse import line_repair
from plugins.c2c.detok import compiles, detokenize
from plugins.c2c.guard import compile_error, ensure_compiles, rows_of, tokens_of
from plugins.c2c.task import MINIMAL_PROGRAM, clean_request, finalize, safe_translate

GOOD = (
    "def gcd ( a , b ) : NEW_LINE INDENT if a == 0 : NEW_LINE INDENT return b NEW_LINE DEDENT "
    "return gcd ( b % a , a ) NEW_LINE DEDENT print ( gcd ( 12 , 18 ) ) NEW_LINE"
)


def run_source_text(source: str, stdin: str = "") -> str:
    """Run ``source`` as a script on ``stdin``; its stdout (it must end normally)."""
    proc = subprocess.run([sys.executable, "-c", source], input=stdin, capture_output=True, text=True, timeout=20)
    assert proc.returncode == 0, proc.stderr + "\n" + source
    return proc.stdout


def lines(tokens: str | None) -> list[str]:
    assert tokens is not None
    return detokenize(tokens).splitlines()


@pytest.mark.parametrize(
    "tokens",
    [
        GOOD,
        "MAX = 100 NEW_LINE def lim ( ) : NEW_LINE INDENT for i in range ( MAX ) : NEW_LINE INDENT "
        "if i > 3 : NEW_LINE INDENT break NEW_LINE DEDENT DEDENT return MAX NEW_LINE DEDENT",
        "class A : NEW_LINE INDENT def f ( self ) : NEW_LINE INDENT return 1 NEW_LINE DEDENT DEDENT",
    ],
)
def test_rows_round_trip_and_compiling_input_kept(tokens: str) -> None:
    assert detokenize(tokens_of(rows_of(tokens))) == detokenize(tokens)
    assert ensure_compiles(tokens) == (tokens, ())


def test_broken_block_header_goes_with_its_block() -> None:
    # the old line repair made the header `pass` and left its block orphaned (IndentationError)
    broken = (
        "def f ( q ) : NEW_LINE INDENT if ( q . reduce ( 0 , Integer , : : sum ) > 1 ) : NEW_LINE INDENT "
        "return True NEW_LINE DEDENT return False NEW_LINE DEDENT print ( f ( [ ] ) ) NEW_LINE"
    )
    assert not compiles(line_repair(broken))
    out = ensure_compiles(broken)
    assert lines(out.tokens) == ["def f ( q ) :", "    pass", "    return False", "print ( f ( [ ] ) )"]
    assert len(out.repairs) == 1 and out.repairs[0].startswith("lines 2-3 -> pass")


def test_unexpected_indent_takes_the_header_that_should_have_opened_it() -> None:
    broken = "def f ( ) : NEW_LINE INDENT x = 1 NEW_LINE INDENT y = 2 NEW_LINE DEDENT return x NEW_LINE DEDENT"
    assert compile_error(broken).kind == "IndentationError"
    assert lines(ensure_compiles(broken).tokens) == ["def f ( ) :", "    pass", "    return x"]


def test_block_without_body_gets_pass() -> None:
    broken = "def f ( x ) : NEW_LINE INDENT if x : NEW_LINE return 1 NEW_LINE DEDENT"
    assert lines(ensure_compiles(broken).tokens) == ["def f ( x ) :", "    if x :", "        pass", "    return 1"]


def test_symbol_table_errors_are_caught_too() -> None:
    # `ast.parse` accepts a `break` outside a loop; `compile` (and the judge's interpreter) does not
    broken = "x = 1 NEW_LINE if x : NEW_LINE INDENT print ( x ) NEW_LINE break NEW_LINE DEDENT"
    assert compile_error(broken).message == "'break' outside loop"
    assert lines(ensure_compiles(broken).tokens) == ["x = 1", "if x :", "    print ( x )", "    pass"]


def test_broken_signature_keeps_the_body_and_the_decorator() -> None:
    broken = (
        "class Main : NEW_LINE INDENT @ staticmethod NEW_LINE def ( args ) : NEW_LINE INDENT "
        "print ( 1 ) NEW_LINE DEDENT DEDENT Main . unparsed ( ) NEW_LINE"
    )
    out = ensure_compiles(broken)
    assert lines(out.tokens)[1:4] == [
        "    @ staticmethod",
        "    def unparsed ( * args , ** kwargs ) :",
        "        print ( 1 )",
    ]


def test_many_broken_lines_fall_back_to_the_function_body_only() -> None:
    bad = " ".join(f"x{i} = = {i} NEW_LINE" for i in range(20))
    broken = (
        f"class A : NEW_LINE INDENT def bad ( self , n ) : NEW_LINE INDENT {bad} return n NEW_LINE DEDENT "
        "def good ( self , n ) : NEW_LINE INDENT return n + 1 NEW_LINE DEDENT DEDENT "
        "print ( A ( ) . good ( 1 ) ) NEW_LINE"
    )
    out = ensure_compiles(broken)
    assert lines(out.tokens) == [
        "class A :",
        "    def bad ( self , n ) :",
        "        pass",
        "    def good ( self , n ) :",
        "        return n + 1",
        "print ( A ( ) . good ( 1 ) )",
    ]
    assert any(r.startswith("function bad") for r in out.repairs)
    assert run_source_text(detokenize(out.tokens)) == "2\n"


def test_module_level_lines_are_repaired_one_by_one() -> None:
    broken = "x = 1 NEW_LINE " + " ".join("y = = ( NEW_LINE" for _ in range(30)) + " print ( x ) NEW_LINE"
    assert lines(ensure_compiles(broken).tokens) == ["x = 1", *["pass"] * 30, "print ( x )"]


def test_an_error_without_a_line_keeps_the_statements_that_compile() -> None:
    # a NUL character: `compile` names no line; only the statements that compile on their own stay
    broken = "x = 1 NEW_LINE y = '\0' NEW_LINE print ( x ) NEW_LINE"
    assert compile_error(broken).row == -1
    out = ensure_compiles(broken)
    assert lines(out.tokens) == ["x = 1", "print ( x )"]
    assert out.repairs == ("only the 2 lines of top-level statements that compile kept",)
    assert ensure_compiles("y = '\0' NEW_LINE").tokens is None
    assert finalize("y = '\0' NEW_LINE") == MINIMAL_PROGRAM


def test_a_request_the_old_repair_left_unparsable_keeps_its_other_methods() -> None:
    # `Integer : : sum`: a method reference split in two; the translator copies it, the `if` it sits
    # in no longer parses, and the old line repair left its block orphaned (IndentationError)
    java = (
        "import java.util.* ; public class Main { static boolean heavy ( List < Integer > q , int w ) { "
        "if ( q . stream ( ) . reduce ( 0 , Integer : : sum ) > w ) { return true ; } return false ; } "
        "public static void main ( String [ ] args ) { Scanner sc = new Scanner ( System . in ) ; "
        "int n = sc . nextInt ( ) ; System . out . println ( n * 2 ) ; } }"
    )
    out = safe_translate(clean_request("k", java))
    assert compiles(out)
    assert "def heavy ( q , w ) :" in lines(out)
    assert run_source_text(detokenize(out), "21\n") == "42\n"
