"""C2C on whole programs: does the translated Python print what the Java prints?

    python -m bench.c2c_programs [--set ../shared/data/c2c_programs_dev] [--no-selector]
                                 [--generated [N]] [--java-limit 2] [--jobs 2]
                                 [--timeout 10] [--no-java] [--show 3] [--json report.json]

For every program of a program-level set (``input/C2C/requests.json`` in the challenge's
token format, ``java/<id>.java`` the original source, ``tests/<id>_<k>.in/.out``):

* the request is translated through the task's real run path (``core.runner`` with
  ``plugins.c2c.task.C2cTask``, exactly as ``run.py`` does; the default trunk and its
  style selector, or ``--no-selector``: the translator alone with a tiny fake trunk);
* the prediction is detokenized to Python source and run with this interpreter on each
  test's stdin (wall-clock ``--timeout``, memory limited);
* the Java is compiled once (cached by source) and run on the same stdin as the oracle,
  to confirm that it passes and to compare run times;
* stdout is compared stripped, line by line, token by token, numbers as numbers
  (relative/absolute tolerance 1e-6).

With ``--generated N`` (N = 20 when left out), each program also gets N further tests made
from its sample input by ``bench.c2c_inputs`` (numbers redrawn within the shapes the sample
shows, counts grown to the size limit, values up to 10^9; seeded by the program id), kept where the
Java ends normally within ``--java-limit`` seconds with some output, its stdout the expected
output; cached without the inputs in ``output/c2c_generated/`` (never committed). The
translation runs on them with the same fixed ``--timeout`` (10 s, whatever the Java took; after
two timeouts a program's remaining tests are not run). A program passes its generated tests
when it passes all of them.

Reported: pass / wrong answer / runtime error (by exception type) / timeout / syntax error /
translation error (the task wrote its minimal program), overall and by the program's
input idiom (Scanner, BufferedReader, a hand-written reader), the translation speed
(programs/s through the runner), "not valid Java" warnings, and Python vs Java run time;
with ``--generated``, the share of programs passing all their generated tests, of those
passing old and generated tests, and per failing program the kind of its first failure and a
short reason (the exception's line, or expected vs printed; ``wrong_answer:int_overflow`` when the
Java's number is ours wrapped to 32/64 bits or saturated by a cast, which usually means a generated
value beyond the problem's constraints), the generated tests passed per strategy, and the slow
tests (Python >= 10x the Java's time and >= 1 s, or out of time; wall and CPU seconds: on a loaded
machine the CPU time says whether a timeout is the machine's). ``--json`` writes it all, with
every generated test's strategy and times.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fusionbrain" / "c2c_programs"
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def idiom(java: str) -> str:
    """The program's input idiom: a hand-written reader, BufferedReader, Scanner, or none."""
    if re.search(r"DataInputStream|System\s*\.\s*in\s*\.\s*read|InputStream\s+\w+\s*[;,)=]", java):
        return "custom_reader"
    if "BufferedReader" in java:
        return "BufferedReader"
    if "Scanner" in java:
        return "Scanner"
    return "none"


def same_output(expected: str, got: str, tol: float = 1e-6) -> bool:
    """Stripped stdout equal line by line, token by token; numeric tokens compared as numbers."""
    exp_lines = [line.split() for line in expected.strip().splitlines()]
    got_lines = [line.split() for line in got.strip().splitlines()]
    exp_lines = [e for e in exp_lines if e]
    got_lines = [g for g in got_lines if g]
    if len(exp_lines) != len(got_lines):
        return False
    for e_toks, g_toks in zip(exp_lines, got_lines, strict=True):
        if len(e_toks) != len(g_toks):
            return False
        for e, g in zip(e_toks, g_toks, strict=True):
            if e == g:
                continue
            if _NUMBER.match(e) and _NUMBER.match(g):
                a, b = float(e), float(g)
                if abs(a - b) <= tol * max(1.0, abs(a), abs(b)):
                    continue
            return False
    return True


# the address space a script may use; TransCoder's unit tests set `ulimit -S -v 2*1024**3`, in KiB:
# 2 TiB, no limit in practice; 4 GiB guards the shared machine
SCRIPT_MEMORY = 4 * 1024**3


def _limit_memory() -> None:  # runs in the child before exec
    resource.setrlimit(resource.RLIMIT_AS, (SCRIPT_MEMORY, SCRIPT_MEMORY))


def run_source(
    source: str, stdin: bytes, timeout: float, workdir: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess | None:
    """Run ``source`` as a script in ``workdir`` on ``stdin`` under the memory limit, with a fixed
    hash seed (and ``env`` added); None when it outlives ``timeout``."""
    path = workdir / "prog.py"
    path.write_text(source, encoding="utf-8")
    try:
        return subprocess.run(
            [sys.executable, str(path)],
            input=stdin,
            capture_output=True,
            timeout=timeout,
            cwd=workdir,
            preexec_fn=_limit_memory,
            env={**os.environ, "PYTHONHASHSEED": "0", **(env or {})},
        )
    except subprocess.TimeoutExpired:
        return None


def exception_of(proc: subprocess.CompletedProcess) -> tuple[str, list[str]]:
    """The exception a failed script raised (its traceback's last line up to ':', else
    ``exit N``) and its stderr lines."""
    err = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
    last = err[-1] if err else f"exit {proc.returncode}"
    exc = last.split(":", 1)[0].strip() if re.match(r"^[\w.]+(:|$)", last) else f"exit {proc.returncode}"
    return exc, err


def run_python(source: str, stdin: bytes, timeout: float, workdir: Path) -> dict:
    """Run ``source`` as a script on ``stdin``; outcome, stdout, exception type, seconds."""
    start, cpu = time.perf_counter(), _child_cpu()
    proc = run_source(source, stdin, timeout, workdir)
    if proc is None:
        return {"status": "timeout", "seconds": timeout, "cpu_s": _child_cpu() - cpu}
    seconds = time.perf_counter() - start
    out = proc.stdout.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        exc, err = exception_of(proc)
        return {
            "status": "runtime_error",
            "exception": exc,
            "stderr": "\n".join(err[-6:]),
            "stdout": out,
            "seconds": seconds,
            "cpu_s": _child_cpu() - cpu,
        }
    return {"status": "ran", "stdout": out, "seconds": seconds, "cpu_s": _child_cpu() - cpu}


def _child_cpu() -> float:
    """CPU seconds (user + system) of this process's waited-for children: a script's own time,
    less sensitive than the wall clock to a loaded machine (the bench runs scripts one at a time)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def java_class_name(java: str) -> str:
    match = re.search(r"public\s+(?:final\s+)?class\s+(\w+)", java)
    if match:
        return match.group(1)
    match = re.search(r"class\s+(\w+)[^{]*\{(?:(?!\bclass\b).)*?static\s+void\s+main\s*\(", java, re.S)
    return match.group(1) if match else "Main"


def run_java_oracle(java: str, stdin: bytes, cache: Path, timeout: float) -> dict:
    """Compile (cached by source) and run the Java on ``stdin`` (cached by source and input)."""
    key = hashlib.sha1(java.encode()).hexdigest()[:16]
    run_key = hashlib.sha1(java.encode() + b"\0" + stdin).hexdigest()[:16]
    result_path = cache / f"run_{run_key}.json"
    if result_path.is_file():
        return json.loads(result_path.read_text())
    folder = cache / f"class_{key}"
    name = java_class_name(java)
    if not (folder / "ok").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.java").write_text(java, encoding="utf-8")
        proc = subprocess.run(
            ["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(folder), str(folder / f"{name}.java")],
            capture_output=True,
        )
        if proc.returncode != 0:
            return {"status": "compile_error", "stderr": proc.stderr.decode(errors="replace")[-2000:]}
        (folder / "ok").write_text("")
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            ["java", "-Xss64m", "-cp", str(folder), name], input=stdin, capture_output=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": timeout}
    res = {
        "status": "ran" if proc.returncode == 0 else "runtime_error",
        "stdout": proc.stdout.decode("utf-8", errors="replace"),
        "seconds": time.perf_counter() - start,
    }
    result_path.write_text(json.dumps(res))
    return res


class _WarningCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def translate_set(root: Path, no_selector: bool, out_dir: Path) -> tuple[dict[str, str], float, list[str]]:
    """The task's predictions for ``root`` through ``core.runner`` (as ``run.py``), seconds, warnings."""
    import torch

    torch.set_num_threads(1)
    from core.runner import plan, run
    from plugins.c2c.task import C2cTask

    if no_selector:
        from core.testing import make_fake_trunk

        trunk = make_fake_trunk(seed=0)
        task = C2cTask(weights_dir=Path("/nonexistent"))
    else:
        import registry
        from core.trunk import TrunkConfig, load_trunk

        trunk = load_trunk(TrunkConfig(), registry.load())
        task = C2cTask()
    counter = _WarningCounter()
    logging.getLogger("plugins.c2c").addHandler(counter)
    logging.getLogger("plugins.c2c").setLevel(logging.WARNING)
    start = time.perf_counter()
    reports = run(plan([task], root / "input"), trunk, out_dir, progress=False)
    seconds = time.perf_counter() - start
    logging.getLogger("plugins.c2c").removeHandler(counter)
    pred = json.loads(reports[0].path.read_text(encoding="utf-8"))
    return pred, seconds, counter.messages


GENERATED = REPO / "output" / "c2c_generated"
GENERATOR_VERSION = 4  # bump when bench.c2c_inputs changes what it makes


def generated_tests(
    key: str, java: str, sample: str, count: int, *, cache: Path, java_cache: Path, java_limit: float, jobs: int
) -> list[dict]:
    """Up to ``count`` further tests for one program: ``{"strategy", "seed", "stdin", "expected", "java_s"}``.

    Candidates from ``bench.c2c_inputs`` (seeded by the program id) are run through the Java, in
    candidate order, until ``count`` of them end normally within ``java_limit`` seconds with some
    output; the Java's stdout is the expected output. Kept in ``cache/<key>.json`` (keyed by the
    Java source, the sample, ``count`` and the generator's version) without the inputs, which
    ``candidate(sample, seed, strategy)`` makes again.
    """
    from concurrent.futures import ThreadPoolExecutor

    from bench.c2c_inputs import candidate, candidates, limits_of

    limits = limits_of(java)
    stamp = {
        "version": GENERATOR_VERSION,
        "limits": [limits.size, limits.value],
        "java": hashlib.sha1(java.encode()).hexdigest(),
        "sample": hashlib.sha1(sample.encode()).hexdigest(),
        "count": count,
        "java_limit": java_limit,
    }
    path = cache / f"{key}.json"
    if path.is_file():
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("stamp") == stamp:
            return [{**t, "stdin": candidate(sample, t["seed"], t["strategy"], limits)} for t in saved["tests"]]
    seed = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16)
    pool = candidates(sample, seed, count * 3, limits)
    tests: list[dict] = []
    tried = 0
    step = 2 * max(1, jobs)

    def run(c: tuple[str, int]) -> dict:
        return run_java_oracle(java, candidate(sample, c[1], c[0], limits).encode(), java_cache, java_limit + 2)

    with ThreadPoolExecutor(max(1, jobs)) as ex:
        for at in range(0, len(pool), step):
            batch = pool[at : at + step]
            for (strategy, cand_seed), res in zip(batch, ex.map(run, batch), strict=True):
                tried += 1
                out = res.get("stdout", "")
                if res["status"] == "ran" and res["seconds"] <= java_limit and out.strip() and len(out) < 1 << 20:
                    tests.append({"strategy": strategy, "seed": cand_seed, "expected": out, "java_s": res["seconds"]})
            if len(tests) >= count:
                break
    tests = tests[:count]
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"stamp": stamp, "tried": tried, "tests": tests}), encoding="utf-8")
    return [{**t, "stdin": candidate(sample, t["seed"], t["strategy"], limits)} for t in tests]


def _failure(res: dict, expected: str) -> dict | None:
    """None when ``res`` (``run_python``) printed ``expected``; else its kind and a short reason."""
    if res["status"] == "timeout":
        return {"kind": "timeout", "reason": f"no result in {res['seconds']:g} s"}
    if res["status"] == "runtime_error":
        lines = res["stderr"].splitlines()
        files = [i for i, ln in enumerate(lines) if ln.startswith("  File")]
        where = lines[files[-1] + 1].strip() if files and files[-1] + 1 < len(lines) - 1 else ""
        return {"kind": f"runtime_error:{res['exception']}", "reason": lines[-1][:200] if lines else "", "line": where}
    if not same_output(expected, res["stdout"]):
        kind = "wrong_answer:int_overflow" if java_overflow(expected, res["stdout"]) else "wrong_answer"
        return {"kind": kind, "reason": f"expected {expected[:80]!r}, got {res['stdout'][:80]!r}"}
    return None


_BOUNDS = {2**31 - 1, -(2**31), 2**63 - 1, -(2**63)}


def java_overflow(expected: str, got: str) -> bool:
    """Is the first difference between the Java's output and ours what Java's fixed-width integers
    make of our exact one: equal modulo 2^32 or 2^64 (wrapped arithmetic), or the Java printing a
    type's bound where we print a number beyond it (a saturating ``(int)`` / ``(long)`` cast)? Such
    a test usually lies beyond the problem's constraints (a generated value too large)."""
    for e, g in zip(expected.split(), got.split(), strict=False):
        if e == g:
            continue
        if not (re.fullmatch(r"-?\d+", e) and re.fullmatch(r"-?\d+", g)):
            return False
        a, b = int(e), int(g)
        return (a - b) % 2**32 == 0 or (a - b) % 2**64 == 0 or (a in _BOUNDS and abs(b) > abs(a))
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=DATA / "c2c_programs_dev")
    parser.add_argument("--no-selector", action="store_true", help="translator alone (fake trunk, no selector)")
    parser.add_argument("--pred", type=Path, help="score this prediction_C2C.json instead of translating")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per Python run (fixed, as a judge's)")
    parser.add_argument("--no-java", action="store_true", help="skip the Java oracle")
    parser.add_argument(
        "--generated",
        type=int,
        nargs="?",
        const=20,
        default=0,
        metavar="N",
        help="also N further tests per program made from its sample input, the Java as oracle",
    )
    parser.add_argument(
        "--java-limit",
        type=float,
        default=2.0,
        help="a generated input is kept when the Java ends normally within this many seconds",
    )
    parser.add_argument("--jobs", type=int, default=2, help="parallel Java runs while generating")
    parser.add_argument("--gen-cache", type=Path, default=GENERATED, help="generated tests (never committed)")
    parser.add_argument("--only", default="", help="comma-separated program ids")
    parser.add_argument("--show", type=int, default=0, help="print this many failures per kind")
    parser.add_argument("--cache", type=Path, default=CACHE, help="compiled Java and its runs")
    parser.add_argument("--json", "--out", dest="out", type=Path, help="summary and per-program results as JSON")
    args = parser.parse_args(argv)

    from plugins.c2c.detok import detokenize
    from plugins.c2c.task import MINIMAL_PROGRAM

    root: Path = args.set
    requests = json.loads((root / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
    keys = [k for k in requests if not args.only or k in args.only.split(",")]
    use_java = not args.no_java and shutil.which("javac") is not None and shutil.which("java") is not None
    if args.generated and not use_java:
        parser.error("--generated needs javac and java (the Java is the oracle)")
    args.cache.mkdir(parents=True, exist_ok=True)
    javas = {
        k: (root / "java" / f"{k}.java").read_text(encoding="utf-8")
        for k in keys
        if (root / "java" / f"{k}.java").is_file()
    }
    generated: dict[str, list[dict]] = {}
    if args.generated:
        start = time.perf_counter()
        for n, key in enumerate(keys, 1):
            samples = sorted((root / "tests").glob(f"{key}_*.in"))
            if key in javas and samples:
                generated[key] = generated_tests(
                    key,
                    javas[key],
                    samples[0].read_text(encoding="utf-8", errors="replace"),
                    args.generated,
                    cache=args.gen_cache,
                    java_cache=args.cache,
                    java_limit=args.java_limit,
                    jobs=args.jobs,
                )
            if n % 10 == 0:
                print(
                    f"  generated tests for {n}/{len(keys)} programs ({time.perf_counter() - start:.0f} s)", flush=True
                )
        print(
            f"generated {sum(map(len, generated.values()))} tests for {sum(bool(t) for t in generated.values())} "
            f"programs ({args.generated} asked each; kept where the Java ends normally within {args.java_limit:g} s)"
        )

    if args.pred:
        pred, seconds, warnings = json.loads(args.pred.read_text(encoding="utf-8")), 0.0, []
    else:
        with tempfile.TemporaryDirectory() as tmp:
            pred, seconds, warnings = translate_set(root, args.no_selector, Path(tmp))
        print(
            f"translated {len(requests)} programs in {seconds:.2f} s = {len(requests) / seconds:.1f} programs/s "
            f"({'translator alone' if args.no_selector else 'default trunk + selector'})"
        )
        invalid = [w for w in warnings if "not valid Java" in w]
        print(f"warnings: {len(warnings)} ({len(invalid)} 'not valid Java')")

    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for key in keys:
            java = javas.get(key, "")
            tokens = pred.get(key, "")
            row: dict = {"idiom": idiom(java), "translation": tokens}
            rows[key] = row
            old = [
                {
                    "stdin": t.read_bytes(),
                    "expected": t.with_suffix(".out").read_text(encoding="utf-8", errors="replace"),
                }
                for t in sorted((root / "tests").glob(f"{key}_*.in"))
            ]
            gen = [
                {
                    "stdin": t["stdin"].encode(),
                    "expected": t["expected"],
                    "strategy": t["strategy"],
                    "java_s": t["java_s"],
                }
                for t in generated.get(key, [])
            ]
            if not tokens or tokens == MINIMAL_PROGRAM:
                row.update(
                    status="translation_error",
                    generated_status="translation_error" if gen else None,
                    generated_tests=len(gen),
                    generated_passed=0,
                )
                continue
            source = detokenize(tokens)
            try:
                compile(source, key, "exec")
            except SyntaxError as exc:
                fail = {"kind": "syntax_error", "reason": f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})"}
                row.update(
                    status="syntax_error",
                    failure=fail,
                    generated_tests=len(gen),
                    generated_passed=0,
                    generated_status="syntax_error" if gen else None,
                )
                continue
            status, py_s, java_s, java_ok = "pass", 0.0, 0.0, True
            for test in old:
                if use_java and java:
                    jr = run_java_oracle(java, test["stdin"], args.cache, max(args.timeout, 10.0))
                    java_s += jr.get("seconds", 0.0)
                    java_ok = java_ok and jr["status"] == "ran" and same_output(test["expected"], jr.get("stdout", ""))
                res = run_python(source, test["stdin"], args.timeout, work)
                py_s += res.get("seconds", 0.0)
                fail = _failure(res, test["expected"])
                if fail is not None:
                    status = fail["kind"]
                    row["failure"] = fail
                    if res.get("stderr"):
                        row["stderr"] = res["stderr"]
                    if fail["kind"] == "wrong_answer":
                        row["got"], row["expected"] = res["stdout"][:400], test["expected"][:400]
                    break
            row.update(
                status=status,
                python_s=round(py_s, 3),
                java_s=round(java_s, 3) if use_java else None,
                java_pass=java_ok if use_java else None,
            )
            if gen:
                row.update(_run_generated(source, gen, args.timeout, work))
    summary = _report(rows, use_java, args.show, bool(args.generated))
    if args.out:
        args.out.write_text(json.dumps({"summary": summary, "programs": rows}, indent=1), encoding="utf-8")
    return 0


def _run_generated(source: str, tests: list[dict], timeout: float, work: Path) -> dict:
    """The translation on a program's generated tests; after two timeouts the rest are not run."""
    passed, timeouts, first, kinds = 0, 0, None, Counter()
    py_s = 0.0
    timings = []
    for k, test in enumerate(tests):
        if timeouts >= 2:
            kinds["not_run"] += len(tests) - k
            break
        res = run_python(source, test["stdin"], timeout, work)
        py_s += res.get("seconds", 0.0)
        fail = _failure(res, test["expected"])
        timings.append(
            {
                "test": k,
                "strategy": test["strategy"],
                "input_chars": len(test["stdin"]),
                "java_s": round(test["java_s"], 3),
                "python_s": round(res["seconds"], 3),
                "python_cpu_s": round(res.get("cpu_s", 0.0), 3),
                "kind": "pass" if fail is None else fail["kind"],
            }
        )
        if fail is None:
            passed += 1
            continue
        kinds[fail["kind"]] += 1
        timeouts += fail["kind"] == "timeout"
        if first is None:
            first = {
                **fail,
                "test": k,
                "strategy": test["strategy"],
                "java_s": round(test["java_s"], 3),
                "stdin": test["stdin"][:300].decode(errors="replace"),
            }
    return {
        "generated_status": "pass" if first is None else first["kind"],
        "generated_tests": len(tests),
        "generated_passed": passed,
        "generated_kinds": dict(kinds),
        "generated_failure": first,
        "generated_python_s": round(py_s, 3),
        "generated_timings": timings,
    }


SLOW_RATIO = 10.0  # a generated test is slow when Python takes this many times the Java's time ...
SLOW_SECONDS = 1.0  # ... and at least this long (the JVM's own start is ~0.1-0.3 s)


def _report_timings(rows: dict[str, dict], summary: dict) -> None:
    """Per strategy, the generated tests passed; the slow tests (Python over ``SLOW_RATIO`` x the
    Java and ``SLOW_SECONDS``, or out of time), worst ratio first, one line per program."""
    by_strategy: dict[str, Counter] = defaultdict(Counter)
    slow: dict[str, dict] = {}
    for key, r in rows.items():
        for t in r.get("generated_timings", []):
            by_strategy[t["strategy"]][t["kind"] == "pass"] += 1
            ratio = t["python_s"] / max(t["java_s"], 1e-3)
            is_slow = t["kind"] == "timeout" or (ratio >= SLOW_RATIO and t["python_s"] >= SLOW_SECONDS)
            if is_slow and (key not in slow or ratio > slow[key]["ratio"]):
                slow[key] = {**t, "ratio": round(ratio, 1)}
    summary["generated_by_strategy"] = {k: [c[True], c[True] + c[False]] for k, c in by_strategy.items()}
    print(
        "  generated tests passed by strategy: "
        + ", ".join(f"{k} {c[True]}/{c[True] + c[False]}" for k, c in sorted(by_strategy.items()))
    )
    summary["slow_tests"] = slow
    print(
        f"  slow generated tests (Python >= {SLOW_RATIO:g}x the Java and >= {SLOW_SECONDS:g} s, or out of time): "
        f"{len(slow)} programs"
    )
    for key, t in sorted(slow.items(), key=lambda kv: -kv[1]["ratio"]):
        print(
            f"    {key} {t['strategy']} ({t['input_chars']:,} chars): Python {t['python_s']:.2f} s "
            f"(cpu {t['python_cpu_s']:.2f} s), Java {t['java_s']:.2f} s, x{t['ratio']:g}, {t['kind']}"
        )


def _report(rows: dict[str, dict], use_java: bool, show: int, generated: bool) -> dict:
    n = len(rows)
    status = Counter(r["status"] for r in rows.values())
    passed = status["pass"]
    summary: dict = {"programs": n, "old_pass": passed, "old_rate": round(passed / max(n, 1), 4)}
    print(f"old single tests: pass {passed}/{n} = {passed / max(n, 1):.3f}")
    coarse = Counter(s.split(":")[0] for s in status.elements())
    print("  outcomes: " + ", ".join(f"{k} {v}" for k, v in coarse.most_common()))
    errors = Counter(s.split(":", 1)[1] for s in status.elements() if s.startswith("runtime_error:"))
    if errors:
        print("  runtime errors: " + ", ".join(f"{k} {v}" for k, v in errors.most_common()))
    by_idiom: dict[str, Counter] = defaultdict(Counter)
    for r in rows.values():
        by_idiom[r["idiom"]][r["status"] == "pass"] += 1
    print(
        "  by input idiom: "
        + ", ".join(
            f"{k} {c[True]}/{c[True] + c[False]}"
            for k, c in sorted(by_idiom.items(), key=lambda kv: -sum(kv[1].values()))
        )
    )
    if use_java:
        java_pass = sum(bool(r.get("java_pass")) for r in rows.values() if r.get("java_pass") is not None)
        ran = [r for r in rows.values() if r.get("java_pass") is not None]
        summary["java_old_pass"] = java_pass
        print(f"  Java oracle passes {java_pass}/{len(ran)}")
        both = [r for r in ran if r["status"] == "pass" and r.get("java_s")]
        if both:
            py = sum(r["python_s"] for r in both)
            jv = sum(r["java_s"] for r in both)
            print(f"  run time on the {len(both)} passing programs: Python {py:.1f} s, Java {jv:.1f} s")
    if generated:
        with_gen = {k: r for k, r in rows.items() if r.get("generated_tests")}
        gen_pass = sum(r["generated_status"] == "pass" for r in with_gen.values())
        both = sum(r["generated_status"] == "pass" and r["status"] == "pass" for r in with_gen.values())
        tests = sum(r["generated_tests"] for r in with_gen.values())
        tests_ok = sum(r["generated_passed"] for r in with_gen.values())
        summary.update(
            generated_programs=len(with_gen),
            generated_tests=tests,
            generated_tests_passed=tests_ok,
            generated_pass=gen_pass,
            generated_rate=round(gen_pass / max(len(with_gen), 1), 4),
            all_tests_pass=both,
            all_tests_rate=round(both / max(n, 1), 4),
        )
        print(
            f"generated tests: programs passing all of theirs {gen_pass}/{len(with_gen)} = "
            f"{gen_pass / max(len(with_gen), 1):.3f}; tests passed {tests_ok}/{tests}; "
            f"the Java passes all {tests} (it made them); {n - len(with_gen)} programs without a generated test"
        )
        print(f"old and generated tests all passed: {both}/{n} = {both / max(n, 1):.3f}")
        kinds = Counter(r["generated_status"] for r in with_gen.values() if r["generated_status"] != "pass")
        summary["generated_failure_kinds"] = dict(kinds.most_common())
        print(
            "  failure kinds (first failing test per program): " + ", ".join(f"{k} {v}" for k, v in kinds.most_common())
        )
        _report_timings(with_gen, summary)
    failing = {
        k: r for k, r in rows.items() if r["status"] != "pass" or r.get("generated_status") not in (None, "pass")
    }
    if failing:
        print("failing programs (old test kind | generated kind, passed/tests: reason):")
    for key, r in failing.items():
        fail = r.get("failure") if r["status"] != "pass" else r.get("generated_failure")
        gen = f" {r.get('generated_passed', 0)}/{r.get('generated_tests', 0)}" if generated else ""
        reason = (fail or {}).get("reason", "")
        print(f"  {key} [{r['idiom']}] {r['status']} | {r.get('generated_status')}{gen}: {reason[:110]}")
    if show:
        kinds_keys: dict[str, list[str]] = defaultdict(list)
        for key, r in rows.items():
            if r["status"] != "pass":
                kinds_keys[r["status"]].append(key)
        for kind, keys in sorted(kinds_keys.items(), key=lambda kv: -len(kv[1])):
            print(f"  {kind} ({len(keys)}): {' '.join(keys[:show])}")
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
