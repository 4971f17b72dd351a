/* jget.c - test helper: prints a value from a JSON file. Usage: jget FILE PATH
 * An allocab-bench/2 file (JSON Lines) is read as the equivalent document, by the rule of
 * docs/results-format.md ("allocab-bench/2"), written again here: the header line, each update
 * line merged over it (config and facts member by member), the round lines as "rounds"; a torn
 * last line (no newline at its end) is left out.
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

#define LINES_HEAD "{\"schema\":\"allocab-bench/2\""

static void merge(cJSON *head, cJSON *up)
{
	cJSON *m, *x;

	while ((m = up->child)) {
		cJSON *old = cJSON_GetObjectItemCaseSensitive(head, m->string);
		cJSON_DetachItemViaPointer(up, m);
		if (old && cJSON_IsObject(old) && cJSON_IsObject(m) &&
		    (!strcmp(m->string, "config") || !strcmp(m->string, "facts"))) {
			while ((x = m->child)) {
				cJSON_DetachItemViaPointer(m, x);
				cJSON_DeleteItemFromObjectCaseSensitive(old, x->string);
				cJSON_AddItemToObject(old, x->string, x);
			}
			cJSON_Delete(m);
		} else {
			cJSON_DeleteItemFromObjectCaseSensitive(head, m->string);
			cJSON_AddItemToObject(head, m->string, m);
		}
	}
}

/* A JSON Lines bench file as one document, or NULL. */
static cJSON *from_lines(char *text)
{
	char *nl = strchr(text, '\n'), *line;
	cJSON *root, *rounds, *v;

	if (!nl)
		return NULL;
	*nl = '\0';
	if (!(root = cJSON_Parse(text)) || !(rounds = cJSON_CreateArray()))
		return NULL;
	for (line = nl + 1; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if (!(v = cJSON_Parse(line)) || !v->child) {
			cJSON_Delete(v);
			return NULL;
		}
		if (!strcmp(v->child->string, "index"))
			cJSON_AddItemToArray(rounds, v);
		else {
			merge(root, v);
			cJSON_Delete(v);
		}
	}
	cJSON_DeleteItemFromObjectCaseSensitive(root, "rounds");
	cJSON_AddItemToObject(root, "rounds", rounds);
	return root;
}

int main(int argc, char **argv)
{
	char *text, *path, *tok, *save = NULL;
	cJSON *root, *node;

	if (argc != 3) {
		fprintf(stderr, "usage: jget FILE PATH\n");
		return 2;
	}
	text = slurp(argv[1]);
	if (text && !strncmp(text, LINES_HEAD, strlen(LINES_HEAD)))
		root = from_lines(text);
	else
		root = text ? cJSON_Parse(text) : NULL;
	if (!root) {
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
