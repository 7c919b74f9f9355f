"""Parameter sharing M / N, and what the trunk is used for: ``python params.py [--json] [--trunk SPEC]
[--ablation SET] [--threads N]`` (``core.params`` over the registered tasks)."""

from __future__ import annotations

from pathlib import Path

import registry
from core.params import main

if __name__ == "__main__":
    raise SystemExit(main(None, registry, run_script=Path(__file__).with_name("run.py")))
