"""Train the tasks' heads for one trunk: ``python train.py --trunk SPEC --heads DIR [--data NAME=PATH ...]``.

Each selected task's ``train_head`` (``TaskInfo.trainer``) writes its head and card to
``DIR/<task>/<trunk version>/``; ``run.py --trunk SPEC --heads DIR`` then uses them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from core import cli, training
from core.errors import ProjectError
from registry import collect_tasks


def main(argv: Sequence[str] | None = None) -> int:
    pm, args = cli.parse_with_plugins(argv, training.build_parser())
    log = logging.getLogger("train")
    try:
        from core.heads import search_dirs
        from core.trunk import TrunkConfig, load_trunk

        data = training.parse_data(args.data)
        scale = training.check_scale(args.scale)
        (heads_root,) = search_dirs(args)
        tasks = training.select_trainable(collect_tasks(pm, args, strict=args.strict), args.tasks)
        if not tasks:
            raise ProjectError("no task to train: none of the selected tasks declares a trainer")
        cli.set_threads(args.threads)
        trunk = load_trunk(TrunkConfig.parse(args.trunk, device=args.device))
        log.info("trunk %s (version %s); heads go under %s", args.trunk, trunk.version, heads_root)
        results = [
            training.train_task(
                task,
                trunk,
                Path(heads_root),
                data,
                seed=args.seed,
                device=args.device,
                resume=not args.no_resume,
                progress=not args.no_progress,
                strict=args.strict,
                data_root=training.parse_data_root(args.data_root),
                scale=scale,
            )
            for task in tasks
        ]
    except ProjectError as exc:
        log.error("%s", exc)
        return 2
    print(training.report(results))
    print(f"use them: python run.py --trunk {args.trunk} --heads {heads_root} ...")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
