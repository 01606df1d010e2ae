/* nvml: the NVIDIA backend (NVML loaded with dlopen). */
#ifndef GPUR_NVML_H
#define GPUR_NVML_H

#include "backend/backend.h"

extern const struct backend_ops BACKEND_NVML;

#endif
