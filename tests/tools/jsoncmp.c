/* jsoncmp: an independent oracle (jansson) for gpur's JSON Lines output.
 *   jsoncmp A B        compare two JSONL files record by record as parsed JSON
 *                      (key order ignored; 42 equals 42.0); 0 equal, 1 not.
 *                      Numbers compare exactly: integers as integers (never
 *                      through a double: 9007199254740993 is not
 *                      9007199254740992), reals as the same double bit for bit
 *   jsoncmp --valid F  0 when every line of F is one JSON object in valid
 *                      UTF-8 and F ends with a newline, else 1
 * Usage errors and unreadable files exit 2. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lines {
	char *data;
	size_t len;
};

static int slurp(const char *path, struct lines *out)
{
	FILE *fp = fopen(path, "rb");
	size_t cap = 1 << 16;

	if (!fp) {
		fprintf(stderr, "jsoncmp: %s: %s\n", path, strerror(errno));
		return -1;
	}
	out->data = malloc(cap);
	out->len = 0;
	for (;;) {
		if (out->len == cap) {
			cap *= 2;
			out->data = realloc(out->data, cap);
		}
		if (!out->data) {
			fprintf(stderr, "jsoncmp: out of memory\n");
			exit(2);
		}
		size_t n = fread(out->data + out->len, 1, cap - out->len, fp);
		out->len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		fprintf(stderr, "jsoncmp: %s: read error\n", path);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	return 0;
}

/* The next line of l from *pos (without its \n); false at the end. */
static bool next_line(const struct lines *l, size_t *pos, const char **line, size_t *len)
{
	if (*pos >= l->len)
		return false;
	const char *start = l->data + *pos;
	const char *nl = memchr(start, '\n', l->len - *pos);
	*line = start;
	*len = nl ? (size_t)(nl - start) : l->len - *pos;
	*pos += *len + (nl ? 1 : 0);
	return true;
}

/* One JSON object from a line, or NULL with a message in err. */
static json_t *parse_object(const char *line, size_t len, size_t flags, char *err, size_t errlen)
{
	json_error_t je;
	json_t *v = json_loadb(line, len, flags, &je);

	if (!v) {
		snprintf(err, errlen, "not JSON: %s (column %d)", je.text, je.column);
		return NULL;
	}
	if (!json_is_object(v)) {
		snprintf(err, errlen, "not a JSON object");
		json_decref(v);
		return NULL;
	}
	return v;
}

static bool number_equal(const json_t *a, const json_t *b)
{
	if (json_is_integer(a) && json_is_integer(b))
		return json_integer_value(a) == json_integer_value(b);
	if (json_is_real(a) && json_is_real(b)) {
		double x = json_real_value(a), y = json_real_value(b);
		return memcmp(&x, &y, sizeof(x)) == 0; /* -0.0 is not 0.0 */
	}
	const json_t *i = json_is_integer(a) ? a : b, *r = json_is_integer(a) ? b : a;
	double d = json_real_value(r);
	/* Exact: the real must be integral and in range before converting. */
	return d == trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
	       (json_int_t)d == json_integer_value(i);
}

/* Compares a and b; on a difference writes its JSON path into path. */
static bool equal(const json_t *a, const json_t *b, char *path, size_t pathlen)
{
	size_t used = strlen(path);

	if (json_is_number(a) && json_is_number(b))
		return number_equal(a, b);
	if (json_typeof(a) != json_typeof(b))
		return false;
	switch (json_typeof(a)) {
	case JSON_OBJECT: {
		const char *key;
		const json_t *va;
		if (json_object_size(a) != json_object_size(b)) {
			/* Name a key that only one side has. */
			const json_t *big = json_object_size(a) > json_object_size(b) ? a : b;
			const json_t *small = big == a ? b : a;
			json_object_foreach((json_t *)(uintptr_t)big, key, va) {
				if (!json_object_get(small, key)) {
					snprintf(path + used, pathlen - used, ".%s (only in %s)", key,
						 big == a ? "first" : "second");
					break;
				}
			}
			return false;
		}
		json_object_foreach((json_t *)(uintptr_t)a, key, va) {
			const json_t *vb = json_object_get(b, key);
			snprintf(path + used, pathlen - used, ".%s", key);
			if (!vb)
				return false;
			if (!equal(va, vb, path, pathlen))
				return false;
			path[used] = '\0';
		}
		return true;
	}
	case JSON_ARRAY:
		if (json_array_size(a) != json_array_size(b)) {
			snprintf(path + used, pathlen - used, " (arrays of %zu and %zu)", json_array_size(a),
				 json_array_size(b));
			return false;
		}
		for (size_t i = 0; i < json_array_size(a); i++) {
			snprintf(path + used, pathlen - used, "[%zu]", i);
			if (!equal(json_array_get(a, i), json_array_get(b, i), path, pathlen))
				return false;
			path[used] = '\0';
		}
		return true;
	case JSON_STRING:
		return json_string_length(a) == json_string_length(b) &&
		       memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
	default: /* true, false, null */
		return true;
	}
}

static int validate(const char *path)
{
	struct lines l;
	size_t pos = 0, lineno = 0, len;
	const char *line;
	char err[256];

	if (slurp(path, &l))
		return 2;
	while (next_line(&l, &pos, &line, &len)) {
		lineno++;
		json_t *v = parse_object(line, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, err, sizeof(err));
		if (!v) {
			fprintf(stderr, "jsoncmp: %s:%zu: %s\n", path, lineno, err);
			free(l.data);
			return 1;
		}
		json_decref(v);
	}
	if (l.len && l.data[l.len - 1] != '\n') {
		fprintf(stderr, "jsoncmp: %s:%zu: last line has no newline\n", path, lineno);
		free(l.data);
		return 1;
	}
	free(l.data);
	return 0;
}

static int compare(const char *pa, const char *pb)
{
	struct lines la, lb;
	size_t posa = 0, posb = 0, lineno = 0, lena, lenb;
	const char *linea, *lineb;
	char err[256], where[1024];
	int status = 0;

	if (slurp(pa, &la))
		return 2;
	if (slurp(pb, &lb)) {
		free(la.data);
		return 2;
	}
	for (;;) {
		bool ha = next_line(&la, &posa, &linea, &lena);
		bool hb = next_line(&lb, &posb, &lineb, &lenb);
		lineno++;
		if (!ha && !hb)
			break;
		if (!ha || !hb) {
			fprintf(stderr, "jsoncmp: line %zu: %s ends first (%s has more records)\n", lineno,
				ha ? pb : pa, ha ? pa : pb);
			status = 1;
			break;
		}
		json_t *a = parse_object(linea, lena, JSON_ALLOW_NUL, err, sizeof(err));
		if (!a) {
			fprintf(stderr, "jsoncmp: %s:%zu: %s\n", pa, lineno, err);
			status = 1;
			break;
		}
		json_t *b = parse_object(lineb, lenb, JSON_ALLOW_NUL, err, sizeof(err));
		if (!b) {
			fprintf(stderr, "jsoncmp: %s:%zu: %s\n", pb, lineno, err);
			json_decref(a);
			status = 1;
			break;
		}
		where[0] = '\0';
		bool same = equal(a, b, where, sizeof(where));
		json_decref(a);
		json_decref(b);
		if (!same) {
			fprintf(stderr, "jsoncmp: line %zu differs at %s\n  %s: %.*s\n  %s: %.*s\n", lineno,
				where[0] ? where : "(top level)", pa, (int)(lena > 400 ? 400 : lena), linea, pb,
				(int)(lenb > 400 ? 400 : lenb), lineb);
			status = 1;
			break;
		}
	}
	free(la.data);
	free(lb.data);
	return status;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--valid") == 0)
		return validate(argv[2]);
	if (argc == 3 && argv[1][0] != '-')
		return compare(argv[1], argv[2]);
	fprintf(stderr, "usage: jsoncmp A B | jsoncmp --valid FILE\n");
	return 2;
}
