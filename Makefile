# Two commands do all set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SHARED := ../shared/data
DEMO_OUT ?= output/demo
SAMPLE_OUT ?= output/fb_sample

.PHONY: run test install bench lint clean submission

install: $(STAMP)

# torch/torchvision first and exactly pinned: on x86_64 pip takes them from this
# machine's disk; asking for them with the rest could pull another build.
$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $$(grep -E '^(torch|torchvision)==' requirements.txt)
	$(PY) -m pip install -q -r requirements.txt -r requirements-dev.txt
	$(PY) -m core.metrics._legacy_treesitter
	@# tests/c2c: the Java oracle (javac/java) of the whole-program and function checks, installed only when missing.
	command -v javac >/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jdk-headless; }
	@# tests/serve/test_browser.py: Debian's headless chromium and its chromedriver, installed only when missing.
	test -x /usr/bin/chromedriver || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; }
	touch $(STAMP)

run: $(STAMP)
	$(PY) run.py --input demo/input --output $(DEMO_OUT)
	$(PY) -m core.summary $(DEMO_OUT)
	@if [ -d $(SHARED)/fb_sample ]; then \
		$(PY) run.py --input $(SHARED)/fb_sample/input --output $(SAMPLE_OUT) && \
		$(PY) score.py --pred $(SAMPLE_OUT) --true $(SHARED)/fb_sample/true; \
	else echo "($(SHARED)/fb_sample absent: skipped scoring)"; fi

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	for b in bench/*.py; do m=$$(basename $$b .py); [ $$m = __init__ ] || $(PY) -m bench.$$m || exit 1; done

lint: $(STAMP)
	$(PY) -m ruff check .

# The organisers' archive, then run as they run it (read-only, offline, HOME unset) on the
# demo input and on fb_sample when present, compared with an in-tree run.
SUBMISSION ?= dist/submission.zip
submission: $(STAMP)
	$(PY) -m submission build --plugins c2c,htr,zsod,vqa --output $(SUBMISSION) --check demo/input \
		$$(if [ -d $(SHARED)/fb_sample ]; then echo --check $(SHARED)/fb_sample/input; fi)

clean:
	rm -rf output .pytest_cache
