"""flashlight-text's CTC decoders in place of our search, on the dev sets' cached head outputs.

    PYTHONPATH=.:LIBS python -m bench.htr_ctc_flashlight SET [SET ...] [--cache DIR] [--json FILE]
        [--lexicon-beams 16,64,256]

``LIBS`` holds flashlight-text (not a dependency of the product), e.g.
``pip install --no-deps --target LIBS flashlight-text==0.0.7``. ``SET`` is a folder in the
challenge layout, as for ``bench.htr_decode`` (whose cache of head outputs this reads, computing
it when missing). Every decoder reads the same log-probabilities, one thread, and is scored with
the scorer's ``accuracy_cer`` (DHSD folders: the reading folded as ``bench.htr_dhsd`` folds it):

* ``ours``: the task's decoding (``task.pick_readings``: prefix beam search, lexicon decoder,
  orientation), compiled where it can be (``plugins.htr.native``);
* ``flashlight beam per alphabet + our lexicon``: the free readings from flashlight's
  ``LexiconFreeDecoder`` (beam 8, 6 labels a frame as ours), run once per alphabet with the other
  alphabet's letters masked (flashlight cannot keep each prefix in one alphabet), the readings of
  both merged by score; our lexicon decoder and orientation after that;
* ``flashlight lexicon search (beam B) + our scoring``: flashlight's ``LexiconDecoder`` (the one
  torchaudio uses: a beam over a trie; one trie per alphabet with every lexicon word lower,
  Capitalised and UPPER, the word's frequency prior for look-ahead) gives the words in place of
  our shortlist (bigram index, case-folded exact pass); their spellings then go through our exact
  scoring against the free readings as in the task. Its beam is the only way to find more words,
  so it is measured at several widths (``--lexicon-beams``).

Set-up time (the tries) is printed apart; decoding CPU-seconds exclude it.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.htr_decode import DEFAULT_CACHE, cached_outputs
from core.metrics.htr import accuracy_cer

BEAM_WIDTH, TOP_K = 8, 6  # ours (plugins.htr.task.BEAM_WIDTH, ctc.prefix_beam_search's top_k)


def flashlight_free() -> Callable[[np.ndarray], list[str]]:
    """Free readings from flashlight's lexicon-free beam, once per alphabet, merged best first."""
    from flashlight.lib.text.decoder import CriterionType, LexiconFreeDecoder, LexiconFreeDecoderOptions, ZeroLM

    from plugins.htr.charset import BLANK, CHARSET, decode
    from plugins.htr.script import label_scripts

    scripts = np.array(label_scripts())
    options = LexiconFreeDecoderOptions(
        beam_size=BEAM_WIDTH,
        beam_size_token=TOP_K,
        beam_threshold=12.0,
        lm_weight=0.0,
        sil_score=0.0,
        log_add=True,
        criterion_type=CriterionType.CTC,
    )
    decoder = LexiconFreeDecoder(options, ZeroLM(), CHARSET.index(" ") + 1, BLANK, [])
    alphabets = sorted(set(scripts.tolist()) - {0})

    def run(lp: np.ndarray) -> list[str]:
        best: dict[str, float] = {}
        for alphabet in alphabets:
            em = np.array(lp, dtype=np.float32)
            em[:, (scripts != 0) & (scripts != alphabet)] = -1e4
            for r in decoder.decode(em.ctypes.data, em.shape[0], em.shape[1]):
                ids, prev = [], None
                for t in r.tokens:
                    if t != prev and t not in (BLANK, -1):
                        ids.append(t)
                    prev = t
                text, score = decode(ids), float(r.score)
                best[text] = float(np.logaddexp(best[text], score)) if text in best else score
        return [t for t, _ in sorted(best.items(), key=lambda kv: -kv[1])]

    return run


def flashlight_lexicon(beam: int) -> tuple[Any, float]:
    """A ``LexiconDecoder`` whose shortlists come from flashlight's lexicon search; its set-up CPU-seconds."""
    from flashlight.lib.text.decoder import (
        CriterionType,
        LexiconDecoder,
        LexiconDecoderOptions,
        SmearingMode,
        Trie,
        ZeroLM,
    )

    from plugins.htr import lexdecode
    from plugins.htr.charset import BLANK, CHARSET, NUM_CLASSES, encode

    start = time.process_time()
    ours = lexdecode.LexiconDecoder()
    space = CHARSET.index(" ") + 1
    signs = ours.script_signs()
    searches = []
    for sign in (1.0, -1.0):
        trie = Trie(NUM_CLASSES, space)
        for i in np.flatnonzero(signs == sign):
            word, prior = ours.words[i], ours.weight * float(ours.zipf[i]) / 8.0
            for cased in dict.fromkeys((word, word[:1].upper() + word[1:], word.upper())):
                trie.insert(encode(cased), int(i), prior)
        trie.smear(SmearingMode.MAX)
        options = LexiconDecoderOptions(
            beam_size=beam,
            beam_size_token=max(TOP_K, beam // 8),
            beam_threshold=max(25.0, beam / 2.5),
            lm_weight=0.0,
            word_score=-10.0,  # one word a crop: a second word costs
            unk_score=float("-inf"),
            sil_score=-10.0,
            log_add=True,
            criterion_type=CriterionType.CTC,
        )
        searches.append((trie, LexiconDecoder(options, trie, ZeroLM(), space, BLANK, -1, [], False)))

    class Flashlight(lexdecode.LexiconDecoder):
        def __init__(self) -> None:
            self.__dict__.update(ours.__dict__)
            self._row: np.ndarray | None = None

        def _decode_words(self, lp: np.ndarray, free: Sequence[Sequence[str]]) -> list:  # type: ignore[override]
            out = []
            for row, readings in zip(lp, free, strict=True):
                self._row = row
                out += super()._decode_words(row[None], [readings])
            return out

        def candidates(self, queries: Sequence[str]) -> np.ndarray:
            assert self._row is not None
            em = np.ascontiguousarray(self._row, dtype=np.float32)
            ids: list[int] = []
            for _, search in searches:
                for r in search.decode(em.ctypes.data, em.shape[0], em.shape[1])[:beam]:
                    ids += [w for w in r.words if w >= 0]
            return np.array(list(dict.fromkeys(ids)), dtype=np.int64)

    return Flashlight(), time.process_time() - start


def decode_set(outputs: Path, decoder: Any, free: Callable[[np.ndarray], list[str]] | None) -> tuple[dict, float]:
    from plugins.htr import task

    data = np.load(outputs, allow_pickle=False)
    keys = json.loads(str(data["keys"]))
    original = task._free_readings
    if free is not None:
        task._free_readings = free  # type: ignore[assignment]
    try:
        cpu, texts = time.process_time(), []
        for b in range(int(data["batches"])):
            owner = tuple(int(i) for i in data[f"owner_{b}"])
            texts += task.pick_readings(
                data[f"log_probs_{b}"], data[f"upright_{b}"], owner, int(data[f"n_{b}"]), decoder
            )
        cpu = time.process_time() - cpu
    finally:
        task._free_readings = original  # type: ignore[assignment]
    return dict(zip(keys, texts, strict=True)), cpu


def main(argv: Sequence[str] | None = None) -> int:
    import torch

    from plugins.htr.lexdecode import shared_decoder
    from plugins.htr.train.dhsd import fold

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", type=Path, nargs="+", help="folders in the challenge layout")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="bench.htr_decode's head-output cache")
    parser.add_argument("--lexicon-beams", default="16,64,256")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    decoders: dict[str, tuple[Any, Callable[[np.ndarray], list[str]] | None]] = {
        "ours": (shared_decoder(), None),
        "flashlight beam per alphabet + our lexicon": (shared_decoder(), flashlight_free()),
    }
    for beam in (int(b) for b in args.lexicon_beams.split(",") if b):
        decoder, setup = flashlight_lexicon(beam)
        print(f"flashlight lexicon search, beam {beam}: tries built in {setup:.2f} CPU-s")
        decoders[f"flashlight lexicon search (beam {beam}) + our scoring"] = (decoder, None)
    results: dict[str, dict[str, dict[str, float]]] = {}
    for set_dir in args.sets:
        gold = json.loads((set_dir / "true" / "HTR" / "true_HTR.json").read_text(encoding="utf-8"))
        outputs = cached_outputs(set_dir, None, args.cache)
        is_dhsd = (set_dir.parent / "dhsd.json").exists()  # a form of bench.htr_dhsd's set
        print(f"{set_dir} ({len(gold)} crops)")
        for name, (decoder, free) in decoders.items():
            preds, cpu = decode_set(outputs, decoder, free)
            if is_dhsd:
                preds = {k: fold(v) for k, v in preds.items()}
            score = accuracy_cer(gold, preds)
            results.setdefault(str(set_dir), {})[name] = {
                "accuracy": score["accuracy"],
                "cer": score["cer"],
                "cpu_s": cpu,
            }
            print(f"  {name:<52} accuracy {score['accuracy']:.4f}  CER {score['cer']:.4f}  {cpu:6.2f} CPU-s")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
