/* export.c - the registry of exporters (export.h). Adding a format: a file of its own in this
 * folder, named after it, that defines a `const struct exporter`, and one line in the table
 * below; usage texts, error messages and bash completion list the formats from this table. */
#include "front/export/exportint.h"

#include <string.h>

static const struct exporter *const exporters[] = {
    &export_table, &export_brief, &export_markdown, &export_json, &export_csv,
    &export_html,  &export_svg,   &export_bmf,      &export_gab,
};

#define NEXPORTERS (sizeof exporters / sizeof exporters[0])

const struct exporter *export_at(size_t i)
{
	return i < NEXPORTERS ? exporters[i] : NULL;
}

const struct exporter *export_find(const char *name)
{
	for (size_t i = 0; i < NEXPORTERS; i++)
		if (strcmp(exporters[i]->name, name) == 0)
			return exporters[i];
	return NULL;
}

const char *export_names(char *buf, size_t len, const char *sep, const char *last)
{
	size_t k = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NEXPORTERS && k < len; i++) {
		const char *s = i == 0 ? "" : i + 1 == NEXPORTERS ? last : sep;
		int w = snprintf(buf + k, len - k, "%s%s", s, exporters[i]->name);
		if (w < 0)
			break;
		k += (size_t)w;
	}
	return buf;
}
