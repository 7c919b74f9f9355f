"""The HTTP API on the fake trunk: listing, answers equal to the runner's, display, hostile requests."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._close import BOX_ROUNDING, assert_same_answers
from tests.serve import _shout

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "input"
BUS = DEMO / "zsOD" / "images" / "bus.jpg"
MAX_UPLOAD = 2 * 2**20


@pytest.fixture(scope="module")
def served(fake_trunk) -> Iterator[tuple[Any, Any]]:  # type: ignore[no-untyped-def]
    """(service, client): the built-in tasks plus a third-party plugin's, on the fake trunk, one app per module."""
    from fastapi.testclient import TestClient

    from core.serve.app import create_app
    from core.serve.service import Service
    from registry import collect, get_plugin_manager

    pm = get_plugin_manager(load_entrypoints=False)
    pm.register(_shout.Plugin(), name="shout-dist")
    service = Service(collect(pm).tasks, fake_trunk)
    # The Host a browser on this machine sends: only the loopback names are answered by default.
    app = create_app(service, max_upload=MAX_UPLOAD)
    with TestClient(app, base_url="http://localhost:8000", raise_server_exceptions=False) as client:
        yield service, client
    assert not service.tmp.exists(), "the service's temporary folder outlived it"


def post(client: Any, task: str, request: Any = None, image: bytes | None = None, **kwargs: Any) -> Any:
    files: dict[str, Any] = {}
    if request is not None:
        files["request"] = (None, request if isinstance(request, bytes) else json.dumps(request, ensure_ascii=False))
    if image is not None:
        files["image"] = ("upload.jpg", image, "image/jpeg")
    return client.post(f"/v1/tasks/{task}", files=files, **kwargs)


def demo_requests() -> dict[str, tuple[Any, bytes | None, str]]:
    """One demo item per built-in task: (request, image bytes, the key run.py writes it under)."""
    zsod_key, phrases = next(iter(json.loads((DEMO / "zsOD" / "requests.json").read_text("utf-8")).items()))
    qid, entry = next(iter(json.loads((DEMO / "VQA" / "questions.json").read_text("utf-8")).items()))
    c2c_key, java = next(iter(json.loads((DEMO / "C2C" / "requests.json").read_text("utf-8")).items()))
    word = sorted((DEMO / "HTR" / "images").iterdir())[0]
    return {
        "zsod": (phrases, (DEMO / "zsOD" / "images" / zsod_key).read_bytes(), zsod_key),
        "vqa": ({"question": entry["question"]}, (DEMO / "VQA" / "images" / entry["file_name"]).read_bytes(), qid),
        "c2c": (java, None, c2c_key),
        "htr": (None, word.read_bytes(), word.name),
    }


@pytest.fixture(scope="module")
def runner_values(served) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """What run.py's runner writes for the demo input with the same (already set-up) task objects."""
    from core import runner
    from core.task import output_mapping

    service, _ = served
    tasks = {name: s.task for name, s in service.servers.items() if name in ("zsod", "vqa", "c2c", "htr")}
    values = {}
    for item in runner.plan(tasks, DEMO, strict=True):
        report = runner.TaskReport(item.task.info.name)
        batches = runner.chunks(item.samples, item.task.info.batch_size)
        loaded = service.servers[item.task.info.name].setup.loaded
        predictions = runner.solve_batches(item.task, batches, service.trunk, report, strict=True, loaded=loaded)
        values[item.task.info.name] = output_mapping(predictions)
    return values


def test_lists_every_task_from_its_info(served) -> None:  # type: ignore[no-untyped-def]
    _, client = served
    answer = client.get("/v1/tasks")
    assert answer.status_code == 200
    tasks = {t["name"]: t for t in answer.json()["tasks"]}
    assert set(tasks) == {"c2c", "htr", "zsod", "vqa", "shout", "tagless"}
    assert tasks["zsod"]["form"] == {
        "ask": "phrases",
        "shape": tasks["zsod"]["form"]["shape"],
        "image": True,
        "answer": "boxes",
        "display": False,
    }
    assert tasks["htr"]["form"]["ask"] is None and tasks["htr"]["form"]["image"] is True
    assert tasks["c2c"]["form"]["display"] is True and tasks["c2c"]["form"]["image"] is False
    assert tasks["vqa"]["form"]["ask"] == "question"
    # A third-party plugin's task is served with no change to the server; one without a form is listed only.
    assert tasks["shout"]["served"] is True and tasks["shout"]["ready"] is True
    assert tasks["tagless"]["served"] is False and tasks["tagless"]["form"] is None
    assert post(client, "shout", "привет, world").json()["prediction"] == "ПРИВЕТ, WORLD"
    refused = post(client, "tagless", "x")
    assert refused.status_code == 404 and "not served" in refused.json()["error"]


def test_health_and_page(served) -> None:  # type: ignore[no-untyped-def]
    _, client = served
    health = client.get("/health").json()
    assert health["status"] == "ok" and set(health["tasks"]) >= {"zsod", "shout"}
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "/static/app.js" in page.text and "default-src 'self'" in page.headers["content-security-policy"]
    for name in ("app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert client.get("/static/../serve.py").status_code == 404
    assert client.get("/docs").status_code == 404  # Swagger UI would load scripts from a CDN


@pytest.mark.parametrize("task", ["zsod", "vqa", "c2c", "htr"])
def test_answer_is_what_the_runner_writes(served, runner_values, task: str) -> None:  # type: ignore[no-untyped-def]
    service, client = served
    request, image, key = demo_requests()[task]
    answer = post(client, task, request, image)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {"prediction", "seconds"} and body["seconds"] > 0
    # zsOD's boxes within their 0.1 px rounding (the runner batches images, the server does not).
    assert_same_answers(body["prediction"], runner_values[task][key], abs_tol=BOX_ROUNDING, where=f"{task}[{key!r}]")
    assert list(service.tmp.iterdir()) == []  # the request's folder is gone


def test_c2c_display_is_python_source(served) -> None:  # type: ignore[no-untyped-def]
    from plugins.c2c.detok import readable

    _, client = served
    body = post(client, "c2c", "static int add ( int a , int b ) { return a + b ; }", params={"display": "true"}).json()
    assert body["display"] == readable(body["prediction"])
    assert "NEW_LINE" in body["prediction"] and "NEW_LINE" not in body["display"]
    assert "def add(a, b):" in body["display"]  # as a person writes it, not token by token
    compile(body["display"], "<c2c>", "exec")
    namespace: dict[str, Any] = {}
    exec(body["display"], namespace)  # noqa: S102 - our own translation of a two-line program
    functions = [v for k, v in namespace.items() if callable(v) and not k.startswith("__")]
    assert [f(2, 3) for f in functions] == [5]


def test_russian_and_lone_surrogates_come_back_as_run_py_writes_them(served) -> None:  # type: ignore[no-untyped-def]
    _, client = served
    raw = b'["\\u0430\\u0432\\u0442\\u043e\\u0431\\u0443\\u0441", "bad \\udc80 text"]'
    answer = post(client, "zsod", raw, BUS.read_bytes())
    assert answer.status_code == 200
    assert "автобус" in answer.text and "\\udc80" in answer.text  # UTF-8 text, the surrogate as its escape
    assert set(answer.json()["prediction"]) == {"автобус", "bad \udc80 text"}


def _png_claiming(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    )


HOSTILE: dict[str, tuple[str, dict[str, Any], int, str]] = {
    "upload over the limit": ("zsod", {"request": ["a bus"], "image": b"\xff" * (MAX_UPLOAD + 1)}, 413, "limit"),
    "not an image": ("zsod", {"request": ["a bus"], "image": b"GIF89a but not really"}, 422, "image"),
    "empty image": ("htr", {"image": b""}, 422, "empty"),
    "image past core.io's pixel limit": ("htr", {"image": _png_claiming(20_000, 20_000)}, 422, "limit"),
    "missing image": ("zsod", {"request": ["a bus"]}, 422, "image"),
    "missing request": ("vqa", {"image": "BUS"}, 422, "request"),
    "request where none is asked": ("htr", {"request": "x", "image": "BUS"}, 422, "request"),
    "image where none is taken": ("c2c", {"request": "int f ( ) { return 1 ; }", "image": "BUS"}, 422, "image"),
    "request not UTF-8": ("c2c", {"request": b'"caf\xe9 \xff"'}, 400, "UTF-8"),
    "request not JSON": ("zsod", {"request": b"[a bus", "image": "BUS"}, 422, "JSON"),
    "request NaN": ("c2c", {"request": b"NaN"}, 422, "JSON"),
    "phrases not a list": ("zsod", {"request": {"a": 1}, "image": "BUS"}, 422, "list"),
    "no phrases": ("zsod", {"request": [], "image": "BUS"}, 422, "empty"),
    "question without text": ("vqa", {"request": {"q": "why?"}, "image": "BUS"}, 422, "question"),
    "java not a string": ("c2c", {"request": ["int"]}, 422, "string"),
    "deeply nested JSON": ("c2c", {"request": b"[" * 100_000 + b"]" * 100_000}, 422, "JSON"),
    "unknown task": ("nosuch", {"request": "x"}, 404, "no task"),
}


@pytest.mark.parametrize("case", list(HOSTILE), ids=list(HOSTILE))
def test_hostile_request_gets_4xx_and_the_server_keeps_serving(served, case: str) -> None:  # type: ignore[no-untyped-def]
    service, client = served
    task, fields, status, word = HOSTILE[case]
    image = fields.get("image")
    answer = post(client, task, fields.get("request"), BUS.read_bytes() if image == "BUS" else image)
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert word.lower() in error.lower() and "Traceback" not in error and str(service.tmp) not in error
    assert list(service.tmp.iterdir()) == []
    assert post(client, "shout", "still here").json()["prediction"] == "STILL HERE"


def test_malformed_bodies(served) -> None:  # type: ignore[no-untyped-def]
    _, client = served
    url = "/v1/tasks/c2c"
    assert client.post(url, content=b'"x"', headers={"content-type": "application/json"}).status_code == 415
    truncated = b'--b\r\nContent-Disposition: form-data; name="request"\r\n\r\n"int"'
    answer = client.post(url, content=truncated, headers={"content-type": "multipart/form-data; boundary=b"})
    assert answer.status_code == 400 and "malformed" in answer.json()["error"]
    two = (
        b"".join(b'--b\r\nContent-Disposition: form-data; name="request"\r\n\r\n"int"\r\n' for _ in range(2))
        + b"--b--\r\n"
    )
    answer = client.post(url, content=two, headers={"content-type": "multipart/form-data; boundary=b"})
    assert answer.status_code == 422 and "twice" in answer.json()["error"]
    answer = client.post(url, files={"request": (None, '"x"'), "other": (None, "y")})
    assert answer.status_code == 422 and "unknown field" in answer.json()["error"]
    # A form without an image may come urlencoded (curl -d), in UTF-8.
    answer = client.post("/v1/tasks/shout", data={"request": json.dumps("тихо")})
    assert answer.status_code == 200 and answer.json()["prediction"] == "ТИХО"
    bad = client.post(
        "/v1/tasks/shout", content=b"request=%22%FF%22", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert bad.status_code == 400
    assert client.post(url + "?display=maybe", files={"request": (None, '"x"')}).status_code == 422


def test_task_failure_is_the_runners_fallback_and_serving_goes_on(served) -> None:  # type: ignore[no-untyped-def]
    service, client = served
    before = service.servers["shout"].report.fallbacks
    answer = post(client, "shout", "boom")
    assert answer.status_code == 200 and answer.json()["prediction"] == ""  # ShoutTask.fallback
    assert service.servers["shout"].report.fallbacks == before + 1
    assert post(client, "shout", "ok").json()["prediction"] == "OK"


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST.:8000", "127.0.0.1:1", "[::1]:8000", "[::1]"])
def test_the_loopback_names_are_answered_on_any_port(served, host: str) -> None:  # type: ignore[no-untyped-def]
    _, client = served
    assert client.get("/v1/tasks", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "testserver", ""])
def test_a_foreign_host_is_refused_before_anything_is_read(served, host: str) -> None:  # type: ignore[no-untyped-def]
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends Host: evil.example."""
    service, client = served
    before = service.servers["shout"].stats.requests
    answer = post(client, "shout", "rebound", headers={"Host": host})
    assert answer.status_code == 400 and answer.headers["connection"] == "close"
    assert "--allowed-host" in answer.json()["error"] if host else "Host header" in answer.json()["error"]
    assert client.get("/", headers={"Host": host}).status_code == 400  # the page too
    assert service.servers["shout"].stats.requests == before


def test_allowed_hosts_add_names_and_a_star_allows_any(fake_trunk) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from core.serve.app import create_app
    from core.serve.service import Service

    pm_tasks = {"shout": _shout.ShoutTask()}
    for hosts, host, status in [
        (("Box.LAN",), "box.lan:8000", 200),
        (("box.lan",), "localhost", 400),  # the names given replace create_app's default
        (("::1",), "[::1]:80", 200),
        (("*",), "anything.example", 200),
    ]:
        with TestClient(create_app(Service(pm_tasks, fake_trunk), allowed_hosts=hosts)) as client:
            assert client.get("/health", headers={"Host": host}).status_code == status, (hosts, host)
