"""Tiny training sources in the public formats ``train.py --data`` reads (TEAM.md), for tests.

``write_tiny_sources(root)`` draws a dozen small pictures of coloured boxes and writes:

* ``challenge``: a set in the challenge layout with all four tasks (``input/`` + ``true/``);
* ``coco_captions`` / ``coco_images``: a COCO captions JSON and its image folder;
* ``coco_instances``: a COCO instances JSON over the same images;
* ``vg_regions`` / ``vg_images``: a Visual Genome ``region_descriptions.json``;
* ``vqa_questions`` / ``vqa_annotations`` / ``vqa_images``: VQA v2 JSONs;
* ``okvqa_jsonl``: text-only OK-VQA lines; ``eval``: the challenge set again;
* ``htr``: word images with ``labels.tsv``; ``c2c_jsonl``: Java/Python pairs, AVATAR's layout.

Every trainer gets all of them (each reads what it can use), and ``train.py --data-root
none`` keeps it to them: the test needs nothing outside the temporary folder.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

COLOURS = {"red": (220, 30, 30), "blue": (30, 60, 220), "green": (30, 170, 60), "yellow": (230, 210, 30)}
RU = {"red": "красный", "blue": "синий", "green": "зелёный", "yellow": "жёлтый"}
SIZE = (128, 96)
IMAGES = 12
HTR_WORDS = ["we", "news", "to", "my", "place", "years", "школа", "книга"]
C2C = {
    "0": (
        "static int add ( int a , int b ) { return a + b ; }",
        "def add ( a , b ) : NEW_LINE INDENT return a + b NEW_LINE DEDENT",
    ),
    "1": (
        "static boolean isEven ( int n ) { return n % 2 == 0 ; }",
        "def isEven ( n ) : NEW_LINE INDENT return n % 2 == 0 NEW_LINE DEDENT",
    ),
    "2": (
        "static int sq ( int x ) { return x * x ; }",
        "def sq ( x ) : NEW_LINE INDENT return x * x NEW_LINE DEDENT",
    ),
}


def _dump(path: Path, obj: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return path


def _pictures(folder: Path, rng: random.Random) -> dict[str, dict[str, list[list[int]]]]:
    """Draw the pictures; ``{file: {colour: [[x, y, w, h]]}}`` for the boxes each holds."""
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    scenes = {}
    for i in range(IMAGES):
        image = Image.new("RGB", SIZE, (245, 245, 245))
        draw = ImageDraw.Draw(image)
        boxes: dict[str, list[list[int]]] = {}
        for colour in rng.sample(sorted(COLOURS), 2):
            w, h = rng.randint(24, 56), rng.randint(20, 44)
            x, y = rng.randint(0, SIZE[0] - w), rng.randint(0, SIZE[1] - h)
            draw.rectangle((x, y, x + w - 1, y + h - 1), fill=COLOURS[colour])
            boxes[colour] = [[x, y, w, h]]
        name = f"{i:012d}.jpg"
        image.save(folder / name, quality=95)
        scenes[name] = boxes
    return scenes


def _words(folder: Path) -> dict[str, str]:
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    labels = {}
    for i, word in enumerate(HTR_WORDS):
        image = Image.new("RGB", (32 + 12 * len(word), 32), (255, 255, 255))
        ImageDraw.Draw(image).text((6, 8), word, fill=(20, 20, 20))
        image.save(folder / f"{i}.png")
        labels[f"{i}.png"] = word
    return labels


def write_tiny_sources(root: Path, seed: int = 0) -> dict[str, list[Path]]:
    """Write every source under ``root``; returns ``{name: [path]}`` as ``train.py --data`` collects it."""
    rng = random.Random(seed)
    images = root / "images"
    scenes = _pictures(images, rng)
    names = sorted(scenes)
    ids = {name: int(Path(name).stem) for name in names}

    # challenge layout: zsOD, VQA, HTR, C2C
    ch = root / "challenge"
    zs_images = ch / "input" / "zsOD" / "images"
    zs_images.mkdir(parents=True)
    vqa_images = ch / "input" / "VQA" / "images"
    vqa_images.mkdir(parents=True)
    requests, zs_true, questions, vqa_true = {}, {}, {}, {}
    for name in names:
        # own file names: a key names one image across sources (the COCO files use the plain names)
        ch_name = f"ch{name}"
        (zs_images / ch_name).write_bytes((images / name).read_bytes())
        (vqa_images / ch_name).write_bytes((images / name).read_bytes())
        requests[ch_name] = [f"a {c} box" for c in sorted(COLOURS)]
        zs_true[ch_name] = {f"a {c} box": scenes[name].get(c, []) for c in sorted(COLOURS)}
        for colour in sorted(COLOURS):
            qid = str(len(questions))
            if qid.endswith(("1", "5")):
                questions[qid] = {"file_name": ch_name, "question": f"Есть ли на картинке {RU[colour]} квадрат?"}
                vqa_true[qid] = {"answer": "да" if colour in scenes[name] else "нет", "lang": "ru"}
            else:
                questions[qid] = {"file_name": ch_name, "question": f"Is there a {colour} box in the picture?"}
                vqa_true[qid] = {"answer": "yes" if colour in scenes[name] else "no", "lang": "en"}
        qid = str(len(questions))
        questions[qid] = {"file_name": ch_name, "question": "What color is the biggest box?"}
        biggest = max(scenes[name], key=lambda c: scenes[name][c][0][2] * scenes[name][c][0][3])
        vqa_true[qid] = {"answer": biggest, "lang": "en"}
    _dump(ch / "input" / "zsOD" / "requests.json", requests)
    _dump(ch / "true" / "zsOD" / "true_zsOD.json", zs_true)
    _dump(ch / "input" / "VQA" / "questions.json", questions)
    _dump(ch / "true" / "VQA" / "true_VQA.json", vqa_true)
    htr_labels = _words(ch / "input" / "HTR" / "images")
    _dump(ch / "true" / "HTR" / "true_HTR.json", htr_labels)
    _dump(ch / "input" / "C2C" / "requests.json", {k: java for k, (java, _) in C2C.items()})
    _dump(ch / "true" / "C2C" / "true_C2C.json", {k: python for k, (_, python) in C2C.items()})

    # captions folder and COCO captions / instances JSONs
    captions = {
        name: [f"a {' and a '.join(sorted(scenes[name]))} box on a white background", "two coloured boxes"]
        for name in names
    }
    categories = [{"id": i + 1, "name": f"{c} box", "supercategory": "box"} for i, c in enumerate(sorted(COLOURS))]
    cat_id = {c: i + 1 for i, c in enumerate(sorted(COLOURS))}
    coco_images = [{"id": ids[n], "file_name": n, "width": SIZE[0], "height": SIZE[1]} for n in names]
    instances = [
        {
            "id": len(names) * k + j,
            "image_id": ids[n],
            "category_id": cat_id[c],
            "bbox": box[0],
            "area": 1,
            "iscrowd": 0,
        }
        for j, n in enumerate(names)
        for k, (c, box) in enumerate(sorted(scenes[n].items()))
    ]
    coco_instances = _dump(
        root / "coco" / "instances.json", {"images": coco_images, "annotations": instances, "categories": categories}
    )
    coco_captions = _dump(
        root / "coco" / "captions.json",
        {
            "images": coco_images,
            "annotations": [
                {"id": i, "image_id": ids[n], "caption": c}
                for i, (n, cs) in enumerate(captions.items())
                for c in cs[:1]
            ],
        },
    )
    vg = _dump(
        root / "vg" / "region_descriptions.json",
        [
            {
                "id": ids[n],
                "regions": [
                    {
                        "image_id": ids[n],
                        "phrase": f"a {c} box",
                        "x": b[0][0],
                        "y": b[0][1],
                        "width": b[0][2],
                        "height": b[0][3],
                    }
                    for c, b in sorted(scenes[n].items())
                ],
            }
            for n in names
        ],
    )
    vqa_q = _dump(
        root / "vqa" / "questions.json",
        {
            "questions": [
                {"question_id": int(q), "image_id": ids[v["file_name"].removeprefix("ch")], "question": v["question"]}
                for q, v in questions.items()
            ]
        },
    )
    vqa_a = _dump(
        root / "vqa" / "annotations.json",
        {
            "annotations": [
                {
                    "question_id": int(q),
                    "image_id": ids[questions[q]["file_name"].removeprefix("ch")],
                    "multiple_choice_answer": v["answer"],
                    "answers": [{"answer": v["answer"]}] * 3,
                }
                for q, v in vqa_true.items()
            ]
        },
    )
    okvqa = root / "okvqa" / "qa.jsonl"
    okvqa.parent.mkdir(parents=True)
    okvqa.write_text(
        "".join(
            json.dumps({"question_id": i, "image_id": i, "question": q, "answers": [a]}) + "\n"
            for i, (q, a) in enumerate(
                [
                    ("What colour is a banana?", "yellow"),
                    ("What colour is grass?", "green"),
                    ("What colour is the sky?", "blue"),
                    ("What colour is a tomato?", "red"),
                ]
                * 3
            )
        ),
        encoding="utf-8",
    )
    c2c = root / "c2c" / "pairs.jsonl"
    c2c.parent.mkdir(parents=True)
    c2c.write_text(
        "".join(json.dumps({"id": k, "java": [j], "python": [p]}) + "\n" for k, (j, p) in C2C.items()),
        encoding="utf-8",
    )
    htr_dir = root / "htr"
    htr = _words(htr_dir)
    (htr_dir / "labels.tsv").write_text("".join(f"{f}\t{t}\n" for f, t in htr.items()), encoding="utf-8")
    return {
        "challenge": [ch],
        "eval": [ch],
        "coco_captions": [coco_captions],
        "coco_images": [images],
        "coco_instances": [coco_instances],
        "vg_regions": [vg],
        "vg_images": [images],
        "vqa_questions": [vqa_q],
        "vqa_annotations": [vqa_a],
        "vqa_images": [images],
        "okvqa_jsonl": [okvqa],
        "htr": [htr_dir],
        "c2c_jsonl": [c2c],
    }


def data_args(sources: dict[str, list[Path]]) -> list[str]:
    """The sources as ``train.py`` arguments: ``--data NAME=PATH`` each."""
    return [arg for name, paths in sources.items() for p in paths for arg in ("--data", f"{name}={p}")]
