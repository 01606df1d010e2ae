/* pick_exec: runs the command of --wait on the GPUs chosen for it. gpur
 * stays its parent, holding the --lock locks until it ends, passes on the
 * SIGINT, SIGTERM and SIGHUP sent to gpur, and exits with its status. */
#ifndef GPUR_PICK_EXEC_H
#define GPUR_PICK_EXEC_H

#include <stdbool.h>
#include <stddef.h>

/* What to run, once the GPUs are chosen. */
struct pick_launch {
	char **argv;   /* the command and its arguments, NULL-terminated; borrowed */
	char *value;   /* CUDA_VISIBLE_DEVICES for it */
	bool index;    /* the value holds indices, so CUDA must number GPUs in PCI order */
	int *locks;    /* the held lock descriptors, closed when the command ends */
	size_t nlocks;
};

/* Returns an empty launch for argv, which pick_launch_free() frees. */
struct pick_launch *pick_launch_new(char **argv);
/* Closes its locks and frees it. NULL is a no-op. */
void pick_launch_free(struct pick_launch *l);
/* Says "gpur: running on VALUE", runs the command with CUDA_VISIBLE_DEVICES
 * and GPUR_SELECTED set to the value (and CUDA_DEVICE_ORDER=PCI_BUS_ID for
 * indices), waits for it and frees l. Returns the command's exit status,
 * 128 + N when signal N ended it, 127 when it is not found and 126 when it
 * cannot be run, the last two with a message. */
int pick_exec(struct pick_launch *l);

#endif
