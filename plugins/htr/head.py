"""Where the HTR head lives: the one spelling of its file names, for ``task.py`` (load) and
``train/`` (save, warm start). The shipped head is in ``weights/``; a trained one in
``HEADS/htr/<trunk version>/`` holds the same two files."""

from __future__ import annotations

from pathlib import Path

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"  # the shipped head
WEIGHTS_NAME = "htr_head.safetensors"  # the head's tensors (fp16)
CARD_NAME = "htr_head.json"  # its card: config, input size, trunk components, dev scores
LEXICON_NAME = "htr_lexicon.npz"  # the decoder's prebuilt word list (shipped beside the head, any trunk)
