"""Whole-program failure kinds, one small Java repro each: does the translation print what Java prints?

    python -m bench.c2c_kinds [--kinds tests/c2c/data/kinds] [--java] [--timeout 10]

Each kind is ``<name>.java`` (a whole program; its first ``//`` comment says what it exercises),
``<name>.in`` (stdin) and ``<name>.out`` (what the Java prints on it, checked with ``--java`` or by
``tests/c2c/test_kinds_data.py``). Every kind is translated as the task does (``safe_translate``
on the challenge's token form) and run on its input with the bench's runner (``bench.c2c_programs``:
memory limit, fixed hash seed, ``--timeout``). Reported per kind: whether the translator's raw
output compiled (else the guard repaired it), the outcome (pass, wrong_answer,
runtime_error:<exception>, timeout) and the first line of difference or the exception.

These are repros of translator bugs that the held-out programs showed or that the widened
``bench.c2c_programs --generated`` found; a kind that fails is a bug to fix in the translator,
not a failing test. ``--json`` writes the rows.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
KINDS = REPO / "tests" / "c2c" / "data" / "kinds"
_TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/"  # comments (dropped)
    r'|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\d+\.\d+|\w+|>>>=|<<=|>>=|\+\+|--|&&|\|\||[-+*/%=!<>&|^]=|->|::|\S',
    re.S,
)


def java_tokens(java: str) -> str:
    """Java source -> the challenge's token form (comments dropped, string words split, ``▁`` for a space)."""
    out = []
    for tok in _TOKEN.findall(java):
        if tok.startswith(("//", "/*")):
            continue
        if tok[:1] in ('"', "'") and len(tok) > 2:
            body = " ".join(tok[1:-1].replace(" ", " \u2581 ").split())
            out.append(f"{tok[0]} {body} {tok[0]}")
        else:
            out.append(tok)
    return " ".join(out)


def about(java: str) -> str:
    """The kind's description: its first ``//`` comment."""
    match = re.search(r"//\s*(.+)", java)
    return match.group(1).strip() if match else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kinds", type=Path, default=KINDS)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--java", action="store_true", help="also check each .out against the Java (javac, java)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)

    from bench.c2c_programs import _failure, run_java_oracle, run_python
    from plugins.c2c.detok import detokenize
    from plugins.c2c.guard import compile_error
    from plugins.c2c.task import clean_request, safe_translate
    from plugins.c2c.translate import translate

    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for path in sorted(args.kinds.glob("*.java")):
            name, java = path.stem, path.read_text(encoding="utf-8")
            stdin = path.with_suffix(".in").read_bytes()
            expected = path.with_suffix(".out").read_text(encoding="utf-8")
            request = clean_request(name, java_tokens(java))
            raw_compiles = compile_error(translate(request)) is None
            res = run_python(detokenize(safe_translate(request)), stdin, args.timeout, work)
            fail = _failure(res, expected)
            row = {
                "about": about(java),
                "raw_compiles": raw_compiles,
                "outcome": "pass" if fail is None else fail["kind"],
                "reason": "" if fail is None else fail["reason"],
                "python_s": round(res["seconds"], 2),
            }
            if args.java:
                oracle = run_java_oracle(java, stdin, work / "java", 30.0)
                row["java_agrees"] = oracle["status"] == "ran" and oracle["stdout"] == expected
            rows[name] = row
            flag = "" if raw_compiles else " (raw output did not compile; repaired)"
            java_note = "" if "java_agrees" not in row else f" [.out {'=' if row['java_agrees'] else '!='} Java]"
            print(f"{name}: {row['outcome']}{flag}{java_note} - {row['about']}")
            if fail is not None:
                print(f"    {row['reason'][:160]}")
    passed = sum(r["outcome"] == "pass" for r in rows.values())
    print(f"kinds passing: {passed}/{len(rows)}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
