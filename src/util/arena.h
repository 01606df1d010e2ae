/* arena: a bump allocator whose memory is released all at once.
 * Frames keep their strings here, so freeing a frame is one call. */
#ifndef GPUR_ARENA_H
#define GPUR_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	size_t total; /* bytes handed out, for accounting and tests */
};

void arena_init(struct arena *a);
/* Releases every chunk; the arena is empty and reusable afterwards. */
void arena_fini(struct arena *a);
/* Returns n bytes aligned for any scalar type. It never returns NULL, because
 * an allocation failure ends the process. */
void *arena_alloc(struct arena *a, size_t n);
/* Returns a copy of s[0..n) plus a NUL, owned by the arena. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Returns a copy of a NUL-terminated string, owned by the arena, or NULL
 * when s is NULL. */
char *arena_strdup(struct arena *a, const char *s);

#endif
