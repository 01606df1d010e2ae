/* pciaddr: parsing and printing PCI addresses. */
#include "util/pciaddr.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

bool pciaddr_normalise(const char *s, char out[16])
{
	unsigned dom = 0, bus, dev, fn;
	int used = 0;
	char tmp[64];

	if (strlen(s) >= sizeof(tmp))
		return false;
	for (size_t i = 0; s[i]; i++)
		tmp[i] = (char)tolower((unsigned char)s[i]);
	tmp[strlen(s)] = '\0';
	if (sscanf(tmp, "%x:%x:%x.%u%n", &dom, &bus, &dev, &fn, &used) == 4 && tmp[used] == '\0') {
		/* NVML prints an 8-digit domain, of which the low 16 bits are the domain. */
		dom &= 0xffff;
	} else if (sscanf(tmp, "%x:%x.%u%n", &bus, &dev, &fn, &used) == 3 && tmp[used] == '\0') {
		dom = 0;
	} else {
		return false;
	}
	if (bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	snprintf(out, 16, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	return true;
}
