"""C2C plugin: Java -> Python (AVATAR token format) by syntax-directed translation and a learned style selector."""

from __future__ import annotations

from core import hookimpl


@hookimpl
def register_tasks(register, options):  # type: ignore[no-untyped-def]
    """Register the C2C task (constructed cheaply; the selector loads in ``setup``)."""
    from core.heads import search_dirs
    from plugins.c2c.task import C2cTask

    register(C2cTask(search=search_dirs(options)))
