/*
 * dyn: a dynamically linked a.out program of the libc 4 kind, without
 * libc and without ld.so.  Its data holds a struct libentry per a.out
 * shared library it needs, as the DLL tools' crt0 and ld.so 1.x used them
 * (and as aout2elf's libs_scan finds them); its "crt0" (load_libraries
 * below) does what ld.so did for each: uselib("/usr/lib/NAME") (i386
 * system call 86, made as ld.so made it: uselib_call.h) and compare the version word at the start of the jump
 * table with the one it needs.  Then it calls libtiny.so.1 through the
 * jump table (tiny.h), checks what comes back, and prints
 *
 *	dyn: hello from libtiny
 *
 * (the second half written by the library from its own data) and exits 0.
 * A uselib() that fails or a wrong version: one line on stderr, exit 127,
 * as crt0 and ld.so did; a wrong result: one line on stderr, exit 1.
 *
 * DYN_LIBDIR=DIR in the environment makes the path DIR/NAME, as ld.so's
 * LD_LIBRARY_PATH did.  With DYN_USELIB_FAULT set, dyn first calls
 * uselib() with a pointer it cannot read, which must fail with EFAULT;
 * with DYN_USELIB_TWICE, it calls uselib() again at the end, which must
 * give it the library's data as the file has it and zero bss.
 *
 * With arguments, dyn ends by exec'ing them (argv[1] with argv + 1):
 * with DYN_SIGSYS_IGN set, after setting SIGSYS to SIG_IGN, which the
 * new program must inherit; with DYN_EXEC_BLOCKED set, after blocking
 * every signal (as a daemon re-executing itself from a handler whose
 * sa_mask is full does), which must not stop the exec.
 *
 * With DYN_LIB_BRK set, the library's code moves brk (tiny_brk, as libc
 * 4's sbrk did): brk(0) is the program's exact brk; it grows, goes past
 * the next 64 KiB boundary and back, and brk(0) says so each time.  The
 * stub traps brk only from the image and the libraries (docs/security.md), so this
 * is where a wrong library range shows.
 *
 * DYN_VARIANT picks the libraries (dynclash.c and dynmissing.c set it):
 *   0  dyn:        libtiny.so.1, 1.2.0 or later
 *   1  dynclash:   libtiny.so.1 and libclash.so.1, which overlap
 *   2  dynmissing: libtiny.so.1 and libmissing.so.1, which nobody has
 */
#include "fixture.h"
#include "tiny.h"
#ifndef DYN_GENERIC_USELIB
#include "uselib_call.h"
#endif

#ifndef DYN_VARIANT
#define DYN_VARIANT 0
#endif

#define SYS_uselib 86

/*
 * uselib() as ld.so made it (uselib_call.h), which the conversion turns
 * into a call of the stub; DYN_GENERIC_USELIB (dynbig) makes it through
 * the generic sys1(), which only the stub's trap can answer.
 */
static long dyn_uselib(const char *path)
{
#ifdef DYN_GENERIC_USELIB
	/* a number the compiler cannot see: no movl $86, %eax */
	static volatile long nr = SYS_uselib;

	return sys1(nr, (long)path);
#else
	return uselib_call(path);
#endif
}

/* the libc 4 / ld.so 1.x record of one needed library */
struct libentry {
	const char *name;	/* "libtiny.so.1": uselib() is given a path to it */
	const char *tools;	/* the DLL tools that built the stubs */
	uint32_t jump_table;	/* the library's jump table: its version word */
	uint32_t version;	/* major << 16 | minor, the oldest that will do */
};

#define DLL_TOOLS "DLL Jump 4.5pl26"

/* in .data, where ld.so (and aout2elf) look for them */
__attribute__((used)) struct libentry dyn_libentries[] = {
	{ "libtiny.so.1", DLL_TOOLS, TINY_JUMP_TABLE(TINY_BASE), TINY_VERSION_1_2_0 },
#if DYN_VARIANT == 1
	{ "libclash.so.1", DLL_TOOLS, TINY_JUMP_TABLE(CLASH_BASE), TINY_VERSION_1_0_0 },
#elif DYN_VARIANT == 2
	{ "libmissing.so.1", DLL_TOOLS, 0x6f000020u, 0x10000u },
#endif
};
#define DYN_NLIBS (sizeof dyn_libentries / sizeof dyn_libentries[0])

/* the slots of libtiny.so.1, at their fixed addresses */
#define TINY_FN(type, k) ((type)TINY_SLOT(TINY_BASE, k))
#define call_greet TINY_FN(int (*)(int), TINY_SLOT_GREET)
#define call_count TINY_FN(int (*)(void), TINY_SLOT_COUNT)
#define call_bss_sum TINY_FN(uint32_t (*)(void), TINY_SLOT_BSS_SUM)
#define call_bss_poke TINY_FN(uint32_t (*)(uint32_t, uint32_t), TINY_SLOT_BSS_POKE)
#define call_message TINY_FN(const char *(*)(void), TINY_SLOT_MESSAGE)
#define call_brk TINY_FN(long (*)(uint32_t), TINY_SLOT_BRK)

/* N_BSSADDR + a_bss, written here by mkaout */
uint32_t aout_expected_brk = 0xdeadbeefu;

static int bad(const char *what, uint32_t got);

/* brk moved by the library's code: 0, or the exit status */
static int library_brk(void)
{
	uint32_t b = aout_expected_brk, past = (b | 0xffffu) + 1 + 0x2000u, r;

	if ((r = (uint32_t)call_brk(0)) != b)
		return bad("brk(0) from the library is not N_BSSADDR + a_bss", r);
	if ((r = (uint32_t)call_brk(b + 100)) != b + 100)
		return bad("brk grown by 100 from the library", r);
	if ((r = (uint32_t)call_brk(past)) != past)
		return bad("brk grown past the next 64 KiB from the library", r);
	((volatile char *)past)[-1] = 1;
	if ((r = (uint32_t)call_brk(b)) != b)
		return bad("brk given back from the library", r);
	if ((r = (uint32_t)call_brk(0)) != b)
		return bad("brk(0) from the library afterwards", r);
	return 0;
}

static void put_version(int fd, uint32_t v)
{
	fx_putdec(fd, v >> 16);
	fx_puts(fd, ".");
	fx_putdec(fd, (v & 0xffff) / 100);
	fx_puts(fd, ".");
	fx_putdec(fd, (v & 0xffff) % 100);
}

/* The value of NAME in the environment, or NULL */
static const char *get_env(const uint32_t *entry_sp, const char *name)
{
	/* the a.out frame: argc, argv, envp (create_aout_tables) */
	char *const *envp = (char *const *)entry_sp[2];
	size_t n = fx_strlen(name);

	for (; *envp; envp++) {
		size_t k = 0;

		while (k < n && (*envp)[k] == name[k])
			k++;
		if (k == n && (*envp)[n] == '=')
			return *envp + n + 1;
	}
	return NULL;
}

/* What crt0 and ld.so did before main: 0, or the exit status */
static int load_libraries(const uint32_t *entry_sp)
{
	const char *dir = get_env(entry_sp, "DYN_LIBDIR");

	if (!dir)
		dir = "/usr/lib";
	if (get_env(entry_sp, "DYN_USELIB_FAULT")) {
		long r = dyn_uselib((const char *)16);

		if (r != -14) {
			fx_puts(2, "dyn: uselib of an unreadable path: not EFAULT but ");
			fx_putdec(2, (uint32_t)-r);
			fx_puts(2, "\n");
			return 1;
		}
	}
	for (uint32_t i = 0; i < DYN_NLIBS; i++) {
		const struct libentry *e = &dyn_libentries[i];
		char path[512];
		size_t d = fx_strlen(dir), n = fx_strlen(e->name);

		if (d + 1 + n + 1 > sizeof path) {
			fx_puts(2, "dyn: DYN_LIBDIR is too long\n");
			return 127;
		}
		memcpy(path, dir, d);
		path[d] = '/';
		memcpy(path + d + 1, e->name, n + 1);

		long r = dyn_uselib(path);
		if (r != 0) {
			fx_puts(2, "dyn: can't load library '");
			fx_puts(2, path);
			fx_puts(2, "': uselib failed with error ");
			fx_putdec(2, (uint32_t)-r);
			fx_puts(2, "\n");
			return 127;
		}
		uint32_t have = *(volatile uint32_t *)e->jump_table;
		if (have >> 16 != e->version >> 16 ||
		    (have & 0xffff) < (e->version & 0xffff)) {
			fx_puts(2, "dyn: ");
			fx_puts(2, path);
			fx_puts(2, " is version ");
			put_version(2, have);
			fx_puts(2, ", needs ");
			put_version(2, e->version);
			fx_puts(2, "\n");
			return 127;
		}
	}
	return 0;
}

static int bad(const char *what, uint32_t got)
{
	fx_puts(2, "dyn: ");
	fx_puts(2, what);
	fx_puts(2, ": got ");
	fx_puthex(2, got);
	fx_puts(2, "\n");
	return 1;
}

int fixture_main(uint32_t *entry_sp)
{
	uint32_t r;
	int st = load_libraries(entry_sp);

	if (st)
		return st;

	fx_puts(1, "dyn: ");
	r = (uint32_t)call_greet(1); /* "hello from libtiny\n" */
	if (r != sizeof TINY_GREETING - 1)
		return bad("tiny_greet did not write its line", r);

	/* initialised data: at the library's address, as the file has it */
	const char *msg = call_message();
	if ((uint32_t)msg < TINY_BASE + 0x1000u || (uint32_t)msg >= TINY_BASE + 0x2000u)
		return bad("tiny_message is not in the library's data page", (uint32_t)msg);
	if (!fx_streq(msg, TINY_GREETING))
		return bad("tiny_message is not the greeting", (uint32_t)msg);
	if ((r = (uint32_t)call_count()) != TINY_COUNTER_START + 1)
		return bad("first tiny_count", r);
	if ((r = (uint32_t)call_count()) != TINY_COUNTER_START + 2)
		return bad("second tiny_count (data not writable?)", r);

	/* bss: zero pages past the data, writable */
	if ((r = call_bss_sum()) != 0)
		return bad("tiny_bss_sum of the fresh bss", r);
	if ((r = call_bss_poke(0, 5)) != 0 ||
	    (r = call_bss_poke(TINY_BSS_WORDS - 1, 7)) != 0)
		return bad("tiny_bss_poke found nonzero bss", r);
	if ((r = call_bss_sum()) != 12)
		return bad("tiny_bss_sum after two pokes", r);
	if ((r = call_bss_poke(TINY_BSS_WORDS - 1, 0)) != 7)
		return bad("tiny_bss_poke read back", r);

	/* uselib() again: the kernel mapped it afresh, data and bss */
	if (get_env(entry_sp, "DYN_USELIB_TWICE")) {
		if ((st = load_libraries(entry_sp)))
			return st;
		if ((r = (uint32_t)call_count()) != TINY_COUNTER_START + 1)
			return bad("tiny_count after uselib() again (data not fresh)", r);
		if ((r = call_bss_sum()) != 0)
			return bad("tiny_bss_sum after uselib() again (bss not zero)", r);
	}

	if (get_env(entry_sp, "DYN_LIB_BRK") && (st = library_brk()))
		return st;

	char **argv = (char **)entry_sp[1];
	if (entry_sp[0] > 1) {
		uint32_t all[2] = { 0xffffffffu, 0xffffffffu };
		struct k_sigaction ign = { (void (*)(int, void *, void *))1 /* SIG_IGN */, 0, 0,
					 { 0, 0 } };

		if (get_env(entry_sp, "DYN_SIGSYS_IGN") &&
		    (r = (uint32_t)sys_rt_sigaction(31 /* SIGSYS */, &ign, NULL)))
			return bad("setting SIGSYS to SIG_IGN", r);
		if (get_env(entry_sp, "DYN_EXEC_BLOCKED") &&
		    (r = (uint32_t)sys4(SYS_rt_sigprocmask, 0 /* SIG_BLOCK */, (long)all, 0, 8)))
			return bad("blocking every signal", r);
		r = (uint32_t)sys_execve(argv[1], argv + 1, (char *const *)entry_sp[2]);
		return bad("execve", r);
	}
	return 0;
}
