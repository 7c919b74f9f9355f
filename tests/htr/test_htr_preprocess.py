"""Fitting crops to the head's input and orientation candidates."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from plugins.htr.preprocess import HEIGHT, WIDTH, fit_word, orientations, to_pixels


def test_fit_keeps_aspect_and_pads_black() -> None:
    out = fit_word(Image.new("RGB", (100, 50), (255, 255, 255)))
    assert out.shape == (HEIGHT, WIDTH, 3)
    assert out[:, :128].min() == 255 and out[:, 128:].max() == 0


def test_fit_squeezes_very_wide_and_survives_one_pixel() -> None:
    assert fit_word(Image.new("RGB", (5000, 20), (9, 9, 9)))[:, -1].max() == 9
    one = fit_word(Image.new("RGB", (1, 1), (200, 10, 10)))
    assert one.shape == (HEIGHT, WIDTH, 3) and one[0, 0].tolist() == [200, 10, 10]


@pytest.mark.parametrize(("size", "expected"), [((200, 50), (0,)), ((100, 100), (0, 90, 270)), ((40, 120), (90, 270))])
def test_orientations(size: tuple[int, int], expected: tuple[int, ...]) -> None:
    assert orientations(size) == expected


def test_word_pixels_match_trunk_transform(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    grey = Image.new("RGB", (WIDTH, HEIGHT), (51, 102, 204))
    mine = to_pixels([np.asarray(grey)], fake_trunk)[0]
    ref = fake_trunk.image_transform(grey.resize((fake_trunk.image_size,) * 2))
    assert mine[:, 0, 0].tolist() == pytest.approx(ref[:, 0, 0].tolist(), abs=1e-5)


class _OneMapTrunk:
    """A trunk whose only map has stride ``stride`` (a ViT's patch tokens)."""

    def __init__(self, stride: int) -> None:
        self.stride = stride

    def image_feature_maps(self, pixels):  # type: ignore[no-untyped-def]
        import torch

        from core.trunk_types import FeatureMaps

        b, _, h, w = pixels.shape
        return FeatureMaps((torch.ones(b, 4, h // self.stride, w // self.stride),), (self.stride,))


@pytest.mark.parametrize(("stride", "height"), [(8, 64), (16, 64), (32, 128), (64, 256)])
def test_reading_height_keeps_at_least_16_frames(stride: int, height: int) -> None:
    from plugins.htr.preprocess import reading_height, reading_maps

    trunk = _OneMapTrunk(stride)
    assert reading_height(trunk) == height  # type: ignore[arg-type]
    assert (height * WIDTH // HEIGHT) // stride >= 16
    fine, coarse = reading_maps(trunk.image_feature_maps(np.zeros((1, 3, 64, 256))))  # type: ignore[arg-type]
    assert coarse is fine  # one map: given as both inputs


@pytest.mark.parametrize("threads", [1, 2])
def test_word_maps_equal_one_trunk_call_whatever_the_chunking(fake_trunk, threads: int) -> None:  # type: ignore[no-untyped-def]
    import torch

    from plugins.htr.preprocess import TRUNK_CHUNK, reading_maps, word_maps

    words = np.random.default_rng(0).integers(0, 256, size=(TRUNK_CHUNK * 2 + 3, HEIGHT, WIDTH, 3), dtype=np.uint8)
    pixels = to_pixels(list(words), fake_trunk)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with torch.inference_mode():
            got, whole = word_maps(fake_trunk, pixels), reading_maps(fake_trunk.image_feature_maps(pixels))
    finally:
        torch.set_num_threads(before)
    # Chunked and whole-batch convolutions may sum in another order: equal up to float rounding.
    assert len(got) == len(whole)
    for a, b in zip(got, whole, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
