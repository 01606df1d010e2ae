# gpur: the two commands that matter are `make run` and `make test`.
# Both install the Debian packages they need when run as root.

BUILD      ?= build
JOBS       ?= 2
CMAKE_ARGS ?=
PREFIX     ?= /usr/local
FUZZ_SECONDS ?= 30

.PHONY: all build run demo test test-normal test-asan test-tsan test-fuzz bench fuzz install clean

all: build

build:
	@scripts/deps.sh build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS)

run: build
	@scripts/run.sh $(BUILD)

# Regenerates share/demo/demo.jsonl byte for byte (gpur's dashboard under tmux,
# the fake NVML, a procfs fixture, a virtual clock, a PID namespace: as root;
# see scripts/make-demo.sh).
demo:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD) -j$(JOBS) --target gpur fake_nvml_modern
	scripts/make-demo.sh $(BUILD)

# The whole suite: normal build (gcc, warnings as errors), the same suite
# under AddressSanitizer + UBSan, the threaded parts under ThreadSanitizer
# (clang, which also proves a clean clang build), and a short libFuzzer run.
test:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory test-normal test-asan test-tsan test-fuzz
	@scripts/test-summary.sh build-test build-asan build-tsan

test-normal:
	cmake -S . -B build-test -DGPUR_WERROR=ON >/dev/null
	cmake --build build-test -j$(JOBS)
	scripts/ctest-run.sh build-test -j$(JOBS)

test-asan:
	cmake -S . -B build-asan -DGPUR_WERROR=ON -DGPUR_SANITIZE=address,undefined >/dev/null
	cmake --build build-asan -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		scripts/ctest-run.sh build-asan -j$(JOBS)

test-tsan:
	CC=clang cmake -S . -B build-tsan -DGPUR_WERROR=ON -DGPUR_SANITIZE=thread >/dev/null
	cmake --build build-tsan -j$(JOBS)
	TSAN_OPTIONS=halt_on_error=1 scripts/ctest-run.sh build-tsan -R 'sampler|composite|nvml|feed|fdinfo|serve|segment|hooks'

# Every harness in turn, FUZZ_SECONDS split evenly among them (at least 1 s
# each); each starts from its seeds in tests/fuzz/corpus/NAME. A crash fails
# the target with the end of that harness's log.
FUZZ_HARNESSES = fuzz_record fuzz_report fuzz_line_reader fuzz_kvparse fuzz_gpusel fuzz_utf8 fuzz_cgroup fuzz_cnames fuzz_fdinfo fuzz_drmsysfs fuzz_zstd_input fuzz_prometheus fuzz_webcfg

test-fuzz: fuzz-build
	@each=$$(( $(FUZZ_SECONDS) / $(words $(FUZZ_HARNESSES)) )); [ $$each -ge 1 ] || each=1; \
	for h in $(FUZZ_HARNESSES); do \
		name=$${h#fuzz_}; corpus=build-fuzz/corpus/$$name; log=build-fuzz/$$h.log; \
		rm -rf $$corpus && mkdir -p $$corpus tests/fuzz/corpus/$$name || exit 1; \
		dict=; [ ! -f tests/fuzz/$$name.dict ] || dict=-dict=tests/fuzz/$$name.dict; \
		build-fuzz/tests/fuzz/$$h -max_total_time=$$each -artifact_prefix=build-fuzz/$$h- $$dict \
			$$corpus tests/fuzz/corpus/$$name >$$log 2>&1 \
			|| { tail -n 60 $$log; echo "fuzz: $$h failed (log: $$log)"; exit 1; }; \
		echo "fuzz: $$h ran $$each s without a crash ($$(grep -o 'Done [0-9]* runs' $$log | tail -n 1 | cut -d' ' -f2) inputs)"; \
	done

fuzz-build:
	@scripts/deps.sh test
	CC=clang cmake -S . -B build-fuzz -DGPUR_FUZZ=ON -DGPUR_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j$(JOBS)

# Longer fuzzing, outside the suite: make fuzz (600 s in all, split among the
# harnesses as above; FUZZ_SECONDS=N for another total)
fuzz: FUZZ_SECONDS = 600
fuzz: test-fuzz

bench: build
	@scripts/deps.sh bench
	bench/replay.sh $(BUILD)
	bench/replay_segments.sh $(BUILD)
	bench/report.sh $(BUILD)
	bench/poll.sh $(BUILD)
	for n in 64 1024; do $(BUILD)/bench/procscan fixture $$n; $(BUILD)/bench/procscan real $$n; done
	bench/tui.sh $(BUILD)
	bench/exporter.sh $(BUILD)
	bench/fleet.sh $(BUILD)

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build build-test build-asan build-tsan build-fuzz build-dev
