/* webauth: HTTP basic authentication against the bcrypt hashes of
 * basic_auth_users. A bcrypt check costs tens of milliseconds by design, so
 * a success is remembered, as the exporter-toolkit does: by a salted
 * SHA-256-crypt digest of the user and password under a key made at start,
 * never the password itself, and compared in constant time. A name that is
 * not a user is checked against a dummy hash of the same cost, so that the
 * time of a refusal does not say whether the user exists. */
#ifndef GPUR_WEBAUTH_H
#define GPUR_WEBAUTH_H

#include <stdbool.h>

#include "serve/webcfg.h"

#define WEBAUTH_CACHE 32    /* successes remembered */
#define WEBAUTH_MAX_CRED 1024 /* bytes of a decoded user:password */

struct webauth;

/* Takes c's users (copied), with libxcrypt loaded. Returns NULL, with the
 * reason in err, when libxcrypt cannot be loaded or random bytes cannot be
 * had. */
struct webauth *webauth_new(const struct webcfg *c, char *err, size_t errlen);
void webauth_free(struct webauth *a);
/* True when the Authorization header value (NULL when there is none) holds
 * the Basic credentials of a user. Any thread may call it. */
bool webauth_check(struct webauth *a, const char *authorization);
/* Decodes standard base64 with padding into out (at most n bytes). Returns
 * the length, or -1 when it is not base64 or does not fit. */
long webauth_base64(const char *in, unsigned char *out, size_t n);

#endif
