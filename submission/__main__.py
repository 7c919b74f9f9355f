"""``python -m submission {build,check}``."""

from __future__ import annotations

from submission.cli import main

raise SystemExit(main())
