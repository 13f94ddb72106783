/* Runs a program with an empty argv (argc 0), which a shell cannot do. */
#include <stdio.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	char *none[] = { NULL };

	if (argc != 2) {
		fprintf(stderr, "usage: execv0 PROGRAM\n");
		return 2;
	}
	execve(argv[1], none, environ);
	perror(argv[1]);
	return 127;
}
