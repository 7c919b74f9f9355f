"""``metadata.json``: the submission's image and entry point, parsed once at the boundary."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.errors import InputError
from core.io import read_json_object


@dataclass(frozen=True, slots=True)
class Metadata:
    image: str  # docker image the organizers run the submission in
    entrypoint: str  # command run from the archive root, must start run.py


def load_metadata(path: Path) -> Metadata:
    """Parse and validate ``metadata.json``; raise ``InputError`` when it is unusable."""
    data = read_json_object(path)
    fields = {}
    for key in ("image", "entrypoint"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{key!r} must be a non-empty string", path)
        fields[key] = value.strip()
    if "run.py" not in fields["entrypoint"]:
        raise InputError("the entrypoint must run run.py", path)
    return Metadata(**fields)
