"""The one ``Registry`` a run builds from: its tasks, trunk backends and detectors, by name.

``registry.collect(pm)`` (the top-level ``registry`` module, the one place plugins are
discovered) asks every plugin's ``register_tasks``, ``register_trunk_backends`` and
``register_detectors`` and returns one ``Registry``; ``load_trunk`` and ``load_detector`` take
it. Core's own backends and detectors are plugins like any other (``core.default_plugins``),
so they are in a registry only when its plugin manager registered them: core holds no plugin
manager of its own.

Nothing is built here: a factory is called only when the run needs what it builds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from core.errors import ProjectError

if TYPE_CHECKING:
    from core.detector import DetectorFactory
    from core.task import Task
    from core.trunk_types import TrunkBackendFactory

F = TypeVar("F", bound=Callable[..., object])


def pick(factories: Mapping[str, F], name: str, *, kind: str, error: type[ProjectError]) -> F:
    """The factory registered as ``name``; ``error`` listing the known names when there is none."""
    try:
        return factories[name]
    except KeyError:
        known = ", ".join(sorted(factories)) or "none"
        raise error(f"unknown {kind} {name!r}; available: {known}") from None


@dataclass(frozen=True, slots=True)
class Registry:
    """What the plugins registered, by name: tasks, trunk backends, detectors (and, for
    ``train.py``, the tasks' trainers).

    Plain dicts (of tasks and module-level factories), so a registry pickles: Ray workers build
    their own trunk and detector from it. A registry of only some kinds is fine
    (``Registry(trunk_backends={"fake": fake_backend})`` in a test).
    """

    tasks: Mapping[str, Task] = field(default_factory=dict)
    trunk_backends: Mapping[str, TrunkBackendFactory] = field(default_factory=dict)
    detectors: Mapping[str, DetectorFactory] = field(default_factory=dict)
    # task name -> its ``train_head``; only a training registry has any (``register_trainers``)
    trainers: Mapping[str, Callable[..., object]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("tasks", "trunk_backends", "detectors", "trainers"):
            object.__setattr__(self, name, dict(getattr(self, name)))

    def trunk_backend(self, name: str) -> TrunkBackendFactory:
        """The backend ``--trunk NAME`` selects; a ``TrunkError`` listing the known ones when none is."""
        from core.errors import TrunkError

        return pick(self.trunk_backends, name, kind="trunk backend", error=TrunkError)

    def detector(self, name: str) -> DetectorFactory:
        """The detector ``--detector NAME`` selects; a ``DetectorError`` listing the known ones when none is."""
        from core.detector import DetectorError

        return pick(self.detectors, name, kind="detector", error=DetectorError)
