"""``python -m plugins.vqa.train [train.py options] [--vqa-* flags]``: ``train.py --tasks vqa``."""

import registry
from training import train_cli

raise SystemExit(train_cli("vqa", discovery=registry))
