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
# Each fixture NAME (hello startup sigsegv forkexec) is linked for each
# a.out kind M (omagic nmagic zmagic qmagic) at the a.out addresses, with
# $(srcdir)/testdata/aout-M.ld, into testdata/NAME.M.elf; testdata/mkaout
# turns that into testdata/NAME.M.aout (with a symbol table), and
# hello.M.elf also into testdata/hello.M.stripped.aout (without one).
# testdata/child32 and testdata/child64 are ordinary glibc programs (i386
# and x86-64) for forkexec to run.
#
# The rules are written out one by one: automake -Wall refuses GNU make's
# %-pattern rules.

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

FIXTURE_SRCS = testdata/fixture.h testdata/fixture_start.S \
	testdata/hello.c testdata/startup.c testdata/sigsegv.c \
	testdata/forkexec.c testdata/child32.c \
	testdata/aout-omagic.ld testdata/aout-nmagic.ld \
	testdata/aout-zmagic.ld testdata/aout-qmagic.ld

FIXTURE_ELFS = \
	testdata/hello.omagic.elf testdata/startup.omagic.elf testdata/sigsegv.omagic.elf testdata/forkexec.omagic.elf \
	testdata/hello.nmagic.elf testdata/startup.nmagic.elf testdata/sigsegv.nmagic.elf testdata/forkexec.nmagic.elf \
	testdata/hello.zmagic.elf testdata/startup.zmagic.elf testdata/sigsegv.zmagic.elf testdata/forkexec.zmagic.elf \
	testdata/hello.qmagic.elf testdata/startup.qmagic.elf testdata/sigsegv.qmagic.elf testdata/forkexec.qmagic.elf
FIXTURE_AOUTS = \
	testdata/hello.omagic.aout testdata/startup.omagic.aout testdata/sigsegv.omagic.aout testdata/forkexec.omagic.aout testdata/hello.omagic.stripped.aout \
	testdata/hello.nmagic.aout testdata/startup.nmagic.aout testdata/sigsegv.nmagic.aout testdata/forkexec.nmagic.aout testdata/hello.nmagic.stripped.aout \
	testdata/hello.zmagic.aout testdata/startup.zmagic.aout testdata/sigsegv.zmagic.aout testdata/forkexec.zmagic.aout testdata/hello.zmagic.stripped.aout \
	testdata/hello.qmagic.aout testdata/startup.qmagic.aout testdata/sigsegv.qmagic.aout testdata/forkexec.qmagic.aout testdata/hello.qmagic.stripped.aout
FIXTURE_CHILDREN = testdata/child32 testdata/child64
FIXTURES = $(FIXTURE_ELFS) $(FIXTURE_AOUTS) $(FIXTURE_CHILDREN)

check_DATA = $(FIXTURES)
CLEANFILES += $(FIXTURES)
EXTRA_DIST += $(FIXTURE_SRCS) testdata/fixtures.mk tests/e2e-static.sh

testdata/child32: $(srcdir)/testdata/child32.c
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) -m32 -O2 -Wall -Wextra -o $@ $(srcdir)/testdata/child32.c

testdata/child64: $(srcdir)/testdata/child32.c
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) -O2 -Wall -Wextra -o $@ $(srcdir)/testdata/child32.c

# ---- OMAGIC (-DFIXTURE_MAGIC=0407) ----

testdata/hello.omagic.elf: $(srcdir)/testdata/hello.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-omagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0407 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-omagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/hello.c

testdata/hello.omagic.aout: testdata/hello.omagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m omagic -s testdata/hello.omagic.elf $@

testdata/startup.omagic.elf: $(srcdir)/testdata/startup.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-omagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0407 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-omagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/startup.c

testdata/startup.omagic.aout: testdata/startup.omagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m omagic -s testdata/startup.omagic.elf $@

testdata/sigsegv.omagic.elf: $(srcdir)/testdata/sigsegv.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-omagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0407 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-omagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/sigsegv.c

testdata/sigsegv.omagic.aout: testdata/sigsegv.omagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m omagic -s testdata/sigsegv.omagic.elf $@

testdata/forkexec.omagic.elf: $(srcdir)/testdata/forkexec.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-omagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0407 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-omagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/forkexec.c

testdata/forkexec.omagic.aout: testdata/forkexec.omagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m omagic -s testdata/forkexec.omagic.elf $@

testdata/hello.omagic.stripped.aout: testdata/hello.omagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m omagic testdata/hello.omagic.elf $@

# ---- NMAGIC (-DFIXTURE_MAGIC=0410) ----

testdata/hello.nmagic.elf: $(srcdir)/testdata/hello.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-nmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0410 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-nmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/hello.c

testdata/hello.nmagic.aout: testdata/hello.nmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m nmagic -s testdata/hello.nmagic.elf $@

testdata/startup.nmagic.elf: $(srcdir)/testdata/startup.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-nmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0410 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-nmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/startup.c

testdata/startup.nmagic.aout: testdata/startup.nmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m nmagic -s testdata/startup.nmagic.elf $@

testdata/sigsegv.nmagic.elf: $(srcdir)/testdata/sigsegv.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-nmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0410 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-nmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/sigsegv.c

testdata/sigsegv.nmagic.aout: testdata/sigsegv.nmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m nmagic -s testdata/sigsegv.nmagic.elf $@

testdata/forkexec.nmagic.elf: $(srcdir)/testdata/forkexec.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-nmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0410 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-nmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/forkexec.c

testdata/forkexec.nmagic.aout: testdata/forkexec.nmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m nmagic -s testdata/forkexec.nmagic.elf $@

testdata/hello.nmagic.stripped.aout: testdata/hello.nmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m nmagic testdata/hello.nmagic.elf $@

# ---- ZMAGIC (-DFIXTURE_MAGIC=0413) ----

testdata/hello.zmagic.elf: $(srcdir)/testdata/hello.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-zmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0413 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-zmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/hello.c

testdata/hello.zmagic.aout: testdata/hello.zmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m zmagic -s testdata/hello.zmagic.elf $@

testdata/startup.zmagic.elf: $(srcdir)/testdata/startup.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-zmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0413 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-zmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/startup.c

testdata/startup.zmagic.aout: testdata/startup.zmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m zmagic -s testdata/startup.zmagic.elf $@

testdata/sigsegv.zmagic.elf: $(srcdir)/testdata/sigsegv.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-zmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0413 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-zmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/sigsegv.c

testdata/sigsegv.zmagic.aout: testdata/sigsegv.zmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m zmagic -s testdata/sigsegv.zmagic.elf $@

testdata/forkexec.zmagic.elf: $(srcdir)/testdata/forkexec.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-zmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0413 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-zmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/forkexec.c

testdata/forkexec.zmagic.aout: testdata/forkexec.zmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m zmagic -s testdata/forkexec.zmagic.elf $@

testdata/hello.zmagic.stripped.aout: testdata/hello.zmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m zmagic testdata/hello.zmagic.elf $@

# ---- QMAGIC (-DFIXTURE_MAGIC=0314) ----

testdata/hello.qmagic.elf: $(srcdir)/testdata/hello.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-qmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0314 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-qmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/hello.c

testdata/hello.qmagic.aout: testdata/hello.qmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m qmagic -s testdata/hello.qmagic.elf $@

testdata/startup.qmagic.elf: $(srcdir)/testdata/startup.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-qmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0314 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-qmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/startup.c

testdata/startup.qmagic.aout: testdata/startup.qmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m qmagic -s testdata/startup.qmagic.elf $@

testdata/sigsegv.qmagic.elf: $(srcdir)/testdata/sigsegv.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-qmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0314 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-qmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/sigsegv.c

testdata/sigsegv.qmagic.aout: testdata/sigsegv.qmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m qmagic -s testdata/sigsegv.qmagic.elf $@

testdata/forkexec.qmagic.elf: $(srcdir)/testdata/forkexec.c $(FIXTURE_DEPS) $(srcdir)/testdata/aout-qmagic.ld
	$(AM_V_CCLD)$(MKDIR_P) testdata && \
	$(CC) $(FIXTURE_CFLAGS) -DFIXTURE_MAGIC=0314 $(FIXTURE_LINKFLAGS) \
		-Wl,-T,$(srcdir)/testdata/aout-qmagic.ld -o $@ \
		$(srcdir)/testdata/fixture_start.S $(srcdir)/testdata/forkexec.c

testdata/forkexec.qmagic.aout: testdata/forkexec.qmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m qmagic -s testdata/forkexec.qmagic.elf $@

testdata/hello.qmagic.stripped.aout: testdata/hello.qmagic.elf $(FIXTURE_MKAOUT)
	$(AM_V_GEN)./$(FIXTURE_MKAOUT) -m qmagic testdata/hello.qmagic.elf $@
