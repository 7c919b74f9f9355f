"""The project's exception hierarchy: bad user data vs. broken plugins."""

from __future__ import annotations

from pathlib import Path


class ProjectError(Exception):
    """Base class for every error this project raises on purpose."""


class InputError(ProjectError, ValueError):
    """Bad user data. Carries the offending path when there is one."""

    def __init__(self, message: str, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        super().__init__(f"{path}: {message}" if path is not None else message)


class PluginError(ProjectError):
    """A plugin that is broken or does not honour the Task contract."""


class TrunkError(ProjectError):
    """The trunk cannot be built, or a head was made for another trunk."""


class OutputError(ProjectError):
    """The output folder cannot be written (checked before any work). Carries the path."""

    def __init__(self, message: str, path: Path | str) -> None:
        self.path = Path(path)
        super().__init__(f"{path}: {message}")
