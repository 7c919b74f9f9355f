# ruff: noqa: E501
"""Function-level constructs, checked the way TransCoder's unit-test scripts check a translation.

Each test translates one Java function, puts it in a module behind TransCoder's prelude with
the name in front of its first ``(`` replaced by ``f_filled`` (a plain string replace, as the
scripts do), calls ``f_filled`` and asserts what the Java returns (worked out by hand).
"""

from __future__ import annotations

from typing import Any

import pytest

from plugins.c2c.detok import detokenize
from plugins.c2c.translate import translate

PRELUDE = (
    "import math\nfrom math import *\nimport collections\nfrom collections import *\n"
    "import heapq\nimport itertools\nimport random\nimport sys\n\n"
)


def unit(java: str, *args: Any) -> Any:
    """``f_filled(*args)`` for the translation of ``java``, set up as a TransCoder test script does."""
    src = detokenize(translate(java))
    name = src.split("(", 1)[0].split()[-1]
    ns: dict[str, Any] = {"__name__": "__unit__"}
    exec(compile(PRELUDE + src.replace(name, "f_filled"), "<unit>", "exec"), ns)  # noqa: S102 - our translation
    return ns["f_filled"](*args)


# -- helpers and constants the function uses but does not define ------------------------------------
def test_undefined_swap_is_inlined() -> None:
    java = "void sortInWave ( int arr [ ] , int n ) { Arrays . sort ( arr ) ; for ( int i = 0 ; i < n - 1 ; i += 2 ) swap ( arr , i , i + 1 ) ; }"
    arr = [5, 1, 4, 2, 3]
    unit(java, arr, 5)
    assert arr == [2, 1, 4, 3, 5]


def test_undefined_sort_helper_is_defined_after_the_function() -> None:
    java = "static boolean find3 ( int A [ ] , int n , int sum ) { quickSort ( A , 0 , n - 1 ) ; for ( int i = 0 ; i < n - 2 ; i ++ ) { int l = i + 1 , r = n - 1 ; while ( l < r ) { if ( A [ i ] + A [ l ] + A [ r ] == sum ) return true ; else if ( A [ i ] + A [ l ] + A [ r ] < sum ) l ++ ; else r -- ; } } return false ; }"
    out = translate(java)
    assert out.startswith("def find3 (")  # the harness takes the first name before `(`
    assert unit(java, [12, 3, 4, 1, 6, 9], 6, 24) is True
    assert unit(java, [1, 2, 3], 3, 100) is False


def test_undefined_helpers_reverse_getmin_power() -> None:
    java = "static String solveIt ( String s , int [ ] a , int n ) { String r = reverse ( s ) ; return r + getMin ( a , n ) + power ( 2 , 10 ) ; }"
    assert unit(java, "abc", [5, 3, 9], 2) == "cba31024"


def test_declared_helper_is_not_redefined() -> None:
    java = "static int swap2 ( int a ) { return a ; } static int getMin ( int a [ ] , int n ) { return 7 ; } static int solveIt ( int a [ ] ) { return getMin ( a , 1 ) ; }"
    assert translate(java).count("def getMin") == 1


def test_undefined_constants_are_defined_after_the_function() -> None:
    java = "static int countPairs ( String s ) { int cnt [ ] = new int [ MAX_CHAR ] ; for ( int i = 0 ; i < s . length ( ) ; i ++ ) cnt [ s . charAt ( i ) ] ++ ; int ans = 0 ; for ( int i = 0 ; i < MAX_CHAR ; i ++ ) ans += cnt [ i ] * cnt [ i ] ; return ans % MOD ; }"
    out = translate(java)
    assert out.startswith("def countPairs (") and out.endswith("MAX_CHAR = 256 NEW_LINE MOD = 1000000007 NEW_LINE")
    assert unit(java, "aAbzz ") == 1 + 1 + 1 + 4 + 1


def test_declared_constant_is_kept() -> None:
    java = "static final int MAX_CHAR = 26 ; static int solveIt ( ) { return MAX_CHAR ; }"
    assert unit(java) == 26
    assert translate(java).count("MAX_CHAR =") == 1


# -- Java classes the function uses from elsewhere ------------------------------------------------------
def test_undeclared_pair_is_a_tuple() -> None:
    java = "static Pair < Double , Double > findFoot ( double a , double b ) { Pair < Double , Double > p = new Pair ( a , b ) ; double s = p . first + p . getSecond ( ) ; return new Pair ( s , p . second ) ; }"
    assert unit(java, 1.5, 2.0) == (3.5, 2.0)


def test_undeclared_point_in_a_set_counts_distinct_values() -> None:
    java = "static int countUnique ( int arr [ ] , int n ) { Set < Point > s = new HashSet < > ( ) ; for ( int i = 0 ; i < n ; i ++ ) for ( int j = 0 ; j < n ; j ++ ) s . add ( new Point ( arr [ i ] , arr [ j ] ) ) ; return s . size ( ) ; }"
    assert unit(java, [1, 1, 2], 3) == 4


def test_declared_pair_class_stays_a_class() -> None:
    java = "static class Pair { int first , second ; Pair ( int a , int b ) { first = a ; second = b ; } } static int solveIt ( ) { Pair p = new Pair ( 1 , 2 ) ; return p . first ; }"
    assert "Pair (" in translate(java)


def test_random_is_a_random_generator() -> None:
    java = "static int solveIt ( int n ) { Random r = new Random ( ) ; int x = r . nextInt ( n ) ; return x >= 0 && x < n ? 1 : 0 ; }"
    assert unit(java, 5) == 1


# -- lists, strings, names -----------------------------------------------------------------------------------
def test_list_index_of_missing_is_minus_one() -> None:
    java = "static int solveIt ( int x ) { List < Integer > l = new ArrayList < > ( ) ; l . add ( 3 ) ; l . add ( 5 ) ; l . add ( 3 ) ; return l . indexOf ( x ) * 10 + l . lastIndexOf ( x ) ; }"
    assert unit(java, 3) == 0 * 10 + 2
    assert unit(java, 7) == -10 - 1


def test_method_named_print_does_not_hide_the_builtin() -> None:
    java = "static void print ( int n , int k ) { int rem = 1 ; for ( int i = 0 ; i < k ; i ++ ) { System . out . print ( ( 10 * rem ) / n ) ; rem = ( 10 * rem ) % n ; } }"
    assert translate(java).startswith("def Print (")
    assert unit(java, 4, 3) is None


def test_post_increment_in_a_call_argument_runs_once() -> None:
    java = 'static String solveIt ( String str ) { String result = " " ; int start = 0 ; while ( start < str . length ( ) ) result += str . charAt ( start ++ ) ; return result ; }'
    assert unit(java, "abcd") == "abcd"


# -- char arithmetic -------------------------------------------------------------------------------------------
def test_int_loop_over_char_bounds() -> None:
    java = "static String sortString ( String str , int n ) { String new_str = \" \" ; for ( int i = ' a ' ; i <= ' z ' ; i ++ ) for ( int j = 0 ; j < n ; j ++ ) if ( str . charAt ( j ) == i ) new_str += str . charAt ( j ) ; return new_str ; }"
    assert unit(java, "dcab0", 5) == "abcd"


def test_char_loop_variable() -> None:
    java = "static int solveIt ( ) { int s = 0 ; for ( char c = ' a ' ; c <= ' e ' ; c ++ ) s += c ; return s ; }"
    assert unit(java) == sum(range(97, 102))


def test_boxed_character_arithmetic() -> None:
    java = "static int solveIt ( String s ) { int r = 0 ; for ( Character c : s . toCharArray ( ) ) r += c - ' a ' ; return r ; }"
    assert unit(java, "abd") == 0 + 1 + 3


def test_stack_of_characters_peek_arithmetic() -> None:
    java = "static int solveIt ( String s ) { Stack < Character > st = new Stack < > ( ) ; for ( int i = 0 ; i < s . length ( ) ; i ++ ) st . push ( s . charAt ( i ) ) ; return st . peek ( ) - ' a ' + st . get ( 0 ) ; }"
    assert unit(java, "bd") == 3 + ord("b")


def test_int_expression_narrowed_to_char() -> None:
    java = "static String solveIt ( int i ) { char c = ' a ' + 2 ; char e = 65 ; return \" \" + c + e ; }"
    assert unit(java, 0) == "cA"


def test_xor_assignment_on_char_array_element() -> None:
    java = "static String solveIt ( String s ) { char [ ] ch = s . toCharArray ( ) ; ch [ 0 ] ^= 32 ; ch [ 1 ] += 1 ; return new String ( ch ) ; }"
    assert unit(java, "abc") == "Acc"


def test_list_insert_at_index_and_deque_front() -> None:
    java = "static int solveIt ( int n ) { Vector < Integer > v = new Vector < > ( ) ; v . add ( n ) ; v . add ( 0 , 5 ) ; Deque < Integer > d = new ArrayDeque < > ( ) ; d . addLast ( 1 ) ; d . addFirst ( 3 ) ; return v . elementAt ( 0 ) * 100 + v . get ( 1 ) * 10 + d . peekFirst ( ) ; }"
    assert unit(java, 7) == 500 + 70 + 3


def test_integer_radix_strings() -> None:
    java = 'static String solveIt ( int n ) { return Integer . toBinaryString ( n ) + " " + Integer . toHexString ( n ) + Integer . toOctalString ( n ) ; }'
    assert unit(java, 10) == "1010a12"


def test_map_lookups_compared_with_each_other_do_not_raise() -> None:
    java = "static boolean solveIt ( String s , String t ) { HashMap < Character , Integer > m = new HashMap < > ( ) ; for ( int i = 0 ; i < s . length ( ) ; i ++ ) m . put ( s . charAt ( i ) , 1 ) ; return m . get ( t . charAt ( 0 ) ) == m . get ( t . charAt ( 1 ) ) ; }"
    assert unit(java, "ab", "xy") is True  # both missing: null == null
    assert unit(java, "ab", "ay") is False


def test_overflow_a_loop_waits_for() -> None:
    java = "public static int findMaxValue ( ) { int res = 2 ; long fact = 2 ; while ( true ) { if ( fact < 0 ) break ; res ++ ; fact = fact * res ; } return res - 1 ; }"
    assert unit(java) == 20  # 21! wraps negative in a long
    java = "static int solveIt ( int n ) { int p = 1 ; for ( int i = 0 ; i < n ; i ++ ) { p *= 3 ; if ( p < 0 ) return i ; } return - 1 ; }"
    assert unit(java, 50) == 19  # 3**20 > 2**31 wraps negative in an int
    assert "%" not in translate("static int solveIt ( int n ) { int p = 1 ; p = p * n ; return p ; }")
    # a sign test that does not end a loop is not waiting for a wrap: no wrapping (the references do not wrap)
    java = "static int solveIt ( int [ ] a ) { int m = 1 , best = 0 ; for ( int x : a ) { m = m * x ; best = Math . max ( best , m ) ; if ( m <= 0 ) m = 1 ; } return best ; }"
    assert unit(java, [99] * 6) == 99**6


def test_string_builder_set_and_delete_char() -> None:
    java = "static String solveIt ( String s , int i ) { StringBuilder sb = new StringBuilder ( s ) ; sb . setCharAt ( i , ' z ' ) ; sb . deleteCharAt ( 0 ) ; return sb . toString ( ) ; }"
    assert unit(java, "abcd", 2) == "bzd"


def test_string_equals_ignore_case_and_concat() -> None:
    java = "static boolean solveIt ( String s , String t ) { String u = s . concat ( t ) ; return s . equalsIgnoreCase ( t ) && u . length ( ) == 4 ; }"
    assert unit(java, "Ab", "aB") is True


def test_collections_and_arrays_utilities() -> None:
    java = "static int solveIt ( int [ ] a , int x ) { Arrays . sort ( a ) ; List < Integer > l = new ArrayList < > ( ) ; l . add ( 1 ) ; l . add ( 2 ) ; Collections . swap ( l , 0 , 1 ) ; return Arrays . binarySearch ( a , x ) * 100 + Collections . frequency ( l , 1 ) * 10 + l . get ( 0 ) ; }"
    assert unit(java, [5, 1, 9], 5) == 100 + 10 + 2
    assert unit(java, [5, 1, 9], 6) == -300 + 10 + 2  # missing: -(insertion point 2) - 1


def test_math_floor_div_mod_signum() -> None:
    java = "static double solveIt ( int a , int b ) { return Math . floorDiv ( a , b ) * 100 + Math . floorMod ( a , b ) * 10 + Math . signum ( ( double ) a ) ; }"
    assert unit(java, -7, 2) == -400 + 10 - 1.0


def test_set_with_initial_capacity_and_sorted_set_ends() -> None:
    java = "static int solveIt ( int [ ] a , int cap ) { HashSet < Integer > s = new HashSet < > ( cap ) ; TreeSet < Integer > t = new TreeSet < > ( ) ; for ( int x : a ) { s . add ( x ) ; t . add ( x ) ; } return s . size ( ) * 100 + t . first ( ) * 10 + t . last ( ) ; }"
    assert unit(java, [3, 1, 3, 2], 10) == 300 + 10 + 3


def java_returns(java: str, *params: list[Any]) -> list[Any]:
    """What the Java function returns on each parameter list (the oracle, ``bench.c2c_exec_check``)."""
    from bench.c2c_exec_check import run_java, signature

    sig = signature(java)
    assert sig is not None
    results = run_java({"f": (java, sig, [list(p) for p in params])})["f"]["results"]
    return [r["ret"] for r in results]


@pytest.mark.usefixtures("jdk")
def test_anonymous_map_whose_get_has_a_default() -> None:
    # `new HashMap < > ( ) { get ( key ) { if ( ! containsKey ( key ) ) return 0 ; return super . get ( key ) ; } }`
    java = "static int countDistinctWindows ( int arr [ ] , int n ) { HashMap < Integer , Integer > vis = new HashMap < Integer , Integer > ( ) { @ Override public Integer get ( Object key ) { if ( ! containsKey ( key ) ) return 0 ; return super . get ( key ) ; } } ; for ( int i = 0 ; i < n ; ++ i ) vis . put ( arr [ i ] , 1 ) ; int k = vis . size ( ) ; vis . clear ( ) ; int ans = 0 , right = 0 , window = 0 ; for ( int left = 0 ; left < n ; ++ left ) { while ( right < n && window < k ) { vis . put ( arr [ right ] , vis . get ( arr [ right ] ) + 1 ) ; if ( vis . get ( arr [ right ] ) == 1 ) ++ window ; ++ right ; } if ( window == k ) ans += ( n - right + 1 ) ; vis . put ( arr [ left ] , vis . get ( arr [ left ] ) - 1 ) ; if ( vis . get ( arr [ left ] ) == 0 ) -- window ; } return ans ; }"
    ternary = "static int solveIt ( int [ ] a ) { Map < Integer , Integer > m = new HashMap < > ( ) { public Integer get ( Object key ) { return containsKey ( key ) ? super . get ( key ) : - 1 ; } } ; for ( int x : a ) m . put ( x , m . get ( x ) + 2 ) ; return m . get ( a [ 0 ] ) * 100 + m . size ( ) ; }"
    params = [[[2, 1, 3, 2, 3], 5], [[13, 39, 49, 13], 4], [[7], 1]]
    assert [unit(java, *p) for p in params] == java_returns(java, *params)
    assert [unit(ternary, *p) for p in ([[4, 4, 5]], [[9]])] == java_returns(ternary, [[4, 4, 5]], [[9]])
    assert "containsKey" not in translate(java) and "def get" not in translate(java)


@pytest.mark.usefixtures("jdk")
def test_undefined_modular_power_under_the_scripts_math_import() -> None:
    # TransCoder's header does `from math import *`: a bare `pow ( x , y , p )` is math.pow there
    java = "static int solveIt ( int A , int B , int C , int M ) { int res = power ( B , C , M - 1 ) ; return power ( A , res , M ) ; }"
    gfg_power = "static int power ( int x , int y , int p ) { int res = 1 ; x = x % p ; while ( y > 0 ) { if ( ( y & 1 ) == 1 ) res = ( res * x ) % p ; y = y >> 1 ; x = ( x * x ) % p ; } return res ; } "
    params = [[49, 7, 63, 7], [31, 75, 82, 61], [2, 10, 0, 13], [5, 3, 4, 2]]
    assert [unit(java, *p) for p in params] == java_returns(gfg_power + java, *params)


def test_request_cut_off_inside_its_last_member() -> None:
    # the function is whole; the `main` after it stops inside a string literal (a `}` in a string)
    java = "static int countOpen ( String s ) { int n = 0 ; for ( int i = 0 ; i < s . length ( ) ; i ++ ) if ( s . charAt ( i ) == ' { ' ) n ++ ; return n ; } public static void main ( String [ ] args ) { String expr = \" } }"
    assert translate(java).startswith("def countOpen (")
    assert unit(java, "{a{}") == 2
