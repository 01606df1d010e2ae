/* weblib: libyaml, libxcrypt and GnuTLS through dlopen and symbol tables. */
#include "serve/weblib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct sym {
	size_t off;
	const char *name;
};

#define SYM(type, field, name) {offsetof(struct type, field), name}

static const struct sym YAML_SYMS[] = {
	SYM(weblib_yaml, parser_initialize, "yaml_parser_initialize"),
	SYM(weblib_yaml, parser_set_input_string, "yaml_parser_set_input_string"),
	SYM(weblib_yaml, parser_load, "yaml_parser_load"),
	SYM(weblib_yaml, parser_delete, "yaml_parser_delete"),
	SYM(weblib_yaml, document_get_root_node, "yaml_document_get_root_node"),
	SYM(weblib_yaml, document_get_node, "yaml_document_get_node"),
	SYM(weblib_yaml, document_delete, "yaml_document_delete"),
};

static const struct sym CRYPT_SYMS[] = {
	SYM(weblib_crypt, crypt_r, "crypt_r"),
};

static const struct sym GNUTLS_SYMS[] = {
	SYM(weblib_gnutls, cert_alloc, "gnutls_certificate_allocate_credentials"),
	SYM(weblib_gnutls, cert_free, "gnutls_certificate_free_credentials"),
	SYM(weblib_gnutls, set_key_mem2, "gnutls_certificate_set_x509_key_mem2"),
	SYM(weblib_gnutls, set_trust_mem, "gnutls_certificate_set_x509_trust_mem"),
	SYM(weblib_gnutls, priority_init, "gnutls_priority_init"),
	SYM(weblib_gnutls, priority_deinit, "gnutls_priority_deinit"),
	SYM(weblib_gnutls, strerror, "gnutls_strerror"),
	SYM(weblib_gnutls, server_set_request, "gnutls_certificate_server_set_request"),
	SYM(weblib_gnutls, get_peers, "gnutls_certificate_get_peers"),
	SYM(weblib_gnutls, verify_peers, "gnutls_certificate_verify_peers"),
	SYM(weblib_gnutls, crt_init, "gnutls_x509_crt_init"),
	SYM(weblib_gnutls, crt_deinit, "gnutls_x509_crt_deinit"),
	SYM(weblib_gnutls, crt_import, "gnutls_x509_crt_import"),
	SYM(weblib_gnutls, crt_get_san, "gnutls_x509_crt_get_subject_alt_name"),
};

/* One library: its struct (whose first member is the handle), its symbols,
 * and what to say when it is missing. */
struct lib {
	void *table;
	const struct sym *syms;
	size_t nsyms;
	const char *soname, *package;
	bool tried;
	char err[384];
};

static struct weblib_yaml yaml_lib;
static struct weblib_crypt crypt_lib;
static struct weblib_gnutls gnutls_lib;
static struct lib LIBS[] = {
	{&yaml_lib, YAML_SYMS, sizeof(YAML_SYMS) / sizeof(YAML_SYMS[0]), WEBLIB_YAML_SONAME, "libyaml-0-2", false, ""},
	{&crypt_lib, CRYPT_SYMS, sizeof(CRYPT_SYMS) / sizeof(CRYPT_SYMS[0]), WEBLIB_CRYPT_SONAME, "libcrypt1", false, ""},
	{&gnutls_lib, GNUTLS_SYMS, sizeof(GNUTLS_SYMS) / sizeof(GNUTLS_SYMS[0]), WEBLIB_GNUTLS_SONAME, "libgnutls30", false,
	 ""},
};
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int load(struct lib *l, char *err, size_t errlen)
{
	pthread_mutex_lock(&mu);
	if (!l->tried) {
		l->tried = true;
		void *dl = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
		if (!dl) {
			const char *why = dlerror();
			snprintf(l->err, sizeof(l->err), "%s: cannot load it (%s; Debian: apt-get install %s)", l->soname,
				 why ? why : "not found", l->package);
		}
		for (size_t i = 0; dl && i < l->nsyms; i++) {
			void *p = dlsym(dl, l->syms[i].name);
			if (!p) {
				snprintf(l->err, sizeof(l->err), "%s: lacks %s (too old?)", l->soname, l->syms[i].name);
				dlclose(dl);
				dl = NULL;
				break;
			}
			/* POSIX lets a dlsym result convert to a function pointer. */
			memcpy((char *)l->table + l->syms[i].off, &p, sizeof(p));
		}
		memcpy(l->table, &dl, sizeof(dl));
	}
	void *dl;
	memcpy(&dl, l->table, sizeof(dl));
	if (!dl)
		snprintf(err, errlen, "%s", l->err);
	pthread_mutex_unlock(&mu);
	return dl ? 0 : -1;
}

int weblib_yaml(const struct weblib_yaml **out, char *err, size_t errlen)
{
	*out = &yaml_lib;
	return load(&LIBS[0], err, errlen);
}

int weblib_crypt(const struct weblib_crypt **out, char *err, size_t errlen)
{
	*out = &crypt_lib;
	return load(&LIBS[1], err, errlen);
}

int weblib_gnutls(const struct weblib_gnutls **out, char *err, size_t errlen)
{
	*out = &gnutls_lib;
	return load(&LIBS[2], err, errlen);
}
