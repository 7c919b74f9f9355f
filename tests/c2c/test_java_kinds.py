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
