/* testutil: temporary directories and whole-file I/O for the unit tests. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/frame.h"
#include "model/process.h"

char *testutil_tmpdir(void)
{
	const char *base = getenv("GPUR_TEST_TMP");

	if (!base || !*base)
		base = "/tmp";
	/* The shared root stays searchable: e2e tests run an unprivileged user under it. */
	if (mkdir(base, 0755) != 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", base, strerror(errno));
	char *dir = testutil_path(base, "gpur-unit-XXXXXX");
	if (!mkdtemp(dir))
		fail_msg("mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

char *testutil_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	assert_non_null(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

void testutil_write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = data;

	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fail_msg("write %s: %s", path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	close(fd);
}

void testutil_write_str(const char *path, const char *s)
{
	testutil_write_file(path, s, strlen(s));
}

char *testutil_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) != 0)
		fail_msg("open %s: %s", path, strerror(errno));
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *data = malloc(cap);
	assert_non_null(data);
	for (;;) {
		if (n + 1 >= cap) { /* the file grew: make room */
			cap *= 2;
			data = realloc(data, cap);
			assert_non_null(data);
		}
		ssize_t r = read(fd, data + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			fail_msg("read %s: %s", path, strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	data[n] = '\0';
	if (len)
		*len = n;
	return data;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	if (remove(path) != 0 && errno != ENOENT)
		fail_msg("remove %s: %s", path, strerror(errno));
	return 0;
}

void testutil_rmtree(const char *path)
{
	if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
		fail_msg("nftw %s: %s", path, strerror(errno));
}

void testutil_proc_str(struct frame *f, struct gpu_process *p, unsigned b, const char *s)
{
	const struct field *fd = field_by_bit(PROCESS_FIELDS, PROCESS_NFIELDS, b);

	if (!fd || fd->type != FIELD_STR)
		fail_msg("not a string field: %u", b);
	*(const char **)field_ptr(p, fd) = frame_str(f, s);
	process_set(p, (enum process_field)b);
}
