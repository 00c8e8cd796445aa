# MedVault — developer entry points. Each target installs missing system packages first.
#
#   make demo         run the clinic demo on a throwaway vault
#   make test         run the whole test suite, the sync server's (Server/) included
#   make test-loaded  `make test` with two CPU-bound processes beside it (as CI runs it)
#   make server       build the sync server (Server/, its own package and scratch folder)
#   make sync-demo    start PostgreSQL and the sync server locally, sync a patient between
#                     two device vaults through them, stop everything
#   make bench        run the benchmark suite (release build), write docs/benchmarks.md
#   make bench-quick  the same at a tenth of the size, for CI smoke runs
#   make bench-full   W2, W4 and W5 at a full clinic's size, write docs/benchmarks-full-size.md
#   make bench-server the sync server's load benchmark, write docs/sync-server-benchmarks.md
#   make bench-server-quick  its CI smoke run (5 devices, 5 s, a small clone)
#   make docs         build the DocC catalogs of the library modules, warnings as errors
#   make readme-app   build and run Tests/Fixtures/ReadmeApp: the README's code, as an app
#                     that depends on the MedVault product alone; `nm` shows its MedVault
#                     holds no switch that weakens the vault
#   make grdb-coexistence  run an app that uses GRDB (system SQLite) and MedVault in one
#                     process, in both orders; the sqlite3 shell reads GRDB's database

SWIFT ?= swift
# Extra flags for every build, e.g. SWIFT_FLAGS="-Xswiftc -warnings-as-errors".
SWIFT_FLAGS ?=

.PHONY: deps build test test-loaded server sync-demo demo medication-demo bench bench-full bench-quick bench-server bench-server-quick docs readme-app grdb-coexistence clean

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# The sync server is its own package (Server/Package.swift: Hummingbird, PostgresNIO),
# built in its own scratch folder; its tests start their own PostgreSQL.
SERVER_SCRATCH ?= .build-server

# Swift Testing starts every test of a suite at once. On a 2-core machine the library's
# 800-odd tests then queue on Swift's two cooperative threads, and a test waiting for a
# 10-ms timer waits behind all of them, for tens of seconds (issue #37,
# docs/storage.md "What a short job may block"). At most TEST_WIDTH tests run at a time.
TEST_WIDTH ?= 8
TEST_ENV = SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH)

test: deps
	$(TEST_ENV) $(SWIFT) test $(SWIFT_FLAGS)
	./scripts/server-tests.sh "$(SWIFT)" "$(SERVER_SCRATCH)" $(SWIFT_FLAGS)

# `make test` with two CPU-bound processes running beside it (CI runs the suite this
# way): a test that needs prompt scheduling to pass fails here.
test-loaded: deps
	./scripts/under-load.sh $(MAKE) test SWIFT_FLAGS="$(SWIFT_FLAGS)"

server: deps
	$(SWIFT) build --package-path Server --scratch-path $(SERVER_SCRATCH) $(SWIFT_FLAGS)

sync-demo: deps
	./scripts/sync-demo.sh "$(SWIFT)" "$(SERVER_SCRATCH)" $(SWIFT_FLAGS)

demo: deps
	$(SWIFT) run $(SWIFT_FLAGS) ClinicDemo

medication-demo: deps
	$(SWIFT) run $(SWIFT_FLAGS) MedicationDemo

# The benchmarks are their own package (Benchmarks/Package.swift: GRDB, raw C references),
# built in their own scratch folder so the library's build is never disturbed.
BENCH_SCRATCH ?= .build-bench
BENCH_RUN = $(SWIFT) run --package-path Benchmarks --scratch-path $(BENCH_SCRATCH) -c release $(SWIFT_FLAGS)
# Extra benchmark options, e.g. BENCH_ARGS="--only W1,W5".
BENCH_ARGS ?=

bench: deps
	$(SWIFT) build --package-path Benchmarks --scratch-path $(BENCH_SCRATCH) -c release $(SWIFT_FLAGS)
	$(BENCH_RUN) MedVaultBenchmarks --output docs/benchmarks.md $(BENCH_ARGS)

# The workloads a user feels at a full clinic's size (10,000 patients; issue #36): open +
# first query (W2), search as the user types (W4: 1-, 2- and 3-letter prefixes) and get +
# update (W5), at scale 1.0; about ten minutes.
bench-full: deps
	$(SWIFT) build --package-path Benchmarks --scratch-path $(BENCH_SCRATCH) -c release $(SWIFT_FLAGS)
	$(BENCH_RUN) MedVaultBenchmarks --scale 1 --only W2,W4,W5 --output docs/benchmarks-full-size.md $(BENCH_ARGS)

bench-quick: deps
	$(SWIFT) build --package-path Benchmarks --scratch-path $(BENCH_SCRATCH) -c release $(SWIFT_FLAGS)
	$(BENCH_RUN) MedVaultBenchmarks --scale 0.1 --output $(BENCH_SCRATCH)/benchmarks-quick.md $(BENCH_ARGS)

# The sync server's load benchmark (Server package, executable medvault-sync-load, release
# build): 50 devices pushing and pulling for 60 s against the real server executable, and
# a full clone of 10k patients / 100k sessions / 100k diagnoses through it. It starts its
# own PostgreSQL. Writes docs/sync-server-benchmarks.md. Scale: SERVER_BENCH_ARGS="--scale 0.3".
SERVER_BENCH_ARGS ?=
bench-server: deps
	$(SWIFT) build --package-path Server --scratch-path $(SERVER_SCRATCH) -c release $(SWIFT_FLAGS)
	$(SERVER_SCRATCH)/release/medvault-sync-load --output docs/sync-server-benchmarks.md $(SERVER_BENCH_ARGS)

# CI smoke run: 5 devices for 5 s and a 2,100-record clone, on the debug build CI has.
bench-server-quick: deps
	$(SWIFT) build --package-path Server --scratch-path $(SERVER_SCRATCH) $(SWIFT_FLAGS)
	$(SERVER_SCRATCH)/debug/medvault-sync-load --quick --output $(SERVER_SCRATCH)/sync-server-benchmarks-quick.md

# Symbol graphs come from SwiftPM's own extractor over the debug build (the same flags as
# `build`, so CI reuses its build); `docc` is the toolchain's, so no plugin enters
# Package.swift and no app resolves one. Output: .build-docs/<Module>.doccarchive.
DOCS_DIR ?= .build-docs
DOCC ?= docc
docs: deps
	./scripts/build-docs.sh "$(SWIFT)" "$(DOCC)" "$(DOCS_DIR)" $(SWIFT_FLAGS)

# An app importing MedVault and GRDB compiles without one ambiguous name (own scratch folder).
grdb-coexistence: deps
	$(SWIFT) build --package-path Tests/Fixtures/ReadmeApp --scratch-path .build-fixtures/ReadmeApp $(SWIFT_FLAGS) --product GRDBCoexistence
	@./scripts/grdb-coexistence.sh .build-fixtures/ReadmeApp/debug/GRDBCoexistence

# Its own scratch folder: the app builds MedVault as a dependency, with its own settings.
# Then `nm` proves the MedVault the app built (default traits) holds no bypass switch.
readme-app: deps
	$(SWIFT) build --package-path Tests/Fixtures/ReadmeApp --scratch-path .build-fixtures/ReadmeApp $(SWIFT_FLAGS)
	$(SWIFT) run --package-path Tests/Fixtures/ReadmeApp --scratch-path .build-fixtures/ReadmeApp $(SWIFT_FLAGS) ReadmeApp
	./scripts/check-no-bypass-switches.sh .build-fixtures/ReadmeApp/debug/MedVault.build

clean:
	$(SWIFT) package clean
	rm -rf $(BENCH_SCRATCH) $(SERVER_SCRATCH)
