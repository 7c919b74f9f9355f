"""The VQA task end to end on hand-made fixtures with the fake trunk: conformance and bad input."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from core.errors import InputError, TrunkError
from core.task import Prediction, SetupContext
from core.testing import assert_task_conforms, make_fake_trunk
from plugins.vqa.task import VqaSample, VqaTask

DATA = Path(__file__).parent / "data"
NO_HEAD = DATA / "no_head.safetensors"  # absent: the hand-set head, which fits any trunk


@pytest.fixture(scope="module")
def predictions() -> dict[str, str]:
    preds = assert_task_conforms(VqaTask(NO_HEAD), DATA, make_fake_trunk(seed=0))
    return {p.key: p.value for p in preds}


def test_every_question_gets_a_string_answer(predictions: dict[str, str]) -> None:
    keys = set(json.loads((DATA / "VQA" / "questions.json").read_text(encoding="utf-8")))
    assert set(predictions) == keys
    assert all(isinstance(v, str) and v for v in predictions.values())


def test_answers_follow_the_question(predictions: dict[str, str]) -> None:
    assert predictions["0"] in ("yes", "no")  # English yes/no
    assert predictions["2"] in {str(n) for n in range(0, 101)}  # counting: digits
    assert predictions["3"] in ("мяч", "коробка")  # "X или Y": one of the quoted options
    assert predictions["4"] in ("yes", "no")  # missing image: answered from the question alone


def test_bad_entries_get_the_language_fallback(predictions: dict[str, str]) -> None:
    assert predictions["6"] == "yes"  # empty question
    assert predictions["7"] == "yes"  # non-string question
    assert predictions["10"] == "yes"  # entry is not an object


def test_discover_keeps_and_logs_every_problem(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="plugins.vqa.task"):
        samples = {s.key: s for s in VqaTask().discover(DATA)}
    assert len(samples) == 11
    s2, s3, s8 = samples["2"], samples["3"], samples["8"]
    assert isinstance(s2, VqaSample) and s2.image == DATA / "VQA" / "images" / "0.jpg"  # older "image_id" key
    assert isinstance(s3, VqaSample) and s3.image == DATA / "VQA" / "images" / "1.png" and s3.lang == "ru"
    assert isinstance(s8, VqaSample) and s8.image is None
    text = caplog.text
    for needle in (
        "missing.jpg: not found",
        "no usable question text",
        "names no image",
        "language unknown",
        "not an object",
    ):
        assert needle in text


def test_unreadable_image_is_logged_and_answered(caplog: pytest.LogCaptureFixture) -> None:
    task = VqaTask(NO_HEAD)
    trunk = make_fake_trunk()
    loaded = task.setup(SetupContext(trunk))
    sample = VqaSample("5", DATA / "VQA" / "images" / "broken.jpg", "Что это?", "ru")
    with caplog.at_level(logging.WARNING, logger="plugins.vqa.task"):
        batch = task.preprocess([sample], trunk, loaded)
    assert batch.image_rows == [None] and "unreadable image" in caplog.text
    answer = task.postprocess(task.predict(batch, trunk, loaded), [sample], loaded)[0].value
    assert isinstance(answer, str) and answer


def test_fallback_by_language() -> None:
    task = VqaTask()
    assert task.fallback(VqaSample("a", None, "Это кошка?", "ru")) == Prediction("a", "да")
    assert task.fallback(VqaSample("b", None, "Is it a cat?", "en")) == Prediction("b", "yes")


def test_discover_without_question_file(tmp_path: Path) -> None:
    assert VqaTask().discover(tmp_path) == []
    (tmp_path / "VQA" / "images").mkdir(parents=True)
    with pytest.raises(InputError):
        VqaTask().discover(tmp_path)


def test_head_refuses_another_trunk(tmp_path: Path) -> None:
    from plugins.vqa.head import load_head, untrained_head, yesno_width

    trunk = make_fake_trunk()
    head = untrained_head(trunk.embed_dim)
    head.card = {"trunk_versions": {"image": "other-image", "text": "fake-text-1", "joint": "fake-joint-1"}}
    head.save(tmp_path / "w.safetensors", tmp_path / "w.json")
    with pytest.raises(TrunkError, match="another trunk"):
        load_head(trunk, tmp_path / "w.safetensors", tmp_path / "w.json")
    head.card = {"trunk_versions": dict(trunk.component_versions)}
    head.save(tmp_path / "w.safetensors", tmp_path / "w.json")
    assert load_head(trunk, tmp_path / "w.safetensors", tmp_path / "w.json").yesno_w.shape == (
        yesno_width(trunk.embed_dim),
    )


def test_shipped_head_is_not_used_on_another_trunk(caplog: pytest.LogCaptureFixture) -> None:
    from plugins.vqa.head import CARD_FILE, WEIGHTS_FILE, load_head

    if not WEIGHTS_FILE.exists():
        pytest.skip("no trained head shipped")
    task = VqaTask()
    with caplog.at_level(logging.WARNING):
        loaded = task.setup(SetupContext(make_fake_trunk()))
    assert "no trained head for this trunk" in caplog.text
    assert loaded.answerer.head.card["mode"] == "no head"  # the weight-free mode, prompt templates on
    with pytest.raises(TrunkError, match="another trunk"):
        load_head(make_fake_trunk(), WEIGHTS_FILE, CARD_FILE)


def test_import_is_light() -> None:
    import subprocess

    heavy = "('torch', 'open_clip', 'ultralytics', 'transformers')"
    code = f"import sys, plugins.vqa; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    assert out.stdout.strip() == "[]"


def test_tower_runs_in_small_passes_on_one_thread_with_the_same_bits(default_trunk, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """On one CPU thread the tower sees ``TOWER_CHUNK`` images a pass (faster), and every embedding has
    the bits of one pass over the whole batch; with more threads, one pass."""
    import torch

    from plugins.vqa import task

    pixels = torch.rand(10, 3, 224, 224, generator=torch.Generator().manual_seed(0)) * 2 - 1
    sizes: list[int] = []
    inner = default_trunk.image_feature_maps
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        pooled = task.region_pool(inner(pixels).maps[-1])
        whole = default_trunk.project_pooled(pooled.reshape(-1, pooled.shape[-1])).reshape(10, task.N_REGIONS, -1)

        def counted(p: torch.Tensor):  # type: ignore[no-untyped-def]
            sizes.append(len(p))
            return inner(p)

        monkeypatch.setattr(default_trunk, "image_feature_maps", counted)
        chunked = task.encode_regions(default_trunk, pixels)
        assert sizes == [4, 4, 2]
        assert torch.equal(chunked, whole)
        sizes.clear()
        torch.set_num_threads(2)
        task.encode_regions(default_trunk, pixels)
        assert sizes == [10]
    finally:
        torch.set_num_threads(threads)


def test_answerer_import_lemmatises_nothing() -> None:
    """Importing the answerer builds no vocabulary: pymorphy3 (about 0.4 s) waits for the setup."""
    import subprocess

    code = (
        "import sys, plugins.vqa.answerer; from plugins.vqa.answers import vocabulary; "
        "print('pymorphy3' in sys.modules, vocabulary.cache_info().currsize)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    assert out.stdout.strip() == "False 0"
