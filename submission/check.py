"""Run an archive as the organisers do, and prove it needs nothing from this machine.

The organisers unzip the archive into ``/home/jovyan``, put ``input/`` beside ``run.py``,
run the entrypoint with that folder as the working directory, offline, and read
``output/`` from the same folder. The check does the same in a fresh temporary folder:

- every unpacked file and sub-folder is made read-only (the code must not write beside
  itself), while the folder itself stays writable, because ``output/`` is created there
  as in the organisers' home folder; ``input/`` is copied in read-only;
- the entrypoint of the archive's ``metadata.json`` runs with ``/home/jovyan`` mapped to
  that folder (``python run.py``, no arguments, unless heads were shipped), with the same
  interpreter and packages, ``HOME`` unset, a fresh ``TMPDIR``, no ``PYTHONPATH`` of
  this tree, a 30-minute limit and sockets blocked (a network namespace when
  ``unshare`` allows one, and always an audit hook that refuses socket calls); when the
  check runs as root, the run gets a user id with no passwd entry (``setpriv``), so that
  ``~`` cannot be expanded and the read-only modes hold;
- every file the run opens is traced (Python's audit hook, plus ``strace`` when present
  for what C code opens: safetensors, shared libraries). The check fails naming a file
  that exists in this tree but is missing from the archive, a path read outside the
  archive, its input, its output and the interpreter's own files, a write into the code,
  a missing prediction file, or a prediction that differs from an in-tree run on the
  same input. Root ignores file modes, so the trace is what catches writes there.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import os
import re
import shutil
import signal
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from submission.build import HEADS_FOLDER, METADATA, REPO, entrypoint_root

TIME_LIMIT_S = 1800
SANDBOX = Path(__file__).resolve().parent / "sandbox"
# System places any image has; reads there are the interpreter's and the OS's own.
SYSTEM_ROOTS = (
    "/usr/lib",
    "/usr/lib64",
    "/lib",
    "/lib64",
    "/usr/local/lib",
    "/etc",
    "/proc",
    "/sys",
    "/dev",
    "/usr/share/zoneinfo",
    "/usr/share/locale",
    "/usr/lib/locale",
)
# Environment passed through to both runs: thread counts change float results.
PASS_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES")
STRACE_LINE = re.compile(r'\b(?:open|openat|openat2|creat)\((?:[A-Z_]+, )?"((?:[^"\\]|\\.)*)"(?:\.\.\.)?, ([^),]+)')


class CheckError(RuntimeError):
    """The archive does not run as the organisers run it (the message says what is wrong)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Trace:
    """What the run touched."""

    reads: frozenset[str]
    writes: frozenset[str]
    imports: frozenset[str]
    programs: tuple[str, ...]
    sockets: tuple[str, ...]
    distributions: Mapping[str, str]
    traced_by: str  # "audit hook" or "audit hook + strace"


@dataclasses.dataclass(frozen=True, slots=True)
class CheckResult:
    """The figures of one check."""

    seconds: float
    reference_seconds: float
    files: tuple[str, ...]
    identical: bool
    trace: Trace
    unused: tuple[str, ...]  # archive files no traced open touched
    score: str | None
    user: str  # who ran the archive

    def report(self) -> str:
        t = self.trace
        lines = [
            f"check: the archive ran in {self.seconds:.1f} s (limit {TIME_LIMIT_S} s) as {self.user}, HOME unset; "
            "in-tree run "
            f"{self.reference_seconds:.1f} s; {len(self.files)} prediction files, "
            + ("identical to the in-tree run" if self.identical else "DIFFERENT"),
            f"  files: {', '.join(self.files)}",
            f"  traced by {t.traced_by}: {len(t.reads)} paths read, nothing read outside the archive, its input "
            "and the interpreter; no write outside output/ and TMPDIR; no socket used",
            f"  archive files the run never opened: {len(self.unused)}"
            + (f" ({', '.join(self.unused[:8])}{', ...' if len(self.unused) > 8 else ''})" if self.unused else ""),
            "  third-party distributions imported: "
            + ", ".join(f"{d}=={v}" for d, v in sorted(t.distributions.items(), key=lambda kv: kv[0].lower())),
        ]
        if t.programs:
            lines.append(f"  programs started: {'; '.join(t.programs[:5])}")
        if self.score:
            lines.append("  score:\n" + "\n".join("    " + line for line in self.score.splitlines()))
        return "\n".join(lines)


def _unshare_prefix() -> list[str]:
    """``unshare -n`` (a network namespace with no interfaces) when this machine allows it."""
    exe = shutil.which("unshare")
    if exe is None:
        return []
    for prefix in ([exe, "-n"], [exe, "-rn"]):
        probe = subprocess.run([*prefix, "true"], capture_output=True)
        if probe.returncode == 0:
            return prefix
    return []


def _stranger_prefix() -> tuple[list[str], int | None]:
    """``setpriv`` to a user id with no passwd entry, when we are root and it can run Python.

    The organisers' container may run as any user: with ``HOME`` unset and no passwd entry,
    ``~`` cannot be expanded, and the unpacked files' modes hold for a user who is not root.
    """
    exe = shutil.which("setpriv")
    if exe is None or os.geteuid() != 0:
        return [], None
    import pwd

    uid = next(u for u in range(54321, 60000) if not _has_user(pwd, u))
    prefix = [exe, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "import pluggy"], capture_output=True, env={})
    return (prefix, uid) if probe.returncode == 0 else ([], None)


def _has_user(pwd: object, uid: int) -> bool:
    try:
        pwd.getpwuid(uid)  # type: ignore[attr-defined]
    except KeyError:
        return False
    return True


def _strace_prefix(out: Path) -> list[str]:
    exe = shutil.which("strace")
    if exe is None:
        return []
    base = [exe, "-f", "-qq", "-s", "4096", "-e", "trace=open,openat,openat2,creat", "-o", str(out)]
    for extra in (["--seccomp-bpf"], []):
        probe = [exe, "-f", "-qq", *extra, "-e", "trace=openat", "-o", os.devnull, "true"]
        if subprocess.run(probe, capture_output=True).returncode == 0:
            return base[:1] + extra + base[1:]
    return []


def unpack(archive: Path, root: Path) -> list[str]:
    """Unzip into ``root``; every file and sub-folder read-only, ``root`` itself writable."""
    with zipfile.ZipFile(archive) as zf:
        names = [n for n in zf.namelist() if not n.endswith("/")]
        for name in names:
            if name.startswith("/") or ".." in Path(name).parts:
                raise CheckError(f"{archive}: unsafe entry {name!r}")
        zf.extractall(root)
    if not (root / METADATA).is_file() or not (root / "run.py").is_file():
        raise CheckError(f"{archive}: needs {METADATA} and run.py at its root")
    _read_only(root, keep_top=True)
    return names


def _read_only(root: Path, *, keep_top: bool) -> None:
    for dirpath, _dirnames, filenames in os.walk(root, topdown=False):
        for name in filenames:
            path = Path(dirpath) / name
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        if not (keep_top and Path(dirpath) == root):
            Path(dirpath).chmod(0o555)


def _writable(root: Path) -> None:
    for dirpath, _, filenames in os.walk(root):
        Path(dirpath).chmod(0o755)
        for name in filenames:
            (Path(dirpath) / name).chmod(0o644)


def entry_command(root: Path) -> list[str]:
    """The archive's entrypoint with the organisers' folder mapped to ``root`` and our interpreter."""
    meta = json.loads((root / METADATA).read_text(encoding="utf-8"))
    entrypoint = str(meta.get("entrypoint", ""))
    home = entrypoint_root(entrypoint)
    words = entrypoint.replace(home, str(root)).split()
    if not words or Path(words[0]).name not in ("python", "python3"):
        raise CheckError(f"{METADATA}: the entrypoint {entrypoint!r} does not start with python")
    return [sys.executable, *words[1:]]


def allowed_roots() -> list[str]:
    """The interpreter's own places (stdlib, site-packages, the venv) and the system's."""
    places = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    places.update(sysconfig.get_paths().values())
    places.update(site.getsitepackages())
    places.add(os.path.dirname(os.path.realpath(sys.executable)))
    return sorted({os.path.realpath(p) for p in places} | set(SYSTEM_ROOTS))


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def read_trace(trace_file: Path, strace_file: Path | None, cwd: Path) -> Trace:
    reads: set[str] = set()
    writes: set[str] = set()
    imports: set[str] = set()
    programs: list[str] = []
    sockets: list[str] = []
    dists: dict[str, str] = {}
    if trace_file.exists():
        for line in trace_file.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            kind = rec.get("e")
            if kind == "open" and rec.get("path"):
                (writes if rec.get("write") else reads).add(rec["path"])
            elif kind == "import":
                imports.add(rec["module"])
            elif kind == "program":
                programs.append(f"{rec['event']} {' '.join(rec['args'])}")
            elif kind == "socket":
                sockets.append(f"{rec['event']} {' '.join(rec['args'])}")
            elif kind == "distributions":
                dists.update(rec.get("found", {}))
    if strace_file is not None and strace_file.exists():
        for line in strace_file.read_text(encoding="utf-8", errors="replace").splitlines():
            match = STRACE_LINE.search(line)
            if not match:
                continue
            raw = codecs.escape_decode(match.group(1).encode("latin-1", "backslashreplace"))[0]
            path = os.path.abspath(os.path.join(cwd, os.fsdecode(raw)))
            flags = match.group(2)
            write = any(f in flags for f in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"))
            (writes if write else reads).add(path)
    traced_by = "audit hook + strace" if strace_file is not None else "audit hook"
    return Trace(
        frozenset(reads), frozenset(writes), frozenset(imports), tuple(programs), tuple(sockets), dists, traced_by
    )


def trace_problems(trace: Trace, root: Path, scratch: Sequence[Path], shipped_tops: set[str]) -> list[str]:
    """Every way the run depended on this machine or on a file the archive lacks."""
    problems: list[str] = []
    root_s = os.path.realpath(root)
    output = os.path.join(root_s, "output")
    scratch_s = [os.path.realpath(p) for p in scratch]
    system = allowed_roots()
    for path in sorted(trace.reads):
        real = os.path.realpath(path)
        if _inside(real, [root_s]):
            rel = os.path.relpath(real, root_s)
            if not os.path.exists(real) and (REPO / rel).exists() and not rel.startswith(("input", "output")):
                problems.append(f"missing from the archive: {rel} (the run opened it; it exists in {REPO})")
            continue
        if _inside(real, scratch_s) or _inside(real, system) or not os.path.exists(real):
            continue
        if os.path.isdir(real) and any(_inside(r, [real]) for r in [root_s, *scratch_s, *system]):
            continue  # a folder on the way to the archive or the interpreter ("/", "/tmp")
        problems.append(f"read outside the archive: {path}" + (f" (-> {real})" if real != path else ""))
    for path in sorted(trace.writes):
        real = os.path.realpath(path)
        if _inside(real, [output, *scratch_s]) or real.startswith("/dev/"):
            continue
        where = "into the code folder" if _inside(real, [root_s]) else "outside the archive's output/"
        problems.append(f"wrote {where}: {path}")
    for module in sorted(trace.imports):
        top = module.split(".")[0]
        rel = module.replace(".", "/")
        in_repo = (REPO / rel).with_suffix(".py").is_file() or (REPO / rel / "__init__.py").is_file()
        in_archive = (root / rel).with_suffix(".py").is_file() or (root / rel / "__init__.py").is_file()
        if top in shipped_tops and in_repo and not in_archive:
            problems.append(f"missing from the archive: module {module} (imported by the run; it is {rel}.py here)")
    problems += [f"used the network: {s}" for s in trace.sockets]
    return problems


def _run(cmd: Sequence[str], cwd: Path, env: Mapping[str, str], log: Path, limit: float) -> tuple[int, float]:
    start = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=dict(env), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            code = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            code = -signal.SIGKILL
    return code, time.monotonic() - start


def _tail(log: Path, n: int = 30) -> str:
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n".join("    " + line for line in lines[-n:])


def compare_outputs(archive_out: Path, reference_out: Path) -> tuple[list[str], list[str]]:
    """(the prediction files, differences) between the two output folders."""
    ours = sorted(p.name for p in archive_out.glob("*.json")) if archive_out.is_dir() else []
    theirs = sorted(p.name for p in reference_out.glob("*.json")) if reference_out.is_dir() else []
    diffs: list[str] = []
    if ours != theirs:
        diffs.append(f"prediction files differ: archive {ours}, in-tree {theirs}")
    for name in sorted(set(ours) & set(theirs)):
        a, b = (archive_out / name).read_bytes(), (reference_out / name).read_bytes()
        if a == b:
            continue
        try:
            ja, jb = json.loads(a), json.loads(b)
        except ValueError:
            diffs.append(f"{name}: not valid JSON in one of the runs")
            continue
        keys = sorted(k for k in set(ja) | set(jb) if ja.get(k) != jb.get(k)) if isinstance(ja, dict) else []
        diffs.append(f"{name}: {len(keys)} answers differ from the in-tree run (first: {keys[:5]})")
    return ours, diffs


def _failure(problems: Sequence[str], work: Path) -> str:
    return (
        "the archive does not run as the organisers run it:\n"
        + "\n".join(f"  - {p}" for p in problems)
        + f"\n  run log tail ({work / 'run.log'}):\n{_tail(work / 'run.log')}"
    )


def archive_plugins(archive: Path) -> list[str]:
    """The plugins an archive holds: its ``registry.py``'s built-ins and its entry points."""
    import ast
    import configparser

    with zipfile.ZipFile(archive) as zf:
        tree = ast.parse(zf.read("registry.py").decode("utf-8"))
        builtins = next(
            ast.literal_eval(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "DEFAULT_PLUGINS"
        )
        names = [module.rpartition(".")[2] for module in builtins if not module.startswith("core.")]
        for entry in zf.namelist():
            if entry.count("/") == 1 and entry.endswith(".dist-info/entry_points.txt"):
                parser = configparser.ConfigParser(delimiters=("=",))
                parser.optionxform = str  # type: ignore[assignment,method-assign]
                parser.read_string(zf.read(entry).decode("utf-8"))
                if parser.has_section("fusionbrain"):
                    names += list(parser["fusionbrain"])
    return names


def archive_tasks(archive: Path) -> list[str]:
    """The task names the archive's plugins register (what the in-tree run is limited to)."""
    from submission.build import plugin_tasks, resolve_plugins

    return sorted(plugin_tasks(resolve_plugins(archive_plugins(archive))))


def check(
    archive: Path,
    input_dir: Path,
    *,
    true_dir: Path | None = None,
    limit: float = TIME_LIMIT_S,
    keep: bool = False,
) -> CheckResult:
    """Run ``archive`` on ``input_dir`` as the organisers do; raise ``CheckError`` on any problem.

    The in-tree reference run is limited to the archive's tasks and uses the heads it ships.
    """
    tasks = archive_tasks(archive)
    if not input_dir.is_dir():
        raise CheckError(f"input folder {input_dir} does not exist")
    work = Path(tempfile.mkdtemp(prefix="fb-submission-check-"))
    root, scratch, hooks = work / "home", work / "tmp", work / "hooks"
    for folder in (root, scratch, hooks):
        folder.mkdir()
    try:
        names = unpack(archive, root)
        shutil.copytree(input_dir, root / "input", symlinks=True)
        _read_only(root / "input", keep_top=False)
        shutil.copy2(SANDBOX / "sitecustomize.py", hooks / "sitecustomize.py")
        env = {k: os.environ[k] for k in PASS_ENV if k in os.environ}
        env.update(
            PATH="/usr/local/bin:/usr/bin:/bin",
            PYTHONPATH=str(hooks),
            PYTHONDONTWRITEBYTECODE="1",
            TMPDIR=str(scratch),
            FB_CHECK_TRACE=str(work / "trace.jsonl"),
        )
        strace = _strace_prefix(work / "strace.txt")
        stranger, uid = _stranger_prefix()
        if uid is not None:
            work.chmod(0o711)
            hooks.chmod(0o755)
            for folder in (root, scratch):
                os.chown(folder, uid, uid)
            os.close(os.open(work / "trace.jsonl", os.O_CREAT | os.O_WRONLY, 0o600))
            os.chown(work / "trace.jsonl", uid, uid)
        cmd = [*_unshare_prefix(), *strace, *stranger, *entry_command(root)]
        code, seconds = _run(cmd, root, env, work / "run.log", limit)
        if code == -signal.SIGKILL:
            raise CheckError(f"the archive's run passed the {limit:.0f} s limit; log tail:\n{_tail(work / 'run.log')}")
        trace = read_trace(work / "trace.jsonl", work / "strace.txt" if strace else None, root)
        shipped_tops = {n.split("/")[0].removesuffix(".py") for n in names}
        problems = trace_problems(trace, root, [scratch, hooks, work], shipped_tops)
        if code != 0:
            problems.insert(0, f"run.py exited with {code}")
        if problems:  # the in-tree run would only take time: the archive already failed
            raise CheckError(_failure(problems, work))
        reference = work / "reference"
        ref_cmd = [sys.executable, "run.py", "--input", str(input_dir.resolve()), "--output", str(reference)]
        ref_cmd += ["--tasks", ",".join(tasks)]
        ref_cmd += ["--heads", str(root / HEADS_FOLDER)] if (root / HEADS_FOLDER).is_dir() else []
        ref_env = dict(os.environ)
        ref_env.pop("FUSIONBRAIN_HEADS", None)
        ref_code, ref_seconds = _run(ref_cmd, REPO, ref_env, work / "reference.log", limit)
        if ref_code != 0:
            problems.append(f"the in-tree run exited with {ref_code}:\n{_tail(work / 'reference.log')}")
        files, diffs = compare_outputs(root / "output", reference)
        problems += diffs
        if not files:
            problems.append("the archive's run wrote no prediction file")
        if problems:
            raise CheckError(_failure(problems, work))
        opened = {os.path.relpath(os.path.realpath(p), os.path.realpath(root)) for p in trace.reads}
        unused = tuple(sorted(n for n in names if n not in opened))
        score = None
        if true_dir is not None:
            scored = subprocess.run(
                [sys.executable, "score.py", "--pred", str(root / "output"), "--true", str(true_dir)],
                cwd=REPO,
                capture_output=True,
                text=True,
            )
            if scored.returncode != 0:
                raise CheckError(f"score.py failed: {scored.stderr.strip()[-2000:]}")
            score = scored.stdout.strip()
        user = f"uid {uid} (no passwd entry)" if uid is not None else f"uid {os.geteuid()} (this user)"
        return CheckResult(seconds, ref_seconds, tuple(files), not diffs, trace, unused, score, user)
    finally:
        if keep:
            print(f"(kept {work})", file=sys.stderr)
        else:
            _writable(work)
            shutil.rmtree(work, ignore_errors=True)
