"""The ``openclip`` trunk backend: any open_clip architecture from local files.

``TrunkConfig(backend="openclip", model_name=ARCH, pretrained=CHECKPOINT,
text_tower_dir=HF_DIR)``:

* ``ARCH`` is an open_clip architecture name (``ViT-B-32``,
  ``xlm-roberta-base-ViT-B-32``, ``RN50``...) or the path of an open_clip
  model-config JSON file (registered under the file's stem). ``hf-hub:`` and
  ``local-dir:`` names are refused: the checkpoint must be a local file.
* ``CHECKPOINT`` is a local open_clip checkpoint (``.bin``/``.pt``/
  ``.safetensors``). It is passed to open_clip as an absolute path, so it can
  never be mistaken for a pretrained tag (tags download).
* ``HF_DIR`` is needed when the architecture uses Hugging Face parts: an HF
  text tower (``hf_model_name``, e.g. ``xlm-roberta-base``) or an HF tokenizer
  (``hf_tokenizer_name``, e.g. the SigLIP models). It is a local folder with
  the tower's ``config.json`` and tokenizer files (``save_pretrained`` output;
  the tower's weights are not needed, they are in the checkpoint). The model
  config's ``hf_model_name`` is pointed at that folder and the tokenizer is
  built from it, so nothing is looked up on the Hub.

Images are resized to ``image_size`` by squashing the whole picture (no
centre crop), like the default trunk: zsOD and VQA ask about anything in the
picture, and boxes map back to the image by a plain scale. The normalisation
is the one the architecture's published checkpoints were trained with (a
file carries none; see ``_tag_preprocess``).

The process is also put in Hugging Face offline mode (``HF_HUB_OFFLINE``):
the project never downloads at run time, and a missing local file must fail
loudly rather than fall back to the network.

Finer features: ``image_feature_maps`` gives the last block's patch tokens on
a grid at stride = patch size for ViTs (any input size divisible by the patch
size; the position embedding is resized for non-native sizes), the layer2..4
outputs at strides 8/16/32 for ModifiedResNet, and the last stage of each
stride >= 8 for timm towers. ``text_token_states`` gives the final (normed)
per-token states of the text transformer, or ``last_hidden_state`` of an HF
tower.

Region embeddings (``Trunk.project_pooled``): exact for average-pooled ViTs and
timm towers, approximate for class-token ViTs (patch tokens through the final
norm and projection, as MaskCLIP), absent for attention-pooled towers
(``OpenClipBackend.region_projection``).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
import torch.nn.functional as F
from torch import nn

from core.errors import TrunkError
from core.trunk_types import FeatureMaps, TextTokens, TokenStates, TrunkConfig

if TYPE_CHECKING:
    from PIL import Image

# An open_clip model or one of its towers (CLIP, VisionTransformer, ModifiedResNet, TimmModel, an HF
# text tower): open_clip ships no type information (no py.typed), so their parts are read untyped.
OpenClipModule = Any

log = logging.getLogger(__name__)
_TOKENIZING = threading.Lock()

_HASH_CHUNK = 1 << 20  # bytes hashed at each end of a checkpoint (a full hash of 1+ GB is slow)
_TEXT_CHUNK = 64  # texts encoded together, cut to the chunk's longest (``encode_texts``)
_MIN_MAP_STRIDE = 8  # timm towers: stages finer than this are too big to be useful feature maps
_TOKENIZER_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "sentencepiece.bpe.model",
    "spiece.model",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
)


class OpenClipBackend(nn.Module):
    """An open_clip model behind the ``TrunkBackend`` interface."""

    # Passes are forwards of the frozen model; the lazy probes (``region_projection``,
    # ``trims_text_padding``) are deterministic, so two threads racing there decide alike.
    thread_safe = True

    def __init__(
        self,
        model: OpenClipModule,
        preprocess: Callable[[Image.Image], torch.Tensor],
        tokenizer: Callable[[list[str]], torch.Tensor],
        *,
        embed_dim: int,
        image_size: int,
        context_length: int,
        pad_id: int,
        eot_id: int | None,
        component_versions: Mapping[str, str],
    ) -> None:
        super().__init__()
        self.model: OpenClipModule = model
        self._preprocess = preprocess
        self._tokenizer = tokenizer
        self.embed_dim = embed_dim
        self.image_size = image_size
        self.context_length = context_length
        self.pad_id = pad_id
        # CLIP's BPE tokenizer pads with 0, which is also the id of "!": the
        # real tokens are the ones up to the end-of-text token instead.
        self.eot_id = eot_id
        self.component_versions = dict(component_versions)
        self._region_mode: str | None = None  # see ``region_projection``; decided on first use
        self._trims_text: bool | None = None  # see ``trims_text_padding``; decided on first use

    @property
    def _device(self) -> torch.device:
        return next(self.model.parameters()).device

    # -- pre-processing -------------------------------------------------------------
    def image_transform(self, image: Image.Image) -> torch.Tensor:
        return self._preprocess(image)

    def tokenize(self, texts: Sequence[str]) -> TextTokens:
        if not texts:  # HF tokenizers reject an empty batch
            ids = torch.zeros(0, self.context_length, dtype=torch.long)
            return TextTokens(ids, ids != ids)
        with _TOKENIZING:  # HF fast tokenizers refuse concurrent calls (the probes call here too)
            ids = self._tokenizer(list(texts)).long()
        if self.eot_id is not None:
            is_eot = ids == self.eot_id
            # positions up to and including the first end-of-text token
            mask = (is_eot.cumsum(dim=1) - is_eot.long()) == 0
        else:
            mask = ids != self.pad_id
        return TextTokens(ids, mask)

    # -- image side -------------------------------------------------------------------
    def encode_images(self, pixels: torch.Tensor) -> torch.Tensor:
        """Any input size: pixels of another size are resized (bicubic) to the tower's own.

        CLIP towers pool with a position-dependent part sized for ``image_size`` (a
        ViT's position embedding, a ResNet's attention pool), so callers' crops of
        another side (zsOD's stage-2 crops) are brought to it, as ``image_transform`` would.
        """
        pixels = pixels.to(self._device)
        side = self.image_size
        if tuple(pixels.shape[-2:]) != (side, side):
            pixels = F.interpolate(pixels, size=(side, side), mode="bicubic", align_corners=False, antialias=True)
        return self.model.encode_image(pixels)

    def image_feature_maps(self, pixels: torch.Tensor, levels: int | None = None) -> FeatureMaps:
        """The tower's maps (module doc); ``levels``: only that many of the finest, where the
        tower can stop early (ModifiedResNet; ViTs have one map, timm towers give all and
        ``Trunk`` keeps the finest)."""
        from open_clip.modified_resnet import ModifiedResNet
        from open_clip.timm_model import TimmModel
        from open_clip.transformer import VisionTransformer

        pixels = pixels.to(self._device)
        visual = self.model.visual
        if isinstance(visual, VisionTransformer):
            return _vit_maps(visual, pixels)
        if isinstance(visual, ModifiedResNet):
            _check_divisible(pixels, 32)
            n = 3 if levels is None else max(1, min(levels, 3))
            out = visual.forward_intermediates(pixels, indices=[2, 3, 4][:n], intermediates_only=True, stop_early=True)
            return FeatureMaps(tuple(out["image_intermediates"]), (8, 16, 32)[:n])
        if isinstance(visual, TimmModel):
            return _timm_maps(visual, pixels)
        raise TrunkError(
            f"image_feature_maps is not supported for the {type(visual).__name__} image tower "
            "(supported: open_clip VisionTransformer, ModifiedResNet, timm towers)"
        )

    @property
    def can_pool_regions(self) -> bool:
        """True where ``project`` maps pooled last-map features into the joint space (decided once)."""
        return self.region_projection != "none"

    @property
    def region_projection(self) -> str:
        """How ``project`` relates to ``encode_images``, decided once on a random image.

        ``"exact"``: the image embedding *is* ``project`` of the mean map (average-pooled
        ViTs, timm towers). ``"approximate"``: a class-token ViT (most CLIPs), whose
        patch tokens go through the same final norm and projection as the class token
        (the dense CLIP features of MaskCLIP); regions land in the joint space, though
        the whole image's mean is not its embedding. ``"none"``: attention-pooled towers
        (ModifiedResNet, CoCa), where callers encode crops instead.
        """
        if self._region_mode is None:
            try:
                head = self._pooled_head()
            except TrunkError:
                head = None
            if head is None:
                self._region_mode = "none"
            elif self._check_project(head):
                self._region_mode = "exact"
            else:
                self._region_mode = "approximate" if self._class_token_vit() else "none"
            log.info("openclip region projection: %s", self._region_mode)
        return self._region_mode

    def pool_map(self, maps: torch.Tensor) -> torch.Tensor:
        """``[N, C, h, w]`` region maps -> ``[N, C]`` means, as the whole map is pooled."""
        return maps.mean(dim=(2, 3))

    def project(self, pooled: torch.Tensor) -> torch.Tensor:
        """``[N, C]`` means of ``image_feature_maps().maps[-1]`` -> joint space (not normalised).

        See ``region_projection``: exact for average-pooled towers, approximate for
        class-token ViTs; attention-pooled towers raise ``TrunkError``, so callers fall
        back to encoding crops.
        """
        if not self.can_pool_regions:
            raise TrunkError(
                f"the {type(self.model.visual).__name__} image tower pools by attention; "
                "its feature map has no projection into the joint space"
            )
        head = self._pooled_head()
        assert head is not None  # can_pool_regions said so
        return head(pooled.to(self._device))

    def _class_token_vit(self) -> bool:
        from open_clip.transformer import VisionTransformer

        visual = self.model.visual
        return isinstance(visual, VisionTransformer) and visual.attn_pool is None and visual.pool_type == "tok"

    def _pooled_head(self) -> Callable[[torch.Tensor], torch.Tensor] | None:
        from open_clip.timm_model import TimmModel
        from open_clip.transformer import VisionTransformer

        visual = self.model.visual
        if isinstance(visual, VisionTransformer) and visual.attn_pool is None and visual.pool_type in ("avg", "tok"):
            # the feature map's tokens have had ln_post (``_vit_maps``); only the projection is left
            return lambda x: x @ visual.proj if visual.proj is not None else x
        if isinstance(visual, TimmModel):
            return lambda x: visual.head(visual.trunk.forward_head(x[:, :, None, None]))
        return None

    def _exact(self) -> contextlib.ExitStack[bool | None]:
        """Full precision, no autograd: the capability checks compare two computations to 1e-4, which
        the half-precision autocast a GPU trunk runs under (``Trunk.precision``) would not hold."""
        stack = contextlib.ExitStack()
        stack.enter_context(torch.inference_mode())
        stack.enter_context(torch.autocast(self._device.type, enabled=False))
        return stack

    def _check_project(self, head: Callable[[torch.Tensor], torch.Tensor]) -> bool:
        gen = torch.Generator().manual_seed(0)
        pixels = torch.randn(1, 3, self.image_size, self.image_size, generator=gen).to(self._device)
        with self._exact():
            want = F.normalize(self.encode_images(pixels).float(), dim=-1)
            got = F.normalize(head(self.image_feature_maps(pixels).maps[-1].mean(dim=(2, 3))).float(), dim=-1)
        return bool(torch.allclose(got, want, atol=1e-4))

    # -- text side ----------------------------------------------------------------------
    def encode_texts(self, tokens: TextTokens) -> torch.Tensor:
        """Texts are encoded without their padding where that is exact (``trims_text_padding``):
        rows sorted by length, in chunks cut to the chunk's longest text. Questions and
        phrases are ~10 of CLIP's 77 positions, so this is several times faster."""
        ids = tokens.ids.to(self._device)
        if not len(ids) or not self.trims_text_padding:
            return self.model.encode_text(ids)
        lengths = tokens.mask.sum(dim=1).clamp(min=1).to(self._device)
        order = lengths.argsort()
        parts = []
        for chunk in order.split(_TEXT_CHUNK):
            parts.append(self._encode_text_prefix(ids[chunk, : int(lengths[chunk].max())]))
        out = torch.cat(parts)
        return out[order.argsort()]

    @property
    def trims_text_padding(self) -> bool:
        """True where encoding only the first L positions (L >= every text's length) gives the
        padded encoding: causal CLIP text transformers pooled at the end-of-text token or the
        first token, and Hugging Face towers (which mask padding). Decided once, by comparing
        both on a few texts of different lengths; a tower where they differ keeps the padding.
        """
        if self._trims_text is None:
            self._trims_text = self._check_text_trimming()
            log.info("openclip text encoding %s padding", "without" if self._trims_text else "with")
        return self._trims_text

    def _text_tower(self) -> tuple[OpenClipModule, str | None, int | None]:
        """The module holding the text transformer's parts (``model.text``: a TextTransformer or an
        HF tower; or the CLIP model itself, which keeps them), its pooling and end-of-text id."""
        text = getattr(self.model, "text", None)
        tower = self.model if text is None else text
        pool = getattr(tower, "text_pool_type", getattr(tower, "pool_type", None))
        return tower, pool, getattr(tower, "text_eos_id", getattr(tower, "eos_id", None))

    def _text_prefix_supported(self) -> bool:
        from open_clip.hf_model import HFTextEncoder

        tower, pool, _ = self._text_tower()
        if isinstance(tower, HFTextEncoder):
            return True
        if getattr(tower, "cls_emb", None) is not None:
            return False  # CoCa's appended class token sits after the padding
        return (
            hasattr(tower, "token_embedding")
            and getattr(tower, "attn_mask", None) is not None  # causal: later positions never reach earlier ones
            and not getattr(tower, "use_pad_mask", False)
            and pool in ("argmax", "eos", "first")
        )

    def _encode_text_prefix(self, ids: torch.Tensor) -> torch.Tensor:
        """``encode_text`` of ids cut to their first ``L`` positions (see ``trims_text_padding``)."""
        from open_clip.transformer import text_global_pool

        tower, pool, eos = self._text_tower()
        if not hasattr(tower, "token_embedding"):  # Hugging Face tower: any length, padding masked
            return self.model.encode_text(ids)
        n = ids.shape[1]
        cast = tower.transformer.get_cast_dtype()
        x = tower.token_embedding(ids).to(cast) + tower.positional_embedding[:n].to(cast)
        x = tower.ln_final(tower.transformer(x, attn_mask=tower.attn_mask[:n, :n]))
        x = text_global_pool(x, ids, pool or "argmax", eos_token_id=eos)
        projection = tower.text_projection
        if projection is None:
            return x
        return projection(x) if isinstance(projection, nn.Linear) else x @ projection

    def _check_text_trimming(self) -> bool:
        if not self._text_prefix_supported():
            return False
        tokens = self.tokenize(["a photo of a cat", "two", "a red bus on a wide street next to a tall building"])
        ids = tokens.ids.to(self._device)
        try:
            with self._exact():
                want = F.normalize(self.model.encode_text(ids).float(), dim=-1)
                n = int(tokens.mask.sum(dim=1).max())
                got = F.normalize(self._encode_text_prefix(ids[:, :n]).float(), dim=-1)
        except (RuntimeError, ValueError, IndexError) as exc:
            log.debug("text padding kept: the trimmed encoding failed (%s)", exc)
            return False
        return bool(torch.allclose(got, want, atol=1e-4))

    def text_token_states(self, tokens: TextTokens) -> TokenStates:
        from open_clip.hf_model import HFTextEncoder
        from open_clip.transformer import TextTransformer

        ids = tokens.ids.to(self._device)
        text = getattr(self.model, "text", None)
        if text is None and hasattr(self.model, "token_embedding"):
            # CLIP keeps its text transformer's parts on the model itself
            out = self.model.forward_intermediates(
                text=ids, text_indices=1, normalize_intermediates=True, intermediates_only=True
            )
            states = out["text_intermediates"][-1]
        elif isinstance(text, TextTransformer):
            out = text.forward_intermediates(ids, indices=1, normalize_intermediates=True, intermediates_only=True)
            states = out["text_intermediates"][-1]
        elif isinstance(text, HFTextEncoder):
            # the same attention mask HFTextEncoder.forward builds
            attention = (ids != text.config.pad_token_id).long()
            states = text.transformer(input_ids=ids, attention_mask=attention).last_hidden_state
        else:
            raise TrunkError(f"text_token_states is not supported for the {type(text).__name__} text tower")
        return TokenStates(states.float(), tokens.mask.to(states.device))


def _check_divisible(pixels: torch.Tensor, stride: int) -> None:
    h, w = pixels.shape[-2:]
    if h % stride or w % stride:
        raise TrunkError(f"image side {h}x{w} must be a multiple of {stride}")


def _vit_maps(visual: OpenClipModule, pixels: torch.Tensor) -> FeatureMaps:
    """Last-block patch tokens of an open_clip ViT as ``[B, C, H/p, W/p]``."""
    ph, pw = visual.patch_size
    if ph != pw:
        raise TrunkError(f"non-square patches {ph}x{pw} are not supported for feature maps")
    _check_divisible(pixels, ph)
    # ln_post is sized for the attention-pooled output when there is an
    # attention pooler (CoCa), so it cannot normalise the tokens there.
    normalize = getattr(visual, "attn_pool", None) is None
    if tuple(pixels.shape[-2:]) == tuple(visual.image_size):
        out = visual.forward_intermediates(
            pixels, indices=1, normalize_intermediates=normalize, intermediates_only=True
        )
        return FeatureMaps((out["image_intermediates"][-1],), (ph,))
    return FeatureMaps((vit_tokens_any_size(visual, pixels, normalize=normalize),), (ph,))


def vit_tokens_any_size(visual: OpenClipModule, pixels: torch.Tensor, *, normalize: bool = True) -> torch.Tensor:
    """``VisionTransformer.forward_intermediates`` for the last block, at any input size.

    The learned position embedding is resized bicubically to the input's patch
    grid (as open_clip's ``resize_pos_embed`` does for checkpoints).
    """
    b, _, h, w = pixels.shape
    p = visual.patch_size[0]
    gh, gw = h // p, w // p
    x = visual.conv1(pixels).flatten(2).transpose(1, 2)  # [B, gh*gw, C]
    cls = visual.class_embedding.to(x.dtype).view(1, 1, -1).expand(b, -1, -1)
    x = torch.cat([cls, x], dim=1)
    pos = visual.positional_embedding.to(x.dtype)
    grid_h, grid_w = visual.grid_size
    if (gh, gw) != (grid_h, grid_w):
        patch_pos = pos[1:].reshape(1, grid_h, grid_w, -1).permute(0, 3, 1, 2)
        patch_pos = F.interpolate(patch_pos, size=(gh, gw), mode="bicubic", align_corners=False)
        pos = torch.cat([pos[:1], patch_pos.permute(0, 2, 3, 1).reshape(gh * gw, -1)], dim=0)
    x = visual.ln_pre(visual.patch_dropout(x + pos))
    _, intermediates = visual.transformer.forward_intermediates(x, indices=1)
    tokens = intermediates[-1]
    if normalize:
        tokens = visual.ln_post(tokens)
    return tokens[:, 1:].reshape(b, gh, gw, -1).permute(0, 3, 1, 2).contiguous()


def _timm_maps(visual: OpenClipModule, pixels: torch.Tensor) -> FeatureMaps:
    """The last intermediate of each stride >= 8 of a timm tower (all its strides if none is)."""
    trunk = visual.trunk
    if not hasattr(trunk, "forward_intermediates"):
        raise TrunkError(f"the timm model {type(trunk).__name__} has no forward_intermediates")
    h = pixels.shape[-2]
    reductions = {info.get("reduction") for info in getattr(trunk, "feature_info", [])}
    if len(reductions) == 1:
        # one stride means a plain ViT: its last block, with the final norm
        (last,) = trunk.forward_intermediates(pixels, indices=1, intermediates_only=True, output_fmt="NCHW", norm=True)
        return FeatureMaps((last,), (max(1, round(h / last.shape[-2])),))
    maps = trunk.forward_intermediates(pixels, indices=None, intermediates_only=True, output_fmt="NCHW")
    by_stride: dict[int, torch.Tensor] = {}
    for m in maps:
        by_stride[max(1, round(h / m.shape[-2]))] = m  # later stages win: deepest map of a stride
    strides = sorted(s for s in by_stride if s >= _MIN_MAP_STRIDE) or sorted(by_stride)
    return FeatureMaps(tuple(by_stride[s] for s in strides), tuple(strides))


# -- building ---------------------------------------------------------------------------------


def checkpoint_digest(path: Path) -> str:
    """A cheap content id: sha1 of the size and the first and last MiB."""
    size = path.stat().st_size
    sha = hashlib.sha1(str(size).encode())
    with path.open("rb") as fh:
        sha.update(fh.read(_HASH_CHUNK))
        if size > 2 * _HASH_CHUNK:
            fh.seek(size - _HASH_CHUNK)
            sha.update(fh.read())
    return sha.hexdigest()[:12]


def _folder_digest(folder: Path) -> str:
    """sha1 of the tokenizer/config files of an HF folder (its weights are not used)."""
    sha = hashlib.sha1()
    for name in _TOKENIZER_FILES:
        f = folder / name
        if f.is_file():
            sha.update(name.encode())
            sha.update(f.read_bytes())
    return sha.hexdigest()[:12]


def _force_hf_offline() -> None:
    """Hugging Face offline mode, also when huggingface_hub was imported earlier."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    constants: Any = sys.modules.get("huggingface_hub.constants")  # a module: its flag is set below
    if constants is not None:
        constants.HF_HUB_OFFLINE = True  # read once at import time


def _resolve_arch(model_name: str) -> tuple[str, dict[str, Any]]:
    """Architecture name and a copy of its open_clip model config."""
    import open_clip

    if not model_name:
        raise TrunkError("the openclip trunk needs an architecture name (TrunkConfig.model_name)")
    if model_name.endswith(".json"):
        path = Path(model_name).expanduser()
        if not path.is_file():
            raise TrunkError(f"open_clip model config {path} not found")
        open_clip.add_model_config(path.resolve())
        model_name = path.stem
    elif ":" in model_name:
        raise TrunkError(
            f"open_clip model name {model_name!r}: 'hf-hub:'/'local-dir:' sources are not supported; "
            "give an architecture name and a local checkpoint file"
        )
    cfg = open_clip.get_model_config(model_name)
    if cfg is None:
        raise TrunkError(
            f"unknown open_clip architecture {model_name!r} "
            f"(see open_clip.list_models(), or pass the path of a model-config .json)"
        )
    return model_name, cfg


def _tag_preprocess(arch: str) -> dict[str, Any]:
    """Image normalisation of ``arch``'s published checkpoints, when they all agree.

    A checkpoint loaded from a file carries no preprocessing config (open_clip
    only knows it for pretrained tags, and defaults to OpenAI's otherwise); the
    weights for one architecture were practically always trained with one
    normalisation, so take it from the tags' configs.
    """
    from open_clip.pretrained import get_pretrained_cfg, list_pretrained_tags_by_model

    seen = set()
    for tag in list_pretrained_tags_by_model(arch):
        cfg = get_pretrained_cfg(arch, tag)
        seen.add((tuple(cfg.get("mean", ())), tuple(cfg.get("std", ())), cfg.get("interpolation")))
    if len(seen) == 1:
        mean, std, interpolation = seen.pop()
        return {"image_mean": mean or None, "image_std": std or None, "image_interpolation": interpolation}
    if seen:
        log.warning("open_clip %s checkpoints use different image normalisations; using open_clip's default", arch)
    return {}


def _image_side(visual: OpenClipModule, preprocess_cfg: Mapping[str, Any]) -> int:
    size = getattr(visual, "image_size", None) or preprocess_cfg.get("size")
    if isinstance(size, (tuple, list)):
        if len(set(size)) != 1:
            raise TrunkError(f"non-square image size {tuple(size)} is not supported by the trunk interface")
        size = size[0]
    if size is None:
        raise TrunkError(f"the {type(visual).__name__} image tower declares no image size, nor does its config")
    return int(size)


def build_openclip_backend(config: TrunkConfig) -> nn.Module:
    """Build an ``OpenClipBackend`` from local files only (see the module doc)."""
    _force_hf_offline()
    import open_clip
    from open_clip.tokenizer import HFTokenizer, SimpleTokenizer

    start = time.perf_counter()
    arch, model_cfg = _resolve_arch(config.model_name)
    if not config.pretrained:
        raise TrunkError(f"the openclip trunk {arch!r} needs a local checkpoint file (TrunkConfig.pretrained)")
    checkpoint = Path(config.pretrained).expanduser().resolve()
    if not checkpoint.is_file():
        raise TrunkError(f"open_clip checkpoint {checkpoint} not found")

    text_cfg = dict(model_cfg.get("text_cfg", {}))
    hf_names = {k: text_cfg[k] for k in ("hf_model_name", "hf_tokenizer_name") if text_cfg.get(k)}
    model_kwargs: dict[str, Any] = {}
    hf_dir: Path | None = None
    if hf_names:
        if not config.text_tower_dir:
            raise TrunkError(
                f"open_clip architecture {arch!r} uses the Hugging Face text tower/tokenizer "
                f"{sorted(set(hf_names.values()))}; it needs a local folder with its config and tokenizer "
                "files (TrunkConfig.text_tower_dir, or openclip:ARCH:CHECKPOINT:HF_TEXT_DIR); "
                "nothing is downloaded"
            )
        hf_dir = Path(config.text_tower_dir).expanduser().resolve()
        if not hf_dir.is_dir():
            raise TrunkError(f"Hugging Face text tower folder {hf_dir} not found")
        if "hf_model_name" in hf_names:
            if not (hf_dir / "config.json").is_file():
                raise TrunkError(f"{hf_dir} has no config.json for the {hf_names['hf_model_name']!r} text tower")
            # the whole text_cfg is replaced by this kwarg, so it must carry every key;
            # the tower's weights come from the CLIP checkpoint, never from the Hub
            model_kwargs["text_cfg"] = {
                **text_cfg,
                "hf_model_name": str(hf_dir),
                "hf_tokenizer_name": str(hf_dir),
                "hf_model_pretrained": False,
            }

    try:
        model, _, preprocess = open_clip.create_model_and_transforms(
            arch,
            pretrained=str(checkpoint),
            device=config.device,
            image_resize_mode="squash",
            **_tag_preprocess(arch),
            pretrained_image=False,
            pretrained_text=False,
            **model_kwargs,
        )
    except (RuntimeError, ValueError, KeyError, OSError) as exc:
        raise TrunkError(f"cannot build open_clip {arch!r} from {checkpoint}: {exc}") from exc

    from open_clip.timm_model import TimmModel

    if isinstance(model.visual, TimmModel):  # tf_* towers: "same" padding without a padded copy
        from core.backends._same_padding import fold_same_padding

        fold_same_padding(model.visual)
    context_length = text_cfg.get("context_length", open_clip.tokenizer.DEFAULT_CONTEXT_LENGTH)
    eot_id: int | None = None
    if hf_dir is not None:
        # open_clip.get_tokenizer would ask the Hub for hf_tokenizer_name; same
        # construction, from the local folder
        try:
            tokenizer = HFTokenizer(
                str(hf_dir),
                context_length=context_length,
                tokenizer_mode=text_cfg.get("tokenizer_mode"),
                local_files_only=True,
                **text_cfg.get("tokenizer_kwargs", {}),
            )
        except (OSError, ValueError) as exc:
            raise TrunkError(f"cannot load the tokenizer from {hf_dir}: {exc}") from exc
        pad_id = tokenizer.tokenizer.pad_token_id
        if pad_id is None:
            raise TrunkError(f"the tokenizer in {hf_dir} has no pad token")
    else:
        tokenizer = open_clip.get_tokenizer(arch)
        pad_id = 0  # open_clip's tokenizers pad with zeros
        if isinstance(tokenizer, SimpleTokenizer):
            eot_id = tokenizer.eot_token_id

    digest = checkpoint_digest(checkpoint)
    version = f"openclip:{arch}:{digest}"
    text_version = f"{version}+tok:{_folder_digest(hf_dir)}" if hf_dir is not None else version
    backend = OpenClipBackend(
        model,
        preprocess,
        tokenizer,
        embed_dim=int(model_cfg["embed_dim"]),
        image_size=_image_side(model.visual, getattr(model.visual, "preprocess_cfg", {})),
        context_length=int(context_length),
        pad_id=int(pad_id),
        eot_id=eot_id,
        component_versions={"image": version, "text": text_version, "joint": version},
    )
    log.info("openclip trunk %s from %s built in %.1fs", arch, checkpoint, time.perf_counter() - start)
    return backend
