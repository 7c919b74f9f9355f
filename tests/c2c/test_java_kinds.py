# ruff: noqa: E501
"""Whole programs of the kinds issue #51 names, each run on several stdin cases through the real Java (the
oracle) and through its translation: a Deque / Stack used through both ends, the main class used as an
object, readers and writers handed to other classes, stream terminals, Java's number formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.c2c_kinds import java_tokens
from plugins.c2c.detok import detokenize
from plugins.c2c.translate import translate
from tests.c2c.test_program_kinds import check

pytestmark = pytest.mark.usefixtures("jdk")


def test_deque_push_pop_peek_poll_work_at_its_head_and_a_stack_at_its_top(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    Deque<Integer> st = new ArrayDeque<>();
    ArrayDeque<Integer> q = new ArrayDeque<>();
    LinkedList<Integer> ll = new LinkedList<>();
    Stack<Integer> s = new Stack<>();
    for (int i = 0; i < n; i++) {
      int v = sc.nextInt();
      st.push(v); q.offer(v); ll.push(v); s.push(v);
      if (v % 3 == 0) { q.addFirst(v * 10); st.addLast(-v); }
    }
    System.out.println(st.peek() + " " + st.peekLast() + " " + q.peek() + " " + q.peekLast() + " " + ll.peek() + " " + s.peek());
    System.out.println(st.poll() + " " + st.pop() + " " + q.poll() + " " + q.pollLast() + " " + ll.pop() + " " + ll.poll() + " " + s.pop());
    StringBuilder sb = new StringBuilder();
    for (int x : st) sb.append(x).append(',');
    sb.append('|');
    for (int x : q) sb.append(x).append(',');
    sb.append('|');
    for (int x : s) sb.append(x).append(',');
    System.out.println(sb);
    System.out.println(st + " " + s + " " + ll);
    while (!st.isEmpty()) System.out.print(st.pop() + " ");
    System.out.println();
    Deque<int[]> dq = new ArrayDeque<>();
    dq.push(new int[]{1, 2}); dq.offerLast(new int[]{3, 4}); dq.offerFirst(new int[]{5, 6});
    System.out.println(dq.peekFirst()[0] + " " + dq.peekLast()[1] + " " + dq.removeFirst()[1] + " " + dq.removeLast()[0] + " " + dq.size());
  }
}"""
    check(java, ["5\n1 2 3 4 6\n", "3\n9 8 7\n", "2\n3 5\n"], tmp_path)


def test_a_deque_used_only_as_a_stack_stays_at_the_lists_end() -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Deque<Integer> st = new ArrayDeque<>();
    for (int i = 0; i < 5; i++) st.push(i);
    while (!st.isEmpty()) System.out.println(st.peek() + st.pop());
  }
}"""
    out = detokenize(translate(java_tokens(java)))
    assert "st . append ( i )" in out and "st . pop ( )" in out and "st [ - 1 ]" in out, out


def test_the_main_classs_reader_and_writer_fields_read_from_another_class(tmp_path: Path) -> None:
    java = """import java.io.*;
import java.util.*;
public class Main {
  static Scanner sc = new Scanner(System.in);
  static PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
  public static void main(String[] args) {
    int t = sc.nextInt();
    Worker w = new Worker();
    while (t-- > 0) w.once();
    out.flush();
  }
}
class Worker {
  void once() {
    int a = Main.sc.nextInt(), b = Main.sc.nextInt();
    Main.out.println(a + b);
    Main.out.printf("%d%n", a * b);
  }
}"""
    check(java, ["2\n1 2\n3 4\n", "1\n-5 5\n"], tmp_path)


def test_stream_terminals_optionals_and_collectors(tmp_path: Path) -> None:
    java = """import java.util.*;
import java.util.stream.*;
public class Main {
  static Optional<Integer> firstOver(List<Integer> list, int k) {
    for (int x : list) if (x > k) return Optional.of(x);
    return Optional.empty();
  }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    int[] a = new int[n];
    for (int i = 0; i < n; i++) a[i] = sc.nextInt();
    List<Integer> list = new ArrayList<>();
    for (int x : a) list.add(x);
    int firstBig = IntStream.range(0, n).filter(i -> a[i] > 5).map(i -> a[i] * 2).findAny().orElse(-1);
    int firstEven = list.stream().filter(x -> x % 2 == 0).findFirst().orElse(0);
    boolean any = Arrays.stream(a).anyMatch(x -> x > 7);
    boolean all = list.stream().allMatch(x -> x > 0);
    boolean none = IntStream.of(a).noneMatch(x -> x == 4);
    int prod = Arrays.stream(a).reduce(1, (x, y) -> x * y % 1000003);
    int s = list.stream().mapToInt(Integer::intValue).sum();
    long s2 = Arrays.stream(a).asLongStream().sum();
    int mx = Arrays.stream(a).max().getAsInt();
    int mn = IntStream.of(a).min().getAsInt();
    int mx2 = list.stream().max(Integer::compare).get();
    Optional<Integer> r = list.stream().reduce(Integer::sum);
    List<Integer> boxed = Arrays.stream(a).boxed().sorted(Comparator.reverseOrder()).collect(Collectors.toList());
    String joined = list.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
    Map<Boolean, List<Integer>> parts = list.stream().collect(Collectors.partitioningBy(x -> x % 2 == 0));
    Map<Integer, Long> counts = list.stream().collect(Collectors.groupingBy(x -> x % 3, Collectors.counting()));
    Set<Integer> set = list.stream().collect(Collectors.toSet());
    double avg = Arrays.stream(a).average().orElse(0.0);
    long cnt = list.stream().filter(x -> x > 2).count();
    int total = list.stream().collect(Collectors.summingInt(x -> x));
    System.out.println(firstBig + " " + firstEven + " " + any + " " + all + " " + none + " " + prod);
    System.out.println(s + " " + s2 + " " + mx + " " + mn + " " + mx2 + " " + r.get() + " " + cnt + " " + total);
    System.out.println(boxed + " " + joined + " " + set.size());
    System.out.println(parts.get(true) + " " + parts.get(false) + " " + counts.get(0) + " " + counts.getOrDefault(1, 0L));
    System.out.printf("%.3f%n", avg);
    OptionalInt oi = IntStream.of(a).filter(x -> x > 100).findFirst();
    System.out.println(oi.isPresent() + " " + oi.orElse(7) + " " + firstOver(list, 5).orElse(-9) + " " + firstOver(list, 3).isPresent());
  }
}"""
    check(java, ["5\n1 2 3 4 6\n", "4\n9 8 7 3\n", "3\n3 1 1\n"], tmp_path)


def test_readers_and_writers_passed_to_other_classes_and_kept_in_their_fields(tmp_path: Path) -> None:
    java = """import java.io.*;
import java.util.*;
public class Main {
  static class FastIO extends PrintWriter {
    BufferedReader br; StringTokenizer st;
    FastIO() { super(System.out); br = new BufferedReader(new InputStreamReader(System.in)); }
    String next() {
      while (st == null || !st.hasMoreTokens()) {
        try { st = new StringTokenizer(br.readLine()); } catch (IOException e) { return null; }
      }
      return st.nextToken();
    }
    int nextInt() { return Integer.parseInt(next()); }
  }
  static class Graph {
    FastIO io; int n; List<Integer>[] adj;
    Graph(FastIO io) { this.io = io; n = io.nextInt(); adj = new List[n]; for (int i = 0; i < n; i++) adj[i] = new ArrayList<>(); }
    void read(int m) { for (int i = 0; i < m; i++) { int a = io.nextInt() - 1, b = this.io.nextInt() - 1; adj[a].add(b); adj[b].add(a); } }
    void report() { for (int i = 0; i < n; i++) io.println(adj[i].size()); }
  }
  public static void main(String[] args) {
    FastIO io = new FastIO();
    Graph g = new Graph(io);
    g.read(io.nextInt());
    g.report();
    io.print(io.next() + " ");
    io.println(io.nextInt() + 1);
    io.close();
  }
}"""
    check(java, ["3 2\n1 2\n2 3\nab 4\n", "2 1\n1 2\nq -3\n"], tmp_path)


def test_a_stack_handed_to_methods_keeps_one_end(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static void pushAll(Deque<Integer> s, int n) { for (int i = 1; i <= n; i++) s.push(i); }
  static int drain(Deque<Integer> t) { int last = 0; while (!t.isEmpty()) last = last * 10 + t.pop(); return last; }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    Deque<Integer> st = new ArrayDeque<>();
    pushAll(st, n);
    st.push(0);
    System.out.println(st.peek() + " " + drain(st));
  }
}"""
    check(java, ["3\n", "5\n"], tmp_path)
    assert "s . append ( i )" in detokenize(translate(java_tokens(java)))  # a stack at the list's end: O(1)


def test_main_class_made_as_objects_by_a_constructor_that_reads(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  int n; long[] a; long total;
  Main(Scanner sc) { n = sc.nextInt(); a = new long[n]; for (int i = 0; i < n; i++) { a[i] = sc.nextLong(); total += a[i]; } }
  long best() { long m = Long.MIN_VALUE + 1; for (long x : a) m = Math.max(m, x); return m; }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    Main ins = new Main(sc);
    Main other = new Main(sc);
    System.out.println(ins.total + " " + ins.best() + " " + other.n + " " + other.total);
    ins.total += 5;
    System.out.println(ins.total + other.a[0]);
  }
}"""
    check(java, ["3\n1 2 3\n2\n5 6\n", "1\n-4\n1\n0\n"], tmp_path)


def test_main_class_objects_made_in_a_loop_with_static_state_and_recursion(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static int created = 0;
  static final int MOD = 1_000_000_007;
  int[] parent; int comps;
  Main(int n) { parent = new int[n]; comps = n; for (int i = 0; i < n; i++) parent[i] = i; created++; }
  Main() { this(1); }
  int find(int x) { return parent[x] == x ? x : (parent[x] = find(parent[x])); }
  boolean union(int a, int b) { a = find(a); b = find(b); if (a == b) return false; parent[a] = b; comps--; return true; }
  static long pow(long b, long e) { long r = 1; b %= MOD; while (e > 0) { if ((e & 1) == 1) r = r * b % MOD; b = b * b % MOD; e >>= 1; } return r; }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int t = sc.nextInt();
    List<Main> all = new ArrayList<>();
    while (t-- > 0) {
      int n = sc.nextInt(), m = sc.nextInt();
      Main dsu = new Main(n);
      for (int i = 0; i < m; i++) dsu.union(sc.nextInt() - 1, sc.nextInt() - 1);
      all.add(dsu);
      System.out.println(dsu.comps + " " + pow(2, dsu.comps));
    }
    Main one = new Main();
    System.out.println(created + " " + all.size() + " " + one.comps + " " + all.get(0).find(0));
  }
}"""
    check(java, ["2\n3 1\n1 2\n4 2\n1 2\n3 4\n", "1\n5 0\n"], tmp_path)


def test_nested_class_of_a_main_class_kept_a_class_reads_its_statics(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static final int MOD = 1000;
  static int calls = 0;
  static int twice(int x) { calls++; return 2 * x % MOD; }
  static class Node { int v; Node(int v) { this.v = twice(v) + MOD; } }
  int total;
  Main(int t) { total = t; }
  void add(Node n) { total += n.v; }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    Main m = new Main(n);
    for (int i = 0; i < n; i++) m.add(new Node(sc.nextInt()));
    System.out.println(m.total + " " + calls);
  }
}"""
    check(java, ["3\n1 2 600\n", "1\n999\n"], tmp_path)


def test_a_main_object_without_state_of_its_own_stays_flattened() -> None:
    java = """import java.util.*;
public class Main {
  void run() { Scanner sc = new Scanner(System.in); System.out.println(sc.nextInt() + 1); }
  public static void main(String[] args) { new Main().run(); }
}"""
    out = detokenize(translate(java_tokens(java)))
    assert "class Main" not in out and "def run ( ) :" in out, out


def test_decimal_format_and_string_format_patterns(tmp_path: Path) -> None:
    java = """import java.util.*;
import java.math.RoundingMode;
import java.text.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    double x = sc.nextDouble();
    long n = sc.nextLong();
    String w = sc.next();
    DecimalFormat df = new DecimalFormat("0.000");
    DecimalFormat d2 = new DecimalFormat("#.##");
    DecimalFormat d3 = new DecimalFormat("#,##0.00");
    DecimalFormat d4 = new DecimalFormat("0.0000000000");
    System.out.println(df.format(x) + " " + d2.format(x) + " " + d3.format(x * 1000) + " " + d4.format(x / 7));
    System.out.println(new DecimalFormat("00000").format(n) + " " + new DecimalFormat("0.#").format(x));
    DecimalFormat up = new DecimalFormat("0.00");
    up.setRoundingMode(RoundingMode.HALF_UP);
    System.out.println(up.format(0.125) + " " + new DecimalFormat("0.00").format(0.125) + " " + new DecimalFormat("#0.0%").format(x / 10));
    System.out.println(String.format("%5d|%-5d|%05d|%x|%X|%o", n, n, n, n, n, n));
    System.out.println(String.format("%.2f|%10.3f|%-8.1f|%e|%.3e", x, x, x, x, x));
    System.out.println(String.format("%s|%10s|%-10s|%c|%b|%%", w, w, w, w.charAt(0), n > 3));
    System.out.println(String.format("%,d", n * 1000) + " " + String.format("%,.2f", x * 1000));
    System.out.printf("%08.3f %+d %d%n", x, n, -n);
    System.out.println(String.format("%3$s %1$s %2$s", "a", "b", w));
    System.out.println(String.format("%.0f %.1f", 2.5, 0.25));
  }
}"""
    check(java, ["3.14159 42 hello\n", "-2.5 7 ab\n", "1234.5678 123456 xyz\n"], tmp_path)


def test_poll_and_peek_of_an_empty_queue_give_null(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    Map<Integer, Integer> m = new HashMap<>();
    Queue<Integer> q = new ArrayDeque<>();
    Deque<Integer> d = new ArrayDeque<>();
    for (int i = 0; i < n; i++) { int v = sc.nextInt(); q.add(v); d.push(v); Integer c = m.get(v); if (c == null) m.put(v, 1); else m.put(v, c + 1); }
    Integer x;
    long s = 0;
    while ((x = q.poll()) != null) s += x * m.get(x);
    int popped = 0;
    while (d.peekLast() != null && d.peekLast() < 4) { d.pollLast(); popped++; }
    System.out.println(s + " " + popped + " " + (q.peek() == null) + " " + (d.pollFirst() == null));
  }
}"""
    check(java, ["4\n1 2 2 5\n", "0\n", "2\n1 3\n"], tmp_path)


def test_loops_stepping_by_a_variable_are_range_loops(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt(), k = sc.nextInt();
    boolean[] comp = new boolean[n + 1];
    long[] divSum = new long[n + 1];
    int primes = 0;
    for (int i = 2; i <= n; i++) {
      if (!comp[i]) { primes++; for (long j = (long) i * i; j <= n; j += i) comp[(int) j] = true; }
      for (int j = i; j <= n; j += i) divSum[j] += i;
    }
    long s = 0;
    for (int i = n; i > 0; i -= k) s += divSum[i];
    for (int i = 0; i < n; i += 2 * k) s -= i;
    System.out.println(primes + " " + s + " " + divSum[n]);
  }
}"""
    check(java, ["100 3\n", "1 1\n", "200000 7\n"], tmp_path)
    out = detokenize(translate(java_tokens(java)))
    assert "for j in range ( i * i , n + 1 , i ) :" in out and "range ( n , 0 , - k )" in out, out


def test_a_long_hash_step_in_a_loop_wraps_to_64_bits_and_runs_in_linear_time(tmp_path: Path) -> None:
    """A rolling hash on a long with no modulus (``h = h * 131 + c``) wraps modulo 2^64 in Java; unwrapped,
    Python's number grows with the string, every step costs in proportion to its length (200,000
    characters: over the 20 s limit), and the hash printed is not Java's."""
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    String s = sc.next();
    int k = sc.nextInt();
    long h = 0, g = 7;
    for (int i = 0; i < s.length(); i++) {
      h = h * 131 + s.charAt(i);
      g = (g * 1000003L) ^ (s.charAt(i) * k);
    }
    long x = 0;
    for (int i = 0; i < k; i++) x = x * 10 + i % 10;
    System.out.println(h + " " + g + " " + x);
  }
}"""
    long = "".join("abcdefghij"[(i * i + 3 * i) % 10] for i in range(200_000))
    check(java, [f"{long} 7\n", "abc 3\n", "zz 1\n"], tmp_path)


def test_a_for_loop_whose_body_changes_its_bound_reads_the_bound_on_every_turn(tmp_path: Path) -> None:
    """``i < q . size ( )`` over a list the body grows (a breadth-first walk), ``i <= Math . sqrt ( n )`` with
    ``n /= i`` inside, ``i < m`` with ``m --`` inside: Java tests the bound on every turn, a Python ``range``
    reads it once (the walk stopped after the first items; the trial division ran to the first n's root)."""
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    long m = sc.nextLong();
    List<Integer> q = new ArrayList<>();
    q.add(1);
    for (int i = 0; i < q.size(); i++) {
      int v = q.get(i);
      if (2 * v <= n) q.add(2 * v);
      if (2 * v + 1 <= n) q.add(2 * v + 1);
    }
    int turns = 0;
    for (long i = 2; i <= Math.sqrt(m); i++) {
      turns++;
      while (m % i == 0) m /= i;
    }
    int k = n, steps = 0;
    for (int i = 0; i < k; i++) { steps++; if (i % 3 == 0) k--; }
    System.out.println(q.size() + " " + turns + " " + m + " " + steps);
  }
}"""
    check(java, ["10 1099511627776\n", "1 97\n", "100000 600851475143\n"], tmp_path)


def test_the_main_classs_builder_field_edited_in_its_static_methods(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static StringBuilder sb = new StringBuilder();
  static StringBuilder log = new StringBuilder("L");
  static void add(int x) { sb.append(x).append(' '); log.append(x % 3); }
  static int grow() { return sb.append(1).append(2).length(); }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    for (int i = 0; i < n; i++) add(sc.nextInt());
    log.insert(0, '['); log.reverse();
    System.out.println(grow() + " " + sb.append('|').length() + " " + log);
    log.setLength(2);
    System.out.println(sb + " " + log);
  }
}"""
    check(java, ["3\n4 5 6\n", "0\n"], tmp_path)


def test_builder_fields_of_another_class_edited_in_its_methods(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    Acc a = new Acc(), b = new Acc();
    for (int i = 0; i < n; i++) { int v = sc.nextInt(); a.add(v); if (v % 2 == 0) b.add(v); }
    a.sb.append('!');
    System.out.println(a.sb.append(1).append(2).length() + " " + b.done());
    System.out.println(a.done() + " " + Acc.log);
  }
}
class Acc {
  StringBuilder sb = new StringBuilder();
  static StringBuilder log = new StringBuilder();
  void add(int x) { sb.append(x).append(','); log.append('.'); this.sb.append(x % 2); }
  String done() { sb.append(log); sb.deleteCharAt(0); sb.insert(0, "<"); sb.reverse(); return sb.toString() + sb.length(); }
}"""
    check(java, ["3\n4 5 6\n", "1\n7\n"], tmp_path)


def test_the_main_class_as_an_object_with_a_builder_field(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  StringBuilder sb = new StringBuilder();
  int k;
  Main(int k) { this.k = k; sb.append(k).append(':'); }
  void add(int x) { sb.append(x * k).append(' '); }
  int grow() { return sb.append(1).append(2).length(); }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    Main m = new Main(2), o = new Main(3);
    for (int i = 0; i < n; i++) { int v = sc.nextInt(); m.add(v); o.add(v); }
    System.out.println(m.grow() + " " + o.sb.length());
    System.out.println(m.sb);
    System.out.println(o.sb.toString());
  }
}"""
    check(java, ["3\n4 5 6\n", "0\n"], tmp_path)


def test_a_builder_appended_inside_expressions_is_edited_where_java_edits_it(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    StringBuilder sb = new StringBuilder();
    int loops = 0;
    while (sb.append('a').length() < n) loops++;
    boolean big = n > 3 && sb.append("b").length() > 4;
    String t = n % 2 == 0 ? sb.append(n).toString() : "odd";
    System.out.println(loops + " " + big + " " + t + " " + sb.append('!').append(sb.length()));
  }
}"""
    check(java, ["5\n", "2\n", "0\n"], tmp_path)


def test_a_nested_class_edits_its_own_and_the_main_classs_builder_fields(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static StringBuilder log = new StringBuilder();
  static int calls;
  static class Node {
    StringBuilder sb = new StringBuilder();
    int f(int x) { this.sb.append(x).append(2); Main.log.append(x); Main.calls++; return sb.append(1).append(2).length(); }
  }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    Node a = new Node();
    int x = sc.nextInt();
    System.out.println(a.f(x) + " " + a.f(x + 1) + " " + a.sb + " " + log + " " + Main.log.append(9).length() + " " + calls);
  }
}"""
    check(java, ["3\n", "-7\n"], tmp_path)


def test_library_calls_bracket_arguments_that_are_operator_expressions(tmp_path: Path) -> None:
    """An argument that is itself an operator expression (``acc - i``, a ternary) stays one operand where the
    emitter splices it beside an operator: ``Math.floorMod(acc - i, 7)`` is not ``acc - i % 7``."""
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    int acc = 3;
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < n; i++) { acc = Math.floorMod(acc - i, 7) + Math.floorDiv(acc - 2 * i, 3); list.add(i % 4); }
    System.out.println(acc + " " + Math.signum(acc - 5) + " " + Integer.compare(acc - 3, n > 2 ? 1 : 4));
    System.out.println(Collections.nCopies(n - 1, 7) + " " + Collections.frequency(list, n > 3 ? 1 : 2) + " " + list.contains(n > 3 ? 9 : 2));
    System.out.println(Character.isDigit(n > 2 ? 'a' : '1') + " " + "ab".concat(n > 1 ? "x" : "y") + " " + Math.round(n > 3 ? 2.5 : -2.5));
    System.out.println(-"ab".compareTo("b") + " " + Integer.valueOf(n).compareTo(4) * -1);
  }
}"""
    check(java, ["5\n", "3\n", "1\n"], tmp_path)


def test_a_stringbuilder_field_appended_in_a_method_is_appended_in_place(tmp_path: Path) -> None:
    """A StringBuilder field (a module global) appended in a method: ``sb += x`` on a global str copies the
    whole text each time (400,000 appends took 67 s); its ``TextBuilder`` keeps the parts. Its reads and
    edits stay Java's: toString (a snapshot), length, charAt, indexOf, insert, reverse, setLength, a copy,
    printing, a reassignment; another class's ``this . out`` appended (it was ``self . out + x``, no append)."""
    java = """import java.util.*;
public class Main {
  static StringBuilder sb = new StringBuilder();
  static StringBuilder log;
  static int n;
  static void emit(int v) { sb.append(v).append('\\n'); }
  static void note(String s) { log.append(s); log.append(' '); }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    n = sc.nextInt();
    log = new StringBuilder("log:");
    for (int i = 0; i < n; i++) emit(i * 7 % 1000);
    String snap = sb.toString();
    note("a" + n); note("b");
    System.out.print(sb);
    System.out.println(sb.length() + " " + sb.charAt(0) + " " + snap.length() + " " + log + " " + log.indexOf("b"));
    StringBuilder copy = new StringBuilder(log);
    copy.append("!");
    log.insert(0, '[');
    log.reverse();
    System.out.println(log + " " + copy + " " + log.toString().equals(copy.toString()));
    sb.setLength(2);
    sb.append("end");
    System.out.println(sb + "|" + snap.substring(0, 2) + "|" + sb.toString().contains("end"));
    sb = new StringBuilder();
    for (int i = 0; i < 3; i++) sb.append(i);
    System.out.println(sb.toString());
    Acc acc = new Acc();
    for (int i = 0; i < n; i++) acc.add(i);
    System.out.println(acc.text().length() + " " + acc.text().substring(0, 3));
  }
}
class Acc {
  StringBuilder out = new StringBuilder();
  void add(int x) { this.out.append(x).append(','); this.out.append(' '); }
  String text() { return this.out.toString(); }
}"""
    check(java, ["3\n", "1\n", "300000\n"], tmp_path)


def test_a_method_that_edits_a_stringbuilder_parameter_hands_the_edits_back_to_its_caller(tmp_path: Path) -> None:
    # a builder is a Python str: the method returns it and each call statement assigns it back (the resolver's
    # step for the program's own methods, as a statement), called bare, through the main class, and nested
    java = """import java.util.*;
public class Main {
  static void add(StringBuilder sb, int x) { if (x > 0) { add(sb, x - 1); } sb.append(x).append(' '); }
  static void wrap(String tag, StringBuilder out) { out.insert(0, tag); out.append(tag); }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in); int n = sc.nextInt();
    StringBuilder sb = new StringBuilder();
    add(sb, n);
    Main.wrap("|", sb);
    System.out.println(sb.toString() + sb.length());
  }
}"""
    check(java, ["3\n", "0\n"], tmp_path)
    out = detokenize(translate(java))
    assert "sb = add ( sb , n )" in out and "sb = wrap (" in out and "return out" in out, out


def test_a_for_each_lambda_edits_builders_collections_and_maps_as_a_loop_body(tmp_path: Path) -> None:
    java = """import java.util.*;
import java.util.stream.*;
public class Main {
  static StringBuilder all = new StringBuilder();
  static void walk(List<Integer> xs, Map<Integer, Integer> seen) {
    StringBuilder sb = new StringBuilder();
    xs.forEach(x -> sb.append(x).append(' '));
    seen.forEach((k, v) -> { sb.append(k).append('=').append(v).append(';'); all.append(v); });
    System.out.println(sb.toString().trim());
  }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    List<Integer> xs = new ArrayList<>();
    for (int i = 0; i < n; i++) xs.add(sc.nextInt());
    StringBuilder sb = new StringBuilder();
    xs.forEach(x -> sb.append(x).append(','));
    List<Integer> doubled = new ArrayList<>();
    xs.forEach(x -> doubled.add(x * 2));
    Map<Integer, Integer> count = new TreeMap<>();
    xs.forEach(x -> { count.merge(x % 3, 1, Integer::sum); sb.append('.'); });
    StringBuilder big = new StringBuilder();
    xs.stream().filter(x -> x > 2).forEach(x -> big.append(x));
    IntStream.range(0, n).forEach(i -> big.append(i % 10));
    Set<Integer> odd = new HashSet<>();
    xs.forEach(x -> { if (x % 2 == 1) odd.add(x); });
    System.out.println(sb);
    StringBuilder counts = new StringBuilder();
    count.forEach((k, v) -> counts.append(k).append(':').append(v).append(' '));
    Map<Integer, Integer> first = new LinkedHashMap<>();
    xs.forEach(x -> first.putIfAbsent(x % 4, x));
    System.out.println(doubled + " " + counts + big + " " + odd.size());
    walk(xs, first);
    System.out.println(all);
  }
}"""
    check(java, ["4\n1 2 3 4\n", "6\n9 3 5 5 0 12\n", "0\n"], tmp_path)


def test_chained_builder_edits_keep_javas_order_on_a_local_and_on_a_field(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static StringBuilder out = new StringBuilder();
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    String w = sc.next();
    StringBuilder log = new StringBuilder(w);
    log.insert(0, '[').reverse();
    System.out.println(log);
    StringBuilder b = new StringBuilder();
    b.append(w).append(w.length()).reverse().append('!');
    System.out.println(b);
    b.insert(1, "xy").deleteCharAt(0).append(3);
    System.out.println(b.toString());
    b.setLength(2);
    b.append("ok").insert(0, 7);
    System.out.println(b);
    StringBuilder c = new StringBuilder(w);
    c.setCharAt(0, 'Z');
    c.reverse().setCharAt(0, 'Q');
    System.out.println(c + " " + c.length());
    System.out.println(c.reverse().insert(0, "<").append(">"));
    c.delete(0, 2).replace(0, 1, "RR").append('.');
    System.out.println(c + " " + c.insert(1, '-').length() + " " + c + " " + c.deleteCharAt(1).reverse());
    out.append(w).insert(0, '(').append(')').reverse();
    for (int i = 0; i < 3; i++) out.append(i);
    out.deleteCharAt(0);
    out.append('#');
    System.out.println(out + " " + out.length());
  }
}"""
    check(java, ["hello\n", "ab\n", "xyzw\n"], tmp_path)


def test_remove_if_replace_all_and_bulk_edits_change_lists_sets_and_maps_in_place(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static List<Integer> kept = new ArrayList<>();
  static void trim(List<Integer> xs, int limit) { xs.removeIf(x -> x > limit); }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    List<Integer> xs = new ArrayList<>();
    for (int i = 0; i < n; i++) xs.add(sc.nextInt());
    List<Integer> ys = new ArrayList<>(xs);
    List<Integer> alias = ys;
    ys.removeIf(x -> x % 2 == 0);
    alias.replaceAll(x -> x * 3 + 1);
    Set<Integer> set = new TreeSet<>(xs);
    set.removeIf(x -> x < 3);
    Map<Integer, Integer> cnt = new TreeMap<>();
    for (int x : xs) cnt.put(x, cnt.getOrDefault(x, 0) + 1);
    cnt.replaceAll((k, v) -> v * 10 + k);
    Map<Integer, Integer> twice = new TreeMap<>(cnt);
    cnt.values().removeIf(v -> v % 2 == 0);
    twice.entrySet().removeIf(e -> e.getKey() + e.getValue() > 30);
    kept.addAll(xs);
    trim(kept, 4);
    kept.addAll(0, ys);
    Collections.addAll(kept, 7, 8);
    Set<Integer> seen = new HashSet<>(xs);
    seen.addAll(ys);
    seen.retainAll(set);
    List<Integer> rest = new ArrayList<>(xs);
    rest.removeAll(set);
    rest.retainAll(Arrays.asList(1, 2, 3, 4));
    System.out.println(seen.size() + " " + rest + " " + xs.containsAll(rest) + " " + rest.containsAll(xs));
    String s = "a1b22c";
    System.out.println(ys + " " + alias.size() + " " + set + " " + s.replaceAll("[0-9]+", "#"));
    for (int k : cnt.keySet()) System.out.print(k + "=" + cnt.get(k) + " ");
    System.out.println();
    for (int k : twice.keySet()) System.out.print(k + "=" + twice.get(k) + " ");
    System.out.println();
    System.out.println(kept);
  }
}"""
    check(java, ["6\n3 1 4 1 5 9\n", "4\n2 2 8 6\n", "0\n"], tmp_path)


def test_a_char_array_made_by_a_call_is_text_where_a_string_is_made_of_it(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    String s = sc.next();
    char[] cs = s.toCharArray();
    Arrays.sort(cs);
    System.out.println(String.valueOf(s.toCharArray()) + " " + String.valueOf(cs, 1, 2) + " " + new String(s.toCharArray()).length());
  }
}"""
    check(java, ["hello\n", "zyx\n"], tmp_path)


def test_an_interfaces_default_methods_are_inherited_and_a_renamed_method_is_referenced(tmp_path: Path) -> None:
    java = """import java.util.*;
import java.util.function.*;
public class Main {
  interface Shape {
    long area();
    default String kind() { return "shape"; }
    default long twice() { return 2 * area(); }
  }
  static class Sq implements Shape { int s; Sq(int s) { this.s = s; } public long area() { return (long) s * s; } public String kind() { return "sq"; } }
  static class Circ implements Shape, Comparable<Circ> {
    int r; Circ(int r) { this.r = r; }
    public long area() { return 3L * r * r; }
    public int compareTo(Circ o) { return r - o.r; }
  }
  static int counter = 0;
  static int next() { return ++counter; }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    List<Shape> shapes = new ArrayList<>();
    for (int i = 1; i <= n; i++) shapes.add(i % 2 == 0 ? new Sq(i) : new Circ(i));
    StringBuilder sb = new StringBuilder();
    for (Shape sh : shapes) sb.append(sh.kind()).append(sh.twice()).append(' ');
    Supplier<Integer> gen = Main::next;
    System.out.println(sb.toString().trim() + " " + gen.get() + gen.get());
  }
}"""
    check(java, ["5\n", "1\n"], tmp_path)


def test_a_sorted_maps_and_sets_head_and_tail_views_with_their_bounds(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt(), x = sc.nextInt();
    TreeMap<Integer, Integer> tm = new TreeMap<>();
    TreeSet<Integer> ts = new TreeSet<>();
    for (int i = 0; i < n; i++) { int v = sc.nextInt(); tm.merge(v, 1, Integer::sum); ts.add(v); }
    int below = 0;
    for (int c : tm.headMap(x).values()) below += c;
    StringBuilder sb = new StringBuilder();
    for (int k : tm.tailMap(x).keySet()) sb.append(k).append(' ');
    for (int k : tm.headMap(x, true).keySet()) sb.append(k).append(',');
    System.out.println(below + " " + sb + tm.tailMap(x, false).size() + " " + ts.headSet(x, true).size() + " " + ts.tailSet(x, false));
  }
}"""
    check(java, ["6 4\n5 1 4 4 9 2\n", "3 10\n1 2 3\n", "0 1\n"], tmp_path)


def test_a_for_each_lambda_over_a_fields_hash_map_walks_javas_order(tmp_path: Path) -> None:
    java = """import java.util.*;
import java.util.stream.*;
public class Main {
  static class Book {
    Map<Integer, Integer> m = new HashMap<>();
    String walk(int n) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < n; i++) m.put(i * 5, i);
      this.m.forEach((k, v) -> sb.append(k + v).append(' '));
      m.keySet().forEach(k -> sb.append(k % 3));
      m.values().forEach((Integer v) -> sb.append(v));
      m.entrySet().forEach(e -> sb.append(e.getKey()).append(':').append(e.getValue()).append(','));
      Arrays.stream(new int[]{3, 1, 2}).forEach(x -> sb.append(x * 2));
      "abc".chars().forEach(c -> sb.append((char) (c + 1)));
      return sb.toString();
    }
  }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    System.out.println(new Book().walk(sc.nextInt()));
  }
}"""
    check(java, ["5\n", "40\n"], tmp_path)


def test_a_bare_return_in_a_for_each_lambda_ends_that_turn_of_the_loop(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    List<Integer> xs = new ArrayList<>();
    for (int i = 0; i < n; i++) xs.add(sc.nextInt());
    StringBuilder sb = new StringBuilder();
    xs.forEach(x -> {
      if (x % 2 == 0) return;
      for (int k = 0; k < x; k++) { if (k > 2) break; sb.append(k); }
      sb.append('|');
    });
    Map<Integer, Integer> m = new TreeMap<>();
    xs.forEach(x -> { if (x > 5) { return; } m.merge(x, 1, Integer::sum); });
    List<Integer> found = new ArrayList<>();
    xs.forEach(x -> { for (int y : xs) { if (y > x) return; } found.add(x); });
    System.out.println(sb + " " + m.size() + " " + found);
  }
}"""
    check(java, ["5\n3 4 7 1 9\n", "3\n2 2 8\n", "0\n"], tmp_path)


def test_a_hash_or_tree_map_handed_to_a_method_iterates_there_in_javas_order(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static String show(Map<String, Integer> m) {
    StringBuilder sb = new StringBuilder();
    for (String k : m.keySet()) sb.append(k).append('=').append(m.get(k)).append(' ');
    return sb.toString();
  }
  static String keys(Map<Integer, Integer> t) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<Integer, Integer> e : t.entrySet()) sb.append(e.getKey()).append(',');
    return sb.toString();
  }
  static int firstOf(Set<Integer> s) { for (int x : s) return x; return -1; }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int n = sc.nextInt();
    Map<String, Integer> count = new HashMap<>();
    Map<Integer, Integer> tree = new TreeMap<>();
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < n; i++) {
      String w = sc.next();
      count.put(w, count.getOrDefault(w, 0) + 1);  // merge would put a new key at its bucket's head
      tree.merge(w.length() * 7 % 10, 1, Integer::sum);
      seen.add(w.length() * 37 % 101);
    }
    System.out.println(show(count));
    System.out.println(keys(tree) + " " + firstOf(seen));
  }
}"""
    check(java, ["6\nzeta alpha mid zeta beta omega\n", "3\nxxxxxxxxxxxxxxxx y zz\n"], tmp_path)


def test_mains_variables_named_like_builtins_do_not_hide_them_from_other_methods(tmp_path: Path) -> None:
    java = """import java.util.*;
public class Main {
  static int best(int a, int b) { return Math.max(a, b) + Math.min(a, b); }
  static int total(int[] a) { int s = 0; for (int x : a) s += x; return Math.abs(s) + String.valueOf(s).length(); }
  public static void main(String[] args) {
    Scanner sc = new Scanner(System.in);
    int max = sc.nextInt();
    int min = sc.nextInt();
    int[] list = {max, min};
    String str = "x" + max;
    int sum = best(max, min) + total(list);
    System.out.println(sum + " " + str + " " + list.length);
  }
}"""
    check(java, ["3 4\n", "-9 2\n"], tmp_path)
