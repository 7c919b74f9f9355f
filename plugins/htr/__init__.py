"""HTR plugin: handwritten word recognition with a CTC head on the shared trunk."""

from __future__ import annotations

from core import hookimpl


@hookimpl
def add_train_options(parser):
    """The HTR trainer's flags (``plugins.htr.train``); None leaves the trainer's default."""
    group = parser.add_argument_group("htr training")
    group.add_argument("--htr-shards", type=int, default=None, help="rendered shards of 256 crops (default 160)")
    group.add_argument("--htr-steps", type=int, default=None, help="steps (default 3000 warm, 6000 cold)")
    group.add_argument("--htr-pen-share", type=float, default=None, help="share of pen-stroke words (default 0.5)")
    group.add_argument(
        "--htr-glue-share",
        type=float,
        default=None,
        help="share of Russian words glued from real CoMNIST letters (default 0: off; needs plugins.htr.train.comnist)",
    )
    group.add_argument("--htr-init", default=None, help="warm start: a checkpoint or head folder (default: auto)")
    group.add_argument("--htr-lr", type=float, default=None, help="learning rate (default 5e-4 warm, 2e-3 cold)")
    group.add_argument("--htr-batch", type=int, default=None, help="batch size (default 64)")


@hookimpl
def register_tasks(register, config):
    """Register the HTR task (constructed cheaply; the head loads in ``setup``)."""
    from core.heads import search_dirs
    from plugins.htr.task import HtrTask

    register(HtrTask(search=search_dirs(config)))
