/* utf8.h - well-formed UTF-8 (Unicode 15, table 3-7: no overlong forms, no encoded surrogates,
 * nothing above U+10FFFF): checked where allocab reads text, made so where it writes JSON, and kept
 * whole where it quotes a name in a message. */
#ifndef ALLOCAB_UTF8_H
#define ALLOCAB_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the well-formed sequence at s[0..n), n >= 1; 0 when s[0..n) starts with
 * a byte or sequence that is not one; -1 when the n bytes are a valid start of one that goes on
 * past s[n-1]. */
int utf8_seq(const unsigned char *s, size_t n);

/* Offset of the first byte of s[0..n) that does not start a well-formed sequence (a sequence cut
 * by n included), or n. */
size_t utf8_first_bad(const char *s, size_t n);

/* text (NUL-terminated, malloc'd; may be NULL) made well-formed: every byte that does not start a
 * well-formed sequence replaced by U+FFFD. Returns text itself when it was already, else a new
 * malloc'd copy and text is freed; NULL when text was NULL or memory ran out (text freed). */
char *utf8_fix(char *text);

/* s (may be NULL: "(null)") as one line for a message, into buf (len >= 8 bytes): cut at about
 * len - 8 bytes (at a sequence's end, "..." appended), control characters, DEL and bytes that
 * are not UTF-8 shown as \xNN. Returns buf. */
const char *utf8_quote(char *buf, size_t len, const char *s);

#endif
