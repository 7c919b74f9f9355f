"""Make a Fusion Brain submission: ``python run.py [--input DIR] [--output DIR] ...``."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import registry
from core import cli, runtime, stop
from core.errors import ProjectError
from registry import collect_tasks


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status: 0, 1 if a present task wrote no file, 2 for a usage error, 128 + N after signal N."""
    runtime.guard_std_streams()
    with stop.handle_signals():  # from the start: a signal at any point still leaves every file
        code = _main(argv)
        if stop.signalled():
            logging.getLogger("run").error("run: stopped by %s; exit status %d", stop.signalled(), stop.exit_code())
            code = stop.exit_code()
    return code


def _main(argv: Sequence[str] | None) -> int:
    pm, args = cli.parse_with_plugins(argv, cli.build_parser(), registry)
    try:
        tasks = collect_tasks(pm, args, strict=args.strict)
        if args.list_tasks:
            runtime.say(cli.describe_tasks(tasks))
            return 0
        reports = cli.solve(cli.select_tasks(tasks, args.tasks), args, pm)
    except ProjectError as exc:
        logging.getLogger("run").error("%s", exc)
        return 2
    runtime.say(*(r.summary() for r in reports))
    return 0 if all(r.path is not None for r in reports) else 1


if __name__ == "__main__":
    status = main()
    if stop.hurried():  # stopped by a signal or the time budget: skip the seconds of library teardown
        runtime.exit_now(status)
    raise SystemExit(status)
