/* replay.c - `make test`'s side of fuzzing: runs every file of tests/fuzz/corpus/NAME through the
 * fuzz target NAME (linked in, built with gcc and the sanitizers, no clang needed), so that every
 * input a fuzzer once found stays handled. NAME is the part of the program's name after
 * "fuzz-replay-"; a directory given as the argument replaces the corpus. Prints one "ok" line per
 * file; a crash is the sanitizers' report and a non-zero exit. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_MAX (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *dir, const char *file)
{
	char path[4096];
	uint8_t *buf = malloc(REPLAY_MAX);
	size_t n;
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if (!buf || !(f = fopen(path, "rb"))) {
		free(buf);
		printf("not ok - %s: cannot read\n", path);
		return 1;
	}
	n = fread(buf, 1, REPLAY_MAX, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	printf("ok - fuzz corpus %s (%zu bytes) handled\n", path, n);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = strstr(argv[0], "fuzz-replay-");
	char dir[1024];
	struct dirent *e;
	int failed = 0, files = 0;
	DIR *d;

	if (!name && argc < 2) {
		fprintf(stderr, "usage: fuzz-replay-NAME [CORPUS_DIR]\n");
		return 2;
	}
	snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "");
	if (argc < 2)
		snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", name + strlen("fuzz-replay-"));
	if (!(d = opendir(dir))) {
		printf("not ok - fuzz corpus %s: missing\n", dir);
		return 1;
	}
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			failed |= replay(dir, e->d_name);
			files++;
		}
	closedir(d);
	if (files == 0)
		printf("not ok - fuzz corpus %s: empty\n", dir);
	return failed || files == 0;
}
