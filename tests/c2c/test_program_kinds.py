"""Whole programs by failure kind (issue #31): each kind a small Java program of our own, run on
several stdin cases through the real Java (the oracle) and through its translation."""

from __future__ import annotations

from pathlib import Path

import pytest

from plugins.c2c.detok import compiles, detokenize
from plugins.c2c.task import clean_request, safe_translate
from plugins.c2c.translate import parses_cleanly
from tests.c2c.test_programs import tokens

pytestmark = pytest.mark.usefixtures("jdk")


def check(java: str, stdins: list[str], tmp_path: Path) -> None:
    """The translation prints what the Java prints on every one of ``stdins``."""
    from bench.c2c_programs import run_java_oracle, run_python, same_output

    request = clean_request("0", tokens(java))
    assert parses_cleanly(request)
    out = safe_translate(request)
    assert compiles(out), detokenize(out)
    source = detokenize(out)
    for stdin in stdins:
        oracle = run_java_oracle(java, stdin.encode(), tmp_path / "java", 30)
        assert oracle["status"] == "ran", oracle
        ours = run_python(source, stdin.encode(), 20, tmp_path)
        assert ours["status"] == "ran", ours.get("stderr", "") + "\n" + source
        assert same_output(oracle["stdout"], ours["stdout"]), (stdin, oracle["stdout"], ours["stdout"], source)


def test_collections_held_as_fields_of_other_classes(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        Counter c = new Counter();
        for (int i = 0; i < n; i++) c.see(sc.next());
        c.report();
      }
    }
    class Counter {
      Map<String, Integer> cnt = new HashMap<>();
      TreeMap<String, Integer> firstSeen = new TreeMap<>();
      List<String> order = new ArrayList<>();
      int seen;
      void see(String w) {
        cnt.put(w, cnt.getOrDefault(w, 0) + 1);
        if (!this.firstSeen.containsKey(w)) { this.firstSeen.put(w, seen); order.add(w); }
        seen++;
      }
      void report() {
        for (String w : order) System.out.println(w + " " + cnt.get(w) + " " + firstSeen.get(w));
        System.out.println(firstSeen.firstKey() + " " + this.cnt.size());
      }
    }"""
    check(java, ["3\nb a b\n", "5\nx y z x x\n", "1\nq\n"], tmp_path)


def test_string_builder_methods_a_str_lacks(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        StringBuilder sb = new StringBuilder(sc.next());
        sb.trimToSize(); sb.ensureCapacity(100);
        sb.append("zz").reverse();
        System.out.println(sb.indexOf("z") + " " + sb.lastIndexOf("z") + " " + sb + " " + sb.isEmpty());
        StringBuilder t = new StringBuilder(); t.append(sb.length()).append('-').reverse();
        System.out.println(t.toString() + new StringBuilder("ab").reverse());
      }
    }"""
    check(java, ["abc\n", "x\n", "zaz\n"], tmp_path)


def test_big_decimal_as_decimal(tmp_path: Path) -> None:
    java = """import java.math.*; import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        BigDecimal a = new BigDecimal(sc.next()); BigDecimal b = sc.nextBigDecimal(); long n = sc.nextLong();
        BigDecimal s = a.add(b).multiply(BigDecimal.valueOf(n));
        System.out.println(s);
        System.out.println(s.setScale(0, RoundingMode.DOWN).toPlainString());
        System.out.println(a.divide(b, 5, RoundingMode.HALF_UP));
        System.out.println(a.compareTo(b) > 0 ? "A" : "B");
        System.out.println(a.subtract(b).abs() + " " + BigDecimal.ONE.add(a).longValue());
        BigDecimal t = BigDecimal.ZERO;
        for (int i = 0; i < 3; i++) t = t.add(new BigDecimal("0.1"));
        System.out.println(t + " " + t.doubleValue() + " " + t.multiply(a).stripTrailingZeros().toPlainString());
        System.out.println(new BigDecimal("123456789.123456789").multiply(new BigDecimal("987654321.987654321")));
      }
    }"""
    check(java, ["1.50 2.25 3\n", "100 0.3 7\n", "-2.5 4 1000000007\n"], tmp_path)


def test_call_arguments_translated_once_and_map_interfaces(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<Integer> l = new ArrayList<>(); int i = 0;
        while (i < n) l.add(i++);
        Integer[] a = new Integer[n];
        for (int k = 0; k < n; k++) a[k] = sc.nextInt();
        Arrays.sort(a, new Comparator<Integer>() { public int compare(Integer x, Integer y) { return y - x; } });
        System.out.println(l + " " + i);
        SortedMap<Integer, Integer> sm = new TreeMap<>(); NavigableMap<Integer, Integer> nm = new TreeMap<>();
        for (int x : a) { sm.put(x, sm.getOrDefault(x, 0) + 1); nm.put(x % 3, x); }
        nm.remove(0); nm.remove(7);
        System.out.println(sm.get(a[0]) + " " + nm.get(1) + " " + nm.containsKey(0) + " " + sm.firstKey());
      }
    }"""
    check(java, ["3\n5 1 4\n", "5\n2 2 9 1 3\n", "2\n7 6\n"], tmp_path)


def test_stream_tokenizer_field_reads_tokens(tmp_path: Path) -> None:
    java = """import java.io.*;
    public class Main {
      static StreamTokenizer in = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
      static int nextInt() throws IOException { in.nextToken(); return (int) in.nval; }
      static String next() throws IOException { in.nextToken(); return in.sval; }
      public static void main(String[] args) throws IOException {
        int n = nextInt(); long s = 0;
        for (int i = 0; i < n; i++) s += nextInt();
        String w = next();
        System.out.println(s + " " + w);
      }
    }"""
    check(java, ["3\n1 2\n3\nabc\n", "2\n-5\n10 xy\n"], tmp_path)


def test_static_field_made_of_its_own_class(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      static class P implements Comparable<P> {
        static final P ORIGIN = new P(0, 0);
        static int made = 0;
        int x, y;
        P(int x, int y) { this.x = x; this.y = y; made++; }
        int dist(P o) { return Math.abs(x - o.x) + Math.abs(y - o.y); }
        public int compareTo(P o) { return dist(ORIGIN) - o.dist(ORIGIN); }
      }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<P> ps = new ArrayList<>();
        for (int i = 0; i < n; i++) ps.add(new P(sc.nextInt(), sc.nextInt()));
        Collections.sort(ps);
        for (P p : ps) System.out.println(p.x + " " + p.y + " " + p.dist(P.ORIGIN));
        System.out.println(P.made);
      }
    }"""
    check(java, ["3\n5 5\n-1 0\n2 -3\n", "1\n0 0\n"], tmp_path)


def test_solver_class_holding_the_writer_and_arraycopy(tmp_path: Path) -> None:
    java = """import java.io.*; import java.util.*;
    public class Main {
      static class In {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in)); StringTokenizer st;
        String next() { while (st == null || !st.hasMoreTokens()) { try { st = new StringTokenizer(br.readLine()); }
          catch (IOException e) { throw new RuntimeException(e); } } return st.nextToken(); }
        int nextInt() { return Integer.parseInt(next()); }
      }
      static class Solver {
        final In sc; final PrintWriter writer; int best = 0;
        Solver(final In sc, final PrintWriter writer) { this.sc = sc; this.writer = writer; }
        void run() {
          int n = sc.nextInt(); int[] a = new int[n];
          for (int i = 0; i < n; i++) a[i] = sc.nextInt();
          int[] b = new int[n + 2];
          System.arraycopy(a, 0, b, 1, n);
          System.arraycopy(b, 1, b, 2, n);
          for (int x : b) best = Math.max(best, x);
          writer.println(Arrays.toString(b).replace(",", "") + " " + best);
        }
      }
      public static void main(final String[] args) {
        final In sc = new In();
        try (final PrintWriter w = new PrintWriter(System.out)) { new Solver(sc, w).run(); w.flush(); }
      }
    }"""
    check(java, ["3\n4 9 2\n", "1\n7\n"], tmp_path)


def test_programs_own_sort_method_called_as_a_statement(tmp_path: Path) -> None:
    # `sort ( a ) ;` is the program's own method, not a list's `sort` (once written `. sort ( key = ... )`)
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt(); int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = sc.nextInt();
        sort(a);
        StringBuilder sb = new StringBuilder();
        for (int x : a) sb.append(x).append(' ');
        System.out.println(sb.toString().trim());
      }
      public static void sort(int[] a) {
        Arrays.sort(a);
        for (int i = 0, j = a.length - 1; i < j; i++, j--) { int t = a[i]; a[i] = a[j]; a[j] = t; }
      }
    }"""
    check(java, ["3\n2 9 4\n", "1\n7\n", "4\n5 5 1 8\n"], tmp_path)


def test_static_import_of_math_members(tmp_path: Path) -> None:
    # `import static java.lang.Math.*`: a bare member is the library table's `Math . member`, round as Java rounds
    java = """import java.util.*;
    import static java.lang.Math.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int a = sc.nextInt(), b = sc.nextInt(); double x = sc.nextDouble();
        System.out.println(max(a, b) + " " + min(a, b) + " " + abs(a - b) + " " + (long) pow(a, 2));
        System.out.println(floorMod(a, b) + " " + floorDiv(a, b) + " " + round(x) + " " + (int) signum((double) a));
        System.out.println((int) floor(x) + " " + (int) ceil(x) + " " + (int) sqrt(a * a));
      }
    }"""
    check(java, ["7 3 2.5\n", "-7 3 -2.5\n", "4 9 0.49\n"], tmp_path)
