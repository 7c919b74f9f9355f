"""``training``: the typed request and card, the one trainer interface, the one CLI."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

import training
from core import hookimpl
from core.errors import PluginError
from core.heads import write_card
from core.task import TaskInfo
from core.testing import make_fake_trunk

CALLS: list[dict[str, Any]] = []


def first_interface_trainer(trunk, data, out_dir, *, seed, device, resume, progress):  # type: ignore[no-untyped-def]
    """A trainer written to the interface before ``TrainRequest`` (no longer called)."""
    CALLS.append({"seed": seed, "data": data})
    return write_card(Path(out_dir) / "card.json", {"trunk": trunk.component_versions})


def scaled_trainer(trunk, data, out_dir, *, seed, device, resume, progress, data_root, scale):  # type: ignore[no-untyped-def]
    """The same with the later keywords."""
    CALLS.append({"data_root": data_root, "scale": scale})
    return write_card(Path(out_dir) / "card.json", {"trunk": trunk.component_versions, "dev": scale})


def unmarked_trainer(req: training.TrainRequest) -> training.HeadCard:
    """This interface's signature, without the ``request_trainer`` mark."""
    CALLS.append({"req": req})
    path = write_card(req.out_dir / "card.json", {"trunk": req.trunk.component_versions})
    return training.HeadCard.read("t", path)


@training.request_trainer
def request_trainer(req: training.TrainRequest) -> training.HeadCard:
    CALLS.append({"req": req})
    path = write_card(req.out_dir / "card.json", {"trunk": req.trunk.component_versions, "dev_score": {"f1": 0.5}})
    return training.HeadCard.read("t", path)


@training.request_trainer
def wrong_return_trainer(req: training.TrainRequest) -> training.HeadCard:
    return write_card(req.out_dir / "card.json", {"trunk": req.trunk.component_versions})  # type: ignore[return-value]


class _Task:
    info = TaskInfo(name="t", version="1", folder="T", output="t.json")


@pytest.mark.parametrize("trainer", ["first_interface_trainer", "scaled_trainer", "unmarked_trainer"])
def test_a_trainer_without_the_mark_is_refused_naming_the_decorator(trainer: str, tmp_path: Path) -> None:
    CALLS.clear()
    req = training.TrainRequest(make_fake_trunk(), tmp_path, training.Sources({"x": [tmp_path]}))
    result = training.train_task(_Task(), globals()[trainer], req)  # type: ignore[arg-type]
    assert not result.ok and result.card is None and CALLS == []  # never called
    assert "PluginError" in result.error and "@training.request_trainer" in result.error
    assert f"{__name__}.{trainer}" in result.error  # which function
    with pytest.raises(PluginError, match=r"not marked @training\.request_trainer"):
        training.train_task(_Task(), globals()[trainer], req, strict=True)  # type: ignore[arg-type]


def test_a_request_trainer_gets_the_request_and_its_card_says_the_dev_score(tmp_path: Path) -> None:
    CALLS.clear()
    trunk = make_fake_trunk()
    req = training.TrainRequest(trunk, tmp_path, seed=7, options={"epochs": 3, "lr": None})
    result = training.train_task(_Task(), request_trainer, req)  # type: ignore[arg-type]
    assert result.ok and [{"req": req}] == CALLS
    assert result.head == training.HeadCard("t", tmp_path / "card.json", trunk.component_versions, {"f1": 0.5})
    assert req.option("epochs", 1) == 3 and req.option("lr", 0.1) == 0.1  # None: the trainer's default
    with pytest.raises(AttributeError):
        req.seed = 1  # type: ignore[misc]
    bad = training.train_task(_Task(), wrong_return_trainer, req)  # type: ignore[arg-type]
    assert not bad.ok and "not a training.HeadCard" in bad.error


def test_sources_keep_order_and_are_read_only(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    sources = training.Sources.parse([f"challenge={tmp_path / 'a'}", f"x={tmp_path}", f"challenge={tmp_path}"])
    assert sources.challenge == (tmp_path / "a", tmp_path) and sources.get("y") == ()
    assert "x" in sources and sources.as_dict() == {"challenge": [tmp_path / "a", tmp_path], "x": [tmp_path]}
    with pytest.raises(TypeError):
        sources.named["x"] = ()  # type: ignore[index]
    with pytest.raises(training.ProjectError, match="does not exist"):
        training.Sources.parse([f"x={tmp_path / 'missing'}"])


def test_task_flags_reach_the_request_without_their_prefix() -> None:
    args = argparse.Namespace(vqa_cache_dir="/c", vqa_synthetic_per_image=2, zsod_epochs=1, seed=0)
    assert training.task_options(args, "vqa") == {"cache_dir": "/c", "synthetic_per_image": 2}


def test_train_cli_adds_trainer_flags_only_for_training(tmp_path: Path) -> None:
    """train.py drives add_train_options; the per-task CLI trains only its task, with its flags."""
    import registry

    got: dict[str, Any] = {}

    class Plugin:
        @hookimpl
        def add_train_options(self, parser):  # type: ignore[no-untyped-def]
            parser.add_argument("--t-epochs", type=int, default=None)

        @hookimpl
        def register_tasks(self, register, config):  # type: ignore[no-untyped-def]
            got["config"] = config
            register(_RecordingTask())

        @hookimpl
        def register_trainers(self, register):  # type: ignore[no-untyped-def]
            register("t", request_trainer)

    from tests.core._tasks import EchoTask

    class _RecordingTask(EchoTask):
        info = TaskInfo(name="t", version="1", folder="T", output="t.json")

    class Discovery:
        def get_plugin_manager(self, **kwargs):  # type: ignore[no-untyped-def]
            pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
            pm.register(Plugin(), name="t_plugin")
            return pm

        add_plugin_options = staticmethod(registry.add_plugin_options)
        add_plugin_train_options = staticmethod(registry.add_plugin_train_options)

        def collect(self, pm, options=None, *, strict=False):  # type: ignore[no-untyped-def]
            found = registry.collect(pm, options, strict=strict)
            got.update(found.tasks)
            return found

    CALLS.clear()
    argv = ["--trunk", "default", "--heads", str(tmp_path), "--t-epochs", "4", "--no-progress", "--data-root", "none"]
    import core.trunk

    real = core.trunk.load_trunk
    try:
        core.trunk.load_trunk = lambda config, registry: make_fake_trunk()  # type: ignore[assignment]
        assert training.train_cli("t", argv, discovery=Discovery()) == 0
    finally:
        core.trunk.load_trunk = real  # type: ignore[assignment]
    (call,) = CALLS
    assert call["req"].options == {"epochs": 4} and call["req"].data_root is None
    assert call["req"].out_dir.parent == tmp_path / "t"
    assert got["config"].heads == tmp_path  # train.py hands the plugins PluginOptions, as run.py does


def test_scale_and_data_root_flags() -> None:
    assert training.parse_data_root("none") is None and training.parse_data_root("") is None
    assert training.parse_data_root("~/d") == Path.home() / "d"
    assert training.check_scale(0.05) == 0.05
    for bad in (0.0, -1.0, 1.5):
        with pytest.raises(training.ProjectError, match="--scale"):
            training.check_scale(bad)


def test_feature_cache_resumes_and_keeps_trunks_apart(tmp_path: Path) -> None:
    import torch

    computed: list[list[str]] = []

    def compute(chunk: list[str]) -> list[torch.Tensor]:
        computed.append(chunk)
        return [torch.tensor([float(len(k))]) for k in chunk]

    cache = training.FeatureCache(tmp_path, "trunk:a/1", shard_size=2)
    table = cache.fill(["a", "bb", "ccc", "a"], compute)
    assert computed == [["a", "bb"], ["ccc"]] and float(table["ccc"]) == 3.0
    assert len(list(cache.folder.glob("shard_*.pt"))) == 2 and cache.folder.parent == tmp_path
    again = training.FeatureCache(tmp_path, "trunk:a/1", shard_size=2)  # a new run: read from disk
    assert set(again.fill(["bb", "dddd"], compute)) == {"a", "bb", "ccc", "dddd"} and computed[-1] == ["dddd"]
    assert training.FeatureCache(tmp_path, "trunk:b/1").table() == {}  # another trunk: nothing shared
    again.clear()
    assert again.table() == {}


def test_the_per_task_cli_has_no_tasks_flag() -> None:
    parser = training.build_parser(task="vqa")
    assert parser.prog == "python -m plugins.vqa.train" and parser.parse_args([]).tasks == "vqa"
    with pytest.raises(SystemExit):
        parser.parse_args(["--tasks", "htr"])
    assert training.build_parser().parse_args(["--tasks", "htr"]).tasks == "htr"


def test_train_parser_takes_the_trainer_flags_and_run_parser_the_run_options() -> None:
    """``add_train_options`` flags reach train.py only; ``add_options`` (run-only, e.g. zsOD's
    --zsod-visualize) reach run.py only."""
    import registry
    from core import cli

    train_parser = training.build_parser()
    cli.parse_with_plugins([], train_parser, registry, train=True)
    run_parser = cli.build_parser()
    cli.parse_with_plugins([], run_parser, registry)
    train_help, run_help = train_parser.format_help(), run_parser.format_help()
    assert "--zsod-epochs" in train_help and "--htr-steps" in train_help
    assert "--zsod-visualize" not in train_help and "--zsod-proposals" not in train_help
    assert "--zsod-visualize" in run_help and "--zsod-proposals" in run_help
    assert "--zsod-epochs" not in run_help
