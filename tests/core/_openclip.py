"""Tiny open_clip models for tests: registered custom configs, seeded random weights, local files only.

``build_checkpoint`` writes an architecture's config JSON and a checkpoint of a
seeded random model into a folder; the trunk spec ``openclip:<config>.json:<ckpt>``
(plus ``:<hf folder>`` for Hugging Face text towers) then loads it without any
registry lookup, also in a fresh ``run.py`` or ``train.py`` process.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CLIP_TEXT = {"context_length": 16, "vocab_size": 49408, "width": 64, "heads": 2, "layers": 2}
HF_TEXT = {
    # the real xlm-roberta-base-ViT-B-32 text_cfg, shrunk; the Hub name is never used
    "hf_model_name": "xlm-roberta-base",
    "hf_tokenizer_name": "xlm-roberta-base",
    "hf_pooler_type": "mean_pooler",
    "hf_proj_type": "linear",
    "context_length": 16,
}
VIT = {"image_size": 64, "layers": 2, "width": 64, "head_width": 32, "patch_size": 16}
WORDS = ["a", "photo", "of", "cat", "dog", "bus", "автобус", "кошка"]


@contextlib.contextmanager
def offline() -> Iterator[None]:
    """No connection (nor name lookup) inside; Hugging Face's offline switch, which the
    openclip backend turns on for good, is given back afterwards."""

    import pytest

    from tests._network import refuse_network

    with pytest.MonkeyPatch.context() as mp:
        refuse_network(mp)
        mp.setenv("HF_HUB_OFFLINE", os.environ.get("HF_HUB_OFFLINE", "0"))
        mp.setenv("TRANSFORMERS_OFFLINE", os.environ.get("TRANSFORMERS_OFFLINE", "0"))
        import huggingface_hub.constants as hf_constants

        mp.setattr(hf_constants, "HF_HUB_OFFLINE", hf_constants.HF_HUB_OFFLINE)
        yield


def write_hf_folder(folder: Path) -> Path:
    """A tiny XLM-R config and a word-level tokenizer with XLM-R's special ids (pad = 1)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast, XLMRobertaConfig

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, **{w: i + 4 for i, w in enumerate(WORDS)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)])
    PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>"
    ).save_pretrained(folder)
    XLMRobertaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=HF_TEXT["context_length"] + 2,  # XLM-R positions start after pad id
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    ).save_pretrained(folder)
    return folder


def build_checkpoint(
    root: Path, name: str, cfg: dict[str, Any], *, seed: int, hf_dir: Path | None = None
) -> tuple[Path, Path, Any]:
    """Register ``name`` from ``root/<name>.json``, build it with seed ``seed``, save ``root/<name>.pt``.

    Returns ``(config json, checkpoint, the raw model in eval mode)``. An HF text
    tower is built from ``hf_dir`` (its config; random weights), never the Hub.
    """
    import open_clip
    import torch

    config = root / f"{name}.json"
    config.write_text(json.dumps(cfg), encoding="utf-8")
    open_clip.add_model_config(config)
    extra: dict[str, Any] = {}
    if "hf_model_name" in cfg["text_cfg"]:
        if hf_dir is None:
            raise ValueError(f"{name} has a Hugging Face text tower: pass its local folder")
        extra["text_cfg"] = {**cfg["text_cfg"], "hf_model_name": str(hf_dir), "hf_model_pretrained": False}
    torch.manual_seed(seed)
    model = open_clip.create_model(name, pretrained=None, pretrained_text=False, **extra).eval()
    checkpoint = root / f"{name}.pt"
    torch.save(model.state_dict(), checkpoint)
    return config, checkpoint, model
