/* mhd_lib: libmicrohttpd through dlopen and one symbol table. */
#include "serve/mhd_lib.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mhd_sym {
	size_t off;
	bool required;
	const char *name;
};

#define SYM(field, req, name) {offsetof(struct mhd_lib, field), req, name}

static const struct mhd_sym SYMS[] = {
	SYM(start_daemon, true, "MHD_start_daemon"),
	SYM(stop_daemon, true, "MHD_stop_daemon"),
	SYM(response_from_buffer, true, "MHD_create_response_from_buffer"),
	SYM(response_from_iovec, false, "MHD_create_response_from_iovec"),
	SYM(add_response_header, true, "MHD_add_response_header"),
	SYM(queue_response, true, "MHD_queue_response"),
	SYM(destroy_response, true, "MHD_destroy_response"),
	SYM(lookup_connection_value, true, "MHD_lookup_connection_value"),
	SYM(get_connection_info, true, "MHD_get_connection_info"),
	SYM(quiesce_daemon, false, "MHD_quiesce_daemon"),
	SYM(get_daemon_info, false, "MHD_get_daemon_info"),
	SYM(is_feature_supported, false, "MHD_is_feature_supported"),
};

int mhd_lib_open(struct mhd_lib *l, char *err, size_t errlen)
{
	const char *env = getenv("GPUR_MHD_LIBRARY");
	const char *path = env && *env ? env : MHD_LIB_SONAME;

	memset(l, 0, sizeof(*l));
	l->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->dl) {
		const char *why = dlerror();
		snprintf(err, errlen, "%s: cannot load it (%s; Debian: apt-get install libmicrohttpd12)", path,
			 why ? why : "not found");
		return -1;
	}
	for (size_t i = 0; i < sizeof(SYMS) / sizeof(SYMS[0]); i++) {
		void *p = dlsym(l->dl, SYMS[i].name);
		if (!p && SYMS[i].required) {
			snprintf(err, errlen, "%s: lacks %s (libmicrohttpd too old?)", path, SYMS[i].name);
			mhd_lib_close(l);
			return -1;
		}
		/* POSIX lets a dlsym result convert to a function pointer. */
		memcpy((char *)l + SYMS[i].off, &p, sizeof(p));
	}
	return 0;
}

void mhd_lib_close(struct mhd_lib *l)
{
	if (l->dl)
		dlclose(l->dl);
	memset(l, 0, sizeof(*l));
}
