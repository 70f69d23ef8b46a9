# Convenience front end over CMake. `make run` builds and tries the tool on
# generated sample maps; `make test` runs the full suite twice: a normal build
# and an AddressSanitizer + UndefinedBehaviorSanitizer build, then the tests
# of the threaded code (scan, export) under ThreadSanitizer.

BUILD_DIR   ?= build
ASAN_DIR    ?= build-asan
TSAN_DIR    ?= build-tsan
FUZZ_DIR    ?= build-fuzz
BUILD_TYPE  ?= RelWithDebInfo
# Developer and CI builds treat warnings as errors; plain CMake builds do not.
WERROR      ?= ON
RELEASE_DIR ?= build-release
PREFIX      ?= /usr/local
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 30
# make fuzz TARGET=open SECONDS=600 runs one target for that long.
TARGET      ?=
SECONDS     ?= $(FUZZ_SECONDS)
SAMPLES     := $(BUILD_DIR)/samples
BSPKIT      := ./$(BUILD_DIR)/bspkit
FUZZ_TARGETS := open validate entities vis detect edit stripper pak lzma gamelump export decompile entjson diff render view

# Sanitizer reports must fail the run and say where they came from.
export ASAN_OPTIONS  ?= detect_leaks=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
# tests/tsan.supp says which reports are known and why.
export TSAN_OPTIONS ?= halt_on_error=1:second_deadlock_stack=1:suppressions=$(CURDIR)/tests/tsan.supp
# ThreadSanitizer checks the threaded code: the scan (its scenarios, damaged
# files among them, scanned on 4 threads; the real-map scan; the container
# readers' unit test), the export's image encoding on every core (the
# export scenarios and the export media unit test) and check's maps on
# every core (its scenarios), and a map's LZMA lumps decompressed together
# (the LZMA unit test). Only the targets they run are built.
TSAN_TESTS  ?= ^(cli_scan-.*|cli_corpus-scan|test_archive|cli_export-.*|test_export_media|test_parallel|cli_check-.*|cli_decompile-jobs|cli_corpus-decompile-jobs|test_decompile_map|test_lzma)$$

.PHONY: all deps build run test test-asan test-tsan test-release bench fuzz sweep install clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DBSPKIT_WERROR=$(WERROR)
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	rm -rf $(SAMPLES)
	$(BSPKIT) generate --all -o $(SAMPLES)
	@set -e; for f in $(SAMPLES)/*.bsp; do \
	  echo "== bspkit info $$f"; $(BSPKIT) info "$$f"; \
	done
	@echo "== bspkit check"
	$(BSPKIT) check $(SAMPLES)/*.bsp
	@echo "== bspkit dump (first faces) and bspkit vis / contents"
	$(BSPKIT) dump $(SAMPLES)/source-room.bsp faces --count 2
	$(BSPKIT) vis $(SAMPLES)/goldsrc-room.bsp --stats
	$(BSPKIT) contents $(SAMPLES)/goldsrc-room.bsp 0 0 0
	@echo "== bspkit tex, lightmap and export (glTF with textures and lightmaps)"
	$(BSPKIT) tex $(SAMPLES)/goldsrc-room.bsp list
	$(BSPKIT) lightmap $(SAMPLES)/source-room.bsp -o $(SAMPLES)/source-room-lightmap.png
	$(BSPKIT) export $(SAMPLES)/goldsrc-room.bsp -o $(SAMPLES)/goldsrc-room.glb
	$(BSPKIT) export $(SAMPLES)/source-room.bsp -o $(SAMPLES)/source-room.gltf
	$(BSPKIT) export $(SAMPLES)/quake3-room.bsp -o $(SAMPLES)/quake3-room.glb
	@echo "== bspkit view (one self-contained HTML page; open it in a browser)"
	$(BSPKIT) view $(SAMPLES)/goldsrc-room.bsp -o $(SAMPLES)/goldsrc-room.html || \
	  echo "(built without the viewer script: npm ci in viewer/, then make build)"
	@echo "== bspkit decompile (Source to Hammer VMF, GoldSrc to Valve 220 .map, Quake 3 with patchDef2)"
	$(BSPKIT) decompile $(SAMPLES)/source-room.bsp -o $(SAMPLES)/source-room.vmf
	$(BSPKIT) decompile $(SAMPLES)/goldsrc-room.bsp -o $(SAMPLES)/goldsrc-room.map
	$(BSPKIT) decompile $(SAMPLES)/quake3-room.bsp -o $(SAMPLES)/quake3-room.map

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory test-tsan
	$(MAKE) --no-print-directory test-release

# What packagers and new users build: Release with gcc and with clang, every
# target, warnings as errors (optimisation brings warnings of its own), and the
# exported symbols.
test-release: deps
	@set -e; for cc in gcc clang; do \
	  echo "== Release build with $$cc"; \
	  cmake -S . -B $(RELEASE_DIR)-$$cc -DCMAKE_C_COMPILER=$$cc -DCMAKE_BUILD_TYPE=Release \
	    -DBSPKIT_WERROR=$(WERROR) -DBSPKIT_BENCH=OFF >/dev/null; \
	  cmake --build $(RELEASE_DIR)-$$cc -j $(JOBS); \
	  (cd $(RELEASE_DIR)-$$cc && ctest --output-on-failure -R '^abi_'); \
	done

test-asan: deps
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DBSPKIT_SANITIZE=ON -DBSPKIT_BENCH=OFF -DBSPKIT_WERROR=$(WERROR)
	cmake --build $(ASAN_DIR) -j $(JOBS)
	cd $(ASAN_DIR) && ctest --output-on-failure -j $(JOBS)

test-tsan: deps
	cmake -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DBSPKIT_TSAN=ON -DBSPKIT_BENCH=OFF -DBSPKIT_WERROR=$(WERROR)
	cmake --build $(TSAN_DIR) -j $(JOBS) --target bspkit test_archive test_export_media test_parallel test_decompile_map test_lzma
	cd $(TSAN_DIR) && ctest --output-on-failure -j $(JOBS) -R '$(TSAN_TESTS)'

# BENCH_MAPS: files or directories to measure (default: ../shared/maps).
bench: build
	./$(BUILD_DIR)/bench/bench_decode $(BENCH_MAPS)
	./$(BUILD_DIR)/bench/bench_export $(BENCH_MAPS)
	BSPKIT=$(BSPKIT) bench/bench_export_cli.py $(firstword $(BENCH_MAPS))
	./$(BUILD_DIR)/bench/bench_decompile $(BENCH_MAPS)
	BSPKIT=$(BSPKIT) bench/bench_info.sh $(firstword $(BENCH_MAPS))
	BSPKIT=$(BSPKIT) bench/bench_scan.sh $(firstword $(BENCH_MAPS))
	BSPKIT=$(BSPKIT) bench/bench_scan_rss.sh
	BSPKIT=$(BSPKIT) bench/bench_render.sh $(firstword $(BENCH_MAPS))
	BSPKIT=$(BSPKIT) bench/bench_peers.py $(firstword $(BENCH_MAPS))
	BSPKIT=$(BSPKIT) bench/bench_check_rss.py $(firstword $(BENCH_MAPS))

# Corruption sweep under ASan + UBSan over every map in SWEEP_MAPS: cuts at
# every lump boundary and at random points, SWEEP_FLIPS seeded byte flips per
# map, directory and LZMA-header damage. Failing inputs land in
# $(ASAN_DIR)/sweep-failures.
SWEEP_MAPS  ?= ../shared/maps
SWEEP_FLIPS ?= 1000
SWEEP_SEED  ?= 1
sweep: deps
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DBSPKIT_SANITIZE=ON -DBSPKIT_BENCH=OFF -DBSPKIT_WERROR=$(WERROR)
	cmake --build $(ASAN_DIR) -j $(JOBS) --target sweep
	mkdir -p $(ASAN_DIR)/sweep-failures
	./$(ASAN_DIR)/fuzz/sweep --seed $(SWEEP_SEED) --flips $(SWEEP_FLIPS) --save $(ASAN_DIR)/sweep-failures $(SWEEP_MAPS)

# libFuzzer needs clang. Each target starts from the generated seeds, keeps
# what it finds in $(FUZZ_DIR)/corpus/<target> and crashing inputs in
# $(FUZZ_DIR)/crashes.
fuzz:
	@scripts/install-deps.sh --fuzz
	cmake -S . -B $(FUZZ_DIR) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DBSPKIT_FUZZ=ON -DBSPKIT_BENCH=OFF -DBSPKIT_TESTS=OFF
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target make_seeds $(addprefix fuzz_,$(FUZZ_TARGETS))
	./$(FUZZ_DIR)/fuzz/make_seeds $(FUZZ_DIR)/seeds
	@failed=; for t in $(or $(TARGET),$(FUZZ_TARGETS)); do \
	  seeds=$(FUZZ_DIR)/seeds/$$t; [ -d "$$seeds" ] || seeds=$(FUZZ_DIR)/seeds/open; \
	  case $$t in entities|diff) dict=-dict=fuzz/entities.dict ;; open|validate|detect|edit|lzma|gamelump|export|render) dict=-dict=fuzz/bsp.dict ;; *) dict= ;; esac; \
	  mkdir -p $(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/crashes; \
	  echo "== fuzz_$$t for $(SECONDS)s"; \
	  ./$(FUZZ_DIR)/fuzz/fuzz_$$t $$dict -max_total_time=$(SECONDS) -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_DIR)/crashes/$$t- \
	    $(FUZZ_DIR)/corpus/$$t $$seeds || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failures in$$failed; inputs in $(FUZZ_DIR)/crashes"; exit 1; fi

install: build
	cmake -S . -B $(BUILD_DIR) -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --build $(BUILD_DIR) -j $(JOBS)
	cmake --install $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(FUZZ_DIR) $(RELEASE_DIR)-gcc $(RELEASE_DIR)-clang
