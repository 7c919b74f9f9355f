"""TensorFlow "same" padding without the padded copy of every input.

timm builds the ``tf_*`` towers (the default trunk's EfficientNet-Lite) with ``Conv2dSame``:
for each stride-2 convolution it works out the padding from the input's size, writes a padded
copy of the input (``F.pad``) and convolves that; the default tower (``_tower``, built without
timm) uses ``SamePadConv`` instead, and ``fold_same_padding`` swaps it into a timm-built tower
(open_clip's ``timm_model``, ``backends.openclip``). The padding depends only on whether each side
is even or odd, and with stride 2, an odd kernel ``k`` and no dilation it is always expressible
as a plain convolution with symmetric padding ``(k - 1) // 2``:

* an odd side needs ``(k - 1) / 2`` on both ends: the plain convolution as it is;
* an even side needs one pixel less before than after it: the same convolution with a kernel
  one tap longer on that side whose first tap is zero reads exactly the same pixels (a 1-wide
  kernel needs no padding at all).

``SamePadConv`` keeps the convolution's own weights (``weight``, ``bias``: the parameters
counted as the trunk's) and the four kernels of ``even height x even width`` in non-persistent
buffers, made once at load. Outputs equal ``Conv2dSame``'s up to the order of the float sums.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["SamePadConv", "fold_same_padding", "foldable"]


def foldable(conv: nn.Conv2d) -> bool:
    """True when ``conv``'s "same" padding has a plain form (stride 1 or 2, odd kernel, no dilation)."""
    return (
        all(s in (1, 2) for s in conv.stride)
        and all(k % 2 == 1 for k in conv.kernel_size)
        and tuple(conv.dilation) == (1, 1)
        and conv.padding_mode == "zeros"
    )


class SamePadConv(nn.Module):
    """A frozen ``Conv2dSame`` (stride 1 or 2, odd kernel) as a plain convolution: no padded copy."""

    def __init__(self, conv: nn.Conv2d) -> None:
        super().__init__()
        if not foldable(conv):
            raise ValueError(f"{conv} has no plain-convolution form (needs stride 1 or 2, odd kernel, no dilation)")
        self.weight = nn.Parameter(conv.weight.detach(), requires_grad=False)
        self.bias = None if conv.bias is None else nn.Parameter(conv.bias.detach(), requires_grad=False)
        self.stride = tuple(conv.stride)
        self.groups = conv.groups
        self.padding = tuple((k - 1) // 2 for k in conv.kernel_size)
        # A side gets the leading zero tap when the stride is 2, the input side even and the kernel
        # wider than 1 (a 1-wide kernel needs no padding at stride 2).
        kh, kw = conv.kernel_size
        for even_h in (False, True):
            for even_w in (False, True):
                grow_h = int(even_h and self.stride[0] == 2 and kh > 1)
                grow_w = int(even_w and self.stride[1] == 2 and kw > 1)
                kernel = F.pad(self.weight.detach(), (grow_w, 0, grow_h, 0))
                self.register_buffer(_kernel_name(even_h, even_w), kernel, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, w = x.shape[-2:]
        kernel = getattr(self, _kernel_name(h % 2 == 0, w % 2 == 0))
        return F.conv2d(x, kernel, self.bias, self.stride, self.padding, 1, self.groups)

    def extra_repr(self) -> str:
        o, i = self.weight.shape[:2]
        return f"{i * self.groups}, {o}, kernel_size={tuple(self.weight.shape[-2:])}, stride={self.stride}, same"


def _kernel_name(even_h: bool, even_w: bool) -> str:
    return f"kernel_{'e' if even_h else 'o'}{'e' if even_w else 'o'}"


@torch.no_grad()
def fold_same_padding(module: nn.Module) -> int:
    """Replace every timm ``Conv2dSame`` under ``module`` that has a plain form by a ``SamePadConv``
    (in place; ``module`` is frozen inference code). Returns how many were replaced."""
    try:
        from timm.layers import Conv2dSame
    except ImportError:  # no timm: nothing of it to replace
        return 0
    replaced = 0
    for parent in list(module.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, Conv2dSame) and foldable(child):
                setattr(parent, name, SamePadConv(child))
                replaced += 1
    return replaced
