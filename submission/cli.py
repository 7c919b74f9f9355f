"""``python -m submission build|check``: the organisers' archive, built and proven."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

DEFAULT_PLUGINS = "c2c,htr,zsod,vqa"
DEFAULT_OUTPUT = Path("dist/submission.zip")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m submission", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write the archive and print its sizes against the 10 GB limit")
    b.add_argument(
        "--plugins", default=DEFAULT_PLUGINS, help=f"built-in short names or entry-point names ({DEFAULT_PLUGINS})"
    )
    b.add_argument("--heads", type=Path, help="a heads folder (train.py --heads) to ship; the entrypoint then uses it")
    b.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help=f"the archive (default {DEFAULT_OUTPUT})")
    b.add_argument(
        "--check",
        type=Path,
        action="append",
        default=[],
        metavar="INPUT",
        help="then check the archive on this input folder (repeatable; a sibling true/ is scored)",
    )
    c = sub.add_parser("check", help="run an archive as the organisers do and compare with an in-tree run")
    c.add_argument("--archive", type=Path, default=DEFAULT_OUTPUT)
    c.add_argument("--input", type=Path, action="append", required=True, help="input folder (repeatable)")
    c.add_argument("--true", type=Path, help="references to score against (default: a true/ beside the input)")
    c.add_argument("--timeout", type=float, default=1800, help="seconds (default 1800, the organisers' limit)")
    c.add_argument("--keep", action="store_true", help="keep the unpacked folder, logs and traces")
    return parser


def _true_beside(input_dir: Path, given: Path | None) -> Path | None:
    if given is not None:
        return given
    sibling = input_dir.resolve().parent / "true"
    return sibling if input_dir.name == "input" and sibling.is_dir() else None


def _check_all(
    archive: Path, inputs: Sequence[Path], true: Path | None = None, timeout: float = 1800, keep: bool = False
) -> None:
    from submission.check import check

    for input_dir in inputs:
        start = time.monotonic()
        print(f"checking {archive} on {input_dir} ...", flush=True)
        result = check(archive, input_dir, true_dir=_true_beside(input_dir, true), limit=timeout, keep=keep)
        print(result.report())
        print(f"  check wall time: {time.monotonic() - start:.1f} s", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    from submission.build import BuildError, build, image_requirements
    from submission.check import CheckError

    args = build_parser().parse_args(argv)
    try:
        if args.command == "build":
            plugins = [p.strip() for p in args.plugins.split(",") if p.strip()]
            archive, manifest = build(plugins, args.output, args.heads)
            for warning in manifest.warnings:
                print(f"warning: {warning}", file=sys.stderr)
            print(archive.report())
            print("the image must provide (requirements-runtime.txt):")
            print("\n".join(f"  {line}" for line in image_requirements(manifest)))
            if args.check:
                _check_all(archive.path, args.check)
        else:
            _check_all(args.archive, args.input, args.true, args.timeout, args.keep)
    except (BuildError, CheckError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
