"""What a run is asked to do, as typed values: ``RunRequest`` (built by ``core.cli`` from ``run.py``'s
command line, or by any caller) and the plugins' share of it, ``PluginOptions``.

Nothing past the command line sees argparse: the orchestrator (``core.orchestrator``) takes a
``RunRequest``, and each plugin's ``register_tasks`` gets a ``PluginConfig`` holding ``--heads``
and the values of the flags that plugin added in ``add_options``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from core.detector import DetectorConfig
from core.errors import ProjectError
from core.factories import Registry
from core.trunk_types import TrunkConfig

OptionsT = TypeVar("OptionsT")

ENGINES = ("local", "ray")


@dataclass(frozen=True, slots=True)
class RayOptions:
    """How to use Ray (``run.py --engine ray`` flags).

    :param address: a running cluster (``auto``, ``HOST:6379``, ``ray://HOST:10001``);
        ``None`` starts a local Ray on this machine (unless one is already initialised).
    :param workers: actors; 0 = as many as the cluster's CPUs (and GPUs) hold.
    :param threads: torch CPU threads (and Ray CPUs) per actor; 0 = this machine's cores
        divided among the workers for a local Ray, else 1.
    :param gpus_per_worker: GPUs each actor reserves (fractions share a GPU).
    :param shard_batches: consecutive batches per shard (the unit of work and of retry).
    :param max_attempts: tries per shard before it gets fallbacks.
    """

    address: str | None = None
    workers: int = 0
    threads: int = 0
    gpus_per_worker: float = 0.0
    shard_batches: int = 1
    max_attempts: int = 3


def _frozen(values: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(values))


@dataclass(frozen=True, slots=True)
class PluginConfig:
    """One plugin's options, as ``register_tasks(register, config)`` receives them.

    :param heads: ``--heads``, the folder of heads trained by ``train.py`` (None: the default folder);
        ``core.heads.search_dirs(config)`` turns it into the folders a task searches.
    :param options: the values of the flags the plugin added in ``add_options``, by their argparse
        name (``--zsod-visualize`` -> ``zsod_visualize``); the parser's defaults outside ``run.py``.
        A plugin reads them as its own dataclass (``typed``), never by string key.
    """

    heads: Path | None = None
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", _frozen(self.options))

    def typed(self, cls: type[OptionsT], *, prefix: str) -> OptionsT:
        """The plugin's options as its own typed dataclass ``cls``: each field takes the value of the
        flag ``--<prefix>-<field>`` (argparse name ``<prefix>_<field>``); the field's default when
        that flag was not added (another command's parser) or is None."""
        values = {f.name: self.options.get(f"{prefix}_{f.name}") for f in dataclasses.fields(cls)}  # type: ignore[arg-type]  # fields() checks cls
        return cls(**{name: value for name, value in values.items() if value is not None})


@dataclass(frozen=True, slots=True)
class PluginOptions:
    """Every plugin's options for one run: ``--heads`` and, per plugin (by its registered name), the
    values of the flags it added."""

    heads: Path | None = None
    by_plugin: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_plugin", _frozen({k: _frozen(v) for k, v in self.by_plugin.items()}))

    def config(self, plugin: str) -> PluginConfig:
        """What the plugin registered as ``plugin`` gets."""
        return PluginConfig(self.heads, self.by_plugin.get(plugin, {}))


@dataclass(frozen=True, slots=True)
class RunRequest:
    """One run of ``run.py``: where to read and write, which tasks, on which trunk and engine, how long.

    :param input_dir: the folder holding the task folders (``C2C/``, ``zsOD/``...).
    :param output_dir: where the ``prediction_*.json`` files go.
    :param tasks: task names to run, lowercase (empty: every registered task whose folder is present).
    :param trunk: the shared trunk to build (once, or once per Ray worker).
    :param detector: the shared detector, built when a task asks for it.
    :param engine: ``"local"`` (this process) or ``"ray"`` (``ray`` says how).
    :param strict: abort on the first error instead of falling back.
    :param time_budget: seconds for the whole run, counted from the orchestrator's start (None: no limit).
    :param threads: torch CPU threads (0: every core; with Ray, per worker: ``ray.threads``).
    :param batch_workers: the local engine's concurrent batches a task (``core.runner.run``;
        0: ``core.orchestrator.batch_workers`` decides).
    :param progress: progress bars (None: only on a terminal).
    :param plugins: the plugins' options (``register_tasks``' ``config``).
    :param registry: what the plugins registered (``registry.collect``): the trunk backends and
        detectors ``trunk.backend`` and ``detector.name`` are looked up in.
    """

    input_dir: Path = Path("input")
    output_dir: Path = Path("output")
    tasks: tuple[str, ...] = ()
    trunk: TrunkConfig = field(default_factory=TrunkConfig)
    detector: DetectorConfig = field(default_factory=DetectorConfig)
    engine: str = "local"
    ray: RayOptions = field(default_factory=RayOptions)
    strict: bool = False
    time_budget: float | None = None
    threads: int = 0
    batch_workers: int = 0
    progress: bool | None = None
    plugins: PluginOptions = field(default_factory=PluginOptions)
    registry: Registry = field(default_factory=Registry)

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ProjectError(f"unknown engine {self.engine!r}; one of {', '.join(ENGINES)}")
        if self.ray.workers < 0 or self.ray.gpus_per_worker < 0:
            raise ProjectError("--workers and --gpus-per-worker must not be negative")
        if self.batch_workers < 0 or self.threads < 0:
            raise ProjectError("--batch-workers and --threads must not be negative")
