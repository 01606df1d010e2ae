/* cnames: the name cache and its file side. Every path is opened relative to
 * the rootfs directory, bounded in size and read once per container; the
 * parsing is cnames_parse's. */
#include "proc/cnames.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/kvparse.h"
#include "util/xalloc.h"

#define DOCKER_DIR "var/lib/docker/containers"
#define KUBELET_LOGS "var/log/containers"
#define KUBELET_PODS "var/log/pods"

/* containers/storage keeps containers.json in <graphroot>/<driver>-containers
 * and volatile ones beside it, or under the runroot with transient_store. */
static const char *const PODMAN_FILES[] = {
	"var/lib/containers/storage/overlay-containers/containers.json",
	"var/lib/containers/storage/overlay-containers/volatile-containers.json",
	"run/containers/storage/overlay-containers/volatile-containers.json",
};

struct cnames_entry {
	unsigned char key[CNAMES_ID_LEN / 2];
	long owner; /* a rootless container's user, or -1 when rootful; a user's store names only its own */
	bool used, complete;
	uint64_t checked_ms, stamp;
	struct cnames_result r;
};

struct kube_link {
	unsigned char key[CNAMES_ID_LEN / 2];
	struct cnames_kubelet_log log;
};

/* The last listing of a directory. */
struct listing {
	void *items;
	size_t n;
	uint64_t at_ms;
	bool done; /* listed at least once */
};

struct cnames {
	int rootfd;     /* -1 when nothing can be read */
	bool slash;     /* rootfs is "/", so symlinks cannot lead out of it */
	bool no_openat2;
	struct cnames_entry *cache; /* CNAMES_CACHE_SETS * CNAMES_CACHE_WAYS */
	uint64_t tick;
	struct listing links; /* struct kube_link */
	struct listing pods;  /* struct cnames_pod_dir */
	unsigned long reads;
};

static void key_of(const char *id, unsigned char key[CNAMES_ID_LEN / 2])
{
	for (size_t i = 0; i < CNAMES_ID_LEN / 2; i++) {
		char h = id[2 * i], l = id[2 * i + 1];
		unsigned hi = (unsigned)(h <= '9' ? h - '0' : h - 'a' + 10);
		unsigned lo = (unsigned)(l <= '9' ? l - '0' : l - 'a' + 10);
		key[i] = (unsigned char)(hi << 4 | lo);
	}
}

struct cnames *cnames_new(const char *rootfs)
{
	struct cnames *c = xcalloc(1, sizeof(*c));

	c->cache = xcalloc((size_t)CNAMES_CACHE_SETS * CNAMES_CACHE_WAYS, sizeof(*c->cache));
	c->rootfd = rootfs ? open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	c->slash = rootfs && strspn(rootfs, "/") == strlen(rootfs);
	return c;
}

void cnames_free(struct cnames *c)
{
	if (!c)
		return;
	if (c->rootfd >= 0)
		close(c->rootfd);
	free(c->links.items);
	free(c->pods.items);
	free(c->cache);
	free(c);
}

void cnames_set_no_openat2(struct cnames *c, bool on)
{
	c->no_openat2 = on;
}

unsigned long cnames_reads(const struct cnames *c)
{
	return c->reads;
}

enum cnames_runtime cnames_runtime_from(const char *s, size_t len)
{
	static const struct {
		const char *name;
		enum cnames_runtime rt;
	} NAMES[] = {
		{"docker", CNAMES_DOCKER}, {"podman", CNAMES_PODMAN}, {"libpod", CNAMES_PODMAN},
		{"containerd", CNAMES_CONTAINERD}, {"cri-containerd", CNAMES_CONTAINERD}, {"crio", CNAMES_CRIO},
	};

	for (size_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++)
		if (len == strlen(NAMES[i].name) && memcmp(s, NAMES[i].name, len) == 0)
			return NAMES[i].rt;
	return CNAMES_OTHER;
}

/* Opens rel under rootfs with every component a real directory or file. No
 * symlink is followed, so none can lead out of rootfs. */
static int open_walk(int rootfd, const char *rel, int flags)
{
	int dir = rootfd;
	const char *p = rel;

	for (;;) {
		const char *slash = strchr(p, '/');
		char comp[256];
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 0 || n >= sizeof(comp) || (n <= 2 && strncmp(p, "..", n) == 0)) {
			if (dir != rootfd)
				close(dir);
			return -EINVAL;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		int fd = openat(dir, comp, (slash ? O_PATH | O_DIRECTORY : flags) | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		if (dir != rootfd)
			close(dir);
		if (fd < 0)
			return -e;
		if (!slash)
			return fd;
		dir = fd;
		p = slash + 1;
	}
}

/* Opens rel, a relative path without "..", under rootfs. Returns an fd or
 * -errno. */
static int open_under(struct cnames *c, const char *rel, int flags)
{
	c->reads++;
	if (c->rootfd < 0)
		return -EBADF;
	flags |= O_CLOEXEC | O_NOCTTY;
	if (!c->no_openat2) {
		/* The path is resolved as if rootfs were "/", so the host's
		 * absolute symlinks (/var/lib/docker -> /data/docker) stay inside
		 * it. */
		struct open_how how = {.flags = (uint64_t)flags, .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
		long fd = syscall(SYS_openat2, c->rootfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		/* Seccomp profiles that predate openat2 answer EPERM. */
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
	}
	if (c->slash) {
		int fd = openat(c->rootfd, rel, flags);
		return fd < 0 ? -errno : fd;
	}
	return open_walk(c->rootfd, rel, flags);
}

/* Reads the whole regular file rel, at most cap bytes, into a new buffer
 * *out that the caller frees. Returns its length, or -errno; a file over cap
 * gives -EFBIG. */
static ssize_t read_capped(struct cnames *c, const char *rel, size_t cap, char **out)
{
	struct stat st;
	size_t len = 0;
	char *buf;
	int fd = open_under(c, rel, O_RDONLY | O_NONBLOCK);

	*out = NULL;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > cap) {
		close(fd);
		return -EFBIG;
	}
	/* One byte more than the file had, to see it grow past cap. */
	size_t size = (size_t)st.st_size + 1;
	buf = xmalloc(size + 1);
	for (;;) {
		ssize_t r = read(fd, buf + len, size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len == size) {
			if (size > cap) {
				free(buf);
				close(fd);
				return -EFBIG;
			}
			size = size * 2 > cap + 1 ? cap + 1 : size * 2;
			buf = xreallocarray(buf, size + 1, 1);
		}
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

/* Lists dir under rootfs, calling add for each entry name. At most
 * CNAMES_SCAN_MAX items are kept, and add returns whether it kept one. */
static void list_dir(struct cnames *c, const char *dir, struct listing *l, size_t item,
		     bool (*add)(void *slot, const char *name, size_t len), uint64_t now_ms)
{
	size_t cap = 0;
	int fd = open_under(c, dir, O_RDONLY | O_DIRECTORY);

	l->n = 0;
	l->at_ms = now_ms;
	l->done = true;
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *de;
	/* The entries read are bounded too, not only those kept, so a
	 * directory of junk names is not read to its end on every miss. */
	size_t seen = 0;
	while (seen++ < 4 * CNAMES_SCAN_MAX && (de = readdir(d)) != NULL && l->n < CNAMES_SCAN_MAX) {
		if (l->n == cap) {
			cap = cap ? cap * 2 : 64;
			l->items = xreallocarray(l->items, cap, item);
		}
		l->n += add((char *)l->items + l->n * item, de->d_name, strlen(de->d_name));
	}
	closedir(d);
}

static bool add_link(void *slot, const char *name, size_t len)
{
	struct kube_link *k = slot;

	if (cnames_parse_kubelet_log_name(name, len, &k->log) != 0)
		return false;
	key_of(k->log.id, k->key);
	return true;
}

static bool add_pod(void *slot, const char *name, size_t len)
{
	return cnames_parse_pod_dir_name(name, len, slot) == 0;
}

/* The listing, refreshed when it has never been made or is older than
 * CNAMES_RESCAN_MS. */
static bool may_list(const struct listing *l, uint64_t now_ms)
{
	return !l->done || now_ms - l->at_ms >= CNAMES_RESCAN_MS || now_ms < l->at_ms;
}

static const struct kube_link *find_link(const struct listing *l, const unsigned char *key)
{
	const struct kube_link *k = l->items;

	for (size_t i = 0; i < l->n; i++)
		if (memcmp(k[i].key, key, sizeof(k[i].key)) == 0)
			return &k[i];
	return NULL;
}

static const struct cnames_pod_dir *find_pod(const struct listing *l, const char *uid)
{
	const struct cnames_pod_dir *p = l->items;

	for (size_t i = 0; i < l->n; i++)
		if (strcmp(p[i].uid, uid) == 0)
			return &p[i];
	return NULL;
}

static void set(char *dst, size_t n, const char *src)
{
	if (!*dst && *src)
		snprintf(dst, n, "%s", src);
}

static void from_kubelet(struct cnames *c, const unsigned char *key, uint64_t now_ms, struct cnames_result *r)
{
	const struct kube_link *k = find_link(&c->links, key);

	if (!k && may_list(&c->links, now_ms)) {
		list_dir(c, KUBELET_LOGS, &c->links, sizeof(struct kube_link), add_link, now_ms);
		k = find_link(&c->links, key);
	}
	if (!k)
		return;
	set(r->pod_name, sizeof(r->pod_name), k->log.pod_name);
	set(r->pod_namespace, sizeof(r->pod_namespace), k->log.pod_namespace);
	set(r->container_name, sizeof(r->container_name), k->log.container_name);
}

static void from_pod_dir(struct cnames *c, const char *uid, uint64_t now_ms, struct cnames_result *r)
{
	const struct cnames_pod_dir *p = find_pod(&c->pods, uid);

	if (!p && may_list(&c->pods, now_ms)) {
		list_dir(c, KUBELET_PODS, &c->pods, sizeof(struct cnames_pod_dir), add_pod, now_ms);
		p = find_pod(&c->pods, uid);
	}
	if (!p)
		return;
	set(r->pod_name, sizeof(r->pod_name), p->pod_name);
	set(r->pod_namespace, sizeof(r->pod_namespace), p->pod_namespace);
}

static void from_docker(struct cnames *c, const char *id, struct cnames_result *r)
{
	char rel[sizeof(DOCKER_DIR) + CNAMES_ID_LEN + 32];
	char *buf;

	snprintf(rel, sizeof(rel), "%s/%s/config.v2.json", DOCKER_DIR, id);
	ssize_t len = read_capped(c, rel, CNAMES_DOCKER_MAX, &buf);
	if (len < 0)
		return;
	cnames_parse_docker_config(buf, (size_t)len, r->container_name, sizeof(r->container_name));
	free(buf);
}

/* Whether rootfs has the directory PREFIX/ID for a valid container id. */
static bool has_dir(struct cnames *c, const char *prefix, const char *id)
{
	char rel[256];

	if (!c || !id || !cnames_id_valid(id, strlen(id)))
		return false;
	snprintf(rel, sizeof(rel), "%s/%s", prefix, id);
	int fd = open_under(c, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

enum cnames_runtime cnames_cri_runtime(struct cnames *c, const char *id)
{
	static const struct {
		const char *dir;
		enum cnames_runtime rt;
	} DIRS[] = {
		{DOCKER_DIR, CNAMES_DOCKER},
		{"run/containerd/io.containerd.runtime.v2.task/k8s.io", CNAMES_CONTAINERD},
		{"run/containers/storage/overlay-containers", CNAMES_CRIO},
		{"var/lib/containers/storage/overlay-containers", CNAMES_CRIO},
	};

	for (size_t i = 0; i < sizeof(DIRS) / sizeof(DIRS[0]); i++)
		if (has_dir(c, DIRS[i].dir, id))
			return DIRS[i].rt;
	return CNAMES_OTHER;
}

static void podman_file(struct cnames *c, const char *rel, const char *id, struct cnames_result *r)
{
	char *buf;
	ssize_t len = read_capped(c, rel, CNAMES_PODMAN_MAX, &buf);
	if (len < 0)
		return;
	cnames_parse_podman_containers(buf, (size_t)len, id, r->container_name, sizeof(r->container_name));
	free(buf);
}

/* Writes uid's home directory from rootfs's etc/passwd into home, without
 * its leading '/' so that it is relative to rootfs. Returns false when it is
 * unknown or unusable. */
static bool home_of(struct cnames *c, long uid, char *home, size_t n)
{
	char *buf;
	ssize_t len = read_capped(c, "etc/passwd", CNAMES_PASSWD_MAX, &buf);
	bool found = false;

	if (len < 0)
		return false;
	for (char *line = buf, *end = buf + len; line < end && !found;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t ll = nl ? (size_t)(nl - line) : (size_t)(end - line);
		/* name:pw:uid:gid:gecos:home:shell */
		const char *f[7];
		size_t fl[7], nf = 0, start = 0;
		for (size_t i = 0; i <= ll && nf < 7; i++)
			if (i == ll || line[i] == ':') {
				f[nf] = line + start;
				fl[nf++] = i - start;
				start = i + 1;
			}
		uint64_t v;
		if (nf >= 6 && fl[2] > 0 && kvparse_u64(f[2], fl[2], UINT32_MAX, &v) == (ssize_t)fl[2] && (long)v == uid &&
		    fl[5] > 1 && fl[5] < n && f[5][0] == '/') {
			memcpy(home, f[5] + 1, fl[5] - 1);
			home[fl[5] - 1] = '\0';
			/* There must be no way up out of the root, and nothing odd in a
			 * path. */
			found = !strstr(home, "..");
			for (size_t i = 0; found && home[i]; i++)
				found = (unsigned char)home[i] >= 0x20 && home[i] != 0x7f;
		}
		line += ll + 1;
	}
	free(buf);
	return found;
}

/* Rootful Podman's stores, or for a rootless container (owner_uid >= 0) its
 * user's: containers.json under ~/.local/share/containers/storage, and the
 * volatile file under the runroot, /run/user/UID/containers. */
static void from_podman(struct cnames *c, const char *id, long owner_uid, struct cnames_result *r)
{
	char rel[PATH_MAX], home[PATH_MAX - 128];
	static const char *const user_files[] = {
		".local/share/containers/storage/overlay-containers/containers.json",
		".local/share/containers/storage/overlay-containers/volatile-containers.json",
	};

	if (owner_uid >= 0) {
		if (home_of(c, owner_uid, home, sizeof(home)))
			for (size_t i = 0; i < sizeof(user_files) / sizeof(user_files[0]) && !*r->container_name; i++) {
				snprintf(rel, sizeof(rel), "%s/%s", home, user_files[i]);
				podman_file(c, rel, id, r);
			}
		if (!*r->container_name) {
			snprintf(rel, sizeof(rel), "run/user/%ld/containers/overlay-containers/volatile-containers.json",
				 owner_uid);
			podman_file(c, rel, id, r);
		}
		return;
	}
	for (size_t i = 0; i < sizeof(PODMAN_FILES) / sizeof(PODMAN_FILES[0]) && !*r->container_name; i++)
		podman_file(c, PODMAN_FILES[i], id, r);
}

/* The way of key's set that holds key. When none does, returns NULL and sets
 * *victim to the way to reuse: an unused one, else the least recently
 * used. */
static struct cnames_entry *cache_find(struct cnames *c, const unsigned char *key, long owner,
				       struct cnames_entry **victim)
{
	unsigned h = (unsigned)key[0] | (unsigned)key[1] << 8 | (unsigned)key[2] << 16 | (unsigned)key[3] << 24;
	struct cnames_entry *ways = c->cache + (size_t)(h % CNAMES_CACHE_SETS) * CNAMES_CACHE_WAYS;

	*victim = NULL;
	for (size_t w = 0; w < CNAMES_CACHE_WAYS; w++) {
		struct cnames_entry *e = &ways[w];
		if (e->used && e->owner == owner && memcmp(e->key, key, sizeof(e->key)) == 0)
			return e;
		if (!*victim)
			*victim = e;
		else if ((*victim)->used && (!e->used || e->stamp < (*victim)->stamp))
			*victim = e;
	}
	return NULL;
}

int cnames_lookup(struct cnames *c, enum cnames_runtime rt, const char *id, const char *pod_uid, long owner_uid,
		  uint64_t now_ms, struct cnames_result *out)
{
	unsigned char key[CNAMES_ID_LEN / 2];
	struct cnames_entry *victim;

	memset(out, 0, sizeof(*out));
	if (!id || !cnames_id_valid(id, strlen(id)))
		return -EINVAL;
	if (pod_uid && !*pod_uid)
		pod_uid = NULL;
	key_of(id, key);
	if (owner_uid < 0)
		owner_uid = -1;
	struct cnames_entry *e = cache_find(c, key, owner_uid, &victim);
	if (e && (e->complete || now_ms - e->checked_ms < CNAMES_RETRY_MS)) {
		e->stamp = ++c->tick;
		*out = e->r;
		return 0;
	}

	bool kube = pod_uid || rt == CNAMES_CONTAINERD || rt == CNAMES_CRIO;
	if (kube)
		from_kubelet(c, key, now_ms, out);
	if (pod_uid && (!*out->pod_name || !*out->pod_namespace))
		from_pod_dir(c, pod_uid, now_ms, out);
	if (!*out->container_name && rt == CNAMES_DOCKER)
		from_docker(c, id, out);
	if (!*out->container_name && rt == CNAMES_PODMAN)
		from_podman(c, id, owner_uid, out);

	bool want_name = kube || rt == CNAMES_DOCKER || rt == CNAMES_PODMAN;
	if (!e) {
		e = victim;
		memcpy(e->key, key, sizeof(key));
		e->owner = owner_uid;
		e->used = true;
	}
	e->r = *out;
	e->checked_ms = now_ms;
	e->stamp = ++c->tick;
	e->complete = (!want_name || *out->container_name) && (!kube || (*out->pod_name && *out->pod_namespace));
	return 0;
}
