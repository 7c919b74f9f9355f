"""``core.vision_ops``: torchvision's box kernels without its Python package, the same outputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from core import vision_ops

tv_ops = pytest.importorskip("torchvision.ops")
REPO = Path(__file__).resolve().parents[2]


def _boxes(n: int, side: float, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * side
    wh = torch.rand(n, 2, generator=g) * side / 3 + 1
    return torch.cat([xy, xy + wh], 1)


def test_roi_align_is_torchvisions() -> None:
    features = torch.randn(1, 8, 13, 21, generator=torch.Generator().manual_seed(0))
    rois = torch.cat([torch.zeros(40, 1), _boxes(40, 300, 1)], 1)
    for size, scale, aligned in (((2, 2), 1 / 32, True), ((7, 5), 1 / 16, False)):
        got = vision_ops.roi_align(features, rois, size, spatial_scale=scale, sampling_ratio=2, aligned=aligned)
        want = tv_ops.roi_align(features, rois, size, spatial_scale=scale, sampling_ratio=2, aligned=aligned)
        assert torch.equal(got, want)
    with pytest.raises(ValueError, match=r"\[K, 5\]"):
        vision_ops.roi_align(features, rois[:, 1:], (2, 2), spatial_scale=1.0, sampling_ratio=2, aligned=True)


@pytest.mark.parametrize("n", [0, 1, 300, 1500])  # 1500 boxes: above 4000 coordinates, class by class
def test_batched_nms_is_torchvisions(n: int) -> None:
    boxes = _boxes(n, 400, n)
    g = torch.Generator().manual_seed(n + 1)
    scores, idxs = torch.rand(n, generator=g), torch.randint(0, 5, (n,), generator=g)
    got = vision_ops.batched_nms(boxes, scores, idxs, 0.5)
    assert got.dtype == torch.int64
    assert torch.equal(got, tv_ops.batched_nms(boxes, scores, idxs, 0.5))


def test_the_kernels_load_without_importing_torchvision() -> None:
    code = (
        "import sys, torch\n"
        "from core import vision_ops\n"
        "vision_ops.roi_align(torch.ones(1, 2, 4, 4), torch.tensor([[0.0, 0, 0, 3, 3]]), (2, 2),"
        " spatial_scale=1.0, sampling_ratio=2, aligned=True)\n"
        "vision_ops.batched_nms(torch.tensor([[0.0, 0, 2, 2]]), torch.ones(1), torch.zeros(1), 0.5)\n"
        "print(vision_ops._kernels_loaded(), sorted(m for m in ('torchvision', 'torch._dynamo') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "True []"
