"""The page in a real browser: Debian's headless Chromium driven by Selenium through the system chromedriver.

``serve.py`` runs on the embedded trunk (zsOD and C2C, to keep the start short) on a free loopback port. The
test uploads a demo image with two phrases (one Russian), checks that the boxes are drawn and the answer
listed, that a server-side refusal is shown as a message, and that C2C's answer reads as Python source.
``UPDATE_SCREENSHOT=1`` also writes the screenshot to ``docs/serve.png`` (made small: a 256-colour PNG).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
BUS = REPO / "demo" / "input" / "zsOD" / "images" / "bus.jpg"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
PHRASES = ("a blue bus", "автобус")
JAVA = "static int sumTo ( int n ) { int s = 0 ; for ( int i = 1 ; i <= n ; i ++ ) { s += i ; } return s ; }"
START_TIMEOUT = 240.0


def _need_browser() -> None:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if not missing:
        return
    why = f"needs Debian's chromium and chromium-driver ({', '.join(missing)} missing; `make install` installs them)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true: {why}")
    pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``serve.py --tasks zsod`` on a free port; its TMPDIR is a fresh folder that must be empty after it stops."""
    _need_browser()
    port = _free_port()
    tmp = tmp_path_factory.mktemp("serve_tmp")
    log = tmp_path_factory.mktemp("serve_log") / "serve.log"
    env = {**os.environ, "TMPDIR": str(tmp), "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "serve.py", "--tasks", "zsod,c2c", "--threads", "1", "--port", str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        started = time.monotonic()
        while True:
            if process.poll() is not None:
                pytest.fail(f"serve.py exited with {process.returncode}:\n{log.read_text('utf-8', 'replace')[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=2) as answer:
                    if json.load(answer)["status"] == "ok":
                        break
            except OSError:
                pass
            if time.monotonic() - started > START_TIMEOUT:
                pytest.fail(
                    f"serve.py did not answer in {START_TIMEOUT:.0f} s:\n{log.read_text('utf-8', 'replace')[-3000:]}"
                )
            time.sleep(0.5)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    # uvicorn shuts down cleanly on SIGTERM, then re-raises it: -SIGTERM is its clean exit.
    assert process.returncode in (0, -signal.SIGTERM), log.read_text("utf-8", "replace")[-3000:]
    # Nothing of the server's is left (building the trunk makes torch's empty inductor cache folder, as run.py does).
    assert not list(tmp.glob("fusionbrain-serve-*")), "serve.py left its temporary folder"
    assert [p for p in tmp.rglob("*") if not p.is_dir()] == [], "serve.py left files in its temporary folder"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    _need_browser()
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never download a driver or a browser
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1180,820",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium_profile')}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_page_draws_boxes_and_shows_errors(server: str, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    wait = WebDriverWait(browser, 120)
    browser.get(server + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#task option[value=zsod]"))
    Select(browser.find_element(By.ID, "task")).select_by_value("zsod")
    browser.find_element(By.ID, "file").send_keys(str(BUS))
    wait.until(lambda d: d.execute_script("return document.getElementById('preview').naturalWidth") > 0)
    browser.find_element(By.ID, "phrases").send_keys("\n".join(PHRASES))
    browser.find_element(By.ID, "run").click()
    wait.until(ec.visibility_of_element_located((By.ID, "result")))

    assert not browser.find_element(By.ID, "error").is_displayed()
    legend = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#legend li")]
    assert [line.split(":")[0] for line in legend] == list(PHRASES)
    answer = json.loads(browser.find_element(By.ID, "raw").get_attribute("textContent"))
    prediction = answer["prediction"]
    assert list(prediction) == list(PHRASES)
    boxes = browser.find_elements(By.CSS_SELECTOR, "#boxes .box")
    assert len(boxes) == sum(len(v) for v in prediction.values()) > 0  # every box of the answer is drawn
    drawn = {b.get_attribute("data-phrase") for b in boxes}
    assert drawn == {p for p, v in prediction.items() if v}
    stage = browser.find_element(By.ID, "stage").rect
    for box in boxes:  # inside the picture, with a size
        r = box.rect
        assert r["width"] > 2 and r["height"] > 2
        assert stage["x"] - 4 <= r["x"] and r["x"] + r["width"] <= stage["x"] + stage["width"] + 4
    absent = [p for p, v in prediction.items() if not v]
    if absent:
        assert all(p in browser.find_element(By.ID, "absent").text for p in absent)
    assert "answered in" in browser.find_element(By.ID, "status").text

    browser.execute_script("window.scrollTo(0, 0)")
    shot = tmp_path / "serve.png"
    browser.save_screenshot(str(shot))
    if os.environ.get("UPDATE_SCREENSHOT"):
        _save_small(shot, REPO / "docs" / "serve.png")

    # A refusal by the server (a file that is no image) is shown as a message, and the page keeps working.
    not_image = tmp_path / "notes.jpg"
    not_image.write_text("not an image", encoding="utf-8")
    browser.find_element(By.ID, "file").send_keys(str(not_image))
    browser.find_element(By.ID, "run").click()
    wait.until(ec.visibility_of_element_located((By.ID, "error")))
    assert "image" in browser.find_element(By.ID, "error").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#boxes .box")

    # C2C: paste Java, read Python source (the display the task declares), not AVATAR tokens.
    Select(browser.find_element(By.ID, "task")).select_by_value("c2c")
    assert not browser.find_element(By.ID, "image-field").is_displayed()
    browser.find_element(By.ID, "text").send_keys(JAVA)
    browser.find_element(By.ID, "run").click()
    wait.until(ec.visibility_of_element_located((By.ID, "code")))
    source = browser.find_element(By.ID, "code").get_attribute("textContent")
    assert "NEW_LINE" not in source and "INDENT" not in source
    namespace: dict[str, Any] = {}
    exec(compile(source, "<c2c>", "exec"), namespace)  # noqa: S102 - our own translation of a tiny program
    functions = [v for k, v in namespace.items() if callable(v) and not k.startswith("__")]
    assert [f(4) for f in functions] == [10]


def _save_small(source: Path, target: Path) -> None:
    from PIL import Image

    target.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(source) as img:
        img.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)
