/* backend: dispatch wrappers and the registry of live backends. */
#include "backend/backend.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend/nvml.h"
#include "backend/drm.h"
#include "util/xalloc.h"

/* Detection order is display order, with NVIDIA first and then the DRM
 * drivers. */
const struct backend_ops *const BACKEND_REGISTRY[] = {
	&BACKEND_NVML, &BACKEND_AMDGPU, &BACKEND_INTEL, &BACKEND_DRM,
};
const size_t BACKEND_REGISTRY_LEN = sizeof(BACKEND_REGISTRY) / sizeof(BACKEND_REGISTRY[0]);

const struct backend_ops *backend_find(const char *name, size_t len)
{
	for (size_t i = 0; i < BACKEND_REGISTRY_LEN; i++)
		if (strlen(BACKEND_REGISTRY[i]->name) == len && memcmp(BACKEND_REGISTRY[i]->name, name, len) == 0)
			return BACKEND_REGISTRY[i];
	return NULL;
}

struct backend *backend_new(const struct backend_ops *ops)
{
	struct backend *b = xcalloc(1, sizeof(*b));

	b->ops = ops;
	return b;
}

void backend_free(struct backend *b)
{
	if (!b)
		return;
	backend_close(b);
	free(b);
}

void backend_fail(struct backend *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->error, sizeof(b->error), fmt, ap);
	va_end(ap);
}

int backend_open(struct backend *b, const struct backend_env *env)
{
	b->error[0] = '\0';
	int r = b->ops->open(b, env);
	if (r < 0 && !b->error[0])
		backend_fail(b, "%s", strerror(-r));
	return r;
}

int backend_poll(struct backend *b, struct frame *f)
{
	return b->ops->poll(b, f);
}

int backend_reinit(struct backend *b)
{
	return b->ops->reinit ? b->ops->reinit(b) : 0;
}

struct fleet *backend_fleet(struct backend *b)
{
	return b->priv && b->ops->fleet ? b->ops->fleet(b) : NULL;
}

bool backend_can_signal(const struct backend *b)
{
	return b->ops->can_signal ? b->ops->can_signal(b) : false;
}

bool backend_is_local(const struct backend *b)
{
	return b->ops->is_remote ? !b->ops->is_remote(b) : true;
}

void backend_close(struct backend *b)
{
	if (b->priv && b->ops->close)
		b->ops->close(b);
	b->priv = NULL;
}
