"""Does every C2C answer compile? The translator's raw output, the old line repair and the guard.

    python -m bench.c2c_parse [--mutants 5] [--show 5]

Every program of the parity sets (``bench.c2c_parity.programs``: fb_sample, the two function
valid sets, c2c_programs_dev, c2c_train's functions and HumanEval-X's Java), plus ``--mutants``
copies of each c2c_programs_dev program with one token dropped (seeded: invalid Java, as some
held-out requests are), is translated in the default style (``translate``) and checked three ways:

* raw: the translation as the translator wrote it;
* line repair: ``line_repair`` below, what the task's finalize ran before the guard (a rejected
  line becomes ``pass``, at most 8 times; a block header made ``pass`` leaves its block orphaned),
  kept here as the baseline the guard is measured against;
* guard: ``guard.ensure_compiles`` (what ``task.finalize`` runs now), with how deep it had to go
  (statements only, a function's body, top-level statements kept).

"Rejected" is ``compile`` of the detokenized source failing (``ast.parse`` plus the symbol table's
checks), what a judge running the file sees as a SyntaxError / IndentationError.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from collections import Counter
from pathlib import Path

from plugins.c2c import detok

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def mutants(programs: dict[str, str], count: int, seed: int = 0) -> dict[str, str]:
    """``count`` copies of each program with one token dropped, keyed ``<key>~<index>``."""
    rng = random.Random(seed)
    out = {}
    for key, java in programs.items():
        toks = java.split()
        for _ in range(count):
            i = rng.randrange(len(toks))
            out[f"{key}~{i}"] = " ".join(toks[:i] + toks[i + 1 :])
    return out


def depth(repairs: tuple[str, ...]) -> str:
    """How far the guard had to go: "statement", "function" or "program"."""
    if any(r.startswith("only the") for r in repairs):
        return "program"
    if any(r.startswith("function ") for r in repairs):
        return "function"
    return "statement"


def _lines(tokens: str) -> list[list[str]]:
    """Token stream -> lines, each holding its leading layout tokens and ending with NEW_LINE when it had one."""
    lines: list[list[str]] = [[]]
    for tok in tokens.split():
        lines[-1].append(tok)
        if tok == "NEW_LINE":
            lines.append([])
    return [line for line in lines if line]


def line_repair(tokens: str, max_edits: int = 8) -> str:
    """The line repair the task ran before the guard: the lines ``compile()`` rejects become ``pass``.

    Best effort for programs the translator could only partly understand: the
    layout tokens of a replaced line are kept, so the block structure survives.
    Returns the input unchanged when it already compiles, and the last attempt
    when ``max_edits`` replacements were not enough.
    """
    current = tokens
    for _ in range(max_edits):
        try:
            compile(detok.detokenize(current), "<c2c>", "exec")
            return current
        except (SyntaxError, ValueError) as exc:
            lineno = getattr(exc, "lineno", None) or 0
        lines = _lines(current)
        code_rows = [i for i, line in enumerate(lines) if any(t not in ("INDENT", "DEDENT", "NEW_LINE") for t in line)]
        if not 1 <= lineno <= len(code_rows):
            return current
        row = lines[code_rows[lineno - 1]]
        layout = [t for t in row if t in ("INDENT", "DEDENT")]
        lines[code_rows[lineno - 1]] = [*layout, "pass", *(["NEW_LINE"] if row[-1] == "NEW_LINE" else [])]
        current = " ".join(t for line in lines for t in line)
    return current


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mutants", type=int, default=5, help="one-token-dropped copies per dev program")
    parser.add_argument("--show", type=int, default=5, help="print this many rejected programs per stage")
    args = parser.parse_args(argv)
    logging.disable(logging.CRITICAL)

    from bench.c2c_parity import programs
    from plugins.c2c.guard import compile_error, ensure_compiles
    from plugins.c2c.task import MINIMAL_PROGRAM, clean_request
    from plugins.c2c.translate import translate

    items = programs()
    dev = {k: v for k, v in items.items() if k.startswith("c2c_programs_dev/")}
    items.update(mutants(dev, args.mutants))
    groups: dict[str, Counter] = {}
    shown: Counter = Counter()
    start = time.perf_counter()
    for key, java in items.items():
        group = "c2c_programs_dev mutants" if "~" in key else key.split("/", 1)[0]
        c = groups.setdefault(group, Counter())
        c["programs"] += 1
        java = clean_request(key, java)
        try:
            raw = translate(java) if java else MINIMAL_PROGRAM
        except Exception:  # noqa: BLE001 - the task answers these with its minimal program; counted
            c["translator raised"] += 1
            continue
        error = compile_error(raw)
        if error is None:
            continue
        c["raw rejected"] += 1
        old = compile_error(line_repair(raw))
        c["line repair rejected"] += old is not None
        guarded = ensure_compiles(raw)
        if guarded.tokens is None or compile_error(guarded.tokens) is not None:
            c["guard rejected or empty"] += 1
        else:
            c[f"guard: {depth(guarded.repairs)}"] += 1
        if shown[group] < args.show:
            shown[group] += 1
            left = f"; line repair still: {old.kind}: {old.message}" if old else ""
            print(f"  {key}: {error.kind}: {error.message} (line {error.row + 1}){left}")
            print(f"    guard: {' | '.join(guarded.repairs)[:300]}")
    seconds = time.perf_counter() - start
    total: Counter = Counter()
    for group, c in groups.items():
        total.update(c)
        print(f"{group}: " + ", ".join(f"{k} {v}" for k, v in c.items()))
    print("all: " + ", ".join(f"{k} {v}" for k, v in total.items()) + f" ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
