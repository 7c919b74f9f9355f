"""serve.py's memory under hostile load: ``python -m bench.serve_memory [--repo PATH] [--threads 1]``.

Starts ``serve.py`` of ``--repo`` (default: this checkout; point it at another checkout to measure
that tree's server with the same load) on a free loopback port, sends one demo request per task
(warm-up), then, only to 127.0.0.1, bounded in count and time:

1. **flood**: ``--flood-clients`` clients each send ``--flood-each`` bodies just under the upload limit
   (random bytes, refused as not an image) and a few over it;
2. **burst**, all at once: very large valid images (8,000 x 8,000 baseline and progressive JPEGs, an
   8,000 x 8,000 RGB PNG) to zsOD, VQA and HTR, and decompression bombs (a 12,000 x 12,000 grey PNG
   and GIF inside the pixel limit, a 12,000 x 12,000 RGB PNG over the decode bound, a PNG claiming
   30,000 x 30,000), while the flood goes on at a lower rate (``--copies N``: N copies of them at once);
3. **settle**: ``--settle`` seconds idle.

Throughout, ``GET /health`` is asked every 0.25 s (its slowest answer is printed) and the server's
RSS is read from ``/proc/<pid>/status`` every 20 ms; the peak printed is the kernel's ``VmHWM``.
Before the load, two large JPEGs and a large PNG are sent alone, each after resetting the kernel's
peak (``/proc/<pid>/clear_refs``): what one image costs. Prints the RSS at baseline (after the warm-up
and those single requests; the peak is reset there), the peak, and after the settle, with every answer's
status counts. Linux only (``/proc``). Exit status 1 when the server died, a valid image got no 200,
or ``/health`` was ever slower than 2 s.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.serve import demo_payloads, multipart, start_server

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "demo" / "input"
MiB = 2**20


# -- the payloads -------------------------------------------------------------------------------
def big_images(cache: Path) -> dict[str, bytes]:
    """The burst's images by name, made once into ``cache`` (a large photo is the demo bus, enlarged)."""
    import numpy as np
    from PIL import Image

    cache.mkdir(parents=True, exist_ok=True)
    out: dict[str, bytes] = {}

    def made(name: str, make: Any) -> None:
        path = cache / name
        if not path.exists():
            buffer = io.BytesIO()
            make(buffer)
            path.write_bytes(buffer.getvalue())
        out[name] = path.read_bytes()

    def photo() -> Image.Image:
        with Image.open(DEMO / "zsOD" / "images" / "bus.jpg") as bus:
            big = bus.convert("RGB").resize((8000, 8000), Image.Resampling.BILINEAR)
        grain = np.random.default_rng(0).integers(0, 12, (8000, 8000, 1), dtype=np.uint8)
        return Image.fromarray(np.asarray(big) // 2 + grain * 2 + 40)

    def gradient() -> Image.Image:
        ramp = np.linspace(0, 255, 8000, dtype=np.float32)
        rgb = np.stack(np.broadcast_arrays(ramp[None, :], ramp[:, None], ramp[::-1][None, :]), -1)
        return Image.fromarray(rgb.astype(np.uint8))

    made("photo-8000.jpg", lambda b: photo().save(b, "JPEG", quality=80))
    made("photo-8000-progressive.jpg", lambda b: photo().save(b, "JPEG", quality=80, progressive=True))
    made("gradient-8000.png", lambda b: gradient().save(b, "PNG", compress_level=9))
    made("bomb-grey-12000.png", lambda b: Image.new("L", (12000, 12000), 7).save(b, "PNG", compress_level=9))
    made("bomb-12000.gif", lambda b: Image.new("P", (12000, 12000), 3).save(b, "GIF"))
    made("bomb-rgb-12000.png", lambda b: Image.new("RGB", (12000, 12000), (1, 2, 3)).save(b, "PNG", compress_level=9))
    out["claims-30000.png"] = _png_claiming(30000, 30000)
    return out


def _png_claiming(width: int, height: int) -> bytes:
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    )


# (task, image name, request, whether it is a valid image the server must answer with 200)
BURST: list[tuple[str, str, Any, bool]] = [
    ("zsod", "photo-8000.jpg", ["a bus", "a person", "a car"], True),
    ("zsod", "photo-8000.jpg", ["a window"], True),
    ("zsod", "photo-8000-progressive.jpg", ["a bus"], True),
    ("zsod", "gradient-8000.png", ["the sky"], True),
    ("vqa", "photo-8000.jpg", {"question": "What colour is the bus?"}, True),
    ("vqa", "photo-8000-progressive.jpg", {"question": "How many people are there?"}, True),
    ("vqa", "gradient-8000.png", {"question": "Is it dark?"}, True),
    ("htr", "photo-8000.jpg", None, True),
    ("vqa", "bomb-grey-12000.png", {"question": "What is this?"}, True),
    ("htr", "bomb-12000.gif", None, True),
    ("zsod", "bomb-rgb-12000.png", ["a bus"], False),
    ("htr", "claims-30000.png", None, False),
]


# One at a time before the load: what one large image costs the server.
SINGLE = [BURST[0], BURST[3], BURST[4]]


def body_of(task: str, name: str, image: bytes, request: Any) -> tuple[bytes, str]:
    fields: list[tuple[str, str | None, bytes]] = []
    if request is not None:
        fields.append(("request", None, json.dumps(request).encode("utf-8")))
    fields.append(("image", name, image))
    return multipart(fields)


# -- measuring ----------------------------------------------------------------------------------
def status_kib(pid: int, field_name: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


@dataclass
class Watch:
    """RSS samples and /health latencies while the load runs."""

    pid: int
    base: str
    rss_peak_kib: int = 0
    health_worst: float = 0.0
    health_slow: int = 0
    health_failed: list[str] = field(default_factory=list)
    health_asked: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def run_rss(self) -> None:
        while not self.stop.is_set():
            try:
                self.rss_peak_kib = max(self.rss_peak_kib, status_kib(self.pid, "VmRSS"))
            except OSError:
                return
            time.sleep(0.02)

    def run_health(self) -> None:
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(f"{self.base}/health", timeout=10) as answer:
                    answer.read()
                    ok = answer.status == 200
            except OSError as exc:
                ok = False
                self.health_failed.append(repr(exc))
            elapsed = time.perf_counter() - started
            self.health_asked += 1
            self.health_worst = max(self.health_worst, elapsed)
            self.health_slow += elapsed > 2.0 or not ok
            time.sleep(0.25)


def post(host: str, port: int, task: str, body: bytes, ctype: str, timeout: float) -> int | str:
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("POST", f"/v1/tasks/{task}", body=body, headers={"Content-Type": ctype})
        answer = conn.getresponse()
        answer.read()
        return answer.status
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    finally:
        conn.close()


def flood(host: str, port: int, clients: int, each: int, limit: int, stop_at: float) -> Counter[int | str]:
    """``clients`` at once, each sending ``each`` bodies just under ``limit`` (one in four just over it)."""
    rng = random.Random(0)
    under = body_of("htr", "noise.jpg", rng.randbytes(limit - 64 * 1024), None)
    over = body_of("htr", "noise.jpg", rng.randbytes(limit + 1024), None)
    counts: Counter[int | str] = Counter()
    lock = threading.Lock()

    def client(i: int) -> None:
        for j in range(each):
            if time.monotonic() > stop_at:
                return
            body, ctype = over if (i + j) % 4 == 3 else under
            status = post(host, port, "htr", body, ctype, 120)
            with lock:
                counts[status] += 1

    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    return counts


def mib(kib: int) -> str:
    return f"{kib / 1024:,.0f} MiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout whose serve.py is measured")
    parser.add_argument("--threads", type=int, default=1, help="the server's torch threads")
    parser.add_argument("--flood-clients", type=int, default=48)
    parser.add_argument("--flood-each", type=int, default=3, help="bodies per flood client")
    parser.add_argument("--upload-mb", type=float, default=16.0, help="the server's upload limit (its default)")
    parser.add_argument("--rounds", type=int, default=1, help="times the burst is sent (one after another)")
    parser.add_argument("--copies", type=int, default=1, help="copies of the burst's requests sent at once")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds idle before the final RSS")
    parser.add_argument("--max-seconds", type=float, default=900.0, help="bound on the whole load")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "fusionbrain-bench-images")
    parser.add_argument("--server-args", default="", help="extra serve.py options, space-separated")
    args = parser.parse_args(argv)

    images = big_images(args.cache)
    limit = int(args.upload_mb * MiB)
    for name, data in images.items():
        if len(data) > limit - 4096:
            raise SystemExit(f"{name} is {len(data) / MiB:.1f} MiB, over the upload limit")
    log_path = Path(tempfile.gettempdir()) / f"bench-serve-memory-{os.getpid()}.log"
    process, base = start_server(args.repo.resolve(), args.threads, log_path, args.server_args.split(), wait_s=600)
    host, port = "127.0.0.1", int(base.rsplit(":", 1)[1])
    shown = " ".join(sys.argv[1:] if argv is None else argv)
    print(f"command: python -m bench.serve_memory {shown}".rstrip(), flush=True)
    print(f"serve.py of {args.repo} (pid {process.pid}, log {log_path})", flush=True)
    watch = Watch(process.pid, base)
    stop_at = time.monotonic() + args.max_seconds
    failed = False
    try:
        for task, fields in demo_payloads().items():
            body, ctype = multipart(fields)
            status = post(host, port, task, body, ctype, 300)
            if status != 200:
                print(f"warm-up {task}: {status}")
                failed = True
        time.sleep(2.0)
        for task, name, request, _ in SINGLE:
            before = status_kib(process.pid, "VmRSS")
            Path(f"/proc/{process.pid}/clear_refs").write_text("5")  # the peak (VmHWM) starts again from now
            status = post(host, port, task, *body_of(task, name, images[name], request), 300)
            peak = status_kib(process.pid, "VmHWM")
            print(
                f"one {name} to {task} alone: HTTP {status}, peak RSS {mib(peak)} = RSS before + {mib(peak - before)}",
                flush=True,
            )
        time.sleep(2.0)
        baseline = status_kib(process.pid, "VmRSS")
        Path(f"/proc/{process.pid}/clear_refs").write_text("5")
        print(f"baseline RSS after the warm-up: {mib(baseline)}", flush=True)
        threads = [threading.Thread(target=watch.run_rss), threading.Thread(target=watch.run_health)]
        for t in threads:
            t.start()

        started = time.monotonic()
        counts = flood(host, port, args.flood_clients, args.flood_each, limit, stop_at)
        print(
            f"flood: {sum(counts.values())} bodies of ~{args.upload_mb:.0f} MiB from {args.flood_clients} clients "
            f"in {time.monotonic() - started:.1f} s: {dict(counts)}; RSS now {mib(status_kib(process.pid, 'VmRSS'))}, "
            f"peak so far {mib(status_kib(process.pid, 'VmHWM'))}",
            flush=True,
        )

        for round_ in range(args.rounds):
            started = time.monotonic()
            burst_bodies = [
                (task, *body_of(task, name, images[name], request), name, valid)
                for task, name, request, valid in BURST * args.copies
            ]
            with ThreadPoolExecutor(len(burst_bodies) + 1) as pool:
                side = pool.submit(flood, host, port, 8, 2, limit, stop_at)
                futures = [
                    (
                        name,
                        task,
                        valid,
                        pool.submit(post, host, port, task, body, ctype, max(60.0, stop_at - time.monotonic())),
                    )
                    for task, body, ctype, name, valid in burst_bodies
                ]
                results = [(name, task, valid, f.result()) for name, task, valid, f in futures]
                side_counts = side.result()
            for name, task, valid, status in results:
                if valid and status != 200:
                    failed = True
                    print(f"  {task} {name}: {status} (a valid image must be answered)")
            print(
                f"burst {round_ + 1}: {len(results)} requests at once in {time.monotonic() - started:.1f} s: "
                + ", ".join(f"{task} {name} {status}" for name, task, _, status in results)
                + f"; side flood {dict(side_counts)}; RSS now {mib(status_kib(process.pid, 'VmRSS'))}",
                flush=True,
            )
            del burst_bodies

        time.sleep(args.settle)
        after = status_kib(process.pid, "VmRSS")
        peak = status_kib(process.pid, "VmHWM")
    finally:
        watch.stop.set()
        alive = process.poll() is None
        process.terminate()
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
    if not alive:
        print("the server DIED under the load")
        return 1
    print(
        f"RSS: baseline {mib(baseline)}, peak (VmHWM) {mib(peak)} = {peak / 2**20:.2f} GiB, "
        f"after {args.settle:.0f} s idle {mib(after)} (baseline + {mib(after - baseline)})"
    )
    print(
        f"/health: {watch.health_asked} asked, slowest {watch.health_worst:.2f} s, "
        f"{watch.health_slow} slower than 2 s or failed {watch.health_failed[:3]}"
    )
    return 1 if failed or watch.health_slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
