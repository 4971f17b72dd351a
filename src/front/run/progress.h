/* progress.h - how `allocab bench` and `allocab calibrate` show progress on stderr: on a terminal
 * one line rewritten in place and cut to the terminal's width; elsewhere (a CI log, a pipe, a file,
 * TERM=dumb) one plain line per finished round; nothing with --quiet. No colour is used. */
#ifndef ALLOCAB_PROGRESS_H
#define ALLOCAB_PROGRESS_H

#include <stddef.h>

enum progress_mode { PROGRESS_NONE, PROGRESS_TTY, PROGRESS_LINES };

/* The mode for file descriptor fd: none when quiet; TTY when fd is a terminal and $TERM is set
 * and not "dumb"; plain lines otherwise. */
enum progress_mode progress_mode_for(int quiet, int fd);

/* Columns of the terminal on fd (TIOCGWINSZ), else $COLUMNS when it is a number in 20..10000,
 * else 80. */
size_t progress_width(int fd);

/* Cuts the NUL-terminated line so that it takes at most width - 1 columns (the last column is
 * left free so that the terminal does not wrap); a cut line ends in "...". The line is ASCII. */
void progress_fit(char *line, size_t width);

#endif
