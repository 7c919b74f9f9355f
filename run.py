"""Make a Fusion Brain submission: ``python run.py [--input DIR] [--output DIR] ...``."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

import registry
from core import cli, orchestrator, runtime
from core.errors import ProjectError


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status: 0, 1 if a present task wrote no file, 2 for a usage error, 128 + N after signal N."""
    return _run(argv).status


def _run(argv: Sequence[str] | None) -> orchestrator.RunOutcome:
    runtime.guard_std_streams()
    try:
        pm, request, list_tasks = cli.parse_run(argv, registry)
        tasks = request.registry.tasks
        if list_tasks:
            runtime.say(cli.describe_tasks(tasks))
            return orchestrator.RunOutcome()
        selected = cli.select_tasks(tasks, request.tasks)
        outcome = orchestrator.run(request, selected, on_written=registry.announce_written(pm))
    except ProjectError as exc:
        logging.getLogger("run").error("%s", exc)
        return orchestrator.RunOutcome(status=2)
    runtime.say(*outcome.summaries())
    return outcome


if __name__ == "__main__":
    outcome = _run(None)
    # Every file is written by now (or the run was stopped): end without the interpreter's teardown
    # of torch and the models, about a second on two cores (exit handlers still run, streams are
    # flushed). Only when the interpreter runs this file itself: a caller (runpy, a profiler, a
    # debugger) gets SystemExit and ends the process its own way.
    if outcome.hurried or sys._getframe().f_back is None:
        runtime.exit_now(outcome.status)
    raise SystemExit(outcome.status)
