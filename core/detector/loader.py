"""Building detectors: ``load_detector`` (one, now) and ``SharedDetector`` (the run's one, on first use).

A detector is looked up by ``DetectorConfig.name`` among the registered ones
(``register_detectors``; ``core.factories``), core's own (``nanodet``, ``yolo``) unless the
caller hands the plugins' (``registry.collect_detectors``). Apart from ``core.detector``, so
that a detector module imports the types without importing what builds it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from typing import Any

from core.detector import Detector, DetectorConfig, DetectorError, DetectorFactory

__all__ = ["SharedDetector", "load_detector"]


def load_detector(
    config: DetectorConfig | None = None, *, detectors: Mapping[str, DetectorFactory] | None = None
) -> Detector:
    """The detector ``config`` names, built now.

    :param detectors: the registered detectors by name (``registry.collect_detectors``); None:
        core's own (``nanodet``, ``yolo``). An unknown name is a ``DetectorError`` listing the known ones.
    """
    from core import factories

    config = config or DetectorConfig()
    known = detectors if detectors is not None else factories.builtin("register_detectors")
    return factories.pick(known, config.name, kind="detector", error=DetectorError)(config)  # type: ignore[no-any-return]


class SharedDetector:
    """The run's one detector, built on first use and shared by every task (and thread) that asks.

    A build that fails raises a ``DetectorError`` to every later caller, without trying
    again: the runner logs it and sets the tasks that asked up with ``detector=None``.
    """

    def __init__(
        self,
        config: DetectorConfig | None = None,
        *,
        detectors: Mapping[str, DetectorFactory] | None = None,
        factory: Any = None,
    ) -> None:
        """:param detectors: the registered detectors ``config.name`` is looked up in (None: core's own).
        :param factory: builds the detector from ``config`` instead (tests)."""
        self.config = config or DetectorConfig()
        self._factory = factory or functools.partial(load_detector, detectors=detectors)
        self._lock = threading.Lock()
        self._detector: Detector | None = None
        self._error: BaseException | None = None

    @property
    def built(self) -> bool:
        return self._detector is not None

    @property
    def thread_safe(self) -> bool:
        """Whether the built detector declares that ``detect`` may run in several threads at once."""
        return self._detector is not None and bool(getattr(self._detector, "thread_safe", False))

    def get(self) -> Detector:
        with self._lock:
            if self._detector is None:
                if self._error is not None:
                    raise DetectorError(f"the detector could not be built: {self._error}") from self._error
                try:
                    self._detector = self._factory(self.config)
                except Exception as exc:
                    self._error = exc
                    raise
            return self._detector
