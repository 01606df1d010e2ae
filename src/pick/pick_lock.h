/* pick_lock: the advisory locks of --wait --lock, one file per GPU in a
 * directory of gpur's, held with flock(2) while the command runs, so that
 * two gpur --wait --lock never give one GPU to two commands. The directory
 * is $XDG_RUNTIME_DIR/gpur, else /run/gpur where it may be written, else
 * /tmp/gpur-UID; gpur makes it mode 0700 and refuses a symbolic link, a
 * directory of another user (root's /run/gpur aside) and one that others
 * may write without the sticky bit. */
#ifndef GPUR_PICK_LOCK_H
#define GPUR_PICK_LOCK_H

#include <stdbool.h>
#include <stddef.h>

/* Opens the lock directory, making it when create is set, and returns a
 * descriptor of it (O_CLOEXEC) for the calls below. Returns -1 with a
 * message in err when it is unsafe or cannot be made, and -1 with err ""
 * when it does not exist and create is not set. */
int pick_lock_open_dir(bool create, char *err, size_t errlen);
/* Takes the lock of the GPU called id in dirfd without waiting. Returns
 * the descriptor that holds it (O_CLOEXEC, so a command does not inherit
 * it; closing it lets go), -EWOULDBLOCK when another holds it, or -errno
 * when the file cannot be opened. */
int pick_lock_take(int dirfd, const char *id);
/* Whether another process holds the lock of id; it takes nothing and
 * makes no file. */
bool pick_lock_held(int dirfd, const char *id);
/* Writes the lock file's name for id into out of n bytes: the id with
 * every byte but letters, digits, '.', '_', ':' and '-' made '_', and
 * ".lock". Returns out. */
const char *pick_lock_name(const char *id, char *out, size_t n);

#endif
