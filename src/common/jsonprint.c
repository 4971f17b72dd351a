/* jsonprint.c - JSON text of a cJSON tree whose numbers read back as the same doubles
 * (jsonstrict.h, jst_print). cJSON 1.7.15 prints a number with "%1.15g" whenever its re-read
 * value is within DBL_EPSILON of it, so 2^53-1 is written 9.00719925474099e+15 and DBL_MAX
 * 1.79769313486232e+308 (beyond DBL_MAX: refused by every reader). Such numbers are given to
 * cJSON as raw text of their shortest exact form; the others are printed by cJSON as before. */
#include "common/jsonstrict.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shortest of %.15g, %.16g, %.17g that reads back as d, with '.' whatever the locale. */
static void exact_text(double d, char *buf, size_t len)
{
	char point = localeconv()->decimal_point[0];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	for (char *p = buf; *p; p++)
		if (*p == point)
			*p = '.';
}

/* Whether cJSON would write the number v so that it reads back as another double. */
static int rounded(const cJSON *v)
{
	char buf[64];
	double d = v->valuedouble;

	if (!cJSON_IsNumber(v) || !isfinite(d) || d == (double)v->valueint)
		return 0;
	snprintf(buf, sizeof buf, "%1.15g", d);
	return strtod(buf, NULL) != d;
}

static int any_rounded(const cJSON *v)
{
	for (; v; v = v->next)
		if (rounded(v) || any_rounded(v->child))
			return 1;
	return 0;
}

/* Turns every number of v's list that cJSON would round into raw text of its exact form. */
static int fix(cJSON *v)
{
	for (; v; v = v->next) {
		if (rounded(v)) {
			char buf[64];
			cJSON *raw;

			exact_text(v->valuedouble, buf, sizeof buf);
			if (!(raw = cJSON_CreateRaw(buf)))
				return -1;
			v->type = cJSON_Raw | (v->type & cJSON_StringIsConst);
			v->valuestring = raw->valuestring;
			raw->valuestring = NULL;
			cJSON_Delete(raw);
		}
		if (fix(v->child) != 0)
			return -1;
	}
	return 0;
}

char *jst_print(const cJSON *v, int formatted)
{
	cJSON *copy;
	char *text = NULL;

	if (!v)
		return NULL;
	if (!rounded(v) && !any_rounded(v->child))
		return formatted ? cJSON_Print(v) : cJSON_PrintUnformatted(v);
	if ((copy = cJSON_Duplicate(v, 1)) && fix(copy) == 0)
		text = formatted ? cJSON_Print(copy) : cJSON_PrintUnformatted(copy);
	cJSON_Delete(copy);
	return text;
}
