"""The learned part of C2C: a style selector over the trunk's text tower.

The AVATAR references disagree on style (parentheses around conditions,
trailing ``;``, ``//`` vs ``int ( a / b )``, ...); each choice is a switch of
``translate.Style``. For every switch the translator makes a candidate with the
switch flipped. The frozen text tower encodes

* the Java source, statement by statement (USE is a sentence encoder: short
  pieces suit it better than a whole program, which it truncates at 256 pieces),
  mean-pooled into ``J``;
* for each candidate (the default and one per flipped switch), its distinctive
  lines: the Python lines not every candidate shares, mean-pooled into ``E_k``.

A small MLP scores ``[J, E_k, J * E_k]`` for every candidate k; the best one
is kept if it leads the default by ``MARGIN``. Which style a candidate has is
not an input: the head sees the candidates only through the text tower, so
with the trunk ablated it picks blindly, which is what the ablation measures.

Measured limits (train CV and dev): the head learns the references' majority
style but finds no per-program signal in the Java text for the authors' style
choices, so it does not beat the hand-set default style (see the report).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from plugins.c2c.translate import DEFAULT_STYLE, Style, translate

if TYPE_CHECKING:
    import torch

    from core.trunk import Trunk

log = logging.getLogger(__name__)

SWITCHES: tuple[str, ...] = ("cond_parens", "semicolons", "int_cast_div", "range_zero", "expand_incr", "comp_array")
MAX_JAVA_PIECES = 6  # statements of the Java source fed to the text tower (evenly spaced)
MAX_DIFF_LINES = 2  # distinctive lines per candidate fed to the text tower
HIDDEN = 64
WEIGHTS_NAME = "selector.safetensors"  # the head and its card, in the shipped weights/ or a heads folder
CARD_NAME = "selector.json"
# Leave the translator's default only when the head's score (a log-odds) for another
# candidate is ahead by this much. Held-out train pairs, sentence BLEU against the
# default: margin 0 -0.002, 0.5 -0.0004 (1 % non-default picks), 1.0 +0 (never leaves it).
MARGIN = 0.5
_SEPARATORS = frozenset(";{}")


@dataclass(frozen=True, slots=True)
class Candidates:
    """What the selector needs for one program; no tensors, so it crosses stage boundaries."""

    java_pieces: tuple[str, ...]  # Java statements for the text tower
    styles: tuple[Style, ...]  # candidate k's style; k = 0 is the default style
    texts: tuple[str, ...]  # candidate k's translation ("" when identical to the default)
    lines: tuple[tuple[str, ...], ...]  # candidate k's distinctive Python lines (not shared by all)

    @property
    def default(self) -> str:
        return self.texts[0]


def java_pieces(java: str, limit: int = MAX_JAVA_PIECES) -> list[str]:
    """Split Java tokens into statements (at `;`, `{`, `}`), evenly subsampled to ``limit``."""
    pieces: list[str] = []
    current: list[str] = []
    for tok in java.split():
        if tok in _SEPARATORS:
            if current:
                pieces.append(" ".join(current))
            current = []
        else:
            current.append(tok)
    if current:
        pieces.append(" ".join(current))
    if len(pieces) > limit:
        step = len(pieces) / limit
        pieces = [pieces[int(i * step)] for i in range(limit)]
    return pieces or [java.strip() or "empty"]


def python_lines(tokens: str) -> list[str]:
    """AVATAR tokens -> logical lines without the layout tokens."""
    lines = []
    for line in tokens.split(" NEW_LINE "):
        words = [t for t in line.split() if t not in ("INDENT", "DEDENT", "NEW_LINE")]
        if words:
            lines.append(" ".join(words))
    return lines


def make_candidates(java: str, base: Style = DEFAULT_STYLE) -> Candidates:
    """Translate ``java`` with the default style and with each switch flipped.

    A candidate is described to the text tower by its distinctive lines: the
    Python lines that not every candidate has, rarest first, so the default is
    described by the lines the flips change. Candidates identical to the default get "".
    """
    default = translate(java, base)
    styles, texts = [base], [default]
    for name in SWITCHES:
        style = replace(base, **{name: not getattr(base, name)})
        text = translate(java, style)
        styles.append(style)
        texts.append(text if text != default else "")
    line_sets = [set(python_lines(t)) for t in texts if t]
    counts = Counter(x for ls in line_sets for x in ls)
    lines = []
    for text in texts:
        own = [x for x in dict.fromkeys(python_lines(text)) if counts[x] < len(line_sets)] if text else []
        own.sort(key=lambda x: counts[x])  # rarest first: what sets this candidate apart
        lines.append(tuple(own[:MAX_DIFF_LINES]))
    return Candidates(tuple(java_pieces(java)), tuple(styles), tuple(texts), tuple(lines))


def all_texts(cands: Sequence[Candidates]) -> list[str]:
    """Every distinct text the tower must encode for ``cands``, in a stable order."""
    seen: dict[str, None] = {}
    for c in cands:
        for t in c.java_pieces:
            seen.setdefault(t, None)
        for group in c.lines:
            for t in group:
                seen.setdefault(t, None)
    return list(seen)


def encode_texts(texts: Sequence[str], trunk: Trunk, batch: int = 64) -> torch.Tensor:
    """Pooled, unit-norm text-tower embeddings ``[N, D]``; batches grouped by length to limit padding."""
    import torch

    out = torch.zeros(len(texts), trunk.embed_dim)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), batch):
        idx = order[start : start + batch]
        emb = trunk.encode_texts(trunk.tokenize([texts[i] for i in idx]))
        out[idx] = emb.float()
    return out


def features(
    cands: Sequence[Candidates], table: Mapping[str, torch.Tensor], dim: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """``[B, K, 3D]`` head inputs (``[J, E_k, J * E_k]``) and a ``[B, K]`` mask of real candidates."""
    import torch

    def mean(group: Sequence[str]) -> torch.Tensor:
        if not group:
            return torch.zeros(dim)
        return torch.stack([table[t] for t in group]).mean(0)

    xs, masks = [], []
    for c in cands:
        j = mean(c.java_pieces)
        rows = []
        for group in c.lines:
            e = mean(group)
            rows.append(torch.cat([j, e, j * e]))
        xs.append(torch.stack(rows))
        valid = [bool(t) for t in c.texts]
        if sum(valid) < 2:  # nothing to choose: only the default
            valid = [True] + [False] * (len(valid) - 1)
        masks.append(valid)
    return torch.stack(xs), torch.tensor(masks, dtype=torch.bool)


def build_head(dim: int, hidden: int = HIDDEN) -> torch.nn.Module:
    """The selector head: ``[J, E_k, J * E_k]`` -> candidate k's score."""
    from torch import nn

    return nn.Sequential(nn.LayerNorm(3 * dim), nn.Linear(3 * dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))


def choose(scores: torch.Tensor, mask: torch.Tensor, margin: float = MARGIN) -> list[int]:
    """Per program, the best-scoring real candidate if it beats the default (k = 0) by ``margin``, else 0."""
    import torch

    masked = scores.masked_fill(~mask, float("-inf"))
    best = masked.argmax(-1)
    lead = masked.gather(-1, best[:, None]).squeeze(-1) - masked[:, 0]
    return torch.where(lead > margin, best, torch.zeros_like(best)).tolist()
