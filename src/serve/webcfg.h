/* webcfg: the exporter's web configuration file (--web-config), in the
 * format of Prometheus's exporter-toolkit, as node_exporter and
 * dcgm-exporter read it: tls_server_config, http_server_config and
 * basic_auth_users, and rate_limit (docs/exporter.md lists every key and
 * what gpur does with it). Loading reads the files the config names (the
 * certificate, its key, the client CA), checks them with GnuTLS and every
 * hash with libxcrypt, so that a config that loads is one the server can
 * use; nothing is read again while it serves. */
#ifndef GPUR_WEBCFG_H
#define GPUR_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

/* Bounds on what one file may hold. */
#define WEBCFG_MAX_FILE (1024 * 1024) /* the YAML file and each PEM file */
#define WEBCFG_MAX_USERS 1000
#define WEBCFG_MAX_SANS 100
#define WEBCFG_MAX_NAME 256 /* a user name or a SAN */

/* Go's tls.ClientAuthType, by the names the file uses. */
enum webcfg_client_auth {
	WEBCFG_NO_CLIENT_CERT,
	WEBCFG_REQUEST_CLIENT_CERT,
	WEBCFG_REQUIRE_ANY_CLIENT_CERT,
	WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

struct webcfg_user {
	char *name;
	char *hash; /* bcrypt */
};

struct webcfg_header {
	const char *name; /* one of the allowed names, static */
	char *value;
};

#define WEBCFG_NHEADERS 5

struct webcfg {
	bool tls;
	char *cert_pem, *key_pem; /* NUL-terminated PEM text, when tls */
	char *client_ca_pem;      /* or NULL */
	enum webcfg_client_auth client_auth;
	char **sans; /* client_allowed_sans */
	size_t nsans;
	/* The GnuTLS priority string made of min_version, max_version,
	 * curve_preferences and prefer_server_cipher_suites. */
	char priorities[256];
	struct webcfg_user *users;
	size_t nusers;
	struct webcfg_header headers[WEBCFG_NHEADERS];
	size_t nheaders;
	/* rate_limit: one request per interval_s on average, burst at once;
	 * interval_s 0 is no limit. */
	double rate_interval_s;
	unsigned rate_burst;
};

/* Loads path into c. Returns 0, or -1 with a message in err that names the
 * file and the key ("--web-config web.yml: tls_server_config.cert_file:
 * cannot read cert.pem: No such file or directory"), without "gpur: ".
 * Relative file names in it are taken from the file's own directory, as
 * the exporter-toolkit does. */
int webcfg_load(const char *path, struct webcfg *c, char *err, size_t errlen);
/* Parses the YAML text of a file (no file names are resolved and no
 * library but libyaml is used when check_files is false: for the fuzzer).
 * dir is where relative file names are taken from. */
int webcfg_parse(const char *text, size_t len, const char *path, const char *dir, bool check_files, struct webcfg *c,
		 char *err, size_t errlen);
/* Frees what c holds and zeroes it. */
void webcfg_free(struct webcfg *c);
/* The name the file uses for a client auth type. */
const char *webcfg_client_auth_name(enum webcfg_client_auth a);

#endif
