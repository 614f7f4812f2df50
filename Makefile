# Procedures — the commands a newcomer and CI run. Only the Swift toolchain is needed.
SWIFT ?= swift
# Stress tests scale their iteration counts by this factor (1 = CI default).
PROCEDURES_STRESS_SCALE ?= 1
export PROCEDURES_STRESS_SCALE

.PHONY: build test test-tsan integrations-test demo bench bench-smoke docs docs-serve fuzz clean

build:
	$(SWIFT) build

# Both kinds of tests: swift test runs the XCTest tests, then the Swift Testing ones, and
# prints a summary for each (.ci/run counts both).
test:
	$(SWIFT) build --build-tests
	$(SWIFT) test

# ThreadSanitizer is 5-15x slower: the stress tests run at a fifth of their size.
test-tsan:
	PROCEDURES_STRESS_SCALE=0.2 $(SWIFT) test --sanitize=thread --scratch-path .build-tsan

# Integrations/ (adapters to swift-log, swift-metrics, swift-distributed-tracing): its own package.
# Its tests are XCTest today; Swift Testing runs too (an empty run until it has some).
integrations-test:
	cd Integrations && $(SWIFT) build --build-tests && $(SWIFT) test

demo:
	$(SWIFT) run steps

# U1 times the `steps` binary, built next to the benchmarks.
bench:
	cd Benchmarks && $(SWIFT) build -c release --product steps && $(SWIFT) run -c release procedures-benchmarks

bench-smoke:
	cd Benchmarks && $(SWIFT) build -c release --product steps && $(SWIFT) run -c release procedures-benchmarks --smoke

# DocC site from the symbol graph and the guides in Documentation/ (into .build/docs).
docs:
	scripts/build-docs.sh

# The same site, served on this machine until Ctrl-C (DocC pages need a web server, not file://).
DOCS_PORT ?= 8000
docs-serve: docs
	@echo "Serving the documentation at http://127.0.0.1:$(DOCS_PORT)/documentation/procedures (Ctrl-C stops it)"
	python3 -m http.server $(DOCS_PORT) --bind 127.0.0.1 --directory .build/docs

# libFuzzer on the `steps` pipeline parser and checker for FUZZ_SECONDS (see Fuzz/README.md).
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

clean:
	rm -rf .build .build-tsan Benchmarks/.build Integrations/.build
