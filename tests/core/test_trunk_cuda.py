"""The CUDA trunk's forward context, checked without a GPU (the context is plain torch state).

cuDNN plans every new input shape afresh (about 27 ms of CPU a convolution on an H100), and
zsOD/VQA images come in every size: with cuDNN the GPU ran zsOD at 2.1 images/s, below 16 CPU
cores' 8.1; with torch's own kernels, 7.9 (README, GPU figures). So trunk passes on CUDA run with
cuDNN off, and leave it as they found it.
"""

from __future__ import annotations

import torch

from core.trunk import Trunk


def _bare_trunk(device: str, dtype: torch.dtype | None) -> Trunk:
    trunk = Trunk.__new__(Trunk)  # only the two attributes the context reads
    trunk.device, trunk.autocast_dtype = torch.device(device), dtype
    return trunk


def test_cuda_trunk_passes_run_without_cudnn_and_restore_it() -> None:
    before = torch.backends.cudnn.enabled
    assert before  # torch's default; the test would prove nothing otherwise
    with _bare_trunk("cuda", None)._autocast():  # fp32 on CUDA: cuDNN off as well
        assert not torch.backends.cudnn.enabled
    assert torch.backends.cudnn.enabled is before


def test_cpu_trunk_leaves_cudnn_alone() -> None:
    with _bare_trunk("cpu", None)._autocast():
        assert torch.backends.cudnn.enabled
