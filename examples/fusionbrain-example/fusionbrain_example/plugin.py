"""Hook implementations of the example plugin: registers the TAG task."""

from __future__ import annotations

from collections.abc import Callable

from core import hookimpl


@hookimpl
def register_tasks(register: Callable[[object], None]) -> None:
    from fusionbrain_example.task import TagTask

    register(TagTask())
