/* drm: the backends of GPUs that the kernel's DRM drivers expose through
 * sysfs, hwmon and fdinfo: amdgpu, intel (i915 and xe) and drm, which serves
 * every other render driver (msm, panfrost, panthor, v3d and more). They are
 * one implementation with a table of driver descriptors (drm/drm_desc.h), and
 * share one fdinfo engine for their process rows. */
#ifndef GPUR_BACKEND_DRM_H
#define GPUR_BACKEND_DRM_H

#include "backend/backend.h"

extern const struct backend_ops BACKEND_AMDGPU;
extern const struct backend_ops BACKEND_INTEL;
extern const struct backend_ops BACKEND_DRM;

#endif
