/* webcheck: the client-certificate rule of --web-config (webcheck.h). */
#include "serve/webcheck.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/* Whether a SAN of the certificate is one of the allowed names. An IP
 * address is compared in its text form. */
static bool san_allowed(const struct webcfg *cfg, const struct weblib_gnutls *g, gnutls_x509_crt_t crt)
{
	for (unsigned seq = 0; seq < 64; seq++) {
		char buf[WEBCFG_MAX_NAME + 1], text[INET6_ADDRSTRLEN];
		size_t len = sizeof(buf) - 1;
		unsigned critical;
		int type = g->crt_get_san(crt, seq, buf, &len, &critical);
		if (type == GNUTLS_E_SHORT_MEMORY_BUFFER)
			continue; /* longer than any allowed name */
		if (type < 0)
			return false;
		const char *name = buf;
		if (type == GNUTLS_SAN_IPADDRESS) {
			if (!inet_ntop(len == 16 ? AF_INET6 : AF_INET, buf, text, sizeof(text)) || (len != 4 && len != 16))
				continue;
			name = text;
		} else {
			buf[len] = '\0';
			if (strlen(buf) != len)
				continue;
		}
		for (size_t i = 0; i < cfg->nsans; i++)
			if (strcmp(name, cfg->sans[i]) == 0)
				return true;
	}
	return false;
}

bool webcheck_client_cert(const struct webcfg *cfg, const struct weblib_gnutls *g, const struct mhd_lib *lib,
			  struct MHD_Connection *c)
{
	enum webcfg_client_auth a = cfg->client_auth;
	if (!cfg->tls || a == WEBCFG_NO_CLIENT_CERT || a == WEBCFG_REQUEST_CLIENT_CERT)
		return true;
	const union MHD_ConnectionInfo *ci = lib->get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!ci || !ci->tls_session)
		return false;
	gnutls_session_t session = (gnutls_session_t)ci->tls_session;
	unsigned n = 0;
	const gnutls_datum_t *peers = g->get_peers(session, &n);
	if (!peers || n == 0)
		return a == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN;
	if (a == WEBCFG_REQUIRE_ANY_CLIENT_CERT)
		return true;
	/* Verified against the client CA, in its time, and for client
	 * authentication: a certificate whose extended key usage leaves that
	 * out (one made for a server only) is refused, as Go's TLS does. */
	unsigned status = 1;
	gnutls_typed_vdata_st purpose = {GNUTLS_DT_KEY_PURPOSE_OID, (unsigned char *)(uintptr_t)GNUTLS_KP_TLS_WWW_CLIENT, 0};
	if (g->verify_peers(session, &purpose, 1, &status) < 0 || status != 0)
		return false;
	if (!cfg->nsans)
		return true;
	gnutls_x509_crt_t crt;
	if (g->crt_init(&crt) < 0)
		return false;
	bool ok = g->crt_import(crt, &peers[0], GNUTLS_X509_FMT_DER) >= 0 && san_allowed(cfg, g, crt);
	g->crt_deinit(crt);
	return ok;
}
