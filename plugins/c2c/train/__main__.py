"""``python -m plugins.c2c.train [train.py options] [--c2c-* flags]``: ``train.py --tasks c2c``."""

import registry
from training import train_cli

raise SystemExit(train_cli("c2c", discovery=registry))
