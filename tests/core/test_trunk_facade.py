from __future__ import annotations

import pytest
import torch

import registry
from core.errors import TrunkError
from core.testing import make_fake_trunk
from core.trunk import TrunkConfig


def test_parse_trunk_specs() -> None:
    assert TrunkConfig.parse("default") == TrunkConfig()
    assert TrunkConfig.parse("default:efficientnet_lite2").model_name == "efficientnet_lite2"
    cfg = TrunkConfig.parse("openclip:xlm-roberta-base-ViT-B-32:/w/model.pt:/w/xlmr", ablation="random")
    assert (cfg.backend, cfg.model_name, cfg.pretrained, cfg.text_tower_dir, cfg.ablation) == (
        "openclip",
        "xlm-roberta-base-ViT-B-32",
        "/w/model.pt",
        "/w/xlmr",
        "random",
    )
    assert TrunkConfig.parse("siglip:so400m:/w/s.pt").backend == "siglip"  # any registered backend's name
    for bad in ("a:b:c:d:e", "9lives"):
        with pytest.raises(TrunkError, match="bad trunk spec"):
            TrunkConfig.parse(bad)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openclip:ViT-B-32", "needs a local checkpoint"),
        ("openclip:only-arch:x.pt", "unknown open_clip architecture"),
        ("default:efficientnet_lite0::/some/dir", "default\\[:IMAGE_TOWER"),
        ("siglip:x", "unknown trunk backend 'siglip'; available: default, openclip"),
    ],
)
def test_what_a_backend_cannot_build_is_a_clear_error(spec: str, message: str) -> None:
    from core.trunk import load_trunk

    with pytest.raises(TrunkError, match=message):
        load_trunk(TrunkConfig.parse(spec), registry.load(load_entrypoints=False))


def test_trunk_is_frozen_and_features_are_unit_vectors(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    fake_trunk.assert_frozen()
    emb = fake_trunk.embed_texts(["a bus", "кошка"])
    img = fake_trunk.encode_images(torch.rand(3, 3, 64, 64))
    assert emb.shape == (2, fake_trunk.embed_dim) and img.shape == (3, fake_trunk.embed_dim)
    assert torch.allclose(emb.norm(dim=1), torch.ones(2)) and torch.allclose(img.norm(dim=1), torch.ones(3))
    assert fake_trunk.embed_texts([]).shape == (0, fake_trunk.embed_dim)


def test_unfrozen_trunk_is_detected(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    trunk = make_fake_trunk(seed=1)
    trunk._module.train()  # noqa: SLF001 - simulating a plugin that misbehaves
    with pytest.raises(TrunkError, match="frozen"):
        trunk.assert_frozen()


def test_random_ablation_is_deterministic_per_input_and_unrelated_across_inputs() -> None:
    real, noisy = make_fake_trunk(0), make_fake_trunk(0, ablation="random")
    a = noisy.embed_texts(["a bus", "a bus", "a cat"])
    torch.testing.assert_close(a[0], a[1], rtol=1e-6, atol=1e-7)  # the L2 norm is a float sum
    assert not torch.allclose(a[0], a[2])
    assert not torch.allclose(a, real.embed_texts(["a bus", "a bus", "a cat"]))
    maps = noisy.image_feature_maps(torch.zeros(1, 3, 64, 128))
    assert [m.shape[-2:] for m in maps.maps] == [(8, 16), (4, 8), (2, 4)]


def test_check_compatible_refuses_heads_for_another_trunk(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    fake_trunk.check_compatible({"image": "fake-image-1"}, what="test head")
    with pytest.raises(TrunkError, match="test head was trained on another trunk.*image"):
        fake_trunk.check_compatible({"image": "other-image"}, what="test head")


def test_version_changes_with_components() -> None:
    assert make_fake_trunk(0).version == make_fake_trunk(1).version  # same component ids
    assert make_fake_trunk(0).version != make_fake_trunk(0, ablation="random").version


def test_normalize_pixels_matches_image_transform_at_any_size(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    import numpy as np
    from PIL import Image

    side = fake_trunk.image_size
    rgb = np.random.default_rng(0).integers(0, 256, (side, side, 3), dtype=np.uint8)
    ref = fake_trunk.image_transform(Image.fromarray(rgb))
    assert torch.allclose(fake_trunk.normalize_pixels(rgb), ref, atol=1e-5)
    assert fake_trunk.normalize_pixels(np.zeros((2, 40, 96, 3), dtype=np.uint8)).shape == (2, 3, 40, 96)


def test_ablated_text_noise_does_not_depend_on_the_batch() -> None:
    trunk = make_fake_trunk(0, ablation="random")
    alone = trunk.embed_texts(["a red bus"])[0]
    padded = trunk.embed_texts(["a red bus", "a much longer text with many more words in it"])[0]
    other = trunk.embed_texts(["a blue bus"])[0]
    torch.testing.assert_close(alone, padded, rtol=1e-6, atol=1e-7)  # the L2 norm is a float sum
    assert not torch.allclose(alone, other)


def test_fewer_levels_are_the_finest_maps_of_a_full_pass(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    """A backend without ``levels`` runs its whole pass; the facade hands out the finest maps."""
    pixels = torch.rand(2, 3, 64, 96)
    with torch.inference_mode():
        full = fake_trunk.image_feature_maps(pixels)
        two = fake_trunk.image_feature_maps(pixels, levels=2)
        many = fake_trunk.image_feature_maps(pixels, levels=5)
    assert two.strides == (8, 16) and many.strides == full.strides == (8, 16, 32)
    for a, b in zip(two.maps, full.maps, strict=False):
        torch.testing.assert_close(a, b)
    with pytest.raises(TrunkError, match="at least 1"):
        fake_trunk.image_feature_maps(pixels, levels=0)


def test_normalize_pixels_is_the_per_channel_affine_map_for_any_input(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    """The same affine map on read-only, batched and odd-sized inputs; the caller's array is untouched."""
    import numpy as np

    rgb = np.random.default_rng(1).integers(0, 256, (3, 17, 29, 3), dtype=np.uint8)
    frozen = rgb.copy()
    frozen.flags.writeable = False
    out = fake_trunk.normalize_pixels(frozen)
    black = fake_trunk.normalize_pixels(np.zeros((1, 1, 3), np.uint8))[:, 0, 0]
    white = fake_trunk.normalize_pixels(np.full((1, 1, 3), 255, np.uint8))[:, 0, 0]
    scale, shift = ((white - black) / 255).view(3, 1, 1), black.view(3, 1, 1)
    want = torch.from_numpy(rgb).permute(0, 3, 1, 2).float() * scale + shift
    assert out.shape == (3, 3, 17, 29) and out.dtype == torch.float32 and out.is_contiguous()
    torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-5)
    assert np.array_equal(frozen, rgb)


def test_the_ablation_is_a_wrapping_backend_and_the_plain_trunk_has_no_ablation_branch() -> None:
    from core.ablation import RandomFeatures
    from core.default_plugins.trunk_backends import random_features_wrapper
    from core.factories import Registry
    from core.testing import fake_backend
    from core.trunk import Trunk, load_trunk

    assert not [name for name in vars(Trunk) if "ablat" in name and name != "ablated"]  # no _ablate on the path
    noisy = make_fake_trunk(0, ablation="random")
    assert isinstance(noisy._backend, RandomFeatures)  # noqa: SLF001 - the wrapper, not a facade flag
    assert not isinstance(make_fake_trunk(0)._backend, RandomFeatures)  # noqa: SLF001
    registry = Registry(trunk_backends={"fake": fake_backend, "random": random_features_wrapper})
    assert load_trunk(TrunkConfig(backend="fake", ablation="random"), registry).ablated
    with pytest.raises(TrunkError, match="wraps another backend.*--ablate-trunk random"):
        load_trunk(TrunkConfig(backend="random"), registry)  # alone it has nothing to wrap
    with pytest.raises(TrunkError, match="unknown trunk backend 'nothing'"):
        load_trunk(TrunkConfig(backend="fake", ablation="nothing"), registry)
    with pytest.raises(TrunkError, match="'fake' wraps no other"):
        load_trunk(TrunkConfig(backend="fake", ablation="fake"), registry)
