/* readfile: small whole-file reads relative to a configured root (procfs,
 * sysfs), bounded by the caller's buffer. */
#ifndef GPUR_READFILE_H
#define GPUR_READFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Reads root/rel into buf (NUL-terminated, at most n-1 bytes). Returns the
 * length read, or -errno. */
ssize_t readfile_at(const char *root, const char *rel, char *buf, size_t n);

/* Writes all of p[0..n) to fd, going on after EINTR and short writes.
 * 0, or -errno (a write of 0 bytes is -EIO). */
int writefile_all(int fd, const void *p, size_t n);
/* The same, relative to an open directory (openat). */
ssize_t readfile_fd(int dirfd, const char *rel, char *buf, size_t n);
/* Opens root as a directory for readfile_fd; -1 when it cannot. */
int readfile_opendir(const char *root);

#endif
