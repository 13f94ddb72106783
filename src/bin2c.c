/* Build tool: turns the linked stub into a C array, so no binary is checked in. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	FILE *in;
	int c;
	unsigned long n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: bin2c NAME FILE\n");
		return 2;
	}
	in = fopen(argv[2], "rb");
	if (!in) {
		perror(argv[2]);
		return 1;
	}
	printf("/* Generated from %s by bin2c; do not edit. */\n", argv[2]);
	printf("#include <stddef.h>\n#include \"stub_image.h\"\n");
	printf("const unsigned char %s[] = {", argv[1]);
	while ((c = getc(in)) != EOF)
		printf("%s0x%02x,", n++ % 12 ? " " : "\n\t", c);
	printf("\n};\nconst size_t %s_size = %lu;\n", argv[1], n);
	if (ferror(in) || fclose(in)) {
		perror(argv[2]);
		return 1;
	}
	return 0;
}
