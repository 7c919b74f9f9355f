"""The one training interface: ``train.py``, ``python -m plugins.<task>.train`` and the trainers.

This package is the training tree beside the library, as ``open_clip_train`` is beside
``open_clip``: it imports the library (``core``), the library never imports it. Here are the
harness every task trainer uses (this module) and the default trunk's own trainer
(``python -m training.trunk``); each task's trainer stays with its plugin, in
``plugins/<task>/train/``.

A task's trainer, registered by its plugin's training side (``plugins/<task>/train/``, whose
``register_trainers`` hook ``train.py`` reaches: ``Registry.trainers``), takes one typed request
and returns one typed card::

    @request_trainer
    def train_head(req: TrainRequest) -> HeadCard: ...

    @hookimpl
    def register_trainers(register):
        register("mytask", train_head)

``req.out_dir`` is ``core.heads.head_dir_for(HEADS, task, trunk)``, the folder a later
``run.py --heads HEADS`` searches. ``req.sources`` holds the ``--data`` sources by name; a
name left out defaults to the trainer's own choice among the sets under ``req.data_root``
(the project's ``../shared/data``), or to nothing when it is None (``--data-root none``:
exactly the sources given). ``req.scale`` (``--scale``, in (0, 1]) is the share of its
default work a trainer does; ``req.options`` are the task's own ``--<task>-*`` flags (added
by the plugin's ``add_train_options`` hook), without the prefix. Nothing here knows a task.

A trainer without the ``request_trainer`` mark is refused with a ``PluginError`` that names
the decorator: there is one trainer interface.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from core.errors import PluginError, ProjectError
from core.splits import DEFAULT_DATA_ROOT
from core.task import Task, TaskInfo

if TYPE_CHECKING:
    from core.cli import Discovery
    from core.trunk import Trunk

log = logging.getLogger("train")


@dataclass(frozen=True, slots=True)
class Sources:
    """The training sources of ``--data NAME=PATH``: paths by source name, in the order given.

    ``challenge`` names sets in the challenge layout (``SET/input/<TASK>``, ``SET/true/<TASK>``),
    which every trainer reads; other names are a trainer's own (``coco_captions``, ``htr``,
    ``c2c_jsonl``...) and reach every trainer, each reading those it knows."""

    named: Mapping[str, tuple[Path, ...]] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        frozen = {str(k): tuple(Path(p) for p in v) for k, v in dict(self.named).items()}
        object.__setattr__(self, "named", MappingProxyType(frozen))

    @classmethod
    def parse(cls, items: Sequence[str]) -> Sources:
        """``["NAME=PATH", ...]`` as ``parse_data`` reads them."""
        return cls(parse_data(items))

    def get(self, name: str) -> tuple[Path, ...]:
        return self.named.get(name, ())

    def __contains__(self, name: object) -> bool:
        return name in self.named

    @property
    def challenge(self) -> tuple[Path, ...]:
        return self.get("challenge")

    def as_dict(self) -> dict[str, list[Path]]:
        """A plain ``{name: [path, ...]}`` copy."""
        return {k: list(v) for k, v in self.named.items()}


@dataclass(frozen=True, slots=True)
class TrainRequest:
    """Everything one trainer gets: train a head for ``trunk`` into ``out_dir``."""

    trunk: Trunk
    out_dir: Path
    sources: Sources = field(default_factory=Sources)
    seed: int = 0
    device: str = "cpu"
    resume: bool = True
    progress: bool = True
    data_root: Path | None = DEFAULT_DATA_ROOT
    scale: float = 1.0
    options: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        check_scale(self.scale)

    def option(self, name: str, default: Any = None) -> Any:
        """The task flag ``name`` (``--<task>-<name>``), or ``default`` when it was not given."""
        value = self.options.get(name)
        return default if value is None else value


@dataclass(frozen=True, slots=True)
class HeadCard:
    """A trained head's card: where it is, the trunk it was made for and its dev score.

    ``dev_score`` is the trainer's headline held-out figure(s) (name -> value, higher or lower
    is better as the name says); the card file itself holds the rest."""

    task: str
    path: Path
    trunk: Mapping[str, str]
    dev_score: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", Path(self.path))
        object.__setattr__(self, "trunk", MappingProxyType(dict(self.trunk)))
        object.__setattr__(self, "dev_score", MappingProxyType({k: float(v) for k, v in self.dev_score.items()}))

    @classmethod
    def read(cls, task: str, path: Path, dev_score: Mapping[str, float] | None = None) -> HeadCard:
        """The card at ``path``; its dev score is ``dev_score``, else the card's ``"dev_score"`` entry."""
        from core.heads import read_card

        card = read_card(Path(path))
        if card is None:
            raise ProjectError(f"{task}: the card {path} is missing or not a JSON object")
        if dev_score is None:
            recorded = card.get("dev_score")
            dev_score = _flat_numbers(recorded) if isinstance(recorded, Mapping) else {}
        return cls(task, Path(path), card.get("trunk") or {}, dev_score)

    def describe(self) -> str:
        return ", ".join(f"{k}={v:.4g}" for k, v in sorted(self.dev_score.items()))


def _flat_numbers(values: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_flat_numbers(value, f"{name}."))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[name] = float(value)
    return out


def request_trainer(fn: Callable[[TrainRequest], HeadCard]) -> Callable[[TrainRequest], HeadCard]:
    """Mark ``fn`` as a trainer of this interface (``fn(req) -> HeadCard``); ``train.py`` refuses a
    trainer without the mark (``run_trainer``)."""
    fn.takes_train_request = True  # type: ignore[attr-defined]
    return fn


class FeatureCache:
    """A resumable on-disk store of one trunk's features by key: ``ROOT/<version>/shard_NNNNN.pt``,
    each shard a ``{key: tensor}`` dict saved as it is computed, so an interrupted run resumes
    where it stopped. ``version`` names what the features depend on (``trunk.version``, or one
    component's version when only that tower matters): another trunk never reads them."""

    def __init__(self, root: Path, version: str, *, shard_size: int = 2048) -> None:
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in version)
        self.folder = Path(root) / safe
        self.shard_size = shard_size
        self._table: dict[str, Any] | None = None

    def _shards(self) -> list[Path]:
        return sorted(self.folder.glob("shard_*.pt"))

    def table(self) -> dict[str, Any]:
        """Every cached ``{key: tensor}`` (read once)."""
        if self._table is None:
            import torch

            self._table = {}
            for path in self._shards():
                self._table.update(torch.load(path))
        return self._table

    def clear(self) -> None:
        for path in self._shards():
            path.unlink()
        self._table = None

    def fill(
        self,
        keys: Sequence[str],
        compute: Callable[[list[str]], Sequence[Any]],
        *,
        progress: bool = False,
        desc: str = "",
    ) -> dict[str, Any]:
        """Compute (``compute(chunk) -> one tensor per key``) and save what ``keys`` still lack;
        returns the whole table."""
        import torch
        from tqdm import tqdm

        table = self.table()
        todo = list(dict.fromkeys(k for k in keys if k not in table))
        if not todo:
            return table
        self.folder.mkdir(parents=True, exist_ok=True)
        start = len(self._shards())
        for i in tqdm(range(0, len(todo), self.shard_size), desc=desc, unit="shard", disable=not progress):
            chunk = todo[i : i + self.shard_size]
            part = dict(zip(chunk, compute(chunk), strict=True))
            torch.save(part, self.folder / f"shard_{start + i // self.shard_size:05d}.pt")
            table.update(part)
        return table


@dataclass(frozen=True, slots=True)
class TrainResult:
    """How one task's training went: its card, or why there is none."""

    task: str
    card: Path | None = None
    dev: str = ""  # the card's dev score, compact
    error: str = ""
    seconds: float = 0.0
    head: HeadCard | None = None

    @property
    def ok(self) -> bool:
        return self.card is not None and not self.error

    def summary(self) -> str:
        if self.ok:
            return f"{self.task}: trained in {self.seconds:.0f}s, card {self.card}, dev {self.dev or 'not recorded'}"
        return f"{self.task}: FAILED after {self.seconds:.0f}s: {self.error}"


def build_parser(*, add_help: bool = True, task: str | None = None) -> argparse.ArgumentParser:
    """The ``train.py`` parser, before plugins add their options; for one ``task`` (``python -m
    plugins.<task>.train``) the same without ``--tasks``."""
    from core.cli import DEFAULT_TRUNK

    parser = argparse.ArgumentParser(
        prog="train.py" if task is None else f"python -m plugins.{task}.train",
        add_help=add_help,
        description="Train the tasks' heads for one trunk into HEADS/<task>/<trunk version>/ "
        "(what run.py --heads HEADS then uses).",
    )
    parser.add_argument(
        "--trunk",
        default=DEFAULT_TRUNK,
        help="the trunk, as for run.py: 'default[:IMAGE_TOWER[:PROJECTION]]' or "
        "'openclip:ARCH:CHECKPOINT[:HF_TEXT_DIR]'",
    )
    if task is None:
        parser.add_argument("--tasks", default="", help="comma-separated tasks to train (default: all with a trainer)")
    else:
        parser.set_defaults(tasks=task)
    parser.add_argument(
        "--heads",
        default=None,
        metavar="DIR",
        help="where the heads go (default: $FUSIONBRAIN_HEADS or ~/.cache/fusionbrain/heads, run.py's default)",
    )
    parser.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a training source, repeatable (challenge, coco_instances, coco_images, coco_captions, vg_regions, "
        "vg_images, vqa_questions, vqa_annotations, vqa_images, okvqa_jsonl, htr, c2c_jsonl...); a name not given "
        "defaults to the trainer's own choice (the matching sets of ../shared/data when present)",
    )
    parser.add_argument(
        "--data-root",
        default=str(DEFAULT_DATA_ROOT),
        metavar="DIR",
        help="where a source name not given with --data defaults to the trainer's choice of sets "
        "(default: %(default)s); 'none': only the --data sources",
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="share of each trainer's default work, in (0, 1]: fewer images, pairs and steps "
        "(default 1: the full recipe; e.g. 0.05 for a smoke run)",
    )
    parser.add_argument("--device", default="cpu", help="'cpu' (default) or 'cuda[:N]', for the trunk and trainers")
    parser.add_argument(
        "--ablate-trunk",
        choices=("none", "random"),
        default="none",
        help="train on seeded noise instead of trunk features (the control run; give it its own --heads: its heads "
        "land in the ablated trunk's folder)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed every trainer gets (default 0)")
    parser.add_argument("--no-resume", action="store_true", help="start over instead of resuming from checkpoints")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: all cores)")
    parser.add_argument("--strict", action="store_true", help="stop at the first task that fails")
    parser.add_argument("--no-plugins", action="store_true", help="do not load third-party entry-point plugins")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    return parser


def parse_data(items: Sequence[str]) -> dict[str, list[Path]]:
    """``["NAME=PATH", ...]`` -> ``{NAME: [PATH, ...]}`` in the order given; every path must exist."""
    data: dict[str, list[Path]] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name or not raw:
            raise ProjectError(f"--data {item!r}: expected NAME=PATH")
        path = Path(raw).expanduser()
        if not path.exists():
            raise ProjectError(f"--data {name}={raw}: {path} does not exist")
        data.setdefault(name, []).append(path)
    return data


def parse_data_root(value: str | None) -> Path | None:
    """``--data-root``: a folder, or None for 'none' (trainers then use only the ``--data`` sources)."""
    if value is None or value.strip().lower() in ("", "none"):
        return None
    return Path(value).expanduser()


def check_scale(scale: float) -> float:
    """``--scale``: a share of the default work, in (0, 1]."""
    if not 0.0 < scale <= 1.0:
        raise ProjectError(f"--scale {scale}: expected a share of the default work in (0, 1]")
    return scale


def challenge_sets(roots: Sequence[Path], info: TaskInfo) -> list[Path]:
    """The challenge-layout sets among ``roots`` that hold ``info``'s task, as the trainers read
    them: ``SET/input/<FOLDER or an alias>/`` and ``SET/true/<FOLDER>/true_<FOLDER>.json``.
    ``--data challenge=SET`` reaches every trainer, so the others are skipped with a log line."""
    out = []
    for root in map(Path, roots):
        has_input = any((root / "input" / name).is_dir() for name in info.folders())
        if has_input and (root / "true" / info.folder / f"true_{info.folder}.json").is_file():
            out.append(root)
        else:
            log.info("%s: %s holds no %s set; skipped", info.name, root, info.folder)
    return out


def select_trainable(tasks: Mapping[str, Task], trainers: Mapping[str, object], wanted: str) -> list[Task]:
    """The tasks named in ``--tasks`` (all of them, even without a trainer), else every task with
    one in ``trainers`` (``Registry.trainers``)."""
    from core.cli import select_tasks

    if wanted.strip():
        return select_tasks(tasks, wanted)
    return [t for name, t in tasks.items() if name in trainers]


def run_trainer(trainer: Callable[..., Any], req: TrainRequest, name: str) -> HeadCard:
    """Call ``trainer`` with ``req``. A trainer without the ``request_trainer`` mark, or one that
    returns anything but a ``HeadCard``, raises ``PluginError`` saying what the interface is."""
    if not getattr(trainer, "takes_train_request", False):
        where = f"{getattr(trainer, '__module__', '?')}.{getattr(trainer, '__qualname__', trainer)}"
        raise PluginError(
            f"{name}: its trainer {where} is not marked @training.request_trainer; a trainer takes one "
            "TrainRequest and returns a HeadCard: @request_trainer def train_head(req: TrainRequest) -> HeadCard"
        )
    card = trainer(req)
    if not isinstance(card, HeadCard):
        raise PluginError(f"{name}: its trainer returned {type(card).__name__}, not a training.HeadCard")
    return card


def train_task(
    task: Task, trainer: Callable[..., object] | None, req: TrainRequest, *, strict: bool = False
) -> TrainResult:
    """Run ``task``'s trainer (``Registry.trainers``; None: it has none) on ``req`` (whose
    ``out_dir`` is the task's per-trunk folder) and check the card.

    A task without a trainer, a trainer that raises, or a card that a later run could
    not use (missing, unreadable, outside the folder, made for another trunk) is a failed
    result with the reason; with ``strict`` the exception propagates instead.
    """
    from core.heads import card_matches, read_card

    name = task.info.name
    if trainer is None:
        return TrainResult(name, error="no plugin registers a trainer for it (register_trainers); nothing to train")
    log.info("%s: training into %s", name, req.out_dir)
    start = time.perf_counter()
    try:
        head = run_trainer(trainer, req, name)
    except Exception as exc:
        if strict:
            raise
        log.exception("%s: training failed", name)
        return TrainResult(name, error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - start)
    seconds = time.perf_counter() - start
    problem = _card_problem(head.path, req.out_dir, req.trunk, read_card, card_matches)
    if problem:
        if strict:
            raise ProjectError(f"{name}: {problem}")
        log.error("%s: %s", name, problem)
        return TrainResult(name, card=head.path, error=problem, seconds=seconds, head=head)
    dev = head.describe()
    log.info("%s: wrote %s in %.0fs; dev %s", name, head.path, seconds, dev or "not recorded")
    return TrainResult(name, card=head.path, dev=dev, seconds=seconds, head=head)


def task_options(args: argparse.Namespace, task: str) -> dict[str, Any]:
    """The ``--<task>-*`` values in ``args``, by name without the prefix (``--vqa-cache-dir`` -> ``cache_dir``)."""
    prefix = f"{task}_"
    return {k[len(prefix) :]: v for k, v in vars(args).items() if k.startswith(prefix)}


def train_cli(task: str | None, argv: Sequence[str] | None = None, *, discovery: Discovery) -> int:
    """``train.py`` (``task`` None: ``--tasks`` chooses) and ``python -m plugins.<task>.train``
    (``task`` given: only that task): one parser, one ``--data``, one trunk, one loop."""
    import sys

    from core import cli

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(task=task)
    pm, args = cli.parse_with_plugins(argv, parser, discovery, train=True)
    log = logging.getLogger("train")
    try:
        from core.heads import head_dir_for, search_dirs
        from core.request import PluginConfig, PluginOptions
        from core.trunk import TrunkConfig, load_trunk

        sources = Sources.parse(args.data)
        scale = check_scale(args.scale)
        options = PluginOptions(heads=Path(args.heads).expanduser() if args.heads else None)
        (heads_root,) = search_dirs(PluginConfig(options.heads))
        registry = discovery.collect(pm, options, strict=args.strict)
        for orphan in sorted(set(registry.trainers) - set(registry.tasks)):
            log.warning("a plugin registers a trainer for %r, which no plugin registers as a task; skipped", orphan)
        tasks = select_trainable(registry.tasks, registry.trainers, args.tasks)
        if not tasks:
            raise ProjectError("no task to train: no plugin registers a trainer for the selected tasks")
        cli.set_threads(args.threads)
        config = TrunkConfig.parse(args.trunk, device=args.device, ablation=args.ablate_trunk)
        trunk = load_trunk(config, registry)
        log.info("trunk %s (version %s); heads go under %s", args.trunk, trunk.version, heads_root)
        results = []
        for t in tasks:
            req = TrainRequest(
                trunk=trunk,
                out_dir=head_dir_for(Path(heads_root), t.info.name, trunk),
                sources=sources,
                seed=args.seed,
                device=args.device,
                resume=not args.no_resume,
                progress=not args.no_progress,
                data_root=parse_data_root(args.data_root),
                scale=scale,
                options=task_options(args, t.info.name),
            )
            results.append(train_task(t, registry.trainers.get(t.info.name), req, strict=args.strict))
    except ProjectError as exc:
        log.error("%s", exc)
        return 2
    print(report(results))
    print(f"use them: python run.py --trunk {args.trunk} --heads {heads_root} ...")
    return 0 if all(r.ok for r in results) else 1


def _card_problem(card_path, out_dir, trunk, read_card, card_matches) -> str:  # type: ignore[no-untyped-def]
    if card_path is None:
        return "the trainer returned no card path"
    if card_path.parent.resolve() != Path(out_dir).resolve():
        return f"the card {card_path} is not in {out_dir}, where run.py --heads looks"
    card = read_card(card_path)
    if card is None:
        return f"the card {card_path} is missing or not a JSON object"
    if not card_matches(card, trunk):
        return f"the card {card_path} does not record this trunk's component versions; run.py would not use it"
    return ""


def report(results: Sequence[TrainResult]) -> str:
    """One line per task, then where the heads are used from."""
    return "\n".join(r.summary() for r in results)
