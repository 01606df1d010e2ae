/* readfile: bounded reads of procfs/sysfs files. */
#include "util/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

ssize_t readfile_at(const char *root, const char *rel, char *buf, size_t n)
{
	char path[4096];
	size_t len = 0;
	int fd;

	if (n == 0)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
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
