"""``python -m plugins.zsod.train [train.py options] [--zsod-* flags]``: ``train.py --tasks zsod``."""

import registry
from training import train_cli

raise SystemExit(train_cli("zsod", discovery=registry))
