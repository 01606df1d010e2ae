/* stub: live backends that are not built yet. Each is present in the
 * registry and answers open() with the reason, so `--backend` accepts its
 * name and the no-GPU message lists it. */
#ifndef GPUR_STUB_H
#define GPUR_STUB_H

#include "backend/backend.h"

extern const struct backend_ops BACKEND_AMDGPU;
extern const struct backend_ops BACKEND_INTEL;
extern const struct backend_ops BACKEND_DRM;

#endif
