# Two commands on a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: venv demo test bench clean pdf-pages lab

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test,report,batch]"
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/hydrocalc demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

# JupyterLab on notebooks/ (the course in notebooks/learn/ and the explorer; the report's section
# notebooks live in src/hydrocalc/report/notebooks/, see notebooks/README.md), with the
# project's kernel ("python3" of .venv, registered by the install step above).
LAB_STAMP := $(VENV)/.lab-stamp
$(LAB_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[lab]"
	touch $(LAB_STAMP)

lab: $(LAB_STAMP)
	$(BIN)/python -m jupyter lab --notebook-dir=notebooks $(LAB_ARGS)

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]" || echo "bench extra (tr55, pyswmm) not installable; those comparisons are skipped"
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info

# Render every report PDF under reports/ to PNG pages (to look at them as a reviewer would).
pdf-pages: $(STAMP)
	$(BIN)/python -m hydrocalc.report.pdf reports
