"""``core.backends._same_padding``: timm's "same"-padded convolutions as plain ones, same outputs.

Seeded random convolutions and a seeded random timm ``tf_`` model built locally (nothing is
downloaded); outputs are compared with a float tolerance.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")

from timm.layers import Conv2dSame  # noqa: E402

from core.backends._same_padding import SamePadConv, fold_same_padding, foldable  # noqa: E402

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


def test_convolutions_without_a_plain_form_are_left_alone() -> None:
    net = torch.nn.Sequential(
        Conv2dSame(3, 4, 3, 2),
        Conv2dSame(4, 4, 3, 2, dilation=2),  # dilated
        Conv2dSame(4, 4, 4, 2),  # even kernel
        Conv2dSame(4, 4, 3, 3),  # stride 3
    ).eval()
    assert [foldable(m) for m in net] == [True, False, False, False]
    x = torch.randn(1, 3, 37, 50)
    with torch.inference_mode():
        want = net(x)
    assert fold_same_padding(net) == 1
    assert isinstance(net[0], SamePadConv) and all(isinstance(m, Conv2dSame) for m in net[1:])
    with torch.inference_mode():
        torch.testing.assert_close(net(x), want, atol=1e-5, rtol=1e-5)
    with pytest.raises(ValueError, match="no plain-convolution form"):
        SamePadConv(net[1])


def test_a_timm_tf_model_folds_with_the_same_outputs_and_weights() -> None:
    torch.manual_seed(0)
    model = timm.create_model("tf_efficientnet_lite0", pretrained=False, num_classes=10).eval()
    model.requires_grad_(False)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    inputs = [torch.randn(2, 3, h, w, generator=torch.Generator().manual_seed(h)) for h, w in SIZES[:4]]
    with torch.inference_mode():
        want = [model.forward_features(x) for x in inputs]
    assert fold_same_padding(model) == 5  # the stem and the four stride-2 depthwise convolutions
    assert not any(isinstance(m, Conv2dSame) for m in model.modules())
    after = model.state_dict()
    assert after.keys() == before.keys()  # the same weights, under the same names: nothing is counted twice
    assert all(torch.equal(after[k], v) for k, v in before.items())
    model = model.to(memory_format=torch.channels_last)
    with torch.inference_mode():
        for x, w in zip(inputs, want, strict=True):
            torch.testing.assert_close(model.forward_features(x), w, atol=1e-4, rtol=1e-4)
