"""Weight files are checked against their cards (``core.weights``, issue 37): every kind of shipped
file, damaged in a copy (bytes flipped in the middle, cut short, missing, a card that does not fit),
names itself in one error; its task falls back; nothing changes an answer silently."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import registry
from bench.weights_verify import shipped_weight_files
from core import runner, weights
from core.weights import SKIP_ENV, WeightsError

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]


# -- the primitive -------------------------------------------------------------------------------


def _file(tmp_path: Path, data: bytes = b"0123456789" * 100) -> tuple[Path, str, int]:
    path = tmp_path / "w.bin"
    path.write_bytes(data)
    return path, weights.sha256_of(path), len(data)


def test_verify_names_the_file_and_what_is_wrong(tmp_path: Path) -> None:
    path, sha, size = _file(tmp_path)
    weights.verify(path, sha, size)
    with pytest.raises(WeightsError, match=r"w\.bin\.gone: missing") as missing:
        weights.verify(tmp_path / "w.bin.gone", sha, size)
    assert missing.value.path == tmp_path / "w.bin.gone"
    path.write_bytes(path.read_bytes()[:600])
    with pytest.raises(WeightsError, match=r"w\.bin: short: 600 bytes, its card says 1,000"):
        weights.verify(path, sha, size)
    path.write_bytes(b"x" * 1001)
    with pytest.raises(WeightsError, match="long: 1,001 bytes"):
        weights.verify(path, sha, size)
    data = bytearray(b"0123456789" * 100)
    data[500] ^= 0xFF  # same size, one byte changed: only the digest sees it
    path.write_bytes(bytes(data))
    with pytest.raises(WeightsError, match=r"w\.bin: altered: sha256 [0-9a-f]{16}\.\.\., its card says"):
        weights.verify(path, sha, size)


def test_the_remembered_digest_follows_the_file(tmp_path: Path) -> None:
    """The digest is remembered by (path, size, mtime): a file rewritten in place is hashed again."""
    import os

    path, sha, size = _file(tmp_path)
    weights.verify(path, sha, size)
    stat = path.stat()
    data = bytearray(path.read_bytes())
    data[10] ^= 1
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    with pytest.raises(WeightsError, match="altered"):
        weights.verify(path, sha, size)


def test_the_switch_skips_the_card_but_not_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path, sha, size = _file(tmp_path)
    path.write_bytes(b"other")
    monkeypatch.setenv(SKIP_ENV, "1")
    monkeypatch.setattr(weights, "_skip_said", [False])
    assert not weights.verification_enabled()
    with caplog.at_level(logging.WARNING, logger="core.weights"):
        weights.verify(path, sha, size)  # the user said so, and the run says it once
        weights.verify(path, sha, size)
    assert caplog.text.count("not checked against their cards") == 1
    with pytest.raises(WeightsError, match="missing"):
        weights.verify(tmp_path / "nothing", sha, size)
    monkeypatch.setenv(SKIP_ENV, "0")
    assert weights.verification_enabled()


def test_the_command_line_flag_is_the_environment_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    from core import cli

    monkeypatch.setenv(SKIP_ENV, "")  # restored after the test: the flag sets it for the process

    class Discovery:
        def get_plugin_manager(self, **_: Any) -> None:
            return None

        def add_plugin_options(self, pm: Any, parser: Any) -> None:
            return None

    _, args, _ = cli.parse_plugin_options(["--no-verify-weights"], cli.build_parser(), Discovery())  # type: ignore[arg-type]
    assert args.no_verify_weights and not weights.verification_enabled()


def test_a_card_without_a_record_is_said_and_the_file_still_must_exist(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path, _, _ = _file(tmp_path)
    with caplog.at_level(logging.WARNING, logger="core.weights"):
        weights.check(path, {"trunk": {}}, card_path=tmp_path / "w.json")
    assert f"{path}" in caplog.text and "records no sha256" in caplog.text
    with pytest.raises(WeightsError, match="missing"):
        weights.check(tmp_path / "absent.bin", {}, card_path=tmp_path / "w.json")


def test_every_shipped_weight_file_is_recorded_by_its_card_and_matches() -> None:
    found = shipped_weight_files()
    assert len(found) >= 8  # heads of four tasks, the HTR lexicon, the trunk's projection and bridge, the detector
    for path, card_path in found:
        assert card_path is not None, f"{path}: no card records its sha256"
        expected = weights.expected_of(json.loads(card_path.read_text(encoding="utf-8")), path.name)
        assert expected is not None and expected.size == path.stat().st_size
        weights.verify(path, expected.sha256, expected.size)


# -- each kind of shipped file, damaged in a copy ----------------------------------------------------


class _AnyTrunk:
    """Enough of a trunk for the loaders: every card fits it, 512-d like the default trunk."""

    embed_dim = 512

    def require_fit(self, recorded: Any, *, what: str) -> None:
        return None

    def mismatches(self, recorded: Any) -> dict[str, Any]:
        return {}


def _load_htr(folder: Path) -> Any:
    from plugins.htr.task import load_head

    return load_head(folder, _AnyTrunk())  # type: ignore[arg-type]


def _load_vqa(folder: Path) -> Any:
    from plugins.vqa.head import load_head

    return load_head(_AnyTrunk(), folder / "vqa_head.safetensors", folder / "vqa_head.json")  # type: ignore[arg-type]


def _load_c2c(folder: Path) -> Any:
    from plugins.c2c.task import load_selector

    return load_selector(_AnyTrunk(), folder)  # type: ignore[arg-type]


def _load_zsod(folder: Path) -> Any:
    from plugins.zsod.verifier import load_verifier

    return load_verifier(_AnyTrunk(), folder / "verifier.safetensors", folder / "verifier.json")  # type: ignore[arg-type]


def _load_lexicon(folder: Path) -> Any:
    from plugins.htr.lexicon import read_lexicon

    return read_lexicon(folder / "htr_lexicon.npz")


def _load_projection(folder: Path) -> Any:
    from core.backends._bridge import BridgeJoint
    from core.backends._joint import load_projection

    card = json.loads((folder / "joint_efficientnet_lite0.json").read_text(encoding="utf-8"))
    tower = SimpleNamespace(version=card["tower"])
    return load_projection(
        folder / "joint_efficientnet_lite0.safetensors", tower=tower, bridge=BridgeJoint(torch.zeros(1000, 512))
    )


def _load_bridge(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from core.backends import _bridge

    monkeypatch.setattr(_bridge, "BRIDGE_FILE", folder / "bridge_in1k_usem3.safetensors")
    monkeypatch.setattr(_bridge, "BRIDGE_CARD", folder / "bridge_in1k_usem3.json")
    return _bridge.load_class_matrix(lambda texts: pytest.fail("the damaged bridge was rebuilt instead of named"))


def _load_detector(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from core.detector import DetectorConfig, nanodet

    monkeypatch.setattr(nanodet, "WEIGHTS_DIR", folder)  # where the NanoDet wrapper reads its weights
    return nanodet.NanoDet(DetectorConfig())


# kind: (shipped folder, weight file, card, loader)
KINDS: dict[str, tuple[Path, str, str, Callable[..., Any]]] = {
    "htr head": (REPO / "plugins/htr/weights", "htr_head.safetensors", "htr_head.json", _load_htr),
    "htr lexicon": (REPO / "plugins/htr/weights", "htr_lexicon.npz", "htr_lexicon.json", _load_lexicon),
    "vqa head": (REPO / "plugins/vqa/weights", "vqa_head.safetensors", "vqa_head.json", _load_vqa),
    "c2c selector": (REPO / "plugins/c2c/weights", "selector.safetensors", "selector.json", _load_c2c),
    "zsod verifier": (REPO / "plugins/zsod/weights", "verifier.safetensors", "verifier.json", _load_zsod),
    "trunk projection": (
        REPO / "core/backends/weights",
        "joint_efficientnet_lite0.safetensors",
        "joint_efficientnet_lite0.json",
        _load_projection,
    ),
    "trunk bridge": (
        REPO / "core/backends/weights",
        "bridge_in1k_usem3.safetensors",
        "bridge_in1k_usem3.json",
        _load_bridge,
    ),
    "detector": (REPO / "core/detector/weights", "nanodet-g-416.safetensors", "nanodet-g-416.json", _load_detector),
}


def _copy(kind: str, tmp_path: Path) -> tuple[Path, Path, Callable[[], Any]]:
    """A copy of ``kind``'s weight folder, its weight file and a loader of the copy."""
    import inspect

    shipped, name, _, loader = KINDS[kind]
    folder = tmp_path / "weights"
    shutil.copytree(shipped, folder)
    monkeypatch = pytest.MonkeyPatch()
    wants_patch = len(inspect.signature(loader).parameters) == 2

    def load() -> Any:
        try:
            return loader(folder, monkeypatch) if wants_patch else loader(folder)
        finally:
            monkeypatch.undo()

    return folder, folder / name, load


def _flip_middle(path: Path) -> None:
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 8] = bytes(b ^ 0xA5 for b in data[middle : middle + 8])
    path.write_bytes(bytes(data))


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "bytes flipped in the middle": (_flip_middle, "altered: sha256"),
    "cut short": (lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]), "short: "),
    "missing": (lambda p: p.unlink(), "missing"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_damaged_copy_names_its_file(
    kind: str, damage: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Refused with a ``WeightsError`` naming the file, or (a VQA head or C2C selector whose weights
    are gone beside their card) an error line naming it before the task's no-head mode."""
    folder, path, load = _copy(kind, tmp_path)
    assert load() is not None  # the intact copy loads
    spoil, problem = DAMAGE[damage]
    spoil(path)
    caplog.clear()
    with caplog.at_level(logging.ERROR):
        try:
            load()
        except WeightsError as exc:
            assert exc.path == path and problem in str(exc) and str(path) in str(exc)
            return
    assert kind in ("vqa head", "c2c selector") and damage == "missing"
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(f"weight file {path}: missing" in m for m in errors), errors


@pytest.mark.parametrize("kind", ["htr head", "vqa head", "trunk projection", "detector"])
def test_cut_short_without_the_check_still_names_its_file(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--no-verify-weights``: a file cut short is not read as "incomplete metadata" from nowhere."""
    _, path, load = _copy(kind, tmp_path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    monkeypatch.setenv(SKIP_ENV, "1")
    with pytest.raises(WeightsError, match="unreadable as safetensors") as raised:
        load()
    assert raised.value.path == path


def test_a_card_that_does_not_fit_its_weights_names_the_file(tmp_path: Path) -> None:
    """The card's sha256 still matches the weights, but it describes another head."""
    folder, path, load = _copy("htr head", tmp_path)
    card = json.loads((folder / "htr_head.json").read_text(encoding="utf-8"))
    card["config"]["hidden"] = int(card["config"]["hidden"]) * 2
    (folder / "htr_head.json").write_text(json.dumps(card), encoding="utf-8")
    with pytest.raises(WeightsError, match=r"does not fit its card htr_head\.json: .*size mismatch") as raised:
        load()
    assert raised.value.path == path


def test_another_heads_card_does_not_fit_by_its_digest(tmp_path: Path) -> None:
    """A card swapped for another head's (here: an older copy's record) is refused by the digest."""
    folder, path, load = _copy("zsod verifier", tmp_path)
    card = json.loads((folder / "verifier.json").read_text(encoding="utf-8"))
    card["files"]["verifier.safetensors"]["sha256"] = "0" * 64
    (folder / "verifier.json").write_text(json.dumps(card), encoding="utf-8")
    with pytest.raises(WeightsError, match="altered"):
        load()


def test_a_damaged_lexicon_falls_back_to_the_same_words(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from plugins.htr.lexicon import default_lexicon

    folder, path, _ = _copy("htr lexicon", tmp_path)
    shipped = default_lexicon(KINDS["htr lexicon"][0] / "htr_lexicon.npz")
    _flip_middle(path)
    with caplog.at_level(logging.ERROR):
        rebuilt = default_lexicon(path)
    assert f"{path}: altered" in caplog.text
    assert rebuilt.words == shipped.words  # the fallback selects the same words from wordfreq


# -- the runner: one line, the task falls back, the others are untouched -------------------------------


class _Damaged:
    """A task whose setup meets a damaged weight file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.info = SimpleNamespace(name="damaged", needs_trunk=False, needs_detector=False)

    def setup(self, ctx: Any) -> None:
        raise WeightsError(self.path, "altered: sha256 0123..., its card says 4567...")


def test_setup_meeting_damaged_weights_logs_one_error_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    task, report = _Damaged(tmp_path / "head.safetensors"), runner.TaskReport("damaged")
    with caplog.at_level(logging.ERROR):
        assert runner.setup_task(task, None, report, strict=False).ready is False  # type: ignore[arg-type]
    (record,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.getMessage().startswith(f"damaged: weight file {tmp_path / 'head.safetensors'}: altered")
    assert record.exc_info is None and "fallback" in record.getMessage()
    with pytest.raises(WeightsError):
        runner.setup_task(task, None, runner.TaskReport("damaged"), strict=True)  # type: ignore[arg-type]


def test_a_trunk_whose_weights_are_damaged_is_named(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    planned = [SimpleNamespace(samples=(object(),))]

    def factory() -> Any:
        raise WeightsError(tmp_path / "joint.safetensors", "short: 10 bytes, its card says 1,000")

    with caplog.at_level(logging.ERROR):
        assert runner.build_trunk(factory, planned) is None  # type: ignore[arg-type]
    assert f"the trunk could not be built: weight file {tmp_path / 'joint.safetensors'}: short" in caplog.text


def test_the_detector_names_its_damaged_file_to_the_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from core.detector import DetectorConfig, nanodet
    from core.detector.loader import Detectors

    folder, path, _ = _copy("detector", tmp_path)
    _flip_middle(path)
    monkeypatch.setattr(nanodet, "WEIGHTS_DIR", folder)
    shared = Detectors(DetectorConfig(), registry.load(load_entrypoints=False))
    task = SimpleNamespace(info=SimpleNamespace(name="seeing"))
    with caplog.at_level(logging.ERROR):
        assert runner._detector_for(task, shared, runner.TaskReport("seeing"), strict=False) is None  # type: ignore[arg-type]  # noqa: SLF001
    assert f"seeing: the detector could not be built (weight file {path}: altered" in caplog.text
