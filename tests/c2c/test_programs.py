"""Whole Java programs -> Python scripts that read stdin and print what the Java prints (one test per construct)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.c2c_kinds import java_tokens
from plugins.c2c.detok import compiles, detokenize
from plugins.c2c.task import C2cTask, clean_request, safe_translate
from plugins.c2c.translate import parses_cleanly


def run(java: str, stdin: str = "") -> str:
    """Translate the program as the task does and run the Python on ``stdin``; its stdout."""
    request = clean_request("0", java_tokens(java))
    assert parses_cleanly(request)
    tokens_out = safe_translate(request)
    assert compiles(tokens_out), detokenize(tokens_out)
    proc = subprocess.run(
        [sys.executable, "-c", detokenize(tokens_out)], input=stdin, capture_output=True, text=True, timeout=20
    )
    assert proc.returncode == 0, proc.stderr + "\n" + detokenize(tokens_out)
    return proc.stdout


def test_scanner_tokens_across_lines() -> None:
    java = """import java.util.*;
    public class Main { public static void main(String[] args) {
      Scanner sc = new Scanner(System.in); int n = sc.nextInt(); long s = 0;
      for (int i = 0; i < n; i++) s += sc.nextLong();
      double d = sc.nextDouble(); String w = sc.next();
      System.out.println(s + " " + w); System.out.println(d * 2); } }"""
    assert run(java, "3\n1 2\n3\n1.5 abc\n") == "6 abc\n3.0\n"


def test_scanner_mixes_lines_and_tokens() -> None:
    java = """import java.util.Scanner;
    public class Main { public static void main(String[] args) {
      Scanner sc = new Scanner(System.in); int n = sc.nextInt(); sc.nextLine();
      String line = sc.nextLine(); int count = 0;
      while (sc.hasNext()) { sc.next(); count++; }
      System.out.println(n + ":" + line + ":" + count); } }"""
    assert run(java, "7\nhello big world\na b\nc\n") == "7:hello big world:3\n"


def test_buffered_reader_and_string_tokenizer() -> None:
    java = """import java.io.*; import java.util.*;
    public class Main { public static void main(String[] args) throws IOException {
      BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
      int n = Integer.parseInt(br.readLine());
      StringTokenizer st = new StringTokenizer(br.readLine()); long sum = 0;
      while (st.hasMoreTokens()) sum += Long.parseLong(st.nextToken());
      String[] parts = br.readLine().split(" ");
      System.out.println(n + " " + sum + " " + parts.length); } }"""
    assert run(java, "2\n10 20 30\nx y\n") == "2 60 2\n"


def test_read_until_null() -> None:
    java = """import java.io.*;
    public class Main { public static void main(String[] args) throws IOException {
      BufferedReader br = new BufferedReader(new InputStreamReader(System.in)); String line; int n = 0;
      while ((line = br.readLine()) != null) { n += line.length(); }
      System.out.println(n); } }"""
    assert run(java, "ab\ncde\n") == "5\n"


def test_hand_written_fast_reader_and_print_writer() -> None:
    java = """import java.io.*; import java.util.*;
    public class Main {
      public static void main(String[] args) { FastReader in = new FastReader();
        PrintWriter out = new PrintWriter(System.out);
        int n = in.nextInt(); long best = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) best = Math.max(best, in.nextLong());
        out.println(best); out.printf("%d items%n", n); out.flush(); out.close(); }
      static class FastReader { BufferedReader br; StringTokenizer st;
        FastReader() { br = new BufferedReader(new InputStreamReader(System.in)); }
        String next() { while (st == null || !st.hasMoreTokens()) { try { st = new StringTokenizer(br.readLine()); }
          catch (IOException e) { e.printStackTrace(); } } return st.nextToken(); }
        int nextInt() { return Integer.parseInt(next()); }
        long nextLong() { return Long.parseLong(next()); } } }"""
    assert run(java, "3\n5 -2\n9\n") == "9\n3 items\n"


def test_static_fields_globals_and_recursion() -> None:
    java = """import java.util.*;
    public class Main { static int calls; static long[] memo = new long[100];
      static long fib(int n) { calls++; if (n < 2) return n; if (memo[n] != 0) return memo[n];
        return memo[n] = fib(n - 1) + fib(n - 2); }
      static int depth(int n) { return n == 0 ? 0 : 1 + depth(n - 1); }
      public static void main(String[] args) { Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        System.out.println(fib(n) + " " + (calls > 0) + " " + depth(20000)); } }"""
    assert run(java, "50\n") == "12586269025 true 20000\n"


def test_instance_class_with_fields_constructor_and_static_member() -> None:
    java = """public class Main {
      static class Counter { int value; static int made = 0; String name = "c";
        Counter(int start) { value = start; made++; }
        void add(int d) { value += d; }
        int get() { return value; } }
      public static void main(String[] args) { Counter a = new Counter(5); Counter b = new Counter(1);
        a.add(3); b.add(a.get());
        System.out.println(a.get() + " " + b.get() + " " + Counter.made + " " + a.name); } }"""
    assert run(java) == "8 9 2 c\n"


def test_instance_main_class_and_overloads() -> None:
    java = """public class Main { int total;
      public static void main(String[] args) { new Main().solve(); }
      void solve() { total = add(1, 2) + add(1, 2, 3); System.out.println(total); }
      int add(int a, int b) { return a + b; }
      int add(int a, int b, int c) { return a + b + c; } }"""
    assert run(java) == "9\n"


def test_top_level_classes_interface_inheritance_and_sorting() -> None:
    java = """import java.util.*;
    interface Shape { int area(); }
    class Rect implements Shape { int w, h; Rect(int w, int h) { this.w = w; this.h = h; }
      public int area() { return w * h; } }
    class Square extends Rect { Square(int s) { super(s, s); } }
    class P implements Comparable<P> { int x; P(int x) { this.x = x; }
      public int compareTo(P o) { return Integer.compare(x, o.x); } }
    public class Main { public static void main(String[] args) {
      Shape s = new Square(3); List<P> ps = new ArrayList<>(); ps.add(new P(3)); ps.add(new P(1));
      Collections.sort(ps); System.out.println(s.area() + " " + ps.get(0).x); } }"""
    assert run(java) == "9 1\n"


def test_printf_and_string_format() -> None:
    java = """public class Main { public static void main(String[] args) {
      double x = 2.0 / 3; System.out.printf("%.3f %5d|%s%n", x, 42, "ok");
      String s = String.format("%08.2f", x); System.out.print(s); System.out.println(); } }"""
    assert run(java) == "0.667    42|ok\n00000.67\n"


def test_print_joins_like_java() -> None:
    java = """public class Main { public static void main(String[] args) { int a = 1, b = 2; boolean f = a < b;
      System.out.println(a + ":" + b); System.out.println(a + " " + b); System.out.println("v=" + f);
      System.out.print(a); System.out.print(' '); System.out.println(b); } }"""
    assert run(java) == "1:2\n1 2\nv=true\n1 2\n"


def test_static_initializer_and_enum() -> None:
    java = """public class Main { static int[] sq = new int[5];
      static { for (int i = 0; i < 5; i++) sq[i] = i * i; }
      enum Color { RED, GREEN }
      public static void main(String[] args) {
        System.out.println(sq[4] + " " + Color.GREEN.ordinal() + " " + Math.round(2.5)); } }"""
    assert run(java) == "16 1 3\n"


def test_invalid_program_gets_one_warning_and_a_translation(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    valid = java_tokens("import java.util.*; public class Main { public static void main(String[] a) { int x = 1; } }")
    broken = "import java . util . * ; public class Main { static int f ( ) { return 1 ; "
    folder = tmp_path / "C2C"
    folder.mkdir()
    (folder / "requests.json").write_text(json.dumps({"ok": valid, "bad": broken}), encoding="utf-8")
    caplog.set_level(logging.WARNING, logger="plugins.c2c")
    samples = C2cTask().discover(tmp_path)
    invalid = [r.getMessage() for r in caplog.records if "not valid Java" in r.getMessage()]
    assert len(samples) == 2 and len(invalid) == 1 and "bad" in invalid[0]
    out = safe_translate(broken)
    assert compiles(out) and "def f" in out


def test_builders_collections_sorted_maps_and_chars() -> None:
    java = """import java.util.*;
public class Main { public static void main(String[] args) { Scanner sc = new Scanner(System.in);
  String s = sc.next(); int n = sc.nextInt();
  StringBuilder sb = new StringBuilder();
  for (int i = 0; i < n; i++) { sb.append(i).append(","); }
  sb.deleteCharAt(sb.length() - 1);
  System.out.println(sb.toString());
  StringBuilder r = new StringBuilder(s); r.reverse(); System.out.println(r);
  int[] cnt = new int[26]; for (char c : s.toCharArray()) cnt[c - 'a']++;
  Map<Character, Integer> m = new HashMap<>();
  for (int i = 0; i < s.length(); i++) m.put(s.charAt(i), m.getOrDefault(s.charAt(i), 0) + 1);
  Map<Integer, Integer> tm = new TreeMap<>(); tm.put(5, 1); tm.put(2, 3); tm.merge(5, 10, Integer::sum);
  for (Map.Entry<Integer, Integer> e : tm.entrySet()) System.out.print(e.getKey() + "=" + e.getValue() + " ");
  System.out.println();
  List<String> words = new ArrayList<>(); words.add("x"); words.add("y");
  System.out.println(String.join("-", words) + " " + cnt[0] + " " + m.get('a'));
  long big = 1L << 40; System.out.println(big % 1000000007L);
  char up = (char) (s.charAt(0) - 'a' + 'A'); System.out.println(up);
  System.out.println(Math.max(3L, 5) + " " + Math.abs(-2.5) + " " + (10 / 4) + " " + (10 / 4.0));
  int[] arr = {3, 1, 2}; Arrays.sort(arr); System.out.println(Arrays.toString(arr));
  Deque<Integer> dq = new ArrayDeque<>(); dq.addFirst(1); dq.addLast(2);
  System.out.println(dq.peekFirst() + " " + dq.peekLast());
  System.out.println(s.substring(1) + " " + s.indexOf('b') + " " + s.contains("ab"));
} }"""
    expected = "0,1,2,3\nacba\n2=3 5=11 \nx-y 2 2\n511620083\nA\n5 2.5 2 2.5\n[1, 2, 3]\n1 2\nbca 1 true\n"
    assert run(java, "abca 4\n") == expected


def test_comparators_heaps_and_lambdas() -> None:
    java = """import java.util.*;
public class Main { public static void main(String[] args) { Scanner sc = new Scanner(System.in);
  int n = sc.nextInt(); int[][] a = new int[n][2];
  for (int i = 0; i < n; i++) { a[i][0] = sc.nextInt(); a[i][1] = sc.nextInt(); }
  Arrays.sort(a, (x, y) -> x[1] - y[1]);
  PriorityQueue<Integer> pq = new PriorityQueue<>(); for (int[] p : a) pq.add(p[0]);
  List<Integer> l = new ArrayList<>(); while (!pq.isEmpty()) l.add(pq.poll());
  Collections.sort(l, Collections.reverseOrder());
  System.out.println(a[0][0] + " " + l.get(0) + " " + l.size()); } }"""
    assert run(java, "3\n5 9\n7 1\n2 4\n") == "7 7 3\n"


def test_big_integer_is_python_int() -> None:
    java = """import java.math.BigInteger; import java.util.*;
    public class Main { public static void main(String[] args) { Scanner sc = new Scanner(System.in);
      BigInteger a = sc.nextBigInteger(), b = new BigInteger(sc.next());
      BigInteger c = a.multiply(b).add(BigInteger.ONE).mod(BigInteger.valueOf(1000000007L));
      System.out.println(c + " " + a.compareTo(b) + " " + a.max(b).pow(2)); } }"""
    assert run(java, "123456789123456789 987654321987654321\n") == (
        f"{(123456789123456789 * 987654321987654321 + 1) % 1000000007} -1 {987654321987654321**2}\n"
    )


def test_labelled_break_hasnextint_and_exit() -> None:
    java = """import java.util.*;
    public class Main { public static void main(String[] args) { Scanner sc = new Scanner(System.in);
      int total = 0; int min = Integer.MAX_VALUE;
      while (sc.hasNextInt()) { int v = sc.nextInt(); if (v == 0) break; total += v; min = Math.min(min, v); }
      outer:
      for (int i = 0; i < 5; i++) { for (int j = 0; j < 5; j++) { if (i * j == 6) {
        System.out.println(i + "," + j); break outer; } } }
      if (total > 100) { System.out.println("big"); System.exit(0); }
      System.out.println(total + " " + min + " " + (total % 2 == 0 ? "even" : "odd")); } }"""
    assert run(java, "5 3 9 0 7\n") == "2,3\n17 3 odd\n"
    assert run(java, "500 0\n") == "2,3\nbig\n"


def test_max_heap_and_subclass_declared_before_its_base() -> None:
    java = """import java.util.*;
    public class Main { public static void main(String[] args) {
      PriorityQueue<Integer> pq = new PriorityQueue<>(Collections.reverseOrder());
      pq.addAll(Arrays.asList(3, 9, 4)); pq.add(7);
      PriorityQueue<int[]> byFirst = new PriorityQueue<>((a, b) -> a[0] - b[0]);
      byFirst.add(new int[] {5, 1}); byFirst.add(new int[] {2, 8});
      Animal d = new Dog();
      System.out.println(pq.poll() + " " + pq.peek() + " " + byFirst.poll()[1] + " " + d.sound()); }
      static class Dog extends Animal { String sound() { return "woof"; } }
      static class Animal { String sound() { return "..."; } } }"""
    assert run(java) == "9 7 8 woof\n"


_DEV = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "c2c_programs_dev"
_E2E = ("s010698290", "s012761786", "s059841225", "s063482767")


@pytest.mark.usefixtures("jdk")
def test_dev_programs_match_the_java_oracle(shared_data: Path, tmp_path: Path) -> None:
    """A few real programs of c2c_programs_dev: the translation prints what the Java prints."""
    from bench.c2c_programs import run_java_oracle, run_python, same_output

    root = shared_data / "c2c_programs_dev"
    requests = json.loads((root / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
    for key in _E2E:
        stdin = (root / "tests" / f"{key}_0.in").read_bytes()
        expected = (root / "tests" / f"{key}_0.out").read_text(encoding="utf-8")
        java = (root / "java" / f"{key}.java").read_text(encoding="utf-8")
        oracle = run_java_oracle(java, stdin, tmp_path / "java", 30)
        assert oracle["status"] == "ran" and same_output(expected, oracle["stdout"])
        ours = run_python(detokenize(safe_translate(clean_request(key, requests[key]))), stdin, 20, tmp_path)
        assert ours["status"] == "ran" and same_output(oracle["stdout"], ours["stdout"]), (key, ours)


def test_labelled_continue_and_break_from_inner_loops() -> None:
    java = """import java.util.*;
    public class Main { public static void main(String[] args) {
      Scanner sc = new Scanner(System.in); int n = sc.nextInt(); int[] a = new int[n];
      for (int i = 0; i < n; i++) a[i] = sc.nextInt();
      int cnt = 0;
      outer:
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
          if (a[j] == a[i]) continue outer;
          if (a[j] < 0) break outer;
        }
        cnt++;
      }
      int k = 0;
      loop: while (k < n) { k++; for (int j = 0; j < 3; j++) { if (j == 1) continue loop; } cnt += 100; }
      System.out.println(cnt + " " + k); } }"""
    assert run(java, "6\n1 2 1 3 -1 4\n") == "4 6\n"


def test_anonymous_classes_comparators_and_thread_runnable() -> None:
    java = """import java.util.*;
    public class Main {
      static int total;
      public static void main(String[] args) {
        new Thread(null, new Runnable() { public void run() { solve(); } }, "solver", 1 << 26).start();
      }
      static int depth(int n) { return n == 0 ? 0 : 1 + depth(n - 1); }
      static void solve() {
        Scanner sc = new Scanner(System.in); int n = sc.nextInt();
        Integer[] a = new Integer[n];
        for (int i = 0; i < n; i++) a[i] = sc.nextInt();
        Arrays.sort(a, new Comparator<Integer>() { public int compare(Integer x, Integer y) { return y - x; } });
        PriorityQueue<int[]> pq = new PriorityQueue<>(new Comparator<int[]>() {
          @Override public int compare(int[] p, int[] q) {
            if (p[1] != q[1]) return Integer.compare(p[1], q[1]);
            return q[0] - p[0]; } });
        for (int i = 0; i < n; i++) pq.add(new int[]{i, a[i] % 3});
        StringBuilder sb = new StringBuilder();
        while (!pq.isEmpty()) { int[] t = pq.poll(); sb.append(t[0]).append(' '); }
        List<int[]> ps = new ArrayList<>();
        for (int i = 0; i < n; i++) ps.add(new int[]{a[i] % 2, i});
        Collections.sort(ps, (x, y) -> { if (x[0] != y[0]) return x[0] - y[0]; return y[1] - x[1]; });
        for (int[] p : ps) total += p[1] * p[0];
        System.out.println(Arrays.toString(a) + " " + sb.toString().trim() + " " + total + " " + depth(5000));
      }
    }"""
    assert run(java, "5\n3 1 4 1 5\n") == "[5, 4, 3, 1, 1] 2 4 3 1 0 9 5000\n"


def test_streams_method_references_and_map_updates() -> None:
    java = """import java.util.*;
    import java.util.stream.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt(); sc.nextLine();
        int[] a = Arrays.stream(sc.nextLine().split(" ")).mapToInt(Integer::parseInt).toArray();
        System.out.println(Arrays.stream(a).sum() + " " + Arrays.stream(a).max().getAsInt());
        long even = IntStream.range(0, n).filter(i -> a[i] % 2 == 0).count();
        System.out.println(even + " " + IntStream.rangeClosed(1, n).sum());
        List<Integer> l = Arrays.stream(a).boxed().sorted(Comparator.reverseOrder()).collect(Collectors.toList());
        System.out.println(l + " " + l.stream().map(String::valueOf).collect(Collectors.joining("-")));
        Map<Integer, List<Integer>> g = new TreeMap<>();
        for (int i = 0; i < n; i++) g.computeIfAbsent(a[i] % 3, k -> new ArrayList<>()).add(a[i]);
        Map<String, Integer> m = new HashMap<>();
        m.putIfAbsent("x", 1); m.putIfAbsent("x", 2); m.replace("y", 5); m.replace("x", 1, 9);
        m.merge("z", 4, Math::max); m.merge("z", 7, Math::max);
        System.out.println(g.get(1) + " " + m.get("x") + " " + m.size() + " " + m.get("z"));
        System.out.println(Arrays.stream(a).reduce(0, Math::max));
        System.out.println(Arrays.stream(a).anyMatch(x -> x > 4));
      }
    }"""
    assert run(java, "5\n3 1 4 1 5\n") == "14 5\n1 15\n[5, 4, 3, 1, 1] 5-4-3-1-1\n[1, 4, 1] 9 2 7\n5\ntrue\n"


def test_string_builders_edited_in_other_methods_and_exact_constants() -> None:
    java = """import java.util.*;
    public class Main {
      static StringBuilder sb = new StringBuilder();
      static List<Integer>[] adj;
      static void dfs(int v, int p) { sb.append(v).append(' '); for (int u : adj[v]) if (u != p) dfs(u, v); }
      static void fill(StringBuilder t, int k) { if (k == 0) return; t.append(k); fill(t, k - 1); }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        adj = new ArrayList[n + 1];
        for (int i = 0; i <= n; i++) adj[i] = new ArrayList<>();
        for (int i = 0; i < n - 1; i++) { int a = sc.nextInt(), b = sc.nextInt(); adj[a].add(b); adj[b].add(a); }
        dfs(1, 0);
        System.out.println(sb.toString().trim());
        StringBuilder t = new StringBuilder();
        fill(t, 4);
        System.out.println(t);
        System.out.println((double) n + " " + n / 8.0);
        System.out.println((Integer.MAX_VALUE / 2) + " " + (Integer.MIN_VALUE + 1));
      }
    }"""
    assert run(java, "4\n1 2\n1 3\n3 4\n") == "1 2 3 4\n4321\n4.0 0.5\n1073741823 -2147483647\n"


def test_union_find_with_fast_reader_and_thread_variable() -> None:
    java = """import java.io.*;
    import java.util.*;
    public class Main implements Runnable {
      static int[] par, sz;
      static int find(int x) { return par[x] == x ? x : (par[x] = find(par[x])); }
      static boolean union(int a, int b) {
        a = find(a); b = find(b);
        if (a == b) return false;
        if (sz[a] < sz[b]) { int t = a; a = b; b = t; }
        par[b] = a; sz[a] += sz[b];
        return true;
      }
      public static void main(String[] args) throws Exception {
        Thread t = new Thread(null, new Main(), "main", 1 << 27);
        t.start();
        t.join();
      }
      public void run() {
        try {
          BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
          PrintWriter out = new PrintWriter(System.out);
          int tc = Integer.parseInt(br.readLine().trim());
          while (tc-- > 0) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            int n = Integer.parseInt(st.nextToken()), m = Integer.parseInt(st.nextToken());
            par = new int[n]; sz = new int[n];
            for (int i = 0; i < n; i++) { par[i] = i; sz[i] = 1; }
            int[][] e = new int[m][3];
            for (int i = 0; i < m; i++) {
              st = new StringTokenizer(br.readLine());
              for (int j = 0; j < 3; j++) e[i][j] = Integer.parseInt(st.nextToken());
            }
            Arrays.sort(e, (x, y) -> x[2] - y[2]);
            long cost = 0; int used = 0;
            for (int[] ed : e) if (union(ed[0] - 1, ed[1] - 1)) { cost += ed[2]; used++; }
            out.println("case " + cost + " " + (used == n - 1));
            char[] c = br.readLine().toCharArray();
            Arrays.sort(c);
            out.println(String.valueOf(c) + " " + new String(c, 0, 2));
          }
          out.close();
        } catch (IOException e) { throw new RuntimeException(e); }
      }
    }"""
    stdin = "2\n3 3\n1 2 5\n2 3 1\n1 3 2\nbanana\n4 2\n1 2 3\n3 4 4\nzzyab\n"
    assert run(java, stdin) == "case 3 true\naaabnn aa\ncase 7 false\nabyzz ab\n"


def test_string_joiner() -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        StringJoiner sj = new StringJoiner(" ");
        StringJoiner br = new StringJoiner(",", "[", "]");
        for (int i = 0; i < n; i++) { int x = sc.nextInt(); sj.add(String.valueOf(x * 2)); br.add("" + x); }
        System.out.println(sj);
        System.out.println(br.toString() + " " + sj.length());
      }
    }"""
    assert run(java, "3\n1 2 3\n") == "2 4 6\n[1,2,3] 5\n"


def test_map_entries_made_by_the_program() -> None:
    java = """import java.util.*;
    public class Main {
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        List<Map.Entry<Integer, Integer>> l = new ArrayList<>();
        for (int i = 0; i < n; i++) { int x = sc.nextInt(); l.add(new AbstractMap.SimpleEntry<>(x, i)); }
        l.sort((a, b) -> a.getKey() - b.getKey());
        Map.Entry<Integer, Integer> e = Map.entry(7, 8);
        for (Map.Entry<Integer, Integer> p : l) System.out.print(p.getValue() + " ");
        System.out.println(e.getKey() + e.getValue());
      }
    }"""
    assert run(java, "3\n5 1 3\n") == "1 2 0 15\n"


def test_grid_bfs_navigable_maps_and_comparable_class() -> None:
    java = """import java.util.*;
    public class Main {
      static int H, W;
      static char[][] g;
      static final int[] dx = {1, -1, 0, 0}, dy = {0, 0, 1, -1};
      static class P implements Comparable<P> {
        int a; String s;
        P(int a, String s) { this.a = a; this.s = s; }
        public int compareTo(P o) { return a != o.a ? Integer.compare(a, o.a) : s.compareTo(o.s); }
      }
      public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        H = sc.nextInt(); W = sc.nextInt();
        g = new char[H][];
        for (int i = 0; i < H; i++) g[i] = sc.next().toCharArray();
        int[][] d = new int[H][W];
        for (int[] r : d) Arrays.fill(r, -1);
        ArrayDeque<int[]> q = new ArrayDeque<>();
        q.add(new int[]{0, 0}); d[0][0] = 0;
        while (!q.isEmpty()) {
          int[] cur = q.poll();
          for (int k = 0; k < 4; k++) {
            int nx = cur[0] + dx[k], ny = cur[1] + dy[k];
            if (nx < 0 || ny < 0 || nx >= H || ny >= W || g[nx][ny] == '#' || d[nx][ny] != -1) continue;
            d[nx][ny] = d[cur[0]][cur[1]] + 1;
            q.add(new int[]{nx, ny});
          }
        }
        System.out.println(d[H - 1][W - 1]);
        TreeMap<Integer, Integer> tm = new TreeMap<>();
        for (int i = 0; i < 5; i++) tm.put(i * 10, i);
        System.out.println(tm.floorKey(25) + " " + tm.ceilingKey(25) + " " + tm.lastEntry().getValue());
        TreeSet<Integer> ts = new TreeSet<>(tm.keySet());
        System.out.println(ts.higher(20) + " " + ts.lower(20) + " " + ts.headSet(20).size() + " " + ts.pollFirst());
        List<P> ps = new ArrayList<>();
        ps.add(new P(2, "b")); ps.add(new P(1, "z")); ps.add(new P(2, "a"));
        Collections.sort(ps);
        for (P p : ps) System.out.print(p.s);
        System.out.println(ts.size());
      }
    }"""
    assert run(java, "3 4\n..#.\n.#..\n....\n") == "5\n20 30 4\n30 10 2 0\nzab4\n"
