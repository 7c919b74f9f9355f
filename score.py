"""Score a submission: ``python score.py --pred OUT --true TRUE [--json]`` (core.score, registered tasks)."""

from __future__ import annotations

import registry
from core.score import main

if __name__ == "__main__":
    raise SystemExit(main(None, registry))
