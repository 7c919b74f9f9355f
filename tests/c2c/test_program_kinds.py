"""Whole programs by failure kind (issue #31): each kind a small Java program of our own, run on
several stdin cases through the real Java (the oracle) and through its translation."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.c2c_kinds import java_tokens
from plugins.c2c.detok import compiles, detokenize
from plugins.c2c.task import clean_request, safe_translate
from plugins.c2c.translate import parses_cleanly

pytestmark = pytest.mark.usefixtures("jdk")


def check(java: str, stdins: list[str], tmp_path: Path) -> None:
    """The translation prints what the Java prints on every one of ``stdins``."""
    from bench.c2c_programs import run_java_oracle, run_python, same_output

    request = clean_request("0", java_tokens(java))
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


def test_regex_pattern_matcher_and_string_regex_methods(tmp_path: Path) -> None:
    java = """import java.util.*; import java.util.regex.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = Integer.parseInt(sc.nextLine()); int sum = 0;
        Pattern pt = Pattern.compile("(\\\\d+),(\\\\d+)");
        for (int i = 0; i < n; i++) {
          String s = sc.nextLine(); Matcher m = pt.matcher(s);
          if (m.matches()) sum += Integer.parseInt(m.group(1)) * Integer.parseInt(m.group(2));
          System.out.println(s.matches("[0-9]+,0") + " " + m.matches());
        }
        String w = sc.next(); Matcher f = Pattern.compile("[a-z]+").matcher(w); int c = 0;
        while (f.find()) { System.out.println(f.group() + " " + f.start() + " " + f.end()); c++; }
        if (!w.matches("[a-z]+")) System.out.println("not lower");
        System.out.println(sum + " " + c + " " + w.replaceAll("(a)(b)", "$2$1") + " " + w.replaceFirst("[0-9]", "_"));
        System.out.println(Pattern.matches("[a-z0-9]*", w));
      }
    }"""
    check(java, ["3\n1,2\n3,0\nab\nab12cd3ef\n", "1\n10,10\nzz9ab\n", "0\n123\n"], tmp_path)


def test_java_time_dates_times_and_durations(tmp_path: Path) -> None:
    java = """import java.util.*; import java.time.*; import java.time.temporal.ChronoUnit;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        LocalDate a = LocalDate.parse(sc.next().replace('/', '-'));
        LocalDate b = a.plusDays(sc.nextInt()).plusMonths(1);
        System.out.println(b.getYear() + " " + b.getMonthValue() + " " + b.getDayOfMonth() + " " + b);
        System.out.println(a.getDayOfWeek() + " " + a.getDayOfWeek().getValue() + " " + a.isLeapYear());
        System.out.println(a.isBefore(b) + " " + a.isAfter(LocalDate.of(2019, 4, 30)) + " " + a.lengthOfMonth());
        System.out.println(ChronoUnit.DAYS.between(a, b) + " " + a.toEpochDay());
        LocalTime t = LocalTime.of(sc.nextInt(), sc.nextInt());
        LocalTime u = t.plusMinutes(sc.nextInt());
        System.out.println(u.getHour() + " " + u.getMinute() + " " + u + " " + u.isBefore(t));
        System.out.println(Duration.between(LocalTime.parse("00:00"), u).toMinutes());
      }
    }"""
    check(java, ["2019/04/30 100 10 20 50\n", "2020/01/31 29 23 50 20\n", "2000/02/29 0 0 0 0\n"], tmp_path)


def test_classes_extending_library_classes(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      static class Pair<K, V> extends AbstractMap.SimpleEntry<K, V> {
        public Pair(final K key, final V value) { super(key, value); }
        public String show() { return "[" + getKey() + "] [" + getValue() + "]"; }
      }
      static class Stop extends RuntimeException { Stop(String m) { super(m); } }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<Pair<Integer, Integer>> l = new ArrayList<>();
        for (int i = 0; i < n; i++) l.add(new Pair<>(sc.nextInt(), sc.nextInt()));
        long s = 0;
        for (Pair<Integer, Integer> p : l) { s += p.getKey() * p.getValue(); System.out.println(p.show()); }
        Pair<Integer, Integer> q = l.get(0); q.setValue(5);
        try { if (s > 10) throw new Stop("big"); System.out.println("small"); }
        catch (Stop e) { System.out.println("stopped"); }
        System.out.println(s + " " + q.getValue());
      }
    }"""
    check(java, ["2\n1 2\n3 4\n", "1\n5 1\n"], tmp_path)


def test_string_and_bit_methods_a_python_str_or_int_lacks(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); String s = sc.next(); String t = sc.next(); int k = sc.nextInt();
        System.out.println(s.repeat(2) + " " + s.equalsIgnoreCase(t) + " " + s.chars().filter(c -> c == 'a').count());
        long h = -k;
        System.out.println((k >>> 1) + " " + (-k >>> 28) + " " + (h >>> 60) + " " + s.chars().map(c -> c - 'a').sum());
      }
    }"""
    check(java, ["banana BANANA 7\n", "xyz abc 0\n", "a A -16\n"], tmp_path)


def test_int_variable_that_may_be_negative_divides_toward_zero(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt(); int m = sc.nextInt();
        for (int i = 0; i < n; i++) m -= sc.nextInt();
        int d = m - 7;
        int q = d; q /= 2; int r = m; r %= 3;
        System.out.println(m / 4 + " " + m % 4 + " " + d / 3 + " " + q + " " + r);
      }
    }"""
    check(java, ["2 10 20 5\n", "1 100 3\n", "3 -5 1 1 1\n"], tmp_path)


def test_text_built_in_main_in_a_loop_stays_linear(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        StringBuilder sb = new StringBuilder(); String s = "";
        for (int i = 0; i < n; i++) { sb.append(i % 10).append(' '); if (i < 5) s += i; }
        System.out.println(sb.toString().trim().length() + " " + s);
      }
    }"""
    request = clean_request("0", java_tokens(java))
    assert detokenize(safe_translate(request)).splitlines()[-1] == "main ( )"  # locals: += extends in place
    check(java, ["300000\n", "3\n"], tmp_path)


def test_recursion_through_other_methods_or_this_gets_the_deep_stack(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      static int[] nxt;
      static int even(int v) { return v < 0 ? 0 : 1 + odd(nxt[v]); }
      static int odd(int v) { return v < 0 ? 0 : 1 + even(nxt[v]); }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt(); nxt = new int[n];
        for (int i = 0; i < n; i++) nxt[i] = i + 1 < n ? i + 1 : -1;
        System.out.println(even(0) + " " + new Walker(n).depth(0));
      }
    }
    class Walker {
      int n;
      Walker(int n) { this.n = n; }
      int depth(int v) { if (v == n) return 0; return this.depth(v + 1) + 1; }
    }"""
    check(java, ["50000\n", "1\n"], tmp_path)


def test_int_fields_and_methods_of_own_classes_divide_as_ints(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      static class P { int x; long y; int[] w = new int[3]; P(int x, long y) { this.x = x; this.y = y; }
        int twice() { return 2 * x; } }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); String s = sc.next(); int n = s.length();
        P p = new P(n, n); P[] ps = {p}; List<P> lp = new ArrayList<>(); lp.add(p);
        System.out.println(s.charAt(p.x / 2) + " " + s.charAt(ps[0].x / 2) + " " + s.charAt(lp.get(0).x / 2));
        System.out.println(s.charAt(p.twice() / 4) + " " + s.charAt((int) (p.y / 2)) + " " + (p.w.length / 2));
        System.out.println(s.charAt(sc.nextInt() / 2));
      }
    }"""
    check(java, ["abcdefg 9\n", "xy 3\n"], tmp_path)


def test_functional_fields_typed_constructors_and_bit_methods(tmp_path: Path) -> None:
    java = """import java.util.*; import java.util.function.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt(); long m = sc.nextLong();
        Integer[] init = new Integer[n]; Arrays.setAll(init, i -> i * i);
        Seg<Integer> s = new Seg<Integer>(init, (a, b) -> a + b, 0);
        Predicate<Integer> even = x -> x % 2 == 0; IntBinaryOperator mx = Math::max;
        System.out.println(s.all() + " " + s.size + " " + even.test(n) + " " + mx.applyAsInt(n, 5));
        System.out.println(Integer.numberOfTrailingZeros(n) + " " + Integer.highestOneBit(n) + " "
            + Long.numberOfLeadingZeros(m) + " " + Long.lowestOneBit(m));
      }
    }
    class Seg<S> {
      final java.util.function.BinaryOperator<S> op; final S e; final S[] dat; final int size;
      @SuppressWarnings("unchecked")
      Seg(int n, java.util.function.BinaryOperator<S> op, S e) {
        this.size = n; this.op = op; this.e = e; this.dat = (S[]) new Object[n]; java.util.Arrays.fill(dat, e);
      }
      Seg(S[] dat, java.util.function.BinaryOperator<S> op, S e) {
        this(dat.length, op, e); for (int i = 0; i < dat.length; i++) this.dat[i] = dat[i];
      }
      S all() { S r = e; for (S x : dat) r = op.apply(r, x); return r; }
    }"""
    check(java, ["12 40\n", "1 1\n", "7 0\n"], tmp_path)


def test_hand_written_reader_with_a_private_void_helper(tmp_path: Path) -> None:
    java = """import java.io.*; import java.util.*;
    public class Main {
      public static void main(String[] args) {
        InputReader in = new InputReader(System.in); int n = in.nextInt(); long s = 0;
        for (int i = 0; i < n; i++) s += in.nextInt();
        System.out.println(s + " " + in.next());
      }
      static class InputReader {
        private InputStream in; private byte[] buf = new byte[1024]; private int cur, len;
        InputReader(InputStream in) { this.in = in; }
        private boolean fill() {
          if (cur >= len) { cur = 0; try { len = in.read(buf); } catch (IOException e) { return false; } }
          return len > 0;
        }
        private void skip() { while (fill() && buf[cur] <= ' ') cur++; }
        public String next() {
          skip(); StringBuilder sb = new StringBuilder();
          while (fill() && buf[cur] > ' ') sb.append((char) buf[cur++]);
          return sb.toString();
        }
        public int nextInt() { return Integer.parseInt(next()); }
      }
    }"""
    check(java, ["3\n1 2 3\nabc\n", "1 -5 x\n"], tmp_path)


def test_hash_map_and_set_iterate_in_java_bucket_order(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      static Map<String, Integer> words;
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        Map<Integer, Integer> m = new HashMap<>(); Set<Long> s = new HashSet<>(); words = new HashMap<>();
        for (int i = 0; i < n; i++) {
          int x = sc.nextInt(); m.put(x, m.getOrDefault(x, 0) + 1); s.add((long) i * 3); words.put("w" + x, i);
        }
        for (int k : m.keySet()) System.out.print(k + ":" + m.get(k) + " ");
        System.out.println();
        for (long x : s) System.out.print(x + " ");
        System.out.println();
        for (Map.Entry<String, Integer> e : words.entrySet()) System.out.print(e.getKey() + "=" + e.getValue() + " ");
        for (int v : m.values()) System.out.print(v);
        System.out.println();
      }
    }"""
    many = " ".join(str(i * 37 % 101) for i in range(30))  # 30 keys: the table grows to 64 buckets
    check(java, ["5\n5 3 9 3 1\n", "4\n100 20 3 40\n", f"30\n{many}\n"], tmp_path)


def test_own_equals_and_hash_code_make_map_and_set_keys(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      static class P {
        int x, y;
        P(int x, int y) { this.x = x; this.y = y; }
        @Override public boolean equals(Object o) {
          if (this == o) return true; if (!(o instanceof P)) return false; P p = (P) o; return x == p.x && y == p.y;
        }
        @Override public int hashCode() { return Objects.hash(x, y); }
      }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        Set<P> seen = new HashSet<>(); Map<P, Integer> cnt = new HashMap<>();
        for (int i = 0; i < n; i++) {
          P p = new P(sc.nextInt(), sc.nextInt()); seen.add(p); cnt.merge(p, 1, Integer::sum);
        }
        System.out.println(seen.size() + " " + cnt.get(new P(1, 2)) + " " + seen.contains(new P(3, 4)));
      }
    }"""
    check(java, ["4\n1 2\n3 4\n1 2\n0 0\n", "1\n1 2\n"], tmp_path)


def test_lists_and_sets_print_as_java_prints_them(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<String> l = new ArrayList<>(); Set<Integer> s = new HashSet<>(); TreeSet<Integer> t = new TreeSet<>();
        for (int i = 0; i < n; i++) { String w = sc.next(); l.add(w); s.add(w.length() * 7); t.add(100 - w.length()); }
        System.out.println(l);
        System.out.println(s);
        System.out.println("set=" + s + " list=" + l + " " + t + " " + new ArrayList<Integer>());
      }
    }"""
    check(java, ["3\nab c def\n", "1\nxyzzy\n"], tmp_path)


def test_stream_collectors_grouping_to_map_and_optional_defaults(tmp_path: Path) -> None:
    java = """import java.util.*; import java.util.stream.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        int[] a = new int[n]; for (int i = 0; i < n; i++) a[i] = sc.nextInt();
        List<Integer> l = Arrays.stream(a).boxed().collect(Collectors.toList());
        Map<Integer, Long> freq = l.stream().collect(Collectors.groupingBy(x -> x % 3, Collectors.counting()));
        Map<Integer, List<Integer>> by = l.stream().collect(Collectors.groupingBy(x -> x % 2));
        Map<Integer, Integer> sq = l.stream().distinct().collect(Collectors.toMap(x -> x, x -> x * x));
        System.out.println(freq.get(0) + " " + freq.getOrDefault(1, 0L) + " " + by.get(1) + " " + sq.get(a[0]));
        System.out.println(Arrays.stream(a).average().orElse(0) + " "
            + l.stream().filter(x -> x > 100).mapToInt(x -> x).max().orElse(-1));
      }
    }"""
    check(java, ["5\n3 1 4 1 5\n", "1\n9\n"], tmp_path)


def test_nested_loops_in_main_run_in_a_function(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        long[][] dp = new long[n + 1][n + 1];
        for (int i = 1; i <= n; i++)
          for (int j = 1; j <= n; j++) dp[i][j] = Math.max(dp[i - 1][j], dp[i][j - 1]) + ((i ^ j) % 3);
        System.out.println(dp[n][n]);
      }
    }"""
    request = clean_request("0", java_tokens(java))
    assert detokenize(safe_translate(request)).splitlines()[-1] == "main ( )"  # names are locals: fast
    check(java, ["1500\n", "1\n"], tmp_path)


def test_tokenizer_field_without_a_value_read_by_a_static_method(tmp_path: Path) -> None:
    java = """import java.io.*; import java.util.*;
    public class Main {
      static BufferedReader br; static StringTokenizer st; static PrintWriter pw;
      static String next() throws IOException {
        while (st == null || !st.hasMoreTokens()) st = new StringTokenizer(br.readLine()); return st.nextToken();
      }
      static int ni() throws IOException { return Integer.parseInt(next()); }
      public static void main(String[] args) throws IOException {
        br = new BufferedReader(new InputStreamReader(System.in));
        pw = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        int n = ni(); long s = 0;
        for (int i = 0; i < n; i++) s += ni();
        pw.println(s + " [" + br.readLine() + "]");
        pw.close();
      }
    }"""
    check(java, ["3\n1 2\n3\nrest of line\n", "1\n-4\n\n"], tmp_path)


def test_collection_factories_comparator_chains_and_radix_strings(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<Integer> l = new ArrayList<>(List.of(5, 3, 8)); l.add(n);
        System.out.println(l + " " + Set.of(1, 2).size() + " " + Map.of("a", 1, "b", 2).get("b")
            + " " + Arrays.asList(4, 5, 6).indexOf(5) + " " + Arrays.toString("b,a".split(",")));
        List<int[]> ps = new ArrayList<>();
        for (int i = 0; i < 4; i++) ps.add(new int[]{(i * n) % 3, i});
        ps.sort(Comparator.comparingInt((int[] p) -> p[0]).thenComparingInt(p -> -p[1]));
        for (int[] p : ps) System.out.print(p[1] + " ");
        PriorityQueue<int[]> pq = new PriorityQueue<>(Comparator.comparingInt((int[] p) -> p[0]).reversed());
        for (int[] p : ps) pq.add(p);
        System.out.println(pq.poll()[0] + " " + Integer.toString(n, 2) + " " + Long.toString(255L, 16));
      }
    }"""
    check(java, ["7\n", "1\n", "0\n"], tmp_path)


def test_var_declarations_take_their_values_types(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        var sc = new Scanner(System.in); var n = sc.nextInt(); var a = new int[n];
        for (var i = 0; i < n; i++) a[i] = sc.nextInt();
        var s = 0L; var list = new ArrayList<Integer>();
        for (var x : a) { s += x; list.add(x / 2); }
        System.out.println(s / 2 + " " + n / 2 + " " + list + " " + "abcde".charAt(n / 2));
      }
    }"""
    check(java, ["3\n1 2 3\n", "4\n5 6 7 8\n"], tmp_path)


def test_anti_hack_sorts_with_a_field_named_random(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      static final Random random = new Random();
      static void ruffleSort(int[] a) {
        for (int i = 0; i < a.length; i++) { int o = random.nextInt(a.length), t = a[o]; a[o] = a[i]; a[i] = t; }
        Arrays.sort(a);
      }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt(); int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = sc.nextInt();
        ruffleSort(a);
        List<Integer> l = new ArrayList<>(); for (int x : a) l.add(-x); Collections.shuffle(l); Collections.sort(l);
        System.out.println(Arrays.toString(a) + " " + l);
      }
    }"""
    check(java, ["3\n3 1 2\n", "1\n7\n"], tmp_path)


def test_for_each_of_lists_and_maps(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<Integer> l = new ArrayList<>(); for (int i = 0; i < n; i++) l.add(sc.nextInt());
        TreeMap<Integer, Integer> t = new TreeMap<>(); Map<Integer, Integer> h = new HashMap<>();
        for (int x : l) { t.merge(x, 1, Integer::sum); h.merge(x * 17, 1, Integer::sum); }
        l.forEach(x -> System.out.print(x + " "));
        System.out.println();
        t.forEach((k, v) -> System.out.println(k + ":" + v));
        h.forEach((k, v) -> System.out.print(k + "=" + v + " "));
        l.forEach(System.out::println);
        long[] sum = {0}; l.forEach(x -> { sum[0] += x; });
        System.out.println(sum[0]);
      }
    }"""
    check(java, ["3\n3 1 3\n", "5\n9 8 7 100 1\n"], tmp_path)


def test_enums_print_names_and_have_values(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      enum Dir {
        UP(-1, 0), DOWN(1, 0), LEFT(0, -1), RIGHT(0, 1);
        final int dr, dc;
        Dir(int dr, int dc) { this.dr = dr; this.dc = dc; }
        Dir opposite() { return values()[ordinal() ^ 1]; }
        boolean vertical() { return this == UP || this == DOWN; }
      }
      enum Color { RED, GREEN, BLUE }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int r = 0, c = 0; String moves = sc.next();
        int[] cnt = new int[Dir.values().length];
        for (char ch : moves.toCharArray()) {
          Dir d = ch == 'U' ? Dir.UP : ch == 'D' ? Dir.DOWN : ch == 'L' ? Dir.LEFT : Dir.RIGHT;
          r += d.dr; c += d.dc; cnt[d.ordinal()]++;
          System.out.println(d + " " + d.opposite() + " " + d.vertical() + " " + d.name());
        }
        System.out.println(r + " " + c + " " + Arrays.toString(cnt));
        List<Dir> ds = new ArrayList<>(Arrays.asList(Dir.values()));
        Collections.sort(ds, (a, b) -> b.compareTo(a));
        System.out.println(ds);
        Map<Dir, Integer> m = new EnumMap<>(Dir.class);
        m.put(Dir.RIGHT, 2); m.put(Dir.UP, 1);
        for (Map.Entry<Dir, Integer> e : m.entrySet()) System.out.println(e.getKey() + ":" + e.getValue());
        Color k = Color.valueOf(sc.next());
        switch (k) {
          case RED: System.out.println("r"); break;
          case BLUE: System.out.println("b"); break;
          default: System.out.println(k);
        }
      }
    }"""
    check(java, ["UDLR GREEN\n", "UUL RED\n", "R BLUE\n"], tmp_path)


def test_string_compare_hash_and_split_as_java(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        String a = sc.next(), b = sc.next();
        System.out.println(a.compareTo(b) + " " + a.compareToIgnoreCase(b) + " " + a.hashCode());
        String[] parts = sc.next().split(",");
        System.out.println(parts.length);
        for (String p : parts) System.out.print("[" + p + "]");
        System.out.println();
        System.out.println(Character.getNumericValue(sc.next().charAt(0)));
      }
    }"""
    check(java, ["apple banana a,b,,c,, 7\n", "zeta Abc ,x,y, q\n", "abc abcde a Z\n"], tmp_path)


def test_lambda_whose_body_assigns(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<Integer> xs = new ArrayList<>(); for (int i = 0; i < n; i++) xs.add(sc.nextInt());
        int[] acc = {0}; long[] cnt = {0};
        xs.forEach(x -> acc[0] += x);
        xs.forEach(x -> cnt[0]++);
        System.out.println(acc[0] + " " + cnt[0]);
      }
    }"""
    check(java, ["3\n1 2 3\n", "1\n-5\n"], tmp_path)


def test_iterators_walk_and_remove(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<Integer> l = new ArrayList<>(); TreeSet<Integer> ts = new TreeSet<>(); Set<Integer> hs = new HashSet<>();
        for (int i = 0; i < n; i++) { int x = sc.nextInt(); l.add(x); ts.add(x); hs.add(x); }
        Iterator<Integer> it = l.iterator(); int s = 0;
        while (it.hasNext()) { int v = it.next(); s += v; }
        Iterator<Integer> it2 = l.iterator();
        while (it2.hasNext()) if (it2.next() % 2 == 0) it2.remove();
        Iterator<Integer> it3 = hs.iterator();
        while (it3.hasNext()) if (it3.next() > 2) it3.remove();
        StringBuilder sb = new StringBuilder();
        for (Iterator<Integer> t = ts.iterator(); t.hasNext();) sb.append(t.next()).append(',');
        System.out.println(s + " " + l + " " + hs.size() + " " + sb);
      }
    }"""
    check(java, ["4\n1 2 3 4\n", "5\n2 2 5 1 2\n"], tmp_path)


def test_deep_to_string_and_join_of_several_strings(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt(); String w = sc.next();
        int[][] grid = new int[n][3]; grid[n - 1][1] = n;
        long[][] big = {{1L << 40, -1}, {0, 7}};
        System.out.println(Arrays.deepToString(grid) + " " + Arrays.deepToString(big));
        System.out.println(String.join("-", w, "b", w) + " " + String.join(",", List.of(w, "y")));
      }
    }"""
    check(java, ["2 ab\n", "1 z\n"], tmp_path)


def test_to_array_of_a_typed_array(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<Integer> li = new ArrayList<>(); for (int i = 0; i < n; i++) li.add(sc.nextInt());
        li.sort(Collections.reverseOrder());
        Integer[] arr = li.toArray(new Integer[0]);
        String[] ws = new ArrayList<>(List.of("b", "a")).toArray(new String[2]);
        System.out.println(arr.length + " " + arr[0] + " " + ws[1] + " " + li);
      }
    }"""
    check(java, ["3\n3 1 2\n", "1\n-4\n"], tmp_path)


def test_int_hash_wraps_as_java(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); String s = sc.next();
        int h = 0, g = 7, num = 0;
        for (int k = 0; k < s.length(); k++) { h = 31 * h + s.charAt(k); g = (g * 131) ^ s.charAt(k); }
        for (int k = 0; k < Math.min(9, s.length()); k++) num = num * 10 + s.charAt(k) % 10;
        System.out.println(h + " " + s.hashCode() + " " + (h == s.hashCode()) + " " + g + " " + num);
      }
    }"""
    check(java, ["hello\n", "abcdefghijklmnopqrstuvwxyz\n", "z\n"], tmp_path)


def test_sub_list_and_stack_empty(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        List<Integer> l = new ArrayList<>(); for (int i = 0; i < n; i++) l.add(sc.nextInt());
        List<Integer> sub = l.subList(1, l.size()); int s = 0;
        for (int x : l.subList(0, n / 2)) s += x;
        Stack<Integer> st = new Stack<>(); st.push(n);
        System.out.println(sub + " " + s + " " + st.empty() + " " + new Stack<Integer>().empty());
      }
    }"""
    check(java, ["3\n4 -2 7\n", "1\n0\n"], tmp_path)


def test_formatted_string_as_a_receiver_and_a_built_format(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt(); int v = sc.nextInt();
        String bin = String.format("%" + n + "s", Integer.toBinaryString(v)).replace(' ', '0');
        String pad = String.format("%5s", v).replace(" ", "_");
        System.out.println(bin + " " + pad + " " + String.format("%d-%d", n, v).length());
      }
    }"""
    check(java, ["6 5\n", "3 7\n"], tmp_path)


def test_printf_fixed_point_rounds_half_up_as_java(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt(); double a = n / 4.0, b = sc.nextDouble();
        System.out.printf("%.1f %.2f %f %.0f%n", a, b, a * b, b);
        System.out.println(String.format("%d: %.3f|%8.2f|%-8.1f|", n, b / 3, -b, a));
        System.out.printf("%.2f%%%n", 100.0 * n / 7);
      }
    }"""
    check(java, ["9 2.675\n", "10 0.125\n", "1 -0.15\n", "2 2.5\n"], tmp_path)


def test_character_case_conversions_are_chars(tmp_path: Path) -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in); char c = sc.next().charAt(0);
        int code = (int) Character.toLowerCase(c); int off = Character.toUpperCase(c) - 'A';
        System.out.println(code + " " + off + " " + Character.toUpperCase(c) + (char) (Character.toLowerCase(c) + 1));
      }
    }"""
    check(java, ["Q\n", "b\n"], tmp_path)
