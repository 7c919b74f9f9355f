"""C2C function-level unit tests the TransCoder way: the translation as ``f_filled`` beside the reference ``f_gold``.

    python -m bench.c2c_unit [--pred prediction_C2C.json] [--jobs 2] [--timeout 10]
                             [--against-java] [--show 5] [--json report.json]
    python -m bench.c2c_unit --replica [--set DIR ...] [--pred SET_NAME=prediction_C2C.json ...]
                             [--params 10] [--jobs 2] [--show 5] [--json report.json]

By default: TransCoder's own unit-test scripts for ``c2c_transcoder_valid`` (238 of its 470
keys have one, ``unit_tests/index.json``), run as TransCoder's harness runs them
(``codegen_sources/model/src/evaluation/comp_acc_computation.py``, ``submit_functions``):

* a translation identical to the reference (same tokens) passes without running;
* the name before the translation's first ``(`` token is replaced by ``f_filled`` everywhere
  in the detokenized source (a plain string replace, substrings too), the source put where
  the script says ``#TOFILL``, TransCoder's import header prepended;
* the script runs with this interpreter (its ``import numpy as np`` needs numpy), 10 s wall
  clock (``--timeout``), 4 GiB of address space; it passes when it prints
  ``#Results: n, n``; no such line is an error (its exception type is reported), a
  smaller count wrong results, the limit a timeout.

``--against-java`` then runs every failing key's parameter sets through the Java function
(``bench.c2c_exec_check``) and the reference and the translation in Python, and counts the
failures where the translation does what the Java does and the reference does not.

``--replica``: the earlier replica of those scripts, for sets without them. It is
stricter than ``bench/c2c_exec.py`` (which feeds small edge-value inputs and compares with
the Java) and rebuilds what a TransCoder evaluation script does:

* The script holds the reference Python (``true/``) renamed ``f_gold`` and, in place of
  ``#TOFILL``, the translation with the name in front of its first ``(`` replaced (every
  occurrence, as a plain string replace) by ``f_filled``; the TransCoder prelude
  (``import math``, ``from math import *``, collections, heapq, itertools, random, sys)
  comes first. Helpers or classes a translation puts before its function therefore take
  the name and fail, as they do there.
* Parameters are drawn as TransCoder's generator draws them: ints 1..100, arrays of up to
  50 values (sorted 1..99, signed -99..99 or 0/1), a size argument that is often smaller
  than the array, random strings (letters of both cases, digits, binary, spaces),
  char arrays as lists of one-character strings, square matrices, doubles.
* Each parameter set runs ``f_filled(*p) == f_gold(*p)`` on the same objects (so a
  translation that mutates its argument is seen by ``f_gold`` afterwards), doubles with
  TransCoder's relative tolerance 1e-3. Parameter sets on which the reference itself
  raises or runs past the time limit are dropped (no such test would exist). A program
  passes when every remaining set does; an exception or timeout of the translation fails it.

Reported: pass rate per set and failure kinds (``NameError`` ..., ``wrong_value``).
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.c2c_programs import exception_of, run_source

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data"
DEFAULT_SETS = ("c2c_transcoder_valid", "c2c_avatar_valid")
UNIT_TESTS = DATA / "c2c_transcoder_valid" / "unit_tests"
# TransCoder's header, byte for byte (comp_acc_computation.submit_functions)
TRANSCODER_HEADER = (
    "import numpy as np \nimport math\nfrom math import *\nimport collections\nfrom collections import *\n"
    "import heapq\nimport itertools\nimport random\nimport sys\n\n"
)
PRELUDE = (
    "import math\nfrom math import *\nimport collections\nfrom collections import *\n"
    "import heapq\nimport itertools\nimport random\nimport sys\n\n"
)
_SIZE = re.compile(r"^(n|m|N|M|l|len|length|size|sz|k|[nm]\d|[A-Za-z_]*(size|Size|len|Len|length|Length|_n|_m))$")

# runs one script: every parameter set, reporting per set "ok", "fail", "gold_error", "filled_error:<Exc>"
_DRIVER = r"""
import copy, json, signal, sys
sys.setrecursionlimit(10000)
class _T(BaseException):
    pass
def _alarm(*a):
    raise _T()
signal.signal(signal.SIGALRM, _alarm)
_params = json.loads(sys.stdin.read())
_floats = %(floats)s
_out = []
for _p in _params:
    try:
        signal.setitimer(signal.ITIMER_REAL, %(limit)s)
        _g = f_gold(*copy.deepcopy(_p))
        signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _out.append("gold_error")
        continue
    try:
        signal.setitimer(signal.ITIMER_REAL, %(limit)s)
        _f = f_filled(*_p)
        _g = f_gold(*_p)
        signal.setitimer(signal.ITIMER_REAL, 0)
    except _T:
        _out.append("filled_error:Timeout")
        continue
    except BaseException as _e:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _out.append("filled_error:" + type(_e).__name__)
        continue
    try:
        if _floats and isinstance(_g, float) and isinstance(_f, (int, float)) and not isinstance(_f, bool):
            _ok = abs(1 - (0.0000001 + abs(_g)) / (abs(_f) + 0.0000001)) < 0.001
        else:
            _ok = _f == _g
    except BaseException:
        _ok = False
    _out.append("ok" if _ok else "fail")
print("\n@@UNIT@@" + json.dumps(_out))
"""


def _methods(java: str) -> int:
    from plugins.c2c.syntax import WRAPPER, java_parser, walk_nodes

    tree = java_parser().parse(f"{WRAPPER} {java} }}".encode())
    return sum(n.type in ("method_declaration", "class_declaration") for n in walk_nodes(tree.root_node)) - 1


def _first_name(src: str) -> str | None:
    head = src.split("(", 1)[0].split()
    return head[-1] if head else None


def gen_params(sig: Any, seed: int, count: int) -> list[list[Any]]:
    """TransCoder-style parameter sets for a signature (``bench.c2c_exec_check.Signature``)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        args: list[Any] = []
        lengths: list[int] = []
        for p in sig.params:
            if p.dims == 1:
                v = _array(p.kind, rng)
                args.append(v)
                lengths.append(len(v))
            elif p.dims == 2:
                n = rng.randint(1, 8)
                m = n if rng.random() < 0.7 else rng.randint(1, 8)
                args.append([_array(p.kind, rng, m) for _ in range(n)])
                lengths += [n, m]
            elif p.kind in ("int", "long") and lengths and _SIZE.match(p.name):
                cap = lengths.pop(0)
                args.append(cap if rng.random() < 0.4 else rng.randint(0, cap))
            else:
                v = _scalar(p.kind, rng)
                if p.kind == "String":
                    lengths.append(len(v))
                args.append(v)
        out.append(args)
    return out


def _scalar(kind: str, rng: random.Random) -> Any:
    if kind in ("int", "long"):
        return rng.randint(1, 100) if rng.random() < 0.85 else rng.randint(0, 20)
    if kind == "double":
        return round(rng.uniform(-5000, 9000), 2) if rng.random() < 0.5 else float(rng.randint(1, 100))
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "char":
        return rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    return _string(rng)


def _string(rng: random.Random) -> str:
    n = rng.randint(1, 20)
    style = rng.random()
    if style < 0.3:
        alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ "
    elif style < 0.55:
        alphabet = "0123456789"
    elif style < 0.75:
        alphabet = "01"
    else:
        alphabet = "abcdefghijklmnopqrstuvwxyz"
    s = "".join(rng.choice(alphabet) for _ in range(n))
    return "".join(sorted(s)) if rng.random() < 0.2 else s


def _array(kind: str, rng: random.Random, n: int | None = None) -> list[Any]:
    n = n if n is not None else rng.randint(1, 45)
    if kind in ("int", "long"):
        style = rng.random()
        if style < 0.35:
            return sorted(rng.randint(1, 99) for _ in range(n))
        if style < 0.7:
            return [rng.randint(-99, 99) for _ in range(n)]
        if style < 0.85:
            return sorted(rng.randint(0, 1) for _ in range(n))
        return [rng.randint(1, 99) for _ in range(n)]
    if kind == "double":
        return [round(rng.uniform(-100, 100), 2) for _ in range(n)]
    if kind == "boolean":
        return [rng.random() < 0.5 for _ in range(n)]
    if kind == "char":
        alphabet = rng.choice(("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", "01"))
        v = [rng.choice(alphabet) for _ in range(n)]
        return sorted(v) if rng.random() < 0.3 else v
    return [_string(rng) for _ in range(n)]


def script(gold_src: str, filled_src: str, floats: bool, limit: float, entry: str | None = None) -> str | None:
    """The test script: prelude, ``f_gold``, the renamed translation, the driver; None when no name is found.

    ``entry``: rename this function of the translation (a source with several methods) instead of
    the first name before a ``(`` (TransCoder's rule, for single functions).
    """
    gnames = re.findall(r"^def (\w+)", gold_src, flags=re.M)
    fname = entry if entry is not None else _first_name(filled_src)
    if not gnames or fname is None:
        return None
    gold = re.sub(rf"\b{re.escape(gnames[-1])}\b", "f_gold", gold_src)
    if entry is not None:
        filled = re.sub(rf"\b{re.escape(entry)}\b", "f_filled", filled_src)
    else:
        filled = filled_src.replace(fname, "f_filled")
    return f"{PRELUDE}{gold}\n\n\n{filled}\n\n" + _DRIVER % {"floats": floats, "limit": limit}


def run_one(src: str, params: list[list[Any]], timeout: float) -> list[str] | str:
    """Run a script on its parameter sets: per-set outcomes, or a load error name."""
    try:
        proc = subprocess.run(
            [sys.executable, "-I", "-c", src],
            input=json.dumps(params),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=tempfile.gettempdir(),
        )
    except subprocess.TimeoutExpired:
        return "Timeout"
    for line in proc.stdout.splitlines()[::-1]:
        if line.startswith("@@UNIT@@"):
            return json.loads(line[8:])
    err = proc.stderr.strip().splitlines()
    last = err[-1] if err else "Crash"
    return last.split(":", 1)[0].split(".")[-1] or "Crash"


def judge(outcomes: list[str] | str) -> tuple[str, str]:
    """(status, kind): status "pass" / "fail" / "no_valid_input"."""
    if isinstance(outcomes, str):
        return "fail", f"load:{outcomes}"
    valid = [o for o in outcomes if o != "gold_error"]
    if not valid:
        return "no_valid_input", ""
    for o in valid:
        if o.startswith("filled_error:"):
            return "fail", o.split(":", 1)[1]
    if "fail" in valid:
        return "fail", "wrong_value"
    return "pass", ""


def function_name(tokens: str) -> str | None:
    """TransCoder's ``get_function_name``: the token before the first ``(`` token; None without one."""
    toks = tokens.split()
    return toks[toks.index("(") - 1] if "(" in toks[1:] else None


def fill_script(model: str, source: str, name: str) -> str:
    """The script TransCoder runs: its header, ``model`` with ``source`` (every ``name`` made
    ``f_filled`` by a plain string replace) where ``#TOFILL`` is."""
    return TRANSCODER_HEADER + model.replace("#TOFILL", source.strip().replace(name, "f_filled"))


def parse_results(stdout: str) -> tuple[int, int] | None:
    """``(passed, total)`` from the last ``#Results: passed, total`` a script printed; None when absent."""
    if "#Results:" not in stdout:
        return None
    try:
        passed, total = stdout.split("#Results:")[-1].split(",")
        return int(passed), int(total)
    except ValueError:
        return None


def run_script(script: str, timeout: float) -> dict[str, Any]:
    """Run one filled script: ``{"status": "success" | "failure" | "error" | "timeout", ...}``
    with ``passed``/``total`` (failure), the exception type and its last line (error)."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = run_source(script, b"", timeout, Path(tmp), env={"OPENBLAS_NUM_THREADS": "1"})
    if proc is None:
        return {"status": "timeout"}
    counts = parse_results(proc.stdout.decode("utf-8", errors="replace"))
    if counts is not None:
        passed, total = counts
        return {"status": "success" if passed == total else "failure", "passed": passed, "total": total}
    exc, err = exception_of(proc)
    last = err[-1] if err else f"exit {proc.returncode}"
    return {"status": "error", "exception": exc.split(".")[-1], "reason": last[:200]}


def real_kind(result: dict[str, Any]) -> str:
    """A failure's kind: ``compile:<Exc>`` (the script did not load), ``runtime:<Exc>``,
    ``wrong_results``, ``timeout``, ``no_function``."""
    status = result["status"]
    if status == "error":
        exc = result["exception"]
        return f"compile:{exc}" if exc in ("SyntaxError", "IndentationError", "TabError") else f"runtime:{exc}"
    return {"failure": "wrong_results", "timeout": "timeout", "no_function": "no_function"}.get(status, status)


def run_real(
    pred: dict[str, str] | None, *, jobs: int, timeout: float, only: set[str] | None = None
) -> dict[str, dict[str, Any]]:
    """Every scripted key of ``c2c_transcoder_valid`` through TransCoder's harness: key -> result."""
    from plugins.c2c.detok import detokenize
    from plugins.c2c.task import safe_translate

    root = DATA / "c2c_transcoder_valid"
    requests = json.loads((root / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
    gold = json.loads((root / "true" / "C2C" / "true_C2C.json").read_text(encoding="utf-8"))
    index = json.loads((UNIT_TESTS / "index.json").read_text(encoding="utf-8"))
    report: dict[str, dict[str, Any]] = {}
    jobs_: dict[str, str] = {}
    for key, problem in index.items():
        if only and key not in only:
            continue
        tokens = pred.get(key, "") if pred is not None else safe_translate(requests[key])
        row: dict[str, Any] = {"problem": problem, "translation": tokens}
        report[key] = row
        if tokens.split() == gold[key].split():
            row.update(status="success", identical=True)
            continue
        name = function_name(tokens)
        if name is None:
            row.update(status="no_function")
            continue
        model = (UNIT_TESTS / f"{problem}.py").read_text(encoding="utf-8")
        jobs_[key] = fill_script(model, detokenize(tokens), name)
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        runs = {key: pool.submit(run_script, src, timeout) for key, src in jobs_.items()}
        for key, run in runs.items():
            report[key].update(run.result())
    return report


def against_java(report: dict[str, dict[str, Any]], pred_gold: dict[str, str]) -> dict[str, str]:
    """For each failing key: ``reference_departs`` when the translation returns what the Java
    returns on every parameter set of the script and the reference does not, else
    ``translation_departs`` (or ``java_unusable`` when the Java could not be run on them)."""
    from bench.c2c_exec_check import compare, run_java, run_python, signature
    from plugins.c2c.detok import detokenize

    root = DATA / "c2c_transcoder_valid"
    requests = json.loads((root / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
    programs, params, sigs = {}, {}, {}
    for key, row in report.items():
        if row["status"] == "success":
            continue
        sig = signature(requests[key])
        model = (UNIT_TESTS / f"{row['problem']}.py").read_text(encoding="utf-8")
        found = re.search(r"param = (\[.*?\n\s*\])\n", model, flags=re.S)
        if sig is None or found is None:
            continue
        try:
            p = [list(t) for t in ast.literal_eval(found.group(1))]
        except (ValueError, SyntaxError):
            continue
        if any(len(t) != len(sig.params) for t in p):
            continue
        programs[key], params[key], sigs[key] = (requests[key], sig, p), p, sig
    java = run_java(programs) if programs else {}
    verdicts: dict[str, str] = {}
    for key, row in report.items():
        if row["status"] == "success":
            continue
        oracle = java.get(key, {}).get("results")
        if not oracle or all("exc" in r for r in oracle):
            verdicts[key] = "java_unusable"
            continue
        arrays = [i for i, prm in enumerate(sigs[key].params) if prm.dims]
        gold_src = detokenize(pred_gold[key])
        gold_name = re.findall(r"^def (\w+)", gold_src, flags=re.M)
        ours_src = detokenize(row["translation"])
        ours_name = function_name(row["translation"])
        if not gold_name or ours_name is None:
            verdicts[key] = "translation_departs"
            continue
        gold_run = run_python(gold_src, gold_name[-1], params[key])
        ours_run = run_python(ours_src, ours_name, params[key])
        ours_ok = compare(oracle, ours_run, arrays)[0] == "pass"
        gold_ok = compare(oracle, gold_run, arrays)[0] == "pass"
        verdicts[key] = "reference_departs" if ours_ok and not gold_ok else "translation_departs"
    return verdicts


def main_real(args: argparse.Namespace) -> int:
    pred = json.loads(Path(args.pred[0]).read_text(encoding="utf-8")) if args.pred else None
    start = time.perf_counter()
    only = set(args.only.split(",")) if args.only else None
    report = run_real(pred, jobs=args.jobs, timeout=args.timeout, only=only)
    seconds = time.perf_counter() - start
    n = len(report)
    passed = sum(r["status"] == "success" for r in report.values())
    identical = sum(bool(r.get("identical")) for r in report.values())
    kinds = Counter(real_kind(r) for r in report.values() if r["status"] != "success")
    print(
        f"c2c_transcoder_valid, TransCoder's unit-test scripts: pass {passed}/{n} = {passed / max(n, 1):.3f} "
        f"({identical} identical to the reference, not run); {seconds:.0f} s, {args.jobs} workers, "
        f"{args.timeout:g} s per script"
    )
    if kinds:
        print("  failures: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    verdicts: dict[str, str] = {}
    if args.against_java:
        root = DATA / "c2c_transcoder_valid"
        gold = json.loads((root / "true" / "C2C" / "true_C2C.json").read_text(encoding="utf-8"))
        verdicts = against_java(report, gold)
        counts = Counter(verdicts.values())
        print(
            "  against the Java on the scripts' parameters: "
            + ", ".join(f"{k} {v}" for k, v in counts.most_common())
            + " (reference_departs: the translation does what the Java does, the reference does not)"
        )
    for key, r in sorted(report.items(), key=lambda kv: (real_kind(kv[1]), int(kv[0]))):
        if r["status"] == "success":
            continue
        detail = r.get("reason") or (f"{r['passed']}/{r['total']}" if "passed" in r else "")
        verdict = f" [{verdicts[key]}]" if key in verdicts else ""
        if args.show or args.against_java:
            print(f"    {key} {r['problem']}: {real_kind(r)} {detail}{verdict}")
    if args.out:
        summary = {
            "set": "c2c_transcoder_valid",
            "scripts": n,
            "passed": passed,
            "rate": round(passed / max(n, 1), 4),
            "identical": identical,
            "failure_kinds": dict(kinds.most_common()),
            "against_java": dict(Counter(verdicts.values())),
        }
        for key, v in verdicts.items():
            report[key]["against_java"] = v
        args.out.write_text(json.dumps({"summary": summary, "keys": report}, indent=1), encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replica", action="store_true", help="the replica of the scripts (any set) instead")
    parser.add_argument("--real", action="store_true", help="TransCoder's own scripts (the default)")
    parser.add_argument("--set", type=Path, action="append", help="replica: challenge-layout set folder(s)")
    parser.add_argument(
        "--pred", action="append", default=[], help="prediction_C2C.json (replica: SET_NAME=prediction_C2C.json)"
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per script (TransCoder: 10)")
    parser.add_argument("--against-java", action="store_true", help="check each failure against the Java")
    parser.add_argument("--only", default="", help="comma-separated keys")
    parser.add_argument("--params", type=int, default=10, help="replica: parameter sets per program")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=float, default=2.0, help="replica: seconds per call")
    parser.add_argument("--show", type=int, default=0, help="print failing keys (replica: this many per kind)")
    parser.add_argument("--json", "--out", dest="out", type=Path, help="summary and per-key results as JSON")
    args = parser.parse_args(argv)
    if not args.replica:
        return main_real(args)

    from bench.c2c_exec_check import signature
    from plugins.c2c.detok import detokenize
    from plugins.c2c.task import safe_translate

    sets = args.set or [DATA / n for n in DEFAULT_SETS]
    preds = dict(p.split("=", 1) for p in args.pred)
    report: dict[str, dict] = {}
    for root in sets:
        requests = json.loads((root / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
        gold = json.loads((root / "true" / "C2C" / "true_C2C.json").read_text(encoding="utf-8"))
        pred = json.loads(Path(preds[root.name]).read_text(encoding="utf-8")) if root.name in preds else None
        jobs = {}
        t0 = time.perf_counter()
        for key, java in requests.items():
            sig = signature(java)
            if sig is None or key not in gold:
                report[f"{root.name}/{key}"] = {"status": "unsupported_signature"}
                continue
            tokens = pred.get(key, "") if pred is not None else safe_translate(java)
            try:
                compile(PRELUDE + detokenize(gold[key]), "<gold>", "exec")
            except (SyntaxError, ValueError):
                report[f"{root.name}/{key}"] = {"status": "reference_broken"}
                continue
            floats = sig.returns in ("double", "float", "Double", "Float")
            several = _methods(java) > 1
            src = script(detokenize(gold[key]), detokenize(tokens), floats, args.limit, sig.name if several else None)
            if src is None:
                report[f"{root.name}/{key}"] = {"status": "fail", "kind": "no_function", "translation": tokens}
                continue
            params = gen_params(sig, zlib.crc32(f"{root.name}/{key}".encode()), args.params)
            jobs[key] = (src, params, tokens)
        t_translate = time.perf_counter() - t0
        timeout = args.limit * 2 * args.params + 5
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            runs = [pool.submit(run_one, src, params, timeout) for src, params, _ in jobs.values()]
            results = {key: run.result() for key, run in zip(jobs, runs, strict=True)}
        for key, outcome in results.items():
            status, kind = judge(outcome)
            report[f"{root.name}/{key}"] = {
                "status": status,
                "kind": kind,
                "outcomes": outcome,
                "translation": jobs[key][2],
                "params": jobs[key][1],
            }
        rows = [v for k, v in report.items() if k.startswith(root.name + "/")]
        status = Counter(r["status"] for r in rows)
        tested = status["pass"] + status["fail"]
        kinds = Counter(r["kind"] for r in rows if r["status"] == "fail")
        rate = status["pass"] / max(tested, 1)
        print(
            f"{root.name}: {len(rows)} programs; pass {status['pass']}/{tested} = {rate:.3f}; "
            f"no valid input {status['no_valid_input']}, reference broken {status['reference_broken']}, "
            f"unsupported {status['unsupported_signature']}; "
            f"translate {t_translate:.1f} s, {time.perf_counter() - t0:.0f} s in all"
        )
        if kinds:
            print("  failures: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
        if args.show:
            for kind in sorted(kinds):
                keys = [
                    k.split("/", 1)[1]
                    for k, v in report.items()
                    if k.startswith(root.name + "/") and v.get("kind") == kind
                ]
                print(f"    {kind}: {' '.join(keys[: args.show])}")
    if args.out:
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
