"""C2C differential execution test: do the translations compute what the Java computes?

    python -m bench.c2c_exec [--set DIR ...] [--pred SET_NAME=prediction_C2C.json ...]
                             [--no-java] [--tests 6] [--jobs 1] [--cache DIR] [--out report.json]

For every program of the dev sets (challenge layout ``input/`` + ``true/``) the
entry point's signature gives seeded, bounded inputs (``bench/c2c_exec_check.py``).
The oracle is the Java itself when a JDK is on the PATH (one ``javac``, one JVM per
program), else, or where the Java does not compile, the reference Python of
``true/``. The translation (``--pred``: a prediction file; default: the task's
translation without the selector, i.e. the default style, repaired as the task
repairs it) runs in a sandboxed child process. A program passes when every input
on which the oracle returns gives the same return value and the same array
arguments afterwards. Reported: pass / fail / no valid input / unsupported
signature, failure kinds, which oracle was used, and how often the reference
Python itself agrees with the Java. Oracle results are cached under ``--cache``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
DEFAULT_SETS = ("c2c_avatar_valid", "c2c_transcoder_valid")
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "fusionbrain" / "c2c_exec"
ORACLE_VERSION = "4"


def _digest(*parts: object) -> str:
    return hashlib.sha1(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:20]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, action="append", help="challenge-layout set folder(s)")
    parser.add_argument("--pred", action="append", default=[], help="SET_NAME=prediction_C2C.json")
    parser.add_argument("--no-java", action="store_true", help="reference Python as the oracle even with a JDK")
    parser.add_argument("--tests", type=int, default=6, help="inputs per program")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--out", type=Path, help="per-program results as JSON")
    parser.add_argument("--show", type=int, default=0, help="print this many failing programs per kind")
    args = parser.parse_args()

    from bench.c2c_exec_check import compare, java_available, make_inputs, run_java, signature

    sets = args.set or [DATA / n for n in DEFAULT_SETS]
    preds = dict(p.split("=", 1) for p in args.pred)
    use_java = java_available() and not args.no_java
    args.cache.mkdir(parents=True, exist_ok=True)
    java_note = "Java (javac/java on PATH), reference Python where the Java does not compile"
    print(f"oracle: {java_note if use_java else 'reference Python'}")
    report: dict[str, dict] = {}
    t_all = time.perf_counter()
    for root in sets:
        requests = json.loads((root / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
        gold = json.loads((root / "true" / "C2C" / "true_C2C.json").read_text(encoding="utf-8"))
        pred = json.loads(Path(preds[root.name]).read_text(encoding="utf-8")) if root.name in preds else None
        items = {}
        for key, java in requests.items():
            sig = signature(java)
            if sig is None:
                report[f"{root.name}/{key}"] = {"status": "unsupported_signature"}
                continue
            tests = make_inputs(sig, seed=zlib.crc32(f"{root.name}/{key}".encode()), count=args.tests)
            items[key] = (java, sig, tests)

        # oracles (cached): Java first, the reference Python for every program
        java_res: dict[str, dict] = {}
        if use_java:
            todo = {}
            for key, (java, _sig, tests) in items.items():
                path = args.cache / f"java_{_digest(ORACLE_VERSION, java, tests)}.json"
                if path.is_file():
                    java_res[key] = json.loads(path.read_text())
                else:
                    todo[key] = items[key]
            if todo:
                t0 = time.perf_counter()
                fresh = run_java(todo)
                for key, res in fresh.items():
                    java, _, tests = items[key]
                    (args.cache / f"java_{_digest(ORACLE_VERSION, java, tests)}.json").write_text(json.dumps(res))
                java_res.update(fresh)
                print(f"{root.name}: Java ran {len(todo)} programs in {time.perf_counter() - t0:.0f} s")

        ref_run = partial(_reference_run, items=items, gold=gold, cache=args.cache)
        our_run = partial(_our_run, items=items, pred=pred)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            refs = dict(zip(items, pool.map(ref_run, items), strict=True))
            ours = dict(zip(items, pool.map(our_run, items), strict=True))
        seconds = time.perf_counter() - t0
        for key, (_java, sig, tests) in items.items():
            arrays = [i for i, p in enumerate(sig.params) if p.dims]
            jr = java_res.get(key)
            if jr is not None and "results" in jr:
                oracle, oracle_name = jr["results"], "java"
                ref_status = compare(oracle, refs[key], arrays)
            else:
                ref = refs[key]
                oracle = ref.get("results", []) if "load_error" not in ref and not ref.get("timeout") else []
                oracle_name, ref_status = "reference", ("", "", 0)
            status, kind, n_valid = compare(oracle, ours[key][1], arrays)
            report[f"{root.name}/{key}"] = {
                "status": status,
                "kind": kind,
                "oracle": oracle_name,
                "valid_tests": n_valid,
                "reference_vs_java": ref_status[0] or None,
                "reference_kind": ref_status[1] or None,
                "java_compile_error": (jr or {}).get("compile_error"),
                "translation": ours[key][0],
                "ours": ours[key][1],
                "oracle_results": oracle,
                "tests": tests,
            }
        rows = [v for k, v in report.items() if k.startswith(root.name + "/")]
        _summary(root.name, rows, seconds)
        if args.show:
            for kind in sorted({r["kind"] for r in rows if r.get("status") == "fail"}):
                keys = [k for k, v in report.items() if k.startswith(root.name + "/") and v.get("kind") == kind]
                print(f"  {kind}: {' '.join(k.split('/', 1)[1] for k in keys[: args.show])}")
    if len(sets) > 1:
        _summary("all", list(report.values()), time.perf_counter() - t_all)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


def _reference_run(key: str, items: dict, gold: dict, cache: Path) -> dict:
    """The reference Python on the program's inputs (cached)."""
    from bench.c2c_exec_check import run_python
    from plugins.c2c.detok import detokenize

    _, sig, tests = items[key]
    src = detokenize(gold.get(key, ""))
    path = cache / f"ref_{_digest(ORACLE_VERSION, src, sig.name, tests)}.json"
    if path.is_file():
        return json.loads(path.read_text())
    res = run_python(src, sig.name, tests)
    path.write_text(json.dumps(res))
    return res


def _our_run(key: str, items: dict, pred: dict | None) -> tuple[str, dict]:
    """The translation (``pred``'s, or the task's default-style one) on the program's inputs."""
    from bench.c2c_exec_check import run_python
    from plugins.c2c.detok import detokenize
    from plugins.c2c.task import safe_translate

    java, sig, tests = items[key]
    tokens = pred.get(key, "") if pred is not None else safe_translate(java)
    return tokens, run_python(detokenize(tokens), sig.name, tests)


def _summary(name: str, rows: list[dict], seconds: float) -> None:
    status = Counter(r["status"] for r in rows)
    tested = status["pass"] + status["fail"]
    kinds = Counter(r["kind"] for r in rows if r["status"] == "fail")
    oracles = Counter(r.get("oracle") for r in rows if r["status"] in ("pass", "fail"))
    ref = Counter(r.get("reference_vs_java") for r in rows if r.get("reference_vs_java") in ("pass", "fail"))
    print(
        f"{name}: {len(rows)} programs; pass {status['pass']}/{tested} = {status['pass'] / max(tested, 1):.3f}; "
        f"no valid input {status['no_valid_input']}, unsupported signature {status['unsupported_signature']}; "
        f"oracle {dict(oracles)}; {seconds:.0f} s"
    )
    if kinds:
        print("  failures: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    if ref:
        print(f"  reference Python vs Java: pass {ref['pass']}/{ref['pass'] + ref['fail']}")


if __name__ == "__main__":
    raise SystemExit(main())
