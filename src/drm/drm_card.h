/* drm_card: DRM card discovery under a sysfs root. It finds class/drm/cardN
 * only, never connectors such as card0-DP-1, and the device behind it (a PCI
 * address or a platform device's name), its driver, PCI ids, human name and
 * render node. It reads only identity files, which never wake a
 * runtime-suspended device. */
#ifndef GPUR_DRM_CARD_H
#define GPUR_DRM_CARD_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

#define DRM_CARD_MAX 64

struct drm_card {
	char card[16];       /* "card1" */
	char render[16];     /* "renderD129", or "" when none */
	char devname[64];    /* the device's sysfs name, such as "0000:03:00.0" or "3d00000.gpu" */
	char driver[32];     /* "amdgpu" */
	bool pci;            /* devname is a PCI address, normalised in pci_bus_id */
	char pci_bus_id[16]; /* "0000:03:00.0" */
	char device_id[128]; /* "pci:0000:03:00.0", "drm:msm:3d00000.gpu" */
	bool ids_known;
	unsigned vendor, device, subvendor, subdevice;
	char name[256];      /* product_name, the pci.ids name, or "<driver> <ids>" */
};

/* Whether s[0..len) is "card" followed by digits only. */
bool drm_card_is_card(const char *s);

/* Opens the directory rel under dirfd. Returns NULL, with errno set, when it
 * is not a directory. */
DIR *drm_card_opendir(int dirfd, const char *rel);

/* Writes into out, at most max of them and sorted by card number, the cards
 * under sysfs whose driver `want(driver, ctx)` accepts; cards bound to nvidia
 * are never offered. Returns how many, or -errno when sysfs/class/drm cannot
 * be listed. A card without a device or driver link is skipped. */
int drm_card_scan(int sysfs_fd, bool (*want)(const char *driver, const void *ctx), const void *ctx, struct drm_card *out,
		  size_t max);

/* Writes the human name of PCI ids into out, from pci.ids through libpci.
 * GPUR_PCI_IDS names another ids file, and the udev hwdb is not asked.
 * Returns false when the ids are not listed or gpur was built without
 * libpci. */
bool drm_card_pci_name(unsigned vendor, unsigned device, unsigned subvendor, unsigned subdevice, char *out,
		       size_t n);

#endif
