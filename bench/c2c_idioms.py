"""Hot Java idioms, Java against the translated Python: which ones Python runs 10-50x slower.

    python -m bench.c2c_idioms [--n 200000] [--only queue_poll,treemap_floor] [--timeout 60]

Each idiom is a few lines of ``main`` (``IDIOMS``: body, and whether stdin holds ``n`` alone or ``n``
then ``n`` integers), wrapped in a ``Main`` class, compiled with javac and translated as the task
does (``safe_translate``). Both run on the same stdin; reported per idiom: wall and CPU seconds
(the CPU time of the child, user + system: steadier than the wall clock on a loaded machine),
Python / Java ratios, and whether Python printed what Java printed. An idiom far above the others is
a translation that changes the complexity (``list.pop(0)`` for a queue poll, a scan for a TreeMap
query) or a costly emulation (32-bit overflow, comparator sorts).
"""

from __future__ import annotations

import argparse
import logging
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

IDIOMS = {  # name: (main's body, stdin: "n" alone or "ints": n then n integers)
    "read_ints_scanner": (
        "int n = sc.nextInt(); long s = 0; for (int i = 0; i < n; i++) s += sc.nextInt(); System.out.println(s);",
        "ints",
    ),
    "read_ints_br_split": (
        "BufferedReader br = new BufferedReader(new InputStreamReader(System.in)); "
        'int n = Integer.parseInt(br.readLine().trim()); String[] p = br.readLine().split(" "); '
        "long s = 0; for (int i = 0; i < n; i++) s += Long.parseLong(p[i]); System.out.println(s);",
        "ints",
    ),
    "array_loop": (
        "int n = sc.nextInt(); long[] a = new long[n]; for (int i = 0; i < n; i++) a[i] = i * 3L % 7; "
        "long s = 0; for (int r = 0; r < 20; r++) for (int i = 0; i < n; i++) s += a[i] * r; "
        "System.out.println(s);",
        "n",
    ),
    "nested_dp": (
        "int n = sc.nextInt(); int m = 300; long[][] dp = new long[m + 1][m + 1]; for (int i = 1; "
        "i <= m; i++) for (int j = 1; j <= m; "
        "j++) dp[i][j] = Math.max(dp[i-1][j], dp[i][j-1]) + (i * j) % 7; "
        "System.out.println(dp[m][m] + n);",
        "n",
    ),
    "mod_arith": (
        "int n = sc.nextInt(); long MOD = 1000000007L; long x = 1; for (int i = 1; i <= n * 10; "
        "i++) x = x * 31 % MOD + i; System.out.println(x);",
        "n",
    ),
    "int_overflow_hash": (
        "int n = sc.nextInt(); int h = 0; for (int i = 0; i < n * 10; i++) h = 31 * h + i; System.out.println(h);",
        "n",
    ),
    "charAt_loop": (
        "int n = sc.nextInt(); StringBuilder sb = new StringBuilder(); for (int i = 0; i < n; "
        "i++) sb.append((char) ('a' + i % 26)); String s = sb.toString(); int c = 0; for (int r = 0; "
        "r < 10; r++) for (int i = 0; i < s.length(); i++) if (s.charAt(i) == 'e') c++; "
        "System.out.println(c);",
        "n",
    ),
    "println_loop": (
        "int n = sc.nextInt(); for (int i = 0; i < n; i++) System.out.println(i);",
        "n",
    ),
    "queue_poll": (
        "int n = sc.nextInt(); Queue<Integer> q = new LinkedList<>(); for (int i = 0; i < n; "
        "i++) q.add(i); long s = 0; while (!q.isEmpty()) s += q.poll(); System.out.println(s);",
        "n",
    ),
    "deque_pollFirst": (
        "int n = sc.nextInt(); ArrayDeque<Integer> q = new ArrayDeque<>(); for (int i = 0; i < n; "
        "i++) q.offer(i); long s = 0; while (!q.isEmpty()) s += q.pollFirst(); System.out.println(s);",
        "n",
    ),
    "bfs_grid": (
        "int n = sc.nextInt(); int w = (int) Math.sqrt(n); int[][] dist = new int[w][w]; "
        "for (int[] r : dist) Arrays.fill(r, -1); ArrayDeque<int[]> q = new ArrayDeque<>(); "
        "q.add(new int[]{0, 0}); dist[0][0] = 0; int[] dx = {1, -1, 0, 0}, dy = {0, 0, 1, -1}; "
        "while (!q.isEmpty()) { int[] c = q.poll(); for (int k = 0; k < 4; k++) { "
        "int x = c[0] + dx[k], y = c[1] + dy[k]; "
        "if (x >= 0 && y >= 0 && x < w && y < w && dist[x][y] < 0) { dist[x][y] = dist[c[0]][c[1]] + 1; "
        "q.add(new int[]{x, y}); } } } System.out.println(dist[w-1][w-1]);",
        "n",
    ),
    "treemap_floor": (
        "int n = sc.nextInt(); TreeMap<Integer, Integer> tm = new TreeMap<>(); for (int i = 0; i < n; "
        "i++) tm.put((int) (i * 7919L % n), i); long s = 0; for (int i = 0; i < n; i++) { "
        "Integer f = tm.floorKey(i); s += f == null ? 0 : f; } System.out.println(s);",
        "n",
    ),
    "treeset_first_remove": (
        "int n = sc.nextInt(); TreeSet<Integer> ts = new TreeSet<>(); for (int i = 0; i < n; "
        "i++) ts.add((int) (i * 7919L % n)); long s = 0; while (!ts.isEmpty()) { s += ts.first(); "
        "ts.remove(ts.first()); } System.out.println(s);",
        "n",
    ),
    "priority_queue": (
        "int n = sc.nextInt(); PriorityQueue<Integer> pq = new PriorityQueue<>(); for (int i = 0; i < n; "
        "i++) pq.add((int) (i * 7919L % n)); long s = 0; while (!pq.isEmpty()) s += pq.poll(); "
        "System.out.println(s);",
        "n",
    ),
    "hashmap_walk": (
        "int n = sc.nextInt(); HashMap<Integer, Integer> hm = new HashMap<>(); for (int i = 0; i < n; "
        "i++) hm.merge(i % 5000, 1, Integer::sum); long s = 0; for (int r = 0; r < 200; "
        "r++) for (int k : hm.keySet()) s += k; System.out.println(s);",
        "n",
    ),
    "sort_comparator": (
        "int n = sc.nextInt(); List<int[]> pts = new ArrayList<>(); for (int i = 0; i < n; "
        "i++) pts.add(new int[]{i % 100, -i}); "
        "Collections.sort(pts, (x, y) -> x[0] != y[0] ? Integer.compare(x[0], y[0]) : Integer.compare(x[1], y[1])); "
        "System.out.println(pts.get(0)[1]);",
        "n",
    ),
    "string_concat_loop": (
        'int n = sc.nextInt(); String s = ""; for (int i = 0; i < n / 10; '
        "i++) s += (char) ('a' + i % 26); System.out.println(s.length());",
        "n",
    ),
    "list_get_loop": (
        "int n = sc.nextInt(); List<Integer> l = new ArrayList<>(); for (int i = 0; i < n; "
        "i++) l.add(i); long s = 0; for (int r = 0; r < 10; r++) for (int i = 0; i < l.size(); "
        "i++) s += l.get(i); System.out.println(s);",
        "n",
    ),
    "recursion_dfs": (
        "int n = sc.nextInt(); adj = new ArrayList<>(); for (int i = 0; i < n; "
        "i++) adj.add(new ArrayList<>()); for (int i = 1; i < n; i++) { adj.get(i - 1).add(i); } "
        "System.out.println(dfs(0));",
        "n",
    ),
}
# fields and methods an idiom needs beside main
EXTRA = {
    "recursion_dfs": (
        "static List<List<Integer>> adj; static int dfs(int v) { int d = 0; "
        "for (int u : adj.get(v)) d = Math.max(d, dfs(u) + 1); return d; }"
    ),
}


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd: list[str], stdin: bytes, timeout: float) -> tuple[subprocess.CompletedProcess | None, float, float]:
    """The finished process (None: out of time), its wall and CPU seconds."""
    cpu, start = _child_cpu(), time.perf_counter()
    try:
        proc = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc = None
    return proc, time.perf_counter() - start, _child_cpu() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000, help="the size every idiom reads")
    parser.add_argument("--only", default="", help="comma-separated idiom names")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)

    from bench.c2c_kinds import java_tokens
    from plugins.c2c.detok import detokenize
    from plugins.c2c.task import clean_request, safe_translate

    n = args.n
    with tempfile.TemporaryDirectory() as tmp:
        for name, (body, stdin_kind) in IDIOMS.items():
            if args.only and name not in args.only.split(","):
                continue
            java = (
                f"import java.util.*; import java.io.*; public class Main {{ {EXTRA.get(name, '')} "
                "public static void main(String[] args) throws IOException { "
                + ("" if "BufferedReader br" in body else "Scanner sc = new Scanner(System.in); ")
                + f"{body} }} }}"
            )
            folder = Path(tmp) / name
            folder.mkdir()
            (folder / "Main.java").write_text(java, encoding="utf-8")
            subprocess.run(["javac", "-nowarn", "-d", str(folder), str(folder / "Main.java")], check=True)
            (folder / "main.py").write_text(detokenize(safe_translate(clean_request(name, java_tokens(java)))))
            numbers = " ".join(str(i * 37 % 1000) for i in range(n)) + "\n" if stdin_kind == "ints" else ""
            stdin = f"{n}\n{numbers}".encode()
            jp, jw, jc = _timed(["java", "-Xss64m", "-cp", str(folder), "Main"], stdin, args.timeout)
            pp, pw, pc = _timed([sys.executable, str(folder / "main.py")], stdin, args.timeout)
            if pp is None:
                verdict = f"timeout {args.timeout:g} s"
            elif pp.returncode:
                verdict = pp.stderr.decode(errors="replace").strip().splitlines()[-1][:100]
            else:
                verdict = "same output" if jp is not None and pp.stdout == jp.stdout else "OUTPUT DIFFERS"
            print(
                f"{name:22s} n={n}: Java {jw:6.2f} s (cpu {jc:5.2f}), Python {pw:6.2f} s (cpu {pc:5.2f}); "
                f"x{pw / max(jw, 1e-3):5.1f} wall, x{pc / max(jc, 1e-2):5.1f} cpu; {verdict}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
