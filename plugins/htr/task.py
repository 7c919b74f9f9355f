"""HTR: one handwritten Russian or English word per image -> its text.

Pipeline: each crop is fitted to 64 x 256 (``preprocess.fit_word``); sideways
candidates are added for tall and near-square crops; the frozen trunk gives
stride-8/16 maps; the CTC head (``model.HtrHead``, trained by
``python -m plugins.htr.train`` on rendered words) gives per-frame
log-probabilities and an "upright" score; a prefix beam search
(``ctc.prefix_beam_search``) reads each candidate, with Cyrillic/Latin
look-alikes moved to the word's majority script (``script.harmonize_script``).
Two decoders choose the final string:

* ``"lexicon"`` (approach B, default): dictionary words scored exactly under the
  CTC posteriors plus a frequency prior, the free reading kept only when it
  wins by a margin (``lexdecode.LexiconDecoder``); every orientation is read
  and the best reading plus upright score wins;
* ``"beam"`` (approach A): the upright-most candidate's beam readings reranked
  by a word-frequency prior (``lexicon.Lexicon``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from core.errors import InputError, PluginError
from core.task import JsonOutput, Prediction, Sample

if TYPE_CHECKING:
    import numpy as np
    import torch

    from core.trunk import Trunk
    from plugins.htr.lexdecode import LexiconDecoder
    from plugins.htr.lexicon import Lexicon

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).parent / "weights"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".gif")
BEAM_WIDTH = 8
LEXICON_WEIGHT = 2.0  # nats for the most frequent words; 0 turns the word prior off
DECODERS = ("lexicon", "beam")
DECODER = "lexicon"  # chosen on rendered dev crops (bench/htr.py); see lexdecode.py
# Orientation choice: reading score + this x log P(upright). 0-4 tie within 0.3 % on running-text dev crops.
UPRIGHT_WEIGHT = 2.0


@dataclass(frozen=True, slots=True)
class HtrSample(Sample):
    path: Path  # the word image; may turn out unreadable (then the answer is "")


class HtrBatch(NamedTuple):
    pixels: torch.Tensor  # [N, 3, 64, 256] normalised; N >= number of readable samples
    owner: tuple[int, ...]  # per row: index of its sample in the batch
    rotation: tuple[int, ...]  # per row: degrees counter-clockwise applied before fitting


class HtrRaw(NamedTuple):
    log_probs: np.ndarray  # [N, T, C] per candidate row
    upright: np.ndarray  # [N] upright logits
    owner: tuple[int, ...]
    rotation: tuple[int, ...]


class HtrTask(JsonOutput):
    """The HTR task plugin."""

    name = "htr"
    version = "1.0"
    batch_size = 64
    folder = "HTR"
    output_name = "prediction_HTR.json"

    def __init__(
        self, weights_dir: Path | None = None, *, lexicon_weight: float = LEXICON_WEIGHT, decoder: str = DECODER
    ) -> None:
        if decoder not in DECODERS:
            raise PluginError(f"htr decoder must be one of {DECODERS}, not {decoder!r}")
        self.weights_dir = Path(weights_dir) if weights_dir is not None else WEIGHTS_DIR
        self.lexicon_weight = lexicon_weight
        self.decoder = decoder
        self._lexicon: Lexicon | None = None
        self._constrained: LexiconDecoder | None = None
        self._head: Any = None
        self._trunk_id: int | None = None
        self._size: tuple[int, int] | None = None  # (height, width) the head was trained on, from its card

    # -- set-up -------------------------------------------------------------------
    def setup(self, trunk: Trunk) -> None:
        """Load the head for this trunk (refusing one made for another image tower)."""
        if self._head is not None and self._trunk_id == id(trunk):
            return
        from safetensors.torch import load_file

        from plugins.htr.model import HtrHead
        from plugins.htr.preprocess import HEIGHT, WIDTH

        card_path = self.weights_dir / "htr_head.json"
        weights_path = self.weights_dir / "htr_head.safetensors"
        if not card_path.is_file() or not weights_path.is_file():
            raise PluginError(f"HTR head weights missing in {self.weights_dir}; run python -m plugins.htr.train")
        card = json.loads(card_path.read_text(encoding="utf-8"))
        trunk.check_compatible(card["trunk"], what="htr head")
        head = HtrHead(**card["config"])
        size = card.get("input", {"height": HEIGHT, "width": WIDTH})
        self._size = (int(size["height"]), int(size["width"]))
        state = {k: v.float() if v.is_floating_point() else v for k, v in load_file(str(weights_path)).items()}
        head.load_state_dict(state)
        head.eval()
        head.requires_grad_(False)
        self._head = head
        self._trunk_id = id(trunk)
        if self.decoder == "lexicon" and self._constrained is None:
            from plugins.htr.lexdecode import shared_decoder

            self._constrained = shared_decoder()
        if self.decoder == "beam" and self.lexicon_weight > 0:
            from plugins.htr.lexicon import Lexicon

            self._lexicon = Lexicon(self.lexicon_weight)
            self._lexicon.prior("the") + self._lexicon.prior("и")  # load both frequency tables now

    # -- stages -------------------------------------------------------------------
    def discover(self, input_dir: Path) -> list[Sample]:
        """Every image file under ``HTR/images`` (or directly under ``HTR``), keyed by file name."""
        from core.io import find_task_dir

        task_dir = find_task_dir(Path(input_dir), self.folder)
        if task_dir is None:
            return []
        image_dir = task_dir / "images" if (task_dir / "images").is_dir() else task_dir
        files = [p for p in image_dir.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
        samples: list[Sample] = []
        for path in sorted(files, key=_numeric_first):
            try:
                if path.stat().st_size == 0:
                    log.warning("htr: %s is empty; it will get the empty answer", path)
            except OSError as exc:
                log.warning("htr: cannot stat %s: %s", path, exc)
            samples.append(HtrSample(path.name, path))
        return samples

    def preprocess(self, samples: Sequence[Sample], trunk: Trunk) -> HtrBatch:
        """Load, orient and fit each crop; unreadable images get no row (answer "")."""
        from core.io import load_image
        from plugins.htr.preprocess import fit_word, orientations, to_pixels

        if self._head is None:
            self.setup(trunk)
        height, width = self._size
        words, owner, rotation = [], [], []
        for i, sample in enumerate(samples):
            if not isinstance(sample, HtrSample):
                raise PluginError(f"htr got a foreign sample {sample!r}")
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

    def predict(self, batch: HtrBatch, trunk: Trunk) -> HtrRaw:
        """Trunk maps -> head log-probabilities and upright scores for every candidate row."""
        maps = trunk.image_feature_maps(batch.pixels).maps
        out = self._head(maps[0], maps[1])
        return HtrRaw(
            out.log_probs.float().cpu().numpy(), out.upright.float().cpu().numpy(), batch.owner, batch.rotation
        )

    def postprocess(self, raw: HtrRaw, samples: Sequence[Sample]) -> list[Prediction]:
        """Per sample: the upright-most candidate, read by the chosen decoder (``self.decoder``)."""
        texts = pick_readings(raw.log_probs, raw.upright, raw.owner, len(samples), self._lexicon, self._constrained)
        return [Prediction(s.key, t) for s, t in zip(samples, texts, strict=True)]

    def fallback(self, sample: Sample) -> Prediction:
        return Prediction(sample.key, "")


def pick_readings(
    log_probs: np.ndarray,
    upright: np.ndarray,
    owner: Sequence[int],
    n: int,
    lexicon: Lexicon | None = None,
    constrained: LexiconDecoder | None = None,
) -> list[str]:
    """One reading for each of ``n`` samples ("" when it has no candidate row).

    With ``constrained`` (approach B) every orientation of a crop is decoded and
    the one whose reading scores best, plus ``UPRIGHT_WEIGHT`` times the head's
    log-probability that it is upright, wins (any non-empty reading beats an
    empty one): a sideways view rarely spells a likely word, which the upright
    score alone cannot know. Otherwise the
    upright-most row is read; with a ``lexicon`` the reading with the best image
    score plus word-frequency prior wins, without one the most probable one.
    """
    import numpy as np

    rows: dict[int, list[int]] = {}
    for row, i in enumerate(owner):
        if i >= 0:
            rows.setdefault(i, []).append(row)
    out = []
    for i in range(n):
        if i not in rows:
            out.append("")
        elif constrained is not None:
            readings = []
            for row in rows[i]:
                text, score = constrained.decode_scored(log_probs[row], _free_readings(log_probs[row]))
                score += UPRIGHT_WEIGHT * -np.logaddexp(0.0, -float(upright[row]))  # log sigmoid
                readings.append((bool(text), score, text))
            out.append(max(readings)[2])  # a word beats an empty reading, then the best score
        else:
            ranked = _free_readings(log_probs[max(rows[i], key=lambda r: upright[r])], scored=True)
            if lexicon is not None:
                out.append(lexicon.best(ranked))
            else:
                out.append(ranked[0][0] if ranked else "")
    return out


def _free_readings(log_probs: np.ndarray, *, scored: bool = False) -> list:
    """The prefix beam's readings of one row, each in one script, best first (``(text, logp)`` if ``scored``)."""
    from plugins.htr.charset import decode
    from plugins.htr.ctc import prefix_beam_search
    from plugins.htr.script import harmonize_script

    readings: dict[str, float] = {}
    for ids, logp in prefix_beam_search(log_probs, BEAM_WIDTH):
        text = harmonize_script(decode(ids))
        readings[text] = max(readings.get(text, logp), logp)
    ranked = sorted(readings.items(), key=lambda kv: kv[1], reverse=True)
    return ranked if scored else [text for text, _ in ranked]


def _numeric_first(path: Path) -> tuple[int, int, str]:
    stem = path.stem
    return (0, int(stem), path.name) if stem.isdigit() else (1, 0, path.name)
