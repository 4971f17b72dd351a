/* svg.c - `--format svg`: the forest plot of every speedup with its interval, alone, as an SVG
 * document (front/draw/draw.h), the replays' caveats under it. */
#include "front/export/exportint.h"

#include "front/draw/draw.h"

#include <stdlib.h>

static int write_svg(FILE *f, const struct export_input *in, char *err, size_t errlen)
{
	char(*note)[EXPORT_LINE] = calloc(in->nreplays ? in->nreplays : 1, sizeof *note);
	const char **line = calloc(in->nreplays ? in->nreplays : 1, sizeof *line);
	struct chart_input chart = {in->r, in->margin, in->attrib, line, in->nreplays};
	int rc = -1;

	for (size_t k = 0; note && line && k < in->nreplays; k++)
		line[k] = export_replay_note(in, in->replays[k].workload, note[k], sizeof note[k]);
	if (note && line)
		rc = chart_forest(f, &chart, 1);
	free(note);
	free(line);
	if (rc != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int write_svg_fleet(FILE *f, const struct export_fleet_input *in, char *err, size_t errlen)
{
	const struct chart_fleet_input chart = {in->f, in->margin, export_fleet_note};

	if (chart_fleet_forest(f, &chart, 1) != 0) {
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
