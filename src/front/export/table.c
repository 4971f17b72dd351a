/* table.c - `--format table` (the default): aligned columns for a terminal (markup.c). */
#include "front/export/exportint.h"

static int write_table_fleet(FILE *out, const struct export_fleet_input *in, char *err,
                        size_t errlen)
{
	return export_fleet_markup(out, in, 0, err, errlen);
}

static int write_table(FILE *out, const struct export_input *in, char *err, size_t errlen)
{
	return export_write_markup(out, in, 0, err, errlen);
}

const struct exporter export_table = {
    .name = "table",
    .summary = "aligned columns for a terminal (the default)",
    .flags = EXPORT_WARNINGS,
    .write = write_table,
    .write_fleet = write_table_fleet,
};
