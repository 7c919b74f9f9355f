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
