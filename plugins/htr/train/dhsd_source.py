"""Where DHSD (the German Handwriting Street-name Dataset) comes from and which of its writers are held
out: the facts that both ``dhsd`` (which reads it) and ``fit`` (whose head card names it) need, apart,
so that the two do not import each other."""

from __future__ import annotations

from pathlib import Path

REPOSITORY = "https://github.com/nauman-riaz/DHSD"
COMMIT = "ab871d395966c3f1177444a2db847e047b9559b8"
SUBDIR = "german_hw_data"
LABELS = "data.csv"
LICENCE = "CC BY 4.0 (DHSD, Riaz, Saifullah, Agne, Dengel, Ahmed 2026, https://doi.org/10.5281/zenodo.18743313)"
DATA_DIR = Path.home() / ".cache" / "fusionbrain" / "dhsd"
# Seven whole writers (every fifth id), about 1,100 images: the real dev set, never trained on.
HELDOUT_WRITERS = (5, 10, 15, 20, 25, 30, 35)
