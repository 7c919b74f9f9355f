"""Walk the project's imports from run.py and check the layout rules of the code base.

    python tests/test_imports.py [--root DIR] [--json]    # the figures and any violation
    pytest tests/test_imports.py                          # the same rules as tests

Every ``import`` / ``from ... import`` statement counts, also those inside functions, and so
do the strings that name a project module: ``"module:attr"`` (a plugin's
``"module:function"``) and plain dotted module names (``registry.DEFAULT_PLUGINS``). There is no
exception: a plugin's trainer is registered by its training side (``plugins/<task>/train/``,
``register_trainers``), which only ``train.py`` loads, so no runtime module names it.

The rules:
- no module run.py reaches lives in the training tree ``training/``, a ``train/`` package,
  ``bench/`` or ``detector_import/``, or is ``train.py`` (the library never imports its training
  harness), nor refers to one (an import in a function, under ``if TYPE_CHECKING:``, a module string);
- every module directly in a plugin package (beside the inference modules) is reached by
  run.py: offline code lives in ``plugins/<task>/train/``;
- ``core/`` imports neither the top-level ``run``/``train`` nor ``training``, ``bench`` or a
  plugin, nor the top-level ``registry`` (``run.py``, ``train.py``, ``score.py``, ``params.py``
  and ``serve.py`` hand core their plugin discovery);
- no import cycle among the project's modules (module-level imports and imports in functions;
  an import only under ``if TYPE_CHECKING:`` never runs, so it makes no cycle).
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OFFLINE_CORE_TARGETS = ("registry", "run", "train", "training", "detector_import", "bench", "plugins")
OFFLINE_TOP = ("bench", "training", "detector_import", "train", "tests", "examples")
RULES = ("run_path_offline", "runtime_refers_offline", "offline_beside_inference", "core_imports_outside", "cycles")
MODULE_ATTR = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):[A-Za-z_]\w*$")
DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")


class Project:
    """The project's Python modules under ``root`` and the import edges between them."""

    def __init__(self, root: Path = ROOT) -> None:
        self.root = Path(root)
        self.files: dict[str, Path] = {}
        for path in sorted(self.root.rglob("*.py")):
            rel = path.relative_to(self.root)
            skipped = rel.parts[0].startswith(".") or rel.parts[0] in ("tests", "examples", "build")
            if skipped or "__pycache__" in rel.parts:
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts:
                self.files[".".join(parts)] = path
        self._edges: dict[str, set[str]] = {}
        self._typing_only: dict[str, set[str]] = {}

    def is_package(self, module: str) -> bool:
        return self.files[module].name == "__init__.py"

    def _resolve(self, name: str) -> list[str]:
        """The project modules importing ``name`` loads: it and its parent packages."""
        parts = name.split(".")
        return [".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in self.files]

    def edges(self, module: str, *, runtime: bool = False) -> set[str]:
        """Project modules ``module`` imports explicitly (anywhere in its body, plus module strings);
        with ``runtime``, without those imported only under ``if TYPE_CHECKING:``."""
        if module not in self._edges:
            self._edges[module], self._typing_only[module] = self._parse(module)
        return self._edges[module] - self._typing_only[module] if runtime else self._edges[module]

    def _parse(self, module: str) -> tuple[set[str], set[str]]:
        tree = ast.parse(self.files[module].read_text(encoding="utf-8"), str(self.files[module]))
        package = module if self.is_package(module) else module.rpartition(".")[0]
        out: set[str] = set()
        typing_nodes = {
            id(n)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
            for stmt in block.body
            for n in ast.walk(stmt)
        }
        typing_only: set[str] = set()
        runtime: set[str] = set()
        for node in ast.walk(tree):
            found: set[str] = set()
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.update(self._resolve(alias.name))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found.update(self._resolve(target))
                for alias in node.names:
                    if f"{target}.{alias.name}" in self.files:
                        found.update(self._resolve(f"{target}.{alias.name}"))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                match = MODULE_ATTR.match(node.value)
                name = match.group(1) if match else (node.value if DOTTED.match(node.value) else None)
                if name and name in self.files:
                    found.update(self._resolve(name))
            out |= found
            (typing_only if id(node) in typing_nodes else runtime).update(found)
        out.discard(module)
        return out, typing_only - runtime

    def reached(self, start: Iterable[str]) -> set[str]:
        seen: set[str] = set()
        todo = [m for m in start if m in self.files]
        while todo:
            module = todo.pop()
            if module in seen:
                continue
            seen.add(module)
            todo.extend(self.edges(module) - seen)
        return seen

    def lines(self, modules: Iterable[str]) -> int:
        return sum(len(self.files[m].read_text(encoding="utf-8").splitlines()) for m in modules)

    def cycles(self) -> list[list[str]]:
        """Strongly connected components of more than one module (Tarjan)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []
        counter = [0]

        def visit(v: str) -> None:
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on_stack.add(v)
            for w in self._explicit(v):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

        sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
        for module in self.files:
            if module not in index:
                visit(module)
        return found

    def _explicit(self, module: str) -> set[str]:
        """Edges without the implicit parent packages (a module importing its own package's
        ``__init__`` through a submodule import is no cycle of the code's making)."""
        own_parents = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
        return {m for m in self.edges(module, runtime=True) if m not in own_parents}


def is_offline(module: str) -> bool:
    parts = module.split(".")
    return parts[0] in OFFLINE_TOP or "train" in parts[1:]


def plugin_modules(project: Project) -> list[str]:
    """Modules of the built-in plugins, ``plugins.<task>.*``."""
    return sorted(m for m in project.files if m.startswith("plugins.") and m.count(".") >= 1)


@functools.lru_cache(maxsize=4)
def survey(root: Path = ROOT) -> dict[str, object]:
    project = Project(root)
    run_path = project.reached(["run"])
    plugins = plugin_modules(project)
    reached_plugins = [m for m in plugins if m in run_path]
    beside = [
        m
        for m in plugins
        if m.count(".") == 2 and not project.is_package(m) and m not in run_path and not is_offline(m)
    ]
    core_bad = sorted(
        f"{m} -> {t}"
        for m in project.files
        if m == "core" or m.startswith("core.")
        for t in project.edges(m)
        if t.split(".")[0] in OFFLINE_CORE_TARGETS
    )
    runtime_refers_offline = sorted(
        f"{m} -> {t}" for m in run_path if not is_offline(m) for t in project.edges(m) if is_offline(t)
    )
    return {
        "runtime_refers_offline": runtime_refers_offline,
        "plugin_lines": project.lines(plugins),
        "plugin_lines_reached_by_run": project.lines(reached_plugins),
        "plugin_modules": len(plugins),
        "plugin_modules_reached_by_run": len(reached_plugins),
        "run_path_offline": sorted(m for m in run_path if is_offline(m)),
        "offline_beside_inference": beside,
        "core_imports_outside": core_bad,
        "cycles": project.cycles(),
    }


# ---- the rules as tests ---------------------------------------------------------------------


def test_run_path_never_imports_offline_code() -> None:
    assert survey()["run_path_offline"] == []


def test_no_runtime_module_refers_to_training_code() -> None:
    """No module run.py reaches names a trainer, ``training`` or a ``train/`` package, not even in
    a function only ``train.py`` would call (trainers are registered train-side: ``register_trainers``)."""
    assert survey()["runtime_refers_offline"] == []


def test_no_offline_module_beside_inference_modules() -> None:
    assert survey()["offline_beside_inference"] == []


def test_core_imports_no_trainer_bench_or_plugin() -> None:
    assert survey()["core_imports_outside"] == []


def test_no_import_cycles() -> None:
    assert survey()["cycles"] == []


def test_walker_sees_function_level_imports_and_module_strings(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("def f():\n    from pkg import b\n")
    (tmp_path / "pkg" / "b.py").write_text(
        "X = 'pkg.c:thing'\ndef trainer():\n    import pkg.t\n"
        "def other():\n    import pkg.v\nT = dict(trainer=trainer)\n"
    )
    (tmp_path / "pkg" / "v.py").write_text("")
    (tmp_path / "pkg" / "c.py").write_text("import pkg.a\n")
    (tmp_path / "pkg" / "t.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.u\n")
    (tmp_path / "pkg" / "u.py").write_text("import pkg.t\n")
    (tmp_path / "run.py").write_text("import pkg.a\n")
    project = Project(tmp_path)
    # a trainer-shaped function is a function like any other: its import of pkg.t is an edge
    assert project.reached(["run"]) == {"run", "pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.v", "pkg.t", "pkg.u"}
    assert project.cycles() == [["pkg.a", "pkg.b", "pkg.c"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="walk the imports from run.py; check the layout rules")
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = survey(args.root)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"run.py reaches {result['plugin_lines_reached_by_run']:,} of {result['plugin_lines']:,} plugin lines "
            f"({result['plugin_modules_reached_by_run']} of {result['plugin_modules']} modules)"
        )
        for key in RULES:
            print(f"{key}: {result[key] or 'none'}")
    bad = any(result[k] for k in RULES)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
