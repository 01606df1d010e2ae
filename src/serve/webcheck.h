/* webcheck: the client-certificate rule of --web-config for one request:
 * client_auth_type, verification against client_ca_file for client
 * authentication, and client_allowed_sans. */
#ifndef GPUR_SERVE_WEBCHECK_H
#define GPUR_SERVE_WEBCHECK_H

#include <stdbool.h>

#include "serve/mhd_lib.h"
#include "serve/webcfg.h"
#include "serve/weblib.h"

/* Whether the connection c's client certificate passes cfg's rule (always
 * true without TLS, or where no certificate is asked for). g is GnuTLS as
 * loaded for cfg, lib libmicrohttpd. */
bool webcheck_client_cert(const struct webcfg *cfg, const struct weblib_gnutls *g, const struct mhd_lib *lib,
			  struct MHD_Connection *c);

#endif
