# ruff: noqa: E501
"""Translator: exact AVATAR token output on hand-written Java snippets."""

from __future__ import annotations

import pytest

from plugins.c2c.detok import compiles
from plugins.c2c.translate import Style, style_variants, translate

CASES = [
    (
        "gcd",
        "static int gcd ( int a , int b ) { if ( a == 0 ) return b ; return gcd ( b % a , a ) ; }",
        "def gcd ( a , b ) : NEW_LINE INDENT if ( a == 0 ) : NEW_LINE INDENT return b NEW_LINE DEDENT return gcd ( b % a , a ) NEW_LINE DEDENT",
    ),
    (
        "sum_to",
        "static int sumTo ( int n ) { int s = 0 ; for ( int i = 1 ; i <= n ; i ++ ) s += i ; return s ; }",
        "def sumTo ( n ) : NEW_LINE INDENT s = 0 NEW_LINE for i in range ( 1 , n + 1 ) : NEW_LINE INDENT s += i NEW_LINE DEDENT return s NEW_LINE DEDENT",
    ),
    (
        "down",
        'static void down ( int arr [ ] , int n ) { for ( int i = n - 1 ; i >= 0 ; i -- ) System . out . print ( arr [ i ] + " ▁ " ) ; System . out . println ( ) ; }',
        'def down ( arr , n ) : NEW_LINE INDENT for i in range ( n - 1 , - 1 , - 1 ) : NEW_LINE INDENT print ( arr [ i ] , end = " ▁ " ) NEW_LINE DEDENT print ( ) NEW_LINE DEDENT',
    ),
    (
        "two_vars",
        "static boolean isPal ( String s ) { for ( int i = 0 , j = s . length ( ) - 1 ; i < j ; i ++ , j -- ) { if ( s . charAt ( i ) != s . charAt ( j ) ) return false ; } return true ; }",
        "def isPal ( s ) : NEW_LINE INDENT i = 0 NEW_LINE j = len ( s ) - 1 NEW_LINE while ( i < j ) : NEW_LINE INDENT if ( s [ i ] != s [ j ] ) : NEW_LINE INDENT return False NEW_LINE DEDENT i += 1 NEW_LINE j -= 1 NEW_LINE DEDENT return True NEW_LINE DEDENT",
    ),
    (
        "ternary_div",
        "static int half ( int a , double b ) { int h = a / 2 ; double q = b / 2 ; return h > 0 ? h : - h ; }",
        "def half ( a , b ) : NEW_LINE INDENT h = a // 2 NEW_LINE q = b / 2 NEW_LINE return h if h > 0 else - h NEW_LINE DEDENT",
    ),
    (
        "chars",
        "static int code ( String s , int i ) { char c = s . charAt ( i ) ; return c - 'a' + 1 ; }",
        "def code ( s , i ) : NEW_LINE INDENT c = s [ i ] NEW_LINE return ord ( c ) - ord ( 'a' ) + 1 NEW_LINE DEDENT",
    ),
    (
        "println_concat",
        'static void show ( int x , int y ) { System . out . println ( " x ▁ = ▁ " + x + " , ▁ y ▁ = ▁ " + y ) ; }',
        'def show ( x , y ) : NEW_LINE INDENT print ( " x ▁ = ▁ " , x , " , ▁ y ▁ = ▁ " , y ) NEW_LINE DEDENT',
    ),
    (
        "arrays",
        "static int grid ( int n , int m ) { int [ ] a = new int [ n ] ; boolean seen [ ] = new boolean [ n + 1 ] ; int [ ] [ ] dp = new int [ n ] [ m ] ; int b [ ] = { 1 , 2 , 3 } ; return a . length + dp [ 0 ] . length ; }",
        "def grid ( n , m ) : NEW_LINE INDENT a = [ 0 ] * n NEW_LINE seen = [ False ] * ( n + 1 ) NEW_LINE dp = [ [ 0 ] * m for i in range ( n ) ] NEW_LINE b = [ 1 , 2 , 3 ] NEW_LINE return len ( a ) + len ( dp [ 0 ] ) NEW_LINE DEDENT",
    ),
    (
        "switch",
        'static String name ( int d ) { String r ; switch ( d ) { case 1 : case 7 : r = " weekend " ; break ; case 3 : r = " mid " ; break ; default : r = " other " ; } return r ; }',
        'def name ( d ) : NEW_LINE INDENT if ( d == 1 or d == 7 ) : NEW_LINE INDENT r = " weekend " NEW_LINE DEDENT elif ( d == 3 ) : NEW_LINE INDENT r = " mid " NEW_LINE DEDENT else : NEW_LINE INDENT r = " other " NEW_LINE DEDENT return r NEW_LINE DEDENT',
    ),
    (
        "do_while",
        "static int digits ( int n ) { int c = 0 ; do { c ++ ; n /= 10 ; } while ( n > 0 ) ; return c ; }",
        "def digits ( n ) : NEW_LINE INDENT c = 0 NEW_LINE while ( True ) : NEW_LINE INDENT c += 1 NEW_LINE n //= 10 NEW_LINE if not ( n > 0 ) : NEW_LINE INDENT break NEW_LINE DEDENT DEDENT return c NEW_LINE DEDENT",
    ),
    (
        "map",
        "static int freq ( int arr [ ] , int n ) { HashMap < Integer , Integer > mp = new HashMap < > ( ) ; for ( int i = 0 ; i < n ; i ++ ) { if ( mp . containsKey ( arr [ i ] ) ) mp . put ( arr [ i ] , mp . get ( arr [ i ] ) + 1 ) ; else mp . put ( arr [ i ] , 1 ) ; } return mp . size ( ) ; }",
        "def freq ( arr , n ) : NEW_LINE INDENT mp = { } NEW_LINE for i in range ( n ) : NEW_LINE INDENT if ( arr [ i ] in mp ) : NEW_LINE INDENT mp [ arr [ i ] ] = mp [ arr [ i ] ] + 1 NEW_LINE DEDENT else : NEW_LINE INDENT mp [ arr [ i ] ] = 1 NEW_LINE DEDENT DEDENT return len ( mp ) NEW_LINE DEDENT",
    ),
    (
        "math_list",
        "static double f ( ArrayList < Integer > v ) { v . add ( 3 ) ; Collections . sort ( v ) ; return Math . sqrt ( Math . max ( v . get ( 0 ) , Integer . MAX_VALUE ) ) ; }",
        "def f ( v ) : NEW_LINE INDENT v . append ( 3 ) NEW_LINE v . sort ( ) NEW_LINE return math . sqrt ( max ( v [ 0 ] , sys . maxsize ) ) NEW_LINE DEDENT",
    ),
    (
        "main",
        "class GFG { static int sq ( int x ) { return x * x ; } public static void main ( String [ ] args ) { int n = 4 ; System . out . println ( sq ( n ) ) ; } }",
        'def sq ( x ) : NEW_LINE INDENT return x * x NEW_LINE DEDENT if __name__ == " __main__ " : NEW_LINE INDENT n = 4 NEW_LINE print ( sq ( n ) ) NEW_LINE DEDENT',
    ),
    (
        "while_continue",
        "static int odd ( int n ) { int c = 0 ; for ( int i = 0 ; i < n ; i ++ ) { if ( i % 2 == 0 ) continue ; c += i ; i += 0 ; } return c ; }",
        "def odd ( n ) : NEW_LINE INDENT c = 0 NEW_LINE i = 0 NEW_LINE while ( i < n ) : NEW_LINE INDENT if ( i % 2 == 0 ) : NEW_LINE INDENT i += 1 NEW_LINE continue NEW_LINE DEDENT c += i NEW_LINE i += 0 NEW_LINE i += 1 NEW_LINE DEDENT return c NEW_LINE DEDENT",
    ),
    (
        "field",
        "static int MAX = 100 ; static int lim ( ) { return MAX ; }",
        "MAX = 100 NEW_LINE def lim ( ) : NEW_LINE INDENT return MAX NEW_LINE DEDENT",
    ),
]


@pytest.mark.parametrize(("name", "java", "expected"), CASES, ids=[c[0] for c in CASES])
def test_translation_is_exact(name: str, java: str, expected: str) -> None:
    out = translate(java)
    assert out == expected
    assert compiles(out)


def test_style_switches_change_only_their_construct() -> None:
    java = CASES[1][1]  # sumTo: a counting loop and a `+=`
    styled = translate(java, Style(semicolons=True, cond_parens=False, range_zero=True))
    assert styled == (
        "def sumTo ( n ) : NEW_LINE INDENT s = 0 ; NEW_LINE for i in range ( 1 , n + 1 ) : NEW_LINE "
        "INDENT s += i ; NEW_LINE DEDENT return s ; NEW_LINE DEDENT"
    )
    assert translate(CASES[0][1], Style(cond_parens=False)) == (
        "def gcd ( a , b ) : NEW_LINE INDENT if a == 0 : NEW_LINE INDENT return b NEW_LINE DEDENT "
        "return gcd ( b % a , a ) NEW_LINE DEDENT"
    )


def test_integer_division_styles() -> None:
    java = "static int half ( int a , double b ) { int h = a / 2 ; double q = b / 2 ; return h ; }"
    assert "h = a // 2 NEW_LINE q = b / 2" in translate(java)
    assert "h = int ( a / 2 ) NEW_LINE q = b / 2" in translate(java, Style(int_cast_div=True))


def test_array_styles() -> None:
    java = "static void g ( int n , int m ) { int [ ] [ ] dp = new int [ n ] [ m ] ; }"
    assert (
        translate(java) == "def g ( n , m ) : NEW_LINE INDENT dp = [ [ 0 ] * m for i in range ( n ) ] NEW_LINE DEDENT"
    )
    assert translate(java, Style(comp_array=True)) == (
        "def g ( n , m ) : NEW_LINE INDENT dp = [ [ 0 for j in range ( m ) ] for i in range ( n ) ] NEW_LINE DEDENT"
    )


def test_increment_styles() -> None:
    java = "static void g ( int n ) { n ++ ; -- n ; }"
    assert translate(java) == "def g ( n ) : NEW_LINE INDENT n += 1 NEW_LINE n -= 1 NEW_LINE DEDENT"
    assert translate(java, Style(expand_incr=True)) == (
        "def g ( n ) : NEW_LINE INDENT n = n + 1 NEW_LINE n = n - 1 NEW_LINE DEDENT"
    )


def test_every_variant_flips_one_switch() -> None:
    variants = style_variants()
    assert set(variants) == set(Style.__dataclass_fields__)
    for name, style in variants.items():
        assert getattr(style, name) != getattr(Style(), name)


def test_empty_method_body_gets_pass() -> None:
    assert translate("static void nop ( ) { }") == "def nop ( ) : NEW_LINE INDENT pass NEW_LINE DEDENT"


def test_postfix_increment_inside_an_expression_follows_the_statement() -> None:
    out = translate("static void g ( int a [ ] , int i ) { a [ i ++ ] = 5 ; }")
    assert out == "def g ( a , i ) : NEW_LINE INDENT a [ i ] = 5 NEW_LINE i += 1 NEW_LINE DEDENT"


def test_side_effect_in_a_loop_header_runs_inside_the_loop() -> None:
    out = translate("static int g ( int k ) { int s = 0 ; while ( k -- > 0 ) { s += k ; } return s ; }")
    assert out == (
        "def g ( k ) : NEW_LINE INDENT s = 0 NEW_LINE while ( k > 0 ) : NEW_LINE INDENT k -= 1 NEW_LINE "
        "s += k NEW_LINE DEDENT return s NEW_LINE DEDENT"
    )
    assert compiles(out)


def test_decision_sites_can_be_overridden_one_by_one() -> None:
    from plugins.c2c.translate import translate_with_sites

    java = "static int f ( int a , int b ) { int mid = ( a + b ) / 2 ; a /= 3 ; return mid / b ; }"
    out, sites = translate_with_sites(java)
    assert out == (
        "def f ( a , b ) : NEW_LINE INDENT mid = ( a + b ) // 2 NEW_LINE a //= 3 NEW_LINE return mid / b NEW_LINE DEDENT"
    )  # a function's returned ratio by a variable divides with `/`, as the references do
    assert [(s.index, s.kind, s.java, s.default) for s in sites] == [
        (0, "div", "int mid = ( a + b ) / 2 ;", "floor"),
        (1, "div", "a /= 3 ;", "floor"),
        (2, "div", "return mid / b ;", "true"),
    ]
    assert translate(java, choices={0: "true", 1: "cast"}) == (
        "def f ( a , b ) : NEW_LINE INDENT mid = ( a + b ) / 2 NEW_LINE a = int ( a / 3 ) NEW_LINE "
        "return mid / b NEW_LINE DEDENT"
    )


def test_arrays_sort_with_a_key_comparator_in_a_function() -> None:
    from bench.c2c_kinds import java_tokens
    from plugins.c2c.detok import detokenize

    out = detokenize(
        translate(java_tokens("static void f(String[] a) { Arrays.sort(a, Comparator.comparing(String::length)); }"))
    )
    assert "a . sort ( key = len )" in out
    out = detokenize(
        translate(java_tokens("static void f(Integer[] a) { Arrays.sort(a, Collections.reverseOrder()); }"))
    )
    assert "a . sort ( reverse = True )" in out


def test_two_policy_apis_name_static_and_instance_entries() -> None:
    from plugins.c2c.library.table import two_policy_apis

    apis = two_policy_apis()
    assert ("Math", "round") in apis and ("StringBuilder", "setCharAt") in apis and ("*", "poll") in apis
    # one entry, two translations: a function's PriorityQueue is a list, a program's a heapq heap
    function = "static int solveIt ( PriorityQueue < Integer > q ) { return q . poll ( ) ; }"
    program = "import java . util . * ; public class Main { public static void main ( String [ ] args ) { PriorityQueue < Integer > q = new PriorityQueue < > ( ) ; q . add ( 2 ) ; System . out . println ( q . poll ( ) ) ; } }"
    assert "q . pop ( 0 )" in translate(function)
    assert "heapq . heappop ( q )" in translate(program)


def test_library_rows_are_well_formed() -> None:
    """Every row of the library table names a kind, where it applies and what it gives."""
    from plugins.c2c.library.rows import ANYWHERE, CONTEXTS, FIELD, INSTANCE, NEW, STATIC, STREAM
    from plugins.c2c.library.table import RULES
    from plugins.c2c.state import PROGRAM

    assert len(RULES) > 200
    for rule in RULES:
        assert rule.kind in (STATIC, INSTANCE, NEW, STREAM, FIELD), rule
        assert rule.where in (*CONTEXTS, ANYWHERE), rule
        assert rule.policy in (None, PROGRAM), rule
        assert rule.receiver and rule.member, rule
        assert all(isinstance(name, str) and name for name in (*rule.receiver, *rule.member)), rule
        assert rule.emit is not None or rule.returns or rule.constant, rule  # a row translates, types or is a value
        assert rule.kind != NEW or rule.member == ("new",), rule
        assert (rule.kind == FIELD) == bool(rule.constant), rule


def test_the_library_is_kept_by_java_package_and_no_c2c_module_is_over_1200_lines() -> None:
    """``RULES`` is every package module's rows, concatenated; each module holds its rows beside its emitters."""
    from pathlib import Path

    from plugins.c2c.library import classes, collections, lang, math, stream, text, util
    from plugins.c2c.library.table import RULES

    parts = (lang, text, util, math, collections, stream, classes)
    assert tuple(rule for part in parts for rule in part.RULES) == RULES
    for part in parts:
        assert all(
            rule.emit is None or rule.emit.__module__ == part.__name__ or rule.emit.__module__.endswith(".rows")
            for rule in part.RULES
        ), part.__name__
    root = Path(__file__).resolve().parents[2] / "plugins" / "c2c"
    sizes = {str(p.relative_to(root)): len(p.read_text(encoding="utf-8").splitlines()) for p in root.rglob("*.py")}
    assert not {name: n for name, n in sizes.items() if n > 1200}


def test_negated_contains_a_for_each_s_map_view_and_a_thread_s_start_and_join_are_rows_with_a_context() -> None:
    """``! m . containsKey ( k )`` is a row of the NEGATED context, a for-each over ``m . keySet ( )`` one of the
    FOR_EACH context; a Thread's ``start`` / ``join`` are statement rows."""
    from plugins.c2c.library.rows import FOR_EACH, INSTANCE, NEGATED, STATEMENT
    from plugins.c2c.library.table import RULES
    from plugins.c2c.state import PROGRAM

    rows = {(r.where, r.policy, m) for r in RULES if r.kind == INSTANCE and "*" in r.receiver for m in r.member}
    assert {(NEGATED, None, "contains"), (NEGATED, None, "containsKey")} <= rows
    assert {(STATEMENT, PROGRAM, "start"), (STATEMENT, PROGRAM, "join")} <= rows
    assert {(FOR_EACH, None, "keySet"), (FOR_EACH, None, "entrySet"), (FOR_EACH, None, "values")} <= rows
    walked = translate(
        "import java . util . * ; public class Main { public static void main ( String [ ] args ) { "
        "HashMap < Integer , Integer > m = new HashMap < > ( ) ; m . put ( 3 , 1 ) ; "
        "for ( int k : m . keySet ( ) ) System . out . println ( k ) ; "
        "for ( int v : m . values ( ) ) System . out . println ( v ) ; } }"
    )
    assert "in hash_keys ( m )" in walked and "( m [ k ] for k in hash_keys ( m ) )" in walked, walked
    function = "static boolean f ( Set < Integer > s , int x ) { if ( ! s . contains ( x ) ) { return true ; } return ! s . isEmpty ( ) ; }"
    out = translate(function)
    assert "x not in s" in out and "not len ( s ) == 0" in out
    program = (
        "public class Main implements Runnable { public static void main ( String [ ] args ) { "
        'Thread t = new Thread ( null , new Main ( ) , "" , 1 << 26 ) ; t . start ( ) ; t . join ( ) ; '
        'new Thread ( null , new Main ( ) , "" , 1 << 26 ) . start ( ) ; } '
        "public void run ( ) { System . out . println ( 1 ) ; } }"
    )
    out = translate(program)
    assert "start" not in out and "join" not in out and out.count("Main ( ) . run ( )") == 2, out


def test_a_has_next_loop_is_the_row_of_the_loop_header_context(monkeypatch: pytest.MonkeyPatch) -> None:
    """``while ( it . hasNext ( ) ) { T x = it . next ( ) ; ... }`` is ``hasNext``'s LOOP_HEADER row: the row
    recognises the loop and writes it through ``Call.loop`` (its first statement consumed, ``x`` typed ``T`` in
    the rest); statements.py only asks. Without the row, the loop is a while loop."""
    from plugins.c2c.library import table
    from plugins.c2c.library.rows import INSTANCE, LOOP_HEADER

    rows = [(r.kind, r.receiver, r.member, r.policy) for r in table.RULES if r.where == LOOP_HEADER]
    assert rows == [(INSTANCE, ("*",), ("hasNext",), None)]
    java = (
        "static int f ( List < Character > a ) { int s = 0 ; char y ; Iterator < Character > it = a . iterator ( ) ; "
        "while ( it . hasNext ( ) ) { char x = it . next ( ) ; s += x - 97 ; } it = a . iterator ( ) ; "
        "while ( it . hasNext ( ) ) { y = ( Character ) it . next ( ) ; } "
        "while ( it . hasNext ( ) ) { s += it . next ( ) ; } while ( it . hasNext ( ) ) y = it . next ( ) ; return s ; }"
    )
    out = translate(java)
    assert "for x in it : NEW_LINE INDENT s += ord ( x ) - 97 NEW_LINE DEDENT" in out, out  # `x` is a char there
    assert "for y in it : NEW_LINE INDENT pass NEW_LINE DEDENT" in out and out.count("while") == 2, out
    program = (
        "import java . util . * ; public class Main { public static void main ( String [ ] args ) { "
        "Iterator < Integer > it = List . of ( 1 ) . iterator ( ) ; "
        "while ( it . hasNext ( ) ) { int x = it . next ( ) ; System . out . println ( x ) ; } } }"
    )
    assert "for x in" not in translate(program)  # a program's iterator is the runtime's JavaIterator
    key = (INSTANCE, "*", "hasNext")
    without = tuple(r for r in table._ROWS[key] if r.where != LOOP_HEADER)
    monkeypatch.setitem(table._ROWS, key, without)
    assert "for" not in translate(java)


def test_the_resolver_asks_io_then_the_library_then_the_program_then_the_plain_call() -> None:
    program = (
        "import java . io . * ; import java . math . * ; import java . util . * ; "
        "import static java . lang . Math . * ; public class Main { "
        "static int max ( int a , int b ) { return a > b ? b : a ; } "
        "public static void main ( String [ ] args ) { PrintWriter out = new PrintWriter ( System . out ) ; "
        "ArrayList < Integer > l = new ArrayList < > ( ) ; l . add ( max ( 3 , 5 ) ) ; "
        'BigDecimal d = new BigDecimal ( "1.5" ) ; out . println ( d . add ( BigDecimal . ONE ) ) ; '
        "out . println ( l . get ( 0 ) + abs ( - 2 ) ) ; l . trimToSize ( ) ; out . flush ( ) ; } }"
    )
    out = translate(program)
    assert "PrintWriter" not in out and "flush" not in out  # I/O: the writer vanishes, its prints print
    assert 'd = decimal . Decimal ( "1.5" )' in out  # a constructor's row (the program's own)
    assert "( d + ( decimal . Decimal ( 1 ) ) )" in out  # an instance row and a field row
    assert "l = [ ]" in out and "l . append ( max_ ( 3 , 5 ) )" in out  # the program's max, not the import's
    assert "print ( l [ 0 ] + abs ( - 2 ) )" in out  # a statically imported member the program lacks
    assert "l . trimToSize ( )" in out  # no row: the plain call
    # a function reads an empty program: no stdin object, no class of its own; the references' forms
    function = translate(
        "static void f ( int x ) { Scanner sc = new Scanner ( System . in ) ; print ( max ( x , 2 ) ) ; }"
    )
    assert "sc = Scanner ( System . in )" in function and "print ( max ( x , 2 ) )" in function


def test_emitters_ask_only_the_narrow_protocol() -> None:
    """An emit function reads the translator through ``rows.Emitting`` only, and the Translator offers it all."""
    import ast
    import pkgutil
    from pathlib import Path

    from plugins.c2c import library
    from plugins.c2c.library.rows import Emitting
    from plugins.c2c.translate import Translator

    offered = {name for name in vars(Emitting) if not name.startswith("_")}
    assert {"expr", "text", "type_of", "arg_tokens", "policy", "state"} <= offered
    assert all(hasattr(Translator, name) for name in offered)
    folder = Path(library.__path__[0])
    modules = [info.name for info in pkgutil.iter_modules([str(folder)])]
    assert {"lang", "collections", "stream", "table"} <= set(modules)
    asked = {
        node.attr
        for name in modules
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "tr"
    }
    assert asked and asked <= offered, asked - offered
    # of the translation's state, an emitter reaches only ``EmitterState``'s fields, which TranslationState has
    import dataclasses

    from plugins.c2c.library.rows import EmitterState
    from plugins.c2c.state import TranslationState

    kept = {name for name in (*vars(EmitterState), *EmitterState.__annotations__) if not name.startswith("_")}
    assert kept and kept <= {f.name for f in dataclasses.fields(TranslationState)}
    trees = [ast.parse((folder / f"{name}.py").read_text(encoding="utf-8")) for name in modules]
    read = {
        node.attr
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "state"
        and isinstance(node.value.value, ast.Name)
        and node.value.value.id == "tr"
    }
    assert read and read <= kept, read - kept


def test_emitters_take_one_argument_form_each_node_translated_once_per_call() -> None:
    """Every emitter reads the call's raw nodes and their translations through ``Call.arg`` / ``joined`` /
    ``target`` (no ``tr.expr`` of the call's own arguments or receiver, no pre-translated ``a`` / ``o``):
    an argument read twice, or by a row that declines and then by the next, is translated once."""
    import ast
    import pkgutil
    from pathlib import Path
    from types import SimpleNamespace

    from plugins.c2c import library
    from plugins.c2c.library import collections
    from plugins.c2c.library.rows import Call

    folder = Path(library.__path__[0])
    for info in pkgutil.iter_modules([str(folder)]):
        for node in ast.walk(ast.parse((folder / f"{info.name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "c":
                assert node.attr not in ("a", "o", "flat"), (info.name, node.lineno)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "expr":
                text = ast.unparse(node.args[0]) if node.args else ""
                assert not text.startswith(("c.args", "c.obj")), (info.name, node.lineno, text)
    asked: list[str] = []

    class Counting:
        def expr(self, node: SimpleNamespace) -> list[str]:
            asked.append(node.text)
            return [node.text]

    xs, x = SimpleNamespace(type="identifier", text="xs"), SimpleNamespace(type="identifier", text="x")
    tr = Counting()
    call = Call(SimpleNamespace(), xs, "indexOf", [x])  # type: ignore[arg-type]
    out = collections._list_index_of(tr, call)  # type: ignore[arg-type]  # reads x and xs twice each
    assert out == ["(", "xs", ".", "index", "(", "x", ")", "if", "x", "in", "xs", "else", "-", "1", ")"]
    assert sorted(asked) == ["x", "xs"]
    assert call.joined(tr) == ["x"] and len(asked) == 2  # type: ignore[arg-type]
    call.fresh().arg(tr, 0)  # type: ignore[arg-type]  # a fresh call (a rewound step's) translates again
    assert asked[-1] == "x" and len(asked) == 3


def test_a_builder_chain_that_starts_at_a_bare_call_is_translated() -> None:
    # `append ( 1 ) . append ( 2 ) . length ( )`: the walk down a builder's chain reached the bare call's
    # missing receiver (None) and the whole program became the translator-bug fallback (`def f ( ) : pass`)
    from bench.c2c_kinds import java_tokens
    from plugins.c2c.detok import detokenize
    from plugins.c2c.task import clean_request, safe_translate

    java = """public class Main {
        static class B {
            StringBuilder sb = new StringBuilder();
            StringBuilder append(int x) { return sb.append(x); }
            int go() { return append(1).append(2).length(); }
        }
        public static void main(String[] args) { System.out.println(new B().go()); }
    }"""
    source = detokenize(safe_translate(clean_request("0", java_tokens(java))))
    assert "def go ( self ) :" in source, source
    assert "len ( self . append ( 1 )" in source, source
