"""``python -m plugins.htr.train [train.py options] [--htr-* flags]``: ``train.py --tasks htr``."""

import registry
from training import train_cli

raise SystemExit(train_cli("htr", discovery=registry))
