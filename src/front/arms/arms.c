/* arms.c - the table of arm kinds and their modes, and what is asked of them (arms.h). */
#include "front/arms/arms.h"

#include <stdio.h>
#include <string.h>

static const struct arm_kind_ops *const kinds[] = {&arm_kind_driver, &arm_kind_configured,
                                                   &arm_kind_command, &arm_kind_program};

#define NKINDS (sizeof kinds / sizeof kinds[0])

const struct arm_kind_ops *const *arm_kinds(size_t *n)
{
	*n = NKINDS;
	return kinds;
}

const struct arm_kind_ops *arm_kind_find(const char *name)
{
	for (size_t i = 0; name && i < NKINDS; i++)
		if (strcmp(kinds[i]->name, name) == 0)
			return kinds[i];
	return NULL;
}

int arm_kind_has(const struct arm_kind_ops *k, unsigned flags)
{
	return k && (k->flags & flags) == flags;
}

int arm_probed(const struct arm_kind_ops *k, const void *data)
{
	return arm_kind_has(k, ARM_KIND_PROBED) || (k && k->proof && k->proof(data));
}

/* Whether kinds[i] is the first kind of its mode. */
static int first_of_mode(size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (kinds[j]->doc_mode == kinds[i]->doc_mode)
			return 0;
	return 1;
}

const struct arm_mode *arm_mode_find(const char *mode)
{
	for (size_t i = 0; mode && i < NKINDS; i++)
		if (strcmp(kinds[i]->doc_mode->mode, mode) == 0)
			return kinds[i]->doc_mode;
	return NULL;
}

const char *arm_mode_list(char *buf, size_t len)
{
	size_t k = 0, n = 0, m = 0;

	for (size_t i = 0; i < NKINDS; i++)
		m += first_of_mode(i);
	buf[0] = 0;
	for (size_t i = 0; i < NKINDS && k < len; i++)
		if (first_of_mode(i)) {
			k += (size_t)snprintf(buf + k, len - k, "%s\"%s\"",
			                      n == 0 ? "" : n + 1 == m ? " or " : ", ",
			                      kinds[i]->doc_mode->mode);
			n++;
		}
	return buf;
}
