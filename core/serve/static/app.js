// The page of serve.py: plain JS, no build step. It knows the request forms (TaskInfo.form), not the tasks.
"use strict";

const $ = (id) => document.getElementById(id);
const COLOURS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#0f9aa8", "#d6339a", "#6b8e23",
  "#9a6324", "#800000", "#469990", "#000075"];
const FIELDS = { phrases: "phrases-field", question: "question-field", text: "text-field", json: "json-field" };

let tasks = [];
let maxUpload = Infinity;
let file = null;
let objectUrl = null;

function task() { return tasks.find((t) => t.name === $("task").value); }

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
}

function clearResult() {
  $("error").hidden = true;
  $("result").hidden = true;
  $("boxes").replaceChildren();
  for (const id of ["legend"]) $(id).replaceChildren();
  for (const id of ["absent", "answer", "code"]) { $(id).hidden = true; $(id).textContent = ""; }
  $("status").textContent = "";
}

function showInputs() {
  const t = task();
  if (!t) return;
  const form = t.form;
  $("image-field").hidden = !form.image;
  for (const [ask, id] of Object.entries(FIELDS)) $(id).hidden = form.ask !== ask;
  if (form.ask && !(form.ask in FIELDS)) $("json-field").hidden = false;
  $("shape").textContent = form.ask ? `request: ${form.shape || "a JSON value"}` : "request: the image alone";
  $("task-note").hidden = t.ready;
  $("task-note").textContent = t.ready ? "" : "This task's setup failed on the server: it answers with its fallback.";
  $("stage").hidden = !(form.image && file);
  clearResult();
}

async function loadTasks() {
  try {
    const response = await fetch("/v1/tasks");
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    tasks = data.tasks.filter((t) => t.served);
    maxUpload = data.max_upload_bytes || Infinity;
    for (const t of tasks) {
      const option = document.createElement("option");
      option.value = t.name;
      option.textContent = `${t.name} (${t.folder})`;
      $("task").append(option);
    }
    if (!tasks.length) showError("The server serves no task.");
    showInputs();
  } catch (err) {
    showError(`Cannot list the tasks: ${err.message}`);
  }
}

function setFile(chosen) {
  if (!chosen) return;
  file = chosen;
  if (objectUrl) URL.revokeObjectURL(objectUrl);
  objectUrl = URL.createObjectURL(file);
  $("preview").src = objectUrl;
  $("drop-text").textContent = `${file.name} (${Math.round(file.size / 1024)} KB): drop or click for another`;
  $("stage").hidden = false;
  clearResult();
}

function requestText(form) {
  switch (form.ask) {
    case "phrases": {
      const phrases = $("phrases").value.split("\n").map((p) => p.trim()).filter((p) => p);
      if (!phrases.length) throw new Error("Type at least one phrase.");
      return JSON.stringify(phrases);
    }
    case "question": {
      const question = $("question").value.trim();
      if (!question) throw new Error("Type a question.");
      return JSON.stringify({ question });
    }
    case "text": {
      const text = $("text").value;
      if (!text.trim()) throw new Error("Paste a program.");
      return JSON.stringify(text);
    }
    default:
      return $("json").value;
  }
}

function drawBoxes(prediction) {
  const img = $("preview");
  const width = img.naturalWidth;
  const height = img.naturalHeight;
  const absent = [];
  Object.entries(prediction).forEach(([phrase, boxes], i) => {
    const colour = COLOURS[i % COLOURS.length];
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = colour;
    const n = Array.isArray(boxes) ? boxes.length : 0;
    item.append(swatch, `${phrase}: ${n ? `${n} box${n > 1 ? "es" : ""}` : "absent"}`);
    $("legend").append(item);
    if (!n) { absent.push(phrase); return; }
    for (const [x, y, w, h] of boxes) {
      const box = document.createElement("div");
      box.className = "box";
      box.dataset.phrase = phrase;
      box.style.borderColor = colour;
      box.style.left = `${(100 * x) / width}%`;
      box.style.top = `${(100 * y) / height}%`;
      box.style.width = `${(100 * w) / width}%`;
      box.style.height = `${(100 * h) / height}%`;
      const label = document.createElement("span");
      label.style.background = colour;
      label.textContent = phrase;
      box.append(label);
      $("boxes").append(box);
    }
  });
  if (absent.length) {
    $("absent").textContent = `Absent: ${absent.join(", ")}`;
    $("absent").hidden = false;
  }
}

function render(t, data) {
  const shown = data.display ?? data.prediction;
  if (t.form.answer === "boxes" && shown && typeof shown === "object") {
    drawBoxes(shown);
  } else if (t.form.answer === "code") {
    $("code").textContent = typeof shown === "string" ? shown : JSON.stringify(shown, null, 2);
    $("code").hidden = false;
  } else {
    $("answer").textContent = typeof shown === "string" ? (shown || "(empty answer)") : JSON.stringify(shown);
    $("answer").hidden = false;
  }
  $("raw").textContent = JSON.stringify(data, null, 1);
  $("result").hidden = false;
  $("status").textContent = `answered in ${data.seconds.toFixed(2)} s`;
}

async function run(event) {
  event.preventDefault();
  const t = task();
  if (!t) return;
  clearResult();
  const body = new FormData();
  try {
    if (t.form.ask) body.append("request", requestText(t.form));
    if (t.form.image) {
      if (!file) throw new Error("Choose an image first.");
      if (file.size > maxUpload) {
        const mib = (n) => (n / 2 ** 20).toFixed(1);
        throw new Error(`The image is ${mib(file.size)} MiB: the server takes at most ${mib(maxUpload)} MiB.`);
      }
      body.append("image", file, file.name);
    }
  } catch (err) {
    showError(err.message);
    return;
  }
  $("run").disabled = true;
  $("status").textContent = "running…";
  try {
    const response = await fetch(`/v1/tasks/${encodeURIComponent(t.name)}?display=true`, { method: "POST", body });
    let data;
    try { data = await response.json(); } catch { throw new Error(`The server answered HTTP ${response.status}.`); }
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    if (t.form.image) await $("preview").decode().catch(() => {});
    render(t, data);
  } catch (err) {
    $("status").textContent = "";
    showError(err.message);
  } finally {
    $("run").disabled = false;
  }
}

function init() {
  const drop = $("drop");
  drop.addEventListener("click", () => $("file").click());
  drop.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("file").click(); } });
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    setFile(e.dataTransfer.files[0]);
  });
  $("file").addEventListener("change", () => setFile($("file").files[0]));
  $("task").addEventListener("change", showInputs);
  $("form").addEventListener("submit", run);
  $("form").addEventListener("keydown", (e) => { if (e.key === "Enter" && e.ctrlKey) run(e); });
  loadTasks();
}

init();
