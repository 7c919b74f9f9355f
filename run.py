"""Make a Fusion Brain submission: ``python run.py [--input DIR] [--output DIR] ...``."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from core import cli
from core.errors import ProjectError
from registry import add_plugin_options, collect_tasks, get_plugin_manager

log = logging.getLogger("run")


def main(argv: Sequence[str] | None = None) -> int:
    known, _ = cli.build_parser(add_help=False).parse_known_args(argv)
    pm = get_plugin_manager(load_entrypoints=not known.no_plugins, strict=known.strict)
    parser = cli.build_parser()
    add_plugin_options(pm, parser)
    args = parser.parse_args(argv)
    cli.setup_logging(args.verbose)
    try:
        tasks = collect_tasks(pm, args, strict=args.strict)
        if args.list_tasks:
            print(cli.describe_tasks(tasks))
            return 0
        from core import runner
        from core.trunk import TrunkConfig, load_trunk

        planned = runner.plan(cli.select_tasks(tasks, args.tasks), Path(args.input), strict=args.strict)
        if not planned:
            log.warning("no task folder found under %s; nothing to do", args.input)
            return 0
        cli.set_threads(args.threads)
        trunk = load_trunk(TrunkConfig.parse(args.trunk, ablation=args.ablate_trunk))
        reports = runner.run(
            planned,
            trunk,
            Path(args.output),
            strict=args.strict,
            time_budget=args.time_budget,
            on_written=lambda name, path: pm.hook.predictions_written(task_name=name, path=path),
        )
    except ProjectError as exc:
        log.error("%s", exc)
        return 2
    for report in reports:
        print(report.summary())
    return 0 if all(r.path is not None for r in reports) else 1


if __name__ == "__main__":
    raise SystemExit(main())
