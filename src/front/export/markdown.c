/* markdown.c - `--format markdown`: GitHub markdown for a pull-request comment or a job summary
 * (markup.c). */
#include "front/export/exportint.h"

static int write_markdown_fleet(FILE *out, const struct export_fleet_input *in, char *err,
                        size_t errlen)
{
	return export_fleet_markup(out, in, 1, err, errlen);
}

static int write_markdown(FILE *out, const struct export_input *in, char *err, size_t errlen)
{
	return export_write_markup(out, in, 1, err, errlen);
}

const struct exporter export_markdown = {
    .name = "markdown",
    .summary = "GitHub markdown for a pull-request comment or a job summary",
    .flags = EXPORT_WARNINGS,
    .write = write_markdown,
    .write_fleet = write_markdown_fleet,
};
