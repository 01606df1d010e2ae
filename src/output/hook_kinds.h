/* hook_kinds: which event kinds run the --on-event hook. A list item names
 * one kind exactly, or a group: "lost" (gpu_lost and backend_lost), "back"
 * (gpu_back and backend_back) and "all" (every kind, those a recording
 * carries that gpur does not know included). */
#ifndef GPUR_HOOK_KINDS_H
#define GPUR_HOOK_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One bit per kind that a list can name, and one for every other kind. */
enum hook_kind {
	HOOK_KIND_GPU_LOST,
	HOOK_KIND_GPU_BACK,
	HOOK_KIND_BACKEND_LOST,
	HOOK_KIND_BACKEND_BACK,
	HOOK_KIND_XID,
	HOOK_KIND_IDLE,
	HOOK_KIND_ACTIVE,
	HOOK_KIND_SIGNAL,
	HOOK_KIND_NOTE,
	HOOK_KIND_OTHER, /* a kind not named above, which only "all" takes */
	HOOK_KIND__COUNT
};

#define HOOK_KINDS_ALL ((UINT32_C(1) << HOOK_KIND__COUNT) - 1)
/* lost,back,xid,idle,signal: what a careful user wants to hear about. */
#define HOOK_KINDS_DEFAULT \
	(UINT32_C(1) << HOOK_KIND_GPU_LOST | UINT32_C(1) << HOOK_KIND_BACKEND_LOST | UINT32_C(1) << HOOK_KIND_GPU_BACK | \
	 UINT32_C(1) << HOOK_KIND_BACKEND_BACK | UINT32_C(1) << HOOK_KIND_XID | UINT32_C(1) << HOOK_KIND_IDLE | \
	 UINT32_C(1) << HOOK_KIND_SIGNAL)
/* The items a list may hold, as the usage error and the manual say them. */
#define HOOK_KINDS_KNOWN "all, lost, back, gpu_lost, gpu_back, backend_lost, backend_back, xid, idle, active, signal, note"

/* Reads a comma-separated list of items into *mask, a set of bits
 * (1 << enum hook_kind). Returns 0, or -1 with a one-line message in err
 * for an empty item or one that is not known, naming it and listing the
 * known ones. */
int hook_kinds_parse(const char *list, uint32_t *mask, char *err, size_t errlen);
/* Whether an event of kind, which may be NULL for an event without one,
 * runs the hook under mask. */
bool hook_kinds_match(uint32_t mask, const char *kind);
/* Writes up to max items for shell completion into out, the groups and the
 * short kinds first, and returns how many. The strings are static. */
size_t hook_kinds_words(const char **out, size_t max);

#endif
