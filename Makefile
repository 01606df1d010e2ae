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

# Regenerates share/demo/demo.jsonl byte for byte (gpur + the fake NVML +
# a procfs fixture + a virtual clock; see scripts/make-demo.sh).
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
	TSAN_OPTIONS=halt_on_error=1 scripts/ctest-run.sh build-tsan -R 'sampler|composite|nvml'

test-fuzz: fuzz-build
	rm -rf build-fuzz/corpus && mkdir -p build-fuzz/corpus
	build-fuzz/tests/fuzz/fuzz_record -max_total_time=$(FUZZ_SECONDS) \
		build-fuzz/corpus tests/fuzz/corpus/record >build-fuzz/fuzz.log 2>&1 \
		|| { tail -n 60 build-fuzz/fuzz.log; exit 1; }
	@tail -n 2 build-fuzz/fuzz.log
	@echo "fuzz: fuzz_record ran $(FUZZ_SECONDS) s without a crash"

fuzz-build:
	@scripts/deps.sh test
	CC=clang cmake -S . -B build-fuzz -DGPUR_FUZZ=ON -DGPUR_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j$(JOBS)

# Longer fuzzing, outside the suite: make fuzz FUZZ_SECONDS=600
fuzz: FUZZ_SECONDS = 600
fuzz: test-fuzz

bench: build
	@scripts/deps.sh bench
	bench/replay.sh $(BUILD)
	bench/poll.sh $(BUILD)
	bench/tui.sh $(BUILD)

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build build-test build-asan build-tsan build-fuzz build-dev
