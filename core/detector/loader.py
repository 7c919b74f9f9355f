"""Building detectors: ``load_detector`` (one, now) and ``Detectors`` (the run's, each on first use).

A detector is looked up by ``DetectorConfig.name`` among the registered ones
(``register_detectors``), in the run's ``core.factories.Registry``. Apart from ``core.detector``, so
that a detector module imports the types without importing what builds it.
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING, Any

from core.detector import Detector, DetectorConfig, DetectorError

if TYPE_CHECKING:
    from core.detector import DetectorFactories, DetectorFactory

__all__ = ["Detectors", "Serialized", "load_detector"]


def load_detector(config: DetectorConfig, registry: DetectorFactories) -> Detector:
    """The detector ``config`` names among ``registry``'s (``registry.collect``), built now; an
    unknown name is a ``DetectorError`` listing the known ones."""
    return registry.detector(config.name)(config)


class Detectors:
    """The run's detectors, each built on first use, once, and shared by every task (and thread) that
    asks: what ``SetupContext.detector(name)`` hands a task's setup.

    ``get()`` is the run's own detector (``--detector``); ``get("NAME[:WEIGHTS]")`` any other
    registered one, on the same device. A build that fails raises a ``DetectorError`` to every
    later caller of that name, without trying again. A detector that does not declare
    ``thread_safe`` is handed out behind a lock (``Serialized``), so that batches solved at once
    may share it.
    """

    def __init__(
        self, default: DetectorConfig, registry: DetectorFactories | None = None, *, factory: Any = None
    ) -> None:
        """:param default: the run's detector (``--detector``), what ``get()`` builds.
        :param registry: the registered detectors a name is looked up in.
        :param factory: builds a detector from its config instead (tests)."""
        self.config = default
        self._factory = factory or functools.partial(load_detector, registry=registry or _Unregistered())
        self._lock = threading.Lock()
        self._built: dict[DetectorConfig, Detector] = {}
        self._errors: dict[DetectorConfig, BaseException] = {}
        self._serialized: dict[DetectorConfig, Serialized] = {}

    def config_of(self, spec: str | None = None) -> DetectorConfig:
        """The config ``spec`` names (``NAME[:WEIGHTS]``, with the run's device and bf16); None: the run's."""
        if spec is None:
            return self.config
        return DetectorConfig.parse(spec, device=self.config.device, bf16=self.config.bf16)

    @property
    def built(self) -> bool:
        """Whether the run's own detector is built."""
        return self.config in self._built

    @property
    def thread_safe(self) -> bool:
        """Whether the run's own detector, built, declares that ``detect`` may run in several threads at once."""
        return bool(getattr(self._built.get(self.config), "thread_safe", False))

    def get(self, spec: str | None = None) -> Detector:
        """The detector ``spec`` names (None: the run's), built now if no one asked for it before."""
        config = self.config_of(spec)
        with self._lock:
            if config not in self._built:
                if config in self._errors:
                    error = self._errors[config]
                    raise DetectorError(f"the detector could not be built: {error}") from error
                try:
                    self._built[config] = self._factory(config)
                except Exception as exc:
                    self._errors[config] = exc
                    raise
            return self._built[config]

    def shared(self, spec: str | None = None) -> Detector:
        """``get(spec)``, safe to use from several threads at once: behind one lock per detector (the same
        for every caller) unless it declares ``thread_safe``."""
        detector = self.get(spec)
        if getattr(detector, "thread_safe", False):
            return detector
        with self._lock:
            return self._serialized.setdefault(self.config_of(spec), Serialized(detector))


class _Unregistered:
    """No detector registered: every name is unknown."""

    def detector(self, name: str) -> DetectorFactory:
        raise DetectorError(f"unknown detector {name!r}; available: none")


class Serialized:
    """A detector whose ``detect`` runs one call at a time (one that does not declare ``thread_safe``)."""

    thread_safe = True

    def __init__(self, detector: Detector) -> None:
        self.detector = detector
        self.classes = detector.classes
        self._lock = threading.Lock()

    def detect(self, images: Any, *, input_size: int | None = None) -> Any:
        with self._lock:
            return self.detector.detect(images, input_size=input_size)
