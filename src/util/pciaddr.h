/* pciaddr: PCI addresses in one canonical form, whoever wrote them (NVML's
 * 8-digit domain, sysfs slot names, a user's short "3b:00.0"). */
#ifndef GPUR_PCIADDR_H
#define GPUR_PCIADDR_H

#include <stdbool.h>

/* Writes the canonical PCI bus id of s into out, in lowercase with a 4-digit
 * domain: "00000000:3B:00.0" and "3b:00.0" both give "0000:3b:00.0". Returns
 * false, leaving out untouched, when s is not a PCI address. */
bool pciaddr_normalise(const char *s, char out[16]);

#endif
