# MedVault — developer entry points. Each target installs missing system packages first.
#
#   make demo         run the clinic demo on a throwaway vault
#   make test         run the whole test suite
#   make bench        run the benchmark suite (release build), write docs/benchmarks.md
#   make bench-quick  the same at a tenth of the size, for CI smoke runs
#   make docs         build the DocC catalogs of the four library modules, warnings as errors
#   make readme-app   build and run Tests/Fixtures/ReadmeApp: the README's code, as an app
#                     that depends on the MedVault product alone

SWIFT ?= swift
# Extra flags for every build, e.g. SWIFT_FLAGS="-Xswiftc -warnings-as-errors".
SWIFT_FLAGS ?=

.PHONY: deps build test demo medication-demo bench bench-quick docs readme-app grdb-coexistence clean

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

# Symbol graphs come from SwiftPM's own extractor over the debug build (the same flags as
# `build`, so CI reuses its build); `docc` is the toolchain's, so no plugin enters
# Package.swift and no app resolves one. Output: .build-docs/<Module>.doccarchive.
DOCS_DIR ?= .build-docs
DOCC ?= docc
docs: deps
	./scripts/build-docs.sh "$(SWIFT)" "$(DOCC)" "$(DOCS_DIR)" $(SWIFT_FLAGS)

# An app importing MedVault and GRDB compiles without one ambiguous name (own scratch folder).
grdb-coexistence: deps
	$(SWIFT) build --package-path Tests/Fixtures/GRDBCoexistence --scratch-path .build-fixtures/GRDBCoexistence $(SWIFT_FLAGS)

# Its own scratch folder: the app builds MedVault as a dependency, with its own settings.
readme-app: deps
	$(SWIFT) build --package-path Tests/Fixtures/ReadmeApp --scratch-path .build-fixtures/ReadmeApp $(SWIFT_FLAGS)
	$(SWIFT) run --package-path Tests/Fixtures/ReadmeApp --scratch-path .build-fixtures/ReadmeApp $(SWIFT_FLAGS) ReadmeApp

clean:
	$(SWIFT) package clean
