"""C2C on whole programs: does the translated Python print what the Java prints?

    python -m bench.c2c_programs [--set ../shared/data/c2c_programs_dev] [--no-selector]
                                 [--timeout 10] [--no-java] [--show 3] [--out report.json]

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

Reported: pass / wrong answer / runtime error (by exception type) / timeout /
translation error (the task wrote its minimal program), overall and by the program's
input idiom (Scanner, BufferedReader, a hand-written reader), the translation speed
(programs/s through the runner), "not valid Java" warnings, and Python vs Java run time.
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


def _limit_memory() -> None:  # runs in the child before exec
    gib = 4 * 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (gib, gib))


def run_python(source: str, stdin: bytes, timeout: float, workdir: Path) -> dict:
    """Run ``source`` as a script on ``stdin``; outcome, stdout, exception type, seconds."""
    path = workdir / "prog.py"
    path.write_text(source, encoding="utf-8")
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(path)],
            input=stdin,
            capture_output=True,
            timeout=timeout,
            cwd=workdir,
            preexec_fn=_limit_memory,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": timeout}
    seconds = time.perf_counter() - start
    out = proc.stdout.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        last = err[-1] if err else f"exit {proc.returncode}"
        exc = last.split(":", 1)[0].strip() if re.match(r"^[\w.]+(:|$)", last) else f"exit {proc.returncode}"
        return {
            "status": "runtime_error",
            "exception": exc,
            "stderr": "\n".join(err[-6:]),
            "stdout": out,
            "seconds": seconds,
        }
    return {"status": "ran", "stdout": out, "seconds": seconds}


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
        from core.trunk import TrunkConfig, load_trunk

        trunk = load_trunk(TrunkConfig())
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=DATA / "c2c_programs_dev")
    parser.add_argument("--no-selector", action="store_true", help="translator alone (fake trunk, no selector)")
    parser.add_argument("--pred", type=Path, help="score this prediction_C2C.json instead of translating")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--no-java", action="store_true", help="skip the Java oracle")
    parser.add_argument("--only", default="", help="comma-separated program ids")
    parser.add_argument("--show", type=int, default=0, help="print this many failures per kind")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--out", type=Path, help="per-program results as JSON")
    args = parser.parse_args(argv)

    from plugins.c2c.detok import detokenize
    from plugins.c2c.task import MINIMAL_PROGRAM

    root: Path = args.set
    requests = json.loads((root / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
    keys = [k for k in requests if not args.only or k in args.only.split(",")]
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

    use_java = not args.no_java and shutil.which("javac") is not None and shutil.which("java") is not None
    args.cache.mkdir(parents=True, exist_ok=True)
    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for key in keys:
            java_path = root / "java" / f"{key}.java"
            java = java_path.read_text(encoding="utf-8") if java_path.is_file() else ""
            tests = sorted((root / "tests").glob(f"{key}_*.in"))
            tokens = pred.get(key, "")
            row: dict = {"idiom": idiom(java), "translation": tokens}
            if not tokens or tokens == MINIMAL_PROGRAM:
                row.update(status="translation_error")
                rows[key] = row
                continue
            source = detokenize(tokens)
            status, py_s, java_s, java_ok = "pass", 0.0, 0.0, True
            for test in tests:
                stdin = test.read_bytes()
                expected = test.with_suffix(".out").read_text(encoding="utf-8", errors="replace")
                if use_java and java:
                    jr = run_java_oracle(java, stdin, args.cache, max(args.timeout, 10.0))
                    java_s += jr.get("seconds", 0.0)
                    java_ok = java_ok and jr["status"] == "ran" and same_output(expected, jr.get("stdout", ""))
                res = run_python(source, stdin, args.timeout, work)
                py_s += res.get("seconds", 0.0)
                if res["status"] == "timeout":
                    status = "timeout"
                elif res["status"] == "runtime_error":
                    status = f"runtime_error:{res['exception']}"
                    row["stderr"] = res["stderr"]
                elif not same_output(expected, res["stdout"]):
                    status = "wrong_answer"
                    row["got"], row["expected"] = res["stdout"][:400], expected[:400]
                if status != "pass":
                    break
            row.update(
                status=status,
                python_s=round(py_s, 3),
                java_s=round(java_s, 3) if use_java else None,
                java_pass=java_ok if use_java else None,
            )
            rows[key] = row
    _report(rows, use_java, args.show)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


def _report(rows: dict[str, dict], use_java: bool, show: int) -> None:
    n = len(rows)
    status = Counter(r["status"] for r in rows.values())
    passed = status["pass"]
    print(f"pass {passed}/{n} = {passed / max(n, 1):.3f}")
    coarse = Counter(s.split(":")[0] for s in status.elements())
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in coarse.most_common()))
    errors = Counter(s.split(":", 1)[1] for s in status.elements() if s.startswith("runtime_error:"))
    if errors:
        print("runtime errors: " + ", ".join(f"{k} {v}" for k, v in errors.most_common()))
    by_idiom: dict[str, Counter] = defaultdict(Counter)
    for r in rows.values():
        by_idiom[r["idiom"]][r["status"] == "pass"] += 1
    print(
        "by input idiom: "
        + ", ".join(
            f"{k} {c[True]}/{c[True] + c[False]}"
            for k, c in sorted(by_idiom.items(), key=lambda kv: -sum(kv[1].values()))
        )
    )
    if use_java:
        java_pass = sum(bool(r.get("java_pass")) for r in rows.values() if r.get("java_pass") is not None)
        ran = [r for r in rows.values() if r.get("java_pass") is not None]
        print(f"Java oracle passes {java_pass}/{len(ran)}")
        both = [r for r in ran if r["status"] == "pass" and r.get("java_s")]
        if both:
            py = sum(r["python_s"] for r in both)
            jv = sum(r["java_s"] for r in both)
            print(f"run time on the {len(both)} passing programs: Python {py:.1f} s, Java {jv:.1f} s")
    if show:
        kinds: dict[str, list[str]] = defaultdict(list)
        for key, r in rows.items():
            if r["status"] != "pass":
                kinds[r["status"]].append(key)
        for kind, keys in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
            print(f"  {kind} ({len(keys)}): {' '.join(keys[:show])}")


if __name__ == "__main__":
    raise SystemExit(main())
