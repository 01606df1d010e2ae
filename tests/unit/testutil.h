/* testutil: small helpers shared by the unit tests: a private temporary
 * directory, whole-file writes and reads, and removing a tree. Every helper
 * fails the running cmocka test on error, so callers need no checks. */
#ifndef GPUR_TESTUTIL_H
#define GPUR_TESTUTIL_H

#include <stddef.h>

/* A new empty directory under $GPUR_TEST_TMP (created if missing), else
 * /tmp. The caller removes it with testutil_rmtree() and frees the path. */
char *testutil_tmpdir(void);
/* dir + "/" + name; the caller frees. */
char *testutil_path(const char *dir, const char *name);
/* Creates or replaces path with data[0..len). */
void testutil_write_file(const char *path, const void *data, size_t len);
/* Same, for a NUL-terminated string. */
void testutil_write_str(const char *path, const char *s);
/* The whole file plus a NUL (not counted in *len, which may be NULL); the
 * caller frees. */
char *testutil_read_file(const char *path, size_t *len);
/* Removes path and everything below it (symlinks are not followed); a
 * missing path is fine. */
void testutil_rmtree(const char *path);

struct frame;
struct gpu_process;
/* Sets p's string field of validity bit b (a PROC_F_*) to a copy of s in f's
 * arena, and marks it known; fails the test for a field that is no string. */
void testutil_proc_str(struct frame *f, struct gpu_process *p, unsigned b, const char *s);

#endif
