"""A mix under ``--time-budget``: how many items each task answers, and the sample score (issue 47).

Builds (in a temporary folder, never in the repo) a mix shaped like issue 47's: many C2C
programs, then word images, detection images and questions, each with its gold answers, by
cycling ``fb_sample`` (C2C, HTR, zsOD), ``zsod_coco_dev`` and the two VQA dev sets in
../shared/data. Runs ``run.py`` from each tree given (this one by default; another checkout, e.g.
main, for the first-come budget it replaces) with the budget, then scores each output with this
tree's ``score.py``. Prints, per tree: the wall time against the budget, each task's answered
items (items minus fallbacks) and score, and the sum.

    python -m bench.budget_mix [--budget 60] [--c2c 6000 --htr 3000 --zsod 400 --vqa 400]
                               [--threads 2] [--tree OTHER_CHECKOUT ...] [--together] [--keep DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
SUMMARY = re.compile(r"^(\w+): (\d+) items in ([\d.]+) s .*?(?:, (\d+) fallbacks)?(?:, \d+ shards retried)? -> ")


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _cycle(items: list, n: int) -> list:
    return list(itertools.islice(itertools.cycle(items), n))


def build(root: Path, sizes: dict[str, int]) -> None:
    """``root/input/<TASK>`` and ``root/true/<TASK>/true_<TASK>.json`` of the mix."""
    inp, true = root / "input", root / "true"
    sample = DATA / "fb_sample"

    programs = list(_load(sample / "input/C2C/requests.json").items())
    gold_c2c = _load(sample / "true/C2C/true_C2C.json")
    chosen = _cycle(programs, sizes["C2C"])
    _write(inp / "C2C/requests.json", {str(i): java for i, (_, java) in enumerate(chosen)})
    _write(true / "C2C/true_C2C.json", {str(i): gold_c2c[key] for i, (key, _) in enumerate(chosen)})

    gold_htr = _load(sample / "true/HTR/true_HTR.json")
    words = sorted(gold_htr)
    (inp / "HTR/images").mkdir(parents=True)
    htr = {}
    for i, name in enumerate(_cycle(words, sizes["HTR"])):
        suffix = Path(name).suffix
        shutil.copy(sample / "input/HTR/images" / name, inp / f"HTR/images/{i}{suffix}")
        htr[f"{i}{suffix}"] = gold_htr[name]
    _write(true / "HTR/true_HTR.json", htr)

    det = []
    for name in ("zsod_coco_dev", "fb_sample"):
        gold = _load(DATA / name / "true/zsOD/true_zsOD.json")
        reqs = _load(DATA / name / "input/zsOD/requests.json")
        det += [(DATA / name / "input/zsOD/images" / img, phrases, gold[img]) for img, phrases in reqs.items()]
    (inp / "zsOD/images").mkdir(parents=True)
    zsod, gold_zsod = {}, {}
    for i, (src, phrases, gold) in enumerate(_cycle(det, sizes["zsOD"])):
        shutil.copy(src, inp / f"zsOD/images/{i}{src.suffix}")
        zsod[f"{i}{src.suffix}"], gold_zsod[f"{i}{src.suffix}"] = phrases, gold
    _write(inp / "zsOD/requests.json", zsod)
    _write(true / "zsOD/true_zsOD.json", gold_zsod)

    questions = []
    for name in ("vqa_yesno_dev", "vqa_okvqa_dev", "fb_sample"):
        gold = _load(DATA / name / "true/VQA/true_VQA.json")
        qs = _load(DATA / name / "input/VQA/questions.json")
        questions += [(DATA / name / "input/VQA/images", q, gold[qid]) for qid, q in qs.items()]
    (inp / "VQA/images").mkdir(parents=True)
    vqa, gold_vqa, copied = {}, {}, {}
    for i, (folder, q, gold) in enumerate(_cycle(questions, sizes["VQA"])):
        src = folder / q["file_name"]
        if src not in copied:
            copied[src] = f"{len(copied)}{src.suffix}"
            shutil.copy(src, inp / "VQA/images" / copied[src])
        vqa[str(i)], gold_vqa[str(i)] = {"file_name": copied[src], "question": q["question"]}, gold
    _write(inp / "VQA/questions.json", vqa)
    _write(true / "VQA/true_VQA.json", gold_vqa)


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def start_tree(tree: Path, mix: Path, out: Path, budget: float, threads: int) -> tuple[subprocess.Popen, float]:
    """``run.py`` of ``tree`` on the mix under ``budget``, started; and when."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "run.py", "--input", str(mix / "input"), "--output", str(out), "--no-plugins"]
    cmd += ["--threads", str(threads), "--time-budget", str(budget)]
    proc = subprocess.Popen(cmd, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, time.monotonic()


def finish_tree(tree: Path, proc: subprocess.Popen, start: float) -> dict:
    """Wall time and each task's summary line of a run ``start_tree`` started."""
    stdout, stderr = proc.communicate()
    wall = time.monotonic() - start
    tasks = {}
    for line in stdout.splitlines():
        match = SUMMARY.match(line)
        if match:
            items, fallbacks = int(match[2]), int(match[4] or 0)
            tasks[match[1]] = {"items": items, "answered": items - fallbacks, "seconds": float(match[3])}
    if proc.returncode:
        print(stderr[-3000:], file=sys.stderr)
    return {"tree": str(tree), "status": proc.returncode, "wall": wall, "tasks": tasks}


def score(out: Path, mix: Path) -> dict:
    cmd = [sys.executable, "score.py", "--pred", str(out), "--true", str(mix / "true"), "--json"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--c2c", type=int, default=6000)
    parser.add_argument("--htr", type=int, default=3000)
    parser.add_argument("--zsod", type=int, default=400)
    parser.add_argument("--vqa", type=int, default=400)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout to run (repeat)")
    parser.add_argument("--keep", type=Path, default=None, help="build the mix here and keep it")
    parser.add_argument("--together", action="store_true", help="run the trees at once (the same machine load)")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"needs {DATA}", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="fb_budget_"))
    sizes = {"C2C": args.c2c, "HTR": args.htr, "zsOD": args.zsod, "VQA": args.vqa}
    if not (work / "input").exists():
        build(work, sizes)
    else:  # a kept mix: say what it holds
        sizes = {name: len(_load(work / "true" / name / f"true_{name}.json")) for name in sizes}
    print(f"mix {sizes} in {work}, --time-budget {args.budget:g}, --threads {args.threads}")
    trees = [t.resolve() for t in (REPO, *args.tree)]
    outs = [work / f"output{i}" for i in range(len(trees))]
    if args.together:  # the same machine load for each
        started = [start_tree(t, work, o, args.budget, args.threads) for t, o in zip(trees, outs, strict=True)]
        results = [finish_tree(t, *s) for t, s in zip(trees, started, strict=True)]
    else:
        results = [
            finish_tree(t, *start_tree(t, work, o, args.budget, args.threads)) for t, o in zip(trees, outs, strict=True)
        ]
    for tree, out, result in zip(trees, outs, results, strict=True):
        scores = score(out, work)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True)
        print(f"\n{tree} ({commit.stdout.strip()}): wall {result['wall']:.1f} s, exit {result['status']}")
        for name, task in result["tasks"].items():
            print(f"  {name}: {task['answered']} of {task['items']} answered in {task['seconds']:.1f} s")
        print("  scores: " + json.dumps(scores, sort_keys=True))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
