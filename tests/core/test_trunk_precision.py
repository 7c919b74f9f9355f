"""Opt-in bf16 on the CPU (``--precision bf16``): only where the CPU has bf16 units; fp32 stays the default."""

from __future__ import annotations

import pytest
import torch

from core import trunk as trunk_module
from core.errors import TrunkError
from core.trunk import Trunk, TrunkConfig, autocast_dtype, cpu_has_bf16

CPU = torch.device("cpu")


def test_the_cpu_takes_bf16_only_where_it_has_bf16_units() -> None:
    assert autocast_dtype(CPU, "auto") is None and autocast_dtype(CPU, "fp32") is None
    assert autocast_dtype(CPU, "bf16", bf16_supported=True) == torch.bfloat16
    with pytest.raises(TrunkError, match="needs bf16 units .*avx512_bf16.*use --precision fp32"):
        autocast_dtype(CPU, "bf16", bf16_supported=False)
    with pytest.raises(TrunkError, match="needs a CUDA device"):
        autocast_dtype(CPU, "fp16")


def test_the_bf16_probe_falls_back_to_the_kernels_cpu_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
        flags = next(line.split(":", 1)[1].split() for line in f if line.startswith("flags"))
    probed = cpu_has_bf16()
    monkeypatch.delattr(torch.cpu, "_is_avx512_bf16_supported")
    assert cpu_has_bf16() == ("avx512_bf16" in flags or "amx_bf16" in flags)
    assert isinstance(probed, bool)


@pytest.fixture(scope="module")
def bf16_trunk(default_trunk):  # type: ignore[no-untyped-def]
    if not cpu_has_bf16():
        pytest.skip("this CPU has no bf16 units")
    return Trunk(default_trunk._backend, TrunkConfig(precision="bf16"))  # noqa: SLF001 - the session's towers


def test_bf16_passes_hand_out_float32_close_to_fp32(default_trunk, bf16_trunk) -> None:  # type: ignore[no-untyped-def]
    assert default_trunk.autocast_dtype is None and bf16_trunk.autocast_dtype == torch.bfloat16
    pixels = torch.randn(2, 3, 224, 224, generator=torch.Generator().manual_seed(0))
    tokens = default_trunk.tokenize(["a red bus", "кошка на диване"])
    with torch.inference_mode():
        pairs = [
            (default_trunk.encode_images(pixels), bf16_trunk.encode_images(pixels)),
            (default_trunk.encode_texts(tokens), bf16_trunk.encode_texts(tokens)),
        ]
        maps32 = default_trunk.image_feature_maps(pixels).maps
        maps16 = bf16_trunk.image_feature_maps(pixels).maps
    for fp32, bf16 in pairs:
        assert bf16.dtype == torch.float32
        assert not torch.equal(fp32, bf16)  # the passes did run in bf16
        assert torch.nn.functional.cosine_similarity(fp32, bf16).min() > 0.98
    for m32, m16 in zip(maps32, maps16, strict=True):
        assert m16.dtype == torch.float32 and m16.shape == m32.shape
    # fp32 stays exactly what it was: the autocast ends with each pass
    with torch.inference_mode():
        assert torch.equal(default_trunk.encode_images(pixels), pairs[0][0])


def test_loading_a_bf16_trunk_on_a_cpu_without_units_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import registry

    monkeypatch.setattr(trunk_module, "cpu_has_bf16", lambda: False)
    with pytest.raises(TrunkError, match="bf16 units"):
        trunk_module.load_trunk(TrunkConfig(precision="bf16"), registry.load(load_entrypoints=False))


def test_precision_bf16_reaches_the_detector_and_every_detector_it_names() -> None:
    import argparse

    from core import cli
    from core.detector.loader import Detectors

    parser = argparse.ArgumentParser()
    cli.add_trunk_options(parser)
    assert cli.detector_config(parser.parse_args([])).bf16 is False
    assert cli.detector_config(parser.parse_args(["--precision", "fp32"])).bf16 is False
    config = cli.detector_config(parser.parse_args(["--precision", "bf16"]))
    assert config.bf16 is True
    assert Detectors(config).config_of("nanodet").bf16 is True


def test_the_detector_in_bf16_finds_what_fp32_finds() -> None:
    import importlib.util
    from pathlib import Path

    import numpy as np
    from PIL import Image

    from core.detector import DetectorConfig
    from core.detector.nanodet import NanoDet

    if not cpu_has_bf16():
        pytest.skip("this CPU has no bf16 units")
    spec = importlib.util.find_spec("ultralytics")  # its bundled photo, without importing the package
    assert spec is not None and spec.submodule_search_locations
    image = np.asarray(Image.open(Path(spec.submodule_search_locations[0]) / "assets" / "bus.jpg").convert("RGB"))
    fp32 = NanoDet(DetectorConfig()).detect([image])[0]
    bf16 = NanoDet(DetectorConfig(bf16=True)).detect([image])[0]
    assert fp32.boxes.dtype == bf16.boxes.dtype
    assert not np.array_equal(fp32.scores, bf16.scores)  # the network did run in bf16
    strong = fp32.scores > 0.5
    assert strong.sum() >= 3  # the bus and the people
    assert sorted(fp32.labels[strong].tolist()) == sorted(bf16.labels[bf16.scores > 0.5].tolist())
    np.testing.assert_allclose(bf16.boxes[: strong.sum()], fp32.boxes[: strong.sum()], atol=4.0)
