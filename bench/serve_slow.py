"""serve.py against slow and hostile clients: ``python -m bench.serve_slow [--repo PATH] [--slow-clients 16]``.

Starts the serving path of ``--repo`` (default: this checkout; point it at another checkout to measure
that tree's server with the same clients) on a free loopback port: ``core.serve.fake``,
``serve.py``'s defaults over the fake trunk (zsOD, VQA, HTR; the server's connections, limits and
deadlines are serve.py's, only the model is small). Then, only to 127.0.0.1, bounded in count and time:

1. **slow**: ``--slow-clients`` clients each send a request head, then its body one byte a second (a
   body they never finish); meanwhile one normal client asks HTR for the demo word every 0.5 s for
   ``--normal-seconds`` (each answer waited for at most 20 s) and ``/health`` is asked every 0.5 s. Printed:
   the normal answers' latencies, the slowest ``/health``, and what the slow clients got (their
   status and after how long; they are cut off at ``--slow-limit`` seconds);
2. **idle**: 4 connections that send nothing, one that sends a request head a byte a second, and one
   keep-alive connection idle after an answer: seconds until the server closes each (bound 30 s);
3. **gone**: ``--gone-clients`` clients each send a head and half of a 200 kB body, then close; the
   server's log lines since: ERROR lines, tracebacks, and the INFO lines that say a client went away;
4. **host**: ``GET /v1/tasks`` and a ``POST`` with ``Host: evil.example`` (DNS rebinding) and with
   ``Host: localhost``: the statuses.

Exit status 1 when a promise of docs/reliability.md's "Slow and hostile clients" is broken.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.serve import multipart
from core.serve import fake
from registry import collect, get_plugin_manager

REPO = Path(__file__).resolve().parents[1]
OLD_MODULE = "tests.serve._memory_server"  # a checkout from before core.serve.fake: its server, given only the port
WORD = sorted((REPO / "demo" / "input" / "HTR" / "images").iterdir())[0]


def start(repo: Path, log_path: Path) -> tuple[subprocess.Popen[bytes], int]:
    """``repo``'s server over the fake trunk (``core.serve.fake`` with this checkout's image tasks;
    a checkout from before it has ``OLD_MODULE``), once it answers."""
    current = (repo / "core" / "serve" / "fake.py").exists()
    tasks = fake.image_tasks(collect(get_plugin_manager(load_entrypoints=False)).tasks) if current else []
    started = time.monotonic()
    try:
        process, port = fake.start(tasks, log_path, repo=repo, module=fake.MODULE if current else OLD_MODULE)
    except RuntimeError as exc:
        raise SystemExit(f"{exc}\n(log: {log_path})") from None
    print(f"server up in {time.monotonic() - started:.1f} s (log: {log_path})", flush=True)
    return process, port


def head(port: int, length: int, host: str | None = None, ctype: str = "multipart/form-data; boundary=slow") -> bytes:
    return (
        f"POST /v1/tasks/htr HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\n"
        f"Content-Type: {ctype}\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def closed_after(conn: socket.socket, limit: float) -> tuple[float | None, bytes]:
    """(seconds until the server closed ``conn``, or None past ``limit``; the first bytes it sent)."""
    started = time.monotonic()
    first = b""
    conn.settimeout(0.2)
    while time.monotonic() - started < limit:
        try:
            data = conn.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - started, first
        if not data:
            return time.monotonic() - started, first
        first = first or data[:64]
    return None, first


def slow_client(port: int, limit: float) -> tuple[str, float]:
    """Sends its body a byte a second; (what it got: a status, 'closed' or 'nothing', after how many seconds)."""
    body = b"--slow\r\n" + b"x" * 400
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(head(port, len(body)))
        conn.settimeout(0.0)
        for byte in body:
            try:
                data = conn.recv(4096)
            except BlockingIOError:
                data = None
            except OSError:
                return "closed", time.monotonic() - started
            if data is not None:
                status = re.match(rb"HTTP/1\.1 (\d+)", data)
                return (status.group(1).decode() if status else "closed"), time.monotonic() - started
            if time.monotonic() - started > limit:
                return "nothing", time.monotonic() - started
            try:
                conn.send(bytes([byte]))
            except OSError:
                return "closed", time.monotonic() - started
            time.sleep(1.0)
    return "finished", time.monotonic() - started


def ask_htr(port: int, timeout: float) -> tuple[int, float]:
    body, ctype = multipart([("image", WORD.name, WORD.read_bytes())])
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/v1/tasks/htr", body=body, headers={"Content-Type": ctype})
        answer = conn.getresponse()
        answer.read()
        return answer.status, time.monotonic() - started
    except (OSError, http.client.HTTPException):
        return 0, time.monotonic() - started
    finally:
        conn.close()


def slow_phase(port: int, clients: int, normal_seconds: float, limit: float) -> dict[str, Any]:
    pool = ThreadPoolExecutor(clients)
    slow = [pool.submit(slow_client, port, limit) for _ in range(clients)]
    time.sleep(2.0)  # every slow client has sent its head and its first bytes
    latencies: list[float] = []
    failed = 0
    slowest_health = 0.0
    stop_at = time.monotonic() + normal_seconds
    while time.monotonic() < stop_at:
        status, seconds = ask_htr(port, 20.0)
        if status == 200:
            latencies.append(seconds)
        else:
            failed += 1
        started = time.monotonic()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=20) as answer:
                answer.read()
        except OSError:
            failed += 1
        slowest_health = max(slowest_health, time.monotonic() - started)
        time.sleep(0.5)
    outcomes = [f.result() for f in slow]
    pool.shutdown()
    latencies.sort()
    return {
        "slow_clients": clients,
        "normal_answers": len(latencies),
        "normal_failures": failed,
        "normal_p50_s": round(latencies[len(latencies) // 2], 3) if latencies else None,
        "normal_max_s": round(latencies[-1], 3) if latencies else None,
        "slowest_health_s": round(slowest_health, 3),
        "slow_outcomes": dict(Counter(o for o, _ in outcomes)),
        "slow_seconds": [round(min(s for _, s in outcomes), 1), round(max(s for _, s in outcomes), 1)],
    }


def idle_phase(port: int) -> dict[str, Any]:
    conns = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(4)]
    dribble = socket.create_connection(("127.0.0.1", port), timeout=5)
    kept = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    kept.request("GET", "/health")
    kept.getresponse().read()
    stop = threading.Event()

    def dribbling() -> None:
        for byte in b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n":
            if stop.wait(1.0):
                return
            try:
                dribble.send(bytes([byte]))
            except OSError:
                return

    feeder = threading.Thread(target=dribbling, daemon=True)
    feeder.start()
    assert kept.sock is not None
    with ThreadPoolExecutor(6) as pool:
        waits = list(pool.map(lambda c: closed_after(c, 30.0)[0], [*conns, dribble, kept.sock]))
    stop.set()
    for conn in [*conns, dribble]:
        conn.close()
    kept.close()

    def shown(seconds: float | None) -> float | None:
        return round(seconds, 2) if seconds is not None else None

    return {
        "silent_closed_after_s": [shown(s) for s in waits[:4]],
        "dribbling_head_closed_after_s": shown(waits[4]),
        "keep_alive_closed_after_s": shown(waits[5]),
    }


def gone_phase(port: int, clients: int, log_path: Path) -> dict[str, Any]:
    mark = log_path.stat().st_size
    half = b'--slow\r\nContent-Disposition: form-data; name="image"; filename="w.png"\r\n\r\n' + b"x" * 100_000
    for _ in range(clients):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            conn.sendall(head(port, 2 * len(half)) + half)
            time.sleep(0.05)
    time.sleep(2.0)
    with log_path.open("rb") as log:
        log.seek(mark)
        lines = log.read().decode("utf-8", "replace").splitlines()
    return {
        "gone_clients": clients,
        "error_lines": sum(1 for line in lines if line.startswith("ERROR")),
        "tracebacks": sum(1 for line in lines if line.startswith("Traceback")),
        "went_away_lines": sum(1 for line in lines if "went away" in line),
        "log_lines": len(lines),
    }


def host_phase(port: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    body, ctype = multipart([("image", WORD.name, WORD.read_bytes())])
    for host in ("evil.example", "localhost"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        try:
            conn.request("GET", "/v1/tasks", headers={"Host": host})
            listed = conn.getresponse()
            listed.read()
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            conn.request("POST", "/v1/tasks/htr", body=body, headers={"Host": host, "Content-Type": ctype})
            posted = conn.getresponse()
            posted.read()
            out[host] = [listed.status, posted.status]
        finally:
            conn.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout whose server is measured")
    parser.add_argument("--slow-clients", type=int, default=16)
    parser.add_argument("--normal-seconds", type=float, default=10.0, help="how long the normal client asks")
    parser.add_argument("--slow-limit", type=float, default=75.0, help="seconds after which a slow client stops")
    parser.add_argument("--gone-clients", type=int, default=22)
    args = parser.parse_args(argv)

    log_path = Path(tempfile.mkdtemp(prefix="serve_slow-")) / "serve.log"
    process, port = start(args.repo.resolve(), log_path)
    try:
        ask_htr(port, 60.0)  # warm-up
        results = {
            "slow": slow_phase(port, args.slow_clients, args.normal_seconds, args.slow_limit),
            "idle": idle_phase(port),
            "gone": gone_phase(port, args.gone_clients, log_path),
            "host": host_phase(port),
            "server_alive": process.poll() is None,
        }
    finally:
        process.terminate()
        process.wait(timeout=60)
    print(json.dumps(results, indent=1))
    slow, idle, gone = results["slow"], results["idle"], results["gone"]
    broken = [
        name
        for name, ok in {
            "a normal request answered within 2 s beside the slow clients": slow["normal_failures"] == 0
            and slow["normal_max_s"] is not None
            and slow["normal_max_s"] < 2.0,
            "every slow client refused (408) before the cut-off": set(slow["slow_outcomes"]) == {"408"},
            "every idle connection closed": None not in idle["silent_closed_after_s"]
            and idle["dribbling_head_closed_after_s"] is not None
            and idle["keep_alive_closed_after_s"] is not None,
            "one INFO line per client gone, no ERROR, no traceback": gone["error_lines"] == gone["tracebacks"] == 0
            and gone["went_away_lines"] == gone["gone_clients"],
            "a foreign Host refused": results["host"]["evil.example"] == [400, 400]
            and results["host"]["localhost"] == [200, 200],
            "the server stayed up": results["server_alive"],
        }.items()
        if not ok
    ]
    for name in broken:
        print(f"BROKEN: {name}")
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
