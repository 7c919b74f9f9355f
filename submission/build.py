"""Write the organisers' archive: what ``run.py`` imports and reads, and nothing else.

The code is found by walking ``import`` statements (top-level and inside functions; not
``if TYPE_CHECKING:`` blocks) from ``run.py``, ``registry.py`` and the selected plugin
packages, following only this repository's modules. Each package reached brings the
non-Python files of its folder and of its plain (non-package) sub-folders: the shipped
weights and cards. A sub-package no import reaches (``train/``) stays out, as do tests,
benchmarks, caches and the virtualenv, which nothing imports. ``python -m submission
check`` then proves the result by running it.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[1]
ENTRY_FILES = ("run.py", "registry.py")
METADATA = "metadata.json"
HEADS_FOLDER = "heads"
# The rules' limit, packed and unpacked; read as the stricter decimal gigabytes.
LIMIT_BYTES = 10 * 1000**3
# The one rule for what is offline: a folder of one of these names, wherever it sits, holds trainers',
# converters', experiments' or tests' code and data (the training tree ``training/``, each plugin's
# ``train/``...). It never goes into the archive, and the run path reaching one is a bug. Dot
# folders (caches, ``.venv``) never go either, nor compiled files (``SKIP_SUFFIXES``).
OFFLINE_DIRS = frozenset({"training", "train", "detector_import", "bench", "tests", "test"})
SKIP_SUFFIXES = (".pyc", ".pyo", ".md", ".tmp")
# Folders inside a reached package that the run never reads: the scorer's C sources of the
# legacy tree-sitter grammar (compiled at install for ``core.score``; run.py imports only
# ``core.metrics.vqa``'s answer normalisation). The check's list of unopened files shows it.
NOT_RUNTIME = frozenset({"core/metrics/legacy_treesitter"})
# Zip entries get one fixed time, so that one tree always gives one byte-identical archive.
ZIP_TIME = (2021, 11, 1, 0, 0, 0)


class BuildError(RuntimeError):
    """The archive cannot be built as asked (the message says why and what to do)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Plugin:
    """One selected plugin: where its code comes from and which tasks it registers."""

    name: str  # as given to --plugins: a built-in's short name or an entry point's name
    module: str  # "plugins.c2c" or the entry point's module
    builtin: bool
    distribution: str | None = None  # third-party only
    requires: tuple[str, ...] = ()  # third-party only: its Requires-Dist


@dataclasses.dataclass(frozen=True, slots=True)
class Manifest:
    """What goes into the archive: archive path -> source file, plus rewritten texts."""

    files: Mapping[str, Path]
    texts: Mapping[str, str]  # archive path -> content (metadata.json, a narrowed registry.py)
    plugins: tuple[Plugin, ...]
    tasks: Mapping[str, str]  # task name -> its input folder, for the selected plugins
    warnings: tuple[str, ...]

    def sizes(self) -> dict[str, int]:
        sizes = {arc: path.stat().st_size for arc, path in self.files.items()}
        sizes.update({arc: len(text.encode("utf-8")) for arc, text in self.texts.items()})
        return sizes


@dataclasses.dataclass(frozen=True, slots=True)
class Archive:
    """A written archive and its figures."""

    path: Path
    packed: int
    unpacked: int
    count: int
    by_top: Mapping[str, tuple[int, int]]  # top-level entry -> (files, unpacked bytes)
    entrypoint: str

    def report(self) -> str:
        lines = [
            f"{self.path}: {self.count} files, packed {_human(self.packed)} ({self.packed:,} B), "
            f"unpacked {_human(self.unpacked)} ({self.unpacked:,} B); limit {_human(LIMIT_BYTES)} each: "
            f"{100 * max(self.packed, self.unpacked) / LIMIT_BYTES:.3f} % used",
        ]
        lines += [f"  {top:<16} {n:>4} files {_human(size):>9}" for top, (n, size) in sorted(self.by_top.items())]
        lines.append(f"  entrypoint: {self.entrypoint}")
        return "\n".join(lines)


def _human(n: int) -> str:
    for unit, size in (("GB", 1000**3), ("MB", 1000**2), ("KB", 1000)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


# -- the import walk ---------------------------------------------------------------------------


def module_file(name: str, root: Path = REPO) -> Path | None:
    """The file of module ``name`` under ``root`` (a package's ``__init__.py``), or None."""
    base = root.joinpath(*name.split("."))
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_names(source: str, module: str, is_package: bool) -> Iterator[str]:
    """Every module name an ``import`` in ``source`` may load, relative imports resolved.

    Imports inside functions count (they run when called); ``if TYPE_CHECKING:`` bodies
    do not (they never run). ``from a import b`` yields ``a`` and ``a.b``: ``b`` may be a
    sub-module, and a name that is no module is dropped later.
    """
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source)
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base:
                yield base
            yield from (f"{base}.{alias.name}" if base else alias.name for alias in node.names if alias.name != "*")
        stack.extend(ast.iter_child_nodes(node))


def import_closure(start: Iterable[str], root: Path = REPO) -> dict[str, Path]:
    """Module name -> file for every module of ``root`` that ``start`` reaches by imports.

    A module brings its parent packages (importing ``a.b.c`` runs ``a`` and ``a.b``).
    """
    found: dict[str, Path] = {}
    todo = list(start)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            sub = ".".join(parts[:i])
            if sub in found:
                continue
            path = module_file(sub, root)
            if path is None:
                break
            found[sub] = path
            is_package = path.name == "__init__.py"
            todo.extend(imported_names(path.read_text(encoding="utf-8"), sub, is_package))
    return found


def package_data(package_dir: Path) -> Iterator[Path]:
    """The non-Python files a package ships: in its folder and its plain sub-folders.

    A sub-folder that is itself a package travels only if an import reaches it.
    """
    for entry in sorted(package_dir.iterdir()):
        if entry.name.startswith(".") or entry.name in OFFLINE_DIRS:
            continue
        if entry.is_dir():
            if not (entry / "__init__.py").exists():
                yield from _plain_folder(entry)
        elif entry.is_file() and entry.suffix != ".py" and not entry.name.endswith(SKIP_SUFFIXES):
            yield entry


def _plain_folder(folder: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if d not in OFFLINE_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith(".") and not name.endswith(SKIP_SUFFIXES):
                yield Path(dirpath) / name


# -- plugins -----------------------------------------------------------------------------------


def builtin_plugins() -> dict[str, str]:
    """Short name -> module of the built-in task plugins (``registry.DEFAULT_PLUGINS`` past core's own)."""
    import registry

    tasks = [module for module in registry.DEFAULT_PLUGINS if module not in registry.CORE_PLUGINS]
    return {module.rpartition(".")[2]: module for module in tasks}


def resolve_plugins(names: Sequence[str]) -> list[Plugin]:
    """The plugins named on the command line: built-ins first, else a ``fusionbrain`` entry point."""
    from importlib.metadata import entry_points

    import registry

    builtins = builtin_plugins()
    plugins: list[Plugin] = []
    for name in names:
        if name in builtins:
            plugins.append(Plugin(name, builtins[name], builtin=True))
            continue
        eps = [ep for ep in entry_points(group=registry.ENTRYPOINT_GROUP) if ep.name == name]
        if not eps:
            raise BuildError(
                f"plugin {name!r} is neither built in ({', '.join(builtins)}) nor an installed "
                f"{registry.ENTRYPOINT_GROUP!r} entry point: install its distribution into this "
                f"interpreter ({sys.executable}) and build again"
            )
        ep = eps[0]
        dist = ep.dist
        requires = tuple(dist.requires or ()) if dist is not None else ()
        plugins.append(
            Plugin(name, ep.module, builtin=False, distribution=dist.name if dist else None, requires=requires)
        )
    if len({p.name for p in plugins}) != len(plugins):
        raise BuildError(f"a plugin is named twice in {list(names)}")
    return plugins


def plugin_tasks(plugins: Sequence[Plugin]) -> dict[str, str]:
    """Task name -> input folder for every task the selected plugins register."""
    import registry

    builtins = [*registry.CORE_PLUGINS, *(p.module for p in plugins if p.builtin)]
    pm = registry.get_plugin_manager(load_entrypoints=False, builtins=builtins)
    for plugin in plugins:
        if not plugin.builtin:
            import importlib

            pm.register(importlib.import_module(plugin.module), name=plugin.name)
    return {name: task.info.folder for name, task in registry.collect(pm, strict=True).tasks.items()}


def third_party_files(plugin: Plugin) -> dict[str, Path]:
    """A third-party plugin's package and its ``.dist-info`` (metadata and entry points).

    Both go to the archive root, which is ``sys.path[0]`` of ``python run.py``: the package
    imports from there and ``importlib.metadata`` finds the entry point there.
    """
    import importlib.util
    from importlib.metadata import distribution

    top = plugin.module.split(".")[0]
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None and not spec.submodule_search_locations:
        raise BuildError(f"plugin {plugin.name!r}: cannot find its package {top!r}")
    files: dict[str, Path] = {}
    if spec.submodule_search_locations:
        package_dir = Path(next(iter(spec.submodule_search_locations)))
        for dirpath, dirnames, filenames in os.walk(package_dir):
            dirnames[:] = sorted(d for d in dirnames if d not in OFFLINE_DIRS and not d.startswith("."))
            for name in sorted(filenames):
                if not name.endswith(SKIP_SUFFIXES) and not name.startswith("."):
                    path = Path(dirpath) / name
                    files[(PurePosixPath(top) / path.relative_to(package_dir).as_posix()).as_posix()] = path
    else:
        files[f"{top}.py"] = Path(spec.origin)  # type: ignore[arg-type]
    if plugin.distribution is None:
        raise BuildError(f"plugin {plugin.name!r}: its entry point has no distribution metadata")
    dist = distribution(plugin.distribution)
    info_dir = getattr(dist, "_path", None)  # the .dist-info folder of a PathDistribution
    if info_dir is None or not Path(info_dir).is_dir():
        raise BuildError(f"plugin {plugin.name!r}: cannot find the metadata folder of {plugin.distribution!r}")
    info_dir = Path(info_dir)
    for name in ("METADATA", "entry_points.txt"):
        if (info_dir / name).is_file():
            files[f"{info_dir.name}/{name}"] = info_dir / name
    if f"{info_dir.name}/entry_points.txt" not in files:
        raise BuildError(f"plugin {plugin.name!r}: {info_dir} has no entry_points.txt")
    return files


# -- heads and metadata ------------------------------------------------------------------------


def heads_files(heads: Path, tasks: Iterable[str]) -> dict[str, Path]:
    """``HEADS/<task>/<trunk id>/...`` of the selected tasks, as ``heads/<task>/<trunk id>/...``.

    Every head folder must hold a JSON card recording its trunk; resume checkpoints and
    caches stay behind.
    """
    if not heads.is_dir():
        raise BuildError(f"--heads {heads}: not a folder")
    files: dict[str, Path] = {}
    for task in sorted(tasks):
        task_dir = heads / task
        if not task_dir.is_dir():
            continue
        for head_dir in sorted(p for p in task_dir.iterdir() if p.is_dir()):
            cards = [p for p in head_dir.glob("*.json") if _records_trunk(p)]
            if not cards:
                raise BuildError(f"{head_dir}: no head card (a JSON file recording 'trunk'); train it with train.py")
            for path in _plain_folder(head_dir):
                if re.search(r"checkpoint|ckpt|cache|resume", path.name, re.IGNORECASE):
                    continue
                files[f"{HEADS_FOLDER}/{path.relative_to(heads).as_posix()}"] = path
    if not files:
        raise BuildError(f"--heads {heads}: holds no head of the selected tasks ({', '.join(sorted(tasks))})")
    return files


def _records_trunk(path: Path) -> bool:
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(card, dict) and isinstance(card.get("trunk"), dict)


def entrypoint_root(entrypoint: str) -> str:
    """The folder the organisers unpack into, read from ``python /home/jovyan/run.py``."""
    for token in entrypoint.split():
        if token.endswith("run.py"):
            return str(PurePosixPath(token).parent)
    raise BuildError(f"{METADATA}: the entrypoint {entrypoint!r} does not run run.py")


def metadata_text(with_heads: bool) -> str:
    """``metadata.json`` as shipped: the repository's (parsed and checked by ``core.metadata``), with
    ``--heads`` added when heads travel."""
    from core.errors import InputError
    from core.metadata import load_metadata

    try:
        parsed = load_metadata(REPO / METADATA)
    except InputError as exc:
        raise BuildError(str(exc)) from exc
    meta = {"image": parsed.image, "entrypoint": parsed.entrypoint}
    if with_heads:
        root = entrypoint_root(meta["entrypoint"])
        meta["entrypoint"] = f"{meta['entrypoint']} --heads {root}/{HEADS_FOLDER}"
    return json.dumps(meta, indent=4, ensure_ascii=False) + "\n"


def narrowed_registry(modules: Sequence[str]) -> str:
    """``registry.py`` with ``DEFAULT_PLUGINS`` narrowed to core's own and the shipped built-ins.

    The archive lacks the other plugin packages, which ``get_plugin_manager`` would import.
    """
    import registry

    source = (REPO / "registry.py").read_text(encoding="utf-8")
    pattern = re.compile(r"^DEFAULT_PLUGINS = \([^()]*\)$", re.MULTILINE)
    if len(pattern.findall(source)) != 1:
        raise BuildError("registry.py: expected one 'DEFAULT_PLUGINS = (...)' to narrow")
    value = "(" + "".join(f"{m!r}, " for m in (*registry.CORE_PLUGINS, *modules)).rstrip(" ") + ")"
    text = pattern.sub(f"DEFAULT_PLUGINS = {value}", source)
    ast.parse(text)
    return text


# -- the manifest and the zip ------------------------------------------------------------------


def collect(plugin_names: Sequence[str], heads: Path | None = None) -> Manifest:
    """Everything the archive holds for these plugins (and heads), without writing it."""
    plugins = resolve_plugins(plugin_names)
    if not plugins:
        raise BuildError("select at least one plugin (--plugins c2c,htr,zsod,vqa)")
    tasks = plugin_tasks(plugins)
    import registry

    builtin_modules = [p.module for p in plugins if p.builtin]
    start = [Path(f).stem for f in ENTRY_FILES] + list(registry.CORE_PLUGINS) + builtin_modules
    modules = import_closure(start)
    all_builtins = set(builtin_plugins().values())
    # A built-in left out must not come back through an import of another plugin.
    stray = sorted(
        m for m in modules if any(m == b or m.startswith(b + ".") for b in all_builtins - set(builtin_modules))
    )
    if stray:
        raise BuildError(f"the selected plugins import left-out plugins' modules: {', '.join(stray)}")
    warnings = [
        f"the run path imports {name} ({path.relative_to(REPO)}), a training or test module"
        for name, path in sorted(modules.items())
        if OFFLINE_DIRS & set(path.relative_to(REPO).parts[:-1])
    ]
    files: dict[str, Path] = {}
    for path in modules.values():
        files[path.relative_to(REPO).as_posix()] = path
        if path.name == "__init__.py":
            for data in package_data(path.parent):
                arc = data.relative_to(REPO).as_posix()
                if not any(arc.startswith(skip + "/") for skip in NOT_RUNTIME):
                    files[arc] = data
    texts: dict[str, str] = {METADATA: metadata_text(heads is not None)}
    if set(builtin_modules) != all_builtins:
        texts["registry.py"] = narrowed_registry([m for m in builtin_plugins().values() if m in builtin_modules])
    project_tops = {arc.split("/")[0] for arc in [*files, *texts]}
    for plugin in plugins:
        if plugin.builtin:
            continue
        for arc, path in third_party_files(plugin).items():
            if arc.split("/")[0] in project_tops:
                raise BuildError(f"plugin {plugin.name!r}: its {arc!r} would overwrite the project's own")
            files[arc] = path
    if heads is not None:
        files.update(heads_files(heads, tasks))
    files.pop(METADATA, None)
    return Manifest(files, texts, tuple(plugins), tasks, tuple(warnings))


def write_zip(manifest: Manifest, output: Path) -> Archive:
    """Write the archive deterministically (sorted entries, one timestamp) and atomically."""
    output.parent.mkdir(parents=True, exist_ok=True)
    entries = sorted(set(manifest.files) | set(manifest.texts))
    fd, tmp_name = tempfile.mkstemp(prefix=output.name, suffix=".tmp", dir=output.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            for arc in entries:
                info = zipfile.ZipInfo(arc, date_time=ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                if arc in manifest.texts:
                    zf.writestr(info, manifest.texts[arc].encode("utf-8"))
                else:
                    with manifest.files[arc].open("rb") as src, zf.open(info, "w") as dst:
                        shutil.copyfileobj(src, dst, 1 << 20)
        tmp.replace(output)
    finally:
        tmp.unlink(missing_ok=True)
    sizes = manifest.sizes()
    by_top: dict[str, tuple[int, int]] = {}
    for arc, size in sizes.items():
        top = arc.split("/")[0] + ("/" if "/" in arc else "")
        n, total = by_top.get(top, (0, 0))
        by_top[top] = (n + 1, total + size)
    meta = json.loads(manifest.texts[METADATA])
    archive = Archive(output, output.stat().st_size, sum(sizes.values()), len(sizes), by_top, meta["entrypoint"])
    if max(archive.packed, archive.unpacked) > LIMIT_BYTES:
        raise BuildError(f"{output} is over the 10 GB limit:\n{archive.report()}")
    return archive


def build(plugin_names: Sequence[str], output: Path, heads: Path | None = None) -> tuple[Archive, Manifest]:
    """Collect and write the archive; returns its figures and what went in."""
    manifest = collect(plugin_names, heads)
    return write_zip(manifest, output), manifest


def image_requirements(manifest: Manifest) -> list[str]:
    """What the image must provide: the runtime requirements, pinned, and third-party plugins' own."""
    lines = [
        line.strip()
        for line in (REPO / "requirements-runtime.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    for plugin in manifest.plugins:
        lines += [f"{req}  # for plugin {plugin.name} ({plugin.distribution})" for req in plugin.requires]
    return lines
