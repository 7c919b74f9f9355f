"""Translator parity: translate every program of the C2C sets and compare with a saved run.

    python -m bench.c2c_parity --save /work/cache/c2c/before.json      # before a refactor
    python -m bench.c2c_parity --compare /work/cache/c2c/before.json   # after: exact string comparison

Every program of ``fb_sample``, ``c2c_avatar_valid``, ``c2c_transcoder_valid``,
``c2c_programs_dev`` and ``c2c_train`` is translated with the default style and with
each style variant the selector chooses among, so a refactor that changes any output
shows up here.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"


def programs(data: Path = DATA) -> dict[str, str]:
    """Every Java program of the sets, keyed ``set/id``."""
    out: dict[str, str] = {}
    for name in ("fb_sample", "c2c_avatar_valid", "c2c_transcoder_valid", "c2c_programs_dev"):
        req = json.loads((data / name / "input" / "C2C" / "requests.json").read_text(encoding="utf-8"))
        out.update({f"{name}/{k}": v for k, v in req.items()})
    with (data / "c2c_train" / "avatar_g4g_train.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            out[f"c2c_train/{row['id']}"] = " ".join(row["java"])
    path = data / "c2c_train" / "humaneval_java.jsonl.gz"
    if path.is_file():
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                out[f"humaneval/{row['task_id']}"] = " ".join((row["prompt"] + row["canonical_solution"]).split())
    return out


def translate_all(progs: dict[str, str]) -> dict[str, list[str]]:
    from plugins.c2c.translate import style_variants, translate

    styles = [None, *style_variants().values()]
    out: dict[str, list[str]] = {}
    for key, java in progs.items():
        row = []
        for style in styles:
            try:
                row.append(translate(java) if style is None else translate(java, style))
            except Exception as exc:  # noqa: BLE001 - a raise is an output too
                row.append(f"<{type(exc).__name__}>")
        out[key] = row
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path)
    group.add_argument("--compare", type=Path)
    args = parser.parse_args()
    result = translate_all(programs())
    if args.save:
        args.save.write_text(json.dumps(result, sort_keys=True), encoding="utf-8")
        print(f"{len(result)} programs x {len(next(iter(result.values())))} styles -> {args.save}")
        return 0
    before = json.loads(args.compare.read_text(encoding="utf-8"))
    diff = [k for k in before if before[k] != result.get(k)]
    print(f"{len(before)} programs compared, {len(diff)} differ" + (f": {diff[:10]}" if diff else ""))
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
