"""Every task on any trunk, end to end: ``run.py`` and ``train.py`` on real (tiny) open_clip models.

Two tiny open_clip architectures are registered from JSON configs, built with seeded
random weights and saved as checkpoint files in a temporary folder (never
downloaded): a CLIP ViT, and a ViT with an XLM-R Hugging Face text tower read from a
local folder. For each, the tests run what a user runs:

* ``run.py --trunk openclip:ARCH:CKPT`` on the demo input with no head for that trunk:
  four complete files, no fallbacks where a no-head mode exists (all but HTR);
* ``train.py --trunk ... --tasks T --heads DIR --data-root none --data ...`` on tiny
  fixtures in the public formats, for every registered task with a trainer (parametrised
  over ``Registry.trainers``, so new trainers are picked up; HTR at ``--scale 0.01``), and
  then ``run.py --heads DIR``, whose log says the head is used;
* ``--ablate-trunk random`` on that trunk.

Also the device plumbing of the ``Trunk`` facade, without a GPU. Sockets are blocked.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import registry

torch = pytest.importorskip("torch")
open_clip = pytest.importorskip("open_clip")

import run  # noqa: E402
import train  # noqa: E402
from core.errors import TrunkError  # noqa: E402
from core.trunk import TrunkConfig, autocast_dtype, load_trunk, resolve_device  # noqa: E402
from tests.core._openclip import CLIP_TEXT, HF_TEXT, VIT, build_checkpoint, offline, write_hf_folder  # noqa: E402
from tests.core._tiny_sources import data_args, write_tiny_sources  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "input"
ARCHS = {
    "vit": ("fbtest-any-vit", {"embed_dim": 32, "vision_cfg": VIT, "text_cfg": CLIP_TEXT}),
    "xlmr": ("fbtest-any-xlmr", {"embed_dim": 32, "vision_cfg": VIT, "text_cfg": HF_TEXT}),
}
NO_HEAD_IMPOSSIBLE = {"htr"}  # cannot read without a trained head: answers "" (and says so), no fallbacks counted
SUMMARY = re.compile(r"^(\w+): (\d+) items in .*?(?:, (\d+) fallbacks)? -> (.+)$")


@pytest.fixture(scope="module", autouse=True)
def sockets_blocked() -> Iterator[None]:
    """No connection (nor name lookup) for the whole module, fixtures included."""
    threads = torch.get_num_threads()  # run.py / train.py set torch's thread count; give it back afterwards
    with offline():
        yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """``{kind: trunk spec}``: ``openclip:<config>.json:<checkpoint>[:<hf folder>]``."""
    root = tmp_path_factory.mktemp("any-trunk")
    hf_dir = write_hf_folder(root / "hf-text")
    out = {}
    for i, (kind, (name, cfg)) in enumerate(ARCHS.items()):
        config, checkpoint, _ = build_checkpoint(root, name, cfg, seed=100 + i, hf_dir=hf_dir)
        out[kind] = f"openclip:{config}:{checkpoint}" + (f":{hf_dir}" if kind == "xlmr" else "")
    return out


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    return write_tiny_sources(tmp_path_factory.mktemp("sources"))


@pytest.fixture(scope="module")
def registered() -> dict[str, Any]:
    from registry import collect, get_plugin_manager

    return collect(get_plugin_manager(load_entrypoints=False)).tasks


def _trainable() -> list[str]:
    """Every built-in task with a trainer: on the tiny sources (``--data-root none``) each trains in
    seconds to about 25 s (measured on the shared 2-core machine: zsod 23 s, vqa 10 s, htr 15 s)."""
    from registry import collect, get_plugin_manager

    return list(collect(get_plugin_manager(load_entrypoints=False, training=True)).trainers)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, tuple[int, int, str]]]:
    """``run.py`` in-process; its exit code and ``{task: (items, fallbacks, path)}`` from the summary."""
    capsys.readouterr()
    code = run.main([*argv, "--threads", "1", "--no-plugins"])
    reports = {}
    for line in capsys.readouterr().out.splitlines():
        m = SUMMARY.match(line)
        if m:
            reports[m[1]] = (int(m[2]), int(m[3] or 0), m[4])
    return code, reports


def _assert_complete(registered: dict[str, Any], out: Path, input_dir: Path = DEMO) -> None:
    """Each task's file holds exactly the keys its input asks for."""
    for name, task in registered.items():
        expected = {s.key for s in task.discover(input_dir)}
        assert expected, f"{name}: the demo input asks nothing"
        written = json.loads((out / task.info.output).read_text(encoding="utf-8"))
        assert set(written) == expected, f"{name}: keys differ from the input's"


# -- device plumbing (no GPU needed) ----------------------------------------------------------------


def test_cuda_without_a_gpu_is_a_clear_trunk_error(monkeypatch: pytest.MonkeyPatch, specs: dict[str, str]) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(TrunkError, match="no CUDA GPU"):
        load_trunk(TrunkConfig.parse(specs["vit"], device="cuda"), registry.load(load_entrypoints=False))
    with pytest.raises(TrunkError, match="no CUDA GPU"):
        load_trunk(
            TrunkConfig(device="cuda:0"), registry.load(load_entrypoints=False)
        )  # the default backend too, refused before it is built
    with pytest.raises(TrunkError, match="not supported"):
        resolve_device("mps")
    with pytest.raises(TrunkError, match="bad trunk device"):
        resolve_device("gpu please")
    assert resolve_device("cpu") == torch.device("cpu")


def test_autocast_only_on_cuda() -> None:
    cpu, cuda = torch.device("cpu"), torch.device("cuda")
    assert autocast_dtype(cpu, "auto") is None and autocast_dtype(cpu, "fp32") is None
    assert autocast_dtype(cuda, "auto", bf16_supported=True) == torch.bfloat16
    assert autocast_dtype(cuda, "auto", bf16_supported=False) == torch.float16
    assert autocast_dtype(cuda, "fp16") == torch.float16 and autocast_dtype(cuda, "bf16") == torch.bfloat16
    assert autocast_dtype(cuda, "fp32") is None
    with pytest.raises(TrunkError, match="needs a CUDA device"):
        autocast_dtype(cpu, "fp16")
    with pytest.raises(TrunkError, match="unknown trunk precision"):
        autocast_dtype(cuda, "int4")


def test_facade_hands_out_cpu_float32(specs: dict[str, str]) -> None:
    """Whatever dtype the backend computes in, callers get CPU float32 (here: a half-precision tower)."""
    trunk = load_trunk(TrunkConfig.parse(specs["vit"]), registry.load(load_entrypoints=False))
    assert trunk.device == torch.device("cpu") and trunk.autocast_dtype is None
    trunk._module.half()  # what autocast leaves behind on a GPU: half-precision outputs
    pixels = torch.zeros(2, 3, 64, 64, dtype=torch.float64)  # any input dtype is moved/cast by the backend
    with torch.inference_mode():
        outs = [
            trunk.encode_images(pixels.half()),
            trunk.encode_texts(trunk.tokenize(["a cat", "a dog"])),
            *trunk.image_feature_maps(pixels.half()).maps,
            trunk.text_token_states(trunk.tokenize(["a cat"])).states,
        ]
    for out in outs:
        assert out.device.type == "cpu" and out.dtype == torch.float32


# -- end to end ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(ARCHS))
def test_run_without_heads_uses_the_no_head_modes(
    kind: str,
    specs: dict[str, str],
    registered: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    out = tmp_path / "out"
    code, reports = _run(
        capsys, "--input", str(DEMO), "--output", str(out), "--trunk", specs[kind], "--heads", str(tmp_path / "none")
    )
    assert code == 0
    assert set(reports) == set(registered)
    _assert_complete(registered, out)
    for name, (_items, fallbacks, _path) in reports.items():
        if name not in NO_HEAD_IMPOSSIBLE:
            assert fallbacks == 0, f"{name}: {fallbacks} fallbacks on an open_clip trunk without heads"
    assert "using the head in" not in caplog.text  # nothing shipped matches a random open_clip trunk
    for name in NO_HEAD_IMPOSSIBLE & set(registered):
        assert f"{name}: no trained head for trunk" in caplog.text


@pytest.mark.parametrize("kind", sorted(ARCHS))
def test_ablated_open_clip_trunk_still_writes_complete_files(
    kind: str, specs: dict[str, str], registered: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, reports = _run(
        capsys,
        *("--input", str(DEMO), "--output", str(out), "--trunk", specs[kind]),
        *("--heads", str(tmp_path / "none"), "--ablate-trunk", "random"),
    )
    assert code == 0 and set(reports) == set(registered)
    _assert_complete(registered, out)
    for name, (_items, fallbacks, _path) in reports.items():
        if name not in NO_HEAD_IMPOSSIBLE:  # no head matches the tiny trunk: the no-head modes, fed noise
            assert fallbacks == 0, f"{name}: {fallbacks} fallbacks on the ablated trunk"


@pytest.mark.parametrize("kind", sorted(ARCHS))
@pytest.mark.parametrize("task", _trainable())
def test_train_then_run_uses_the_new_head(
    task: str,
    kind: str,
    specs: dict[str, str],
    sources: dict[str, list[Path]],
    registered: dict[str, Any],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from core.heads import card_matches, head_dir_for, read_card

    caplog.set_level(logging.INFO)
    heads = tmp_path / "heads"
    argv = ["--trunk", specs[kind], "--tasks", task, "--heads", str(heads), "--threads", "1", "--no-progress"]
    argv += ["--data-root", "none"]  # the tiny sources only, never ../shared/data
    if task == "htr":  # its rendered words are the bulk: 2 shards of 8 plain words (no fonts needed), 60 steps
        from plugins.htr.train import fit as htr_fit
        from tests.htr.train.test_train_head import fake_render_batch

        monkeypatch.setattr(htr_fit, "WordBatches", lambda: fake_render_batch)
        monkeypatch.setattr(htr_fit, "SHARD_SIZE", 8)
        argv += ["--scale", "0.01"]
    code = train.main([*argv, "--no-plugins", *data_args(sources)])
    assert code == 0, f"train.py failed for {task}:\n{capsys.readouterr().out}"
    trunk = load_trunk(TrunkConfig.parse(specs[kind]), registry.load(load_entrypoints=False))
    folder = head_dir_for(heads, task, trunk)
    cards = [p for p in folder.glob("*.json") if card_matches(read_card(p) or {}, trunk)]
    assert cards, f"{task}: no card recording this trunk in {folder}"
    if task == "htr":
        card = read_card(cards[0]) or {}
        assert card["steps"] == 60  # --scale 0.01 of 6,000 steps from scratch
        assert card["input"] == {"height": 64, "width": 256}  # patch 16: 16 frames at the default size
        import numpy as np

        assert "s16" not in np.load(folder / "cache" / "dev.npz").files  # the ViT's one map, cached once

    caplog.clear()
    out = tmp_path / "out"
    code, reports = _run(
        capsys, "--input", str(DEMO), "--output", str(out), "--trunk", specs[kind], "--heads", str(heads)
    )
    assert code == 0
    assert f"{task}: using the head in {folder}" in caplog.text
    _assert_complete(registered, out)
    assert reports[task][1] == 0, f"{task}: fallbacks with its trained head"


def test_train_reports_a_failing_or_missing_trainer(
    specs: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trainer that raises, and a task without one, fail clearly; the exit code says so."""
    import training
    from core.task import TaskInfo

    class NoTrainer:
        info = TaskInfo(name="plain", version="1", folder="P", output="p.json")

    class Broken:
        info = TaskInfo(name="broken", version="1", folder="B", output="b.json")

    @training.request_trainer
    def broken(req: training.TrainRequest) -> training.HeadCard:
        raise RuntimeError("the trainer broke")

    trunk = load_trunk(TrunkConfig.parse(specs["vit"]), registry.load(load_entrypoints=False))
    req = training.TrainRequest(trunk, tmp_path)
    results = [
        training.train_task(NoTrainer(), None, req),  # type: ignore[arg-type]
        training.train_task(Broken(), broken, req),  # type: ignore[arg-type]
    ]
    assert [r.ok for r in results] == [False, False]
    assert "registers a trainer" in results[0].error and "RuntimeError: the trainer broke" in results[1].error
    assert "FAILED" in training.report(results)
    assert train.main(["--trunk", specs["vit"], "--heads", str(tmp_path), "--data", "challenge"]) == 2
    assert train.main(["--trunk", specs["vit"], "--tasks", "nope", "--heads", str(tmp_path)]) == 2
    assert training.parse_data(["a=.", "a=/", "b=."]) == {"a": [Path("."), Path("/")], "b": [Path(".")]}
    assert train.main(["--trunk", specs["vit"], "--heads", str(tmp_path), "--scale", "0"]) == 2
    # with no data root and no --data, a trainer has nothing to learn from: a failed task, exit 1
    argv = ["--trunk", specs["vit"], "--tasks", "c2c", "--heads", str(tmp_path), "--data-root", "none"]
    assert train.main([*argv, "--no-progress", "--no-plugins"]) == 1
    assert "c2c needs (Java, Python) pairs" in capsys.readouterr().out
