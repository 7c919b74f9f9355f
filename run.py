"""Make a Fusion Brain submission: ``python run.py [--input DIR] [--output DIR] ...``."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import registry
from core import cli
from core.errors import ProjectError
from registry import collect_tasks


def main(argv: Sequence[str] | None = None) -> int:
    pm, args = cli.parse_with_plugins(argv, cli.build_parser(), registry)
    try:
        tasks = collect_tasks(pm, args, strict=args.strict)
        if args.list_tasks:
            print(cli.describe_tasks(tasks))
            return 0
        reports = cli.solve(cli.select_tasks(tasks, args.tasks), args, pm)
    except ProjectError as exc:
        logging.getLogger("run").error("%s", exc)
        return 2
    print(*(r.summary() for r in reports), sep="\n")
    return 0 if all(r.path is not None for r in reports) else 1


if __name__ == "__main__":
    raise SystemExit(main())
