/* drm_card: DRM card discovery and identity. A card is class/drm/cardN, not a
 * connector such as cardN-DP-1, with its device link, driver, PCI ids and
 * render node. */
#include "drm/drm_card.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GPUR_HAVE_LIBPCI
#include <pci/pci.h>
#endif

#include "util/pciaddr.h"
#include "util/kvparse.h"
#include "util/readfile.h"

/* Whether s is prefix followed by one or more digits only. */
static bool numbered(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n) != 0 || !s[n])
		return false;
	for (s += n; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool drm_card_is_card(const char *s)
{
	return numbered(s, "card");
}

DIR *drm_card_opendir(int dirfd, const char *rel)
{
	int fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* Writes the last component of the link rel under dirfd into out. */
static bool link_base(int dirfd, const char *rel, char *out, size_t n)
{
	char target[512];
	ssize_t len = readlinkat(dirfd, rel, target, sizeof(target) - 1);

	if (len <= 0)
		return false;
	target[len] = '\0';
	while (len > 1 && target[len - 1] == '/')
		target[--len] = '\0';
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || strlen(base) >= n)
		return false;
	memcpy(out, base, strlen(base) + 1);
	return true;
}

/* Reads a sysfs hex id file ("0x1002\n"). */
static bool read_hex(int dirfd, const char *rel, unsigned *out)
{
	char buf[32];
	ssize_t len = readfile_fd(dirfd, rel, buf, sizeof(buf));
	unsigned v = 0;
	size_t i = 2, digits = 0;

	if (len < 3 || buf[0] != '0' || (buf[1] != 'x' && buf[1] != 'X'))
		return false;
	for (; i < (size_t)len && kvparse_hexval(buf[i]) >= 0 && digits < 4; i++, digits++)
		v = v << 4 | (unsigned)kvparse_hexval(buf[i]);
	if (digits == 0 || kvparse_trim_end(buf + i, (size_t)len - i) != 0)
		return false;
	*out = v;
	return true;
}

#ifdef GPUR_HAVE_LIBPCI
/* libpci ends the process from its error callback, as on a malformed ids
 * file, so this callback jumps back to the lookup instead. Each thread runs
 * one lookup at a time. */
static _Thread_local jmp_buf *pci_bail;

__attribute__((noreturn)) static void pci_error(char *msg, ...)
{
	(void)msg;
	if (pci_bail)
		longjmp(*pci_bail, 1);
	abort();
}

static void pci_quiet(char *msg, ...)
{
	(void)msg;
}

static struct pci_access *pci_names_open(void)
{
	struct pci_access *a = pci_alloc();
	const char *ids = getenv("GPUR_PCI_IDS");

	if (!a)
		return NULL;
	a->error = pci_error;
	a->warning = pci_quiet;
	a->debug = pci_quiet;
	if (ids && *ids) {
		char *copy = strdup(ids);
		if (copy)
			pci_set_name_list_path(a, copy, 1);
	}
	return a;
}

static bool pci_names_lookup(struct pci_access *a, unsigned vendor, unsigned device, char *out, size_t n)
{
	jmp_buf env;
	char buf[256];
	const char *volatile name = NULL;

	if (!a)
		return false;
	if (setjmp(env) == 0) {
		pci_bail = &env;
		name = pci_lookup_name(a, buf, sizeof(buf), PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB,
				       vendor, device);
	}
	pci_bail = NULL;
	if (!name || !*name)
		return false;
	snprintf(out, n, "%s", (const char *)name);
	return true;
}

static void pci_names_close(struct pci_access *a)
{
	if (a)
		pci_cleanup(a);
}
#else
struct pci_access;
static struct pci_access *pci_names_open(void)
{
	return NULL;
}
static bool pci_names_lookup(struct pci_access *a, unsigned vendor, unsigned device, char *out, size_t n)
{
	(void)a;
	(void)vendor;
	(void)device;
	(void)out;
	(void)n;
	return false;
}
static void pci_names_close(struct pci_access *a)
{
	(void)a;
}
#endif

bool drm_card_pci_name(unsigned vendor, unsigned device, unsigned subvendor, unsigned subdevice, char *out,
		       size_t n)
{
	struct pci_access *a = pci_names_open();
	bool ok = pci_names_lookup(a, vendor, device, out, n);

	(void)subvendor;
	(void)subdevice;
	pci_names_close(a);
	return ok;
}

/* The first renderD* of the card's device, or "" when there is none. */
static void find_render(int drm_fd, const char *card, char *out, size_t n)
{
	char rel[64];
	struct dirent *de;

	out[0] = '\0';
	snprintf(rel, sizeof(rel), "%s/device/drm", card);
	DIR *d = drm_card_opendir(drm_fd, rel);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (numbered(de->d_name, "renderD") && strlen(de->d_name) < n && (!out[0] || strcmp(de->d_name, out) < 0))
			memcpy(out, de->d_name, strlen(de->d_name) + 1);
	closedir(d);
}

static bool read_identity(int drm_fd, struct drm_card *c)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "%s/device", c->card);
	if (!link_base(drm_fd, rel, c->devname, sizeof(c->devname)))
		return false;
	snprintf(rel, sizeof(rel), "%s/device/driver", c->card);
	if (!link_base(drm_fd, rel, c->driver, sizeof(c->driver)))
		return false;
	c->pci = pciaddr_normalise(c->devname, c->pci_bus_id);
	if (c->pci)
		snprintf(c->device_id, sizeof(c->device_id), "pci:%s", c->pci_bus_id);
	else
		snprintf(c->device_id, sizeof(c->device_id), "drm:%s:%s", c->driver, c->devname);
	const char *ids[] = {"vendor", "device", "subsystem_vendor", "subsystem_device"};
	unsigned *vals[] = {&c->vendor, &c->device, &c->subvendor, &c->subdevice};
	c->ids_known = c->pci;
	for (size_t i = 0; i < 4 && c->ids_known; i++) {
		snprintf(rel, sizeof(rel), "%s/device/%s", c->card, ids[i]);
		c->ids_known = read_hex(drm_fd, rel, vals[i]) || i >= 2;
	}
	find_render(drm_fd, c->card, c->render, sizeof(c->render));
	return true;
}

/* The name from device/product_name, which amdgpu reads from the board's FRU
 * on mostly server parts, else from pci.ids, else the driver and ids. */
static void name_card(int drm_fd, struct drm_card *c, struct pci_access **names, bool *names_tried)
{
	char rel[96], buf[256];

	{
		snprintf(rel, sizeof(rel), "%s/device/product_name", c->card);
		ssize_t len = readfile_fd(drm_fd, rel, buf, sizeof(buf));
		if (len > 0) {
			len = (ssize_t)kvparse_trim_end(buf, (size_t)len);
			buf[len] = '\0';
			if (len > 0 && !memchr(buf, '\n', (size_t)len)) {
				snprintf(c->name, sizeof(c->name), "%s", buf);
				return;
			}
		}
	}
	if (c->ids_known) {
		if (!*names_tried) {
			*names = pci_names_open();
			*names_tried = true;
		}
		if (pci_names_lookup(*names, c->vendor, c->device, c->name, sizeof(c->name)))
			return;
		snprintf(c->name, sizeof(c->name), "%s %04x:%04x", c->driver, c->vendor, c->device);
		return;
	}
	snprintf(c->name, sizeof(c->name), "%s %s", c->driver, c->devname);
}

static unsigned long card_number(const char *s)
{
	return strtoul(s + 4, NULL, 10);
}

static int by_number(const void *a, const void *b)
{
	unsigned long x = card_number(((const struct drm_card *)a)->card);
	unsigned long y = card_number(((const struct drm_card *)b)->card);
	return x < y ? -1 : x > y;
}

int drm_card_scan(int sysfs_fd, bool (*want)(const char *driver, const void *ctx), const void *ctx, struct drm_card *out,
		  size_t max)
{
	int drm_fd = openat(sysfs_fd, "class/drm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct pci_access *names = NULL;
	bool names_tried = false;
	struct dirent *de;
	size_t n = 0;

	if (drm_fd < 0)
		return -errno;
	/* The copy is close-on-exec from the start, as every descriptor of
	 * gpur's is, so that a hook spawned meanwhile never inherits it. */
	int list_fd = fcntl(drm_fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = list_fd >= 0 ? fdopendir(list_fd) : NULL;
	if (!d) {
		int e = errno;
		if (list_fd >= 0)
			close(list_fd);
		close(drm_fd);
		return -e;
	}
	while ((de = readdir(d)) && n < max) {
		struct drm_card *c = &out[n];
		if (!drm_card_is_card(de->d_name) || strlen(de->d_name) >= sizeof(c->card))
			continue;
		memset(c, 0, sizeof(*c));
		memcpy(c->card, de->d_name, strlen(de->d_name) + 1);
		if (!read_identity(drm_fd, c))
			continue;
		if (strcmp(c->driver, "nvidia") == 0 || !want(c->driver, ctx))
			continue;
		n++;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), by_number);
	for (size_t i = 0; i < n; i++)
		name_card(drm_fd, &out[i], &names, &names_tried);
	pci_names_close(names);
	close(drm_fd);
	return (int)n;
}
