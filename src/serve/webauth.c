/* webauth: basic authentication with bcrypt, a cache of successes, and a
 * dummy hash for names that are not users. */
#include "serve/webauth.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "serve/weblib.h"
#include "util/xalloc.h"

#define DIGEST_MAX 128

struct webauth {
	const struct weblib_crypt *cr;
	struct webcfg_user *users;
	size_t nusers;
	char dummy[64];        /* a bcrypt setting of the first user's cost */
	char cache_setting[64]; /* $5$rounds=1000$<random salt>$ */
	pthread_mutex_t mu;     /* guards the cache */
	/* One bcrypt at a time: requests with wrong passwords then take at
	 * most one core, and a remembered scrape never waits for it. */
	pthread_mutex_t slow;
	char cache[WEBAUTH_CACHE][DIGEST_MAX];
	size_t cache_next;
};

static const char B64CRYPT[] = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/* Fills out with n random characters of crypt's alphabet. */
static bool random_salt(char *out, size_t n)
{
	unsigned char raw[64];
	if (n > sizeof(raw) || getrandom(raw, n, 0) != (ssize_t)n)
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = B64CRYPT[raw[i] & 63];
	return true;
}

struct webauth *webauth_new(const struct webcfg *c, char *err, size_t errlen)
{
	const struct weblib_crypt *cr;
	if (weblib_crypt(&cr, err, errlen) != 0)
		return NULL;
	struct webauth *a = xcalloc(1, sizeof(*a));
	a->cr = cr;
	pthread_mutex_init(&a->mu, NULL);
	pthread_mutex_init(&a->slow, NULL);
	a->nusers = c->nusers;
	a->users = xcalloc(c->nusers ? c->nusers : 1, sizeof(*a->users));
	for (size_t i = 0; i < c->nusers; i++) {
		a->users[i].name = xstrdup(c->users[i].name);
		a->users[i].hash = xstrdup(c->users[i].hash);
	}
	char salt[22 + 16];
	if (!random_salt(salt, sizeof(salt))) {
		snprintf(err, errlen, "--web-config: no random bytes for the password cache");
		webauth_free(a);
		return NULL;
	}
	/* bcrypt's salt is 22 characters whose last must have its low four
	 * bits clear in crypt's alphabet; '.' is such a character. */
	salt[21] = '.';
	snprintf(a->dummy, sizeof(a->dummy), "$2b$%.2s$%.22s", c->nusers ? c->users[0].hash + 4 : "10", salt);
	snprintf(a->cache_setting, sizeof(a->cache_setting), "$5$rounds=1000$%.16s$", salt + 22);
	return a;
}

void webauth_free(struct webauth *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nusers; i++) {
		free(a->users[i].name);
		free(a->users[i].hash);
	}
	free(a->users);
	explicit_bzero(a->cache, sizeof(a->cache));
	pthread_mutex_destroy(&a->mu);
	pthread_mutex_destroy(&a->slow);
	free(a);
}

long webauth_base64(const char *in, unsigned char *out, size_t n)
{
	static const char ALPHA[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(in), o = 0;

	if (len % 4 != 0)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		uint32_t v = 0;
		int pad = 0;
		for (int k = 0; k < 4; k++) {
			char ch = in[i + k];
			const char *p = ch ? strchr(ALPHA, ch) : NULL;
			if (ch == '=' && i + 4 == len && k >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (!p || pad)
				return -1; /* a character outside the alphabet, or data after '=' */
			v = (v << 6) | (uint32_t)(p - ALPHA);
		}
		unsigned char b[3] = {(unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
		for (int k = 0; k < 3 - pad; k++) {
			if (o == n)
				return -1;
			out[o++] = b[k];
		}
	}
	return (long)o;
}

/* Equal strings, in a time that depends on their lengths only. */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;
	for (size_t i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

bool webauth_check(struct webauth *a, const char *authorization)
{
	unsigned char cred[WEBAUTH_MAX_CRED + 1];

	if (!authorization || strncasecmp(authorization, "Basic ", 6) != 0)
		return false;
	const char *b64 = authorization + 6;
	while (*b64 == ' ')
		b64++;
	if (strlen(b64) > (WEBAUTH_MAX_CRED / 3 + 1) * 4)
		return false;
	long n = webauth_base64(b64, cred, WEBAUTH_MAX_CRED);
	if (n < 0)
		return false;
	cred[n] = '\0';
	if (strlen((char *)cred) != (size_t)n)
		return false; /* a NUL inside */
	char *colon = strchr((char *)cred, ':');
	if (!colon)
		return false;
	*colon = '\0';
	const char *user = (const char *)cred, *password = colon + 1;

	const struct webcfg_user *u = NULL;
	for (size_t i = 0; i < a->nusers; i++)
		if (strcmp(a->users[i].name, user) == 0)
			u = &a->users[i];

	struct crypt_data *cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	bool ok = false;
	/* The digest of user and password that a success is remembered by. */
	char keyed[WEBAUTH_MAX_CRED + 2], digest[DIGEST_MAX] = "";
	snprintf(keyed, sizeof(keyed), "%s\n%s", user, password);
	const char *d = a->cr->crypt_r(keyed, a->cache_setting, cd);
	if (u && d && d[0] == '$' && strlen(d) < sizeof(digest)) {
		snprintf(digest, sizeof(digest), "%s", d);
		pthread_mutex_lock(&a->mu);
		for (size_t i = 0; i < WEBAUTH_CACHE; i++)
			ok |= a->cache[i][0] && same(a->cache[i], digest);
		pthread_mutex_unlock(&a->mu);
	}
	if (!ok) {
		const char *hash = u ? u->hash : a->dummy;
		pthread_mutex_lock(&a->slow);
		const char *out = a->cr->crypt_r(password, hash, cd);
		ok = u && out && out[0] == '$' && same(out, hash);
		pthread_mutex_unlock(&a->slow);
		if (ok && digest[0]) {
			pthread_mutex_lock(&a->mu);
			snprintf(a->cache[a->cache_next], DIGEST_MAX, "%s", digest);
			a->cache_next = (a->cache_next + 1) % WEBAUTH_CACHE;
			pthread_mutex_unlock(&a->mu);
		}
	}
	explicit_bzero(cd, sizeof(*cd));
	explicit_bzero(cred, sizeof(cred));
	explicit_bzero(keyed, sizeof(keyed));
	free(cd);
	return ok;
}
