# SPDX-License-Identifier: GPL-2.0-or-later
# xfsdefrag - offline XFS inspector and defragmenter.
#
#   make                 build ./xfsdefrag (warnings are warnings)
#   make DEVELOPER=1     the same with -Werror (check, asan, tsan imply it)
#   make check           unit + image tests, then under ASan/UBSan those
#                        where memory errors are plausible, TEST_JOBS=2
#                        at once; T="t-check test_records" runs just
#                        those, T_CASE=REGEX just the matching cases
#                        inside them
#   make test-bin        build/release/xfsdefrag-test: the product's commands
#                        and the test aids (make check builds it in
#                        build/dev; never installed: tests/aids/README.md)
#   make tsan            ThreadSanitizer: threaded scan, check, report, plan
#   make check-long      every test under both builds with its full
#                        repetitions, then the long campaigns (tsan,
#                        power cuts, the fuzz campaigns: hours)
#   make fuzz            build and run the libFuzzer target for a while
#   make hddemu          the emulated disk of the read-back benches
#                        (bench/hddemu: needs libfuse3)
#   make install         PREFIX=/usr/local DESTDIR=
#   V=1                  show the commands
#
# CC, CPPFLAGS, CFLAGS and LDFLAGS are honoured (distribution hardening:
# make CPPFLAGS="$(dpkg-buildflags --get CPPFLAGS)" ...); changing any
# of them rebuilds what they affect (build/*/FLAGS).

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/sbin
MANDIR  ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
CC      ?= cc
CFLAGS  ?= -O2 -g
CPPFLAGS ?=
LDFLAGS ?=
PKG_CONFIG ?= pkg-config

# The checking targets are for developers: warnings there are errors.
ifneq ($(filter check check-long asan tsan,$(MAKECMDGOALS)),)
DEVELOPER := 1
endif

WARN    := -std=c11 -Wall -Wextra -Wshadow -Wvla -Wstrict-prototypes \
           -Wmissing-prototypes -fno-common -Wformat=2 -Wno-format-nonliteral
ifneq ($(DEVELOPER),)
WARN    += -Werror
endif
DEFS    := -I. -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DXFSDEFRAG_VERSION=\"0.1\"
# liburing is optional: without it the scan reads with pread and fadvise
URING   := $(shell $(PKG_CONFIG) --exists liburing 2>/dev/null && echo liburing)
PKGS    := blkid uuid ncursesw $(URING)
DEFS    += $(if $(URING),-DHAVE_LIBURING)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS))
ALL_CFLAGS  = $(WARN) $(DEFS) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LIBS        = $(PKG_LIBS) -lpthread -lm

ifeq ($(V),1)
Q :=
else
Q := @
endif

ONDISK_SRC := $(wildcard ondisk/*.c)
CORE_SRC   := $(wildcard core/*/*.c)
CMD_SRC    := $(wildcard cmd/*.c)
TUI_SRC    := $(wildcard tui/*.c)
HTML_SRC   := $(wildcard html/*.c)
LIB_SRC    := $(ONDISK_SRC) $(CORE_SRC)
PROG_SRC   := $(CMD_SRC) $(TUI_SRC) $(HTML_SRC)
# The test binary: the product's objects but its main(), plus the aids.
AIDS_SRC   := $(wildcard tests/aids/*.c)
TPROG_SRC  := $(filter-out cmd/main.c,$(PROG_SRC)) $(AIDS_SRC)
UNIT_SRC   := $(wildcard tests/unit/*.c)
REPLAY_SRC := tests/fuzz/replay.c tests/fuzz/fuzz_open.c
# the emulated disk's cost model and replay driver (bench/hddemu)
HDD_SRC    := bench/hddemu/hddcost.c bench/hddemu/hddreplay.c

# One build tree per flavour: release, ASan+UBSan, ThreadSanitizer.  The
# developer build (-Werror: DEVELOPER=1, make check) has a tree of its
# own, build/dev, so that going from make to make check and back
# rebuilds neither; each tree rebuilds only what changed since its last
# build.
ifneq ($(DEVELOPER),)
B        := build/dev
else
B        := build/release
endif
A        := build/asan
TS       := build/tsan
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
TSAN     := -fsanitize=thread -fno-omit-frame-pointer
B_CFLAGS  = $(ALL_CFLAGS)
A_CFLAGS  = $(ALL_CFLAGS) $(SAN) -O1
TS_CFLAGS = $(ALL_CFLAGS) $(TSAN) -O1
B_LDFLAGS  = $(CFLAGS) $(LDFLAGS)
A_LDFLAGS  = $(SAN) $(LDFLAGS)
TS_LDFLAGS = $(TSAN) $(LDFLAGS)

obj = $(patsubst %.c,$(1)/%.o,$(2))

all: xfsdefrag

# ---- flags stamps: a tree's FLAGS file changes when its flags do, and
# every object of that tree depends on it, so new flags rebuild.
define track_flags
$(1)/FLAGS: FORCE
	@mkdir -p $(1)
	@echo '$(subst ','\'',$(CC) $(2) | $(3) $(LIBS))' > $(1)/FLAGS.new
	@cmp -s $(1)/FLAGS.new $(1)/FLAGS && rm -f $(1)/FLAGS.new || \
		mv $(1)/FLAGS.new $(1)/FLAGS
endef
$(eval $(call track_flags,$(B),$(B_CFLAGS),$(B_LDFLAGS)))
$(eval $(call track_flags,$(A),$(A_CFLAGS),$(A_LDFLAGS)))
$(eval $(call track_flags,$(TS),$(TS_CFLAGS),$(TS_LDFLAGS)))

# ---- compile and link rules, one set per tree
define tree_rules
$(1)/%.o: %.c $(1)/FLAGS
	@mkdir -p $$(dir $$@)
	$$(if $(Q),@echo "  CC      $$<$(3)")
	$(Q)$$(CC) $(2) -MMD -MP -c -o $$@ $$<

$(1)/xfsdefrag: $(call obj,$(1),$(LIB_SRC) $(PROG_SRC)) $(1)/FLAGS
	$$(if $(Q),@echo "  LD      $$@")
	$(Q)$$(CC) $(4) -o $$@ $$(filter %.o,$$^) $$(LIBS)

# The test binary (tests/aids/README.md): built by make check, never
# installed.
$(1)/xfsdefrag-test: $(call obj,$(1),$(LIB_SRC) $(TPROG_SRC)) $(1)/FLAGS
	$$(if $(Q),@echo "  LD      $$@")
	$(Q)$$(CC) $(4) -o $$@ $$(filter %.o,$$^) $$(LIBS)

# Unit tests link the library objects, one binary per test file.
$(1)/tests/%: $(1)/tests/unit/%.o $(call obj,$(1),$(LIB_SRC)) $(1)/FLAGS
	@mkdir -p $$(dir $$@)
	$$(if $(Q),@echo "  LD      $$@")
	$(Q)$$(CC) $(4) -o $$@ $$(filter %.o,$$^) $$(LIBS)

# The fuzz target's entry point driven by a plain main(): no clang needed.
$(1)/tests/fuzz_replay: $(call obj,$(1),$(REPLAY_SRC) $(LIB_SRC)) $(1)/FLAGS
	@mkdir -p $$(dir $$@)
	$$(if $(Q),@echo "  LD      $$@")
	$(Q)$$(CC) $(4) -o $$@ $$(filter %.o,$$^) $$(LIBS)

# The model's drive checked against the emulated disk's: only this test
# links the bench's cost model, never the product.
$(1)/tests/test_drive: $(1)/bench/hddemu/hddcost.o

$(1)/bench/hddemu/hddreplay: $(call obj,$(1),$(HDD_SRC)) $(1)/FLAGS
	$$(if $(Q),@echo "  LD      $$@")
	$(Q)$$(CC) $(4) -o $$@ $$(filter %.o,$$^) -lm
endef
$(eval $(call tree_rules,$(B),$$(B_CFLAGS),,$$(B_LDFLAGS)))
$(eval $(call tree_rules,$(A),$$(A_CFLAGS), [asan],$$(A_LDFLAGS)))
$(eval $(call tree_rules,$(TS),$$(TS_CFLAGS), [tsan],$$(TS_LDFLAGS)))

xfsdefrag: $(B)/xfsdefrag
	$(Q)cp $< $@.tmp && mv -f $@.tmp $@

UNIT_NAMES     := $(patsubst tests/unit/%.c,%,$(UNIT_SRC)) fuzz_replay
UNIT_BINS      := $(addprefix $(B)/tests/,$(UNIT_NAMES))
UNIT_BINS_ASAN := $(addprefix $(A)/tests/,$(UNIT_NAMES))

asan: $(A)/xfsdefrag $(A)/xfsdefrag-test $(UNIT_BINS_ASAN)

# The test binary alone (bench/ uses it too).
test-bin: $(B)/xfsdefrag-test

# The fuzzer's base images (mkfs.xfs and a protofile, no mount): the
# replay driver and the libFuzzer target both patch them.
FUZZ_BASE := build/fuzz/base/.stamp
$(FUZZ_BASE): tests/fuzz/mkbase.sh tests/badimg.sh tests/xfsedit.py
	tests/fuzz/mkbase.sh build/fuzz/base
	touch $@

# The emulated disk of the read-back benches (bench/hddemu/README.md):
# its cost model and the replay driver (tree_rules) need only libc and
# are tested in make check (under the sanitizers too); the FUSE disk needs
# libfuse3 (`make hddemu`), and make check builds it where pkg-config
# finds fuse3.  Nothing of it goes into xfsdefrag.
HAVE_FUSE3 := $(shell $(PKG_CONFIG) --exists fuse3 2>/dev/null && echo 1)
HDDEMU    := $(B)/bench/hddemu/hddemu
$(B)/bench/hddemu/hddemu.o: bench/hddemu/hddemu.c $(B)/FLAGS
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(B_CFLAGS) $$($(PKG_CONFIG) --cflags fuse3) -MMD -MP -c -o $@ $<
$(HDDEMU): $(B)/bench/hddemu/hddemu.o $(B)/bench/hddemu/hddcost.o $(B)/FLAGS
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(B_LDFLAGS) -o $@ $(filter %.o,$^) $$($(PKG_CONFIG) --libs fuse3) -lm
hddemu: $(HDDEMU) $(B)/bench/hddemu/hddreplay

# The power-cut model's recorder (tests/powercut), preloaded by the tests.
$(B)/powercut/pctrace.so: tests/powercut/pctrace.c $(B)/FLAGS
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -fPIC -shared -o $@ $< -ldl -lpthread

# T: the unit tests and scripts to run (all when empty).  TEST_JOBS: how
# many run at once (tests/run.sh -j), and how many jobs build what they
# need when make was not given -j itself.
TEST_JOBS ?= 2
CHECK_BUILD := xfsdefrag $(B)/xfsdefrag-test $(UNIT_BINS) asan $(FUZZ_BASE) \
	       $(B)/powercut/pctrace.so \
	       $(B)/bench/hddemu/hddreplay $(A)/bench/hddemu/hddreplay \
	       $(if $(HAVE_FUSE3),$(HDDEMU))
CHECK_MAKE   = $(MAKE) --no-print-directory $(if $(Q),-s) DEVELOPER=1 $(if $(filter -j%,$(MAKEFLAGS)),,-j$(TEST_JOBS))
# Both passes in one queue, so that the long scripts of each overlap.
# The sanitizer pass runs the scripts where memory errors are plausible;
# those marked "# asan-pass: check-long" run under it in check-long.
RUN_TESTS    = ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	       tests/run.sh -j $(TEST_JOBS) --bin $(B)/xfsdefrag --unit $(B)/tests \
	       --asan-bin $(A)/xfsdefrag --asan-unit $(A)/tests

check:
	$(Q)$(CHECK_MAKE) $(CHECK_BUILD)
	$(RUN_TESTS) $(T)

tsan: $(TS)/xfsdefrag
	tests/tsan.sh $(TS)/xfsdefrag

# Long campaigns go in scripts of their own, each a line here (hours;
# tests/long-*.sh say what they measure): power cuts, the pre-check's
# catch rate over fuzzed fixtures, and every read command of the
# sanitizer build over damaged images, the undo of runs in passes
# damaged, killed and cut by power.  Figures land in build/long.
check-long: tsan
	$(Q)$(CHECK_MAKE) $(CHECK_BUILD)
	$(RUN_TESTS) --long $(T)
	tests/powercut-long.sh ./xfsdefrag
	tests/long-undochain.sh ./xfsdefrag
	tests/long-precheck.sh ./xfsdefrag
	tests/long-corrupt.sh $(A)/xfsdefrag

# libFuzzer needs clang; FUZZ_TIME seconds per target.  The inputs are
# patches to small base images that mkfs.xfs makes (tests/fuzz/mkbase.sh);
# the corpus grows in build/fuzz/corpus (see tests/fuzz/README.md).
FUZZ_TIME ?= 60
FUZZ_CC   ?= clang
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1
build/fuzz/fuzz_open: tests/fuzz/fuzz_open.c $(LIB_SRC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) $(DEFS) $(PKG_CFLAGS) $(CPPFLAGS) $(FUZZ_FLAGS) \
		-o $@ $^ $(LDFLAGS) $(LIBS)

fuzz: build/fuzz/fuzz_open $(FUZZ_BASE)
	tests/fuzz/run.sh build/fuzz/fuzz_open $(FUZZ_TIME)

install: xfsdefrag
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 xfsdefrag $(DESTDIR)$(BINDIR)/xfsdefrag
	install -m 0644 man/xfsdefrag.8 $(DESTDIR)$(MANDIR)/man8/xfsdefrag.8
	install -m 0644 cmd/xfsdefrag.bash $(DESTDIR)$(COMPLETIONDIR)/xfsdefrag

clean:
	rm -rf build xfsdefrag

FORCE:

# keep the unit tests' objects (intermediate files make would delete)
.SECONDARY:

.PHONY: all asan test-bin check check-long tsan fuzz hddemu install clean FORCE

-include $(shell find build -name '*.d' 2>/dev/null)

# The main job on a copy of the bundled aged sample image: what a run
# would do (and the HTML report of it, next to the image), the run with
# its figures before and after, the checker, and the undo.
DEMO_DIR  := build/demo
DEMO_ORIG := $(DEMO_DIR)/aged.orig.img
DEMO_IMG  := $(DEMO_DIR)/aged.img
DEMO_UNDO := $(DEMO_DIR)/aged.undo
DEMO_HTML := $(DEMO_DIR)/aged.html
DEMO_SUNDO := $(DEMO_DIR)/aged.shrink.undo
$(DEMO_ORIG): tests/fixtures/aged/image.zst
	@mkdir -p $(dir $@)
	zstd -dq --sparse -f -o $@ $<

demo: xfsdefrag $(DEMO_ORIG)
	@rm -f $(DEMO_UNDO) $(DEMO_UNDO).map $(DEMO_HTML) $(DEMO_SUNDO) $(DEMO_SUNDO).map
	cp --sparse=always $(DEMO_ORIG) $(DEMO_IMG)
	@echo; echo "== 1. plan: what a run would move (nothing is written)"
	./xfsdefrag plan --html $(DEMO_HTML) $(DEMO_IMG)
	@echo; echo "== 2. run: relocate in place, behind an undo file"
	./xfsdefrag run --undo $(DEMO_UNDO) $(DEMO_IMG)
	@echo; echo "== 3. check: the result, verified again"
	./xfsdefrag check $(DEMO_IMG)
	@echo; echo "== 4. undo: back to the image as it was"
	./xfsdefrag undo $(DEMO_UNDO) $(DEMO_IMG)
	./xfsdefrag check $(DEMO_IMG)
	./xfsdefrag report $(DEMO_IMG) | grep '^actual'
	@echo; echo "== 5. shrink: to the smallest size the data fits in, and back"
	./xfsdefrag plan --shrink min $(DEMO_IMG) | sed -n '3,6p'
	./xfsdefrag shrink --min --undo $(DEMO_SUNDO) $(DEMO_IMG)
	ls -ls $(DEMO_IMG)
	./xfsdefrag undo $(DEMO_SUNDO) $(DEMO_IMG)
	ls -ls $(DEMO_IMG)
	@echo; echo "HTML report (the verdict, the figures and block maps now and after the plan): $(CURDIR)/$(DEMO_HTML)"

.PHONY: demo
