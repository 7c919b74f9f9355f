"""The ``openclip`` trunk backend, on tiny randomly initialised open_clip models.

Each architecture (ViT, ModifiedResNet, a timm tower, an XLM-R-style Hugging
Face text tower) is registered from a JSON config, built at random, saved to
a temporary checkpoint and loaded back through ``load_trunk``. Sockets are
blocked for the whole module: nothing may be downloaded.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import registry

torch = pytest.importorskip("torch")
open_clip = pytest.importorskip("open_clip")

from core.errors import TrunkError  # noqa: E402
from core.trunk import Trunk, TrunkConfig, load_trunk  # noqa: E402
from tests.core._openclip import CLIP_TEXT, HF_TEXT, VIT, build_checkpoint, offline, write_hf_folder  # noqa: E402

ARCHS: dict[str, dict[str, Any]] = {
    "fbtest-tiny-vit": {"embed_dim": 32, "vision_cfg": VIT, "text_cfg": CLIP_TEXT},
    "fbtest-tiny-vit-avg": {"embed_dim": 32, "vision_cfg": {**VIT, "pool_type": "avg"}, "text_cfg": CLIP_TEXT},
    "fbtest-tiny-rn": {
        "embed_dim": 32,
        "vision_cfg": {"image_size": 64, "layers": [1, 1, 1, 1], "width": 8, "head_width": 32},
        "text_cfg": CLIP_TEXT,
    },
    "fbtest-tiny-timm": {
        "embed_dim": 32,
        "vision_cfg": {
            "image_size": 64,
            "timm_model_name": "test_convnext",
            "timm_model_pretrained": False,
            "timm_pool": "avg",
            "timm_proj": "linear",
        },
        "text_cfg": CLIP_TEXT,
    },
    "fbtest-tiny-xlmr": {"embed_dim": 32, "vision_cfg": VIT, "text_cfg": HF_TEXT},
}


@pytest.fixture(scope="module", autouse=True)
def sockets_blocked() -> Iterator[None]:
    """No connection (nor name lookup) for the whole module, fixtures included."""
    with offline():
        yield


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Any]]:
    """``{arch: (checkpoint path, the raw random model in eval mode)}``."""
    root = tmp_path_factory.mktemp("openclip")
    hf_dir = write_hf_folder(root / "hf-text")
    out = {}
    for i, (name, cfg) in enumerate(ARCHS.items()):
        _, path, model = build_checkpoint(root, name, cfg, seed=i, hf_dir=hf_dir)
        out[name] = (path, model)
    out["hf_dir"] = (hf_dir, None)
    out["config_dir"] = (root, None)
    return out


def _load(models: dict[str, tuple[Path, Any]], name: str, **kw: str) -> Trunk:
    return load_trunk(
        TrunkConfig(backend="openclip", model_name=name, pretrained=str(models[name][0]), **kw),
        registry.load(load_entrypoints=False),
    )


_LOADED: dict[str, Trunk] = {}


def _trunk(models: dict[str, tuple[Path, Any]], name: str) -> Trunk:
    """``_load`` once per architecture (CLIP tokenizer only) for the module."""
    if name not in _LOADED:
        _LOADED[name] = _load(models, name)
    return _LOADED[name]


@pytest.fixture(scope="module")
def vit(models: dict[str, tuple[Path, Any]]) -> Iterator[Trunk]:
    yield _trunk(models, "fbtest-tiny-vit")
    _LOADED.clear()


def _pixels(trunk: Trunk) -> Any:
    from PIL import Image

    images = [Image.new("RGB", (90, 70), (200, 30, 30)), Image.new("RGB", (50, 80), (10, 120, 240))]
    return torch.stack([trunk.image_transform(im) for im in images])


def _check_matches_raw(trunk: Trunk, model: Any, texts: list[str]) -> None:
    pixels = _pixels(trunk)
    tokens = trunk.tokenize(texts)
    with torch.inference_mode():
        img, txt = trunk.encode_images(pixels), trunk.encode_texts(tokens)
        raw_img = model.encode_image(pixels, normalize=True)
        raw_txt = model.encode_text(tokens.ids, normalize=True)
    assert img.shape == (2, trunk.embed_dim) and txt.shape == (len(texts), trunk.embed_dim)
    torch.testing.assert_close(img.norm(dim=-1), torch.ones(2))
    torch.testing.assert_close(txt.norm(dim=-1), torch.ones(len(texts)))
    torch.testing.assert_close(img, raw_img, atol=1e-5, rtol=0)
    torch.testing.assert_close(txt, raw_txt, atol=1e-5, rtol=0)


def test_vit_trunk_is_frozen_and_matches_the_raw_model(models: dict[str, tuple[Path, Any]], vit: Trunk) -> None:
    from PIL import Image

    vit.assert_frozen()
    assert not vit._module.training
    assert not any(p.requires_grad for p in vit._module.parameters())
    assert (vit.embed_dim, vit.image_size) == (32, 64)
    assert vit.image_transform(Image.new("RGB", (30, 20))).shape == (3, 64, 64)
    _check_matches_raw(vit, models["fbtest-tiny-vit"][1], ["a photo of a cat", "a bus", "автобус"])
    assert vit.num_parameters() == sum(t.numel() for t in models["fbtest-tiny-vit"][1].state_dict().values())


def test_component_versions_name_the_architecture_and_checkpoint(vit: Trunk) -> None:
    versions = vit.component_versions
    assert set(versions) == {"image", "text", "joint"}
    assert versions["image"].startswith("openclip:fbtest-tiny-vit:") and len(versions["image"].split(":")[-1]) == 12
    assert versions["image"] == versions["text"] == versions["joint"]
    vit.check_compatible({"image": versions["image"]}, what="test head")
    with pytest.raises(TrunkError, match="another trunk"):
        vit.check_compatible({"image": "openclip:ViT-B-32:000000000000"}, what="test head")


def test_clip_tokenizer_mask_covers_start_to_end_of_text(vit: Trunk) -> None:
    tokens = vit.tokenize(["a photo of a cat", "!!", ""])
    assert tokens.ids.shape == (3, 16) and tokens.ids.dtype == torch.long
    assert tokens.ids[0, 0].item() == 49406  # <start_of_text>, from the BPE vocab shipped in open_clip
    assert tokens.mask.sum(dim=1).tolist() == [7, 3, 2]
    assert tokens.mask[2].tolist() == [True, True] + [False] * 14
    assert vit.tokenize([]).ids.shape == (0, 16)


def test_vit_feature_maps_at_patch_stride(models: dict[str, tuple[Path, Any]], vit: Trunk) -> None:
    from core.backends.openclip import vit_tokens_any_size

    pixels = _pixels(vit)
    with torch.inference_mode():
        fm = vit.image_feature_maps(pixels)
        wide = vit.image_feature_maps(torch.zeros(1, 3, 64, 96))
        manual = vit_tokens_any_size(models["fbtest-tiny-vit"][1].visual, pixels)
    assert fm.strides == (16,)
    assert [tuple(m.shape) for m in fm.maps] == [(2, 64, 4, 4)]
    # the any-size path reproduces open_clip's forward_intermediates at the native size
    torch.testing.assert_close(manual, fm.maps[0], atol=1e-5, rtol=0)
    assert wide.strides == (16,) and tuple(wide.maps[0].shape) == (1, 64, 4, 6)
    with pytest.raises(TrunkError, match="multiple of 16"):
        vit.image_feature_maps(torch.zeros(1, 3, 64, 70))


def test_clip_token_states_are_the_final_text_states(models: dict[str, tuple[Path, Any]], vit: Trunk) -> None:
    tokens = vit.tokenize(["a photo of a cat", "a bus"])
    with torch.inference_mode():
        ts = vit.text_token_states(tokens)
        pooled = vit.encode_texts(tokens)
    assert ts.states.shape == (2, 16, 64) and ts.states.dtype == torch.float32
    assert torch.equal(ts.mask, tokens.mask)
    # CLIP pools the end-of-text state and projects it: the states are the real final ones
    eot = tokens.ids.argmax(dim=1)
    projected = ts.states[torch.arange(2), eot] @ models["fbtest-tiny-vit"][1].text_projection
    torch.testing.assert_close(torch.nn.functional.normalize(projected, dim=-1), pooled, atol=1e-5, rtol=0)


def test_modified_resnet_maps_at_strides_8_16_32(models: dict[str, tuple[Path, Any]]) -> None:
    trunk = _trunk(models, "fbtest-tiny-rn")
    _check_matches_raw(trunk, models["fbtest-tiny-rn"][1], ["a dog"])
    with torch.inference_mode():
        fm = trunk.image_feature_maps(_pixels(trunk))
    assert fm.strides == (8, 16, 32)
    assert [tuple(m.shape) for m in fm.maps] == [(2, 64, 8, 8), (2, 128, 4, 4), (2, 256, 2, 2)]
    with torch.inference_mode():
        fine = trunk.image_feature_maps(_pixels(trunk), levels=2)  # stops after layer3
    assert fine.strides == (8, 16)
    for got, want in zip(fine.maps, fm.maps[:2], strict=True):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def test_timm_tower_maps_keep_strides_from_8(models: dict[str, tuple[Path, Any]]) -> None:
    trunk = _trunk(models, "fbtest-tiny-timm")
    _check_matches_raw(trunk, models["fbtest-tiny-timm"][1], ["a dog"])
    with torch.inference_mode():
        fm = trunk.image_feature_maps(_pixels(trunk))
    assert fm.strides == (8, 16, 32)
    assert [tuple(m.shape) for m in fm.maps] == [(2, 32, 8, 8), (2, 48, 4, 4), (2, 64, 2, 2)]


def test_region_projection_only_where_the_image_embedding_pools_the_map(
    models: dict[str, tuple[Path, Any]], vit: Trunk
) -> None:
    for name in ("fbtest-tiny-vit-avg", "fbtest-tiny-timm"):
        trunk = _trunk(models, name)
        pixels = _pixels(trunk)
        with torch.inference_mode():
            pooled = trunk.image_feature_maps(pixels).maps[-1].mean(dim=(2, 3))
            torch.testing.assert_close(trunk.project_pooled(pooled), trunk.encode_images(pixels), atol=1e-5, rtol=0)
        assert trunk.region_projection == "exact"
    # class-token ViTs (standard CLIP): patch tokens through ln_post and the projection, approximately
    raw = models["fbtest-tiny-vit"][1].visual
    pixels = _pixels(vit)
    with torch.inference_mode():
        tokens = vit.image_feature_maps(pixels).maps[-1]
        regions = vit.project_pooled(tokens[:, :, :2, :2])
        want = torch.nn.functional.normalize(tokens[:, :, :2, :2].mean(dim=(2, 3)) @ raw.proj, dim=-1)
    assert vit.can_pool_regions and vit.region_projection == "approximate"
    torch.testing.assert_close(regions, want, atol=1e-5, rtol=0)
    # attention-pooled towers: none; callers fall back to crops
    rn = _trunk(models, "fbtest-tiny-rn")
    assert not rn.can_pool_regions and rn.region_projection == "none"
    with torch.inference_mode(), pytest.raises(TrunkError):
        rn.project_pooled(torch.zeros(1, rn.image_feature_maps(_pixels(rn)).maps[-1].shape[1]))


def test_image_transform_squashes_without_cropping(vit: Trunk) -> None:
    from PIL import Image

    # a wide image, red on its left tenth only: a centre crop would lose the red
    image = Image.new("RGB", (200, 50), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 20, 50))
    pixels = vit.image_transform(image)
    assert pixels.shape == (3, 64, 64)
    assert pixels[0, :, 0].mean() > pixels[0, :, -1].mean() + 1.0  # normalised red channel: left >> right


def test_file_checkpoints_get_their_architectures_published_normalisation() -> None:
    from core.backends.openclip import _tag_preprocess

    openai = {
        "image_mean": (0.48145466, 0.4578275, 0.40821073),
        "image_std": (0.26862954, 0.26130258, 0.27577711),
        "image_interpolation": "bicubic",
    }
    assert _tag_preprocess("xlm-roberta-base-ViT-B-32") == openai
    assert _tag_preprocess("ViT-B-16-SigLIP")["image_mean"] == (0.5, 0.5, 0.5)
    assert _tag_preprocess("fbtest-tiny-vit") == {}  # no published weights: open_clip's default


def test_model_config_json_path_as_architecture(models: dict[str, tuple[Path, Any]]) -> None:
    config_file = models["config_dir"][0] / "fbtest-tiny-vit.json"
    trunk = load_trunk(
        TrunkConfig.parse(f"openclip:{config_file}:{models['fbtest-tiny-vit'][0]}"),
        registry.load(load_entrypoints=False),
    )
    assert trunk.component_versions["image"].startswith("openclip:fbtest-tiny-vit:")


def test_hf_text_tower_needs_a_local_folder(models: dict[str, tuple[Path, Any]]) -> None:
    with pytest.raises(TrunkError, match="needs a local folder"):
        _load(models, "fbtest-tiny-xlmr")
    with pytest.raises(TrunkError, match="not found"):
        _load(models, "fbtest-tiny-xlmr", text_tower_dir=str(models["config_dir"][0] / "nope"))


def test_hf_text_tower_from_local_folder(models: dict[str, tuple[Path, Any]]) -> None:
    hf_dir = str(models["hf_dir"][0])
    trunk = _load(models, "fbtest-tiny-xlmr", text_tower_dir=hf_dir)
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    texts = ["a photo of a cat", "автобус", "кошка"]
    _check_matches_raw(trunk, models["fbtest-tiny-xlmr"][1], texts)
    tokens = trunk.tokenize(texts)
    assert tokens.ids[:, :3].tolist() == [[0, 4, 5], [0, 10, 2], [0, 11, 2]]  # <s> ... </s>, pad 1
    assert tokens.mask.sum(dim=1).tolist() == [7, 3, 3]
    empty = trunk.tokenize([])
    assert empty.ids.shape == (0, 16) and empty.mask.dtype == torch.bool
    with torch.inference_mode():
        ts = trunk.text_token_states(tokens)
    assert ts.states.shape == (3, 16, 32)
    assert "+tok:" in trunk.component_versions["text"]
    assert trunk.component_versions["image"] == trunk.component_versions["joint"]


def test_missing_checkpoint_and_bad_names_fail_clearly(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pt"
    with pytest.raises(TrunkError, match=str(missing)):
        load_trunk(
            TrunkConfig(backend="openclip", model_name="ViT-B-32", pretrained=str(missing)),
            registry.load(load_entrypoints=False),
        )
    with pytest.raises(TrunkError, match="needs a local checkpoint"):
        load_trunk(TrunkConfig(backend="openclip", model_name="ViT-B-32"), registry.load(load_entrypoints=False))
    with pytest.raises(TrunkError, match="unknown open_clip architecture"):
        load_trunk(
            TrunkConfig(backend="openclip", model_name="no-such-arch", pretrained=str(missing)),
            registry.load(load_entrypoints=False),
        )
    with pytest.raises(TrunkError, match="not supported"):
        load_trunk(
            TrunkConfig(backend="openclip", model_name="hf-hub:laion/x", pretrained=str(missing)),
            registry.load(load_entrypoints=False),
        )


def test_checkpoint_for_another_architecture_is_a_trunk_error(models: dict[str, tuple[Path, Any]]) -> None:
    with pytest.raises(TrunkError, match="cannot build"):
        load_trunk(
            TrunkConfig(backend="openclip", model_name="fbtest-tiny-rn", pretrained=str(models["fbtest-tiny-vit"][0])),
            registry.load(load_entrypoints=False),
        )


def test_sockets_are_blocked() -> None:
    with pytest.raises(OSError, match="blocked"):
        socket.create_connection(("huggingface.co", 443))


def test_images_of_another_size_are_resized_to_the_towers_own(vit: Trunk) -> None:
    pixels = _pixels(vit)  # [2, 3, 64, 64], the tower's own side
    big = torch.nn.functional.interpolate(pixels, size=(128, 96), mode="nearest")
    with torch.inference_mode():
        same = vit.encode_images(pixels)
        other = vit.encode_images(big)
    assert other.shape == same.shape
    assert torch.nn.functional.cosine_similarity(other, same).min() > 0.9


def test_texts_are_encoded_without_padding_where_that_is_exact(
    models: dict[str, tuple[Path, Any]], vit: Trunk, tmp_path: Path
) -> None:
    # mixed lengths in one batch, more rows than one chunk: each row as the padded raw model has it
    texts = [" ".join(["a photo of a cat"] * (i % 4)) or "bus" for i in range(70)]
    assert vit._backend.trims_text_padding
    _check_matches_raw(vit, models["fbtest-tiny-vit"][1], texts)
    hf = _load(models, "fbtest-tiny-xlmr", text_tower_dir=str(models["hf_dir"][0]))
    assert hf._backend.trims_text_padding
    # pooled at the last position, a text's embedding depends on its padding: kept
    cfg = {**ARCHS["fbtest-tiny-vit"], "text_cfg": {**CLIP_TEXT, "pool_type": "last"}}
    _, path, model = build_checkpoint(tmp_path, "fbtest-tiny-vit-last", cfg, seed=7)
    last = load_trunk(
        TrunkConfig(backend="openclip", model_name="fbtest-tiny-vit-last", pretrained=str(path)),
        registry.load(load_entrypoints=False),
    )
    assert not last._backend.trims_text_padding
    _check_matches_raw(last, model, texts[:5])


def test_capability_checks_hold_under_half_precision_autocast(models: dict[str, tuple[Path, Any]]) -> None:
    """A GPU trunk runs under fp16/bf16 autocast; the one-off exactness checks must not inherit it
    (here CPU bf16 autocast, which moves results by ~1e-2)."""
    trunk = _load(models, "fbtest-tiny-vit-avg")
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert trunk._backend.trims_text_padding
        assert trunk._backend.region_projection == "exact"
