"""HTR: one handwritten Russian or English word per image -> its text.

Pipeline: each crop is fitted to 64 x 256 (``preprocess.fit_word``); sideways
candidates are added for tall and near-square crops; the frozen trunk gives
stride-8/16 maps; the CTC head (``model.HtrHead``, trained by
``python -m plugins.htr.train`` on rendered words) gives per-frame
log-probabilities and an "upright" score; a prefix beam search
(``ctc.prefix_beam_search``) reads each candidate, every reading in one alphabet.
The final string comes from the lexicon decoder (``lexdecode.LexiconDecoder``):
dictionary words and the free readings scored exactly under the CTC posteriors
plus priors (frequency, casing, punctuation, alphabet, a word outside the
lexicon), one alphabet per word; every orientation is read and the best reading
plus upright score wins.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from core.errors import InputError
from core.heads import find_head
from core.task import Prediction, RequestForm, Sample, SetupContext, TaskBase, TaskInfo
from plugins.htr.head import CARD_NAME, WEIGHTS_DIR, WEIGHTS_NAME

if TYPE_CHECKING:
    import numpy as np
    import torch

    from core.metrics import Metric
    from core.trunk import Trunk
    from plugins.htr.lexdecode import LexiconDecoder

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".gif")
BEAM_WIDTH = 8
# Orientation choice: reading score + this x log P(upright). 0-4 tie within 0.3 % on running-text dev crops.
UPRIGHT_WEIGHT = 2.0


@dataclass(frozen=True, slots=True)
class HtrSample(Sample):
    path: Path | None  # the word image (None: refused at discovery); may turn out unreadable (answer "")


class HtrBatch(NamedTuple):
    """What ``preprocess`` hands to ``predict``."""

    pixels: torch.Tensor  # [N, 3, 64, 256] normalised; N >= number of readable samples
    owner: tuple[int, ...]  # per row: index of its sample in the batch
    rotation: tuple[int, ...]  # per row: degrees counter-clockwise applied before fitting


class HtrRaw(NamedTuple):
    """What ``predict`` hands to ``postprocess``; ``log_probs`` is None without a head."""

    log_probs: np.ndarray | None  # [N, T, C] per candidate row
    upright: np.ndarray | None  # [N] upright logits
    owner: tuple[int, ...]
    rotation: tuple[int, ...]


class HtrReader(NamedTuple):
    """What ``setup`` loads: the CTC head made for the trunk (None: there is none) and its decoder."""

    head: Any  # plugins.htr.model.HtrHead | None
    size: tuple[int, int]  # (height, width) of the crops the head was trained on, from its card
    decoder: LexiconDecoder | None


def metric() -> Metric:
    """``TaskInfo.metric``: this task's metric (``core.metrics.htr``), imported only when scoring."""
    from core.metrics.htr import METRIC

    return METRIC


class HtrTask(TaskBase[HtrSample, HtrBatch, HtrRaw, HtrReader]):
    """The HTR task plugin."""

    info = TaskInfo(
        name="htr",
        version="1.0",
        folder="HTR",
        output="prediction_HTR.json",
        batch_size=64,
        metric=metric,
        form=RequestForm(ask=None, images="images"),  # the word images alone, keyed by file name
        parallel_batches=True,  # stages keep nothing on self; setup's objects are read, or memoise alike
        seconds_per_item=0.007,  # 136-157 words/s on 2 cores (docs/results.md, the public-size mix)
        setup_seconds=0.3,  # the recognizer and the lexicon decoder (python -m bench.task_costs)
    )

    def __init__(self, weights_dir: Path | None = None, *, search: Sequence[Path] = ()) -> None:
        self.weights_dir = Path(weights_dir) if weights_dir is not None else WEIGHTS_DIR
        self.search = tuple(search)

    # -- set-up -------------------------------------------------------------------
    def setup(self, ctx: SetupContext[Trunk]) -> HtrReader:
        """Load the head made for this trunk. Without one HTR cannot read: say so, answer ""."""
        from plugins.htr.preprocess import HEIGHT, WIDTH

        trunk = ctx.trunk
        folder = find_head(self.info.name, trunk, CARD_NAME, shipped=self.weights_dir, search=self.search)
        if folder is None:
            log.error(
                "htr: no recognizer head for this trunk, and HTR cannot read without one: every word is "
                "answered with the empty string. Train one with: python train.py --trunk SPEC --tasks htr"
            )
            return HtrReader(None, (HEIGHT, WIDTH), None)
        from plugins.htr import native
        from plugins.htr.lexdecode import shared_decoder

        head, size = load_head(folder, trunk)
        native.library()  # built (first run on a machine) or its absence warned about here, not in a batch
        return HtrReader(head, size, shared_decoder())

    # -- stages -------------------------------------------------------------------
    def discover(self, input_dir: Path) -> list[HtrSample]:
        """Every image file under ``HTR/images`` (or directly under ``HTR``), keyed by file name."""
        from core.io import find_task_dir, scan_input_folder

        task_dir = find_task_dir(Path(input_dir), *self.info.folders())
        if task_dir is None:
            return []
        image_dir = task_dir / "images" if (task_dir / "images").is_dir() else task_dir
        entries = scan_input_folder(image_dir, suffixes=IMAGE_SUFFIXES, root=input_dir)
        samples: list[HtrSample] = []
        for entry in sorted(entries, key=lambda e: _numeric_first(e.path)):
            if not entry.ok:  # a pipe, a folder, a link leaving the input: never opened, answered ""
                log.warning("htr: %s; it gets the empty answer", entry.problem)
            elif entry.size == 0:
                log.warning("htr: %s is empty; it will get the empty answer", entry.path)
            samples.append(HtrSample(entry.path.name, entry.path if entry.ok else None))
        return samples

    def preprocess(self, samples: Sequence[HtrSample], trunk: Trunk, reader: HtrReader) -> HtrBatch:
        """Load, orient and fit each crop; unreadable images get no row (answer "")."""
        from core.io import load_image
        from plugins.htr.preprocess import fit_word, orientations, to_pixels

        height, width = reader.size
        words, owner, rotation = [], [], []
        for i, sample in enumerate(samples if reader.head is not None else ()):
            if sample.path is None:
                continue
            try:
                image = load_image(sample.path)
            except InputError as exc:
                log.warning("htr: %s; answering the empty string", exc)
                continue
            for angle in orientations(image.size):
                view = image.rotate(angle, expand=True) if angle else image
                words.append(fit_word(view, height, width))
                owner.append(i)
                rotation.append(angle)
        if not words:
            import numpy as np

            words = [np.zeros((height, width, 3), np.uint8)]
            owner, rotation = [-1], [0]  # a dummy row keeps tensor shapes valid; no sample owns it
        return HtrBatch(to_pixels(words, trunk), tuple(owner), tuple(rotation))

    def predict(self, batch: HtrBatch, trunk: Trunk, reader: HtrReader) -> HtrRaw:
        """Trunk maps -> head log-probabilities and upright scores for every candidate row."""
        from plugins.htr.preprocess import word_maps

        if reader.head is None:
            return HtrRaw(None, None, (), ())
        out = reader.head(*word_maps(trunk, batch.pixels))
        return HtrRaw(
            out.log_probs.float().cpu().numpy(), out.upright.float().cpu().numpy(), batch.owner, batch.rotation
        )

    def postprocess(self, raw: HtrRaw, samples: Sequence[HtrSample], reader: HtrReader) -> list[Prediction]:
        """Per sample: the best reading over its orientations ("" without a head)."""
        if raw.log_probs is None or raw.upright is None or reader.decoder is None:
            return [Prediction(s.key, "") for s in samples]
        texts = pick_readings(raw.log_probs, raw.upright, raw.owner, len(samples), reader.decoder)
        return [Prediction(s.key, t) for s, t in zip(samples, texts, strict=True)]

    def fallback(self, sample: HtrSample) -> Prediction:
        return Prediction(sample.key, "")


def load_head(folder: Path, trunk: Trunk) -> tuple[Any, tuple[int, int]]:
    """The frozen CTC head in ``folder`` and the (height, width) of the crops it reads.

    The weights are checked against the card (``core.weights``): ``WeightsError`` naming the file
    when they are missing, damaged or do not fit the head the card describes."""
    from core import weights
    from core.heads import frozen, load_head_files
    from plugins.htr.model import HtrHead
    from plugins.htr.preprocess import HEIGHT, WIDTH

    card_path, weights_path = folder / CARD_NAME, folder / WEIGHTS_NAME
    card, tensors = load_head_files(trunk, weights_path, card_path, what="htr head")
    try:
        head = HtrHead(**card["config"])
    except (KeyError, TypeError, ValueError) as exc:
        raise weights.WeightsError(
            weights_path, f"its card {card_path.name} describes no head that builds ({exc})"
        ) from None
    size = card.get("input", {"height": HEIGHT, "width": WIDTH})
    state = {k: v.float() if v.is_floating_point() else v for k, v in tensors.items()}
    weights.fit_state(head, state, weights_path, card_path)
    return frozen(head), (int(size["height"]), int(size["width"]))


def pick_readings(
    log_probs: np.ndarray, upright: np.ndarray, owner: Sequence[int], n: int, decoder: LexiconDecoder
) -> list[str]:
    """One reading for each of ``n`` samples ("" when it has no candidate row).

    Every orientation of a crop is decoded and the one whose reading scores
    best, plus ``UPRIGHT_WEIGHT`` times the head's log-probability that it is
    upright, wins (any non-empty reading beats an empty one): a sideways view
    rarely spells a likely word, which the upright score alone cannot know.
    """
    import numpy as np

    rows = [row for row, i in enumerate(owner) if i >= 0]
    read = log_probs[rows]
    scored = decoder.decode_batch(read, free_readings(read))
    readings: dict[int, list[tuple[bool, float, str]]] = {}
    for row, (text, score) in zip(rows, scored, strict=True):
        score += UPRIGHT_WEIGHT * -np.logaddexp(0.0, -float(upright[row]))  # log sigmoid
        readings.setdefault(owner[row], []).append((bool(text), score, text))
    # A word beats an empty reading, then the best score.
    return [max(readings[i])[2] if i in readings else "" for i in range(n)]


def free_readings(log_probs: np.ndarray) -> list[list[str]]:
    """The prefix beam's readings of each row of ``[R, T, C]``, each reading in one alphabet, best first."""
    from plugins.htr.charset import decode
    from plugins.htr.ctc import prefix_beam_searches

    beams = prefix_beam_searches(log_probs, BEAM_WIDTH, scripts=_label_scripts())
    return [[decode(ids) for ids, _ in row] for row in beams]


@functools.cache
def _label_scripts() -> tuple[int, ...]:
    from plugins.htr.script import label_scripts

    return tuple(label_scripts())


def _numeric_first(path: Path) -> tuple[int, int, str]:
    stem = path.stem
    # ASCII digits only: "²" or "٣" pass str.isdigit() but not int()
    return (0, int(stem), path.name) if stem.isascii() and stem.isdigit() else (1, 0, path.name)
