/* readfile: bounded reads of procfs/sysfs files. */
#include "util/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/vfs.h>
#include <unistd.h>

#define PROCFS_MAGIC 0x9fa0 /* PROC_SUPER_MAGIC, statfs(2) */

/* Reads all of fd (closed here) into buf. */
static ssize_t read_all(int fd, char *buf, size_t n)
{
	size_t len = 0;

	while (len < n - 1) {
		ssize_t r = read(fd, buf + len, n - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

int writefile_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

ssize_t readfile_at(const char *root, const char *rel, char *buf, size_t n)
{
	char path[4096];
	int fd;

	if (n == 0)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return read_all(fd, buf, n);
}

ssize_t readfile_fd(int dirfd, const char *rel, char *buf, size_t n)
{
	if (n == 0)
		return -EINVAL;
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	return read_all(fd, buf, n);
}

int readfile_opendir(const char *root)
{
	return open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

bool readfile_is_procfs(int dirfd)
{
	struct statfs sf;

	return dirfd >= 0 && fstatfs(dirfd, &sf) == 0 && sf.f_type == PROCFS_MAGIC;
}

ssize_t readfile_pread(int fd, char *buf, size_t n)
{
	ssize_t r;

	if (n == 0)
		return -EINVAL;
	/* One read is enough: procfs fills the buffer as far as the file and
	 * the buffer go, so a second read would only cost a system call to
	 * learn of the end. */
	do
		r = pread(fd, buf, n - 1, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	buf[r] = '\0';
	return r;
}

ssize_t readfile_held(int dirfd, const char *rel, int *held, bool keep, char *buf, size_t n)
{
	if (*held < 0) {
		if (!keep)
			return dirfd >= 0 ? readfile_fd(dirfd, rel, buf, n) : -EBADF;
		*held = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (*held < 0)
			return -errno;
	}
	ssize_t r = readfile_pread(*held, buf, n);
	if (r <= 0) {
		close(*held);
		*held = -1;
	}
	return r;
}
