"""Plumbing for ``train.py``: its parser, the ``--data`` sources, one task's training, the summary.

``train.py`` trains, for one trunk, the head of every selected task that declares a
trainer (``TaskInfo.trainer``, the ``"module:function"`` of its ``train_head``)::

    train_head(trunk, data, out_dir, *, seed, device, resume, progress, data_root, scale) -> card path

``out_dir`` is ``core.heads.head_dir_for(HEADS, task, trunk)``, the folder a later
``run.py --heads HEADS`` searches. ``data`` holds the ``--data`` sources by name; a name
left out defaults to the trainer's own choice among the sets under ``data_root`` (the
project's ``../shared/data``), or to nothing when ``data_root`` is None (``--data-root
none``: exactly the sources given). Nothing here knows a task: data sources are passed
through by name, and progress bars, seeding and resuming are the trainers' own.
``scale`` (``--scale``, in (0, 1]) is the share of its default work a trainer does: of
the rendered or captioned images it draws from, its training-only sets and its steps,
each trainer saying which; 1 is the full recipe, small values are for smoke runs and
tight machines.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import ProjectError
from core.task import Task, TaskInfo, resolve

if TYPE_CHECKING:
    from core.trunk import Trunk

log = logging.getLogger("train")

#: Where trainers find the sets a source name defaults to: the challenge-layout data beside the repository.
DEFAULT_DATA_ROOT = Path(__file__).resolve().parents[2] / "shared" / "data"


@dataclass(frozen=True, slots=True)
class TrainResult:
    """How one task's training went: its card, or why there is none."""

    task: str
    card: Path | None = None
    dev: str = ""  # the card's dev figures, compact
    error: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.card is not None and not self.error

    def summary(self) -> str:
        if self.ok:
            return f"{self.task}: trained in {self.seconds:.0f}s, card {self.card}, dev {self.dev or 'not recorded'}"
        return f"{self.task}: FAILED after {self.seconds:.0f}s: {self.error}"


def build_parser(*, add_help: bool = True) -> argparse.ArgumentParser:
    """The ``train.py`` parser, before plugins add their options."""
    from core.cli import DEFAULT_TRUNK

    parser = argparse.ArgumentParser(
        prog="train.py",
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
    parser.add_argument("--tasks", default="", help="comma-separated tasks to train (default: all with a trainer)")
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


def select_trainable(tasks: Mapping[str, Task], wanted: str) -> list[Task]:
    """The tasks named in ``--tasks`` (all of them, even without a trainer), else every task with one."""
    from core.cli import select_tasks

    if wanted.strip():
        return select_tasks(tasks, wanted)
    return [t for t in tasks.values() if t.info.trainer]


def dev_figures(card: Mapping[str, Any]) -> str:
    """The card's dev score(s), compactly: its top-level entries named ``*dev*`` or ``*heldout*``."""
    keys = sorted(k for k in card if "dev" in k.lower() or "heldout" in k.lower())
    parts = [f"{k}={json.dumps(card[k], sort_keys=True, separators=(',', ':'))}" for k in keys]
    return "; ".join(parts)


def train_task(
    task: Task,
    trunk: Trunk,
    heads_root: Path,
    data: Mapping[str, Sequence[Path]],
    *,
    seed: int = 0,
    device: str = "cpu",
    resume: bool = True,
    progress: bool = True,
    strict: bool = False,
    data_root: Path | None = DEFAULT_DATA_ROOT,
    scale: float = 1.0,
) -> TrainResult:
    """Run ``task``'s trainer into its per-trunk folder under ``heads_root`` and check the card.

    A task without a trainer, a trainer that raises, or a card that a later run could
    not use (missing, unreadable, outside the folder, made for another trunk) is a failed
    result with the reason; with ``strict`` the exception propagates instead.
    """
    from core.heads import card_matches, head_dir_for, read_card

    name = task.info.name
    if not task.info.trainer:
        return TrainResult(name, error="the task declares no trainer (TaskInfo.trainer); nothing to train")
    out_dir = head_dir_for(heads_root, name, trunk)
    log.info("%s: training with %s into %s", name, task.info.trainer, out_dir)
    start = time.perf_counter()
    try:
        train_head = resolve(task.info.trainer)
        options = _accepted(train_head, name, {"data_root": (data_root, DEFAULT_DATA_ROOT), "scale": (scale, 1.0)})
        card_path = train_head(
            trunk, data, out_dir, seed=seed, device=device, resume=resume, progress=progress, **options
        )
    except Exception as exc:
        if strict:
            raise
        log.exception("%s: training failed", name)
        return TrainResult(name, error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - start)
    seconds = time.perf_counter() - start
    card_path = Path(card_path) if card_path is not None else None
    problem = _card_problem(card_path, out_dir, trunk, read_card, card_matches)
    if problem:
        if strict:
            raise ProjectError(f"{name}: {problem}")
        log.error("%s: %s", name, problem)
        return TrainResult(name, card=card_path, error=problem, seconds=seconds)
    card = read_card(card_path) or {}  # type: ignore[arg-type]
    dev = dev_figures(card)
    log.info("%s: wrote %s in %.0fs; dev %s", name, card_path, seconds, dev or "not recorded")
    return TrainResult(name, card=card_path, dev=dev, seconds=seconds)


def _accepted(train_head: Any, name: str, options: Mapping[str, tuple[Any, Any]]) -> dict[str, Any]:
    """The later keywords of the interface (``name: (value, default)``) that ``train_head`` declares,
    as pluggy hands hook implementations only the arguments they name: a trainer written before
    them still runs, and one that would ignore a value the user set says so."""
    import inspect

    params = inspect.signature(train_head).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return {k: value for k, (value, _) in options.items()}
    out = {}
    for key, (value, default) in options.items():
        if key in params:
            out[key] = value
        elif value != default:
            log.warning("%s: its trainer takes no %s; training as if %s=%r", name, key, key, default)
    return out


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
