/* readfile: small whole-file reads relative to a configured root (procfs,
 * sysfs), bounded by the caller's buffer. */
#ifndef GPUR_READFILE_H
#define GPUR_READFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads root/rel into buf (NUL-terminated, at most n-1 bytes). Returns the
 * length read, or -errno. */
ssize_t readfile_at(const char *root, const char *rel, char *buf, size_t n);

/* Writes all of p[0..n) to fd, going on after EINTR and short writes.
 * Returns 0 or -errno; a write that writes 0 bytes gives -EIO. */
int writefile_all(int fd, const void *p, size_t n);
/* Reads rel under the open directory dirfd (with openat) as readfile_at
 * reads root/rel. */
ssize_t readfile_fd(int dirfd, const char *rel, char *buf, size_t n);
/* Opens root as a directory for readfile_fd; -1 when it cannot. */
int readfile_opendir(const char *root);

/* True when dirfd is a real procfs. Its files that are read every poll can
 * then stay open and be read again from their start, because procfs
 * generates them afresh at each read from offset 0; that saves the path
 * walk, allocation and close of opening them. The plain files of a fixture
 * tree are replaced rather than rewritten, so they cannot be held open. */
bool readfile_is_procfs(int dirfd);
/* Reads fd from offset 0 into buf (NUL-terminated, at most n-1 bytes) in
 * one read, leaving it open. Returns the length read, or -errno. */
ssize_t readfile_pread(int fd, char *buf, size_t n);
/* Reads rel under dirfd through the descriptor *held. The first call opens
 * the file, and keeps it open when keep is set; later calls re-read it with
 * readfile_pread. A failed read closes it and sets *held to -1. Returns what
 * readfile_at returns. */
ssize_t readfile_held(int dirfd, const char *rel, int *held, bool keep, char *buf, size_t n);

#endif
