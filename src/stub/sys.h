/*
 * The i386 Linux kernel's interface as the stub uses it, with no libc to
 * say it: system call numbers, errno values, flags, and the layouts of
 * what the kernel reads and writes (sigaction, ucontext, siginfo, BPF,
 * PR_SET_MM_MAP, stat64, the auxiliary vector).
 */
#ifndef AOUT2ELF_STUB_SYS_H
#define AOUT2ELF_STUB_SYS_H

#include <stdint.h>

/* ---- system call numbers (arch/x86/entry/syscalls/syscall_32.tbl) ---- */
#define NR_read 3
#define NR_write 4
#define NR_open 5
#define NR_close 6
#define NR_execve 11
#define NR_lseek 19
#define NR_getpid 20
#define NR_access 33
#define NR_kill 37
#define NR_brk 45
#define NR_signal 48
#define NR_sigaction 67
#define NR_sgetmask 68
#define NR_ssetmask 69
#define NR_sigsuspend 72
#define NR_readlink 85
#define NR_uselib 86
#define NR_readdir 89
#define NR_munmap 91
#define NR_mprotect 125
#define NR__llseek 140
#define NR_sigprocmask 126
#define NR_personality 136
#define NR_mremap 163
#define NR_prctl 172
#define NR_rt_sigaction 174
#define NR_rt_sigprocmask 175
#define NR_rt_sigsuspend 179
#define NR_capget 184
#define NR_capset 185
#define NR_ugetrlimit 191
#define NR_mmap2 192
#define NR_stat64 195
#define NR_fstat64 197
#define NR_getuid32 199
#define NR_mincore 218
#define NR_getdents64 220
#define NR_madvise 219
#define NR_exit_group 252
#define NR_process_vm_readv 347
#define NR_seccomp 354
#define NR_faccessat2 439

/* ---- errno values, returned negated ---- */
#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define ENOEXEC 8
#define ENOMEM 12
#define EACCES 13
#define EFAULT 14
#define EEXIST 17
#define EINVAL 22
#define ENFILE 23
#define EMFILE 24
#define ENAMETOOLONG 36
#define ENOSYS 38
#define EOVERFLOW 75

/* ---- memory ---- */
#define MAP_PRIVATE 0x02
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000
#define MREMAP_MAYMOVE 1
#define MREMAP_FIXED 2
#define MREMAP_DONTUNMAP 4
#define MADV_DONTNEED 4
#define RLIMIT_DATA 2

/* ---- files ---- */
#define O_RDONLY 0
#define O_NONBLOCK 04000
#define O_CLOEXEC 0x80000
#define PATH_MAX 4096 /* with its NUL, the longest path getname takes */
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#define X_OK 1
#define R_OK 4
#define AT_EACCESS 0x200
#define AT_EMPTY_PATH 0x1000
#define S_IFMT 0170000
#define S_IFREG 0100000

/* struct iovec, for process_vm_readv */
struct iovec {
	uint32_t base, len;
};

/* i386 struct stat64 (96 bytes), as 32-bit words */
#define STAT64_WORDS 24
#define STAT64_DEV 0   /* st_dev: words 0 and 1 */
#define STAT64_MODE 4  /* st_mode */
#define STAT64_INO 22  /* st_ino: words 22 and 23 */

/* ---- prctl, personality ---- */
#define PR_SET_DUMPABLE 4
#define PR_GET_SECCOMP 21
#define PR_SET_MM 35
#define PR_SET_MM_MAP 14
#define PR_SET_MM_MAP_SIZE 15
#define PR_SET_NO_NEW_PRIVS 38
#define PR_SET_SYSCALL_USER_DISPATCH 59
#define PR_SYS_DISPATCH_OFF 0
#define PR_SYS_DISPATCH_ON 1
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#define PER_MMAP_PAGE_ZERO 0x0100000

/* PR_SET_MM_MAP's struct as a 64-bit kernel has it */
struct prctl_mm_map {
	uint64_t start_code, end_code, start_data, end_data;
	uint64_t start_brk, brk, start_stack;
	uint64_t arg_start, arg_end, env_start, env_end;
	uint64_t auxv;
	uint32_t auxv_size, exe_fd;
};

/*
 * The same as an i386 kernel has it: its auxv is a 4-byte pointer, so the
 * struct is 100 bytes, not the 104 of a 64-bit kernel, and each kernel
 * takes only its own size (EINVAL otherwise, as for a refused value).
 */
struct prctl_mm_map_i386 {
	uint64_t fields[11];
	uint32_t auxv, auxv_size, exe_fd;
};
_Static_assert(sizeof(struct prctl_mm_map) == 104, "the 64-bit kernel's layout");
_Static_assert(sizeof(struct prctl_mm_map_i386) == 100, "the i386 kernel's layout");

/* ---- capabilities: capget and capset, version 3 (two words each) ---- */
#define LINUX_CAPABILITY_VERSION_3 0x20080522u

struct cap_header {
	uint32_t version;
	int32_t pid; /* 0: this process */
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

/* ---- the auxiliary vector ---- */
#define AT_NULL 0
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_PLATFORM 15
#define AT_SECURE 23
#define AT_BASE_PLATFORM 24
#define AT_RANDOM 25
#define AT_EXECFN 31
#define AT_SYSINFO 32
#define AT_SYSINFO_EHDR 33

/* ---- ELF32, as far as the vDSO is read ---- */
#define ELF_MAGIC 0x464c457fu /* "\177ELF", little-endian */
#define ELF_EI_CLASS 4
#define ELF_CLASS32 1
#define ELF_E_PHOFF 28
#define ELF_E_PHNUM 44
#define ELF_PHDR_SIZE 32
#define ELF_P_TYPE 0
#define ELF_P_VADDR 8
#define ELF_P_MEMSZ 20
#define ELF_PT_LOAD 1

/* ---- signals ---- */
#define SIGSYS 31
#define SIGSYS_BIT (1u << (SIGSYS - 1))
#define SIG_DFL 0u
#define SIG_IGN 1u
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define SA_SIGINFO 0x4
#define SA_RESTORER 0x04000000
#define SA_NODEFER 0x40000000
#define SA_RESETHAND 0x80000000u
#define SS_AUTODISARM (1u << 31)
#define EFLAGS_TF 0x100u

/* rt_sigaction's struct; sigsetsize 8 */
struct k_sigaction {
	uint32_t handler, flags, restorer, mask[2];
};

/* sigaction's (the old call's) struct */
struct k_old_sigaction {
	uint32_t handler, mask, flags, restorer;
};

/* siginfo: si_code's values for SIGSYS, and where its fields lie */
#define SI_USER 0
#define SYS_SECCOMP 1       /* a seccomp filter's trap */
#define SYS_USER_DISPATCH 2 /* a call dispatched to user space */
#define SIGINFO_WORDS 32
#define SIGINFO_CODE 8     /* si_code, bytes */
#define SIGINFO_SYSCALL 16 /* si_syscall, bytes */

/*
 * i386 ucontext: uc_flags, uc_link, uc_stack (sp, flags, size), then
 * uc_mcontext (struct sigcontext, SIGCONTEXT_WORDS words), then uc_sigmask.
 */
#define UC_STACK_FLAGS 12
#define UC_MCONTEXT 20
#define UC_SIGMASK 108
#define SIGCONTEXT_WORDS 22

/* struct sigcontext, word by word: the registers at the trap */
enum { REG_ES = 2, REG_DS = 3, REG_EDI = 4, REG_ESI = 5, REG_EBP = 6,
       REG_EBX = 8, REG_EDX = 9, REG_ECX = 10, REG_EAX = 11, REG_EIP = 14,
       REG_CS = 15, REG_EFL = 16, REG_SS = 18, REG_FPSTATE = 19 };

static inline uint32_t *uc_gregs(void *ucontext)
{
	return (uint32_t *)((char *)ucontext + UC_MCONTEXT);
}

/* ---- seccomp and its BPF ---- */
#define SECCOMP_SET_MODE_FILTER 1
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW 4
#define SECCOMP_RET_TRAP 0x00030000u
#define SECCOMP_RET_ALLOW 0x7fff0000u
#define AUDIT_ARCH_I386 0x40000003u

/* struct seccomp_data, bytes */
#define SECCOMP_DATA_NR 0
#define SECCOMP_DATA_ARCH 4
#define SECCOMP_DATA_IP 8 /* the low word of the 64-bit field */
#define SECCOMP_DATA_ARG0 16

#define BPF_LD_W_ABS 0x20
#define BPF_JEQ_K 0x15
#define BPF_JGT_K 0x25
#define BPF_JGE_K 0x35
#define BPF_RET_K 0x06

struct sock_filter {
	uint16_t code;
	uint8_t jt, jf;
	uint32_t k;
};

struct sock_fprog {
	uint16_t len;
	struct sock_filter *filter;
};

#endif
