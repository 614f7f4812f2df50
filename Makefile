# Procedures — the commands a newcomer and CI run. Only the Swift toolchain is needed.
SWIFT ?= swift
# Stress tests scale their iteration counts by this factor (1 = CI default).
PROCEDURES_STRESS_SCALE ?= 1
export PROCEDURES_STRESS_SCALE

.PHONY: build test test-tsan integrations-test demo bench bench-smoke docs docs-serve fuzz clean

build:
	$(SWIFT) build

# The suite is XCTest only; without the flag swift test also prints an empty Swift Testing run.
test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --disable-swift-testing

# ThreadSanitizer is 5-15x slower: the stress tests run at a fifth of their size.
test-tsan:
	PROCEDURES_STRESS_SCALE=0.2 $(SWIFT) test --disable-swift-testing --sanitize=thread --scratch-path .build-tsan

# Integrations/ (adapters to swift-log, swift-metrics, swift-distributed-tracing): its own package.
integrations-test:
	cd Integrations && $(SWIFT) build --build-tests && $(SWIFT) test --disable-swift-testing

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
