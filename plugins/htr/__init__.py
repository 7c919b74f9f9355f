"""HTR plugin: handwritten word recognition with a CTC head on the shared trunk."""

from __future__ import annotations

from core import hookimpl


@hookimpl
def register_tasks(register):  # type: ignore[no-untyped-def]
    from plugins.htr.task import HtrTask

    register(HtrTask())
