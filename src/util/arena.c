/* arena: chunked bump allocation for frame strings and small records. */
#include "util/arena.h"

#include <stdint.h>
#include <string.h>

#include "util/xalloc.h"

#define ARENA_CHUNK 16384u

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->total = 0;
}

void arena_fini(struct arena *a)
{
	struct arena_chunk *c = a->head;

	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->total = 0;
}

void *arena_alloc(struct arena *a, size_t n)
{
	const size_t align = sizeof(max_align_t);
	struct arena_chunk *c = a->head;
	size_t need = (n + align - 1) & ~(align - 1);

	if (need < n)
		xalloc_die();
	if (!c || c->size - c->used < need) {
		size_t size = need > ARENA_CHUNK ? need : ARENA_CHUNK;

		if (size > SIZE_MAX - sizeof(*c))
			xalloc_die();
		c = xmalloc(sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		/* A large one-off allocation goes behind the current chunk so
		 * the current chunk's free space is not wasted. */
		if (a->head && need > ARENA_CHUNK) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	void *p = (char *)c->data + c->used;
	c->used += need;
	a->total += need;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}
