/* jsonget: prints one value from a JSON Lines file, for shell tests.
 *   jsonget FILE LINE PATH     LINE counts from 1 ("last" for the last line);
 *                              PATH is dot-separated keys and array indices,
 *                              e.g. gpus.0.temp_c or processes.length
 * Prints the value as compact JSON (strings without quotes), "absent" when
 * the path does not exist; exits 2 on a bad file or line. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: jsonget FILE LINE PATH\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	char *line = NULL, *last = NULL;
	size_t cap = 0;
	ssize_t n;
	long want = strcmp(argv[2], "last") == 0 ? -1 : atol(argv[2]), no = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		no++;
		if (want < 0) {
			free(last);
			last = strdup(line);
		} else if (no == want) {
			last = strdup(line);
			break;
		}
	}
	free(line);
	fclose(f);
	if (!last) {
		fprintf(stderr, "jsonget: %s has no line %s\n", argv[1], argv[2]);
		return 2;
	}
	json_error_t err;
	json_t *root = json_loads(last, 0, &err), *v = root;
	free(last);
	if (!root) {
		fprintf(stderr, "jsonget: line %s: %s\n", argv[2], err.text);
		return 2;
	}
	char *path = strdup(argv[3]);
	for (char *tok = strtok(path, "."); tok && v; tok = strtok(NULL, ".")) {
		if (strcmp(tok, "length") == 0 && json_is_array(v)) {
			printf("%zu\n", json_array_size(v));
			free(path);
			json_decref(root);
			return 0;
		}
		if (json_is_array(v)) {
			char *end;
			long i = strtol(tok, &end, 10);
			v = *end ? NULL : json_array_get(v, (size_t)i);
		} else {
			v = json_object_get(v, tok);
		}
	}
	free(path);
	if (!v)
		puts("absent");
	else if (json_is_string(v))
		puts(json_string_value(v));
	else if (json_is_real(v)) {
		/* The shortest form that reads back as the same double. */
		char tmp[40];
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(tmp, sizeof(tmp), "%.*g", prec, json_real_value(v));
			if (strtod(tmp, NULL) == json_real_value(v))
				break;
		}
		puts(tmp);
	}
	else {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		puts(s);
		free(s);
	}
	json_decref(root);
	return 0;
}
