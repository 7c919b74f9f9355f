"""VQA plugin: bilingual answer retrieval and generation on the shared trunk."""

from __future__ import annotations

from core import hookimpl


@hookimpl
def register_tasks(register, options):  # type: ignore[no-untyped-def]
    """Register the VQA task (constructed cheaply; weights load in ``setup``)."""
    from core.heads import search_dirs
    from plugins.vqa.task import VqaTask

    register(VqaTask(search=search_dirs(options)))
