/* stub: placeholders for live backends that later work fills in. */
#include "backend/stub.h"

#include <errno.h>

static int stub_open(struct backend *b, const struct backend_env *env)
{
	(void)env;
	backend_fail(b, "this backend is not built into this version of gpur yet");
	return -ENOSYS;
}

static int stub_poll(struct backend *b, struct frame *f)
{
	(void)b;
	(void)f;
	return -ENODEV;
}

const struct backend_ops BACKEND_AMDGPU = {.name = "amdgpu", .open = stub_open, .poll = stub_poll};
const struct backend_ops BACKEND_INTEL = {.name = "intel", .open = stub_open, .poll = stub_poll};
const struct backend_ops BACKEND_DRM = {.name = "drm", .open = stub_open, .poll = stub_poll};
