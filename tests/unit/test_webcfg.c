/* test_webcfg: the exporter-toolkit web config: every key path of an error
 * named in its message, the rules between the TLS keys, the headers' names
 * and values, bcrypt hashes' shape and libxcrypt's own check, durations,
 * files read relative to the config's directory, and basic auth against
 * hashes made here with libxcrypt (webauth), including the cache. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "serve/webauth.h"
#include "serve/webcfg.h"
#include "serve/weblib.h"

static int parse(const char *yaml, struct webcfg *c, char *err, size_t n)
{
	return webcfg_parse(yaml, strlen(yaml), "web.yml", NULL, true, c, err, n);
}

/* yaml must be refused with a message holding each of the words. */
static void refused(const char *yaml, const char *want1, const char *want2)
{
	struct webcfg c;
	char err[1024] = "";
	if (parse(yaml, &c, err, sizeof(err)) == 0)
		fail_msg("accepted: %s", yaml);
	if (!strstr(err, "--web-config web.yml: ") || !strstr(err, want1) || (want2 && !strstr(err, want2)))
		fail_msg("for %s: message '%s' lacks '%s' / '%s'", yaml, err, want1, want2 ? want2 : "");
}

/* A bcrypt hash of password at cost 4, made with libxcrypt. */
static void make_hash(const char *password, char *out, size_t n)
{
	const struct weblib_crypt *cr;
	char err[256];
	assert_int_equal(weblib_crypt(&cr, err, sizeof(err)), 0);
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h = cr->crypt_r(password, "$2b$04$abcdefghijklmnopqrstuu", cd);
	assert_non_null(h);
	assert_int_equal(strlen(h), 60);
	snprintf(out, n, "%s", h);
	free(cd);
}

static void test_empty_and_plain(void **state)
{
	(void)state;
	struct webcfg c;
	char err[512];
	assert_int_equal(parse("", &c, err, sizeof(err)), 0);
	assert_false(c.tls);
	assert_int_equal(c.nusers, 0);
	webcfg_free(&c);
	assert_int_equal(parse("---\n# nothing\n", &c, err, sizeof(err)), 0);
	webcfg_free(&c);
	assert_int_equal(parse("http_server_config:\n  http2: false\n", &c, err, sizeof(err)), 0);
	webcfg_free(&c);
}

static void test_unknown_keys_named(void **state)
{
	(void)state;
	refused("tls_server_confg: {}\n", "unknown key 'tls_server_confg'", NULL);
	refused("tls_server_config:\n  cert_fil: a.pem\n", "unknown key 'tls_server_config.cert_fil'", NULL);
	refused("http_server_config:\n  http3: true\n", "unknown key 'http_server_config.http3'", NULL);
	refused("rate_limit:\n  every: 1s\n", "unknown key 'rate_limit.every'", NULL);
	refused("- a\n- b\n", "must be a mapping", NULL);
	refused("tls_server_config: [1, 2]\n", "tls_server_config: must be a mapping", NULL);
	refused("a: [unclosed\n", "not YAML", "line");
	refused("tls_server_config: {}\ntls_server_config: {}\n", "tls_server_config: given twice", NULL);
	refused("http_server_config:\n  http2: true\n  http2: false\n", "http_server_config.http2: given twice", NULL);
}

static void test_tls_rules(void **state)
{
	(void)state;
	refused("tls_server_config:\n  cert_file: /nonexistent/cert.pem\n  key_file: /nonexistent/key.pem\n",
		"tls_server_config.cert_file: cannot read /nonexistent/cert.pem", "No such file");
	refused("tls_server_config:\n  key_file: k.pem\n  key: inline\n", "key_file and key are both given", NULL);
	refused("tls_server_config:\n  client_auth_type: RequireAndVerifyClientCert\n",
		"tls_server_config: TLS settings without cert_file and key_file", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  client_auth_type: Sometimes\n",
		"tls_server_config.client_auth_type: 'Sometimes' is not", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  client_auth_type: RequireAndVerifyClientCert\n",
		"tls_server_config.client_ca_file: needed by client_auth_type RequireAndVerifyClientCert", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  client_ca: z\n",
		"tls_server_config.client_ca_file: given, but client_auth_type is NoClientCert", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  min_version: TLS14\n",
		"tls_server_config.min_version: 'TLS14' is not", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  min_version: TLS13\n  max_version: TLS12\n",
		"tls_server_config.min_version: above max_version", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
		"tls_server_config.cipher_suites: not supported", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  curve_preferences: [P256]\n",
		"tls_server_config.curve_preferences: 'P256' is not", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  client_allowed_sans: [a]\n",
		"tls_server_config.client_allowed_sans: needs client_auth_type", NULL);
	refused("tls_server_config:\n  cert: x\n  key: y\n  prefer_server_cipher_suites: maybe\n",
		"tls_server_config.prefer_server_cipher_suites: must be true or false", NULL);
	/* Inline PEM that is not a certificate is named by its key, with
	 * GnuTLS's reason. */
	refused("tls_server_config:\n  cert: 'not a pem'\n  key: 'nor this'\n", "tls_server_config.cert: not a PEM certificate",
		NULL);
}

static void test_priorities(void **state)
{
	(void)state;
	struct webcfg c;
	char err[512];
	/* Without checking files, the priority string is still made. */
	const char *y = "tls_server_config:\n  cert: x\n  key: y\n  min_version: TLS13\n"
			"  curve_preferences: [X25519, CurveP384, X25519]\n  prefer_server_cipher_suites: false\n";
	assert_int_equal(webcfg_parse(y, strlen(y), "web.yml", NULL, false, &c, err, sizeof(err)), 0);
	assert_true(c.tls);
	assert_string_equal(c.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.3:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP384R1");
	webcfg_free(&c);
	y = "tls_server_config:\n  cert: x\n  key: y\n";
	assert_int_equal(webcfg_parse(y, strlen(y), "web.yml", NULL, false, &c, err, sizeof(err)), 0);
	assert_string_equal(c.priorities, "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3:%SERVER_PRECEDENCE");
	webcfg_free(&c);
}

static void test_headers(void **state)
{
	(void)state;
	struct webcfg c;
	char err[512];
	assert_int_equal(parse("http_server_config:\n  headers:\n    X-Frame-Options: SameOrigin\n"
			       "    Strict-Transport-Security: max-age=31536000\n    X-XSS-Protection: ''\n",
			       &c, err, sizeof(err)),
			 0);
	assert_int_equal(c.nheaders, 2); /* a blank one is unset */
	assert_string_equal(c.headers[0].name, "X-Frame-Options");
	assert_string_equal(c.headers[0].value, "SameOrigin");
	webcfg_free(&c);
	refused("http_server_config:\n  headers:\n    Set-Cookie: a=b\n", "http_server_config.headers.Set-Cookie: not a header",
		NULL);
	refused("http_server_config:\n  headers:\n    X-Frame-Options: allow\n", "'allow' is not deny or sameorigin", NULL);
	refused("http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n", "'sniff' is not nosniff", NULL);
	refused("http_server_config:\n  headers:\n    X-XSS-Protection: \"1\\r\\nSet-Cookie: a\"\n", "control character",
		NULL);
}

static void test_users(void **state)
{
	(void)state;
	struct webcfg c;
	char err[512], hash[128], yaml[512];
	make_hash("s3cret", hash, sizeof(hash));
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: '%s'\n  bob: '%s'\n", hash, hash);
	assert_int_equal(parse(yaml, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nusers, 2);
	assert_string_equal(c.users[1].name, "bob");
	webcfg_free(&c);
	refused("basic_auth_users:\n  alice: s3cret\n", "basic_auth_users.alice: not a bcrypt hash", NULL);
	refused("basic_auth_users:\n  alice: '$2y$03$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyzABCDE'\n",
		"basic_auth_users.alice: not a bcrypt hash", NULL);
	refused("basic_auth_users:\n  alice: '$2b$32$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyzABCDE'\n",
		"basic_auth_users.alice: not a bcrypt hash", NULL);
	refused("basic_auth_users:\n  alice: '$2q$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyzABCDE'\n",
		"basic_auth_users.alice: not a bcrypt hash", NULL);
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  'a:b': '%s'\n", hash);
	refused(yaml, "basic_auth_users: a user name must be", NULL);
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: '%s'\n  alice: '%s'\n", hash, hash);
	refused(yaml, "basic_auth_users.alice: given twice", NULL);
}

static void test_rate_limit(void **state)
{
	(void)state;
	struct webcfg c;
	char err[512];
	assert_int_equal(parse("rate_limit:\n  interval: 1m30s\n  burst: 5\n", &c, err, sizeof(err)), 0);
	assert_true(c.rate_interval_s > 89.99 && c.rate_interval_s < 90.01);
	assert_int_equal(c.rate_burst, 5);
	webcfg_free(&c);
	assert_int_equal(parse("rate_limit:\n  interval: 250ms\n  burst: 1\n", &c, err, sizeof(err)), 0);
	assert_true(c.rate_interval_s > 0.2499 && c.rate_interval_s < 0.2501);
	webcfg_free(&c);
	refused("rate_limit:\n  interval: soon\n  burst: 1\n", "rate_limit.interval: 'soon' is not a duration", NULL);
	refused("rate_limit:\n  interval: 1s\n  burst: -1\n", "rate_limit.burst", NULL);
	refused("rate_limit:\n  interval: 1s\n", "rate_limit.burst: must be at least 1", NULL);
}

static void test_files_relative_to_config(void **state)
{
	(void)state;
	char dir[] = "/tmp/gpur-webcfg-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[300], cfg[600];
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("tls_server_config:\n  cert_file: certs/missing.pem\n  key_file: k.pem\n", f);
	fclose(f);
	struct webcfg c;
	char err[1024];
	assert_int_equal(webcfg_load(path, &c, err, sizeof(err)), -1);
	snprintf(cfg, sizeof(cfg), "--web-config %s: tls_server_config.cert_file: cannot read %s/certs/missing.pem", path,
		 dir);
	if (!strstr(err, cfg))
		fail_msg("'%s' lacks '%s'", err, cfg);
	unlink(path);
	assert_int_equal(webcfg_load(path, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot read it"));
	rmdir(dir);
}

/* "Basic " + base64 of text. */
static void basic(const char *text, char *out, size_t n)
{
	static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(text), o = (size_t)snprintf(out, n, "Basic ");
	for (size_t i = 0; i < len; i += 3) {
		unsigned v = (unsigned char)text[i] << 16;
		if (i + 1 < len)
			v |= (unsigned char)text[i + 1] << 8;
		if (i + 2 < len)
			v |= (unsigned char)text[i + 2];
		out[o++] = A[v >> 18 & 63];
		out[o++] = A[v >> 12 & 63];
		out[o++] = i + 1 < len ? A[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? A[v & 63] : '=';
	}
	out[o] = '\0';
}

static void test_basic_auth(void **state)
{
	(void)state;
	struct webcfg c;
	char err[512], hash[128], yaml[512], h[256];
	make_hash("s3cret", hash, sizeof(hash));
	snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: '%s'\n", hash);
	assert_int_equal(parse(yaml, &c, err, sizeof(err)), 0);
	struct webauth *a = webauth_new(&c, err, sizeof(err));
	assert_non_null(a);
	basic("alice:s3cret", h, sizeof(h));
	assert_true(webauth_check(a, h));
	assert_true(webauth_check(a, h)); /* from the cache */
	basic("alice:s3cret ", h, sizeof(h));
	assert_false(webauth_check(a, h));
	basic("alice:s3cre", h, sizeof(h));
	assert_false(webauth_check(a, h));
	basic("mallory:s3cret", h, sizeof(h));
	assert_false(webauth_check(a, h));
	basic("alice", h, sizeof(h));
	assert_false(webauth_check(a, h));
	assert_false(webauth_check(a, NULL));
	assert_false(webauth_check(a, "Bearer abc"));
	assert_false(webauth_check(a, "Basic !!!!"));
	assert_false(webauth_check(a, "Basic YWxpY2U6czNjcmV0="));  /* a wrong length */
	assert_true(webauth_check(a, "basic  YWxpY2U6czNjcmV0")); /* the scheme in any case */
	webauth_free(a);
	webcfg_free(&c);
}

static void test_base64(void **state)
{
	(void)state;
	unsigned char out[16];
	assert_int_equal(webauth_base64("YQ==", out, sizeof(out)), 1);
	assert_int_equal(out[0], 'a');
	assert_int_equal(webauth_base64("YWI=", out, sizeof(out)), 2);
	assert_int_equal(webauth_base64("YWJj", out, sizeof(out)), 3);
	assert_int_equal(webauth_base64("", out, sizeof(out)), 0);
	assert_int_equal(webauth_base64("Y===", out, sizeof(out)), -1);
	assert_int_equal(webauth_base64("YQ==YQ==", out, sizeof(out)), -1);
	assert_int_equal(webauth_base64("YWJjZGVmZ2hpamtsbW5vcHFy", out, 4), -1); /* does not fit */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_plain), cmocka_unit_test(test_unknown_keys_named),
		cmocka_unit_test(test_tls_rules),       cmocka_unit_test(test_priorities),
		cmocka_unit_test(test_headers),         cmocka_unit_test(test_users),
		cmocka_unit_test(test_rate_limit),      cmocka_unit_test(test_files_relative_to_config),
		cmocka_unit_test(test_basic_auth),      cmocka_unit_test(test_base64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
