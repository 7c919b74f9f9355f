"""``python params.py``: M/N, its output into a closed pipe, and ``--ablation SET``: each task's score
with the trunk and with ``--ablate-trunk random`` (``run.py`` twice).

The trunk is a tiny seeded open_clip ViT saved to a temporary folder (``tests/core/_openclip.py``) and
the set is the C2C, HTR and VQA part of the challenge-layout set of ``tests/core/_tiny_sources.py``
(a dozen pictures), so that both runs take seconds. Sockets are blocked in this process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("open_clip")

import registry  # noqa: E402
from core import params  # noqa: E402
from tests.core._openclip import CLIP_TEXT, VIT, build_checkpoint, offline  # noqa: E402
from tests.core._tiny_sources import write_tiny_sources  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
TASKS = ("C2C", "HTR", "VQA")  # the task folders of the tiny set


@pytest.fixture(scope="module")
def tiny_trunk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``openclip:<config>.json:<checkpoint>`` of a seeded tiny ViT, loadable in a fresh process too."""
    with offline():
        root = tmp_path_factory.mktemp("params-trunk")
        config, checkpoint, _ = build_checkpoint(
            root, "fbtest-params-vit", {"embed_dim": 32, "vision_cfg": VIT, "text_cfg": CLIP_TEXT}, seed=3
        )
        yield f"openclip:{config}:{checkpoint}"


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny challenge set without zsOD (the slowest task to set up): C2C, which reads no trunk
    feature, and HTR and VQA, which do."""
    [challenge] = write_tiny_sources(tmp_path_factory.mktemp("params-sources"))["challenge"]
    tiny = tmp_path_factory.mktemp("params-set")
    for part in ("input", "true"):
        for task in TASKS:
            shutil.copytree(challenge / part / task, tiny / part / task)
    return tiny


def test_ablation_runs_run_py_twice_and_says_what_each_task_uses_the_trunk_for(
    tiny_trunk: str, tiny_set: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []
    real_run = subprocess.run

    def recording_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        commands.append(list(cmd))
        return real_run(cmd, **kwargs)

    monkeypatch.setattr(params.subprocess, "run", recording_run)
    argv = ["--trunk", tiny_trunk, "--ablation", str(tiny_set), "--threads", "1", "--json"]
    assert params.main(argv, registry, run_script=REPO / "run.py") == 0
    result = json.loads(capsys.readouterr().out)

    assert set(result) == {"shared", "total", "ratio", "per_task", "detector", "ablation"}  # M, N, M/N as without it
    assert result["ratio"] == pytest.approx(result["shared"] / result["total"])
    assert [(c[0], c[1], c[c.index("--ablate-trunk") + 1]) for c in commands] == [
        (sys.executable, str(REPO / "run.py"), "none"),
        (sys.executable, str(REPO / "run.py"), "random"),
    ]
    assert all(c[c.index("--threads") + 1] == "1" and c[c.index("--trunk") + 1] == tiny_trunk for c in commands)

    ablation = result["ablation"]
    assert ablation["set"] == str(tiny_set) and ablation["threads"] == 1
    assert [row["folder"] for row in ablation["tasks"].values()] == list(TASKS)  # each task with gold in the set
    for name, row in ablation["tasks"].items():
        assert row["delta"] == pytest.approx(row["random"] - row["trunk"]), name
        expected = "depends" if row["delta"] < 0 else "nominal" if row["delta"] == 0 else "hurt"
        assert row["uses"] == expected, name
    # C2C's translator reads no trunk feature, and no style selector matches a random tiny trunk.
    assert ablation["tasks"]["c2c"]["uses"] == "nominal" and ablation["tasks"]["c2c"]["identical"]


@pytest.mark.parametrize(
    ("trunk", "random", "identical", "uses", "said"),
    [
        (0.5, 0.25, False, "depends", "depends on the trunk"),
        (0.5, 0.5, True, "nominal", "nominal: byte-identical output"),
        (0.5, 0.5, False, "nominal", "nominal: no change in score"),
        (0.25, 0.5, False, "hurt", "scores higher without the trunk"),
    ],
)
def test_each_verdict_is_said(trunk: float, random: float, identical: bool, uses: str, said: str) -> None:
    row = params.AblationRow("t", "T", trunk, random, identical)
    assert row.uses == uses and row.describe() == said
    table = params.Ablation(Path("SET"), "default", 2, (row,), 1.0, 1.5).describe()
    assert table[0].startswith("trunk ablation on SET (run.py twice, --threads 2)")
    assert table[2].split()[:4] == ["T", f"{trunk:.6f}", f"{random:.6f}", f"{random - trunk:+.6f}"]
    assert table[2].endswith(said) and table[-1].split() == ["S", "1.000", "1.500", "+0.500"]


def test_an_unknown_set_is_a_usage_error(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "input").mkdir()  # no true/
    assert params.main(["--ablation", str(tmp_path)], registry, run_script=REPO / "run.py") == 2
    assert "holds input/ and true/" in caplog.text


def test_params_py_into_a_closed_pipe_ends_quietly(tiny_trunk: str) -> None:
    """``python params.py | head -0``: the reader is gone before anything is printed; as run.py, no
    traceback and exit status 0."""
    proc = subprocess.Popen(
        [sys.executable, "params.py", "--trunk", tiny_trunk],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8", "replace")
    assert proc.wait(timeout=300) == 0, err[-3000:]
    assert "Traceback" not in err and "BrokenPipeError" not in err
