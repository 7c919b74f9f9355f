"""Parameter sharing M / N: ``python params.py [--json] [--trunk SPEC]`` (``core.params`` over the registered tasks)."""

from __future__ import annotations

import registry
from core.params import main

if __name__ == "__main__":
    raise SystemExit(main(None, registry))
