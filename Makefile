# MedVault — developer entry points. Each target installs missing system packages first.
#
#   make demo         run the clinic demo on a throwaway vault
#   make test         run the whole test suite
#   make bench        run the benchmark suite (release build), write docs/benchmarks.md
#   make bench-quick  the same at a tenth of the size, for CI smoke runs

SWIFT ?= swift
# Extra flags for every build, e.g. SWIFT_FLAGS="-Xswiftc -warnings-as-errors".
SWIFT_FLAGS ?=

.PHONY: deps build test demo medication-demo bench bench-quick clean

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

test: deps
	$(SWIFT) test $(SWIFT_FLAGS)

demo: deps
	$(SWIFT) run $(SWIFT_FLAGS) ClinicDemo

medication-demo: deps
	$(SWIFT) run $(SWIFT_FLAGS) MedicationDemo

bench: deps
	$(SWIFT) run -c release $(SWIFT_FLAGS) MedVaultBenchmarks --output docs/benchmarks.md

bench-quick: deps
	$(SWIFT) run -c release $(SWIFT_FLAGS) MedVaultBenchmarks --scale 0.1 --output .build/benchmarks-quick.md

clean:
	$(SWIFT) package clean
