# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# One venv, two stamps: `make run` installs what running and scoring need; `make test` adds the rest.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
RUN_STAMP  := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
SHARED := ../shared/data
DEMO_OUT ?= output/demo
SAMPLE_OUT ?= output/fb_sample

.PHONY: run test install install-run bench lint clean submission

install: $(TEST_STAMP)
install-run: $(RUN_STAMP)

# run.py needs requirements-runtime.txt (what the organisers' image must provide); score.py adds
# the C2C scorer's grammar (tree-sitter-python, pinned in requirements.txt) and the organisers'
# legacy tree-sitter, built here once. torch/torchvision first and exactly pinned: on x86_64 pip
# takes them from this machine's disk; asking for them with the rest could pull another build.
$(RUN_STAMP): requirements-runtime.txt requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $$(grep -E '^(torch|torchvision)==' requirements-runtime.txt)
	$(PY) -m pip install -q -r requirements-runtime.txt $$(grep -E '^tree-sitter-python==' requirements.txt)
	$(PY) -m core.metrics._legacy_treesitter
	$(PY) -m plugins.htr.native
	touch $@

# The tests need the rest of requirements.txt (ray, fastapi, ultralytics, fonttools...), the dev
# tools, and Debian packages, each installed only when missing, so that no test skips:
# default-jdk-headless (tests/c2c: the Java oracle of the whole-program and function checks),
# chromium + chromium-driver (tests/serve/test_browser.py) and hershey-fonts-data
# (tests/htr/train/test_pen.py: the pen renderer's fonts), and gcc where no C compiler is found
# (tests/htr/test_htr_native.py: HTR's compiled CTC search).
$(TEST_STAMP): $(RUN_STAMP) requirements.txt requirements-dev.txt
	$(PY) -m pip install -q -r requirements.txt -r requirements-dev.txt
	missing=""; \
	command -v javac >/dev/null 2>&1 || missing="$$missing default-jdk-headless"; \
	command -v cc >/dev/null 2>&1 || missing="$$missing gcc"; \
	test -x /usr/bin/chromedriver || missing="$$missing chromium chromium-driver"; \
	test -f /usr/share/hershey-fonts/futural.jhf || missing="$$missing hershey-fonts-data"; \
	if [ -n "$$missing" ]; then \
		apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$missing; \
	fi
	touch $@

run: $(RUN_STAMP)
	$(PY) run.py --input demo/input --output $(DEMO_OUT)
	$(PY) -m core.summary $(DEMO_OUT)
	@if [ -d $(SHARED)/fb_sample ]; then \
		$(PY) run.py --input $(SHARED)/fb_sample/input --output $(SAMPLE_OUT) && \
		$(PY) score.py --pred $(SAMPLE_OUT) --true $(SHARED)/fb_sample/true; \
	else echo "($(SHARED)/fb_sample absent: skipped scoring)"; fi

test: $(TEST_STAMP)
	$(PY) -m pytest -q

bench: $(TEST_STAMP)
	for b in bench/*.py; do m=$$(basename $$b .py); [ $$m = __init__ ] || $(PY) -m bench.$$m || exit 1; done

lint: $(TEST_STAMP)
	$(PY) -m ruff check .

# The organisers' archive, then run as they run it (read-only, offline, HOME unset) on the
# demo input and on fb_sample when present, compared with an in-tree run.
SUBMISSION ?= dist/submission.zip
submission: $(TEST_STAMP)
	$(PY) -m submission build --plugins c2c,htr,zsod,vqa --output $(SUBMISSION) --check demo/input \
		$$(if [ -d $(SHARED)/fb_sample ]; then echo --check $(SHARED)/fb_sample/input; fi)

clean:
	rm -rf output .pytest_cache
