# SPDX-License-Identifier: GPL-2.0-or-later
# xfsdefrag - offline XFS inspector and defragmenter.
#
#   make                 build ./xfsdefrag
#   make check           unit tests + image tests, then again under ASan/UBSan
#   make fuzz            build and run the libFuzzer target for a while
#   make install         PREFIX=/usr/local DESTDIR=

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/sbin
MANDIR  ?= $(PREFIX)/share/man
CC      ?= cc
CFLAGS  ?= -O2 -g
PKG_CONFIG ?= pkg-config

WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wvla -Wstrict-prototypes \
           -Wmissing-prototypes -fno-common -Wformat=2 -Wno-format-nonliteral
DEFS    := -I. -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DXFSDEFRAG_VERSION=\"0.1\"
# liburing is optional: without it the scan reads with pread and fadvise
URING   := $(shell $(PKG_CONFIG) --exists liburing 2>/dev/null && echo liburing)
PKGS    := blkid uuid ncursesw $(URING)
DEFS    += $(if $(URING),-DHAVE_LIBURING)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS))
ALL_CFLAGS  = $(WARN) $(DEFS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
LIBS        = $(PKG_LIBS) -lpthread -lm

ONDISK_SRC := $(wildcard ondisk/*.c)
CORE_SRC   := $(wildcard core/*/*.c)
CMD_SRC    := $(wildcard cmd/*.c)
TUI_SRC    := $(wildcard tui/*.c)
LIB_SRC    := $(ONDISK_SRC) $(CORE_SRC)
PROG_SRC   := $(CMD_SRC) $(TUI_SRC)
UNIT_SRC   := $(wildcard tests/unit/*.c)

B        := build/release
A        := build/asan
SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer

obj = $(patsubst %.c,$(1)/%.o,$(2))

all: xfsdefrag

xfsdefrag: $(call obj,$(B),$(LIB_SRC) $(PROG_SRC))
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(A)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN) -O1 -c -o $@ $<

$(A)/xfsdefrag: $(call obj,$(A),$(LIB_SRC) $(PROG_SRC))
	$(CC) $(SAN) -o $@ $^ $(LIBS)

# Unit tests link the library objects, one binary per test file.
UNIT_BINS      := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
UNIT_BINS_ASAN := $(patsubst tests/unit/%.c,$(A)/tests/%,$(UNIT_SRC))

$(B)/tests/%: $(B)/tests/unit/%.o $(call obj,$(B),$(LIB_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

$(A)/tests/%: $(A)/tests/unit/%.o $(call obj,$(A),$(LIB_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $^ $(LIBS)

asan: $(A)/xfsdefrag $(UNIT_BINS_ASAN)

check: xfsdefrag $(UNIT_BINS) asan
	tests/run.sh --bin ./xfsdefrag --unit $(B)/tests
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		tests/run.sh --bin $(A)/xfsdefrag --unit $(A)/tests --asan

# libFuzzer needs clang; FUZZ_TIME seconds per target.  The inputs are
# patches to small base images that mkfs.xfs makes (tests/fuzz/mkbase.sh);
# the corpus grows in build/fuzz/corpus (see tests/fuzz/README.md).
FUZZ_TIME ?= 60
FUZZ_CC   ?= clang
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1
build/fuzz/fuzz_open: tests/fuzz/fuzz_open.c $(LIB_SRC)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) $(DEFS) $(PKG_CFLAGS) $(FUZZ_FLAGS) -o $@ $^ $(LIBS)

build/fuzz/base/.stamp: tests/fuzz/mkbase.sh tests/badimg.sh tests/xfsedit.py
	tests/fuzz/mkbase.sh build/fuzz/base
	touch $@

fuzz: build/fuzz/fuzz_open build/fuzz/base/.stamp
	tests/fuzz/run.sh build/fuzz/fuzz_open $(FUZZ_TIME)

install: xfsdefrag
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8
	install -m 0755 xfsdefrag $(DESTDIR)$(BINDIR)/xfsdefrag
	install -m 0644 man/xfsdefrag.8 $(DESTDIR)$(MANDIR)/man8/xfsdefrag.8

clean:
	rm -rf build xfsdefrag

.PHONY: all asan check fuzz install clean

-include $(shell find build -name '*.d' 2>/dev/null)

# The main job on the bundled aged sample image: geometry, the report, and
# the extent map of its most fragmented file.
DEMO_IMG := build/demo/image
$(DEMO_IMG): tests/fixtures/aged/image.zst
	@mkdir -p $(dir $@)
	zstd -dq --sparse -f -o $@ $<

demo: xfsdefrag $(DEMO_IMG)
	./xfsdefrag info $(DEMO_IMG)
	@echo
	./xfsdefrag report --top 5 $(DEMO_IMG)
	@echo
	./xfsdefrag bmap -v $(DEMO_IMG) appends/big | head -n 12

.PHONY: demo
