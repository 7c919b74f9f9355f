"""The server's memory is bounded by design (issue 37): the budget, the streamed uploads, and a bounded
load test on 127.0.0.1.

The load test runs ``serve.py``'s serving path over the fake trunk (``core.serve.fake``: the real tasks'
image loading and preprocessing, the real upload path, the defaults of ``serve.py``) in a subprocess, and
reads its RSS from ``/proc``: a flood of uploads just under and over the limit, then large valid images
and decompression bombs all at once. The heavy version on the real trunk is ``python -m bench.serve_memory``.
"""

from __future__ import annotations

import asyncio
import http.client
import io
import json
import random
import struct
import subprocess
import threading
import time
import urllib.request
import zlib
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from core.serve import fake
from core.serve.memory import DEFAULT_BUDGET, MemoryBudget
from core.serve.upload import MAX_TEXT_FIELD, WRITE_BUFFER, BadRequest, FormReader
from registry import collect, get_plugin_manager

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "input"
MiB = 2**20
UPLOAD_LIMIT = 16 * MiB  # serve.py's default


# -- the budget ----------------------------------------------------------------------------------
def test_the_budget_lets_requests_in_first_come_first_served_within_its_total() -> None:
    async def go() -> list[str]:
        budget = MemoryBudget(100)
        events: list[str] = []

        async def request(name: str, amount: int, seconds: float) -> None:
            async with budget.hold(amount):
                events.append(f"{name} in ({budget.held})")
                await asyncio.sleep(seconds)
            events.append(f"{name} out")

        first = asyncio.create_task(request("a", 60, 0.05))
        await asyncio.sleep(0)
        big = asyncio.create_task(request("b", 70, 0.01))  # waits for a
        await asyncio.sleep(0)
        small = asyncio.create_task(request("c", 10, 0.01))  # would fit now, but b came first
        await asyncio.gather(first, big, small)
        assert budget.held == 0 and budget.peak == 80 and budget.waiting == 0
        return events

    assert asyncio.run(go()) == ["a in (60)", "a out", "b in (80)", "c in (80)", "b out", "c out"]


def test_a_request_that_gives_up_while_waiting_holds_nothing() -> None:
    async def go() -> None:
        budget = MemoryBudget(100)
        async with budget.hold(90):
            waiter = asyncio.create_task(_hold(budget, 50))
            await asyncio.sleep(0.01)
            assert budget.waiting == 1
            waiter.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiter
        assert budget.held == 0 and budget.waiting == 0
        async with budget.hold(1000):  # more than the total takes all of it, once it is free
            assert budget.held == 100

    asyncio.run(go())


async def _hold(budget: MemoryBudget, amount: int) -> None:
    async with budget.hold(amount):
        await asyncio.sleep(1)


# -- streamed uploads ----------------------------------------------------------------------------
def _multipart(fields: list[tuple[str, str | None, bytes]], boundary: str = "b0undary") -> tuple[bytes, str]:
    out = bytearray()
    for name, filename, data in fields:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'.encode()
        if filename is not None:
            out += f'; filename="{filename}"'.encode()
        out += b"\r\n\r\n" + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


def test_the_image_field_is_streamed_to_a_file_and_text_fields_are_bounded(tmp_path: Path) -> None:
    image = random.Random(1).randbytes(3 * 2**20 + 5)
    body, ctype = _multipart([("image", "x.jpg", image), ("request", None, b'["a bus"]')])
    written: list[int] = []

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 70_000):
            yield body[start : start + 70_000]
            written.append(reader.pending_bytes)

    with FormReader(ctype, tmp_path, len(body)) as reader:
        fields = asyncio.run(reader.read(chunks()))
    assert max(written) < WRITE_BUFFER + 70_000  # written out a buffer at a time, never held whole
    assert fields["request"].data == b'["a bus"]' and fields["request"].path is None
    part = fields["image"]
    assert part.data == b"" and part.path is not None and part.path.parent == tmp_path
    assert part.path.read_bytes() == image and part.size == len(image) and part.filename == "x.jpg"

    # The file field ends inside a chunk that fills the buffer, and a text field follows: its file is
    # completed once, then left alone.
    body, ctype = _multipart([("image", "y.jpg", image[: WRITE_BUFFER + 10]), ("request", None, b'"q"')])
    (tmp_path / "second").mkdir()
    with FormReader(ctype, tmp_path / "second", len(body)) as reader:
        reader.feed(body)
        assert reader.pending_bytes == WRITE_BUFFER + 10
        reader.write_pending()
        fields = reader.finish()
        reader.write_pending()
    assert fields["image"].path is not None and fields["image"].path.read_bytes() == image[: WRITE_BUFFER + 10]
    assert fields["request"].data == b'"q"'

    too_long, ctype = _multipart([("request", None, b"x" * (MAX_TEXT_FIELD + 1))])
    with pytest.raises(BadRequest) as refused, FormReader(ctype, tmp_path / "no", UPLOAD_LIMIT) as reader:
        reader.feed(too_long)
    assert refused.value.status == 413 and "'request'" in refused.value.message

    body, ctype = _multipart([("image", "x.jpg", image)])
    with pytest.raises(BadRequest) as refused, FormReader(ctype, tmp_path, 100_000) as reader:
        for start in range(0, len(body), 64_000):
            reader.feed(body[start : start + 64_000])
    assert refused.value.status == 413 and reader.received <= 128_000  # refused as the limit is passed

    # An unknown field is refused when its headers end, before its data is read.
    body, ctype = _multipart([("other", None, b"x" * 100)])
    with pytest.raises(BadRequest, match="unknown field 'other'"), FormReader(ctype, tmp_path, UPLOAD_LIMIT) as r:
        r.feed(body[: body.index(b"xxx")])


# -- the load test -------------------------------------------------------------------------------
def _png(width: int, height: int, color_type: int, *, pixels: bool = True) -> bytes:
    """An 8-bit PNG of zeros; with ``pixels``, its IDAT really holds every row (built a block of rows at a time)."""
    channels = {0: 1, 2: 3}[color_type]

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = bytes(1 + width * channels)
    comp = zlib.compressobj(9)
    idat = bytearray()
    for start in range(0, height if pixels else 1, 500):
        idat += comp.compress(row * min(500, height - start))
    idat += comp.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", bytes(idat)) + chunk(b"IEND", b"")


def _jpeg_claiming(width: int, height: int, *, progressive: bool = False) -> bytes:
    """A real 16 x 16 JPEG whose frame header claims ``width x height`` (libjpeg pads the missing data)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 30, 30)).save(buffer, "JPEG", progressive=progressive)
    data = bytearray(buffer.getvalue())
    sof = data.find(b"\xff\xc2" if progressive else b"\xff\xc0")
    struct.pack_into(">HH", data, sof + 5, height, width)
    return bytes(data)


def _status_kib(pid: int, name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {name} in /proc/{pid}/status")


def _post(port: int, task: str, fields: list[tuple[str, str | None, bytes]]) -> int:
    body, ctype = _multipart(fields, f"b{random.getrandbits(64):x}")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", f"/v1/tasks/{task}", body=body, headers={"Content-Type": ctype})
        answer = conn.getresponse()
        answer.read()
        return answer.status
    except (OSError, http.client.HTTPException):
        return 0  # the server closed the connection while the body was still being sent (after a 413)
    finally:
        conn.close()


@pytest.fixture(scope="module")
def memory_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    if not Path("/proc/self/clear_refs").exists():
        pytest.skip("reads the server's memory from Linux's /proc")
    tmp = tmp_path_factory.mktemp("serve_tmp")
    log = tmp_path_factory.mktemp("serve_log") / "serve.log"
    tasks = fake.image_tasks(collect(get_plugin_manager(load_entrypoints=False)).tasks)
    process, port = fake.start(tasks, log, env={"TMPDIR": str(tmp)}, timeout=120)
    try:
        yield process, port
    finally:
        process.terminate()
        process.wait(timeout=60)
    assert not list(tmp.glob("fusionbrain-serve-*")), "the server left its temporary folder behind"


def test_a_flood_then_large_images_and_bombs_at_once_stay_within_the_bound(memory_server) -> None:  # type: ignore[no-untyped-def]
    """Stays up, /health within 2 s throughout, peak RSS within the budget plus what the uploads in
    progress and the answers take, and back near the baseline afterwards."""
    process, port = memory_server
    pid = process.pid
    bus = (DEMO / "zsOD" / "images" / "bus.jpg").read_bytes()
    for task, fields in {
        "zsod": [("request", None, b'["a bus"]'), ("image", "bus.jpg", bus)],
        "vqa": [("request", None, b'{"question": "What colour is the bus?"}'), ("image", "bus.jpg", bus)],
        "htr": [("image", "bus.jpg", bus)],
    }.items():
        assert _post(port, task, fields) == 200  # warm-up: every lazily built part is built
    time.sleep(0.5)
    baseline = _status_kib(pid, "VmRSS")
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # the kernel's peak (VmHWM) counts from here

    stop = threading.Event()
    slowest = [0.0]
    failures: list[str] = []

    def ask_health() -> None:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as answer:
                    answer.read()
            except OSError as exc:
                failures.append(f"after {time.perf_counter() - started:.1f} s: {exc!r}")
            slowest[0] = max(slowest[0], time.perf_counter() - started)
            time.sleep(0.1)

    watcher = ThreadPoolExecutor(1)
    health = watcher.submit(ask_health)
    try:
        noise = random.Random(0).randbytes(UPLOAD_LIMIT - 64 * 1024)
        over = noise + bytes(128 * 1024)
        flood = [("htr", [("image", "noise.jpg", over if i % 4 == 3 else noise)]) for i in range(28)]
        with ThreadPoolExecutor(len(flood)) as pool:  # more than the 16 places of requests in progress
            statuses = list(pool.map(lambda a: _post(port, *a), flood))
        assert sorted(set(statuses)) in ([413, 422], [0, 413, 422]) and statuses.count(422) == 21
        flood_peak = _status_kib(pid, "VmHWM")

        big_jpeg, grey_bomb = _jpeg_claiming(8000, 8000), _png(12_000, 12_000, 0)
        burst: list[tuple[str, list[tuple[str, str | None, bytes]], int]] = [
            ("zsod", [("request", None, b'["a bus", "a car"]'), ("image", "big.jpg", big_jpeg)], 200),
            ("vqa", [("request", None, b'{"question": "Is it red?"}'), ("image", "big.jpg", big_jpeg)], 200),
            ("htr", [("image", "big.jpg", _jpeg_claiming(8000, 8000, progressive=True))], 200),
            ("zsod", [("request", None, b'["sky"]'), ("image", "big.png", _png(8000, 8000, 2))], 200),
            ("vqa", [("request", None, b'{"question": "What is it?"}'), ("image", "bomb.png", grey_bomb)], 200),
            ("htr", [("image", "bomb.png", grey_bomb)], 200),
            ("zsod", [("request", None, b'["a"]'), ("image", "rgb.png", _png(12_000, 12_000, 2, pixels=False))], 422),
            ("htr", [("image", "huge.png", _png(40_000, 40_000, 0, pixels=False))], 422),
        ]
        burst += [("htr", [("image", "noise.jpg", noise)], 422)] * 8  # the flood goes on meanwhile
        with ThreadPoolExecutor(len(burst)) as pool:
            statuses = list(pool.map(lambda b: _post(port, b[0], b[1]), burst))
        assert statuses == [expected for _, _, expected in burst]
    finally:
        stop.set()
        watcher.shutdown(wait=True)
    health.result()
    time.sleep(1.0)
    peak, after = _status_kib(pid, "VmHWM"), _status_kib(pid, "VmRSS")
    growth = (peak - baseline) / 1024
    print(  # shown with -s: the figures of docs/results.md
        f"slowest /health {slowest[0]:.2f} s, peak RSS baseline + {growth:.0f} MiB (the flood alone + "
        f"{(flood_peak - baseline) / 1024:.0f}), after + {(after - baseline) / 1024:.0f}"
    )
    assert process.poll() is None, "the server died"
    assert not failures, failures
    assert slowest[0] < 2.0, f"/health took {slowest[0]:.2f} s"
    # The budget, plus the 16 requests in progress (their upload chunks and text) and the answers.
    shown = f"peak RSS {peak // 1024} MiB = baseline {baseline // 1024} + {growth:.0f}"
    assert growth < DEFAULT_BUDGET / MiB + 160, shown
    assert (flood_peak - baseline) / 1024 < 160, f"the flood alone took {(flood_peak - baseline) // 1024} MiB"
    assert (after - baseline) / 1024 < 96, f"RSS {after // 1024} MiB after the burst, baseline {baseline // 1024} MiB"
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
        memory: dict[str, Any] = json.load(answer)["memory"]
    assert memory["held_bytes"] == 0 and memory["requests_in_progress"] == 0
    assert 300 * MiB < memory["peak_held_bytes"] <= memory["budget_bytes"] == DEFAULT_BUDGET
