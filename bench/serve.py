"""serve.py under load: ``python -m bench.serve [--clients 1,4,8] [--requests 40] [--max-seconds 30] [--threads 1]``.

Starts ``serve.py`` on a free loopback port (or uses ``--url`` of one already running), then for each task
and each number of concurrent clients sends the same demo request (``demo/input``: zsOD ``bus.jpg`` with
its 8 phrases, the first VQA question with its image, the first C2C program, the first HTR word) from N
client threads, each on one keep-alive connection, until ``--requests`` answers or ``--max-seconds``.
Prints requests/s, p50/p95 latency (client side, seconds) and the mean batch the server made (its
``/health`` counts). Every answer must be HTTP 200. The server's model work runs on ``--threads`` torch
threads; the clients share the same machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "demo" / "input"


def demo_payloads() -> dict[str, list[tuple[str, str | None, bytes]]]:
    """Per task, the multipart fields of one demo request: (field, filename, bytes)."""
    zsod_key, phrases = next(iter(json.loads((DEMO / "zsOD" / "requests.json").read_text("utf-8")).items()))
    _, question = next(iter(json.loads((DEMO / "VQA" / "questions.json").read_text("utf-8")).items()))
    _, java = next(iter(json.loads((DEMO / "C2C" / "requests.json").read_text("utf-8")).items()))
    word = sorted((DEMO / "HTR" / "images").iterdir())[0]

    def text(value: Any) -> bytes:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")

    return {
        "zsod": [
            ("request", None, text(phrases)),
            ("image", zsod_key, (DEMO / "zsOD" / "images" / zsod_key).read_bytes()),
        ],
        "vqa": [
            ("request", None, text({"question": question["question"]})),
            ("image", question["file_name"], (DEMO / "VQA" / "images" / question["file_name"]).read_bytes()),
        ],
        "c2c": [("request", None, text(java))],
        "htr": [("image", word.name, word.read_bytes())],
    }


def multipart(fields: list[tuple[str, str | None, bytes]]) -> tuple[bytes, str]:
    boundary = f"bench{uuid.uuid4().hex}"
    out = bytearray()
    for name, filename, data in fields:
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'.encode()
        if filename is not None:
            out += f'; filename="{filename}"\r\nContent-Type: application/octet-stream'.encode()
        out += b"\r\n\r\n" + data + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"


@dataclass
class Level:
    task: str
    clients: int
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    batches: int = 0
    requests: int = 0

    def row(self) -> dict[str, Any]:
        lat = sorted(self.latencies)

        def pct(q: float) -> float:
            return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")

        return {
            "task": self.task,
            "clients": self.clients,
            "answers": len(lat),
            "failures": len(self.failures),
            "requests_per_s": len(lat) / self.seconds if self.seconds else 0.0,
            "p50_s": pct(0.50),
            "p95_s": pct(0.95),
            "mean_batch": self.requests / self.batches if self.batches else 0.0,
        }


def health(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/health", timeout=10) as answer:
        return json.load(answer)


def run_level(
    host: str, port: int, task: str, body: bytes, ctype: str, clients: int, total: int, limit: float
) -> Level:
    level = Level(task, clients)
    lock = threading.Lock()
    issued = 0
    stop_at = time.monotonic() + limit

    def client() -> None:
        nonlocal issued
        conn = http.client.HTTPConnection(host, port, timeout=max(60.0, limit))
        try:
            while time.monotonic() < stop_at:
                with lock:
                    if issued >= total:
                        return
                    issued += 1
                started = time.perf_counter()
                try:
                    conn.request("POST", f"/v1/tasks/{task}", body=body, headers={"Content-Type": ctype})
                    answer = conn.getresponse()
                    data = answer.read()
                except (OSError, http.client.HTTPException) as exc:
                    with lock:
                        level.failures.append(repr(exc))
                    conn.close()
                    conn = http.client.HTTPConnection(host, port, timeout=max(60.0, limit))
                    continue
                elapsed = time.perf_counter() - started
                with lock:
                    if answer.status == 200 and "prediction" in json.loads(data):
                        level.latencies.append(elapsed)
                    else:
                        level.failures.append(f"HTTP {answer.status}: {data[:200]!r}")
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    level.seconds = time.perf_counter() - started
    return level


def start_server(
    repo: Path, threads: int, log_path: Path, extra: list[str], *, wait_s: float = 300
) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``repo``'s serve.py on a free loopback port (``extra``: its further options) and wait until
    ``/health`` answers; returns the process and its base URL. The log goes to ``log_path``."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "serve.py", "--host", "127.0.0.1", "--port", str(port), "--threads", str(threads)]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*command, *extra], cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    base = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    while True:
        if process.poll() is not None:
            raise SystemExit(f"serve.py exited with {process.returncode}; see {log_path}")
        try:
            health(base)
            print(f"server up in {time.monotonic() - started:.1f} s (log: {log_path})", flush=True)
            return process, base
        except OSError:
            time.sleep(0.5)
        if time.monotonic() - started > wait_s:
            process.kill()
            raise SystemExit(f"serve.py did not answer in {wait_s:.0f} s; see {log_path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", default="1,4,8", help="comma-separated numbers of concurrent clients")
    parser.add_argument("--requests", type=int, default=40, help="answers per task and client count (bound)")
    parser.add_argument("--max-seconds", type=float, default=30.0, help="time per task and client count (bound)")
    parser.add_argument("--tasks", default="zsod,vqa,c2c,htr")
    parser.add_argument("--threads", type=int, default=1, help="the server's torch threads")
    parser.add_argument("--trunk", default="default")
    parser.add_argument("--warmup", type=int, default=2, help="requests per task before timing")
    parser.add_argument("--url", default=None, help="a running serve.py (default: start one on a free port)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    args.tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    levels = [int(c) for c in args.clients.split(",")]
    payloads = demo_payloads()

    process = None
    if args.url:
        base = args.url.rstrip("/")
    else:
        log_path = Path(tempfile.gettempdir()) / f"bench-serve-{os.getpid()}.log"
        process, base = start_server(
            REPO, args.threads, log_path, ["--trunk", args.trunk, "--tasks", ",".join(args.tasks)]
        )
    host_port = base.split("://", 1)[1]
    host, port = host_port.rsplit(":", 1)
    rows = []
    try:
        for task in args.tasks:
            body, ctype = multipart(payloads[task])
            run_level(host, int(port), task, body, ctype, 1, args.warmup, 120)
            for clients in levels:
                before = health(base)["tasks"][task]
                level = run_level(host, int(port), task, body, ctype, clients, args.requests, args.max_seconds)
                after = health(base)["tasks"][task]
                level.batches = after["batches"] - before["batches"]
                level.requests = after["requests"] - before["requests"]
                row = level.row()
                rows.append(row)
                if not args.json:
                    print(
                        f"{task:5s} clients {clients:2d}: {row['answers']:3d} answers, "
                        f"{row['requests_per_s']:6.2f} req/s, "
                        f"p50 {row['p50_s']:.3f} s, p95 {row['p95_s']:.3f} s, mean batch {row['mean_batch']:.1f}"
                        + (f", {row['failures']} FAILED ({level.failures[0]})" if level.failures else ""),
                        flush=True,
                    )
    finally:
        if process is not None:
            process.terminate()
            process.wait(timeout=60)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 1 if any(r["failures"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
