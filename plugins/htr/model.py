"""The CTC head that reads a word from the frozen trunk's stride-8 and stride-16 maps."""

from __future__ import annotations

from typing import NamedTuple, cast

import torch
from torch import nn


class HeadOutput(NamedTuple):
    log_probs: torch.Tensor  # [B, T, num_classes] log-softmax over the charset + blank (id 0)
    upright: torch.Tensor  # [B] logit: the word is upright (not sideways)


class HtrHead(nn.Module):
    """Fuse two trunk scales, fold the height into channels, read left to right with a BiLSTM.

    The stride-16 map is upsampled onto the stride-8 grid so every CTC frame
    (8 input pixels wide) sees fine strokes and wider letter context. Folding
    the rows into channels (rather than pooling them) keeps where in the line a
    stroke sits: ascenders and descenders tell "b", "p" and "o" apart. Sized to
    train on two shared CPU cores: about 16 M multiply-adds per word.
    """

    def __init__(
        self,
        c8: int,
        c16: int,
        num_classes: int,
        rows: int = 8,
        width: int = 96,
        hidden: int = 96,
        blocks: int = 1,
        frames: int = 1,
    ) -> None:
        super().__init__()
        self.config = {"c8": c8, "c16": c16, "num_classes": num_classes, "rows": rows, "width": width, "hidden": hidden}
        if blocks != 1:  # heads saved before ``blocks`` existed have one context block
            self.config["blocks"] = blocks
        # CTC frames per stride-8 column: 2 reads a 64 x 256 crop in 64 frames (the sequence linearly
        # resampled before the context and the BiLSTM), room for long words squeezed into the crop.
        # No new weights: a 1-frame head warm-starts a 2-frame one.
        self.frames = frames
        if frames != 1:
            self.config["frames"] = frames
        self.norm8 = nn.BatchNorm2d(c8, affine=False)
        self.norm16 = nn.BatchNorm2d(c16, affine=False)
        self.mix = nn.Sequential(
            nn.Conv2d(c8 + c16, width, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True)
        )
        self.fold = nn.Sequential(nn.Linear(width * rows, 2 * hidden), nn.LayerNorm(2 * hidden), nn.ReLU(inplace=True))
        self.context = nn.Sequential(
            nn.Conv1d(2 * hidden, 2 * hidden, 3, padding=1, bias=False),
            nn.BatchNorm1d(2 * hidden),
            nn.ReLU(inplace=True),
        )
        # More residual context blocks (capacity); each starts as the identity (zero BatchNorm scale),
        # so a head grown from a trained one reads exactly as before until training moves them.
        self.more = nn.ModuleList(
            nn.Sequential(
                nn.Conv1d(2 * hidden, 2 * hidden, 5, padding=2, groups=4, bias=False),
                nn.BatchNorm1d(2 * hidden),
                nn.ReLU(inplace=True),
                nn.Conv1d(2 * hidden, 2 * hidden, 1, bias=False),
                nn.BatchNorm1d(2 * hidden),
            )
            for _ in range(blocks - 1)
        )
        for block in self.more:
            nn.init.zeros_(cast(nn.BatchNorm1d, cast(nn.Sequential, block)[-1]).weight)
        self.rnn = nn.LSTM(2 * hidden, hidden, num_layers=1, bidirectional=True, batch_first=True)
        self.dropout = nn.Dropout(0.15)
        self.classifier = nn.Linear(2 * hidden, num_classes)
        self.upright = nn.Linear(2 * hidden, 1)

    def forward(self, s8: torch.Tensor, s16: torch.Tensor) -> HeadOutput:
        """``s8`` ``[B, c8, H/8, W/8]``, ``s16`` ``[B, c16, H/16, W/16]`` -> per-frame log-probs."""
        up = nn.functional.interpolate(self.norm16(s16.float()), size=s8.shape[-2:], mode="nearest")
        x = self.mix(torch.cat([self.norm8(s8.float()), up], dim=1))  # [B, width, rows, T]
        b, c, h, t = x.shape
        seq = self.fold(x.permute(0, 3, 1, 2).reshape(b, t, c * h))  # [B, T, 2 * hidden]
        if self.frames != 1:
            seq = nn.functional.interpolate(
                seq.transpose(1, 2), scale_factor=self.frames, mode="linear", align_corners=False
            ).transpose(1, 2)
        seq = seq + self.context(seq.transpose(1, 2)).transpose(1, 2)
        for block in self.more:
            seq = seq + block(seq.transpose(1, 2)).transpose(1, 2)
        seq, _ = self.rnn(seq)
        seq = self.dropout(seq)
        log_probs = torch.log_softmax(self.classifier(seq), dim=-1)
        upright = self.upright(seq.mean(dim=1)).squeeze(-1)
        return HeadOutput(log_probs, upright)
