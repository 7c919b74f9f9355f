# ruff: noqa: E501
"""Function-level conventions of the GeeksforGeeks reference Pythons that unit tests compare with.

TransCoder's unit tests compare the translation with the reference Python (``f_gold``), not
with the Java, so where the references follow one convention the translation follows it.
"""

from __future__ import annotations

from plugins.c2c.detok import detokenize
from plugins.c2c.translate import translate
from tests.c2c.test_functions_unit import unit


def test_returned_formula_divides_like_the_references() -> None:
    java = "static int seiresSum ( int n , int [ ] a ) { return n * ( a [ 0 ] * a [ 0 ] - a [ 2 * n - 1 ] * a [ 2 * n - 1 ] ) / ( 2 * n - 1 ) ; }"
    # the reference: return ( n * ( a[0]*a[0] - a[2n-1]*a[2n-1] ) / ( 2 * n - 1 ) )
    assert unit(java, 2, [3, 1, 2, 5]) == 2 * (9 - 25) / 3


def test_other_integer_divisions_stay_floor() -> None:
    java = "static int digits ( int n , int k ) { int c = 0 ; while ( n > 0 ) { n = n / 10 ; c ++ ; } int [ ] a = new int [ 4 ] ; a [ k / 2 ] = c ; return a [ 1 ] + c / 2 ; }"
    src = detokenize(translate(java))
    assert "/ 10" not in src.replace("// 10", "")
    assert unit(java, 12345, 3) == 5 + 2


def test_program_keeps_java_division_in_returns() -> None:
    java = "public class Main { static int f ( int a , int b ) { return a / b ; } public static void main ( String [ ] args ) { System . out . println ( f ( 7 , 2 ) ) ; } }"
    assert "a // b" in detokenize(translate(java))


def test_iterator_loop_becomes_a_for_loop() -> None:
    java = "static int total ( ArrayList < Integer > a ) { int s = 0 ; Iterator < Integer > it = a . iterator ( ) ; while ( it . hasNext ( ) ) { int x = it . next ( ) ; if ( x > 2 ) continue ; s += 10 * x ; } Iterator < Integer > i2 = a . iterator ( ) ; s += i2 . next ( ) ; return s ; }"
    assert "for x in it" in detokenize(translate(java))
    assert unit(java, [1, 5, 2, 3]) == 30 + 1


def test_printing_procedure_with_a_constant_final_return_returns_none() -> None:
    # TransCoder's Java gave void GeeksforGeeks procedures `int` and `return 0 ;`; the references return None
    java = "static int printUpTo ( int n ) { for ( int i = 0 ; i < n ; i ++ ) System . out . print ( i + \" ▁ \" ) ; return 0 ; }"
    assert unit(java, 3) is None
    kept = "static int printSign ( int a ) { System . out . println ( a ) ; if ( a > 0 ) return 1 ; return - 1 ; }"
    assert unit(kept, -2) == -1
    assert unit("static int zero ( int a ) { return 0 ; }", 5) == 0


def test_returned_ratio_of_a_double_method_divides_with_slash() -> None:
    java = "static double Area ( int b1 , int b2 , int h ) { return ( ( b1 + b2 ) / 2 ) * h ; }"
    assert unit(java, 3, 4, 2) == 7.0  # the reference: return ( ( b1 + b2 ) / 2 ) * h
    assert "// 2" in detokenize(translate(java.replace("static double", "static int")))


def test_random_next_boolean_is_a_fair_coin() -> None:
    java = "static int coinFlips ( int n ) { Random r = new Random ( ) ; int c = 0 ; for ( int i = 0 ; i < n ; i ++ ) if ( r . nextBoolean ( ) ) c ++ ; return c ; }"
    heads = unit(java, 2000)
    assert 700 < heads < 1300  # random() alone (a float, always true) gave 2000


def test_pair_whose_fields_are_assigned_is_a_list() -> None:
    java = "static int sumPair ( int a , int b ) { Pair p = new Pair ( a , b ) ; p . first = p . first + 1 ; p . second += 2 ; return p . first + p . second ; }"
    assert unit(java, 3, 4) == 10  # a tuple raised TypeError on the assignment
    assert "( a , b )" in detokenize(translate("static int firstOf ( int a , int b ) { Pair p = new Pair ( a , b ) ; return p . first ; }"))
