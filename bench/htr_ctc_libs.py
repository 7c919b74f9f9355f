"""CTC decoding libraries against our own decoder, on the style-held-out HTR set.

    PYTHONPATH=/work/cache/ctclibs python -m bench.htr_ctc_libs [--set DIR] [--threads 1] [--json FILE]

The libraries are not dependencies of the product; install them anywhere for the
measurement and put that folder on ``PYTHONPATH``, e.g.::

    pip install --no-deps --target /work/cache/ctclibs pyctcdecode==0.5.0 pygtrie==2.6.2 \\
        flashlight-text==0.0.7 kenlm

(``--no-deps``: pyctcdecode 0.5.0 declares ``numpy<2`` and would replace the venv's numpy
2; it runs on numpy 2. kenlm builds from source; without it the pyctcdecode-with-a-word-list
row is skipped.) A library that is not importable is reported and skipped.

The shipped head reads every crop of the set (``bench.htr_heldout``; 400 words in writing
styles no training run uses) once, through the task's own ``preprocess`` and ``predict``;
then each decoder reads the same log-probabilities:

* ``ours``: what run.py does: our prefix beam search (``plugins.htr.ctc``) for the free
  readings, then the lexicon decoder (``plugins.htr.lexdecode``; 50k Russian + 50k English
  wordfreq words scored exactly under the CTC posteriors, with an open-vocabulary escape),
  orientation by reading score plus upright score (``task.pick_readings``). Checked to give
  exactly the task's own ``postprocess`` output.
* ``pyctcdecode`` / ``flashlight`` beam: the library's beam search (no language model, beam 8
  as ours) in place of our prefix beam search, the rest as ``ours``: the free readings the
  lexicon decoder starts from come from the library.
* ``... free``: each beam search alone (no lexicon): its best reading, orientation by its
  score plus the upright score.
* ``pyctcdecode + word list``: pyctcdecode's own word-level decoding with the same 100k words
  as a unigram KenLM model (ARPA written from wordfreq) and its unigram list (default alpha
  0.5, beta 1.5), in place of our lexicon decoder. Needs kenlm.

Speed is words per CPU-second of decoding alone (the head outputs are computed once, outside
the timing; every decoder runs on one thread, so this is words/s on one free core), every
orientation row of a crop included; the decoders take turns for ``--repeat`` rounds and each
keeps its fastest.
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import registry
from bench.htr_heldout import DEFAULT_SET, HELDOUT_SIZE, ensure_set
from core.metrics.htr import accuracy_cer

BEAM_WIDTH = 8  # ours (plugins.htr.task.BEAM_WIDTH); the libraries get the same

Free = Callable[[np.ndarray], list[tuple[str, float]]]  # one row's readings, best first, with log-scores


def head_outputs(input_dir: Path, weights: Path | None) -> tuple[list[Any], list[str], Any]:
    """The task's raw outputs for every batch of ``input_dir`` (``(raw, samples)`` pairs), the keys, the task."""
    from bench.htr import head_outputs as task_head_outputs
    from core.trunk import TrunkConfig, load_trunk

    raws, samples, task, loaded = task_head_outputs(input_dir, load_trunk(TrunkConfig(), registry.load()), weights)
    return raws, [s.key for s in samples], task, loaded


def ours_free() -> Free:
    """Our beam as the task runs it: each reading kept in one alphabet (``plugins.htr.task._free_readings``)."""
    from plugins.htr.charset import decode
    from plugins.htr.ctc import prefix_beam_search
    from plugins.htr.script import label_scripts

    scripts = label_scripts()

    def run(lp: np.ndarray) -> list[tuple[str, float]]:
        return _merge((decode(ids), logp) for ids, logp in prefix_beam_search(lp, BEAM_WIDTH, scripts=scripts))

    return run


def _labels() -> list[str]:
    from plugins.htr.charset import CHARSET

    return ["", *CHARSET]  # index 0 is the CTC blank, as in plugins.htr.charset


def pyctcdecode_free() -> Free:
    from pyctcdecode import build_ctcdecoder

    from plugins.htr.script import harmonize_script

    decoder = build_ctcdecoder(_labels())

    def run(lp: np.ndarray) -> list[tuple[str, float]]:
        beams = decoder.decode_beams(np.asarray(lp, np.float32), beam_width=BEAM_WIDTH)
        return _merge((harmonize_script(b[0]), float(b[3])) for b in beams)

    return run


def pyctcdecode_words(words: dict[str, float], folder: Path) -> Callable[[np.ndarray], tuple[str, float]]:
    """pyctcdecode's word-level decoding: ``words`` (zipf) as a unigram ARPA model and unigram list."""
    import kenlm  # noqa: F401  (pyctcdecode swallows its absence and fails later)
    from pyctcdecode import build_ctcdecoder

    from plugins.htr.script import harmonize_script

    total = sum(10.0**z for z in words.values())
    arpa = folder / "unigram.arpa"
    with arpa.open("w", encoding="utf-8") as f:
        # KenLM wants at least a bigram section: one <s> </s> bigram makes the unigram model loadable.
        f.write(f"\\data\\\nngram 1={len(words) + 3}\nngram 2=1\n\n\\1-grams:\n")
        f.write("-99\t<s>\t0\n0\t</s>\n-7\t<unk>\n")
        for word, zipf in words.items():
            f.write(f"{math.log10(10.0**zipf / total):.4f}\t{word}\n")
        f.write("\n\\2-grams:\n-1\t<s> </s>\n\n\\end\\\n")
    decoder = build_ctcdecoder(_labels(), kenlm_model_path=str(arpa), unigrams=list(words))

    def run(lp: np.ndarray) -> tuple[str, float]:
        beams = decoder.decode_beams(np.asarray(lp, np.float32), beam_width=BEAM_WIDTH)
        return (harmonize_script(beams[0][0]), float(beams[0][4])) if beams else ("", -math.inf)

    return run


def flashlight_free() -> Free:
    from flashlight.lib.text.decoder import CriterionType, LexiconFreeDecoder, LexiconFreeDecoderOptions, ZeroLM

    from plugins.htr.charset import BLANK, CHARSET
    from plugins.htr.script import harmonize_script

    labels = _labels()
    space = CHARSET.index(" ") + 1
    options = LexiconFreeDecoderOptions(
        beam_size=BEAM_WIDTH,
        beam_size_token=len(labels),
        beam_threshold=25.0,
        lm_weight=0.0,
        sil_score=0.0,
        log_add=True,
        criterion_type=CriterionType.CTC,
    )
    decoder = LexiconFreeDecoder(options, ZeroLM(), space, BLANK, [])

    def run(lp: np.ndarray) -> list[tuple[str, float]]:
        em = np.ascontiguousarray(lp, dtype=np.float32)
        results = decoder.decode(em.ctypes.data, em.shape[0], em.shape[1])
        out = []
        for r in results[:BEAM_WIDTH]:
            ids, prev = [], None
            for t in r.tokens:
                if t != prev and t not in (BLANK, -1):
                    ids.append(t)
                prev = t
            out.append((harmonize_script("".join(labels[i] for i in ids)).strip(), float(r.score)))
        return _merge(out)

    return run


def _merge(readings: Any) -> list[tuple[str, float]]:
    """Readings with one entry per text (its best score), best first."""
    best: dict[str, float] = {}
    for text, score in readings:
        best[text] = max(best.get(text, score), score)
    return sorted(best.items(), key=lambda kv: kv[1], reverse=True)


def _log_sigmoid(x: float) -> float:
    return -float(np.logaddexp(0.0, -x))


def pick(rows: Sequence[int], read: Callable[[int], tuple[str, float]], upright: np.ndarray) -> str:
    """The task's orientation rule: a word beats an empty reading, then reading score + 2 x log P(upright)."""
    from plugins.htr.task import UPRIGHT_WEIGHT

    best = []
    for row in rows:
        text, score = read(row)
        best.append((bool(text), score + UPRIGHT_WEIGHT * _log_sigmoid(float(upright[row])), text))
    return max(best)[2]


def decode_all(raws: list[Any], read_row: Callable[[np.ndarray], tuple[str, float]]) -> dict[str, str]:
    preds = {}
    for raw, samples in raws:
        rows: dict[int, list[int]] = {}
        for row, i in enumerate(raw.owner):
            if i >= 0:
                rows.setdefault(i, []).append(row)
        for i, sample in enumerate(samples):
            preds[sample.key] = (
                pick(rows[i], lambda r, lp=raw.log_probs: read_row(lp[r]), raw.upright) if i in rows else ""
            )
    return preds


def with_lexicon(free: Free, lexicon: Any) -> Callable[[np.ndarray], tuple[str, float]]:
    return lambda lp: lexicon.decode_scored(lp, [t for t, _ in free(lp)])


def free_only(free: Free) -> Callable[[np.ndarray], tuple[str, float]]:
    def run(lp: np.ndarray) -> tuple[str, float]:
        readings = free(lp)
        return readings[0] if readings else ("", -math.inf)

    return run


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=DEFAULT_SET)
    parser.add_argument("--weights", type=Path, default=None, help="head folder (default: the shipped one)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="timing rounds (the fastest one counts)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--cache", type=Path, default=None, help="keep the head outputs in this file between runs")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from plugins.htr.lexdecode import shared_decoder
    from plugins.htr.lexicon import wordfreq_words

    gold, _ = ensure_set(args.set, HELDOUT_SIZE)
    if args.cache and args.cache.exists():
        with args.cache.open("rb") as f:
            raws, keys = pickle.load(f)
        from plugins.htr.task import HtrReader, HtrTask

        task = HtrTask(args.weights)
        loaded = HtrReader(None, (0, 0), shared_decoder())  # postprocess needs only the decoder
    else:
        raws, keys, task, loaded = head_outputs(args.set / "input", args.weights)
        if args.cache:
            with args.cache.open("wb") as f:
                pickle.dump((raws, keys), f)
    lexicon = shared_decoder()
    task_preds = {p.key: p.value for raw, samples in raws for p in task.postprocess(raw, samples, loaded)}

    decoders: dict[str, Callable[[np.ndarray], tuple[str, float]]] = {}
    frees: dict[str, Free] = {"ours": ours_free()}
    for name, make in (("pyctcdecode", pyctcdecode_free), ("flashlight", flashlight_free)):
        try:
            frees[name] = make()
        except ImportError as exc:
            print(f"{name}: not importable ({exc}); skipped")
    for name, free in frees.items():
        decoders[f"{name} beam + our lexicon"] = with_lexicon(free, lexicon)
    for name, free in frees.items():
        decoders[f"{name} beam, free (no lexicon)"] = free_only(free)
    tmp = tempfile.TemporaryDirectory()
    try:
        decoders["pyctcdecode + word list (unigram KenLM)"] = pyctcdecode_words(wordfreq_words(), Path(tmp.name))
    except ImportError as exc:
        print(f"pyctcdecode with a word list: needs kenlm ({exc}); skipped")

    results: dict[str, dict[str, float]] = {}
    for name, read_row in decoders.items():
        preds = decode_all(raws, read_row)  # also the warm-up (first-call set-up of a library)
        if name == "ours beam + our lexicon" and preds != task_preds:
            raise SystemExit("the bench's 'ours' decoding differs from the task's postprocess: fix the bench")
        score = accuracy_cer(gold, preds)
        results[name] = {"accuracy": score["accuracy"], "cer": score["cer"], "seconds": math.inf}
    # Timing rounds interleave the decoders, and each keeps its fastest round, in CPU seconds of
    # this process (every decoder here runs on one thread): on a shared machine the neighbours'
    # load then barely moves the figures, while wall time varied 4x between runs.
    # The task itself decodes all rows of a batch together (LexiconDecoder.decode_batch): timed too.
    batched = "ours, whole batches (task.postprocess)"
    score = accuracy_cer(gold, task_preds)
    results[batched] = {"accuracy": score["accuracy"], "cer": score["cer"], "seconds": math.inf}
    for _ in range(args.repeat):
        for name, read_row in decoders.items():
            start = time.process_time()
            decode_all(raws, read_row)
            results[name]["seconds"] = min(results[name]["seconds"], time.process_time() - start)
        start = time.process_time()
        for raw, samples in raws:
            task.postprocess(raw, samples, loaded)
        results[batched]["seconds"] = min(results[batched]["seconds"], time.process_time() - start)
    for name, res in results.items():
        res["words_per_cpu_s"] = len(keys) / res.pop("seconds")
        print(
            f"{name:<42} accuracy {res['accuracy']:.4f}  CER {res['cer']:.4f}  "
            f"{res['words_per_cpu_s']:8.1f} words/CPU-s  (n={len(keys)}, best of {args.repeat})"
        )
    tmp.cleanup()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
