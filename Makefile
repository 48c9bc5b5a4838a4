# p4aqm developer targets. `scripts/setup.sh` creates .venv; everything here uses it.
VENV    := .venv/bin
P4AQM   := $(VENV)/p4aqm
PROGRAMS := $(basename $(notdir $(wildcard p4src/*.p4)))
OUTPUTS := $(foreach p,$(PROGRAMS),build/$(p).json)

.PHONY: build test lint demo demo-l3 bench fuzz clean reproduce-1 reproduce-2 reproduce-3 reproduce-4 reproduce-5 reproduce-6

build: $(OUTPUTS)

build/%.json: p4src/%.p4 $(wildcard p4src/include/*.p4) | build/
	$(P4AQM) compile $< -o $@ --p4runtime-files build/$*.p4info.txtpb

build/:
	mkdir -p $@

lint:
	$(VENV)/ruff check .
	$(VENV)/ruff format --check .
	cd dataplane && cargo fmt --check && cargo clippy --quiet --all-targets -- -D warnings

test: lint
	cd dataplane && cargo test --quiet
	$(VENV)/python -m pytest -q

# The main job: FIFO against RED at 98 % load on the dumbbell, its report and a verdict.
demo:
	scripts/demo_aqm.sh

demo-l3:
	scripts/demo_l3.sh

# The seed studies' quick profiles (experiments/studies/; PROFILE=full for the papers'
# protocols), each into results/STUDY/ with its report; JOBS points at once (auto: as
# many as the points' measured CPU allows).
PROFILE ?= quick
JOBS ?= auto
STUDIES := christiansen-tuning-red weigle-sack-ared-ecn parris-cbt scharf-iw10 beyond-red dunigan-wad
reproduce-1 reproduce-2 reproduce-3 reproduce-4 reproduce-5 reproduce-6: reproduce-%: build
	study=$(word $*,$(STUDIES)); \
	$(P4AQM) run experiments/studies/$$study.yaml --profile $(PROFILE) --jobs $(JOBS) -o results/$$study-$(PROFILE) && \
	$(P4AQM) report results/$$study-$(PROFILE) --findings experiments/studies/$$study.yaml

# Figures, not tests: each printed beside a baseline measured in the same run.
bench:
	$(VENV)/python scripts/bench/main.py

# Coverage-guided fuzzing (atheris); FUZZ_SECONDS per target. Crashes are saved as
# fuzz-<target>-crash-* in the current directory.
FUZZ_SECONDS ?= 600
fuzz:
	for target in compiler packets p4runtime; do \
	    $(VENV)/python scripts/fuzz/fuzz_$$target.py -max_total_time=$(FUZZ_SECONDS) \
	        -artifact_prefix=fuzz-$$target- >fuzz-$$target.log 2>&1 || exit 1; \
	    grep -E '^Done' fuzz-$$target.log; \
	done

clean:
	rm -rf build dataplane/target
