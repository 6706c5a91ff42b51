# Two entry points on a fresh machine: `make run` (the app) and `make test` (everything CI runs).
# Each creates the virtual environment on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint clean screenshots curves

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# the CPU build; an unpinned torch would pull a CUDA build of several GB
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[dev,bench,hf,audio]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/attnviz

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

# two processes (this machine has two cores); a module stays on one, so its fixtures are made once
test: lint
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

# the fast subset: no window, no subprocesses, no long runs (about 30 s)
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not gui and not slow and not soak and not packaging"

# README's pictures, taken offscreen from the shipped model
screenshots: $(STAMP)
	mkdir -p docs
	$(BIN)/attnviz --text "reverse: Attention Is All You Need" --steps 35 --view cross --size 1440x900 --overwrite --screenshot docs/cross-attention.png
	$(BIN)/attnviz --text "date: 29 November 2026" --steps 10 --view decoder --size 1280x800 --overwrite --screenshot docs/decoder-self-attention.png
	$(BIN)/attnviz --text "sort: 31415926535" --steps 6 --view encoder --size 1280x800 --overwrite --screenshot docs/encoder-self-attention.png
	$(BIN)/attnviz --text "reverse: attention" --steps 5 --view decoder --panel masks --size 1280x800 --overwrite --screenshot docs/panel-masks.png
	$(BIN)/attnviz --text "reverse: attention" --steps 5 --panel positions --size 1280x800 --overwrite --screenshot docs/panel-positions.png
	$(BIN)/attnviz --text "reverse: attention" --steps 5 --view cross --panel scaling --size 1280x800 --overwrite --screenshot docs/panel-scaling.png
	$(BIN)/attnviz --text "date: 29 November 2026" --steps 5 --panel layernorm --language zh --size 1280x800 --overwrite --screenshot docs/panel-layernorm-zh.png
	$(BIN)/attnviz --text "sort: 31415926" --steps 3 --strategy topk --top-k 5 --temperature 2 --panel decoding --size 1280x800 --overwrite --screenshot docs/panel-decoding.png
	$(BIN)/attnviz --text "date: 29 November 2026" --steps 5 --strategy beam --beam 4 --panel beam --size 1280x800 --overwrite --screenshot docs/panel-beam.png
	$(BIN)/attnviz --text "date: 03/04/2026" --steps 11 --strategy beam --beam 2 --panel beam --size 1280x800 --overwrite --screenshot docs/ambiguous-date-beam.png
	$(BIN)/attnviz --text "date: 03/04/2026" --steps 7 --strategy sample --seed 1 --panel decoding --size 1280x800 --overwrite --screenshot docs/ambiguous-date-decoding.png
	$(BIN)/attnviz --text "pick: fruit" --steps 1 --strategy sample --panel decoding --size 1280x800 --overwrite --screenshot docs/calibration.png
	$(BIN)/attnviz --text "reverse: attention" --steps 6 --view enc_self --compare assets/default.safetensors --compare-what-if no_positional --size 1440x900 --overwrite --screenshot docs/compare.png
	$(BIN)/attnviz --checkpoint assets/rnn-additive.safetensors --text "reverse: Attention Is All You Need" --steps 35 --size 1280x800 --overwrite --screenshot docs/rnn-alignment.png
	$(BIN)/attnviz --checkpoint assets/rnn-none.safetensors --text "reverse: Attention Is All You Need" --steps 35 --panel why_attention --size 1280x800 --overwrite --screenshot docs/panel-why-attention.png
	$(BIN)/attnviz --checkpoint assets/rnn-additive.safetensors --text "reverse: Attention Is All You Need" --steps 35 --compare assets/default.safetensors --size 1440x900 --overwrite --screenshot docs/compare-rnn-transformer.png
	$(BIN)/attnviz --text "reverse: attention" --steps 5 --view cross --panel attribution --size 1280x800 --overwrite --screenshot docs/panel-attribution.png
	$(BIN)/attnviz --text "reverse: attention" --steps 5 --panel heads --size 1280x800 --overwrite --screenshot docs/panel-heads.png
	$(BIN)/attnviz --text "reverse: attention" --panel train --size 1440x900 --overwrite --screenshot docs/panel-train.png
	$(BIN)/attnviz --text "sort: 31415926" --steps 4 --panel logit_lens --size 1280x800 --overwrite --screenshot docs/panel-logit-lens.png
	# a tiny RANDOM NLLB-shaped model built here (nothing can be downloaded): the app's views of a
	# Hugging Face model, not what a trained one computes
	$(BIN)/python -m tests.hf_factories nllb /tmp/attnviz-nllb-tiny-random
	$(BIN)/attnviz --checkpoint /tmp/attnviz-nllb-tiny-random --text "der hundepark läuft parkingdogs" --tgt-lang fra_Latn --steps 6 --view cross --size 1280x800 --overwrite --screenshot docs/hf-nllb-tiny-random.png

# the Why-attention page's curves: exact match on reverse: for every input length, per shipped model
curves: $(STAMP)
	mkdir -p assets/curves
	$(BIN)/attnviz eval --by-length --checkpoint assets/rnn-none.safetensors --overwrite --json assets/curves/rnn-none.json
	$(BIN)/attnviz eval --by-length --checkpoint assets/rnn-additive.safetensors --overwrite --json assets/curves/rnn-additive.json
	$(BIN)/attnviz eval --by-length --checkpoint assets/rnn-scaled-dot.safetensors --overwrite --json assets/curves/rnn-scaled-dot.json
	$(BIN)/attnviz eval --by-length --checkpoint assets/default.safetensors --overwrite --json assets/curves/transformer.json

clean:
	rm -rf $(VENV) build *.egg-info
