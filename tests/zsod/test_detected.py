from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import registry
from core.detector.phrases import (
    ClassMatch,
    MappingRule,
    class_match,
    nominative,
    phrase_head,
    phrase_queries,
    synonym_names,
)
from core.task import SetupContext
from core.testing import FakeDetector, assert_task_conforms
from plugins.zsod.decision import Calibration
from plugins.zsod.detected import Detected, DetectionRule, choose_detected
from plugins.zsod.task import ZsodTask

DATA = Path(__file__).parent / "data"
EAGER = Calibration(present=0.0, extra=1.01, max_boxes=1)
RULE = DetectionRule(mapping=MappingRule(min_cos=0.5, min_margin=0.05), present=0.3, extra=0.4, described_present=0.3)


@pytest.mark.parametrize(
    ("phrase", "core", "head", "bare"),
    [
        ("a man in a suit", "man", "man", False),
        ("the tv on the table by the couch", "tv", "tv", False),
        ("a blue bus", "blue bus", "bus", True),
        ("hot dog", "hot dog", "dog", True),
        ("a pair of scissors", "scissors", "scissors", False),
        ("there are people on the bench", "people", "people", False),
        ("man's shirt is white in color", "man's shirt", "shirt", False),
        ("мужчина с галстуком", "мужчина", "мужчина", False),
        ("автобус", "автобус", "автобус", True),
        ("белая подушка и ребенок", "белая подушка", "подушка", False),
        ("у женщины черные волосы", "черные волосы", "волос", False),
        ("книги в книжном шкафу", "книги", "книга", False),
        ("растение в горшке", "растение", "растение", False),
    ],
)
def test_phrase_head_finds_the_object_named(phrase: str, core: str, head: str, bare: bool) -> None:
    assert phrase_head(phrase) == (core, head, "ru" if any("а" <= c <= "я" for c in phrase) else "en", bare)


def test_queries_add_generic_synonyms_and_average_a_core_with_its_head() -> None:
    assert synonym_names("women") == ("person",) and synonym_names("люди") == ("person",)
    assert synonym_names("kangaroo") == ()
    assert phrase_queries("a man in a suit") == (("man", "person"), 1)
    assert phrase_queries("hot dog") == (("hot dog", "dog"), 2)


def _unit(*rows: list[float]) -> torch.Tensor:
    t = torch.tensor(rows, dtype=torch.float32)
    return t / t.norm(dim=-1, keepdim=True)


def test_class_match_takes_the_best_query_and_abstains_below_the_margin() -> None:
    classes = _unit([1, 0, 0], [0, 1, 0], [0, 0, 1])
    clear = _unit([0.1, 1, 0])
    between = _unit([1, 1, 0])  # equally far from two classes
    far = _unit([1, 1, 1])
    matches = class_match([clear, between, far, torch.zeros(0, 3)], [1, 1, 1, 0], classes)
    assert matches[0].label == 1 and matches[0].accepted(MappingRule(0.5, 0.05))
    assert not matches[1].accepted(MappingRule(0.5, 0.05))  # margin 0
    assert not matches[2].accepted(MappingRule(0.5, 0.05))  # cos 0.58 but no margin
    assert matches[3] == ClassMatch(-1, -1.0, 0.0)
    averaged = class_match([_unit([1, 0.3, 0], [0, 1, 0])], [2], classes)[0]
    assert averaged.label == 1 and averaged.margin > 0  # core and head count together
    synonym = class_match([_unit([1, 1, 1], [0, 0, 1])], [1], classes)[0]
    assert synonym.label == 2 and synonym.cos == pytest.approx(1.0)  # a synonym stands on its own


def _detected(matches: tuple[ClassMatch, ...], bare: tuple[bool, ...]) -> Detected:
    boxes = np.array(
        [[0, 0, 40, 40], [2, 2, 41, 41], [60, 0, 100, 40], [0, 50, 30, 90], [70, 50, 100, 90]], dtype=np.float32
    )
    scores = np.array([0.9, 0.8, 0.6, 0.5, 0.2], dtype=np.float32)
    labels = np.array([0, 0, 0, 5, 0], dtype=np.int64)
    return Detected(boxes, scores, labels, matches, bare, 100, np.full(len(matches), 0.7))


def test_a_bare_phrase_gets_every_instance_once_and_no_duplicates() -> None:
    det = _detected((ClassMatch(0, 0.7, 0.3),), (True,))
    assert choose_detected(det, 0, "person", RULE) == [0, 2]  # box 1 duplicates box 0; box 4 scores too low


def test_absent_class_answers_empty_and_an_unmapped_phrase_is_left_to_the_grid() -> None:
    det = _detected((ClassMatch(7, 0.7, 0.3), ClassMatch(0, 0.3, 0.3), ClassMatch(0, 0.7, 0.01)), (True,) * 3)
    assert choose_detected(det, 0, "truck", RULE) == []  # mapped, but the detector found none
    assert choose_detected(det, 1, "a wall", RULE) is None  # cosine too low
    assert choose_detected(det, 2, "a wall", RULE) is None  # margin too low


def test_a_described_phrase_without_what_the_detections_show_gets_the_confident_best() -> None:
    det = _detected((ClassMatch(0, 0.7, 0.3),), (False,))
    assert choose_detected(det, 0, "a man in a red suit", RULE) == [0]  # the detector's best
    assert choose_detected(det, 0, "a man in a red suit", DetectionRule(described_present=0.95)) == []


def test_phrases_without_a_class_answer_empty_unless_the_rule_lets_the_grid_answer(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    unmapped = MappingRule(min_cos=2.0)
    answers = {}
    rules = {
        "none": DetectionRule(mapping=unmapped),
        "names": DetectionRule(mapping=unmapped, grid_names=0.0),
        "all": DetectionRule(mapping=unmapped, grid_names=0.0, grid_described=0.0),
    }
    for name, rule in rules.items():
        task = ZsodTask(calibration=EAGER, rule=rule)
        loaded = task.setup(SetupContext.with_detector(fake_trunk, FakeDetector(boxes=3)))
        samples = [s for s in task.discover(DATA) if s.key in ("0.jpg", "4.jpg")]
        raw = task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded)
        answers[name] = {p.key: p.value for p in task.postprocess(raw, samples, loaded)}
    assert all(b == [] for a in answers["none"].values() for b in a.values())  # the grid answers nothing
    assert all(len(b) == 1 for b in answers["names"]["0.jpg"].values())  # class-like names: the grid answers
    assert answers["names"]["4.jpg"] == {"red square on the left": []}  # described, no class: absent
    assert len(answers["all"]["4.jpg"]["red square on the left"]) == 1  # unless the rule lets the grid answer


def test_the_grid_is_skipped_for_an_image_whose_phrases_all_have_a_class(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    task = ZsodTask(calibration=EAGER, rule=DetectionRule(mapping=MappingRule(min_cos=-1.0, min_margin=0.0)))
    loaded = task.setup(SetupContext.with_detector(fake_trunk, FakeDetector(boxes=3)))
    samples = [s for s in task.discover(DATA) if s.key == "0.jpg"]
    (scored,) = task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded)
    assert scored is not None and scored.detected is not None
    assert scored.boxes.shape == (0, 4) and scored.probs.shape == (0, 3)
    (prediction,) = task.postprocess([scored], samples, loaded)
    assert list(prediction.value) == list(samples[0].phrases)


def test_conformance_with_the_fake_detector(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    detector = FakeDetector(boxes=3)
    task = ZsodTask(calibration=EAGER, rule=DetectionRule(mapping=MappingRule(min_cos=-1.0, min_margin=0.0)))
    predictions = assert_task_conforms(task, DATA, fake_trunk, detector=detector)
    readable = 5  # 0.jpg .. 4.jpg; the others are missing, truncated or without phrases
    assert detector.calls > 0 and detector.calls % readable == 0  # once per image a pass, never per phrase
    for p in predictions:
        for boxes in p.value.values():
            assert len({tuple(b) for b in boxes}) == len(boxes)


def test_without_a_detector_every_phrase_takes_the_grid(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    task = ZsodTask(calibration=EAGER)
    loaded = task.setup(SetupContext.with_detector(fake_trunk, None))
    samples = [s for s in task.discover(DATA) if s.key == "0.jpg"]
    raw = task.predict(task.preprocess(samples, fake_trunk, loaded), fake_trunk, loaded)
    assert raw[0] is not None and raw[0].detected is None
    (prediction,) = task.postprocess(raw, samples, loaded)
    assert all(len(boxes) == 1 for boxes in prediction.value.values())  # the eager grid calibration answers


def test_the_embedded_trunk_maps_class_names_and_abstains_on_other_things() -> None:
    from core.detector import coco_classes
    from core.detector.phrases import class_embeddings
    from core.trunk import TrunkConfig, load_trunk

    trunk = load_trunk(TrunkConfig(), registry.load(load_entrypoints=False))
    names = coco_classes()
    rule = DetectionRule().mapping
    with torch.inference_mode():
        table = class_embeddings(trunk, names)

        def match(phrase: str) -> ClassMatch:
            texts, together = phrase_queries(phrase)
            return class_match([trunk.embed_texts(list(texts))], [together], table)[0]

        missed = [en for i, en in enumerate(names.en) if match(en).label != i]
        assert missed == ["teddy bear"]  # taken for a bear (README.md, "What it does not cover")
        assert all(match(ru).label == i for i, ru in enumerate(names.ru))
        assert names.en[match("a man in a suit").label] == "person"
        assert names.en[match("мужчина с галстуком").label] == "person"
        assert names.en[match("the tv on the table by the couch").label] == "tv"
        for phrase, name in (("the umpire", "person"), ("бабушка", "person"), ("a calf", "cow"), ("the van", "car")):
            assert match(phrase).accepted(rule) and names.en[match(phrase).label] == name, phrase  # SYNONYMS
        assert names.en[match("the lower left sandwich").label] == "sandwich"  # position words are no head
        # a relation's object, inflected, maps once in the nominative ("с доской для сёрфинга")
        assert not match("доской для сёрфинга").accepted(rule)
        assert names.en[match(nominative("доской для сёрфинга")).label] == "surfboard"
        for other in ("white clouds in blue sky", "the building is brick", "leg of the chair"):
            assert not match(other).accepted(rule), other


def test_each_phrase_is_routed_once_between_detector_and_grid() -> None:
    """``detected.routes``: the one decision (and the only reader of ``grid_names`` / ``grid_described``)
    that ``predict`` (whether the grid's inputs are built and the grid runs) and ``postprocess`` (which
    boxes answer, at which calibration) both follow."""
    from types import SimpleNamespace

    from plugins.zsod.detected import DETECTOR, GRID, NOBODY, routes

    def match(ok: bool) -> SimpleNamespace:
        return SimpleNamespace(accepted=lambda rule: ok)

    cal = Calibration(present=0.2, extra=0.5, max_boxes=4)
    det = SimpleNamespace(matches=(match(True), match(False), match(False)), bare=(False, True, False))
    assert routes(None, 2, DetectionRule(), cal) == ((GRID, cal), (GRID, cal))
    # by default a phrase without a detector class gets no grid box (``grid_names`` None: issue #53)
    assert [r.who for r in routes(det, 3, DetectionRule(), cal)] == [DETECTOR, NOBODY, NOBODY]  # type: ignore[arg-type]
    rule = DetectionRule(grid_names=0.5, grid_described=None)
    assert routes(det, 3, rule, cal) == ((DETECTOR, None), (GRID, Calibration(0.5, 0.5, 4)), (NOBODY, None))  # type: ignore[arg-type]
    rule = DetectionRule(grid_names=0.1, grid_described=0.6)
    # each floor at least the heads' presence; a described phrase gets one box
    assert routes(det, 3, rule, cal)[1:] == ((GRID, Calibration(0.2, 0.5, 4)), (GRID, Calibration(0.6, 0.5, 1)))  # type: ignore[arg-type]


def test_the_grid_inputs_are_built_only_for_an_image_the_grid_answers(fake_trunk, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Issue #52: preprocess builds no grid inputs; predict builds them (``with_grid``) only for an image
    with a phrase routed to the grid, and the answers are those of inputs built up front."""
    import plugins.zsod.task as task_module

    built: list[tuple[int, int]] = []
    real = task_module.with_grid

    def counting(item, trunk, spec):  # type: ignore[no-untyped-def]
        built.append(item.image.size)
        return real(item, trunk, spec)

    monkeypatch.setattr(task_module, "with_grid", counting)
    unmapped = MappingRule(min_cos=2.0)
    answers = {}
    for name, rule in {
        "default": DetectionRule(mapping=unmapped),
        "names": DetectionRule(mapping=unmapped, grid_names=0.0),
    }.items():
        task = ZsodTask(calibration=EAGER, rule=rule)
        loaded = task.setup(SetupContext.with_detector(fake_trunk, FakeDetector(boxes=3)))
        samples = [s for s in task.discover(DATA) if s.key in ("0.jpg", "4.jpg")]
        items = task.preprocess(samples, fake_trunk, loaded)
        assert all(i is not None and i.pixels is None and i.whole is None and i.boxes is None for i in items)
        built.clear()
        answers[name] = task.postprocess(task.predict(items, fake_trunk, loaded), samples, loaded)
        if name == "default":
            assert built == []  # no phrase takes the grid: no feature-pass input, no proposals
        else:
            assert built == [(96, 64)]  # 0.jpg's class-like names take the grid; 4.jpg's described phrase does not
            ready = [real(i, fake_trunk, task.grid) for i in items if i is not None]
            assert task.postprocess(task.predict(ready, fake_trunk, loaded), samples, loaded) == answers[name]
    assert all(b == [] for p in answers["default"] for b in p.value.values())
    assert all(len(b) == 1 for b in answers["names"][0].value.values())
