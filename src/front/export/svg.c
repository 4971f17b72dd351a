/* svg.c - `--format svg`: the forest plot of every speedup with its interval, alone, as an SVG
 * document (charts.c). */
#include "front/export/exportint.h"

#include "front/export/charts.h"

static int write_svg(FILE *f, const struct export_input *in, char *err, size_t errlen)
{
	if (chart_forest(f, in, 1) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int write_svg_fleet(FILE *f, const struct export_fleet_input *in, char *err,
                           size_t errlen)
{
	if (chart_fleet_forest(f, in, 1) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

const struct exporter export_svg = {
    .name = "svg",
    .summary = "the forest plot of every speedup with its interval, as an SVG document",
    .flags = EXPORT_MARKUP | EXPORT_CHARTS,
    .write = write_svg,
    .write_fleet = write_svg_fleet,
};
