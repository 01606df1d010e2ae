/* weblib: the libraries of --web-config, loaded with dlopen when it is used,
 * as libmicrohttpd is, so that a gpur without --web-config never maps them:
 * libyaml (the file), libxcrypt (bcrypt hashes) and GnuTLS (certificates;
 * libmicrohttpd's own TLS library, already loaded with it). The prototypes
 * are the real headers'. */
#ifndef GPUR_WEBLIB_H
#define GPUR_WEBLIB_H

#include <stddef.h>

#include <crypt.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <yaml.h>

#define WEBLIB_YAML_SONAME "libyaml-0.so.2"
#define WEBLIB_CRYPT_SONAME "libcrypt.so.1"
#define WEBLIB_GNUTLS_SONAME "libgnutls.so.30"

struct weblib_yaml {
	void *dl;
	__typeof__(yaml_parser_initialize) *parser_initialize;
	__typeof__(yaml_parser_set_input_string) *parser_set_input_string;
	__typeof__(yaml_parser_load) *parser_load;
	__typeof__(yaml_parser_delete) *parser_delete;
	__typeof__(yaml_document_get_root_node) *document_get_root_node;
	__typeof__(yaml_document_get_node) *document_get_node;
	__typeof__(yaml_document_delete) *document_delete;
};

struct weblib_crypt {
	void *dl;
	__typeof__(crypt_r) *crypt_r;
};

struct weblib_gnutls {
	void *dl;
	__typeof__(gnutls_certificate_allocate_credentials) *cert_alloc;
	__typeof__(gnutls_certificate_free_credentials) *cert_free;
	__typeof__(gnutls_certificate_set_x509_key_mem2) *set_key_mem2;
	__typeof__(gnutls_certificate_set_x509_trust_mem) *set_trust_mem;
	__typeof__(gnutls_priority_init) *priority_init;
	__typeof__(gnutls_priority_deinit) *priority_deinit;
	__typeof__(gnutls_strerror) *strerror;
	__typeof__(gnutls_certificate_server_set_request) *server_set_request;
	__typeof__(gnutls_certificate_get_peers) *get_peers;
	__typeof__(gnutls_certificate_verify_peers) *verify_peers;
	__typeof__(gnutls_x509_crt_init) *crt_init;
	__typeof__(gnutls_x509_crt_deinit) *crt_deinit;
	__typeof__(gnutls_x509_crt_import) *crt_import;
	__typeof__(gnutls_x509_crt_get_subject_alt_name) *crt_get_san;
};

/* Each loads its library (or returns 0 at once when it is loaded) and every
 * symbol. Returns 0, or -1 with the reason, naming the file and the Debian
 * package, in err. The loaded libraries stay for the process's life: a
 * reload of the file reuses them. */
int weblib_yaml(const struct weblib_yaml **out, char *err, size_t errlen);
int weblib_crypt(const struct weblib_crypt **out, char *err, size_t errlen);
int weblib_gnutls(const struct weblib_gnutls **out, char *err, size_t errlen);

#endif
