"""Dev-set access for training and evaluation (the trainer and bench/): questions, gold answers and
the fixed held-out split.

Held-out split (documented in the model card): a question is held out when
``sha1(file_name) mod 10 < 3``, i.e. about 30 % of the *images* of every dev set,
with all their questions. Splitting by image keeps the head from ever seeing a
held-out picture. Reported accuracies are on held-out questions only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.io import read_json_object
from core.splits import in_bucket

HELDOUT_MOD = 10
HELDOUT_BELOW = 3


def is_heldout(file_name: str) -> bool:
    """True for the images (and their questions) reserved for evaluation (``core.splits.in_bucket``)."""
    return in_bucket(file_name, HELDOUT_BELOW, HELDOUT_MOD)


@dataclass(frozen=True, slots=True)
class DevQuestion:
    """One question of a dev set with its gold answers."""

    qid: str
    image: Path
    question: str
    answers: tuple[str, ...]  # gold answers; one matching is enough
    lang: str


def load_dev_set(root: Path) -> list[DevQuestion]:
    """Read ``<root>/input/VQA/questions.json`` and ``<root>/true/VQA/true_VQA.json``."""
    questions = read_json_object(root / "input" / "VQA" / "questions.json")
    gold = read_json_object(root / "true" / "VQA" / "true_VQA.json")
    out = []
    for qid, item in questions.items():
        answer = gold[qid]["answer"]
        answers = tuple(answer) if isinstance(answer, list) else (answer,)
        name = str(item.get("file_name") or item.get("image_id"))
        out.append(
            DevQuestion(qid, root / "input" / "VQA" / "images" / name, item["question"], answers, gold[qid]["lang"])
        )
    return out


def write_heldout_set(src: Path, dst: Path) -> int:
    """Write the held-out part of dev set ``src`` as a challenge-layout set at ``dst``.

    ``dst/input/VQA/questions.json`` and ``dst/true/VQA/true_VQA.json`` hold only
    held-out questions; ``dst/input/VQA/images`` links to the source images (no
    copy). Returns the number of questions. Used to score with ``core.score``.
    """
    import json

    questions = read_json_object(src / "input" / "VQA" / "questions.json")
    gold = read_json_object(src / "true" / "VQA" / "true_VQA.json")
    keep = [q for q, item in questions.items() if is_heldout(str(item.get("file_name") or item.get("image_id")))]
    (dst / "input" / "VQA").mkdir(parents=True, exist_ok=True)
    (dst / "true" / "VQA").mkdir(parents=True, exist_ok=True)
    link = dst / "input" / "VQA" / "images"
    if not link.exists():
        link.symlink_to((src / "input" / "VQA" / "images").resolve(), target_is_directory=True)
    dump = {"ensure_ascii": False, "indent": 1}
    (dst / "input" / "VQA" / "questions.json").write_text(
        json.dumps({q: questions[q] for q in keep}, **dump), encoding="utf-8"
    )
    (dst / "true" / "VQA" / "true_VQA.json").write_text(
        json.dumps({q: gold[q] for q in keep}, **dump), encoding="utf-8"
    )
    return len(keep)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Write the held-out part of a VQA dev set (for core.score).")
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    args = parser.parse_args()
    print(f"{write_heldout_set(args.src, args.dst)} held-out questions -> {args.dst}")
