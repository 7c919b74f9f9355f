"""Every built-in task passes the shipped conformance suite on the demo input, with the real trunk."""

from __future__ import annotations

from pathlib import Path

import pytest

import registry
from core.testing import assert_task_conforms

DEMO = Path(__file__).resolve().parents[2] / "demo" / "input"
TASKS = registry.collect(registry.get_plugin_manager(load_entrypoints=False)).tasks


@pytest.mark.parametrize("name", list(TASKS))
def test_builtin_task_conforms(name: str, default_trunk) -> None:  # type: ignore[no-untyped-def]
    assert_task_conforms(TASKS[name], DEMO, default_trunk)
