/* webcfg: the exporter-toolkit web configuration file, read with libyaml's
 * document loader and checked key by key. */
#include "serve/webcfg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/weblib.h"
#include "util/xalloc.h"

/* What a walk of the document needs: the document, the libraries, and where
 * to say what went wrong. */
struct walk {
	const struct weblib_yaml *y;
	yaml_document_t *doc;
	const char *path, *dir;
	bool check_files;
	struct webcfg *c;
	char *err;
	size_t errlen;
	/* The TLS keys seen, checked together at the end of the section. */
	const char *cert_file, *key_file, *ca_file;
	const char *cert_inline, *key_inline, *ca_inline;
	bool client_auth_set;
	int min_version, max_version; /* 10 to 13 */
	bool prefer_server;
	char curves[128];
};

static int fail(struct walk *w, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct walk *w, const char *key, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (key)
		snprintf(w->err, w->errlen, "--web-config %s: %s: %s", w->path, key, why);
	else
		snprintf(w->err, w->errlen, "--web-config %s: %s", w->path, why);
	return -1;
}

static yaml_node_t *node(struct walk *w, yaml_node_item_t id)
{
	return w->y->document_get_node(w->doc, id);
}

/* The text of a scalar node, or NULL when it is not one or holds a NUL. */
static const char *scalar(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return NULL;
	const char *s = (const char *)n->data.scalar.value;
	return strlen(s) == n->data.scalar.length ? s : NULL;
}

/* A YAML null: empty, ~ or null, written plainly. */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);
	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
		strcmp(s, "NULL") == 0);
}

static int want_string(struct walk *w, const char *key, const yaml_node_t *n, const char **out)
{
	const char *s = scalar(n);
	if (!s)
		return fail(w, key, "must be a string");
	*out = is_null(n) ? "" : s;
	return 0;
}

static int want_bool(struct walk *w, const char *key, const yaml_node_t *n, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
	const char *s = scalar(n);

	for (size_t i = 0; s && i < 3; i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, 0;
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, 0;
	}
	return fail(w, key, "must be true or false");
}

/* Joins parent.key into buf, for messages. */
static const char *keyname(char *buf, size_t n, const char *parent, const char *key)
{
	if (parent)
		snprintf(buf, n, "%s.%s", parent, key);
	else
		snprintf(buf, n, "%s", key);
	return buf;
}

/* Calls each(w, key, value) for every pair of a mapping node; a null is an
 * empty mapping. */
typedef int (*pair_fn)(struct walk *w, const char *parent, const char *key, const yaml_node_t *value);

static int each_pair(struct walk *w, const char *parent, const yaml_node_t *n, pair_fn each)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(w, parent, "must be a mapping of keys to values");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(w, p->key));
		if (!k)
			return fail(w, parent, "a key that is not a string");
		/* YAML leaves a repeated key to the reader; the exporter-toolkit
		 * refuses it, and so does gpur, rather than let the last win. */
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
			const char *o = scalar(node(w, q->key));
			if (o && strcmp(o, k) == 0) {
				char key[WEBCFG_MAX_NAME + 64];
				return fail(w, keyname(key, sizeof(key), parent, k), "given twice");
			}
		}
		if (each(w, parent, k, node(w, p->value)) != 0)
			return -1;
	}
	return 0;
}

/* Reads a whole file of at most WEBCFG_MAX_FILE bytes, NUL-terminated. */
static char *slurp(const char *file, size_t *len, int *e)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;

	if (fd < 0) {
		*e = errno;
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		close(fd);
		return NULL;
	}
	buf = xmalloc(WEBCFG_MAX_FILE + 1);
	for (;;) {
		ssize_t r = read(fd, buf + n, WEBCFG_MAX_FILE + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*e = errno;
			goto bad;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > WEBCFG_MAX_FILE) {
			*e = EFBIG;
			goto bad;
		}
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
bad:
	close(fd);
	free(buf);
	return NULL;
}

/* Reads a file the config names, relative to the config's directory, into
 * *out. */
static int read_named(struct walk *w, const char *key, const char *name, char **out)
{
	char full[4096];
	size_t len;
	int e = 0;

	if (name[0] == '/' || !w->dir)
		snprintf(full, sizeof(full), "%s", name);
	else
		snprintf(full, sizeof(full), "%s/%s", w->dir, name);
	char *text = slurp(full, &len, &e);
	if (!text)
		return fail(w, key, "cannot read %s: %s", full, e == EFBIG ? "larger than 1 MiB" : strerror(e));
	if (strlen(text) != len) {
		free(text);
		return fail(w, key, "%s holds a NUL byte: not a PEM file", full);
	}
	*out = text;
	return 0;
}

static int tls_version(struct walk *w, const char *key, const yaml_node_t *v, int *out)
{
	static const char *const names[] = {"TLS10", "TLS11", "TLS12", "TLS13"};
	const char *s = scalar(v);

	for (int i = 0; s && i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return *out = 10 + i, 0;
	return fail(w, key, "'%s' is not TLS10, TLS11, TLS12 or TLS13", s ? s : "(not a string)");
}

static const char *const AUTH_NAMES[] = {
	[WEBCFG_NO_CLIENT_CERT] = "NoClientCert",
	[WEBCFG_REQUEST_CLIENT_CERT] = "RequestClientCert",
	[WEBCFG_REQUIRE_ANY_CLIENT_CERT] = "RequireAnyClientCert",
	[WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN] = "VerifyClientCertIfGiven",
	[WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT] = "RequireAndVerifyClientCert",
};

const char *webcfg_client_auth_name(enum webcfg_client_auth a)
{
	return (size_t)a < sizeof(AUTH_NAMES) / sizeof(AUTH_NAMES[0]) ? AUTH_NAMES[a] : "?";
}

/* Go's curve names and GnuTLS's groups. */
static const struct {
	const char *go, *gnutls;
} CURVES[] = {
	{"CurveP256", "GROUP-SECP256R1"}, {"CurveP384", "GROUP-SECP384R1"},
	{"CurveP521", "GROUP-SECP521R1"}, {"X25519", "GROUP-X25519"},
};

static int curve_list(struct walk *w, const char *key, const yaml_node_t *v)
{
	if (is_null(v))
		return 0;
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(w, key, "must be a list of curve names");
	size_t at = 0;
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
		const char *s = scalar(node(w, *i));
		size_t k = 0;
		while (s && k < sizeof(CURVES) / sizeof(CURVES[0]) && strcmp(s, CURVES[k].go) != 0)
			k++;
		if (!s || k == sizeof(CURVES) / sizeof(CURVES[0]))
			return fail(w, key, "'%s' is not CurveP256, CurveP384, CurveP521 or X25519",
				    s ? s : "(not a string)");
		if (strstr(w->curves, CURVES[k].gnutls))
			continue;
		int r = snprintf(w->curves + at, sizeof(w->curves) - at, ":+%s", CURVES[k].gnutls);
		if (r > 0 && (size_t)r < sizeof(w->curves) - at)
			at += (size_t)r;
	}
	return 0;
}

static int tls_pair(struct walk *w, const char *parent, const char *k, const yaml_node_t *v)
{
	char key[128];
	keyname(key, sizeof(key), parent, k);

	if (strcmp(k, "cert_file") == 0)
		return want_string(w, key, v, &w->cert_file);
	if (strcmp(k, "key_file") == 0)
		return want_string(w, key, v, &w->key_file);
	if (strcmp(k, "client_ca_file") == 0)
		return want_string(w, key, v, &w->ca_file);
	if (strcmp(k, "cert") == 0)
		return want_string(w, key, v, &w->cert_inline);
	if (strcmp(k, "key") == 0)
		return want_string(w, key, v, &w->key_inline);
	if (strcmp(k, "client_ca") == 0)
		return want_string(w, key, v, &w->ca_inline);
	if (strcmp(k, "client_auth_type") == 0) {
		const char *s = scalar(v);
		for (size_t i = 0; s && i < sizeof(AUTH_NAMES) / sizeof(AUTH_NAMES[0]); i++) {
			if (strcmp(s, AUTH_NAMES[i]) == 0) {
				w->c->client_auth = (enum webcfg_client_auth)i;
				w->client_auth_set = true;
				return 0;
			}
		}
		return fail(w, key,
			    "'%s' is not NoClientCert, RequestClientCert, RequireAnyClientCert, "
			    "VerifyClientCertIfGiven or RequireAndVerifyClientCert",
			    s ? s : "(not a string)");
	}
	if (strcmp(k, "client_allowed_sans") == 0) {
		if (is_null(v))
			return 0;
		if (v->type != YAML_SEQUENCE_NODE)
			return fail(w, key, "must be a list of names");
		for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
			const char *s = scalar(node(w, *i));
			if (!s || !*s || strlen(s) > WEBCFG_MAX_NAME)
				return fail(w, key, "each entry must be a name of 1 to %d bytes", WEBCFG_MAX_NAME);
			if (w->c->nsans == WEBCFG_MAX_SANS)
				return fail(w, key, "more than %d names", WEBCFG_MAX_SANS);
			w->c->sans = xreallocarray(w->c->sans, w->c->nsans + 1, sizeof(*w->c->sans));
			w->c->sans[w->c->nsans++] = xstrdup(s);
		}
		return 0;
	}
	if (strcmp(k, "min_version") == 0)
		return tls_version(w, key, v, &w->min_version);
	if (strcmp(k, "max_version") == 0)
		return tls_version(w, key, v, &w->max_version);
	if (strcmp(k, "prefer_server_cipher_suites") == 0)
		return want_bool(w, key, v, &w->prefer_server);
	if (strcmp(k, "curve_preferences") == 0)
		return curve_list(w, key, v);
	if (strcmp(k, "cipher_suites") == 0) {
		if (is_null(v) || (v->type == YAML_SEQUENCE_NODE && v->data.sequence.items.start == v->data.sequence.items.top))
			return 0;
		return fail(w, key,
			    "not supported by gpur, whose TLS (GnuTLS) names its suites differently; remove it to use "
			    "GnuTLS's default suites, limited by min_version and max_version");
	}
	return fail(w, NULL, "unknown key '%s'", key);
}

/* The headers the exporter-toolkit lets a config add, and the values some
 * of them are limited to. */
static const struct {
	const char *name;
	const char *only[2];
} HEADERS[WEBCFG_NHEADERS] = {
	{"Content-Security-Policy", {NULL, NULL}},
	{"X-Frame-Options", {"deny", "sameorigin"}},
	{"X-Content-Type-Options", {"nosniff", NULL}},
	{"X-XSS-Protection", {NULL, NULL}},
	{"Strict-Transport-Security", {NULL, NULL}},
};

static int header_pair(struct walk *w, const char *parent, const char *k, const yaml_node_t *v)
{
	char key[160];
	const char *val;
	size_t h = 0;

	keyname(key, sizeof(key), parent, k);
	while (h < WEBCFG_NHEADERS && strcasecmp(k, HEADERS[h].name) != 0)
		h++;
	if (h == WEBCFG_NHEADERS)
		return fail(w, key,
			    "not a header gpur may add (Content-Security-Policy, X-Frame-Options, "
			    "X-Content-Type-Options, X-XSS-Protection, Strict-Transport-Security)");
	if (want_string(w, key, v, &val) != 0)
		return -1;
	for (const char *p = val; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return fail(w, key, "holds a control character");
	if (!*val)
		return 0; /* blank: unset */
	if (HEADERS[h].only[0] && strcasecmp(val, HEADERS[h].only[0]) != 0 &&
	    !(HEADERS[h].only[1] && strcasecmp(val, HEADERS[h].only[1]) == 0))
		return fail(w, key, "'%s' is not %s%s%s", val, HEADERS[h].only[0], HEADERS[h].only[1] ? " or " : "",
			    HEADERS[h].only[1] ? HEADERS[h].only[1] : "");
	for (size_t i = 0; i < w->c->nheaders; i++)
		if (w->c->headers[i].name == HEADERS[h].name)
			return fail(w, key, "given twice");
	w->c->headers[w->c->nheaders].name = HEADERS[h].name;
	w->c->headers[w->c->nheaders++].value = xstrdup(val);
	return 0;
}

static int http_pair(struct walk *w, const char *parent, const char *k, const yaml_node_t *v)
{
	char key[128];
	keyname(key, sizeof(key), parent, k);

	if (strcmp(k, "http2") == 0) {
		bool ignored;
		return want_bool(w, key, v, &ignored); /* gpur serves HTTP/1.1 only */
	}
	if (strcmp(k, "headers") == 0)
		return each_pair(w, key, v, header_pair);
	return fail(w, NULL, "unknown key '%s'", key);
}

/* A bcrypt hash as libxcrypt takes it: $2a$, $2b$, $2x$ or $2y$, a cost of
 * two digits from 04 to 31, and 53 characters of salt and hash. */
static bool bcrypt_shaped(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("abxy", h[2]) || h[3] != '$' || h[6] != '$')
		return false;
	if (h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9')
		return false;
	int cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < 4 || cost > 31)
		return false;
	return strspn(h + 7, b64) == 53;
}

static int user_pair(struct walk *w, const char *parent, const char *k, const yaml_node_t *v)
{
	char key[WEBCFG_MAX_NAME + 32];
	const char *hash;

	keyname(key, sizeof(key), parent, k);
	if (!*k || strlen(k) > WEBCFG_MAX_NAME || strchr(k, ':'))
		return fail(w, parent, "a user name must be 1 to %d bytes without ':'", WEBCFG_MAX_NAME);
	for (const char *p = k; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return fail(w, parent, "a user name holds a control character");
	if (want_string(w, key, v, &hash) != 0)
		return -1;
	if (!bcrypt_shaped(hash))
		return fail(w, key, "not a bcrypt hash ($2y$10$ and 53 characters, as htpasswd -nBC 10 writes it)");
	for (size_t i = 0; i < w->c->nusers; i++)
		if (strcmp(w->c->users[i].name, k) == 0)
			return fail(w, key, "given twice");
	if (w->c->nusers == WEBCFG_MAX_USERS)
		return fail(w, parent, "more than %d users", WEBCFG_MAX_USERS);
	w->c->users = xreallocarray(w->c->users, w->c->nusers + 1, sizeof(*w->c->users));
	w->c->users[w->c->nusers].name = xstrdup(k);
	w->c->users[w->c->nusers++].hash = xstrdup(hash);
	return 0;
}

/* A Go or Prometheus duration: numbers with units ms, s, m, h, d (as "1m30s"),
 * or 0. */
static bool duration_s(const char *s, double *out)
{
	double total = 0;

	if (strcmp(s, "0") == 0)
		return *out = 0, true;
	if (!*s)
		return false;
	while (*s) {
		char *end;
		if (*s < '0' || *s > '9')
			return false;
		double v = strtod(s, &end);
		if (end == s)
			return false;
		s = end;
		double unit;
		if (strncmp(s, "ms", 2) == 0)
			unit = 0.001, s += 2;
		else if (*s == 's')
			unit = 1, s++;
		else if (*s == 'm')
			unit = 60, s++;
		else if (*s == 'h')
			unit = 3600, s++;
		else if (*s == 'd')
			unit = 86400, s++;
		else
			return false;
		total += v * unit;
	}
	if (total > 86400.0 * 365)
		return false;
	*out = total;
	return true;
}

static int rate_pair(struct walk *w, const char *parent, const char *k, const yaml_node_t *v)
{
	char key[128];
	const char *s = scalar(v);

	keyname(key, sizeof(key), parent, k);
	if (strcmp(k, "interval") == 0) {
		if (!s || !duration_s(s, &w->c->rate_interval_s))
			return fail(w, key, "'%s' is not a duration (as 1s, 100ms, 1m)", s ? s : "(not a string)");
		return 0;
	}
	if (strcmp(k, "burst") == 0) {
		char *end;
		errno = 0;
		unsigned long b = s ? strtoul(s, &end, 10) : 0;
		if (!s || !*s || *end || errno || b > 100000 || *s == '-')
			return fail(w, key, "'%s' is not a count from 0 to 100000", s ? s : "(not a string)");
		w->c->rate_burst = (unsigned)b;
		return 0;
	}
	return fail(w, NULL, "unknown key '%s'", key);
}

static int top_pair(struct walk *w, const char *parent, const char *k, const yaml_node_t *v)
{
	(void)parent;
	if (strcmp(k, "tls_server_config") == 0)
		return each_pair(w, k, v, tls_pair);
	if (strcmp(k, "http_server_config") == 0)
		return each_pair(w, k, v, http_pair);
	if (strcmp(k, "basic_auth_users") == 0)
		return each_pair(w, k, v, user_pair);
	if (strcmp(k, "rate_limit") == 0)
		return each_pair(w, k, v, rate_pair);
	return fail(w, NULL, "unknown key '%s'", k);
}

/* Takes the certificate, key and CA, from a file or inline, never both. */
static int one_of(struct walk *w, const char *file_key, const char *file, const char *inline_key, const char *text,
		  char **out)
{
	char key[64];
	if (file && *file && text && *text)
		return fail(w, NULL, "tls_server_config: %s and %s are both given; give one", file_key, inline_key);
	if (file && *file)
		return read_named(w, keyname(key, sizeof(key), "tls_server_config", file_key), file, out);
	if (text && *text)
		*out = xstrdup(text);
	return 0;
}

/* Loads the certificate, key and client CA, and the priority string, with
 * GnuTLS, so that what it refuses is an error at load, naming the key,
 * rather than at the first connection. */
static int check_tls_files(struct walk *w)
{
	struct webcfg *c = w->c;
	const struct weblib_gnutls *g;
	char why[512];
	if (weblib_gnutls(&g, why, sizeof(why)) != 0)
		return fail(w, "tls_server_config", "%s", why);
	gnutls_certificate_credentials_t cred;
	if (g->cert_alloc(&cred) < 0)
		return fail(w, "tls_server_config", "out of memory");
	int rc = 0;
	gnutls_x509_crt_t crt;
	gnutls_datum_t cert = {(unsigned char *)c->cert_pem, (unsigned)strlen(c->cert_pem)};
	gnutls_datum_t key = {(unsigned char *)c->key_pem, (unsigned)strlen(c->key_pem)};
	if (g->crt_init(&crt) >= 0) {
		int r = g->crt_import(crt, &cert, GNUTLS_X509_FMT_PEM);
		g->crt_deinit(crt);
		if (r < 0) {
			rc = fail(w, w->cert_inline && *w->cert_inline ? "tls_server_config.cert" : "tls_server_config.cert_file",
				  "not a PEM certificate (%s)", g->strerror(r));
			goto out;
		}
	}
	int r = g->set_key_mem2(cred, &cert, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
	if (r < 0) {
		rc = fail(w, w->key_inline && *w->key_inline ? "tls_server_config.key" : "tls_server_config.key_file",
			  "%s (%s)",
			  r == GNUTLS_E_CERTIFICATE_KEY_MISMATCH ? "does not belong to the certificate"
								 : "not an unencrypted PEM private key",
			  g->strerror(r));
		goto out;
	}
	if (c->client_ca_pem) {
		gnutls_datum_t ca = {(unsigned char *)c->client_ca_pem, (unsigned)strlen(c->client_ca_pem)};
		r = g->set_trust_mem(cred, &ca, GNUTLS_X509_FMT_PEM);
		if (r <= 0) {
			rc = fail(w, w->ca_inline && *w->ca_inline ? "tls_server_config.client_ca" : "tls_server_config.client_ca_file",
				  "no PEM certificate in it%s%s", r < 0 ? ": " : "", r < 0 ? g->strerror(r) : "");
			goto out;
		}
	}
	gnutls_priority_t prio;
	const char *errpos = NULL;
	r = g->priority_init(&prio, c->priorities, &errpos);
	if (r < 0) {
		rc = fail(w, "tls_server_config", "GnuTLS refuses these versions or curves (%s at '%s')", g->strerror(r),
			  errpos ? errpos : "?");
		goto out;
	}
	g->priority_deinit(prio);
out:
	g->cert_free(cred);
	return rc;
}

/* Checks the TLS keys together, and the files with GnuTLS. */
static int finish_tls(struct walk *w)
{
	struct webcfg *c = w->c;

	if (one_of(w, "cert_file", w->cert_file, "cert", w->cert_inline, &c->cert_pem) != 0 ||
	    one_of(w, "key_file", w->key_file, "key", w->key_inline, &c->key_pem) != 0 ||
	    one_of(w, "client_ca_file", w->ca_file, "client_ca", w->ca_inline, &c->client_ca_pem) != 0)
		return -1;
	c->tls = c->cert_pem || c->key_pem;
	if (c->tls && !c->cert_pem)
		return fail(w, "tls_server_config.cert_file", "missing: a key needs its certificate");
	if (c->tls && !c->key_pem)
		return fail(w, "tls_server_config.key_file", "missing: a certificate needs its key");
	if (!c->tls && (c->client_ca_pem || w->client_auth_set || c->nsans || w->min_version || w->max_version))
		return fail(w, "tls_server_config", "TLS settings without cert_file and key_file");
	if (c->client_ca_pem && c->client_auth == WEBCFG_NO_CLIENT_CERT)
		return fail(w, "tls_server_config.client_ca_file",
			    "given, but client_auth_type is NoClientCert; set it to RequireAndVerifyClientCert");
	if (!c->client_ca_pem &&
	    (c->client_auth == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN || c->client_auth == WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT))
		return fail(w, "tls_server_config.client_ca_file", "needed by client_auth_type %s",
			    webcfg_client_auth_name(c->client_auth));
	if (c->nsans && c->client_auth != WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT &&
	    c->client_auth != WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN)
		return fail(w, "tls_server_config.client_allowed_sans",
			    "needs client_auth_type RequireAndVerifyClientCert or VerifyClientCertIfGiven");
	int lo = w->min_version ? w->min_version : 12, hi = w->max_version ? w->max_version : 13;
	if (lo > hi)
		return fail(w, "tls_server_config.min_version", "above max_version");
	size_t at = (size_t)snprintf(c->priorities, sizeof(c->priorities), "NORMAL:-VERS-ALL");
	for (int v = lo; v <= hi; v++)
		at += (size_t)snprintf(c->priorities + at, sizeof(c->priorities) - at, ":+VERS-TLS1.%d", v - 10);
	if (w->curves[0])
		at += (size_t)snprintf(c->priorities + at, sizeof(c->priorities) - at, ":-GROUP-ALL%s", w->curves);
	if (w->prefer_server)
		snprintf(c->priorities + at, sizeof(c->priorities) - at, ":%%SERVER_PRECEDENCE");
	if (!c->tls || !w->check_files)
		return 0;
	return check_tls_files(w);
}

/* Checks every hash with libxcrypt itself, so that one it cannot use is a
 * usage error now rather than a refused login later. */
static int finish_users(struct walk *w)
{
	if (!w->c->nusers || !w->check_files)
		return 0;
	const struct weblib_crypt *cr;
	char why[512];
	if (weblib_crypt(&cr, why, sizeof(why)) != 0)
		return fail(w, "basic_auth_users", "%s", why);
	struct crypt_data *cd = xcalloc(1, sizeof(*cd));
	int rc = 0;
	for (size_t i = 0; i < w->c->nusers && rc == 0; i++) {
		const char *out = cr->crypt_r("", w->c->users[i].hash, cd);
		if (!out || out[0] != '$' || strncmp(out, w->c->users[i].hash, 29) != 0) {
			char key[WEBCFG_MAX_NAME + 32];
			rc = fail(w, keyname(key, sizeof(key), "basic_auth_users", w->c->users[i].name),
				  "a bcrypt hash libxcrypt cannot use");
		}
	}
	free(cd);
	return rc;
}

int webcfg_parse(const char *text, size_t len, const char *path, const char *dir, bool check_files, struct webcfg *c,
		 char *err, size_t errlen)
{
	struct walk w = {.path = path, .dir = dir, .check_files = check_files, .c = c, .err = err,
			 .errlen = errlen, .prefer_server = true};
	yaml_parser_t parser;
	yaml_document_t doc;
	char why[512];
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (weblib_yaml(&w.y, why, sizeof(why)) != 0)
		return fail(&w, NULL, "%s", why);
	if (!w.y->parser_initialize(&parser))
		return fail(&w, NULL, "out of memory");
	w.y->parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!w.y->parser_load(&parser, &doc)) {
		fail(&w, NULL, "not YAML: %s at line %zu, column %zu", parser.problem ? parser.problem : "error",
		     (size_t)parser.problem_mark.line + 1, (size_t)parser.problem_mark.column + 1);
		w.y->parser_delete(&parser);
		return -1;
	}
	w.doc = &doc;
	yaml_node_t *root = w.y->document_get_root_node(&doc);
	if (!root || is_null(root))
		rc = 0; /* an empty file: plain HTTP, no auth */
	else if (root->type != YAML_MAPPING_NODE)
		fail(&w, NULL, "must be a mapping of tls_server_config, http_server_config, basic_auth_users, rate_limit");
	else
		rc = each_pair(&w, NULL, root, top_pair);
	if (rc == 0)
		rc = finish_tls(&w);
	if (rc == 0)
		rc = finish_users(&w);
	if (rc == 0 && w.c->rate_interval_s > 0 && w.c->rate_burst == 0)
		rc = fail(&w, "rate_limit.burst", "must be at least 1 when interval is set");
	/* A second document is not read: the toolkit reads the first. */
	w.y->document_delete(&doc);
	w.y->parser_delete(&parser);
	if (rc != 0)
		webcfg_free(c);
	return rc;
}

int webcfg_load(const char *path, struct webcfg *c, char *err, size_t errlen)
{
	size_t len;
	int e = 0;

	memset(c, 0, sizeof(*c));
	char *text = slurp(path, &len, &e);
	if (!text) {
		snprintf(err, errlen, "--web-config %s: cannot read it: %s", path,
			 e == EFBIG ? "larger than 1 MiB" : strerror(e));
		return -1;
	}
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	int rc = webcfg_parse(text, len, path, slash ? dir : NULL, true, c, err, errlen);
	free(dir);
	free(text);
	return rc;
}

void webcfg_free(struct webcfg *c)
{
	free(c->cert_pem);
	if (c->key_pem)
		explicit_bzero(c->key_pem, strlen(c->key_pem)); /* a secret, not left in freed memory */
	free(c->key_pem);
	free(c->client_ca_pem);
	for (size_t i = 0; i < c->nsans; i++)
		free(c->sans[i]);
	free(c->sans);
	for (size_t i = 0; i < c->nusers; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	for (size_t i = 0; i < c->nheaders; i++)
		free(c->headers[i].value);
	memset(c, 0, sizeof(*c));
}
