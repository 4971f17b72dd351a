/* utf8.c - well-formed UTF-8 (utf8.h). */
#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	int len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	/* the second byte's range excludes overlong forms, surrogates and code points > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (int k = 1; k < len; k++) {
		if ((size_t)k >= n)
			return -1;
		if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xbf))
			return 0;
	}
	return len;
}

size_t utf8_first_bad(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		int k;
		if (u[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_seq(u + i, n - i)) <= 0)
			return i;
		i += (size_t)k;
	}
	return n;
}

char *utf8_fix(char *text)
{
	size_t n, bad, o = 0;
	char *out;

	if (!text)
		return NULL;
	n = strlen(text);
	if ((bad = utf8_first_bad(text, n)) == n)
		return text;
	/* each bad byte becomes 3 */
	if (!(out = malloc(3 * n + 1))) {
		free(text);
		return NULL;
	}
	for (size_t i = 0; i < n;) {
		int k = utf8_seq((const unsigned char *)text + i, n - i);
		if (k > 0) {
			memcpy(out + o, text + i, (size_t)k);
			o += (size_t)k;
			i += (size_t)k;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	free(text);
	return out;
}

const char *utf8_quote(char *buf, size_t len, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "(null)");
	size_t o = 0, room = len > 8 ? len - 8 : 0;

	for (size_t i = 0; u[i];) {
		int k = u[i] >= 0x20 && u[i] < 0x7f ? 1
		        : u[i] >= 0x80              ? utf8_seq(u + i, strnlen((const char *)u + i, 4))
		                                    : 0;
		size_t need = k > 0 ? (size_t)k : 4;
		if (o + need > room) {
			memcpy(buf + o, "...", 4);
			return buf;
		}
		if (k > 0)
			memcpy(buf + o, u + i, (size_t)k);
		else
			snprintf(buf + o, 5, "\\x%02x", u[i]);
		o += need;
		i += k > 0 ? (size_t)k : 1;
	}
	buf[o] = '\0';
	return buf;
}
