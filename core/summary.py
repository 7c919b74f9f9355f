"""``python -m core.summary OUT_DIR``: a short human summary of each prediction file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def summarize(path: Path, examples: int = 3) -> str:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    lines = [f"{path.name}: {len(data)} predictions"]
    for key, value in list(data.items())[:examples]:
        text = json.dumps(value, ensure_ascii=False)
        lines.append(f"  {key}: {text[:160]}{'...' if len(text) > 160 else ''}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m core.summary OUT_DIR", file=sys.stderr)
        return 2
    files = sorted(Path(args[0]).glob("prediction_*.json"))
    if not files:
        print(f"no prediction files in {args[0]}", file=sys.stderr)
        return 1
    for path in files:
        print(summarize(path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
