"""The C2C task: Java in, Python in the AVATAR token format out.

Pipeline: ``discover`` reads ``C2C/requests.json`` and cleans every request
without dropping any (non-strings, empty, huge, ``\\u00a0``: logged);
``preprocess`` runs the syntax-directed translator (``translate.py``) once per
style switch and tokenizes the Java statements and differing Python lines with
``trunk.tokenize``; ``predict`` encodes them with the frozen text tower and the
selector head (``selector.py``) picks one candidate per program; ``postprocess``
keeps it, or the default translation when the chosen one would not compile, and
repairs what still does not compile.

Without a selector for the trunk (none trained for it, or its weights missing)
the translator alone runs, in its default style: this is logged once, and no
sample falls back for it. A request the translator fails on (a ``TranslationBug``,
logged as an error with the Java construct that caused it, or input nested deeper than
Python's stack) gets a minimal valid program; the other requests are unaffected.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from core.heads import find_head
from core.io import find_task_dir, read_request
from core.task import Prediction, RequestForm, RunContext, Sample, SetupContext, TaskBase, TaskInfo
from plugins.c2c.detok import compiles
from plugins.c2c.errors import TranslationBug
from plugins.c2c.guard import ensure_compiles
from plugins.c2c.selector import (
    CARD_NAME,
    SWITCHES,
    WEIGHTS_NAME,
    Candidates,
    all_texts,
    choose,
    features,
    make_candidates,
)
from plugins.c2c.style import DEFAULT_STYLE
from plugins.c2c.translate import is_program, parses_cleanly, translate

if TYPE_CHECKING:
    import torch

    from core.metrics import Metric
    from core.trunk import TextTokens, Trunk

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
CHECK_SECONDS = 2.0  # discovery's Java validity check stops after this long (it only logs)
MAX_CHARS = 100_000  # longer requests are cut at a token boundary (AVATAR programs are < 10k)
MINIMAL_PROGRAM = "def f ( ) : NEW_LINE INDENT pass NEW_LINE DEDENT"
_ENCODE_CHUNK = 64
# what one request may raise: a translator bug (named with its construct) or input nested too deep
_TRANSLATION_ERRORS = (TranslationBug, RecursionError)
# whitespace the public data smuggles into tokens; the translator wants plain spaces
_SPACES = re.compile("[\u00a0\u2007\u202f\t\r\n\ufeff]")  # a regex: str.translate took 12 ms per 100k chars


@dataclass(frozen=True, slots=True)
class C2cSample(Sample):
    """One request of ``requests.json``."""

    java: str  # cleaned Java tokens; "" when the request was unusable


@dataclass(frozen=True, slots=True)
class C2cPrediction(Prediction):
    """One answer, and whether the guard had to repair it (``write`` counts those for the run)."""

    repaired: bool = False  # the translation did not compile: ``guard.ensure_compiles`` edited it


class C2cBatch(NamedTuple):
    """What ``preprocess`` hands to ``predict``."""

    candidates: list[Candidates | None]  # None: the translator failed on that sample
    texts: list[str]  # distinct texts of the batch the selector reads ([] without a selector)
    tokens: list[tuple[list[int], TextTokens]]  # length-sorted chunks: (indices into texts, tokens)


class C2cRaw(NamedTuple):
    """What ``predict`` hands to ``postprocess``."""

    candidates: list[Candidates | None]
    chosen: list[int]  # index of the chosen candidate (0: default style)


def clean_request(key: str, value: Any) -> str:
    """A request value -> Java tokens on one line; problems logged, never raised."""
    if not isinstance(value, str):
        log.warning("C2C request %s is not a string (%s); it gets a minimal program", key, type(value).__name__)
        return ""
    text = _SPACES.sub(" ", value)
    if not text.isprintable():  # one C-level pass; the filter below is per character
        text = "".join(ch for ch in text if ch.isprintable() or ch == " ")
    if len(text) > MAX_CHARS:
        log.warning("C2C request %s has %d characters; only the first %d are translated", key, len(text), MAX_CHARS)
        text = text[:MAX_CHARS].rsplit(" ", 1)[0]
    text = " ".join(text.split())
    if not text:
        log.warning("C2C request %s is empty; it gets a minimal program", key)
    return text


def safe_translate(java: str) -> str:
    """Best-effort translation that never raises: the minimal program when all else fails."""
    return _safe_translate(java, "")[0]


def _safe_translate(java: str, key: str) -> tuple[str, bool]:
    """``safe_translate``, and whether the guard repaired the translation."""
    if not java:
        return MINIMAL_PROGRAM, False
    try:
        out = translate(java)
    except _TRANSLATION_ERRORS as exc:
        _log_failure(key, exc)
        return MINIMAL_PROGRAM, False
    final = finalize(out)
    return final, final != out


def _log_failure(key: str, exc: BaseException) -> None:
    """A translator bug is an error to fix (logged with the Java construct that caused it); deep input a warning."""
    where = f"C2C request {key}" if key else "C2C"
    if isinstance(exc, TranslationBug):
        log.error("%s: translator bug: %s", where, exc)
    else:
        log.warning("%s: translation failed (%s: %s)", where, type(exc).__name__, exc)


def program_candidates(java: str) -> Candidates:
    """A whole program gets the default style only, with nothing for the selector to read: the
    selector learned its choices on functions, a style switch can change what a program prints
    (``int ( a / b )`` on large longs), and encoding a program's pieces made whole programs
    translate at 10/s instead of 100+/s."""
    default = translate(java)
    n = len(SWITCHES) + 1
    return Candidates((), (DEFAULT_STYLE,) * n, (default, *[""] * (n - 1)), ((),) * n)


def finalize(tokens: str) -> str:
    """Make an output compile (``guard.ensure_compiles``: per statement, then per function); never empty."""
    tokens = ensure_compiles(tokens).tokens or MINIMAL_PROGRAM
    if not any(t not in ("INDENT", "DEDENT", "NEW_LINE", "pass") for t in tokens.split()):
        return MINIMAL_PROGRAM
    return tokens


def metric() -> Metric:
    """``TaskInfo.metric``: this task's metric (``core.metrics.codebleu``), imported only when scoring."""
    from core.metrics.codebleu import METRIC

    return METRIC


def display() -> Callable[[str], str]:
    """``RequestForm.display``: AVATAR tokens -> Python source as a person writes it (``detok.readable``)."""
    from plugins.c2c.detok import readable

    return readable


class C2cTask(TaskBase[C2cSample, C2cBatch, C2cRaw, "_Selector"]):
    """Java -> Python translation (SPEC "C2C")."""

    info = TaskInfo(
        name="c2c",
        version="1.0",
        folder="C2C",
        output="prediction_C2C.json",
        batch_size=64,
        metric=metric,
        form=RequestForm(ask="text", answer="code", display=display),  # {key: Java}
        needs_trunk=False,  # the translator answers alone when the trunk cannot be built
        seconds_per_item=0.0075,  # 117-143 programs/s on 2 cores (docs/results.md, the public-size mix)
        setup_seconds=0.1,  # the style selector (python -m bench.task_costs)
    )

    def __init__(self, weights_dir: Path = WEIGHTS_DIR, *, search: Sequence[Path] = ()) -> None:
        """``weights_dir``: the shipped selector; ``search``: user heads folders (``core.heads``)."""
        self.weights_dir = weights_dir
        self.search = tuple(search)

    def setup(self, ctx: SetupContext[Trunk | None]) -> _Selector:
        """Load the style selector made for this trunk; without one (or without a trunk: it could
        not be built) the translator runs alone."""
        head, trunk = None, ctx.trunk
        if trunk is None:
            log.warning("C2C: no trunk; the translator runs alone (default style)")
            return _Selector(None)
        folder = find_head(self.info.name, trunk, CARD_NAME, shipped=self.weights_dir, search=self.search)
        if folder is not None:
            head = load_selector(trunk, folder)
        if head is None:
            log.warning("C2C: no style selector for this trunk; the translator runs alone (default style)")
        return _Selector(head)

    def discover(self, input_dir: Path) -> list[C2cSample]:
        """Every key of ``requests.json``, cleaned; problems logged, none dropped."""
        task_dir = find_task_dir(input_dir, *self.info.folders())
        if task_dir is None:
            return []
        entries = read_request(task_dir, "requests.json")
        samples = [C2cSample(key, clean_request(key, value)) for key, value in entries.items()]
        # The validity check is a diagnostic: it may not cost the run's time budget (a discovery
        # cannot be abandoned), so it stops after CHECK_SECONDS (300 programs of 100k characters took 45 s).
        ends = time.monotonic() + CHECK_SECONDS
        for i, sample in enumerate(samples):
            if time.monotonic() > ends:
                log.info("C2C: validity not checked for the last %d requests (discovery kept short)", len(samples) - i)
                break
            if sample.java and not parses_cleanly(sample.java):
                log.warning("C2C request %s is not valid Java; translating what parses", sample.key)
        return samples

    def preprocess(self, samples: Sequence[C2cSample], trunk: Trunk, selector: _Selector) -> C2cBatch:
        """Translate with every style candidate and tokenize the pieces the selector reads."""
        cands: list[Candidates | None] = []
        for sample in samples:
            if not sample.java:
                cands.append(None)
                continue
            try:
                maker = program_candidates if is_program(sample.java) else make_candidates
                cands.append(maker(sample.java))
            except _TRANSLATION_ERRORS as exc:
                _log_failure(sample.key, exc)
                cands.append(None)
        texts = all_texts([c for c in cands if c is not None]) if selector.head is not None else []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        chunks = []
        for start in range(0, len(order), _ENCODE_CHUNK):
            idx = order[start : start + _ENCODE_CHUNK]
            chunks.append((idx, trunk.tokenize([texts[i] for i in idx])))
        return C2cBatch(cands, texts, chunks)

    def predict(self, batch: C2cBatch, trunk: Trunk, selector: _Selector) -> C2cRaw:
        """Encode the pieces with the text tower and let the head pick each program's candidate."""
        import torch

        head = selector.head
        valid = [c for c in batch.candidates if c is not None]
        if head is None or not valid:
            return C2cRaw(batch.candidates, [0] * len(batch.candidates))
        emb = torch.zeros(len(batch.texts), trunk.embed_dim)
        for idx, tokens in batch.tokens:
            emb[idx] = trunk.encode_texts(tokens).float()
        x, mask = features(valid, dict(zip(batch.texts, emb, strict=True)), trunk.embed_dim)
        picks = iter(choose(head(x).squeeze(-1), mask))
        return C2cRaw(batch.candidates, [next(picks) if c is not None else 0 for c in batch.candidates])

    def postprocess(self, raw: C2cRaw, samples: Sequence[C2cSample], selector: _Selector) -> list[Prediction]:
        """The chosen candidate; the default one when the chosen one does not compile."""
        out: list[Prediction] = []
        for sample, cand, k in zip(samples, raw.candidates, raw.chosen, strict=True):
            if cand is None:
                out.append(C2cPrediction(sample.key, *_safe_translate(sample.java, sample.key)))
                continue
            text = cand.texts[k] or cand.default
            if text != cand.default and not compiles(text):
                text = cand.default
            final = finalize(text)
            if final != text and parses_cleanly(sample.java):  # invalid Java was already warned about once
                log.warning("C2C request %s: the translation did not compile and was repaired", sample.key)
            out.append(C2cPrediction(sample.key, final, repaired=final != text))
        return out

    def write(self, predictions: Sequence[Prediction], samples: Sequence[C2cSample], ctx: RunContext) -> Path:
        """The standard file; the answers the guard repaired counted in one line beside the run's summary
        (each is a translation to fix: a repaired answer compiles but rarely computes what the Java does)."""
        repaired = [p.key for p in predictions if isinstance(p, C2cPrediction) and p.repaired]
        shown = ", ".join(repaired[:10]) + (", ..." if len(repaired) > 10 else "")
        log.info(
            "c2c: %d of %d answers repaired by the guard%s",
            len(repaired),
            len(predictions),
            f" ({shown})" * bool(shown),
        )
        return super().write(predictions, samples, ctx)

    def fallback(self, sample: C2cSample) -> Prediction:
        """A minimal valid program: fallbacks must be cheap (a stopping run writes thousands at
        once); translation failures are already answered by ``safe_translate`` in ``postprocess``."""
        return Prediction(sample.key, MINIMAL_PROGRAM)


class _Selector(NamedTuple):
    """What ``setup`` loads: the style selector, or None (the translator alone)."""

    head: torch.nn.Module | None


def load_selector(trunk: Trunk, weights_dir: Path = WEIGHTS_DIR) -> torch.nn.Module | None:
    """The trained selector head in ``weights_dir``, or None (logged) when it is missing or does not fit;
    raises ``TrunkError`` when its card names another trunk, ``WeightsError`` (``core.weights``) when
    the weights are damaged or do not fit their card."""
    from plugins.c2c.selector import build_head

    card_path, weights_path = weights_dir / CARD_NAME, weights_dir / WEIGHTS_NAME
    if not card_path.is_file() or not weights_path.is_file():
        if card_path.is_file():
            log.error("C2C: weight file %s: missing (its card %s is there); default style", weights_path, CARD_NAME)
        else:
            log.warning("C2C: no selector weights in %s; translating with the default style", weights_dir)
        return None
    from core import weights
    from core.heads import frozen, load_head_files

    card, state = load_head_files(trunk, weights_path, card_path, what="c2c style selector")
    if int(card.get("embed_dim", -1)) != trunk.embed_dim:
        log.warning(
            "C2C: selector expects %s-d text embeddings, trunk gives %d; default style",
            card.get("embed_dim"),
            trunk.embed_dim,
        )
        return None
    head = build_head(trunk.embed_dim, int(card.get("hidden", 64)))
    weights.fit_state(head, state, weights_path, card_path)
    return frozen(head)
