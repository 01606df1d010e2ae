/* test_prometheus_parse: the /api/v1/query answer parser under hostile input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/prometheus_parse.h"

static int parse(const char *s, struct prom_result *r)
{
	char err[256];
	prom_result_init(r);
	return prom_parse_query(s, strlen(s), 100, r, err, sizeof(err));
}

static void test_vector(void **st)
{
	(void)st;
	struct prom_result r;
	assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			       "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"Hostname\":\"a\",\"gpu\":\"0\",\"UUID\":\"GPU-1\","
			       "\"modelName\":\"X\"},\"value\":[1.5,\"37\"]},"
			       "{\"value\":[1,\"NaN\"],\"metric\":{\"instance\":\"h:9400\",\"gpu\":\"1\"}},"
			       "{\"metric\":{\"instance\":\"h\"},\"value\":[1,\"+Inf\"]},"
			       "{\"metric\":{\"gpu\":7},\"value\":[1,\"3\"]},"
			       "{\"metric\":{},\"value\":[1,5]},"
			       "7]}}", &r), 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.s[0].host, "a");
	assert_string_equal(r.s[0].name, "DCGM_FI_DEV_GPU_UTIL");
	assert_null(r.s[1].name);
	assert_string_equal(r.s[0].uuid, "GPU-1");
	assert_true(r.s[0].known);
	assert_true(r.s[0].value == 37);
	assert_string_equal(r.s[1].host, "h:9400");
	assert_false(r.s[1].known); /* NaN: unknown, never 0 */
	assert_false(r.s[2].known); /* +Inf */
	assert_null(r.s[3].gpu);    /* a label of the wrong type is absent */
	assert_int_equal(r.skipped, 2);
	prom_result_free(&r);
}

/* dcgm-exporter 4.10's lower-case hostname names the host when Hostname is
 * absent, and Hostname wins when a series has both. */
static void test_hostname_labels(void **st)
{
	(void)st;
	struct prom_result r;
	assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			       "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL_RATIO\",\"hostname\":\"b\",\"instance\":\"i\"},"
			       "\"value\":[1,\"0.5\"]},"
			       "{\"metric\":{\"hostname\":\"b\",\"Hostname\":\"c\",\"instance\":\"i\"},\"value\":[1,\"1\"]}]}}",
			       &r), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.s[0].name, "DCGM_FI_DEV_GPU_UTIL_RATIO");
	assert_string_equal(r.s[0].host, "b");
	assert_true(r.s[0].value == 0.5);
	assert_string_equal(r.s[1].host, "c");
	prom_result_free(&r);
}

static void test_hostile(void **st)
{
	(void)st;
	struct prom_result r;
	const char *bad[] = {
		"", "[]", "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{}",
		"{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}",
		"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}",
		"{\"status\":\"success\"}", "{\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
		"{\"status\":7,\"data\":{\"resultType\":\"vector\",\"result\":[]}}", "<html>503</html>",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i], &r), -1);
		assert_int_equal(r.n, 0);
		prom_result_free(&r);
	}
	/* Huge: many series, capped; a deep nest fails. */
	size_t n = 5000, cap = n * 64 + 200;
	char *big = malloc(cap), *p = big;
	p += sprintf(p, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s{\"metric\":{\"gpu\":\"%zu\"},\"value\":[1,\"1\"]}", i ? "," : "", i);
	sprintf(p, "]}}");
	assert_int_equal(parse(big, &r), 0);
	assert_int_equal(r.n, 100);
	assert_int_equal(r.dropped, n - 100);
	prom_result_free(&r);
	memset(big, '[', cap - 1);
	big[cap - 1] = '\0';
	assert_int_equal(parse(big, &r), -1);
	prom_result_free(&r);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_vector), cmocka_unit_test(test_hostname_labels),
					   cmocka_unit_test(test_hostile)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
