# aout2elf.mk - turn an SDK's a.out tools into ELF programs.
#
# Include it from a makefile, list the tools, and make `aout2elf-all`:
#
#	include /usr/share/aout2elf/aout2elf.mk
#	AOUT2ELF_PROGRAMS = mac aln
#	all: aout2elf-all
#
# For each NAME it makes NAME.elf from NAME-a.out (the Atari Jaguar SDK's
# layout: jaguar/bin/linux/NAME-a.out next to a wrapper script NAME, which
# can then run "$0.elf").  A NAME.elf newer than its NAME-a.out is left alone.

AOUT2ELF ?= aout2elf
AOUT2ELF_FLAGS ?= -q
AOUT2ELF_PROGRAMS ?=

%.elf: %-a.out
	$(AOUT2ELF) $(AOUT2ELF_FLAGS) -f $< $@

# Expanded when used, so AOUT2ELF_PROGRAMS may be set after the include.
.SECONDEXPANSION:
aout2elf-all: $$(addsuffix .elf,$$(AOUT2ELF_PROGRAMS))

aout2elf-clean:
	rm -f $(addsuffix .elf,$(AOUT2ELF_PROGRAMS))

.PHONY: aout2elf-all aout2elf-clean
