# optrace - trace PyTorch operators through a version-matched source checkout.
#
#   make            build build/optrace
#   make report     build, make sure the traced release's source is present,
#                   write out/ for ./ops.list
#   make test       build and run every test (unit, fixture, real releases,
#                   then tests/groundtruth: optrace against the real torch)
#   make deps       install the Debian packages the build and tests need
#   make install    PREFIX=/usr/local DESTDIR= (with the man pages and the
#                   bash completion)
#   make asan | ubsan | valgrind | fuzz | bench | clean

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(PREFIX)/bin
DATADIR  = $(PREFIX)/share/optrace
MANDIR   = $(PREFIX)/share/man/man1
COMPDIR  = $(PREFIX)/share/bash-completion/completions

CC      ?= cc
WERROR  ?= -Werror
OPT     ?= -O2 -g
CFLAGS  ?=
LDFLAGS ?=
SAN     ?=
BUILD   ?= build

PKGS     = yaml-0.1 libgit2 libcmark-gfm libgvc libcgraph libpcre2-8

# Compiler and linker flags of the libraries, asked of pkg-config once the
# packages are installed (make restarts after remaking an included file).
CONFIG_MK = $(BUILD)/config.mk
ifeq ($(filter clean deps uninstall,$(MAKECMDGOALS)),)
-include $(CONFIG_MK)
endif

ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-format-truncation $(WERROR) $(OPT) $(SAN) \
             -pthread -MMD -MP -Igen $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN) -pthread $(LDFLAGS)

LIB_SRCS  = $(filter-out gen/main.c,$(sort $(wildcard gen/*.c)))
LIB_OBJS  = $(LIB_SRCS:gen/%.c=$(BUILD)/obj/%.o)
TEST_SRCS = $(sort $(wildcard tests/check_*.c))
TEST_BINS = $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
TEST_UTIL = $(BUILD)/obj/tests/testutil.o
FUZZ_SRCS = $(sort $(wildcard tests/fuzz/fuzz_*.c))

# Where the real PyTorch releases live (SPEC §4 default checkout).
SOURCE_CACHE ?= $(if $(TILEGYM_SKILL_CACHE_DIR),$(TILEGYM_SKILL_CACHE_DIR),$(HOME)/.cache/tilegym)/pytorch-source

DEPS_STAMP = $(BUILD)/.deps-ok

.PHONY: all deps report test unit-test install uninstall clean asan ubsan valgrind fuzz \
        fuzz-build sanitized-run bench source docs groundtruth

all: $(BUILD)/optrace

# ---- dependencies -----------------------------------------------------------

deps:
	@ci/deps.sh
	@mkdir -p $(BUILD) && touch $(DEPS_STAMP)

$(DEPS_STAMP): ci/deps.sh
	@ci/deps.sh
	@mkdir -p $(BUILD) && touch $@

$(CONFIG_MK): $(DEPS_STAMP) Makefile
	@{ echo "PKG_CFLAGS = $$(pkg-config --cflags $(PKGS))"; \
	   echo "PKG_LIBS = $$(pkg-config --libs $(PKGS)) -lcmark-gfm-extensions"; \
	   echo "CHECK_CFLAGS = $$(pkg-config --cflags check)"; \
	   echo "CHECK_LIBS = $$(pkg-config --libs check)"; } > $@.tmp && mv $@.tmp $@

# ---- build --------------------------------------------------------------------

$(BUILD)/obj/%.o: gen/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/embedded.c: ci/embed.sh $(sort $(wildcard templates/*))
	@mkdir -p $(BUILD)
	ci/embed.sh templates > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/embedded.o: $(BUILD)/embedded.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/liboptrace.a: $(LIB_OBJS) $(BUILD)/obj/embedded.o
	rm -f $@
	ar rcs $@ $^

$(BUILD)/optrace: $(BUILD)/obj/main.o $(BUILD)/liboptrace.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# ---- man pages and completion --------------------------------------------------
# Made from the --help of each command (whose text the option tables of
# gen/main.c make): help2man writes the man pages, ci/completion.sh the bash
# completion. The date in the pages is the last commit's.

VERSION  := $(shell sed -n 's/^\#define OPTRACE_VERSION "\(.*\)"/\1/p' gen/common.h)
DOC_DATE := $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
MANPAGES  = $(BUILD)/man/optrace.1 $(BUILD)/man/optrace-diff.1 $(BUILD)/man/optrace-show.1
DOCS      = $(MANPAGES) $(BUILD)/optrace.bash-completion

$(BUILD)/man/optrace.1: $(BUILD)/optrace ci/see-also.h2m | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	SOURCE_DATE_EPOCH=$(DOC_DATE) help2man --no-info --include=ci/see-also.h2m --version-string=$(VERSION) \
		--name="trace PyTorch operators through the source of a release" -o $@ $(BUILD)/optrace

# optrace diff and optrace show, as help2man runs a program: through a wrapper
$(BUILD)/man/optrace-%.1: $(BUILD)/optrace ci/see-also.h2m | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nexec "%s" %s "$$@"\n' "$(abspath $(BUILD)/optrace)" $* > $(BUILD)/man/optrace-$*
	@chmod +x $(BUILD)/man/optrace-$*
	SOURCE_DATE_EPOCH=$(DOC_DATE) help2man --no-info --include=ci/see-also.h2m --version-string=$(VERSION) \
		--name="$(if $(filter diff,$*),what changed for PyTorch operators between two releases,one PyTorch operator's trace in the terminal)" \
		-o $@ $(BUILD)/man/optrace-$*

$(BUILD)/optrace.bash-completion: $(BUILD)/optrace ci/completion.sh
	ci/completion.sh $(BUILD)/optrace > $@.tmp && mv $@.tmp $@

docs: $(DOCS)

# ---- tests ----------------------------------------------------------------------

$(BUILD)/obj/tests/%.o: tests/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests -c -o $@ $<

# (objects before the library: a suite may add objects, see check_fuzz)
$(BUILD)/tests/check_%: $(BUILD)/obj/tests/check_%.o $(TEST_UTIL) $(BUILD)/liboptrace.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(PKG_LIBS) $(CHECK_LIBS) -lm

# Where the reference test data of ../shared lives: beside this checkout, or
# beside the repository it was cloned from (a CI clone in a temporary folder).
ORIGIN_DIR := $(shell git config --get remote.origin.url 2>/dev/null | sed -n 's|^file://||; /^\//p')
SHARED_DIR ?= $(firstword $(wildcard ../shared $(if $(ORIGIN_DIR),$(ORIGIN_DIR)/../shared)) ../shared)
MUSTACHE_SPEC_DIR ?= $(abspath $(SHARED_DIR)/mustache-spec)

TEST_ENV = OPTRACE="$(abspath $(BUILD)/optrace)" OPTRACE_SOURCE="$(SOURCE_CACHE)" \
           MUSTACHE_SPEC_DIR="$(MUSTACHE_SPEC_DIR)"

# Both real releases, tagged, in the default checkout (no-op when present).
source: | $(DEPS_STAMP)
	@ci/fetch-pytorch-source.sh "$(SOURCE_CACHE)"

# optrace against the real thing (tests/groundtruth/README.md): Debian's
# python3-torch 1.13.1 on the host and 2.6.0 in a cached chroot, run under
# torch.profiler, against optrace's CPU main path. Report only until the
# main path is marked: GROUNDTRUTH_ENFORCE=1 makes a missed threshold fail.
GROUNDTRUTH_ENFORCE ?= 0
GROUNDTRUTH = GROUNDTRUTH_ENFORCE=$(GROUNDTRUTH_ENFORCE) \
              tests/groundtruth/run.sh $(BUILD)/optrace "$(SOURCE_CACHE)" $(BUILD)/groundtruth

test: $(BUILD)/optrace $(DOCS) $(TEST_BINS) source
	@$(TEST_ENV) tests/run-all.sh $(TEST_BINS)
	@$(GROUNDTRUTH)

groundtruth: $(BUILD)/optrace source
	@$(GROUNDTRUTH)

unit-test: $(BUILD)/optrace $(DOCS) $(TEST_BINS)
	@$(TEST_ENV) tests/run-all.sh $(TEST_BINS)

# ---- the product ---------------------------------------------------------------

# Exit status 1 means "written, but some layer or op was not found": the
# report is complete and says where; only 2 (fatal) fails the target.
report: $(BUILD)/optrace
	@v=$$($(BUILD)/optrace --print-version ops.list) && \
	  ci/fetch-pytorch-source.sh "$(SOURCE_CACHE)" $$v
	@$(BUILD)/optrace --source "$(SOURCE_CACHE)" -o out ops.list; rc=$$?; \
	  if [ $$rc -eq 1 ]; then echo "optrace: report written to out/ (see 'not found' entries in out/index.md)"; \
	  elif [ $$rc -ne 0 ]; then exit $$rc; fi

install: $(BUILD)/optrace $(DOCS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/templates $(DESTDIR)$(MANDIR) \
		$(DESTDIR)$(COMPDIR)
	install -m 755 $(BUILD)/optrace $(DESTDIR)$(BINDIR)/optrace
	install -m 644 templates/* $(DESTDIR)$(DATADIR)/templates/
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/
	install -m 644 $(BUILD)/optrace.bash-completion $(DESTDIR)$(COMPDIR)/optrace

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/optrace
	rm -rf $(DESTDIR)$(DATADIR)
	rm -f $(DESTDIR)$(MANDIR)/optrace.1 $(DESTDIR)$(MANDIR)/optrace-diff.1 \
		$(DESTDIR)$(MANDIR)/optrace-show.1 $(DESTDIR)$(COMPDIR)/optrace

# ---- checkers ------------------------------------------------------------------

# Sanitizer builds (clang: its runtimes honour log_path for every report).
# tests/run-sanitized.sh runs every suite of `make test`, then a real --all
# at 1.13.1 and 2.6.0; any report, from any process, fails the target.
SAN_CC    = CC=clang CFLAGS=-Wno-unknown-warning-option
ASAN_SAN  = -fsanitize=address,undefined -fno-sanitize-recover=all
UBSAN_SAN = -fsanitize=undefined -fno-sanitize-recover=all

asan:
	$(MAKE) $(SAN_CC) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="$(ASAN_SAN)" sanitized-run

ubsan:
	$(MAKE) $(SAN_CC) BUILD=build-ubsan OPT="-O1 -g" SAN="$(UBSAN_SAN)" sanitized-run

sanitized-run: $(BUILD)/optrace $(DOCS) $(TEST_BINS) source
	@$(TEST_ENV) tests/run-sanitized.sh "$(BUILD)" "$(SOURCE_CACHE)" $(TEST_BINS)

valgrind: $(BUILD)/optrace source
	@tests/run-valgrind.sh $(BUILD)/optrace "$(SOURCE_CACHE)"

# libFuzzer harnesses (tests/fuzz/fuzz_*.c): the library built with clang,
# coverage and ASan+UBSan into build-fuzz/, each harness linked with
# -fsanitize=fuzzer. FUZZ_SECONDS per harness (default 60), FUZZ_JOBS at
# once (default 2); findings fail the target (tests/fuzz/run.sh).
FUZZ_BINS = $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_SAN  = -fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link
# lower render limits: an input that runs into them stays far below -timeout
FUZZ_DEFS = -DOT_MUSTACHE_MAX_STEPS=65536u -DOT_MUSTACHE_MAX_OUTPUT=1048576u

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/liboptrace.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/liboptrace.a $(PKG_LIBS) -lm

fuzz-build: $(FUZZ_BINS)

fuzz: source
	$(MAKE) CC=clang CFLAGS="-Wno-unknown-warning-option $(FUZZ_DEFS)" BUILD=build-fuzz \
		OPT="-O1 -g -fno-omit-frame-pointer" SAN="$(FUZZ_SAN)" fuzz-build
	@tests/fuzz/run.sh build-fuzz "$(SOURCE_CACHE)"

# tests/check_fuzz.c replays tests/fuzz/crashes/ through the same harnesses,
# built without libFuzzer, each entry point renamed after its harness.
FUZZ_REPLAY_OBJS = $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/obj/tests/fuzz/%.o)

$(BUILD)/obj/tests/fuzz/%.o: tests/fuzz/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DLLVMFuzzerTestOneInput=$*_one -c -o $@ $<

$(BUILD)/tests/check_fuzz: $(FUZZ_REPLAY_OBJS)

bench: $(BUILD)/optrace source
	@ci/bench.sh "$(SOURCE_CACHE)" $(BUILD)/optrace

clean:
	rm -rf build build-asan build-ubsan build-fuzz build-bench out

.SECONDARY:

-include $(wildcard $(BUILD)/obj/*.d $(BUILD)/obj/tests/*.d $(BUILD)/obj/tests/fuzz/*.d \
	$(BUILD)/fuzz/*.d)
