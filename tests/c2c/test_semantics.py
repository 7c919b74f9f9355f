# ruff: noqa: E501
"""Translator semantics: each construct's translation, run, computes what the Java computes.

One test per construct the differential tester (``bench/c2c_exec.py``) found wrong; the
expected values are the Java results, worked out by hand.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from plugins.c2c.detok import detokenize
from plugins.c2c.translate import translate


def run(java: str, func: str, *args: Any) -> Any:
    """Translate, detokenize, exec in a fresh namespace (with ``math``, as the tests' harness has) and call."""
    ns: dict[str, Any] = {"math": math}
    exec(compile(detokenize(translate(java)), "<t>", "exec"), ns)  # noqa: S102 - our own translation
    return ns[func](*args)


def test_split_right_shift_tokens() -> None:
    java = "static int f ( int a ) { return ( a > > 1 ) + ( a > > > 2 ) + ( 1 < < 3 ) ; }"
    assert run(java, "f", 40) == 20 + 10 + 8


def test_split_shift_assignment_tokens() -> None:
    java = "static int f ( int a ) { a > > = 2 ; a < < = 1 ; return a ; }"
    assert run(java, "f", 40) == 20


def test_split_generics_stay_generics() -> None:
    java = "static int f ( int n ) { List < List < Integer > > g = new ArrayList < > ( ) ; return n > > 1 ; }"
    out = translate(java)
    assert "g = [ ]" in out


def test_local_named_like_a_builtin_the_translation_calls() -> None:
    java = "static int f ( String s ) { int len = s . length ( ) ; int sum = 0 ; for ( int i = 0 ; i < len ; i ++ ) sum += i ; return len * 100 + sum ; }"
    assert run(java, "f", "abcd") == 406


def test_builtin_name_kept_when_not_called() -> None:
    java = "static int f ( int [ ] a ) { int sum = 0 ; for ( int x : a ) sum += x ; return sum ; }"
    assert "sum = 0" in translate(java)
    assert run(java, "f", [1, 2, 3]) == 6


def test_python_keyword_as_variable() -> None:
    java = "static int f ( int in , int is ) { int lambda = in + is ; return lambda ; }"
    assert run(java, "f", 2, 3) == 5


def test_do_while_with_continue_terminates() -> None:
    java = "static int f ( int n ) { int i = 0 ; do { i ++ ; if ( i % 2 == 0 ) continue ; n -- ; } while ( i < 5 ) ; return n ; }"
    assert run(java, "f", 10) == 7


def test_range_with_double_bound() -> None:
    java = "static boolean isPrime ( int n ) { if ( n < 2 ) return false ; for ( int i = 2 ; i <= Math . sqrt ( n ) ; i ++ ) if ( n % i == 0 ) return false ; return true ; }"
    assert [run(java, "isPrime", n) for n in (2, 9, 13, 25, 29)] == [True, False, True, False, True]


def test_range_with_double_bound_strict() -> None:
    java = "static int f ( int n ) { int c = 0 ; for ( int i = 0 ; i < Math . sqrt ( n ) ; i ++ ) c ++ ; return c ; }"
    assert [run(java, "f", n) for n in (9, 10)] == [3, 4]


def test_clone_is_a_copy() -> None:
    java = "static int f ( int [ ] a ) { int [ ] b = a . clone ( ) ; b [ 0 ] = 99 ; return a [ 0 ] ; }"
    assert run(java, "f", [1, 2]) == 1


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("int [ ] b = Arrays . copyOfRange ( a , 1 , 3 ) ; return b [ 0 ] + b [ 1 ] ;", 5),
        ("int [ ] b = Arrays . copyOf ( a , 2 ) ; return b . length ;", 2),
        ("int [ ] b = a . clone ( ) ; return Arrays . equals ( a , b ) ? 1 : 0 ;", 1),
        ("return Arrays . stream ( a ) . sum ( ) ;", 10),
        ("return Arrays . stream ( a ) . max ( ) . getAsInt ( ) ;", 4),
        ("Arrays . fill ( a , 1 , 3 , 0 ) ; return a [ 0 ] + a [ 1 ] + a [ 2 ] + a [ 3 ] ;", 5),
    ],
)
def test_arrays_library(body: str, expected: int) -> None:
    java = f"static int f ( int [ ] a ) {{ {body} }}"
    assert run(java, "f", [1, 2, 3, 4]) == expected


def test_char_added_to_int_is_its_code() -> None:
    java = "static int f ( String s ) { int sum = 0 ; for ( int i = 0 ; i < s . length ( ) ; i ++ ) sum += s . charAt ( i ) ; return sum ; }"
    assert run(java, "f", "ab") == 97 + 98


def test_content_equals() -> None:
    java = "static boolean f ( String a , String b ) { return a . contentEquals ( b ) ; }"
    assert run(java, "f", "x", "x") is True


def test_map_get_of_missing_key_is_null() -> None:
    java = "static int f ( int [ ] a ) { HashMap < Integer , Integer > m = new HashMap < > ( ) ; for ( int x : a ) m . put ( x , m . get ( x ) == null ? 1 : m . get ( x ) + 1 ) ; return m . get ( a [ 0 ] ) ; }"
    assert run(java, "f", [3, 1, 3]) == 2


def test_range_named_variable_with_range_loop() -> None:
    java = "static int f ( int a , int b ) { int range = b - a ; int c = 0 ; for ( int i = 0 ; i <= range ; i ++ ) c ++ ; return c ; }"
    assert run(java, "f", 2, 5) == 4


def test_loop_variable_read_after_the_loop_keeps_the_java_value() -> None:
    java = "static int f ( int [ ] a , int n ) { int j ; for ( j = 0 ; j < n ; j ++ ) if ( a [ j ] == 0 ) break ; return j ; }"
    assert run(java, "f", [1, 2, 3], 3) == 3
    assert run(java, "f", [1, 0, 3], 3) == 1


def test_loop_variable_reassigned_after_the_loop_stays_a_range() -> None:
    java = "static int f ( int n ) { int i , s = 0 ; for ( i = 0 ; i < n ; i ++ ) s += i ; for ( i = 0 ; i < n ; i ++ ) s += i ; return s ; }"
    assert translate(java).count("in range") == 2
    assert run(java, "f", 4) == 12


def test_string_from_char_array() -> None:
    java = "static String f ( String s ) { char [ ] c = s . toCharArray ( ) ; Arrays . sort ( c ) ; return new String ( c ) + String . valueOf ( c ) ; }"
    assert run(java, "f", "cab") == "abcabc"


def test_queue_peek_is_the_head() -> None:
    java = "static int f ( ) { Queue < Integer > q = new LinkedList < > ( ) ; q . add ( 1 ) ; q . add ( 2 ) ; return q . peek ( ) ; }"
    assert run(java, "f") == 1


def test_stack_peek_is_the_top() -> None:
    java = "static int f ( ) { Stack < Integer > q = new Stack < > ( ) ; q . push ( 1 ) ; q . push ( 2 ) ; return q . peek ( ) ; }"
    assert run(java, "f") == 2


def test_string_builder_reverse_statement() -> None:
    java = "static String f ( String s ) { StringBuilder sb = new StringBuilder ( s ) ; sb . reverse ( ) ; return sb . toString ( ) ; }"
    assert run(java, "f", "abc") == "cba"


def test_sort_range_in_reverse_order() -> None:
    java = "static void f ( Integer [ ] a , int k ) { Arrays . sort ( a , 0 , k , Collections . reverseOrder ( ) ) ; }"
    arr = [1, 3, 2, 0]
    run(java, "f", arr, 3)
    assert arr == [3, 2, 1, 0]


def test_char_array_element_arithmetic() -> None:
    java = "static String f ( char [ ] s ) { s [ 0 ] ^= s [ 1 ] ; s [ 1 ] ^= s [ 0 ] ; s [ 0 ] ^= s [ 1 ] ; s [ 2 ] -- ; s [ 2 ] += 2 ; return String . valueOf ( s ) ; }"
    assert run(java, "f", ["a", "b", "c"]) == "bad"


def test_stack_empty_and_to_array() -> None:
    java = "static int f ( ) { Stack < Integer > s = new Stack < > ( ) ; s . push ( 4 ) ; return s . empty ( ) ? - 1 : ( int ) s . toArray ( ) [ 0 ] ; }"
    assert run(java, "f") == 4


def test_printf_formats(capsys: pytest.CaptureFixture[str]) -> None:
    java = 'static void f ( int a , int b ) { System . out . printf ( " % d - % d " , a , b ) ; System . out . printf ( " % d " , a ) ; }'
    run(java, "f", 3, 4)
    assert capsys.readouterr().out == "3-43"


def test_post_increment_in_if_condition_runs_on_both_branches() -> None:
    java = "static int f ( int c ) { int n ; if ( c ++ > 0 ) n = 1 ; else n = 2 ; return n * 100 + c ; }"
    assert [run(java, "f", c) for c in (0, 5)] == [201, 106]


def test_post_decrement_in_while_condition_when_the_test_fails() -> None:
    java = "static int f ( int n ) { int c = 0 ; while ( n -- > 0 ) c ++ ; return c * 100 + n ; }"
    assert run(java, "f", 3) == 300 - 1
    java_break = "static int f ( int n ) { int c = 0 ; while ( n -- > 0 ) { c ++ ; if ( c == 2 ) break ; } return c * 100 + n ; }"
    assert run(java_break, "f", 5) == 203


def test_switch_fall_through_and_default_in_the_middle() -> None:
    java = "static int f ( int n ) { int r = 0 ; switch ( n ) { case 1 : r += 1 ; case 2 : r += 2 ; break ; default : r = 9 ; break ; case 3 : return 7 ; } return r ; }"
    assert [run(java, "f", n) for n in (1, 2, 3, 4)] == [3, 2, 7, 9]


def test_variables_named_like_builtins_used_as_objects() -> None:
    java = "static int f ( int [ ] a ) { HashMap < Integer , Integer > map = new HashMap < > ( ) ; List < Integer > list = new ArrayList < > ( ) ; for ( int x : a ) { map . put ( x , 1 ) ; list . add ( x ) ; } int r = 0 ; for ( int v : map . values ( ) ) r += v ; return r * 10 + list . size ( ) ; }"
    assert run(java, "f", [1, 1, 2]) == 23


def test_string_buffer_insert_and_append() -> None:
    java = "static String f ( String s ) { StringBuffer sb = new StringBuffer ( s ) ; sb . append ( s ) ; sb . insert ( 1 , 'x' ) ; return sb . toString ( ) ; }"
    assert run(java, "f", "ab") == "axbab"


def test_string_plus_equals_number() -> None:
    java = 'static String f ( int n ) { String s = " " ; s += n + 1 ; return s ; }'
    assert run(java, "f", 4) == "5"


def test_char_as_array_index() -> None:
    java = "static int f ( String s ) { int [ ] occ = new int [ 128 ] ; for ( int i = 0 ; i < s . length ( ) ; i ++ ) { char c = s . charAt ( i ) ; occ [ c ] ++ ; } return occ [ 'a' ] ; }"
    assert run(java, "f", "abca") == 2


def test_list_remove_object_versus_index() -> None:
    java = "static int f ( ) { List < Character > l = new ArrayList < > ( ) ; l . add ( 'x' ) ; l . add ( 'y' ) ; l . remove ( ( Character ) 'x' ) ; List < Integer > m = new ArrayList < > ( ) ; m . add ( 5 ) ; m . add ( 6 ) ; m . remove ( 0 ) ; return l . size ( ) * 10 + m . get ( 0 ) ; }"
    assert run(java, "f") == 16


def test_undeclared_static_constants() -> None:
    java = "static double f ( int r ) { return PI * r * r ; }"
    assert abs(run(java, "f", 2) - math.pi * 4) < 1e-9
    declared = "static final double PI = 3 ; static double g ( int r ) { return PI * r ; }"
    assert run(declared, "g", 2) == 6
