/* xalloc: checked allocation; out of memory is fatal with a gpur: message. */
#include "util/xalloc.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void xalloc_die(void)
{
	static const char msg[] = "gpur: out of memory\n";
	ssize_t r = write(STDERR_FILENO, msg, sizeof(msg) - 1);

	(void)r;
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		xalloc_die();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		xalloc_die();
	return p;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		xalloc_die();
	size_t bytes = n * size;

	p = realloc(p, bytes ? bytes : 1);
	if (!p)
		xalloc_die();
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

void *xmap_zeroed(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		xalloc_die();
	return p;
}

void xunmap(void *p, size_t n)
{
	if (p)
		munmap(p, n ? n : 1);
}
