/* progress.c - the terminal side of bench progress (engine.h, "Progress"). */
#include "front/engine/engine.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define DEFAULT_WIDTH 80

enum progress_mode progress_mode_for(int quiet, int fd)
{
	const char *term = getenv("TERM");

	if (quiet)
		return PROGRESS_NONE;
	if (isatty(fd) && term && *term && strcmp(term, "dumb") != 0)
		return PROGRESS_TTY;
	return PROGRESS_LINES;
}

size_t progress_width(int fd)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	char *end;
	long v;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (env && *env) {
		v = strtol(env, &end, 10);
		if (*end == '\0' && v >= 20 && v <= 10000)
			return (size_t)v;
	}
	return DEFAULT_WIDTH;
}

void progress_fit(char *line, size_t width)
{
	size_t max = width > 1 ? width - 1 : 0;

	if (strlen(line) <= max)
		return;
	if (max >= 3) {
		memcpy(line + max - 3, "...", 3);
		line[max] = '\0';
	} else {
		line[max] = '\0';
	}
}
