# testdata/fixtures.mk: the a.out fixtures for the end-to-end tests.
#
# Included from the top-level Makefile.am (after check_PROGRAMS, CLEANFILES
# and EXTRA_DIST are first set there) with
#
#	include $(srcdir)/testdata/fixtures.mk
#
# Sources are read from $(srcdir)/testdata, everything is written to
# testdata/ of the build directory, so VPATH builds and distcheck work.
#
# Each fixture NAME (hello startup sigsegv forkexec traps runcode dyn
# statedump statedump-big selfstatus) is
# linked for each a.out kind M (omagic nmagic zmagic qmagic) at the a.out
# addresses, with
# $(srcdir)/testdata/aout-M.ld, into testdata/NAME.M.elf; testdata/mkaout
# turns that into testdata/NAME.M.aout (with a symbol table), and
# hello.M.elf also into testdata/hello.M.stripped.aout (without one).
# dynclash, dynmissing and dynbig (variants of dyn) are built for QMAGIC only.
# The programs of 1993 that load their libraries in their own crt0
# (olddyn.c: slsdyn, slackdyn, slsexact, slslow, slsmissing, slackmissing)
# are built for every kind (slsdyn, slackdyn) or for QMAGIC and ZMAGIC.
# testdata/child32 and testdata/child64 are ordinary glibc programs (i386
# and the host's) for forkexec to run; child32 only where configure found
# a 32-bit glibc.
#
# The a.out shared libraries for dyn (see testdata/tiny.h) are linked at
# their fixed addresses with $(srcdir)/testdata/aout-lib.ld and written by
# "mkaout -l": testdata/libtiny.so.1 (QMAGIC, 1.2.3), the same as ZMAGIC in
# testdata/zmagic/libtiny.so.1, testdata/old/libtiny.so.1 (1.1.0: older
# than dyn needs), testdata/major2/libtiny.so.1 (2.0.0) and
# testdata/libclash.so.1 (1.0.0, at an address overlapping libtiny.so.1).
# For the programs of olddyn.c also: testdata/classic/libtiny.so.1 (1.2.3
# with the CLASSIC bit in its version word), testdata/liblow.so.1 (libtiny
# at 0x10000000, where /lib/libemu was; ZMAGIC in testdata/zmagic/, entry
# 0x10000000 as libemu's) and testdata/libtwo.so.1 (two.h: a library of
# its own, at 0x62000000, that uses libtiny).
#
# These are GNU make pattern rules (configure.ac gives automake
# -Wno-portability for them).

check_PROGRAMS += testdata/mkaout
testdata_mkaout_SOURCES = testdata/mkaout.c
testdata_mkaout_LDADD = $(ELF_LIBS)

# freestanding i386, no libc: the fixtures make their own system calls
FIXTURE_CFLAGS = -m32 -march=i386 -std=c11 -ffreestanding -fno-builtin \
	-fno-pic -fno-pie -fno-stack-protector -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-jump-tables -fno-delete-null-pointer-checks \
	-mno-sse -mno-mmx -Os -Wall -Wextra
FIXTURE_LINKFLAGS = -nostdlib -static -no-pie -Wl,--build-id=none \
	-Wl,--no-warn-rwx-segments -Wl,-z,norelro -Wl,--orphan-handling=error
FIXTURE_DEPS = $(srcdir)/testdata/fixture.h $(srcdir)/testdata/fixture_start.S
FIXTURE_MKAOUT = testdata/mkaout$(EXEEXT)

FIXTURE_MAGICS = omagic nmagic zmagic qmagic
FIXTURE_NAMES = hello startup sigsegv forkexec traps runcode dyn statedump \
	statedump-big
# selfstatus: what the a.out code holds (tests/e2e-caps.sh)
FIXTURE_NAMES += selfstatus
# -DFIXTURE_MAGIC= for each kind
FIXTURE_MAGIC_omagic = 0407
FIXTURE_MAGIC_nmagic = 0410
FIXTURE_MAGIC_zmagic = 0413
FIXTURE_MAGIC_qmagic = 0314
# the kind M of testdata/NAME.M.elf (or .aout)
fixture_kind = $(patsubst .%,%,$(suffix $(basename $(1))))

FIXTURE_SRCS = testdata/fixture.h testdata/fixture_start.S \
	testdata/hello.c testdata/startup.c testdata/sigsegv.c \
	testdata/forkexec.c testdata/traps.c testdata/runcode.c \
	testdata/statedump.c testdata/statedump-big.c \
	testdata/child32.c \
	testdata/dyn.c testdata/dynclash.c testdata/dynmissing.c testdata/dynbig.c \
	testdata/tiny.h testdata/uselib_call.h testdata/libtiny.c testdata/libtiny_jump.S \
	testdata/libentry.h testdata/oldcrt0.h testdata/crt0_sls.h \
	testdata/crt0_slack.h testdata/olddyn.c $(OLD_PROGS:%=testdata/%.c) \
	testdata/two.h testdata/libtwo.c testdata/libtwo_jump.S \
	testdata/aout-omagic.ld testdata/aout-nmagic.ld \
	testdata/aout-zmagic.ld testdata/aout-qmagic.ld testdata/aout-lib.ld
FIXTURE_SRCS += testdata/selfstatus.c

# olddyn.c's programs: in every kind, and in QMAGIC and ZMAGIC
OLD_PROGS_ALL = slsdyn slackdyn
OLD_PROGS_QZ = slsexact slslow slsmissing slackmissing
OLD_PROGS = $(OLD_PROGS_ALL) $(OLD_PROGS_QZ)

FIXTURE_ELFS = \
	$(foreach m,$(FIXTURE_MAGICS),$(FIXTURE_NAMES:%=testdata/%.$(m).elf)) \
	testdata/dynclash.qmagic.elf testdata/dynmissing.qmagic.elf \
	testdata/dynbig.qmagic.elf \
	$(foreach m,$(FIXTURE_MAGICS),$(OLD_PROGS_ALL:%=testdata/%.$(m).elf)) \
	$(foreach m,qmagic zmagic,$(OLD_PROGS_QZ:%=testdata/%.$(m).elf))
FIXTURE_AOUTS = $(FIXTURE_ELFS:.elf=.aout) \
	$(FIXTURE_MAGICS:%=testdata/hello.%.stripped.aout)
FIXTURE_LIB_ELFS = testdata/libtiny.so.1.elf testdata/libclash.so.1.elf \
	testdata/old/libtiny.so.1.elf testdata/major2/libtiny.so.1.elf \
	testdata/classic/libtiny.so.1.elf testdata/liblow.so.1.elf \
	testdata/libtwo.so.1.elf
FIXTURE_LIBS = $(FIXTURE_LIB_ELFS:.elf=) testdata/zmagic/libtiny.so.1 \
	testdata/zmagic/liblow.so.1
# child32 only where configure found a 32-bit glibc (HAVE_M32_LIBC)
FIXTURE_CHILDREN = testdata/child64 $(if $(filter yes,$(HAVE_M32_LIBC)),testdata/child32)
FIXTURES = $(FIXTURE_ELFS) $(FIXTURE_AOUTS) $(FIXTURE_LIB_ELFS) \
	$(FIXTURE_LIBS) $(FIXTURE_CHILDREN)

check_DATA = $(FIXTURES) $(EIO_SHIM)
CLEANFILES += $(FIXTURES)
EXTRA_DIST += $(FIXTURE_SRCS) testdata/fixtures.mk tests/e2e-static.sh \
	tests/e2e-dynamic.sh tests/e2e-oldlibs.sh

testdata/child32: $(srcdir)/testdata/child32.c
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(STUB_CC) -m32 -O2 -Wall -Wextra -o $@ $(srcdir)/testdata/child32.c

testdata/child64: $(srcdir)/testdata/child32.c
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) -O2 -Wall -Wextra -o $@ $(srcdir)/testdata/child32.c

# ---- the programs: testdata/NAME.M.elf, then .aout ----

FIXTURE_CCLD = $(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(STUB_CC) $(FIXTURE_CFLAGS) \
		-DFIXTURE_MAGIC=$(FIXTURE_MAGIC_$(call fixture_kind,$@)) \
		$(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-$(call fixture_kind,$@).ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $<

testdata/%.omagic.elf: $(srcdir)/testdata/%.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-omagic.ld
	$(FIXTURE_CCLD)
testdata/%.nmagic.elf: $(srcdir)/testdata/%.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-nmagic.ld
	$(FIXTURE_CCLD)
testdata/%.zmagic.elf: $(srcdir)/testdata/%.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-zmagic.ld
	$(FIXTURE_CCLD)
testdata/%.qmagic.elf: $(srcdir)/testdata/%.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-qmagic.ld
	$(FIXTURE_CCLD)

# what dyn and its variants include besides fixture.h
$(filter testdata/dyn%,$(FIXTURE_ELFS)): $(srcdir)/testdata/dyn.c $(srcdir)/testdata/tiny.h \
	$(srcdir)/testdata/uselib_call.h
$(filter testdata/statedump-big%,$(FIXTURE_ELFS)): $(srcdir)/testdata/statedump.c
# and what olddyn.c's programs include
$(filter $(OLD_PROGS:%=testdata/%.%),$(FIXTURE_ELFS)): $(srcdir)/testdata/olddyn.c \
	$(srcdir)/testdata/oldcrt0.h $(srcdir)/testdata/crt0_sls.h \
	$(srcdir)/testdata/crt0_slack.h $(srcdir)/testdata/libentry.h \
	$(srcdir)/testdata/uselib_call.h $(srcdir)/testdata/tiny.h $(srcdir)/testdata/two.h

testdata/%.aout: testdata/%.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m $(call fixture_kind,$<) -s $< $@

testdata/%.stripped.aout: testdata/%.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m $(call fixture_kind,$<) $< $@

# ---- startup in other layouts: testdata/startup-SEG-ADDR.M.elf ----
# startup linked for kind M with text, data or bss (SEG: text, data, brk)
# padded to end at the hexadecimal ADDR, where the stub's choices change:
# brk on a page boundary below 64 KiB (hybrid, zero pages up to 64 KiB),
# 4 bytes below 64 KiB (hybrid, no zero pages), at 64 KiB and 4 bytes
# above (brk by prctl, with bss starting below 64 KiB), and the data or
# the text reaching past 64 KiB.  Linked twice: first to learn where the
# segment ends unpadded (nm), then with FIXTURE_TEXT_PAD, FIXTURE_DATA_PAD
# or FIXTURE_BSS_PAD set (see testdata/aout-M.ld).

FIXTURE_LAYOUTS = brk-f000 brk-fffc brk-10000 brk-10004 data-10100 text-10100
FIXTURE_LAYOUT_ELFS = \
	$(foreach m,$(FIXTURE_MAGICS),$(FIXTURE_LAYOUTS:%=testdata/startup-%.$(m).elf))
FIXTURE_ELFS += $(FIXTURE_LAYOUT_ELFS)
CLEANFILES += $(FIXTURE_LAYOUT_ELFS:=.base)
# the SEG and ADDR of testdata/startup-SEG-ADDR.M.elf
layout_part = $(word $(2),$(subst -, ,$(patsubst startup-%,%,$(notdir $(basename $(basename $(1)))))))
LAYOUT_SYMBOL_text = _etext
LAYOUT_SYMBOL_data = _edata
LAYOUT_SYMBOL_brk = _end
LAYOUT_PAD_text = FIXTURE_TEXT_PAD
LAYOUT_PAD_data = FIXTURE_DATA_PAD
LAYOUT_PAD_brk = FIXTURE_BSS_PAD
FIXTURE_LAYOUT_LINK = $(STUB_CC) $(FIXTURE_CFLAGS) \
	-DFIXTURE_MAGIC=$(FIXTURE_MAGIC_$(call fixture_kind,$@)) $(FIXTURE_LINKFLAGS)
FIXTURE_LAYOUT_INPUTS = -Wl,-T,$(srcdir)/testdata/aout-$(call fixture_kind,$@).ld \
	$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/startup.c

$(FIXTURE_LAYOUT_ELFS): testdata/startup-%.elf: $(srcdir)/testdata/startup.c \
		$(FIXTURE_DEPS) $(FIXTURE_MAGICS:%=$(srcdir)/testdata/aout-%.ld)
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(FIXTURE_LAYOUT_LINK) $(FIXTURE_LAYOUT_INPUTS) -o $@.base && \
	end=$$($(NM) $@.base | \
		$(AWK) '$$3 == "$(LAYOUT_SYMBOL_$(call layout_part,$@,1))" { print $$1 }') && \
	rm -f $@.base && pad=$$((0x$(call layout_part,$@,2) - 0x$$end)) && \
	if [ "$$pad" -lt 0 ]; then \
		echo "$@: $(call layout_part,$@,1) already ends at 0x$$end"; exit 1; \
	fi && \
	$(FIXTURE_LAYOUT_LINK) -Wl,--defsym=$(LAYOUT_PAD_$(call layout_part,$@,1))=$$pad \
		$(FIXTURE_LAYOUT_INPUTS) -o $@

# ---- the a.out shared libraries: testdata/[DIR/]NAME.so.1 ----

FIXTURE_LIB_DEPS = $(srcdir)/testdata/libtiny_jump.S $(srcdir)/testdata/libtiny.c \
	$(srcdir)/testdata/tiny.h $(srcdir)/testdata/aout-lib.ld
# $(call FIXTURE_LIB_CCLD,LIB_BASE,VERSION): names from tiny.h
FIXTURE_LIB_CCLD = $(AM_V_CCLD)$(MKDIR_P) $(@D) && \
	$(STUB_CC) $(FIXTURE_CFLAGS) -DTINY_LIB_BASE=$(1) -DTINY_VERSION=$(2) \
		$(FIXTURE_LINKFLAGS) -Wl,-T,$(srcdir)/testdata/aout-lib.ld -o $@ \
		$(srcdir)/testdata/libtiny_jump.S $(srcdir)/testdata/libtiny.c

testdata/libtiny.so.1.elf: $(FIXTURE_LIB_DEPS)
	$(call FIXTURE_LIB_CCLD,TINY_BASE,TINY_VERSION_1_2_3)
testdata/libclash.so.1.elf: $(FIXTURE_LIB_DEPS)
	$(call FIXTURE_LIB_CCLD,CLASH_BASE,TINY_VERSION_1_0_0)
testdata/old/libtiny.so.1.elf: $(FIXTURE_LIB_DEPS)
	$(call FIXTURE_LIB_CCLD,TINY_BASE,TINY_VERSION_1_1_0)
testdata/major2/libtiny.so.1.elf: $(FIXTURE_LIB_DEPS)
	$(call FIXTURE_LIB_CCLD,TINY_BASE,TINY_VERSION_2_0_0)
testdata/classic/libtiny.so.1.elf: $(FIXTURE_LIB_DEPS)
	$(call FIXTURE_LIB_CCLD,TINY_BASE,TINY_VERSION_1_2_3_CLASSIC)
testdata/liblow.so.1.elf: $(FIXTURE_LIB_DEPS)
	$(call FIXTURE_LIB_CCLD,LOW_BASE,TINY_VERSION_1_2_3)

testdata/libtwo.so.1.elf: $(srcdir)/testdata/libtwo_jump.S $(srcdir)/testdata/libtwo.c \
		$(srcdir)/testdata/two.h $(srcdir)/testdata/tiny.h \
		$(srcdir)/testdata/libentry.h $(srcdir)/testdata/aout-lib.ld
	$(AM_V_CCLD)$(MKDIR_P) $(@D) && \
	$(STUB_CC) $(FIXTURE_CFLAGS) $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-lib.ld -o $@ \
		$(srcdir)/testdata/libtwo_jump.S $(srcdir)/testdata/libtwo.c

testdata/%.so.1: testdata/%.so.1.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m qmagic -l -s $< $@

testdata/zmagic/%.so.1: testdata/%.so.1.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)$(MKDIR_P) testdata/zmagic && \
	./$(FIXTURE_MKAOUT) -m zmagic -l -s $< $@
