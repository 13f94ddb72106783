/*
 * Batch mode, step 2: worker processes take the next entry from a shared
 * counter (so one slow file does not hold up a queue) and leave its result
 * in shared memory; this process reports each one as it is done.
 *
 * Workers are processes, not threads: libelf is not built thread-safe.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch_internal.h"

/* Takes the next entry nobody has taken; bt->n when there is none. */
static size_t take(const struct batch *bt, size_t *next)
{
	size_t i = __atomic_fetch_add(next, 1, __ATOMIC_RELAXED);

	return i < bt->n ? i : bt->n;
}

enum { NOT_DONE, DONE, REPORTED };

/*
 * Reports what the workers finished since the last look; with all, also
 * the entries no worker finished (one died: "did not finish").  *from is
 * the first entry not yet reported.
 */
static void report_done(struct batch *bt, uint8_t *done, size_t *from, int all)
{
	for (size_t i = *from; i < bt->n; i++) {
		uint8_t d = __atomic_load_n(&done[i], __ATOMIC_ACQUIRE);

		if (d == REPORTED || (d == NOT_DONE && !all))
			continue;
		batch_finished(bt, i);
		done[i] = REPORTED;
	}
	while (*from < bt->n && done[*from] == REPORTED)
		(*from)++;
}

/*
 * With -j N, N worker processes each take the next entry, convert it and
 * mark it done in shared memory; a converter that crashes takes only its
 * worker down.  This process looks at the marks ten times a second and
 * reports what is done, in order; the pipe, which only the workers hold
 * open, tells it when the last one has gone.  (Woken by a pipe write for
 * every file, it would take a processor from the workers on a machine
 * with N of them.)
 */
int batch_run_workers(struct batch *bt)
{
	int jobs = bt->b->jobs < 1 ? 1 : bt->b->jobs, pipefd[2];

	if ((size_t)jobs > bt->n)
		jobs = (int)(bt->n ? bt->n : 1);
	if (jobs == 1) {
		for (size_t i = 0; i < bt->n; i++) {
			batch_convert_entry(bt, i);
			batch_finished(bt, i);
		}
		return 0;
	}
	size_t shared_size = sizeof(size_t) + bt->n;
	size_t *next = mmap(NULL, shared_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (next == MAP_FAILED || pipe(pipefd) < 0)
		return -1;
	uint8_t *done = (uint8_t *)(next + 1); /* zero pages: NOT_DONE */
	fflush(NULL);
	pid_t pids[jobs], parent = getpid();
	int started = 0;
	for (int w = 0; w < jobs; w++) {
		pid_t pid = fork();

		if (pid < 0) /* out of processes: with the workers there are */
			break;
		if (pid == 0) {
			close(pipefd[0]);
			/* the batch killed (kill PID, not the group): stop too */
			if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
				_exit(1);
			for (size_t i; (i = take(bt, next)) < bt->n;) {
				batch_convert_entry(bt, i);
				__atomic_store_n(&done[i], DONE, __ATOMIC_RELEASE);
			}
			_exit(0);
		}
		pids[started++] = pid;
	}
	close(pipefd[1]);
	if (!started) { /* not even one: here, one after the other */
		close(pipefd[0]);
		for (size_t i; (i = take(bt, next)) < bt->n;) {
			batch_convert_entry(bt, i);
			batch_finished(bt, i);
		}
		munmap(next, shared_size);
		return 0;
	}
	jobs = started;
	for (size_t from = 0;;) {
		struct pollfd p = { pipefd[0], POLLIN, 0 };
		int r = poll(&p, 1, 100);

		if (r < 0 && errno != EINTR)
			break;
		report_done(bt, done, &from, 0);
		if (r > 0) { /* readable: the end, as the workers write nothing */
			char c;

			if (read(pipefd[0], &c, 1) <= 0)
				break;
		}
		if (r == 0)
			batch_progress(bt, 0);
	}
	close(pipefd[0]);
	int rc = 0;
	for (int w = 0; w < jobs; w++) {
		int status;

		if (waitpid(pids[w], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			rc = -1;
	}
	size_t from = 0;

	report_done(bt, done, &from, 1);
	munmap(next, shared_size);
	return rc;
}
