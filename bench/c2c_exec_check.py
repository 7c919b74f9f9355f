"""Differential execution of C2C translations: does the Python do what the Java did?

For a Java function (AVATAR tokens) this module

* reads the entry point's signature (the last method that is not ``main``) with
  tree-sitter-java: ``signature``;
* generates seeded, bounded inputs from the parameter types (ints with edge
  values, arrays, strings, chars, booleans, doubles, 2-D arrays; an int named like
  a size (``n``, ``m``, ``len``, ``size``, ...) that follows an array or string is
  set to its length, as GeeksforGeeks functions expect): ``make_inputs``;
* runs Python source (a translation, or a reference) on them in a sandboxed
  child process (CPU, memory and wall-clock limits through ``resource.setrlimit``,
  sockets blocked, a per-call alarm): ``run_python``;
* runs the Java itself as the oracle when a JDK (``javac`` + ``java``) is on the
  PATH: ``run_java`` (one ``javac`` for many programs, one JVM per program);
* compares results (return value and the array arguments after the call; numbers
  with a tolerance, ``3 == 3.0`` as in Python) and names the kind of each
  failure: ``compare``.

Values travel as JSON: Java ``char`` is a one-character string (as the
translator and the references treat it), arrays are lists.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plugins.c2c.detok import _collapse_literals
from plugins.c2c.syntax import WRAPPER, java_parser, walk_nodes

SCALARS = {
    "int": "int",
    "Integer": "int",
    "long": "long",
    "Long": "long",
    "short": "int",
    "byte": "int",
    "double": "double",
    "Double": "double",
    "float": "double",
    "Float": "double",
    "boolean": "boolean",
    "Boolean": "boolean",
    "char": "char",
    "Character": "char",
    "String": "String",
}
_SIZE_NAME = re.compile(
    r"^(n|m|N|M|R|C|r|c|l|L|k|K|sz|len|length|size|rows?|cols?|columns?|[nm]\d|[A-Za-z_]*(size|Size|len|Len|length|Length))$"
)
_LENGTH_NAME = re.compile(
    r"^(n|m|N|M|R|C|sz|len|length|size|rows?|cols?|columns?|[nm]\d|[A-Za-z_]*(size|Size|len|Len|length|Length))$"
)
PRELUDE = (
    "import math\nfrom math import *\nimport collections\nfrom collections import *\n"
    "import heapq\nimport itertools\nimport random\nimport sys\n"
)
FAIL_KINDS = (
    "syntax_error",
    "name_error",
    "attribute_error",
    "type_error",
    "unbound_local",
    "index_key_error",
    "recursion",
    "other_exception",
    "timeout",
    "wrong_type",
    "wrong_value",
    "wrong_mutation",
    "wrong_output",
)


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    java_type: str  # as written, e.g. "int", "int[]", "Integer", "String[][]"
    kind: str  # normalized element kind ("int", "long", "double", "boolean", "char", "String")
    dims: int  # array dimensions (0: scalar)


@dataclass(frozen=True, slots=True)
class Signature:
    name: str
    params: tuple[Param, ...]
    returns: str
    static: bool


def _node_text(src: bytes, node: Any) -> str:
    return src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _nested(method: Any) -> bool:
    """Is ``method`` inside another method (an anonymous class's ``get``, a local class's)?"""
    up = method.parent
    while up is not None and up.type != "method_declaration":
        up = up.parent
    return up is not None


def signature(java: str) -> Signature | None:
    """The entry point: the last method that is not ``main``; None when its types are not supported."""
    src = f"{WRAPPER} {java} }}".encode()
    tree = java_parser().parse(src)
    methods = [
        n
        for n in walk_nodes(tree.root_node)
        if n.type == "method_declaration"
        and n.child_by_field_name("name") is not None
        and _node_text(src, n.child_by_field_name("name")) != "main"
        and not _nested(n)
    ]
    if not methods:
        return None
    node = methods[-1]
    params: list[Param] = []
    plist = node.child_by_field_name("parameters")
    for p in plist.named_children if plist is not None else []:
        if p.type != "formal_parameter":
            return None
        typ_node, name_node = p.child_by_field_name("type"), p.child_by_field_name("name")
        if typ_node is None or name_node is None:
            return None
        typ = _node_text(src, typ_node).replace(" ", "")
        dims_node = p.child_by_field_name("dimensions")
        if dims_node is not None:
            typ += "[]" * _node_text(src, dims_node).count("[")
        base, dims = typ.replace("[]", ""), typ.count("[]")
        if base not in SCALARS or dims > 2:
            return None
        params.append(Param(_node_text(src, name_node), typ, SCALARS[base], dims))
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    static = mods is not None and "static" in _node_text(src, mods).split()
    ret = node.child_by_field_name("type")
    return Signature(
        _node_text(src, node.child_by_field_name("name")),
        tuple(params),
        _node_text(src, ret).replace(" ", "") if ret is not None else "void",
        static,
    )


# -- inputs -----------------------------------------------------------------------------------------
def _scalar(kind: str, rng: random.Random, edge: int | None) -> Any:
    if kind in ("int", "long"):
        if edge is not None:
            return (0, 1, 2)[edge % 3]
        return rng.choice((rng.randint(0, 20), rng.randint(3, 12), rng.choice((5, 7, 10, 12, 15, 16, 20))))
    if kind == "double":
        return round(rng.uniform(0, 20), 2) if edge is None else float(edge % 3)
    if kind == "boolean":
        return rng.random() < 0.5 if edge is None else bool(edge % 2)
    if kind == "char":
        return rng.choice("abcdexyz019AZ ") if edge is None else "a"
    return _string(rng, edge)


def _string(rng: random.Random, edge: int | None) -> str:
    if edge is not None:
        return ("a", "ab", "aba")[edge % 3]
    n = rng.randint(1, 9)
    style = rng.random()
    if style < 0.35:
        alphabet = "abcde"
    elif style < 0.55:
        alphabet = "0123456789"
    elif style < 0.7:
        alphabet = "01"
    elif style < 0.85:
        alphabet = "abcdefghijklmnopqrstuvwxyz"
    else:
        alphabet = "aAbBzZ 09"
    return "".join(rng.choice(alphabet) for _ in range(n))


def _array(p: Param, rng: random.Random, edge: int | None, shape: tuple[int, int]) -> list[Any]:
    rows, cols = shape
    if p.dims == 1:
        values = [_scalar(p.kind, rng, None) for _ in range(rows)]
        if edge is None and p.kind in ("int", "long", "double") and rng.random() < 0.35:
            values.sort()
        return values
    return [
        [_scalar(p.kind, rng, None) if p.kind != "int" else rng.randint(0, 9) for _ in range(cols)] for _ in range(rows)
    ]


def make_inputs(sig: Signature, seed: int, count: int = 6) -> list[list[Any]]:
    """``count`` argument lists for ``sig`` (the first two use edge values), seeded by ``seed``."""
    rng = random.Random(seed)
    tests: list[list[Any]] = []
    for t in range(count):
        edge = t if t < 2 else None
        square = rng.randint(1, 2) if edge is not None else rng.randint(2, 5)
        shape = (square, square) if rng.random() < 0.6 else (rng.randint(1, 5), rng.randint(1, 5))
        if edge is None and rng.random() < 0.5:
            shape = (rng.randint(1, 8), shape[1])
        args: list[Any] = []
        lengths: list[int] = []  # lengths of arrays / strings seen so far, for size-named ints
        used = 0
        for p in sig.params:
            if p.dims:
                value = _array(p, rng, edge, shape)
                args.append(value)
                lengths.append(len(value))
                if p.dims == 2:
                    lengths.append(len(value[0]) if value else 0)
            elif p.kind in ("int", "long") and lengths and used < len(lengths) and _LENGTH_NAME.match(p.name):
                args.append(lengths[used])
                used += 1
            else:
                value = _scalar(p.kind, rng, edge)
                if p.kind == "String":
                    lengths.append(len(value))
                args.append(value)
        tests.append(args)
    return tests


# -- Python side ------------------------------------------------------------------------------------------
_CHILD = r"""
import contextlib, copy, io, json, resource, signal, socket, sys
limits = json.loads(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limits["mem"], limits["mem"]))
resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu"], limits["cpu"] + 1))
resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
def _blocked(*a, **k):
    raise OSError("network is blocked in the sandbox")
socket.socket = _blocked
socket.create_connection = _blocked
sys.setrecursionlimit(5000)
job = json.loads(sys.stdin.read())
class _Timeout(BaseException):
    pass
def _alarm(*a):
    raise _Timeout()
signal.signal(signal.SIGALRM, _alarm)
def enc(v, depth=0):
    if depth > 20:
        return repr(v)
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2 ** 63 else str(v)
    if isinstance(v, float):
        return v if v == v and abs(v) != float("inf") else repr(v)
    if isinstance(v, (list, tuple)):
        return [enc(x, depth + 1) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted((enc(x, depth + 1) for x in v), key=repr)
    if isinstance(v, dict):
        return {"__dict__": sorted(([enc(k, depth + 1), enc(x, depth + 1)] for k, x in v.items()), key=repr)}
    return repr(v)
out = {"results": []}
ns = {"__name__": "__c2c__"}
try:
    signal.setitimer(signal.ITIMER_REAL, limits["per_call"])
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(job["prelude"] + job["source"], "<translation>", "exec"), ns)
    signal.setitimer(signal.ITIMER_REAL, 0)
except _Timeout:
    out["load_error"] = "Timeout"
except BaseException as exc:
    signal.setitimer(signal.ITIMER_REAL, 0)
    out["load_error"] = type(exc).__name__
    out["load_message"] = str(exc)[:200]
fn = ns.get(job["func"])
if fn is None and "load_error" not in out:
    funcs = [v for k, v in ns.items() if type(v).__name__ == "function" and k not in job["prelude_names"]]
    fn = funcs[-1] if funcs else None
    if fn is None:
        out["load_error"] = "NoFunction"
if "load_error" not in out:
    for args in job["tests"]:
        args = copy.deepcopy(args)
        printed = io.StringIO()
        try:
            signal.setitimer(signal.ITIMER_REAL, limits["per_call"])
            with contextlib.redirect_stdout(printed):
                ret = fn(*args)
            signal.setitimer(signal.ITIMER_REAL, 0)
            out["results"].append({"ret": enc(ret), "args": enc(args), "out": printed.getvalue()[:100000]})
        except _Timeout:
            out["results"].append({"exc": "Timeout"})
        except RecursionError:
            signal.setitimer(signal.ITIMER_REAL, 0)
            out["results"].append({"exc": "RecursionError"})
        except BaseException as exc:
            signal.setitimer(signal.ITIMER_REAL, 0)
            out["results"].append({"exc": type(exc).__name__, "msg": str(exc)[:200]})
sys.stdout.write(json.dumps(out))
"""


def _prelude_names() -> list[str]:
    ns: dict[str, Any] = {}
    exec(PRELUDE, ns)  # noqa: S102 - our own constant prelude
    return sorted(ns)


def run_python(
    source: str,
    func: str,
    tests: Sequence[Sequence[Any]],
    *,
    per_call_s: float = 2.0,
    mem_bytes: int = 1 << 30,
) -> dict[str, Any]:
    """Run ``func`` of ``source`` on every argument list in a sandboxed child.

    Returns ``{"results": [{"ret", "args"} | {"exc"}...]}``, or with ``load_error`` when the
    source did not load (``SyntaxError``, ``NameError`` at import, ...), or ``{"timeout": True}``
    when the child ran past its wall-clock limit.
    """
    job = {
        "source": source,
        "func": func,
        "tests": list(tests),
        "prelude": PRELUDE,
        "prelude_names": _prelude_names(),
    }
    limits = {"mem": mem_bytes, "cpu": int(per_call_s * (len(tests) + 1)) + 2, "per_call": per_call_s}
    wall = per_call_s * (len(tests) + 1) + 5
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": "0", "LANG": "C.UTF-8"}
    try:
        proc = subprocess.run(
            [sys.executable, "-I", "-c", _CHILD, json.dumps(limits)],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=wall,
            env=env,
            cwd=tempfile.gettempdir(),
        )
    except subprocess.TimeoutExpired:
        return {"timeout": True, "results": []}
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return {"load_error": "Crash", "load_message": proc.stderr[-300:], "results": []}


# -- Java side ---------------------------------------------------------------------------------------------
JAVA_HELPER = r"""
import java.util.*;
public final class J {
  static String q(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 32 || c > 126) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
  static String d(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) return q(Double.toString(v));
    return Double.toString(v).replace("E", "e");
  }
  static String s(Object o) {
    if (o == null) return "null";
    if (o instanceof Boolean || o instanceof Integer || o instanceof Long) return o.toString();
    if (o instanceof Short || o instanceof Byte) return o.toString();
    if (o instanceof Double) return d((Double) o);
    if (o instanceof Float) return d(((Float) o).doubleValue());
    if (o instanceof Character) return q(o.toString());
    if (o instanceof String) return q((String) o);
    if (o instanceof StringBuilder || o instanceof StringBuffer) return q(o.toString());
    if (o.getClass().isArray()) {
      StringJoiner j = new StringJoiner(",", "[", "]");
      int n = java.lang.reflect.Array.getLength(o);
      for (int i = 0; i < n; i++) j.add(s(java.lang.reflect.Array.get(o, i)));
      return j.toString();
    }
    if (o instanceof Collection) {
      StringJoiner j = new StringJoiner(",", "[", "]");
      for (Object v : (Collection<?>) o) j.add(s(v));
      return j.toString();
    }
    return q(o.toString());
  }
  public interface T { String run() throws Throwable; }
  static final java.io.PrintStream REAL = System.out;
  public static String res(Object r, Object[] args) {
    StringJoiner j = new StringJoiner(",", "[", "]");
    for (Object a : args) j.add(s(a));
    return "{\"ret\":" + s(r) + ",\"args\":" + j;
  }
  public static void test(T t) {
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    String[] res = new String[1];
    System.setOut(new java.io.PrintStream(buf, true));
    Thread th = new Thread(null, () -> {
      try { res[0] = t.run(); } catch (Throwable e) { res[0] = "{\"exc\":" + q(e.getClass().getSimpleName()); }
    }, "test", 1L << 28);
    th.setDaemon(true);
    th.start();
    try { th.join(PER_TEST_MS); } catch (InterruptedException e) { }
    System.out.flush();
    System.setOut(REAL);
    String r = res[0];
    if (th.isAlive() || r == null) r = "{\"exc\":\"Timeout\"";
    REAL.println("@C2C@" + r + ",\"out\":" + q(buf.toString()) + "}");
    REAL.flush();
  }
  static long PER_TEST_MS = 2000;
}
"""


_MARK = "@C2C@"  # prefix of the harness's result lines


def java_available() -> bool:
    return shutil.which("javac") is not None and shutil.which("java") is not None


def _java_literal(value: Any, kind: str, dims: int) -> str:
    if dims:
        elem = {"int": "int", "long": "long", "double": "double", "boolean": "boolean", "char": "char"}.get(
            kind, "String"
        )
        return f"new {elem}{'[]' * dims}{_java_init(value, kind, dims)}"
    return _java_scalar(value, kind)


def _java_init(value: Any, kind: str, dims: int) -> str:
    if dims == 1:
        return "{" + ",".join(_java_scalar(v, kind) for v in value) + "}"
    return "{" + ",".join(_java_init(v, kind, dims - 1) for v in value) + "}"


def _java_scalar(value: Any, kind: str) -> str:
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "char":
        return "'" + ("\\'" if value == "'" else "\\\\" if value == "\\" else value) + "'"
    if kind == "String":
        return json.dumps(value)
    if kind == "long":
        return f"{value}L"
    if kind == "double":
        return repr(float(value))
    return str(value)


def java_program(class_name: str, java: str, sig: Signature, tests: Sequence[Sequence[Any]]) -> str:
    """A compilable class around the Java function and a ``main`` that runs every test and prints JSON lines."""
    calls = []
    for args in tests:
        decls = [
            f"{p.java_type} a{i} = {_java_literal(v, p.kind, p.dims)};"
            for i, (p, v) in enumerate(zip(sig.params, args, strict=True))
        ]
        target = sig.name if sig.static else f"new {class_name}().{sig.name}"
        names = ", ".join(f"a{i}" for i in range(len(args)))
        call = f"{target}({names})"
        extra = f", new Object[]{{{names}}}"  # explicit: a lone array argument must not become the varargs
        body = (
            f"{call}; return J.res(null{extra});"
            if sig.returns == "void"
            else f"Object r = {call}; return J.res(r{extra});"
        )
        calls.append("    J.test(() -> { " + " ".join(decls) + " " + body + " });")
    return (
        "import java.util.*;\nimport java.util.stream.*;\nimport java.io.*;\nimport java.math.*;\n"
        f"public class {class_name} {{\n{_collapse_literals(java)}\n  public static void main(String[] argv) {{\n"
        + "\n".join(calls)
        + "\n    System.exit(0);\n  }\n}\n"
    )


def run_java(
    programs: Mapping[str, tuple[str, Signature, Sequence[Sequence[Any]]]],
    *,
    timeout_s: float = 10.0,
    workdir: Path | None = None,
) -> dict[str, dict[str, Any]]:
    """Compile and run many Java programs: key -> ``{"results": [...]}`` or ``{"compile_error": msg}``.

    One ``javac`` compiles every program (files that fail are dropped and the rest
    recompiled); each program then runs in its own JVM with a wall-clock limit, and
    the tests that had not printed when it stopped are marked ``Timeout``.
    """
    tmp = Path(tempfile.mkdtemp(prefix="c2c_java_", dir=workdir))
    try:
        names = {key: f"P{i}" for i, key in enumerate(programs)}
        (tmp / "J.java").write_text(JAVA_HELPER, encoding="utf-8")
        for key, (java, sig, tests) in programs.items():
            (tmp / f"{names[key]}.java").write_text(java_program(names[key], java, sig, tests), encoding="utf-8")
        out: dict[str, dict[str, Any]] = {}
        pending = dict(names)
        for _ in range(4):
            files = ["J.java", *(f"{n}.java" for n in pending.values())]
            proc = subprocess.run(
                ["javac", "-nowarn", "-proc:none", "-encoding", "UTF-8", "-Xmaxerrs", "100000", "-d", ".", *files],
                cwd=tmp,
                capture_output=True,
                text=True,
            )
            if proc.returncode == 0:
                break
            bad = set(re.findall(r"^(P\d+)\.java:\d+: error", proc.stdout + proc.stderr, flags=re.M))
            if not bad:
                raise RuntimeError(f"javac failed: {(proc.stdout + proc.stderr)[-500:]}")
            for key in [k for k, n in pending.items() if n in bad]:
                msg = re.search(rf"^{pending[key]}\.java:\d+: error: (.*)$", proc.stdout + proc.stderr, flags=re.M)
                out[key] = {"compile_error": msg.group(1) if msg else "error"}
                del pending[key]
        for key, name in pending.items():
            n_tests = len(programs[key][2])
            try:
                proc = subprocess.run(
                    ["java", "-Xss64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", ".", name],
                    cwd=tmp,
                    capture_output=True,
                    text=True,
                    timeout=timeout_s,
                )
                stdout = proc.stdout
            except subprocess.TimeoutExpired as exc:
                stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            results = []
            for line in stdout.splitlines():
                if not line.startswith(_MARK):  # the program's own prints
                    continue
                try:
                    results.append(json.loads(line[len(_MARK) :]))
                except ValueError:
                    continue
            results += [{"exc": "Timeout"}] * (n_tests - len(results))
            out[key] = {"results": results[:n_tests]}
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- comparison ----------------------------------------------------------------------------------------------
_INT_SENTINELS = {2**31 - 1: 1, 2**63 - 1: 1, -(2**31): -1, -(2**63): -1}


def overflowed(java: Any, python: Any) -> bool:
    """Did the Java int arithmetic wrap where Python's did not (same value modulo 2**32 or 2**64)?

    The tests the translations are held to compare with Python references, which do not
    wrap either, so such inputs say nothing about the translation and are left out.
    """
    if not (type(java) is int and type(python) is int) or java == python:
        return False
    outside = not -(2**31) <= python < 2**31
    return outside and ((python - java) % 2**32 == 0 or (python - java) % 2**64 == 0)


def non_finite(result: Mapping[str, Any]) -> bool:
    """Did the Java produce NaN or Infinity (returned or printed)?

    Python raises on those inputs instead (``ZeroDivisionError``, ``math domain error``), and
    so do the Python references the translations are held to: such inputs are left out.
    """
    ret = result.get("ret")
    if isinstance(ret, str) and ret in ("NaN", "Infinity", "-Infinity"):
        return True
    return any(w in ("NaN", "Infinity", "-Infinity") for w in re.split(r"[\s,()\[\]]+", result.get("out", "")))


def same(a: Any, b: Any) -> bool:
    """Equal as the unit tests see it: numbers with a tolerance (``3 == 3.0``), lists element-wise.

    ``Integer.MAX_VALUE`` / ``MIN_VALUE`` (and Long's) used as sentinels equal ``sys.maxsize`` /
    ``-sys.maxsize``, the translations' (and the references') spelling of them.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if type(a) is int and type(b) is int and a in _INT_SENTINELS and abs(b) in (2**63 - 1, 2**63):
        return (b > 0) == (_INT_SENTINELS[a] > 0)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _printed(text: str) -> str:
    """Printed output, compared leniently: whitespace ignored, booleans in either spelling.

    (Python's ``print(a, b)`` puts spaces where Java's ``a + b`` does not; the unit tests the
    translations are held to compare return values only.)
    """
    words = [w.lower() if w in ("true", "false", "True", "False") else w for w in text.split()]
    return "".join(words)


def _exc_kind(name: str) -> str:
    return {
        "NameError": "name_error",
        "AttributeError": "attribute_error",
        "TypeError": "type_error",
        "UnboundLocalError": "unbound_local",
        "IndexError": "index_key_error",
        "KeyError": "index_key_error",
        "RecursionError": "recursion",
        "Timeout": "timeout",
        "SyntaxError": "syntax_error",
    }.get(name, "other_exception")


def compare(
    oracle: Sequence[Mapping[str, Any]], ours: Mapping[str, Any], array_params: Sequence[int]
) -> tuple[str, str, int]:
    """(status, failure kind, valid tests): status is "pass", "fail" or "no_valid_input".

    A test counts only where the oracle returned (inputs on which the Java itself
    throws or times out say nothing). Failure kinds are those of ``FAIL_KINDS``.
    """
    results = ours.get("results", [])
    valid = [
        i
        for i, r in enumerate(oracle)
        if "exc" not in r
        and not (i < len(results) and overflowed(r.get("ret"), results[i].get("ret")))
        and not non_finite(r)
    ]
    if not valid:
        return "no_valid_input", "", 0
    if ours.get("timeout"):
        return "fail", "timeout", len(valid)
    if "load_error" in ours:
        return "fail", _exc_kind(ours["load_error"]), len(valid)
    for i in valid:
        mine = results[i] if i < len(results) else {"exc": "Timeout"}
        if "exc" in mine:
            return "fail", _exc_kind(mine["exc"]), len(valid)
        want, got = oracle[i]["ret"], mine["ret"]
        if not same(want, got):
            numeric = isinstance(want, int | float) and not isinstance(want, bool)
            kind = (
                "wrong_type"
                if numeric != (isinstance(got, int | float) and not isinstance(got, bool))
                else "wrong_value"
            )
            if isinstance(want, str) and isinstance(got, int) or isinstance(want, int) and isinstance(got, str):
                kind = "wrong_type"
            return "fail", kind, len(valid)
        if _printed(oracle[i].get("out", "")) != _printed(mine.get("out", "")):
            return "fail", "wrong_output", len(valid)
        for j in array_params:
            wa, ga = oracle[i]["args"], mine["args"]
            if j < len(wa) and j < len(ga) and not same(wa[j], ga[j]):
                return "fail", "wrong_mutation", len(valid)
    return "pass", "", len(valid)
