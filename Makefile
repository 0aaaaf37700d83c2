# One virtualenv, made and filled by the project's own files, so a fresh clone needs only python3 and make.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
DEV_STAMP := $(VENV)/.dev-installed-stamp

.PHONY: install install-dev run test unit lint proto proto-check bench-engine clean

# What `make run`, the CLI and the benchmarks need: the server (its hot path compiled), the SDK and sample
# bots, the training environments. install-dev adds the tools of tests, lint and `make proto`.
install: $(STAMP)
install-dev: $(DEV_STAMP)

# setup.py compiles the modules listed in pyproject.toml ([tool.conquest] compiled) with mypyc into C
# extensions next to them, which Python imports in their place: an edit to one is seen only after
# `make install` compiles it again (conftest.py checks).
COMPILED := $(shell $(PYTHON) -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["tool"]["conquest"]["compiled"])')
# Every C extension, the compiled list's and any left by a module since taken off it.
REMOVE_BUILT := find engine server -name '*.so' -delete && rm -f *__mypyc.cpython-*.so

$(STAMP): pyproject.toml setup.py $(COMPILED)
	@echo "make install: the dependencies into .venv, then mypyc compiles $(words $(COMPILED)) modules to C" \
		"(about 2 minutes on 2 cores; 'make run' can start when it ends)"
	@start=$$(date +%s) && { test -x $(PY) || $(PYTHON) -m venv $(VENV); } \
		&& $(PY) -m pip install --quiet --upgrade pip \
		&& $(REMOVE_BUILT) \
		&& $(PY) -m pip install --quiet -e '.[train]' \
		&& echo "make install: done in $$(( $$(date +%s) - start )) s"
	touch $(STAMP)

# A dependency group: pip installs it without building the project again.
$(DEV_STAMP): $(STAMP)
	@echo "make install-dev: the test, lint and proto tools into .venv (under a minute)"
	$(PY) -m pip install --quiet --group dev
	touch $(DEV_STAMP)

# The README's run command: the server on its embedded defaults (SQLite) with the sample bots playing a
# rated ladder; prints each result and the leaderboard until Ctrl-C. Other ports when those are taken:
# make run ADDRESS=[::]:50052 DASHBOARD_PORT=8081
run: install
	$(VENV)/bin/conquest demo $(if $(ADDRESS),--address '$(ADDRESS)') \
		$(if $(DASHBOARD_PORT),--dashboard-port '$(DASHBOARD_PORT)')

# The README's test command: stubs up to date, lint, then every test (unit, property, end-to-end) on the
# compiled build, the tests of the compiled modules again on the pure-Python one, then the starter kits'
# builds and strategy tests, then interop: every kit plays real games against the Python bots on a real
# server (under a minute of games on 2 cores), and each kit's replay verifier agrees with `conquest replay
# verify` on every rule set. Each stage is a target of its own; the times of all are printed at the end.
TEST_STAGES := install-dev proto-check lint unit test-pure kits interop
test:
	@.ci/stages.sh $(MAKE) $(TEST_STAGES)

# Test processes (pytest-xdist): one a core. Most tests wait on servers, sockets and subprocesses.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

PROTOS := $(wildcard proto/conquest/v1/*.proto proto/conquest/cluster/v1/*.proto)
PROTOC = $(PY) -m grpc_tools.protoc -Iproto --plugin=protoc-gen-mypy=$(VENV)/bin/protoc-gen-mypy \
	--plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc

# The Python stubs are generated into the SDK's package (sample_bots/python/conquest/v1, where both the
# SDK's own distribution and the server's install take them from) and committed; `proto-check` fails when
# they are stale.
STUBS := sample_bots/python
proto: install-dev
	$(PROTOC) --python_out=$(STUBS) --grpc_python_out=$(STUBS) --mypy_out=$(STUBS) --mypy_grpc_out=$(STUBS) $(PROTOS)

proto-check: install-dev
	rm -rf .proto-check && mkdir -p .proto-check
	$(PROTOC) --python_out=.proto-check --grpc_python_out=.proto-check --mypy_out=.proto-check \
		--mypy_grpc_out=.proto-check $(PROTOS)
	@for f in $$(cd .proto-check && find . -type f); do \
		cmp -s ".proto-check/$$f" "$(STUBS)/$$f" || { echo "stale generated stub $(STUBS)/$$f: run 'make proto' and commit"; exit 1; }; \
	done
	rm -rf .proto-check
	cd proto && ../$(VENV)/bin/buf lint

# The tests whose outcome can differ between the builds, on the pure-Python one (CONQUEST_PURE_PYTHON=1:
# nothing compiled, which type-checks fields only as Python does): those of the compiled modules (the
# engine, the server's per-decision rooms, the training fast path) and of games played through them over
# gRPC, where the wire codec and the runner meet a real stream. The other end-to-end tests (cluster,
# storage, dashboard, CLI) call the same code in the same way on both builds, so the compiled run covers
# them. Python would import the compiled modules beside the sources here, so the run uses a copy of the
# working tree (what git tracks or would track) with its own virtualenv, in build/.
PURE := build/pure
PURE_TESTS := tests/engine tests/train tests/build $(addprefix tests/server/, test_mailbox.py \
	test_server_runner.py test_server_runner_2210.py test_server_wire.py test_server_wire_action_kinds.py \
	test_server_wire_fields.py test_server_wire_positional.py test_server_wire_presets.py \
	test_server_2210_wire.py test_server_relay_wire.py test_server_units.py test_server_decisions.py \
	test_server_messages_written.py test_server_games.py test_server_2210_e2e.py test_server_rule_sets.py \
	test_server_rule_sets_e2e.py)
.PHONY: test-pure
test-pure: test-db pure-src $(PURE)/venv/.installed-stamp
	url=$$(.ci/postgres.sh url) && cd $(PURE)/src && \
		CONQUEST_PURE_PYTHON=1 CONQUEST_TEST_POSTGRES_URL=$$url ../venv/bin/python -m pytest -n $(TEST_JOBS) \
		$(PURE_TESTS)

# The copy is made afresh each time; its virtualenv (an editable install of the copy) only when needed.
.PHONY: pure-src
pure-src:
	rm -rf $(PURE)/src && mkdir -p $(PURE)/src
	git ls-files -z --cached --others --exclude-standard \
		| tar --null --ignore-failed-read -T - -cf - | tar -xf - -C $(PURE)/src

$(PURE)/venv/.installed-stamp: pyproject.toml setup.py | pure-src
	test -x $(PURE)/venv/bin/python || $(PYTHON) -m venv $(PURE)/venv
	$(PURE)/venv/bin/python -m pip install --quiet --upgrade pip
	CONQUEST_PURE_PYTHON=1 $(PURE)/venv/bin/python -m pip install --quiet -e '$(PURE)/src[train]' \
		--group '$(PURE)/src/pyproject.toml:dev'
	touch $@

# Storage tests run on SQLite and on the throwaway PostgreSQL that test-db starts (docs/storage.md).
# Two kinds of tests run alone after the rest, so that the other test process's load is not counted as
# theirs: tests/chaos measures bounds under hostile load (a never-reading spectator cut within seconds,
# memory, honest bots' deadlines), and the browser tests watch a live game's view keep up in Chromium.
# Under -n 2 each once missed its window.
ALONE := tests/chaos $(wildcard tests/dashboard/*browser*.py)
unit: install-dev test-db chromium
	url=$$(.ci/postgres.sh url) && export CONQUEST_TEST_POSTGRES_URL=$$url && \
		$(PY) -m pytest -n $(TEST_JOBS) $(addprefix --ignore=,$(ALONE)) && $(PY) -m pytest $(ALONE)

.PHONY: test-db test-db-stop
test-db:
	.ci/postgres.sh start

test-db-stop:
	.ci/postgres.sh stop

# The dashboard's browser tests (tests/dashboard) drive Debian's Chromium, installed here if missing.
.PHONY: chromium
chromium:
	.ci/chromium.sh >/dev/null

lint: install-dev
	$(VENV)/bin/ruff check --no-cache .  # a cache key ignores new first-party modules (conftest.py)
	$(VENV)/bin/ruff format --no-cache --check .
	$(VENV)/bin/mypy engine server benchmarks tests/reference/make_2210_data.py
	cd proto && ../$(VENV)/bin/buf lint

# The RISK 2210 A.D. board and Command cards as engine modules (engine/r2210/*_data.py), rendered from the
# reference facts in tests/reference/ (the engine reads no files at run time; a test fails when they differ).
.PHONY: engine-data
engine-data: install
	$(PY) tests/reference/make_2210_data.py

bench-engine: install
	$(PY) -m benchmarks.bench_engine

# The numpy-only example (server/train/example.py, docs/training.md): trains a policy in the environment
# and prints its win rate against the random bot over 200 seeded duels.
.PHONY: bench-train
bench-train: install
	$(PY) -m server.train.example --duels 200

# Win rates of the Python sample bots over a few hundred seeded in-process games (docs/benchmarks.md).
.PHONY: bench-bots
bench-bots: install
	$(PY) -m benchmarks.bench_bots --games 300

# The server against a raw grpc.aio echo stream, and 1,000 concurrent games of thinking bots (docs/benchmarks.md).
.PHONY: bench-server bench-server-instructions bench-capacity
bench-server: install
	$(PY) -m benchmarks.bench_server

# The same server and echo counted in instructions by callgrind: exact where bench-server's times drift.
bench-server-instructions: install
	$(PY) -m benchmarks.bench_instructions

bench-capacity: install
	$(PY) -m benchmarks.bench_capacity

# What the clock charges instant bots on a host kept busy by other work (issue 34: p99 <= 5 ms, max <= 20 ms,
# none past the allowance; docs/benchmarks.md).
.PHONY: bench-clock
bench-clock: install
	$(PY) -m benchmarks.bench_clock

# What logging running games in PostgreSQL costs a decision, and a kill -9's takeover time (server.takeover).
.PHONY: bench-action-log
bench-action-log: install test-db
	url=$$(.ci/postgres.sh url) && CONQUEST_TEST_POSTGRES_URL=$$url $(PY) -m benchmarks.bench_action_log

# Several replicas on one PostgreSQL: one against two, a relayed decision's CPU against a local one's, the
# action log's cost, PostgreSQL's per decision, a kill -9's takeover, replicas per PostgreSQL (issue 20).
.PHONY: bench-scale
bench-scale: install test-db
	url=$$(.ci/postgres.sh url) && CONQUEST_TEST_POSTGRES_URL=$$url $(PY) -m benchmarks.bench_scale

# The relay alone: CPU a relayed round trip (a message to the bot, its Decision back) between two relays in
# one process, with 1, 4 and 16 games relayed at once (issue 20).
.PHONY: bench-relay
bench-relay: install
	$(PY) -m benchmarks.bench_relay

# Honest bots' missed 250 ms deadlines and decisions/s under floods of web and Arena requests (docs/benchmarks.md).
.PHONY: bench-web-flood
bench-web-flood: install
	$(PY) -m benchmarks.web_flood

# Issue 21's chaos suite at the issue's sizes: hostile, hanging, flooding and impersonating clients beside
# honest bots, kill -9, SIGTERM, a database locked and removed, each against a real `conquest serve`; prints
# one table (docs/benchmarks.md, "Chaos"). Its short profile is tests/chaos, in every pytest run (`make test`).
.PHONY: chaos
chaos: install
	$(PY) -m benchmarks.chaos

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build
	$(REMOVE_BUILT)

# Starter kits (issue 7): build each from proto/ and run its unit tests; `interop` then plays them
# against the Python sample bots on a real server and cross-checks the kits' replay verifiers
# (tests/interop/run_interop.py, dice_check.py).
.PHONY: kits interop
TS_KIT := sample_bots/typescript

JAVA_KIT := sample_bots/java

kits: install-dev $(TS_KIT)/node_modules/.package-lock.json $(JAVA_KIT)/target/conquest-bot.jar
	$(MAKE) -C sample_bots/go build test
	cd $(TS_KIT) && npm test
	cd sample_bots/rust && cargo build --locked && cargo test --locked

# mvn package runs the kit's tests too; rebuilt only when its sources, the protos or the fixtures change.
$(JAVA_KIT)/target/conquest-bot.jar: $(JAVA_KIT)/pom.xml $(shell find $(JAVA_KIT)/src -name '*.java') \
		$(wildcard proto/conquest/v1/*.proto) $(wildcard sample_bots/fixtures/*.json sample_bots/fixtures/*.jsonl)
	cd $(JAVA_KIT) && mvn -q -B package

$(TS_KIT)/node_modules/.package-lock.json: $(TS_KIT)/package-lock.json
	cd $(TS_KIT) && npm ci --no-audit --no-fund
	touch $@

interop: kits
	$(PY) tests/interop/run_interop.py
