/* pick_lock: the lock directory, checked before it is trusted, and one
 * flock(2) per GPU in it. */
#include "pick/pick_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHARED_DIR "/run/gpur"

/* Where the locks live, written into out: $XDG_RUNTIME_DIR/gpur (a
 * directory of the user's own), else /run/gpur when it exists and may be
 * written, or may be made (as root), else /tmp/gpur-UID. *shared is set for
 * /run/gpur, which root may own for every user. */
static void lock_dir_path(char *out, size_t n, bool *shared)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	*shared = false;
	if (xdg && xdg[0] == '/') {
		snprintf(out, n, "%s/gpur", xdg);
		return;
	}
	if (lstat(SHARED_DIR, &st) == 0 ? S_ISDIR(st.st_mode) && access(SHARED_DIR, W_OK) == 0
					: errno == ENOENT && access("/run", W_OK) == 0) {
		snprintf(out, n, "%s", SHARED_DIR);
		*shared = true;
		return;
	}
	snprintf(out, n, "/tmp/gpur-%lu", (unsigned long)geteuid());
}

/* Checks that the directory open at fd, called path, is safe to keep locks
 * in. Returns 0, or -1 with a message in err. */
static int check_dir(int fd, const char *path, bool shared, char *err, size_t errlen)
{
	struct stat st;
	uid_t me = geteuid();

	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "--lock: %s: %s", path, strerror(errno));
		return -1;
	}
	if (st.st_uid != me && !(shared && st.st_uid == 0)) {
		snprintf(err, errlen, "--lock: %s belongs to uid %lu, not to you; refusing it", path,
			 (unsigned long)st.st_uid);
		return -1;
	}
	/* Others who may write it could swap a lock file for their own, unless
	 * the sticky bit keeps them to their own files. */
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(shared && (st.st_mode & S_ISVTX))) {
		snprintf(err, errlen, "--lock: %s may be written by others (mode %04o); refusing it", path,
			 (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int pick_lock_open_dir(bool create, char *err, size_t errlen)
{
	char path[4096];
	bool shared;

	err[0] = '\0';
	lock_dir_path(path, sizeof(path), &shared);
	if (create && mkdir(path, 0700) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "--lock: cannot make %s: %s", path, strerror(errno));
		return -1;
	}
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			snprintf(err, errlen, "--lock: %s is a symbolic link; refusing it", path);
		else if (errno != ENOENT || create)
			snprintf(err, errlen, "--lock: %s: %s", path, strerror(errno));
		return -1;
	}
	if (check_dir(fd, path, shared, err, errlen) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

const char *pick_lock_name(const char *id, char *out, size_t n)
{
	size_t k = 0;

	for (const char *p = id; *p && k + 6 < n && k < 200; p++) {
		char c = *p;
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
			     c == '_' || c == ':' || c == '-';
		out[k++] = plain ? c : '_';
	}
	/* "." and ".." are no files of ours. */
	if (k > 0 && k <= 2 && strspn(out, ".") == k)
		out[0] = '_';
	snprintf(out + k, n - k, ".lock");
	return out;
}

int pick_lock_take(int dirfd, const char *id)
{
	char name[256];
	/* Mode 0644, so that other users of a shared /run/gpur may open it
	 * read-only, which is all flock(2) needs. */
	int fd = openat(dirfd, pick_lock_name(id, name, sizeof(name)), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			0644);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno == EWOULDBLOCK ? EWOULDBLOCK : errno;
		close(fd);
		return -e;
	}
	return fd;
}

bool pick_lock_held(int dirfd, const char *id)
{
	char name[256];
	int fd = openat(dirfd, pick_lock_name(id, name, sizeof(name)), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd); /* which lets go of the shared lock, if it was taken */
	return held;
}
