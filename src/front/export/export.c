/* export.c - the registry of exporters (export.h). Adding a format: a file of its own in this
 * folder that defines a `const struct exporter`, and one line in the table below. */
#include "front/export/export.h"

#include <string.h>

static const struct exporter *const exporters[] = {&export_html, &export_svg, &export_bmf,
                                                   &export_gab};

const struct exporter *export_at(size_t i)
{
	return i < sizeof exporters / sizeof exporters[0] ? exporters[i] : NULL;
}

const struct exporter *export_find(const char *name)
{
	for (size_t i = 0; export_at(i); i++)
		if (strcmp(exporters[i]->name, name) == 0)
			return exporters[i];
	return NULL;
}
