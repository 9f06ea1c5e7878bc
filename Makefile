# SPDX-License-Identifier: GPL-2.0
#
# make            the module for KDIR, the preload, exsconfig, the selftests
# make demo       two VM hosts: an unmodified program through AF_EXS
# make check      install what is missing, build, run every test
# make stress     the long reliability runs on the debug kernel
# make bench      AF_EXS against raw verbs, TCP, SMC-R, rsockets: plots, ratios
# make style      checkpatch --strict over every source file
#
# KDIR defaults to the running kernel's build tree, else the newest Debian
# headers that scripts/setup.sh installed.

KVER_RUNNING := $(shell uname -r)
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER_RUNNING)/build) \
		    $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))

CC	?= gcc
CFLAGS	?= -O2 -g
CFLAGS	+= -Wall -Wextra -Wno-missing-field-initializers \
	   -Iinclude/uapi -Itools/include
BUILD	:= build
BIN	:= $(BUILD)/bin

PROGS	:= $(BIN)/exs_connect $(BIN)/exs_sockapi $(BIN)/exs_stream \
	   $(BIN)/exs_race $(BIN)/exs_nlbad $(BIN)/exs_nlfuzz $(BIN)/exs_fuzz \
	   $(BIN)/exs_badpeer $(BIN)/exs_deadpeer $(BIN)/exs_gohttp \
	   $(BIN)/exs_cgrefuse $(BIN)/exs_conntime $(BIN)/exs_busypoll \
	   $(BIN)/exs_oob
TOOLS	:= $(BIN)/libexs-preload.so $(BIN)/exs-run $(BIN)/exsconfig \
	   $(BIN)/exs_bench $(BIN)/smc_ueid
HDRS	:= include/uapi/linux/af_exs.h tools/include/exs_family.h \
	   selftests/exs_tap.h selftests/exs_cmp.h selftests/exs_rng.h

.PHONY: all module tools modules-all clean demo check stress bench style sparse install \
	dkms-install

all: module tools

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: run scripts/setup.sh (or set KDIR)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools: $(PROGS) $(TOOLS)

$(BIN):
	mkdir -p $@

# the hostile netlink clients speak through exsconfig's plumbing
$(BIN)/exs_nlbad $(BIN)/exs_nlfuzz: $(BIN)/exs_nl%: selftests/exs_nl%.c tools/exsconfig/nl.c tools/exsconfig/nl.h $(HDRS) | $(BIN)
	$(CC) $(CFLAGS) -o $@ $< tools/exsconfig/nl.c $$(pkg-config --cflags --libs libmnl)

# the misbehaving peer speaks verbs from userspace (rdma-core); its cases
# share one signature, and not every case uses every argument
$(BIN)/exs_badpeer: selftests/exs_badpeer.c | $(BIN)
	$(CC) $(CFLAGS) -Wno-unused-parameter -o $@ $< -lrdmacm -libverbs

# Go's own system calls, which no preload reaches: static, its build cache
# outside the tree
$(BIN)/exs_gohttp: selftests/exs_gohttp.go | $(BIN)
	cd selftests && CGO_ENABLED=0 GOCACHE=$${EXS_CACHE:-$$HOME/.cache/af-exs}/go-build \
		go build -trimpath -o $(CURDIR)/$@ exs_gohttp.go

$(BIN)/exs_%: selftests/exs_%.c $(HDRS) | $(BIN)
	$(CC) $(CFLAGS) -o $@ $< -lpthread

$(BIN)/libexs-preload.so: tools/preload/exs_preload.c $(HDRS) | $(BIN)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $< -ldl

# BPF programs (clang), each in its program as a libbpf skeleton
# (bpftool): exsconfig transparent's, and exs_cgrefuse's
GEN	:= $(BUILD)/gen
CLANG	?= clang
$(GEN):
	mkdir -p $@
$(GEN)/transparent.bpf.o: tools/exsconfig/transparent.bpf.c | $(GEN)
$(GEN)/exs_cgrefuse.bpf.o: selftests/exs_cgrefuse.bpf.c | $(GEN)
$(GEN)/transparent.bpf.o $(GEN)/exs_cgrefuse.bpf.o:
	$(CLANG) -O2 -g -target bpf -I/usr/include/$$($(CC) -dumpmachine) \
		-c $< -o $@
$(GEN)/transparent.skel.h: $(GEN)/transparent.bpf.o
	bpftool gen skeleton $< name exs_transparent > $@.tmp && mv $@.tmp $@
$(GEN)/exs_cgrefuse.skel.h: $(GEN)/exs_cgrefuse.bpf.o
	bpftool gen skeleton $< name exs_cgrefuse > $@.tmp && mv $@.tmp $@

$(BIN)/exs_cgrefuse: selftests/exs_cgrefuse.c $(GEN)/exs_cgrefuse.skel.h $(HDRS) | $(BIN)
	$(CC) $(CFLAGS) -I$(GEN) -o $@ $< $$(pkg-config --cflags --libs libbpf)

EXSCONFIG_SRC := $(filter-out %.bpf.c,$(wildcard tools/exsconfig/*.c))
$(BIN)/exsconfig: $(EXSCONFIG_SRC) $(wildcard tools/exsconfig/*.h) $(HDRS) \
		  $(GEN)/transparent.skel.h | $(BIN)
	$(CC) $(CFLAGS) -I$(GEN) -o $@ $(EXSCONFIG_SRC) \
		$$(pkg-config --cflags --libs libmnl jansson libbpf)

$(BIN)/exs_bench: tools/bench/exs_bench.c $(HDRS) | $(BIN)
	$(CC) $(CFLAGS) -o $@ $< -lpthread

# make bench's SMC-R peer needs a UEID, set through SMC's netlink family
$(BIN)/smc_ueid: tools/bench/smc_ueid.c tools/exsconfig/nl.c tools/exsconfig/nl.h $(HDRS) | $(BIN)
	$(CC) $(CFLAGS) -o $@ $< tools/exsconfig/nl.c $$(pkg-config --cflags --libs libmnl)

$(BIN)/exs-run: tools/preload/exs-run | $(BIN)
	install -m 0755 $< $@

# One build tree per supported kernel, for the VM rig: build/<kver>/
modules-all:
	./scripts/build-modules.sh

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 W=1 modules

style:
	@./scripts/checkpatch.sh

demo:
	@./scripts/demo.sh

check:
	@./scripts/check.sh

stress:
	@./scripts/stress.sh

bench:
	@./scripts/bench.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf $(BUILD)
