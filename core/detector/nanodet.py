"""NanoDet-g (RangiLyu/nanodet, Apache-2.0) as a plain torch module, and its upstream recipe.

The network is upstream's ``nanodet-g.yml`` with BatchNorm folded into each convolution
(as the shipped weights come): a CustomCspNet backbone (LeakyReLU 0.1), a PAN neck of
1x1 lateral convolutions joined by bilinear up- and down-sampling, and a GFL head that
gives, per level (strides 8, 16, 32), sigmoid class scores ``[N, 80]`` and a distribution
over 11 bins for each of the four sides of a box.

The recipe (upstream ``nanodet/data/transform`` and ``gfl_head.get_bboxes``):

* input: BGR, minus mean (103.53, 116.28, 123.675), over std (57.375, 57.12, 58.395),
  letterboxed into a square keeping the aspect ratio, centred, black around;
* decode: softmax over the bins, expected bin x stride, measured from the cell centre;
  scores >= 0.05, the best 1,000 candidates a level, NMS per class at IoU 0.6, at most
  100 boxes.

``NanoDet`` loads the weights (``core/detector/weights/``) into the module and runs the recipe:
the ``nanodet`` detector core registers (``core.default_plugins.detectors``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from core.detector import (
    DEFAULT,
    WEIGHTS_DIR,
    Detections,
    DetectorConfig,
    DetectorError,
    check_input_size,
    coco_classes,
    rgb_array,
)

if TYPE_CHECKING:
    from PIL import Image

MEAN_BGR = (103.53, 116.28, 123.675)
STD_BGR = (57.375, 57.12, 58.395)
STRIDES = (8, 16, 32)
REG_MAX = 10  # 11 bins a side
NUM_CLASSES = 80
INPUT_SIZE = 416  # the letterboxed side it was trained at

# Upstream nanodet-g.yml: ("Conv", in, out, kernel, stride), ("MaxPool", kernel, stride),
# ("CspBlock", channels, residual blocks, kernel, stride). Stages 3, 4 and 5 feed the neck.
BACKBONE = (
    ("Conv", 3, 32, 3, 2),
    ("MaxPool", 3, 2),
    ("CspBlock", 32, 1, 3, 1),
    ("CspBlock", 64, 2, 3, 2),
    ("CspBlock", 128, 2, 3, 2),
    ("CspBlock", 256, 3, 3, 2),
)
OUT_STAGES = (3, 4, 5)
NECK_IN = (128, 256, 512)
WIDTH = 128  # neck and head channels


class ConvAct(nn.Sequential):
    """A convolution (BatchNorm folded in) and LeakyReLU(0.1), as upstream's ConvModule."""

    def __init__(self, cin: int, cout: int, kernel: int, stride: int = 1) -> None:
        super().__init__(
            nn.Conv2d(cin, cout, kernel, stride, padding=(kernel - 1) // 2),
            nn.LeakyReLU(0.1, inplace=True),
        )


class TinyResBlock(nn.Module):
    def __init__(self, channels: int, kernel: int) -> None:
        super().__init__()
        self.in_conv = ConvAct(channels, channels // 2, kernel)
        self.mid_conv = ConvAct(channels // 2, channels // 2, kernel)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.in_conv(x)
        return torch.cat((self.mid_conv(x), x), dim=1)


class CspBlock(nn.Module):
    def __init__(self, channels: int, blocks: int, kernel: int, stride: int) -> None:
        super().__init__()
        self.in_conv = ConvAct(channels, channels, kernel, stride)
        self.res_blocks = nn.Sequential(*(TinyResBlock(channels, kernel) for _ in range(blocks)))
        self.res_out_conv = ConvAct(channels, channels, kernel)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.in_conv(x)
        return torch.cat((self.res_out_conv(self.res_blocks(x)), x), dim=1)


def _stage(cfg: tuple) -> nn.Module:
    kind, *args = cfg
    if kind == "Conv":
        return ConvAct(*args)
    if kind == "MaxPool":
        kernel, stride = args
        return nn.MaxPool2d(kernel, stride, padding=(kernel - 1) // 2)
    return CspBlock(*args)


class HeadOutput(NamedTuple):
    """The network's raw output, levels concatenated (stride 8 first), anchors row-major."""

    scores: torch.Tensor  # [B, A, 80] sigmoid class scores
    distances: torch.Tensor  # [B, A, 44] logits: 4 sides (left, top, right, bottom) x 11 bins


class NanoDetG(nn.Module):
    """NanoDet-g: any input whose sides are multiples of 32 (416 x 416 as trained)."""

    def __init__(self) -> None:
        super().__init__()
        self.stages = nn.ModuleList(_stage(cfg) for cfg in BACKBONE)
        self.lateral_convs = nn.ModuleList(nn.Conv2d(c, WIDTH, 1) for c in NECK_IN)
        self.cls_convs = nn.ModuleList(ConvAct(WIDTH, WIDTH, 3) for _ in STRIDES)
        self.gfl_cls = nn.ModuleList(nn.Conv2d(WIDTH, NUM_CLASSES + 4 * (REG_MAX + 1), 1) for _ in STRIDES)

    def forward(self, x: torch.Tensor) -> HeadOutput:
        feats = []
        for i, stage in enumerate(self.stages):
            x = stage(x)
            if i in OUT_STAGES:
                feats.append(x)
        # PAN: top-down by bilinear x2, then bottom-up by bilinear x0.5.
        lat = [conv(f) for conv, f in zip(self.lateral_convs, feats, strict=True)]
        for i in range(len(lat) - 1, 0, -1):
            lat[i - 1] = lat[i - 1] + F.interpolate(lat[i], scale_factor=2.0, mode="bilinear")
        for i in range(len(lat) - 1):
            lat[i + 1] = lat[i + 1] + F.interpolate(lat[i], scale_factor=0.5, mode="bilinear")
        scores, dists = [], []
        for feat, conv, out in zip(lat, self.cls_convs, self.gfl_cls, strict=True):
            y = out(conv(feat)).flatten(2).transpose(1, 2)  # [B, HW, 124]
            scores.append(y[..., :NUM_CLASSES].sigmoid())
            dists.append(y[..., NUM_CLASSES:])
        return HeadOutput(torch.cat(scores, 1), torch.cat(dists, 1))


@dataclass(frozen=True, slots=True)
class Letterbox:
    """Where an image went in the square input: ``input = image * scale + (left, top)``."""

    scale: float
    left: int
    top: int
    width: int  # the original image's size, pixels
    height: int


def letterbox(image: np.ndarray, size: int) -> tuple[torch.Tensor, Letterbox]:
    """An RGB ``uint8 [H, W, 3]`` image as the normalised BGR ``[3, size, size]`` input."""
    h, w = image.shape[:2]
    scale = min(size / w, size / h)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    left, top = (size - nw) // 2, (size - nh) // 2
    rgb = torch.from_numpy(np.array(image, dtype=np.uint8, copy=True)).permute(2, 0, 1).unsqueeze(0).float()
    if (nh, nw) != (h, w):
        rgb = F.interpolate(rgb, size=(nh, nw), mode="bilinear", align_corners=False)
    canvas = torch.zeros(3, size, size)
    canvas[:, top : top + nh, left : left + nw] = rgb[0].flip(0)  # RGB -> BGR
    mean = torch.tensor(MEAN_BGR).view(3, 1, 1)
    std = torch.tensor(STD_BGR).view(3, 1, 1)
    return (canvas - mean) / std, Letterbox(scale, left, top, w, h)


def centers(size: int, device: torch.device) -> torch.Tensor:
    """``[A, 3]`` (x, y, stride) of every anchor point of a ``size`` x ``size`` input, levels in order."""
    out = []
    for stride in STRIDES:
        n = -(-size // stride)
        r = (torch.arange(n, dtype=torch.float32, device=device) + 0.5) * stride
        y, x = torch.meshgrid(r, r, indexing="ij")
        out.append(torch.stack([x.flatten(), y.flatten(), torch.full_like(x.flatten(), stride)], -1))
    return torch.cat(out)


def level_slices(size: int) -> list[slice]:
    """The anchors of each level in ``HeadOutput``'s concatenation."""
    out, start = [], 0
    for stride in STRIDES:
        n = (-(-size // stride)) ** 2
        out.append(slice(start, start + n))
        start += n
    return out


@dataclass(frozen=True, slots=True)
class DecodeConfig:
    score_threshold: float = 0.05
    top_k_per_level: int = 1000
    iou_threshold: float = 0.6
    max_boxes: int = 100


def decode(
    out: HeadOutput, boxes_in: Sequence[Letterbox], size: int, cfg: DecodeConfig = DecodeConfig()
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Boxes (xyxy, original image pixels), scores and class indices per image, best first."""
    from core.vision_ops import batched_nms

    pts = centers(size, out.scores.device)
    bins = torch.arange(REG_MAX + 1, dtype=torch.float32, device=out.scores.device)
    # The expected bin of every side, for the whole batch in one softmax (per image it is the same
    # arithmetic, several times slower on the CPU): [B, A, 4] in strides.
    expected = out.distances.float().reshape(len(out.distances), -1, 4, REG_MAX + 1).softmax(-1) @ bins
    results = []
    for b, lb in enumerate(boxes_in):
        dist = expected[b] * pts[:, 2:3]
        xy = pts[:, :2]
        boxes = torch.cat([xy - dist[:, :2], xy + dist[:, 2:]], -1).clamp(0, size)
        cand_boxes, cand_scores, cand_labels = [], [], []
        for sl in level_slices(size):
            scores = out.scores[b, sl].float()
            best = scores.max(1).values
            keep = best.topk(min(cfg.top_k_per_level, best.numel())).indices
            s = scores[keep]
            anchor, label = (s >= cfg.score_threshold).nonzero(as_tuple=True)
            cand_boxes.append(boxes[sl][keep][anchor])
            cand_scores.append(s[anchor, label])
            cand_labels.append(label)
        bx, sc, lab = torch.cat(cand_boxes), torch.cat(cand_scores), torch.cat(cand_labels)
        keep = batched_nms(bx, sc, lab, cfg.iou_threshold)[: cfg.max_boxes]
        bx, sc, lab = bx[keep], sc[keep], lab[keep]
        # Back to the original image: undo the offset and the scale, clip to the image.
        bx = (bx - torch.tensor([lb.left, lb.top, lb.left, lb.top], dtype=bx.dtype, device=bx.device)) / lb.scale
        bx[:, 0::2] = bx[:, 0::2].clamp(0, lb.width)
        bx[:, 1::2] = bx[:, 1::2].clamp(0, lb.height)
        found = (bx.cpu().numpy(), sc.cpu().numpy(), lab.cpu().numpy())
        results.append((found[0].astype(np.float32), found[1].astype(np.float32), found[2].astype(np.int64)))
    return results


class NanoDet:
    """NanoDet-g with its upstream pre- and post-processing: the ``nanodet`` detector
    (``core.default_plugins.detectors``)."""

    thread_safe = True  # ``detect`` keeps nothing between calls: batches may call it at once

    def __init__(self, config: DetectorConfig) -> None:
        from core import weights
        from core.devices import resolve_device

        name = config.weights or DEFAULT
        path, card_path = WEIGHTS_DIR / f"{name}.safetensors", WEIGHTS_DIR / f"{name}.json"
        if not path.is_file() and not card_path.is_file():
            raise DetectorError(f"no detector weights {path}: see detector_import/ to make them")
        self.config = config
        self.device = resolve_device(config.device)
        net = NanoDetG()
        # Checked against its card (core.weights): a missing, damaged or unfitting file names itself.
        tensors, _ = weights.load_safetensors(path, weights.read_card(card_path, weights=path), card_path=card_path)
        weights.fit_state(net, {k: v.float() for k, v in tensors.items()}, path, card_path)
        net.eval().requires_grad_(False)
        # Channels-last on the CPU: oneDNN's convolutions and the stem's max-pool run about 1.6x
        # faster (scores equal to 1e-5; ``self._layout`` is what inputs are made in).
        self._layout = torch.channels_last if self.device.type == "cpu" else torch.contiguous_format
        self._net = net.to(self.device).to(memory_format=self._layout)
        self._torch = torch
        self.classes = coco_classes()

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self._net.parameters())

    def detect(self, images: Sequence[np.ndarray | Image.Image], *, input_size: int | None = None) -> list[Detections]:
        size, out = check_input_size(input_size or self.config.input_size or INPUT_SIZE), list[Detections]()
        for start in range(0, len(images), self.config.batch_size):
            chunk = [rgb_array(image) for image in images[start : start + self.config.batch_size]]
            inputs, boxes = zip(*(letterbox(image, size) for image in chunk), strict=True) if chunk else ((), ())
            with self._torch.inference_mode():
                pixels = self._torch.stack(inputs).to(self.device).contiguous(memory_format=self._layout)
                with self._torch.autocast(self.device.type, dtype=self._torch.bfloat16, enabled=self.config.bf16):
                    raw = self._net(pixels)
                out.extend(Detections(*found) for found in decode(raw, boxes, size))
        return out
