/* test_cnames: the name parsers on real-looking and hostile input, and
 * cnames_lookup against the fixture trees tests/fixtures/rootfs-node and
 * rootfs-broken and against trees made here (symlinks, size caps, FIFOs,
 * cache eviction), counting reads to prove what the cache saves; and which
 * runtime the node's directories name for a Kubernetes container whose
 * cgroup path does not (Docker, containerd, CRI-O in either place). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc/cnames.h"
#include "proc/cnames_parse.h"
#include "testutil.h"

#define FFFD "\xEF\xBF\xBD"
#define NODE GPUR_FIXTURES "/rootfs-node"
#define BROKEN GPUR_FIXTURES "/rootfs-broken"

#define D1 "05cff94700562cbc97ddbb100132f2bf7aed07558531385fa5fd4dde19c81f05" /* Docker: /trainer */
#define D2 "2a7f3c9e81d04b6a95e0c7d3f1b28e4a6c90d5b7e3f12a48c6d09be7f5a31c20" /* truncated JSON */
#define D3 "3b1c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c" /* no directory */
#define D4 "7e9d1f0a3b5c48e2a6d1f9c07b3e5a8d2c4f6e0b1a9d7c5e3f2b8a06d4c1e9f7" /* hostile name */
#define P1 "5b833c7a6ce02ac293b4c096850c9ac4ec95190d68b9c892c4bf417920f07494" /* containers.json */
#define P2 "9c1e5a7b3d0f42e8b6a4c2d0e8f6a4b2c0d8e6f4a2b0c8d6e4f2a0b8c6d4e2f0" /* volatile */
#define P3 "e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f" /* no names */
#define K1 "184c8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba" /* containerd, linked */
#define K2 "1459328502562d67b68f6b6abf0954cbc83bcccedb470cc106c241863eca7748" /* CRI-O, no link */
#define K3 "d8c32f2c636cc5960035ca361b24678448b0aac53a2b775f096874602a07aa47" /* cri-dockerd, linked */
#define UID1 "ccd0a30e-12e9-4cab-a4ff-9124262dfbee"
#define UID2 "22f2322b-9816-4ec9-8272-e006ecd6e3f3"
#define UID3 "76b72d1d-93f2-45c4-9474-afeb99de5752"

#define T0 1000000 /* a monotonic time to start from */

static int docker(const char *json, char *name, size_t n)
{
	return cnames_parse_docker_config(json, strlen(json), name, n);
}

static void test_docker_config_real(void **state)
{
	char *text = testutil_read_file(NODE "/var/lib/docker/containers/" D1 "/config.v2.json", NULL);
	char name[PROCESS_CONTAINER_NAME_MAX + 1];

	(void)state;
	assert_int_equal(docker(text, name, sizeof(name)), 0);
	assert_string_equal(name, "trainer");
	free(text);
	/* A Name nested in Config is not the container's. */
	assert_int_equal(docker("{\"Config\":{\"Name\":\"/inner\",\"Labels\":{}},\"Name\":\"/outer\"}", name, sizeof(name)), 0);
	assert_string_equal(name, "outer");
	assert_int_equal(docker("{\"Config\":{\"Name\":\"/inner\"}}", name, sizeof(name)), -ENOENT);
	assert_string_equal(name, "");
	/* Only one leading '/' goes; a name without one is kept as it is. */
	assert_int_equal(docker(" {\"Name\" : \"//x\"}\n", name, sizeof(name)), 0);
	assert_string_equal(name, "/x");
	assert_int_equal(docker("{\"Name\":\"plain\"}", name, sizeof(name)), 0);
	assert_string_equal(name, "plain");
	assert_int_equal(docker("{\"Name\":\"/caf\\u00e9\"}", name, sizeof(name)), 0);
	assert_string_equal(name, "caf\xC3\xA9");
}

static void test_docker_config_hostile(void **state)
{
	char name[64];
	static const char *const broken[] = {
		"", "   ", "[]", "\"Name\"", "{\"Name\":\"/trainer\"", "{\"Name\":\"/trainer\",}", "{\"Name\":\"/tra",
		"{\"Name\":\"/trainer\"} {}", "{\"Name\":/trainer}", "{'Name':'/trainer'}", "{\"Name\":\"/a\x01\"}",
		"{\"Name\":\"/a\\x\"}", "null",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		strcpy(name, "stale");
		if (docker(broken[i], name, sizeof(name)) != -EINVAL)
			fail_msg("'%s' parsed", broken[i]);
		assert_string_equal(name, "");
	}
	/* Valid JSON without a usable name: missing, of the wrong type, empty. */
	static const char *const nameless[] = {
		"{}", "{\"Name\":5}", "{\"Name\":null}", "{\"Name\":[\"/x\"]}", "{\"Name\":\"\"}", "{\"Name\":\"/\"}",
		"{\"Name\":\"/\\u0007\\u001b\"}", "{\"name\":\"/lower\"}", "{\"Name\":\"/a\",\"Name\":false}",
	};
	for (size_t i = 0; i < sizeof(nameless) / sizeof(nameless[0]); i++) {
		strcpy(name, "stale");
		if (docker(nameless[i], name, sizeof(name)) != -ENOENT)
			fail_msg("'%s' gave a name", nameless[i]);
		assert_string_equal(name, "");
	}
	/* Control and invisible formatting characters go; invalid UTF-8 is U+FFFD. */
	assert_int_equal(docker("{\"Name\":\"/\\u001b[31mroot\\u0007\\u202eevil\\tname\\u200b\\u0000\"}", name,
				sizeof(name)), 0);
	assert_string_equal(name, "[31mrootevilname" FFFD);
	assert_int_equal(docker("{\"Name\":\"/\xff\xfe" "ab\xc2\x85\"}", name, sizeof(name)), 0);
	assert_string_equal(name, FFFD FFFD "ab");
	/* The last of duplicate keys wins. */
	assert_int_equal(docker("{\"Name\":\"/first\",\"Name\":\"/second\"}", name, sizeof(name)), 0);
	assert_string_equal(name, "second");
	/* A huge name is cut to the buffer, on a character boundary. */
	size_t big = 200000;
	char *json = malloc(big + 32);
	assert_non_null(json);
	strcpy(json, "{\"Name\":\"/");
	size_t at = strlen(json);
	for (size_t i = 0; i < big; i += 2)
		memcpy(json + at + i, "\xC3\xA9", 2);
	strcpy(json + at + big, "\"}");
	assert_int_equal(docker(json, name, sizeof(name)), 0);
	assert_int_equal(strlen(name), 62); /* 31 two-byte characters in 63 bytes */
	for (size_t i = 0; i < 62; i += 2)
		assert_memory_equal(name + i, "\xC3\xA9", 2);
	free(json);
	/* Deep nesting past the parser's limit is invalid, not a crash. */
	char deep[1200];
	strcpy(deep, "{\"Config\":");
	for (size_t i = 0; i < 600; i++)
		strcat(deep, "[");
	assert_int_equal(docker(deep, name, sizeof(name)), -EINVAL);
	assert_int_equal(cnames_parse_docker_config("{}", 2, name, 0), -EINVAL);
}

static int podman(const char *json, const char *id, char *name, size_t n)
{
	return cnames_parse_podman_containers(json, strlen(json), id, name, n);
}

static void test_podman_containers(void **state)
{
	char *text = testutil_read_file(NODE "/var/lib/containers/storage/overlay-containers/containers.json", NULL);
	char name[PROCESS_CONTAINER_NAME_MAX + 1];

	(void)state;
	assert_int_equal(podman(text, P1, name, sizeof(name)), 0);
	assert_string_equal(name, "llm-server"); /* the first of its names */
	assert_int_equal(podman(text, "0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f50", name,
				sizeof(name)), 0);
	assert_string_equal(name, "55eedee4ab29-infra");
	assert_int_equal(podman(text, P3, name, sizeof(name)), -ENOENT); /* listed without names */
	assert_int_equal(podman(text, P2, name, sizeof(name)), -ENOENT); /* not in this file */
	assert_string_equal(name, "");
	/* Truncated anywhere: invalid, even after the entry that matched. */
	for (size_t cut = 0; cut < strlen(text) - 1; cut += 97) {
		strcpy(name, "stale");
		assert_int_equal(cnames_parse_podman_containers(text, cut, P1, name, sizeof(name)), -EINVAL);
		assert_string_equal(name, "");
	}
	free(text);
}

static void test_podman_hostile(void **state)
{
	char name[32];
	const char *id = P1;

	(void)state;
	assert_int_equal(podman("[]", id, name, sizeof(name)), -ENOENT);
	assert_int_equal(podman("{\"id\":\"" P1 "\",\"names\":[\"x\"]}", id, name, sizeof(name)), -EINVAL);
	assert_int_equal(podman("[{\"id\":\"" P1 "\",\"names\":[\"x\"]},]", id, name, sizeof(name)), -EINVAL);
	assert_int_equal(podman("[{\"id\":\"" P1 "\",\"names\":[\"x\"]}", id, name, sizeof(name)), -EINVAL);
	/* Elements of other shapes are passed over. */
	assert_int_equal(podman("[5,\"s\",null,[{}],{\"id\":\"" P1 "\",\"names\":[\"ok\"]}]", id, name, sizeof(name)), 0);
	assert_string_equal(name, "ok");
	/* Wrong types: no name. */
	assert_int_equal(podman("[{\"id\":\"" P1 "\",\"names\":\"x\"}]", id, name, sizeof(name)), -ENOENT);
	assert_int_equal(podman("[{\"id\":5,\"names\":[\"x\"]}]", id, name, sizeof(name)), -ENOENT);
	assert_int_equal(podman("[{\"id\":\"" P1 "\",\"names\":[\"x\"],\"names\":{}}]", id, name, sizeof(name)), -ENOENT);
	/* The first string of names; strings cleaned; an id must match whole. */
	assert_int_equal(podman("[{\"names\":[7,\"\\u001bb\\u0085\"],\"id\":\"" P1 "\"}]", id, name, sizeof(name)), 0);
	assert_string_equal(name, "b");
	assert_int_equal(podman("[{\"id\":\"" P1 "0\",\"names\":[\"longer\"]},{\"id\":\"5b833c7a\",\"names\":[\"short\"]}]",
				id, name, sizeof(name)), -ENOENT);
	/* Duplicate ids: the first wins, as containers/storage has it. */
	assert_int_equal(podman("[{\"id\":\"" P1 "\",\"names\":[\"one\"]},{\"id\":\"" P1 "\",\"names\":[\"two\"]}]", id,
				name, sizeof(name)), 0);
	assert_string_equal(name, "one");
	/* A long name is cut to the buffer. */
	assert_int_equal(podman("[{\"id\":\"" P1 "\",\"names\":[\"abcdefghijklmnopqrstuvwxyz0123456789\"]}]", id, name,
				sizeof(name)), 0);
	assert_string_equal(name, "abcdefghijklmnopqrstuvwxyz01234");
	/* The id asked for must itself be a full id. */
	assert_int_equal(podman("[]", "5b833c7a6ce0", name, sizeof(name)), -EINVAL);
}

static int klog(const char *s, struct cnames_kubelet_log *k)
{
	return cnames_parse_kubelet_log_name(s, strlen(s), k);
}

static void test_kubelet_log_names(void **state)
{
	struct cnames_kubelet_log k;

	(void)state;
	assert_int_equal(klog("train-llama-3-8b-0042-worker-0_research_trainer-" K1 ".log", &k), 0);
	assert_string_equal(k.pod_name, "train-llama-3-8b-0042-worker-0");
	assert_string_equal(k.pod_namespace, "research");
	assert_string_equal(k.container_name, "trainer");
	assert_string_equal(k.id, K1);
	/* '-' in every part; dots in the pod name. */
	assert_int_equal(klog("nightly-eval.v2-7d9f_kube-system_side-car-2-" K1 ".log", &k), 0);
	assert_string_equal(k.pod_name, "nightly-eval.v2-7d9f");
	assert_string_equal(k.pod_namespace, "kube-system");
	assert_string_equal(k.container_name, "side-car-2");
	/* A 253-byte pod name is the longest. */
	char name[512];
	memset(name, 'p', 253);
	snprintf(name + 253, sizeof(name) - 253, "_ns_c-%s.log", K1);
	assert_int_equal(klog(name, &k), 0);
	assert_int_equal(strlen(k.pod_name), 253);

	static const char *const bad[] = {
		"", ".log", "pod_ns_ctr-" K1, "pod_ns_ctr-" K1 ".log.gz", "pod_ns_ctr_" K1 ".log",
		"pod_ns_ctr" K1 ".log", "pod_ns_ctr-" K1 "0.log", "pod_ns_ctr-184c8653db58.log",
		"pod_ns_ctr-184C8653DB5806B9FDB57825115D6D8BDCF3C563A3B15DA26C8A3CC497EB63BA.log",
		"pod_ns_ctr-184c8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63bg.log",
		"pod_ns-" K1 ".log", "podns_ctr-" K1 ".log", "_ns_ctr-" K1 ".log", "pod__ctr-" K1 ".log",
		"pod_ns_-" K1 ".log", "pod_ns_ctr_x-" K1 ".log", "pod_n.s_ctr-" K1 ".log", "Pod_ns_ctr-" K1 ".log",
		"pod_ns_c\x1b[31m-" K1 ".log", "p\xc3\xa9_ns_ctr-" K1 ".log", "pod_ns_c/x-" K1 ".log",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&k, 'x', sizeof(k));
		if (klog(bad[i], &k) != -EINVAL)
			fail_msg("'%s' parsed", bad[i]);
		assert_string_equal(k.pod_name, "");
		assert_string_equal(k.container_name, "");
	}
	name[253] = 'p';
	snprintf(name + 254, sizeof(name) - 254, "_ns_c-%s.log", K1);
	assert_int_equal(klog(name, &k), -EINVAL); /* 254 bytes */
	char ns[192];
	snprintf(ns, sizeof(ns), "pod_%064d_c-%s.log", 0, K1);
	assert_int_equal(klog(ns, &k), -EINVAL); /* a 64-byte namespace */
	/* The length is the caller's: a NUL-less cut is read as given. */
	const char *full = "pod_ns_ctr-" K1 ".logXYZ";
	assert_int_equal(cnames_parse_kubelet_log_name(full, strlen(full) - 3, &k), 0);
}

static int poddir(const char *s, struct cnames_pod_dir *p)
{
	return cnames_parse_pod_dir_name(s, strlen(s), p);
}

static void test_pod_dir_names(void **state)
{
	struct cnames_pod_dir p;

	(void)state;
	assert_int_equal(poddir("research_train-llama-3-8b-0042-worker-0_" UID1, &p), 0);
	assert_string_equal(p.pod_namespace, "research");
	assert_string_equal(p.pod_name, "train-llama-3-8b-0042-worker-0");
	assert_string_equal(p.uid, UID1);
	/* A static pod's uid is a 32-hex hash. */
	assert_int_equal(poddir("kube-system_etcd-node1_c3e9d4b53c3f3a0e0d63c2a83f55e1a5", &p), 0);
	assert_string_equal(p.pod_name, "etcd-node1");
	static const char *const bad[] = {
		UID1, "ns_pod", "ns_pod_", "_pod_" UID1, "ns__" UID1, "ns_pod_" UID1 "_x", "ns_pod_CCD0A30E",
		"n.s_pod_" UID1, "ns_p\x07od_" UID1, "ns_pod_" UID1 UID1,
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&p, 'x', sizeof(p));
		if (poddir(bad[i], &p) != -EINVAL)
			fail_msg("'%s' parsed", bad[i]);
		assert_string_equal(p.pod_name, "");
		assert_string_equal(p.uid, "");
	}
}

static void test_clean_and_ids(void **state)
{
	char out[8];

	(void)state;
	assert_int_equal(cnames_clean("a\tb\x7f" "c\xc2\x9f" "d", 8, out, sizeof(out)), 4);
	assert_string_equal(out, "abcd");
	assert_int_equal(cnames_clean("\xff" "abcdef", 7, out, sizeof(out)), 7);
	assert_string_equal(out, FFFD "abcd");
	/* A character that does not fit is left out whole. */
	assert_int_equal(cnames_clean("abcdef\xc3\xa9", 8, out, sizeof(out)), 6);
	assert_string_equal(out, "abcdef");
	assert_int_equal(cnames_clean("abc", 3, out, 1), 0);
	assert_string_equal(out, "");
	assert_int_equal(cnames_clean("\xe2\x80\xae\xef\xbb\xbfok", 8, out, sizeof(out)), 2);
	assert_string_equal(out, "ok");
	assert_true(cnames_id_valid(K1, 64));
	assert_false(cnames_id_valid(K1, 63));
	assert_false(cnames_id_valid("184C8653DB5806B9FDB57825115D6D8BDCF3C563A3B15DA26C8A3CC497EB63BA", 64));
	assert_false(cnames_id_valid("184c8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63b-", 64));
	assert_int_equal(cnames_runtime_from("docker", 6), CNAMES_DOCKER);
	assert_int_equal(cnames_runtime_from("podman", 6), CNAMES_PODMAN);
	assert_int_equal(cnames_runtime_from("containerd", 10), CNAMES_CONTAINERD);
	assert_int_equal(cnames_runtime_from("cri-containerd", 14), CNAMES_CONTAINERD);
	assert_int_equal(cnames_runtime_from("crio", 4), CNAMES_CRIO);
	assert_int_equal(cnames_runtime_from("dockerd", 7), CNAMES_OTHER);
	assert_int_equal(cnames_runtime_from("lxc", 3), CNAMES_OTHER);
}

/* Looks id up and checks the names and how many reads it took. */
#define LOOKUP(c, rt, id, uid, now, ctr, pod, ns, nreads)                                  \
	do {                                                                               \
		struct cnames_result r_;                                                   \
		unsigned long before_ = cnames_reads(c);                                   \
		assert_int_equal(cnames_lookup((c), (rt), (id), (uid), -1, (now), &r_), 0);    \
		assert_string_equal(r_.container_name, (ctr));                             \
		assert_string_equal(r_.pod_name, (pod));                                   \
		assert_string_equal(r_.pod_namespace, (ns));                               \
		assert_int_equal(cnames_reads(c) - before_, (nreads));                     \
	} while (0)

static void test_lookup_docker_and_podman(void **state)
{
	struct cnames *c = cnames_new(NODE);

	(void)state;
	LOOKUP(c, CNAMES_DOCKER, D1, NULL, T0, "trainer", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, D1, NULL, T0 + 1, "trainer", "", "", 0); /* cached: reads nothing */
	LOOKUP(c, CNAMES_DOCKER, D1, NULL, T0 + 10 * CNAMES_RETRY_MS, "trainer", "", "", 0); /* complete: never again */
	LOOKUP(c, CNAMES_DOCKER, D4, NULL, T0, "[31mrootevilname", "", "", 1);
	/* Broken JSON and a missing file: unknown, never an error; read again
	 * only after CNAMES_RETRY_MS. */
	LOOKUP(c, CNAMES_DOCKER, D2, NULL, T0, "", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, D2, NULL, T0 + CNAMES_RETRY_MS - 1, "", "", "", 0);
	LOOKUP(c, CNAMES_DOCKER, D2, NULL, T0 + CNAMES_RETRY_MS, "", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, D3, NULL, T0, "", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, D3, NULL, T0 + 5, "", "", "", 0);
	/* Podman: containers.json, then volatile-containers.json. */
	LOOKUP(c, CNAMES_PODMAN, P1, NULL, T0, "llm-server", "", "", 1);
	LOOKUP(c, CNAMES_PODMAN, P1, NULL, T0 + 1, "llm-server", "", "", 0);
	LOOKUP(c, CNAMES_PODMAN, P2, NULL, T0, "scratch", "", "", 2);
	LOOKUP(c, CNAMES_PODMAN, P3, NULL, T0, "", "", "", 3);
	/* A runtime with nothing on disk to read reads nothing. */
	LOOKUP(c, CNAMES_OTHER, K1, NULL, T0, "", "", "", 0);
	/* Not a full id: refused. */
	struct cnames_result r;
	memset(&r, 'x', sizeof(r));
	assert_int_equal(cnames_lookup(c, CNAMES_DOCKER, "05cff9470056", NULL, -1, T0, &r), -EINVAL);
	assert_string_equal(r.container_name, "");
	assert_int_equal(cnames_lookup(c, CNAMES_DOCKER, NULL, NULL, -1, T0, &r), -EINVAL);
	assert_int_equal(cnames_lookup(c, CNAMES_DOCKER, "../../../../etc/passwd", NULL, -1, T0, &r), -EINVAL);
	cnames_free(c);
	cnames_free(NULL);
}

static void test_lookup_kubernetes(void **state)
{
	struct cnames *c = cnames_new(NODE);

	(void)state;
	/* One listing of var/log/containers serves every container in it. */
	LOOKUP(c, CNAMES_CONTAINERD, K1, UID1, T0, "trainer", "train-llama-3-8b-0042-worker-0", "research", 1);
	LOOKUP(c, CNAMES_DOCKER, K3, UID3, T0 + 1, "inference", "llm-serving-0", "serving", 0);
	LOOKUP(c, CNAMES_CONTAINERD, K1, UID1, T0 + 2, "trainer", "train-llama-3-8b-0042-worker-0", "research", 0);
	/* No log link yet: the listing is fresh, so it is not read again; the
	 * pod directory gives the pod's name and namespace. */
	LOOKUP(c, CNAMES_CRIO, K2, UID2, T0 + 3, "", "nightly-eval.v2", "batch", 1);
	LOOKUP(c, CNAMES_CRIO, K2, UID2, T0 + 4, "", "nightly-eval.v2", "batch", 0);
	/* Another unknown container within CNAMES_RESCAN_MS lists nothing... */
	const char *k4 = "aaaa8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba";
	LOOKUP(c, CNAMES_CONTAINERD, k4, NULL, T0 + 5, "", "", "", 0);
	/* ...and once that has passed, one listing (no pod uid: no pod directories). */
	const char *k5 = "bbbb8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba";
	LOOKUP(c, CNAMES_CONTAINERD, k5, NULL, T0 + CNAMES_RESCAN_MS, "", "", "", 1);
	/* K2 retried after CNAMES_RETRY_MS: its link may have appeared, so
	 * var/log/containers is listed again; its pod is in the last listing
	 * of var/log/pods. */
	LOOKUP(c, CNAMES_CRIO, K2, UID2, T0 + 3 + CNAMES_RETRY_MS, "", "nightly-eval.v2", "batch", 1);
	/* A pod uid that no directory has: var/log/containers was just
	 * listed, var/log/pods is listed again; then both are fresh. */
	const char *k6 = "cccc8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba";
	const char *k7 = "dddd8653db5806b9fdb57825115d6d8bdcf3c563a3b15da26c8a3cc497eb63ba";
	LOOKUP(c, CNAMES_CRIO, k6, "00000000-0000-0000-0000-000000000000", T0 + 3 + CNAMES_RETRY_MS, "", "", "", 1);
	LOOKUP(c, CNAMES_CRIO, k7, "00000000-0000-0000-0000-000000000001", T0 + 4 + CNAMES_RETRY_MS, "", "", "", 0);
	cnames_free(c);
}

static void test_lookup_broken_tree(void **state)
{
	struct cnames *c = cnames_new(BROKEN);

	(void)state;
	LOOKUP(c, CNAMES_DOCKER, D1, NULL, T0, "", "", "", 1);       /* config.v2.json is a directory */
	LOOKUP(c, CNAMES_PODMAN, P1, NULL, T0, "", "", "", 3);       /* truncated containers.json, others missing */
	LOOKUP(c, CNAMES_CONTAINERD, K1, UID1, T0, "", "", "", 2);   /* var/log/containers is a file, no pods */
	cnames_free(c);
	/* A root that is not there, or none: everything unknown. */
	c = cnames_new("/nonexistent/rootfs");
	LOOKUP(c, CNAMES_DOCKER, D1, NULL, T0, "", "", "", 1);
	cnames_free(c);
	c = cnames_new(NULL);
	LOOKUP(c, CNAMES_CONTAINERD, K1, UID1, T0, "", "", "", 2);
	cnames_free(c);
}

static void mkdirs(const char *path)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", tmp, strerror(errno));
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", tmp, strerror(errno));
}

/* root/var/lib/docker/containers/<id>; the caller frees. */
static char *docker_dir(const char *root, const char *id)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/var/lib/docker/containers/%s", root, id);
	mkdirs(p);
	return strdup(p);
}

static void write_config(const char *root, const char *id, const char *name)
{
	char *dir = docker_dir(root, id);
	char *path = testutil_path(dir, "config.v2.json");
	char json[512];

	snprintf(json, sizeof(json), "{\"ID\":\"%s\",\"Name\":\"/%s\",\"Driver\":\"overlay2\"}", id, name);
	testutil_write_str(path, json);
	free(path);
	free(dir);
}

/* rel (a directory path) made under root. */
static void mkdirs_at(const char *root, const char *rel)
{
	char *p = testutil_path(root, rel);
	mkdirs(p);
	free(p);
}

#define CRIO_RUN "run/containers/storage/overlay-containers/"
#define CRIO_LIB "var/lib/containers/storage/overlay-containers/"
#define CTRD_TASKS "run/containerd/io.containerd.runtime.v2.task/k8s.io/"

/* A Kubernetes container whose cgroup path names no runtime: the node's
 * directory for its id says which (Docker, then containerd, then CRI-O in
 * either of its places); with none, CNAMES_OTHER, and the kubelet's log
 * links still name it. */
static void test_cri_runtime(void **state)
{
	(void)state;
	/* The fixture node: a cri-dockerd container, a containerd one, and
	 * one no directory names. */
	struct cnames *c = cnames_new(NODE);
	assert_int_equal(cnames_cri_runtime(c, K3), CNAMES_DOCKER);
	assert_int_equal(cnames_cri_runtime(c, K1), CNAMES_CONTAINERD);
	unsigned long before = cnames_reads(c);
	assert_int_equal(cnames_cri_runtime(c, K2), CNAMES_OTHER);
	assert_int_equal(cnames_reads(c) - before, 4); /* every place looked at once */
	/* Its runtime unknown, K1 is still named by its log link and pod. */
	LOOKUP(c, CNAMES_OTHER, K1, UID1, T0, "trainer", "train-llama-3-8b-0042-worker-0", "research", 1);
	cnames_free(c);

	/* CRI-O's two places, and the order when two runtimes name one id. */
	char *root = testutil_tmpdir();
	const char *run = "0000000000000000000000000000000000000000000000000000000000000001";
	const char *lib = "0000000000000000000000000000000000000000000000000000000000000002";
	const char *dk = "0000000000000000000000000000000000000000000000000000000000000003";
	const char *cd = "0000000000000000000000000000000000000000000000000000000000000004";
	const char *file = "0000000000000000000000000000000000000000000000000000000000000005";
	const char *none = "0000000000000000000000000000000000000000000000000000000000000006";
	char rel[256];
	mkdirs_at(root, CRIO_RUN);
	mkdirs_at(root, CRIO_LIB);
	snprintf(rel, sizeof(rel), CRIO_RUN "%s", run);
	mkdirs_at(root, rel);
	snprintf(rel, sizeof(rel), CRIO_LIB "%s", lib);
	mkdirs_at(root, rel);
	snprintf(rel, sizeof(rel), CRIO_LIB "%s", dk);
	mkdirs_at(root, rel);
	free(docker_dir(root, dk));
	snprintf(rel, sizeof(rel), CRIO_RUN "%s", cd);
	mkdirs_at(root, rel);
	snprintf(rel, sizeof(rel), CTRD_TASKS "%s", cd);
	mkdirs_at(root, rel);
	/* A file where CRI-O's directory would be is not one. */
	char *path = testutil_path(root, CRIO_RUN);
	char *fpath = testutil_path(path, file);
	testutil_write_str(fpath, "x");
	free(fpath);
	free(path);
	c = cnames_new(root);
	assert_int_equal(cnames_cri_runtime(c, run), CNAMES_CRIO);
	assert_int_equal(cnames_cri_runtime(c, lib), CNAMES_CRIO);
	assert_int_equal(cnames_cri_runtime(c, dk), CNAMES_DOCKER);
	assert_int_equal(cnames_cri_runtime(c, cd), CNAMES_CONTAINERD);
	assert_int_equal(cnames_cri_runtime(c, file), CNAMES_OTHER);
	assert_int_equal(cnames_cri_runtime(c, none), CNAMES_OTHER);
	/* Not a full id, or no cache: nothing is opened. */
	before = cnames_reads(c);
	assert_int_equal(cnames_cri_runtime(c, "000000000001"), CNAMES_OTHER);
	assert_int_equal(cnames_cri_runtime(c, "../../../../../../etc"), CNAMES_OTHER);
	assert_int_equal(cnames_cri_runtime(c, NULL), CNAMES_OTHER);
	assert_int_equal(cnames_reads(c), before);
	assert_int_equal(cnames_cri_runtime(NULL, run), CNAMES_OTHER);
	cnames_free(c);
	testutil_rmtree(root);
	free(root);
}

static void test_lookup_symlinks_stay_in_root(void **state)
{
	char *tmp = testutil_tmpdir();
	char *root = testutil_path(tmp, "root");
	char *outside = testutil_path(tmp, "outside.json");
	const char *esc = "1111111111111111111111111111111111111111111111111111111111111111";
	const char *abs_in = "2222222222222222222222222222222222222222222222222222222222222222";
	const char *plain = "3333333333333333333333333333333333333333333333333333333333333333";
	char link[4096], target[4096];

	(void)state;
	testutil_write_str(outside, "{\"Name\":\"/escaped\"}");
	/* A link to a file outside the root, by its absolute path and by "..". */
	char *dir = docker_dir(root, esc);
	snprintf(link, sizeof(link), "%s/config.v2.json", dir);
	assert_int_equal(symlink(outside, link), 0);
	free(dir);
	/* An absolute link that means a file inside the root, as the host sees it. */
	write_config(root, plain, "plain");
	dir = docker_dir(root, abs_in);
	snprintf(link, sizeof(link), "%s/config.v2.json", dir);
	snprintf(target, sizeof(target), "/var/lib/docker/containers/%s/config.v2.json", plain);
	assert_int_equal(symlink(target, link), 0);
	free(dir);

	struct cnames *c = cnames_new(root);
	LOOKUP(c, CNAMES_DOCKER, esc, NULL, T0, "", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, abs_in, NULL, T0, "plain", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, plain, NULL, T0, "plain", "", "", 1);
	cnames_free(c);
	/* Without openat2: no symlink is followed at all. */
	c = cnames_new(root);
	cnames_set_no_openat2(c, true);
	LOOKUP(c, CNAMES_DOCKER, esc, NULL, T0, "", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, abs_in, NULL, T0, "", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, plain, NULL, T0, "plain", "", "", 1);
	cnames_free(c);
	/* Nor in a directory on the way. */
	char *lib = testutil_path(root, "var/lib");
	char *moved = testutil_path(tmp, "lib-elsewhere");
	assert_int_equal(rename(lib, moved), 0);
	assert_int_equal(symlink(moved, lib), 0);
	c = cnames_new(root);
	cnames_set_no_openat2(c, true);
	LOOKUP(c, CNAMES_DOCKER, plain, NULL, T0, "", "", "", 1);
	cnames_free(c);
	c = cnames_new(root);
	LOOKUP(c, CNAMES_DOCKER, plain, NULL, T0, "", "", "", 1); /* resolved inside root: not there */
	cnames_free(c);
	testutil_rmtree(tmp);
	free(lib);
	free(moved);
	free(outside);
	free(root);
	free(tmp);
}

static void test_lookup_bounds_size_and_file_type(void **state)
{
	char *root = testutil_tmpdir();
	const char *big = "4444444444444444444444444444444444444444444444444444444444444444";
	const char *edge = "5555555555555555555555555555555555555555555555555555555555555555";
	const char *fifo = "6666666666666666666666666666666666666666666666666666666666666666";

	(void)state;
	/* A config of CNAMES_DOCKER_MAX bytes is read; one byte more is not. */
	size_t n = CNAMES_DOCKER_MAX;
	char *json = malloc(n + 2);
	assert_non_null(json);
	const char *head = "{\"Name\":\"/edge\",\"Pad\":\"";
	memset(json, 'a', n + 1);
	memcpy(json, head, strlen(head));
	memcpy(json + n - 2, "\"}", 2);
	char *dir = docker_dir(root, edge);
	char *path = testutil_path(dir, "config.v2.json");
	testutil_write_file(path, json, n);
	free(path);
	free(dir);
	memset(json, 'a', n + 1);
	head = "{\"Name\":\"/big\",\"Pad\":\"";
	memcpy(json, head, strlen(head));
	memcpy(json + n - 1, "\"}", 2);
	dir = docker_dir(root, big);
	path = testutil_path(dir, "config.v2.json");
	testutil_write_file(path, json, n + 1);
	free(path);
	free(dir);
	free(json);
	/* A FIFO in the file's place: not read, and no hang. */
	dir = docker_dir(root, fifo);
	path = testutil_path(dir, "config.v2.json");
	assert_int_equal(mkfifo(path, 0600), 0);
	free(path);
	free(dir);

	struct cnames *c = cnames_new(root);
	LOOKUP(c, CNAMES_DOCKER, edge, NULL, T0, "edge", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, big, NULL, T0, "", "", "", 1);
	LOOKUP(c, CNAMES_DOCKER, fifo, NULL, T0, "", "", "", 1);
	cnames_free(c);
	testutil_rmtree(root);
	free(root);
}

static void test_cache_evicts_least_recently_used(void **state)
{
	char *root = testutil_tmpdir();
	char ids[CNAMES_CACHE_WAYS + 1][CNAMES_ID_LEN + 1];
	char name[16];

	(void)state;
	/* Ids that differ only after their first 8 hex digits share a set. */
	for (int i = 0; i <= CNAMES_CACHE_WAYS; i++) {
		snprintf(ids[i], sizeof(ids[i]), "abcdef01%056x", i);
		snprintf(name, sizeof(name), "c%d", i);
		write_config(root, ids[i], name);
	}
	struct cnames *c = cnames_new(root);
	for (int i = 0; i < CNAMES_CACHE_WAYS; i++) {
		snprintf(name, sizeof(name), "c%d", i);
		LOOKUP(c, CNAMES_DOCKER, ids[i], NULL, T0, name, "", "", 1);
	}
	LOOKUP(c, CNAMES_DOCKER, ids[0], NULL, T0, "c0", "", "", 0); /* c0 is now the most recent */
	snprintf(name, sizeof(name), "c%d", CNAMES_CACHE_WAYS);
	LOOKUP(c, CNAMES_DOCKER, ids[CNAMES_CACHE_WAYS], NULL, T0, name, "", "", 1); /* evicts c1 */
	LOOKUP(c, CNAMES_DOCKER, ids[0], NULL, T0, "c0", "", "", 0);
	LOOKUP(c, CNAMES_DOCKER, ids[2], NULL, T0, "c2", "", "", 0);
	LOOKUP(c, CNAMES_DOCKER, ids[1], NULL, T0, "c1", "", "", 1);
	cnames_free(c);
	testutil_rmtree(root);
	free(root);
}

/* A rootless Podman container's name, from its owner's home (found in the
 * rootfs's etc/passwd) or its runroot under run/user/UID; a home that would
 * lead out of the root, an owner not in passwd and a rootful lookup do not
 * read the user's files. */
static void test_rootless_podman(void **state)
{
	(void)state;
	char *root = testutil_tmpdir(), path[4096];
	const char *json = "[{\"id\":\"" P1 "\",\"names\":[\"alice-llm\"]}]";
	const char *json2 = "[{\"id\":\"" P2 "\",\"names\":[\"bob-scratch\"]}]";
	snprintf(path, sizeof(path), "mkdir -p %s/etc %s/home/alice/.local/share/containers/storage/overlay-containers "
		 "%s/run/user/1002/containers/overlay-containers %s/etc/bad", root, root, root, root);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/etc/passwd", root);
	testutil_write_str(path, "root:x:0:0:root:/root:/bin/sh\nbroken line\nalice:x:1001:1001::/home/alice:/bin/sh\n"
				 "bob:x:1002:1002::/home/bob:/bin/sh\nmallory:x:1003:1003::/../../etc/bad:/bin/sh\n");
	snprintf(path, sizeof(path), "%s/home/alice/.local/share/containers/storage/overlay-containers/containers.json", root);
	testutil_write_str(path, json);
	snprintf(path, sizeof(path), "%s/run/user/1002/containers/overlay-containers/volatile-containers.json", root);
	testutil_write_str(path, json2);
	struct cnames *c = cnames_new(root);
	struct cnames_result r;
	assert_int_equal(cnames_lookup(c, CNAMES_PODMAN, P1, NULL, 1001, T0, &r), 0);
	assert_string_equal(r.container_name, "alice-llm");
	assert_int_equal(cnames_lookup(c, CNAMES_PODMAN, P2, NULL, 1002, T0, &r), 0);
	assert_string_equal(r.container_name, "bob-scratch");
	/* Rootful: the user's store is not where it looks. */
	struct cnames *c2 = cnames_new(root);
	assert_int_equal(cnames_lookup(c2, CNAMES_PODMAN, P1, NULL, -1, T0, &r), 0);
	assert_string_equal(r.container_name, "");
	/* Another owner, one not in passwd, one whose home climbs out. */
	assert_int_equal(cnames_lookup(c2, CNAMES_PODMAN, P3, NULL, 1002, T0, &r), 0);
	assert_string_equal(r.container_name, "");
	assert_int_equal(cnames_lookup(c2, CNAMES_PODMAN, P3, NULL, 4242, T0 + 1, &r), 0);
	assert_string_equal(r.container_name, "");
	assert_int_equal(cnames_lookup(c2, CNAMES_PODMAN, P3, NULL, 1003, T0 + 2, &r), 0);
	assert_string_equal(r.container_name, "");
	cnames_free(c);
	cnames_free(c2);
	testutil_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docker_config_real),
		cmocka_unit_test(test_docker_config_hostile),
		cmocka_unit_test(test_podman_containers),
		cmocka_unit_test(test_podman_hostile),
		cmocka_unit_test(test_kubelet_log_names),
		cmocka_unit_test(test_pod_dir_names),
		cmocka_unit_test(test_clean_and_ids),
		cmocka_unit_test(test_lookup_docker_and_podman),
		cmocka_unit_test(test_rootless_podman),
		cmocka_unit_test(test_lookup_kubernetes),
		cmocka_unit_test(test_lookup_broken_tree),
		cmocka_unit_test(test_cri_runtime),
		cmocka_unit_test(test_lookup_symlinks_stay_in_root),
		cmocka_unit_test(test_lookup_bounds_size_and_file_type),
		cmocka_unit_test(test_cache_evicts_least_recently_used),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
