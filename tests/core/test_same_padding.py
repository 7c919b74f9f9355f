"""``core.backends._same_padding``: timm's "same"-padded convolutions as plain ones, same outputs.

Seeded random convolutions (nothing is downloaded); outputs are compared with a float tolerance.
The whole default tower, built with them, is checked against timm's in ``test_tower.py``.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")

from timm.layers import Conv2dSame  # noqa: E402

from core.backends._same_padding import SamePadConv, foldable  # noqa: E402

SIZES = [(64, 256), (65, 97), (64, 97), (33, 32), (7, 8), (1, 2), (224, 224)]


def _conv(cin: int, cout: int, kernel: int, stride: int, groups: int, bias: bool, seed: int) -> Conv2dSame:
    torch.manual_seed(seed)
    conv = Conv2dSame(cin, cout, kernel, stride, groups=groups, bias=bias).eval()
    return conv


@pytest.mark.parametrize(
    ("cin", "cout", "kernel", "stride", "groups", "bias"),
    [
        (3, 8, 3, 2, 1, False),  # a stem
        (6, 6, 3, 2, 6, True),  # depthwise 3x3
        (6, 6, 5, 2, 6, False),  # depthwise 5x5
        (4, 6, 5, 1, 2, True),  # stride 1: symmetric padding at every size
        (4, 4, 1, 2, 1, True),  # 1x1 stride 2: no padding at all
    ],
)
def test_plain_convolution_equals_conv2d_same_at_odd_and_even_sizes(
    cin: int, cout: int, kernel: int, stride: int, groups: int, bias: bool
) -> None:
    conv = _conv(cin, cout, kernel, stride, groups, bias, seed=kernel * 10 + stride)
    plain = SamePadConv(conv)
    for i, (h, w) in enumerate(SIZES):
        x = torch.randn(2, cin, h, w, generator=torch.Generator().manual_seed(i))
        with torch.inference_mode():
            want = conv(x)
            got = plain(x)
            got_cl = plain(x.contiguous(memory_format=torch.channels_last))
        assert got.shape == want.shape, (h, w)
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(got_cl, want, atol=1e-5, rtol=1e-5)


def test_convolutions_without_a_plain_form_are_refused() -> None:
    convs = [
        Conv2dSame(3, 4, 3, 2),
        Conv2dSame(4, 4, 3, 2, dilation=2),  # dilated
        Conv2dSame(4, 4, 4, 2),  # even kernel
        Conv2dSame(4, 4, 3, 3),  # stride 3
    ]
    assert [foldable(m) for m in convs] == [True, False, False, False]
    for conv in convs[1:]:
        with pytest.raises(ValueError, match="no plain-convolution form"):
            SamePadConv(conv)
