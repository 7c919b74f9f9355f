"""C2C plugin: Java -> Python (AVATAR token format) by syntax-directed translation and a learned style selector."""

from __future__ import annotations

from core import hookimpl


@hookimpl
def add_train_options(parser):
    """The C2C selector trainer's flags (``plugins.c2c.train``); None leaves the trainer's default."""
    group = parser.add_argument_group("c2c training")
    group.add_argument("--c2c-epochs", type=int, default=None, help="epochs of the listwise fit (default 3)")
    group.add_argument("--c2c-limit", type=int, default=None, help="use only the first N pairs (smoke runs)")
    group.add_argument("--c2c-cache", default=None, metavar="DIR", help="text-embedding cache (default HEAD/cache)")


@hookimpl
def register_tasks(register, config):
    """Register the C2C task (constructed cheaply; the selector loads in ``setup``)."""
    from core.heads import search_dirs
    from plugins.c2c.task import C2cTask

    register(C2cTask(search=search_dirs(config)))
