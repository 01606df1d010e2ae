/* cgroup: container, pod, unit and Slurm job from /proc/PID/cgroup text.
 * Only the path forms that runtimes are known to write are recognised, as
 * README's "Which container, pod or job a process belongs to" lists them;
 * anything else is left unknown rather than guessed. */
#include "proc/cgroup.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/kvparse.h"

/* More hierarchies than any kernel has, so a longer file is hostile. */
#define CGROUP_MAX_LINES 64
#define CGROUP_JOB_MAX 20 /* digits of a Slurm job id */

static const char *const RUNTIME_NAMES[CGROUP_RT__COUNT] = {
	[CGROUP_RT_NONE] = "",
	[CGROUP_RT_DOCKER] = "docker",
	[CGROUP_RT_PODMAN] = "podman",
	[CGROUP_RT_CONTAINERD] = "containerd",
	[CGROUP_RT_CRIO] = "crio",
	/* The original gpur's word for a Kubernetes container of a runtime
	 * the path does not name. */
	[CGROUP_RT_CRI] = "k8s",
	[CGROUP_RT_LXC] = "lxc",
	[CGROUP_RT_NSPAWN] = "nspawn",
	[CGROUP_RT_SLURM] = "slurm",
};

const char *cgroup_runtime_name(enum cgroup_runtime rt)
{
	return rt < CGROUP_RT__COUNT ? RUNTIME_NAMES[rt] : "";
}

/* What the previous component announces for the next one. */
enum prev { PREV_NONE, PREV_DOCKER, PREV_LXC, PREV_POD, PREV_MACHINE };

/* What one cgroup path says. Depths count path components from 1, and 0
 * means "not found". The innermost match wins, so a pod's container inside a
 * kind node's container is the pod's. */
struct scan {
	enum cgroup_runtime rt;
	char id[CGROUP_ID_MAX + 1];
	size_t cdepth;
	char pod[40];
	size_t pdepth;
	const char *unit;
	size_t ulen;
	char step[24];
	/* The deepest component that holds a runtime's own process, such as
	 * an nspawn supervisor or an LXC monitor, rather than the
	 * container's. */
	size_t cut;
	enum prev prev;
	size_t slurm_root, jobdepth;
	/* A user's own systemd manager (user@UID.service). systemd delegates
	 * its subtree to the user, who may create any cgroup name there. */
	size_t user_depth;
	long user_uid; /* the UID of that user@UID.service, or -1 when it is not a number */
};

/* The fields one line gives. */
struct result {
	enum cgroup_runtime rt;
	char id[CGROUP_ID_MAX + 1];
	char pod[40];
	char unit[CGROUP_STR_MAX];
	char step[24];
	const char *path;
	size_t plen;
	long owner_uid; /* the UID for a container below user@UID.service, else -1 */
};

static bool is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool all_of(const char *s, size_t n, bool (*ok)(char))
{
	for (size_t i = 0; i < n; i++)
		if (!ok(s[i]))
			return false;
	return true;
}

static bool is_hex64(const char *s, size_t n)
{
	return n == CGROUP_ID_MAX && all_of(s, n, is_lower_hex);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The characters of a container or machine name, which are a host name's
 * plus '_'. */
static bool is_name_char(char c)
{
	return is_alnum(c) || c == '.' || c == '_' || c == '-';
}

/* The characters of a systemd unit name, escapes included. */
static bool is_unit_char(char c)
{
	return is_alnum(c) || c == ':' || c == '_' || c == '.' || c == '\\' || c == '@' || c == '-';
}

static bool is_step_char(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || c == '_';
}

static bool eq(const char *c, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(c, s, n) == 0;
}

static bool starts(const char *c, size_t n, const char *p)
{
	size_t pl = strlen(p);
	return n >= pl && memcmp(c, p, pl) == 0;
}

static bool ends(const char *c, size_t n, const char *s)
{
	size_t sl = strlen(s);
	return n >= sl && memcmp(c + n - sl, s, sl) == 0;
}

static void copy_str(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

size_t cgroup_unescape(const char *s, size_t len, char *out, size_t outsize)
{
	size_t o = 0, i = 0;

	while (i < len && o + 1 < outsize) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\' && i + 3 < len && s[i + 1] == 'x' && kvparse_hexval(s[i + 2]) >= 0 && kvparse_hexval(s[i + 3]) >= 0) {
			int v = kvparse_hexval(s[i + 2]) * 16 + kvparse_hexval(s[i + 3]);
			if (v >= 0x20 && v < 0x7f && v != '/') {
				out[o++] = (char)v;
			} else {
				if (o + 4 >= outsize)
					break; /* never half an escape */
				memcpy(out + o, s + i, 4);
				o += 4;
			}
			i += 4;
			continue;
		}
		out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		i++;
	}
	out[o] = '\0';
	return o;
}

/* Reads a pod UID as the kubelet writes it in a cgroup name into out, with
 * dashes. It is a UUID with '-' under the cgroupfs driver or '_' under the
 * systemd driver, or a static pod's 32-hex config hash. */
static bool pod_uid(const char *u, size_t n, char out[40])
{
	if (n == 32 && all_of(u, n, is_lower_hex)) {
		copy_str(out, 40, u, n);
		return true;
	}
	if (n != 36)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool sep = i == 8 || i == 13 || i == 18 || i == 23;
		if (sep ? u[i] != '-' && u[i] != '_' : !is_lower_hex(u[i]))
			return false;
		out[i] = sep ? '-' : u[i];
	}
	out[n] = '\0';
	return true;
}

/* pod<uid> (cgroupfs) or <qos prefix>-pod<uid>.slice (systemd). */
static bool match_pod(const char *c, size_t n, char out[40])
{
	if (starts(c, n, "pod") && pod_uid(c + 3, n - 3, out))
		return true;
	if (!ends(c, n, ".slice"))
		return false;
	size_t stem = n - 6;
	static const size_t lens[] = {36, 32};
	for (size_t k = 0; k < 2; k++) {
		size_t ul = lens[k];
		if (stem < ul + 3)
			continue;
		size_t at = stem - ul - 3; /* where "pod" starts */
		if (memcmp(c + at, "pod", 3) == 0 && (at == 0 || c[at - 1] == '-') && pod_uid(c + at + 3, ul, out))
			return true;
	}
	return false;
}

/* <prefix><64 hex>[.scope], as the OCI runtimes write it under either cgroup
 * driver. */
static enum cgroup_runtime match_oci(const char *c, size_t n, const char **id)
{
	static const struct {
		const char *prefix;
		enum cgroup_runtime rt;
	} forms[] = {
		{"docker-", CGROUP_RT_DOCKER},
		{"libpod-", CGROUP_RT_PODMAN},
		{"cri-containerd-", CGROUP_RT_CONTAINERD},
		{"crio-", CGROUP_RT_CRIO},
	};
	if (ends(c, n, ".scope"))
		n -= 6;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		size_t pl = strlen(forms[i].prefix);
		if (starts(c, n, forms[i].prefix) && is_hex64(c + pl, n - pl)) {
			*id = c + pl;
			return forms[i].rt;
		}
	}
	return CGROUP_RT_NONE;
}

static bool valid_name(const char *s, size_t n)
{
	return n >= 1 && n <= CGROUP_NAME_MAX && all_of(s, n, is_name_char);
}

/* machine-<escaped name>.scope, with the name decoded. libvirt's VMs and
 * libvirt-lxc domains (qemu-N-name, lxc-N-name) are not nspawn machines. */
static bool match_machine(const char *c, size_t n, char name[CGROUP_NAME_MAX + 1])
{
	char buf[4 * CGROUP_NAME_MAX + 1];

	if (!starts(c, n, "machine-") || !ends(c, n, ".scope") || n - 14 > 4 * CGROUP_NAME_MAX)
		return false;
	size_t len = cgroup_unescape(c + 8, n - 14, buf, sizeof(buf));
	if (!valid_name(buf, len))
		return false;
	static const char *const libvirt[] = {"qemu-", "lxc-"};
	for (size_t k = 0; k < 2; k++) {
		size_t pl = strlen(libvirt[k]), d = pl;
		if (!starts(buf, len, libvirt[k]))
			continue;
		while (d < len && is_digit(buf[d]))
			d++;
		if (d > pl && d < len && buf[d] == '-')
			return false;
	}
	copy_str(name, CGROUP_NAME_MAX + 1, buf, len);
	return true;
}

static void set_container(struct scan *s, enum cgroup_runtime rt, const char *id, size_t idlen, size_t depth)
{
	s->rt = rt;
	copy_str(s->id, sizeof(s->id), id, idlen);
	s->cdepth = depth;
	s->step[0] = '\0';
}

static void component(struct scan *s, const char *c, size_t n, size_t depth)
{
	enum prev prev = s->prev;
	const char *id;
	char name[CGROUP_NAME_MAX + 1], pod[40];
	enum cgroup_runtime rt;

	s->prev = PREV_NONE;
	if ((rt = match_oci(c, n, &id)) != CGROUP_RT_NONE) {
		set_container(s, rt, id, CGROUP_ID_MAX, depth);
	} else if (is_hex64(c, n) && (prev == PREV_DOCKER || prev == PREV_POD)) {
		set_container(s, prev == PREV_DOCKER ? CGROUP_RT_DOCKER : CGROUP_RT_CRI, c, n, depth);
	} else if (eq(c, n, "docker")) {
		s->prev = PREV_DOCKER;
	} else if (match_pod(c, n, pod)) {
		memcpy(s->pod, pod, sizeof(s->pod));
		s->pdepth = depth;
		s->prev = PREV_POD;
	} else if (starts(c, n, "lxc.payload.") && valid_name(c + 12, n - 12)) {
		set_container(s, CGROUP_RT_LXC, c + 12, n - 12, depth);
	} else if (eq(c, n, "lxc.payload") || eq(c, n, "lxc")) {
		s->prev = PREV_LXC;
	} else if (prev == PREV_LXC && valid_name(c, n)) {
		set_container(s, CGROUP_RT_LXC, c, n, depth);
	} else if (eq(c, n, "lxc.monitor") || starts(c, n, "lxc.monitor.")) {
		s->cut = depth;
	} else if (match_machine(c, n, name)) {
		set_container(s, CGROUP_RT_NSPAWN, name, strlen(name), depth);
		s->prev = PREV_MACHINE;
	} else if (prev == PREV_MACHINE && eq(c, n, "supervisor")) {
		s->cut = depth;
	} else if (s->slurm_root && starts(c, n, "job_") && n > 4 && n - 4 <= CGROUP_JOB_MAX &&
		   all_of(c + 4, n - 4, is_digit)) {
		set_container(s, CGROUP_RT_SLURM, c + 4, n - 4, depth);
		s->jobdepth = depth;
	} else if (s->jobdepth && depth == s->jobdepth + 1 && starts(c, n, "step_") && n > 5 &&
		   n - 5 < sizeof(s->step) && all_of(c + 5, n - 5, is_step_char)) {
		copy_str(s->step, sizeof(s->step), c + 5, n - 5);
	}
	if (!s->user_depth && starts(c, n, "user@") && ends(c, n, ".service")) {
		s->user_depth = depth;
		s->user_uid = -1;
		uint64_t v;
		if (n > 13 && all_of(c + 5, n - 13, is_digit) && kvparse_u64(c + 5, n - 13, UINT32_MAX, &v) == (ssize_t)(n - 13))
			s->user_uid = (long)v;
	}
	/* Slurm's roots are /slurm under cgroup/v1 (/slurm_<node> with
	 * several slurmd) and slurmstepd.scope under cgroup/v2
	 * (<node>_slurmstepd.scope). */
	if (eq(c, n, "slurm") || starts(c, n, "slurm_") || eq(c, n, "slurmstepd.scope") ||
	    ends(c, n, "_slurmstepd.scope"))
		s->slurm_root = depth;
	if ((ends(c, n, ".service") || ends(c, n, ".scope")) && n > 6 && n < CGROUP_STR_MAX &&
	    all_of(c, n, is_unit_char) && c[0] != '.') {
		s->unit = c;
		s->ulen = n;
	}
}

static void scan_path(const char *path, size_t len, struct result *r)
{
	struct scan s;
	size_t depth = 0, i = 0;

	memset(&s, 0, sizeof(s));
	while (i < len) {
		while (i < len && path[i] == '/')
			i++;
		size_t start = i;
		while (i < len && path[i] != '/')
			i++;
		if (i > start)
			component(&s, path + start, i - start, ++depth);
	}
	/* For a runtime's own process next to its container, or a pod inside
	 * the container found (a kind node's pod whose container was not
	 * recognised), that container is not this process's. */
	if (s.rt != CGROUP_RT_NONE && (s.cut >= s.cdepth || s.pdepth > s.cdepth))
		s.rt = CGROUP_RT_NONE;
	/* Below a user's delegated subtree, only what a user may run is
	 * believed: rootless Podman and Docker, and unprivileged LXC. A cgroup
	 * there named like another tenant's pod, Kubernetes container,
	 * machine or Slurm job is the user's own invention. */
	if (s.user_depth) {
		if (s.rt != CGROUP_RT_NONE && s.cdepth > s.user_depth && s.rt != CGROUP_RT_PODMAN &&
		    s.rt != CGROUP_RT_DOCKER && s.rt != CGROUP_RT_LXC)
			s.rt = CGROUP_RT_NONE;
		if (s.pdepth > s.user_depth)
			s.pod[0] = '\0';
	}
	memset(r, 0, sizeof(*r));
	r->rt = s.rt;
	r->owner_uid = s.user_depth && s.rt != CGROUP_RT_NONE && s.cdepth > s.user_depth ? s.user_uid : -1;
	if (s.rt != CGROUP_RT_NONE) {
		memcpy(r->id, s.id, sizeof(r->id));
		memcpy(r->step, s.step, sizeof(r->step));
	}
	memcpy(r->pod, s.pod, sizeof(r->pod));
	if (s.unit)
		cgroup_unescape(s.unit, s.ulen, r->unit, sizeof(r->unit));
	r->path = path;
	r->plen = len;
}

/* The order in which hierarchies are trusted, lower first. */
static int line_rank(const char *ctl, size_t n, bool v2)
{
	int rank = 4;
	size_t i = 0;

	if (v2)
		return 5;
	while (i < n) {
		size_t start = i;
		while (i < n && ctl[i] != ',')
			i++;
		const char *t = ctl + start;
		size_t tl = i - start;
		int r = eq(t, tl, "name=systemd") ? 0 : eq(t, tl, "memory") ? 1
			: eq(t, tl, "cpu") || eq(t, tl, "cpuacct") ? 2 : eq(t, tl, "pids") ? 3 : 4;
		if (r < rank)
			rank = r;
		i++;
	}
	return rank;
}

/* Splits "id:controllers:path". The path runs from the first '/' on, without
 * a trailing " (deleted)". */
static bool split_line(const char *line, size_t len, int *rank, const char **path, size_t *plen)
{
	uint64_t hid;
	ssize_t d = kvparse_u64(line, len, UINT32_MAX, &hid);
	if (d <= 0 || (size_t)d >= len || line[d] != ':')
		return false;
	const char *ctl = line + d + 1, *end = line + len;
	const char *c2 = memchr(ctl, ':', (size_t)(end - ctl));
	if (!c2 || c2 + 1 >= end || c2[1] != '/')
		return false;
	*rank = line_rank(ctl, (size_t)(c2 - ctl), hid == 0 && c2 == ctl);
	*path = c2 + 1;
	*plen = (size_t)(end - *path);
	if (ends(*path, *plen, " (deleted)"))
		*plen -= 10;
	return true;
}

int cgroup_parse(const char *buf, size_t len, struct cgroup_info *out)
{
	struct kvparse_iter it;
	const char *line, *path;
	size_t llen, plen;
	struct result cur, best_c, best_u, best_any;
	int rank, rank_c = 99, rank_u = 99, rank_any = 99;

	memset(out, 0, sizeof(*out));
	out->owner_uid = -1;
	memset(&best_c, 0, sizeof(best_c));
	memset(&best_u, 0, sizeof(best_u));
	memset(&best_any, 0, sizeof(best_any));
	kvparse_iter_init(&it, buf, len);
	for (int n = 0; n < CGROUP_MAX_LINES && kvparse_line(&it, &line, &llen); n++) {
		if (!split_line(line, llen, &rank, &path, &plen))
			continue;
		scan_path(path, plen, &cur);
		if (rank < rank_any) {
			best_any = cur;
			rank_any = rank;
		}
		if ((cur.rt != CGROUP_RT_NONE || cur.pod[0]) && rank < rank_c) {
			best_c = cur;
			rank_c = rank;
		}
		if (cur.unit[0] && rank < rank_u) {
			best_u = cur;
			rank_u = rank;
		}
	}
	if (rank_any == 99)
		return -EINVAL;
	const struct result *src = rank_c < 99 ? &best_c : rank_u < 99 ? &best_u : &best_any;
	if (rank_c < 99) {
		out->runtime = best_c.rt;
		out->owner_uid = best_c.owner_uid;
		memcpy(out->id, best_c.id, sizeof(out->id));
		memcpy(out->pod, best_c.pod, sizeof(out->pod));
		memcpy(out->slurm_step, best_c.step, sizeof(out->slurm_step));
		const char *rn = cgroup_runtime_name(best_c.rt);
		/* A 64-hex id is written short, and a name or a job id whole. */
		bool oci = best_c.rt >= CGROUP_RT_DOCKER && best_c.rt <= CGROUP_RT_CRI;
		if (rn[0])
			snprintf(out->container, sizeof(out->container), "%s:%.*s", rn, oci ? 12 : CGROUP_ID_MAX,
				 best_c.id);
	}
	if (rank_c < 99 && best_c.unit[0])
		memcpy(out->unit, best_c.unit, sizeof(out->unit));
	else if (rank_u < 99)
		memcpy(out->unit, best_u.unit, sizeof(out->unit));
	size_t n = src->plen < CGROUP_PATH_MAX - 1 ? src->plen : CGROUP_PATH_MAX - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src->path[i];
		out->path[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	out->path[n] = '\0';
	return 0;
}
