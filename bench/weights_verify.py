"""What checking the shipped weight files against their cards costs a run (``core.weights``).

    python -m bench.weights_verify [--repeat 5]

Every weight file in a ``weights/`` folder of ``core/`` or ``plugins/`` (``*.safetensors``,
``*.npz``) and the card that records its sha256 and size. Each repeat runs in a fresh process,
as a run does (the digest is remembered within one process only), and times ``core.weights.verify``
per file: the first repeat may read from disk, the others from the page cache. Prints ms per file
(median over the repeats), the total, and what a second check of the same file costs within the
process (the remembered digest).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WEIGHT_SUFFIXES = (".safetensors", ".npz")


def weight_folders(repo: Path = REPO) -> list[Path]:
    """The folders shipped weights live in: ``weights/`` under ``core/`` and under each plugin."""
    return sorted({p for p in (*repo.glob("core/**/weights"), *repo.glob("plugins/*/weights")) if p.is_dir()})


def shipped_weight_files(repo: Path = REPO) -> list[tuple[Path, Path | None]]:
    """``(weight file, the card recording it or None)`` for every shipped weight file."""
    from core.weights import expected_of

    out = []
    for folder in weight_folders(repo):
        cards = {}
        for card_path in sorted(folder.glob("*.json")):
            try:
                cards[card_path] = json.loads(card_path.read_text(encoding="utf-8"))
            except ValueError:
                continue
        for path in sorted(p for p in folder.iterdir() if p.suffix in WEIGHT_SUFFIXES):
            card = next((c for c, card in cards.items() if expected_of(card, path.name) is not None), None)
            out.append((path, card))
    return out


def _time_once() -> dict[str, object]:
    """In this (fresh) process: ms of ``verify`` per file, then of a second check of each."""
    import time

    from core.weights import expected_of, verify

    first, again = {}, {}
    for path, card_path in shipped_weight_files():
        expected = expected_of(json.loads(card_path.read_text(encoding="utf-8")), path.name) if card_path else None
        sha, size = (expected.sha256, expected.size) if expected else (None, None)
        for table in (first, again):
            start = time.perf_counter()
            verify(path, sha, size)
            table[str(path.relative_to(REPO))] = (time.perf_counter() - start) * 1000
    return {
        "first": first,
        "again": again,
        "bytes": {str(p.relative_to(REPO)): p.stat().st_size for p, _ in shipped_weight_files()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes to time (default 5)")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.once:
        print(json.dumps(_time_once()))
        return 0
    unrecorded = [str(p.relative_to(REPO)) for p, card in shipped_weight_files() if card is None]
    if unrecorded:
        print("recorded by no card (not verified): " + ", ".join(unrecorded))
    runs = []
    for _ in range(max(1, args.repeat)):
        done = subprocess.run(
            [sys.executable, "-m", "bench.weights_verify", "--once"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(done.stdout))
    sizes = runs[0]["bytes"]
    print(f"{'file':58} {'MB':>6} {'ms':>7} {'again ms':>9}   (median of {len(runs)} fresh processes)")
    total_first, total_again = [], []
    for name in sizes:
        first = statistics.median(r["first"][name] for r in runs)
        again = statistics.median(r["again"][name] for r in runs)
        print(f"{name:58} {sizes[name] / 1e6:6.2f} {first:7.2f} {again:9.3f}")
    for r in runs:
        total_first.append(sum(r["first"].values()))
        total_again.append(sum(r["again"].values()))
    print(
        f"{'total':58} {sum(sizes.values()) / 1e6:6.2f} {statistics.median(total_first):7.2f} "
        f"{statistics.median(total_again):9.3f}   (min {min(total_first):.2f}, max {max(total_first):.2f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
