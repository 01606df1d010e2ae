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
 * 0, or -errno (a write of 0 bytes is -EIO). */
int writefile_all(int fd, const void *p, size_t n);
/* The same, relative to an open directory (openat). */
ssize_t readfile_fd(int dirfd, const char *rel, char *buf, size_t n);
/* Opens root as a directory for readfile_fd; -1 when it cannot. */
int readfile_opendir(const char *root);

/* Files read every poll can stay open and be read again from their start:
 * procfs generates them afresh at each read from offset 0, without the
 * path walk, allocation and close of opening them. Only a real procfs:
 * the plain files of a fixture tree are replaced, not rewritten. */
bool readfile_is_procfs(int dirfd);
/* Reads fd from offset 0 into buf (NUL-terminated, at most n-1 bytes) in
 * one read, leaving it open. Returns the length read, or -errno. */
ssize_t readfile_pread(int fd, char *buf, size_t n);
/* Reads rel under dirfd through *held: opens it the first time (keeping
 * it when keep), re-reads it with readfile_pread after. A failed read
 * closes it (*held = -1). Returns as readfile_at. */
ssize_t readfile_held(int dirfd, const char *rel, int *held, bool keep, char *buf, size_t n);

#endif
