"""HTR plugin: handwritten word recognition with a CTC head on the shared trunk."""

from __future__ import annotations

from core import hookimpl


@hookimpl
def register_tasks(register, options):  # type: ignore[no-untyped-def]
    """Register the HTR task (constructed cheaply; the head loads in ``setup``)."""
    from core.heads import search_dirs
    from plugins.htr.task import HtrTask

    register(HtrTask(search=search_dirs(options)))
