/* fuzz_cgroup: libFuzzer harness for the /proc/PID/cgroup parser and the
 * NSpid line. Checked on every input: each output string is NUL-terminated
 * inside its buffer and printable ASCII; a container is "" or one of the
 * runtimes' forms and agrees with the runtime and full id; a pod is a UUID
 * with dashes or 32 hex; a unit ends in .service or .scope; a failed parse
 * leaves everything unknown; the same input gives the same answer, also
 * after an invalid line in front of it. Any difference abort()s.
 *
 * Input: the text of /proc/PID/cgroup (and, for procinfo_nspid, of
 * /proc/PID/status). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/cgroup.h"
#include "proc/procinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			fprintf(stderr, "fuzz_cgroup: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                      \
		}                                                                     \
	} while (0)

static bool hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* NUL-terminated inside size bytes, printable ASCII before it; its length. */
static size_t clean(const char *s, size_t size)
{
	const char *nul = memchr(s, '\0', size);
	CHECK(nul != NULL);
	for (const char *p = s; p < nul; p++)
		CHECK(*p >= 0x20 && *p < 0x7f);
	return (size_t)(nul - s);
}

static bool ends(const char *s, size_t n, const char *suf)
{
	size_t sl = strlen(suf);
	return n >= sl && memcmp(s + n - sl, suf, sl) == 0;
}

static void check_info(int rc, const struct cgroup_info *ci)
{
	size_t idl = clean(ci->id, sizeof(ci->id));
	size_t cl = clean(ci->container, sizeof(ci->container));
	size_t pl = clean(ci->pod, sizeof(ci->pod));
	size_t ul = clean(ci->unit, sizeof(ci->unit));
	size_t sl = clean(ci->slurm_step, sizeof(ci->slurm_step));
	clean(ci->path, sizeof(ci->path));
	CHECK(rc == 0 || rc == -EINVAL);
	CHECK(ci->runtime < CGROUP_RT__COUNT);
	if (rc != 0) {
		CHECK(ci->runtime == CGROUP_RT_NONE && !idl && !cl && !pl && !ul && !sl && !ci->path[0]);
		return;
	}
	CHECK(ci->path[0] == '/');
	char want[CGROUP_STR_MAX];
	switch (ci->runtime) {
	case CGROUP_RT_NONE:
		CHECK(!idl && !cl && !sl);
		break;
	case CGROUP_RT_CRI:
	case CGROUP_RT_DOCKER:
	case CGROUP_RT_PODMAN:
	case CGROUP_RT_CONTAINERD:
	case CGROUP_RT_CRIO:
		/* A "k8s:" container is always in a pod. */
		CHECK(idl == 64 && hex(ci->id, idl) && (pl || ci->runtime != CGROUP_RT_CRI));
		snprintf(want, sizeof(want), "%s:%.12s", cgroup_runtime_name(ci->runtime), ci->id);
		CHECK(strcmp(ci->container, want) == 0);
		break;
	case CGROUP_RT_LXC:
	case CGROUP_RT_NSPAWN:
	case CGROUP_RT_SLURM:
		CHECK(idl >= 1 && idl <= CGROUP_NAME_MAX);
		for (size_t i = 0; i < idl; i++) {
			char c = ci->id[i];
			bool digit = c >= '0' && c <= '9';
			CHECK(ci->runtime == CGROUP_RT_SLURM ? digit
							     : digit || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
								       c == '.' || c == '_' || c == '-');
		}
		snprintf(want, sizeof(want), "%s:%s", cgroup_runtime_name(ci->runtime), ci->id);
		CHECK(strcmp(ci->container, want) == 0);
		break;
	default:
		CHECK(false);
	}
	CHECK(!sl || ci->runtime == CGROUP_RT_SLURM);
	if (cl) {
		static const char *const prefixes[] = {"docker:", "podman:", "containerd:", "crio:", "k8s:",
						       "lxc:",    "nspawn:", "slurm:"};
		bool found = false;
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			found |= strncmp(ci->container, prefixes[i], strlen(prefixes[i])) == 0;
		CHECK(found);
	}
	if (pl == 36) {
		for (size_t i = 0; i < 36; i++)
			CHECK(i == 8 || i == 13 || i == 18 || i == 23 ? ci->pod[i] == '-' : hex(ci->pod + i, 1));
	} else {
		CHECK(pl == 0 || (pl == 32 && hex(ci->pod, 32)));
	}
	CHECK(!ul || ends(ci->unit, ul, ".service") || ends(ci->unit, ul, ".scope"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: a read past the end is ASan's to see. */
	char *buf = malloc(size ? size : 1), *pre = malloc(size + 2);
	struct cgroup_info a, b;
	size_t lines = 0;

	memcpy(buf, data, size);
	int rc = cgroup_parse(buf, size, &a);
	check_info(rc, &a);
	CHECK(cgroup_parse(buf, size, &b) == rc && memcmp(&a, &b, sizeof(a)) == 0);
	for (size_t i = 0; i < size; i++)
		lines += buf[i] == '\n';
	/* A line that is not a cgroup line changes nothing (within the bound
	 * on lines read). */
	if (lines < 60) {
		memcpy(pre, "x\n", 2);
		memcpy(pre + 2, buf, size);
		CHECK(cgroup_parse(pre, size + 2, &b) == rc && memcmp(&a, &b, sizeof(a)) == 0);
	}

	char out[24];
	size_t n = cgroup_unescape(buf, size, out, sizeof(out));
	CHECK(n < sizeof(out) && clean(out, sizeof(out)) == n);

	uint64_t inner = UINT64_MAX, again = UINT64_MAX;
	int r = procinfo_nspid(buf, size, &inner);
	CHECK(r == 1 || r == 0 || r == -ENOENT || r == -EINVAL);
	CHECK(r == 1 ? inner <= 4194304 : inner == UINT64_MAX);
	CHECK(procinfo_nspid(buf, size, &again) == r && again == inner);
	free(pre);
	free(buf);
	return 0;
}
