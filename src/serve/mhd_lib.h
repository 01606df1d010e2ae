/* mhd_lib: libmicrohttpd loaded with dlopen when --serve starts, so that the
 * dashboard alone never maps it and a mode pays only for the libraries it
 * uses. The prototypes are the real header's. */
#ifndef GPUR_MHD_LIB_H
#define GPUR_MHD_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

#define MHD_LIB_SONAME "libmicrohttpd.so.12"

struct mhd_lib {
	void *dl;
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *response_from_buffer;
	__typeof__(MHD_create_response_from_iovec) *response_from_iovec; /* 0.9.72 and later, and may be NULL */
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_quiesce_daemon) *quiesce_daemon;             /* may be NULL */
	__typeof__(MHD_get_daemon_info) *get_daemon_info;           /* may be NULL */
	__typeof__(MHD_is_feature_supported) *is_feature_supported; /* may be NULL */
};

/* Loads the library from GPUR_MHD_LIBRARY, or else MHD_LIB_SONAME through the
 * loader's search. Returns 0, or -1 with the reason, naming the file, in
 * err. */
int mhd_lib_open(struct mhd_lib *l, char *err, size_t errlen);
/* Unloads the library. A zeroed or closed struct is a no-op. */
void mhd_lib_close(struct mhd_lib *l);

#endif
