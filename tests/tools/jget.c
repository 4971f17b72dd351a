/* jget.c - test helper: prints a value from a JSON file. Usage: jget FILE PATH
 * PATH is dot-separated; array elements by index ("rounds.0.runs.1.status"); "#" after a path
 * prints the array/object size ("rounds.#"). Strings print raw, numbers with %.17g, bools as
 * true/false, objects/arrays as compact JSON. Exit 1 if the path is missing, 2 on bad input. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap = cap * 2 + 4096);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

int main(int argc, char **argv)
{
	char *text, *path, *tok, *save = NULL;
	cJSON *root, *node;

	if (argc != 3) {
		fprintf(stderr, "usage: jget FILE PATH\n");
		return 2;
	}
	if (!(text = slurp(argv[1])) || !(root = cJSON_Parse(text))) {
		fprintf(stderr, "jget: %s: not readable JSON\n", argv[1]);
		return 2;
	}
	node = root;
	path = strdup(argv[2]);
	for (tok = strtok_r(path, ".", &save); tok && node; tok = strtok_r(NULL, ".", &save)) {
		if (strcmp(tok, "#") == 0) {
			printf("%d\n", cJSON_GetArraySize(node));
			return 0;
		}
		if (cJSON_IsArray(node))
			node = cJSON_GetArrayItem(node, atoi(tok));
		else
			node = cJSON_GetObjectItemCaseSensitive(node, tok);
	}
	if (!node)
		return 1;
	if (cJSON_IsString(node))
		printf("%s\n", node->valuestring);
	else if (cJSON_IsNumber(node))
		printf("%.17g\n", node->valuedouble);
	else if (cJSON_IsBool(node))
		printf("%s\n", cJSON_IsTrue(node) ? "true" : "false");
	else if (cJSON_IsNull(node))
		printf("null\n");
	else {
		char *s = cJSON_PrintUnformatted(node);
		printf("%s\n", s);
		free(s);
	}
	return 0;
}
