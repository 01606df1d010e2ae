/* cnames_parse: Docker, Podman and kubelet name parsers over (buf, len),
 * with the project's strict JSON pull parser. */
#include "proc/cnames_parse.h"

#include <errno.h>
#include <string.h>

#include "util/json_parse.h"
#include "util/buf.h"
#include "util/utf8.h"

/* A JSON name decodes to at most this many bytes before cleaning. That is
 * more than any buffer a name goes into, so the rest is validated and
 * dropped. */
#define NAME_DECODE_MAX 1024

bool cnames_id_valid(const char *s, size_t len)
{
	if (len != CNAMES_ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

size_t cnames_clean(const char *s, size_t n, char *out, size_t outsz)
{
	size_t len = 0, i = 0;

	while (i < n) {
		uint32_t cp;
		char enc[4];
		i += utf8_decode(s + i, n - i, &cp);
		if (utf8_is_unsafe(cp))
			continue;
		size_t k = utf8_encode(cp, enc);
		if (len + k > outsz - 1)
			break;
		memcpy(out + len, enc, k);
		len += k;
	}
	out[len] = '\0';
	return len;
}

/* Cleans a decoded Docker or Podman name into name, dropping Docker's
 * leading '/'. Returns true when something is left. */
static bool take_name(const struct buf *v, bool strip_slash, char *name, size_t n)
{
	const char *s = v->data ? v->data : "";
	size_t len = cnames_clean(s, v->len, name, n);

	if (strip_slash && len && name[0] == '/')
		memmove(name, name + 1, len--);
	return len > 0;
}

int cnames_parse_docker_config(const char *buf, size_t len, char *name, size_t n)
{
	struct jsonp_parser jp;
	struct buf v;
	char key[16];
	size_t klen;
	bool have = false;

	if (n == 0)
		return -EINVAL;
	name[0] = '\0';
	jsonp_init(&jp, buf, len);
	if (!jsonp_object_begin(&jp))
		return -EINVAL;
	buf_init(&v);
	while (jsonp_object_next(&jp, key, sizeof(key), &klen)) {
		if (jsonp_key_is(key, klen, "Name") && jsonp_peek(&jp) == JSONP_STRING) {
			if (!jsonp_string(&jp, &v, NAME_DECODE_MAX))
				break;
			have = take_name(&v, true, name, n);
		} else {
			if (jsonp_key_is(key, klen, "Name"))
				have = false; /* the last Name wins, even one of the wrong type */
			if (!jsonp_skip(&jp))
				break;
		}
	}
	buf_fini(&v);
	if (jp.failed || !jsonp_at_end(&jp)) {
		name[0] = '\0';
		return -EINVAL;
	}
	if (!have) {
		name[0] = '\0';
		return -ENOENT;
	}
	return 0;
}

/* Reads one element of containers.json. Sets *match when its "id" is id, and
 * puts the first string of its "names", cleaned, in name. Returns false on
 * invalid JSON. */
static bool podman_entry(struct jsonp_parser *jp, struct buf *v, const char *id, bool *match, char *name,
			 size_t n, bool *named)
{
	static const char *const keys[] = {"id", "names"};
	int in = jsonp_object_enter(jp), k;

	*match = *named = false;
	if (in <= 0)
		return in == 0;
	while ((k = jsonp_object_key(jp, keys, 2)) >= 0) {
		if (k == 0 && jsonp_peek(jp) == JSONP_STRING) {
			if (!jsonp_string(jp, v, CNAMES_ID_LEN + 1))
				return false;
			*match = v->len == CNAMES_ID_LEN && memcmp(v->data, id, CNAMES_ID_LEN) == 0;
		} else if (k == 1 && jsonp_peek(jp) == JSONP_ARRAY) {
			bool first = true;
			*named = false;
			if (!jsonp_array_begin(jp))
				return false;
			while (jsonp_array_next(jp)) {
				if (first && jsonp_peek(jp) == JSONP_STRING) {
					if (!jsonp_string(jp, v, NAME_DECODE_MAX))
						return false;
					*named = take_name(v, false, name, n);
					first = false;
				} else if (!jsonp_skip(jp)) {
					return false;
				}
			}
		} else {
			if (k == 1)
				*named = false;
			if (!jsonp_skip(jp))
				return false;
		}
	}
	return !jp->failed;
}

int cnames_parse_podman_containers(const char *buf, size_t len, const char *id, char *name, size_t n)
{
	struct jsonp_parser jp;
	struct buf v;
	char cand[PROCESS_CONTAINER_NAME_MAX + 1];
	bool found = false, named = false;

	if (n == 0)
		return -EINVAL;
	name[0] = '\0';
	if (!cnames_id_valid(id, strlen(id)))
		return -EINVAL;
	jsonp_init(&jp, buf, len);
	if (!jsonp_array_begin(&jp))
		return -EINVAL;
	buf_init(&v);
	while (jsonp_array_next(&jp)) {
		bool match, has;
		size_t cn = n < sizeof(cand) ? n : sizeof(cand);
		if (!podman_entry(&jp, &v, id, &match, cand, cn, &has))
			break;
		/* c/storage itself keeps the first of duplicated ids. */
		if (match && !found) {
			found = true;
			named = has;
			if (has)
				memcpy(name, cand, strlen(cand) + 1);
		}
	}
	buf_fini(&v);
	if (jp.failed || !jsonp_at_end(&jp)) {
		name[0] = '\0';
		return -EINVAL;
	}
	if (!found || !named) {
		name[0] = '\0';
		return -ENOENT;
	}
	return 0;
}

/* True when s[0..n) is 1 to max bytes, each a lowercase letter, a digit,
 * '-', or, when dots is set, '.'. */
static bool dns_part(const char *s, size_t n, size_t max, bool dots)
{
	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || (dots && c == '.')))
			return false;
	}
	return true;
}

static void put(char *dst, const char *s, size_t n)
{
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Splits s[0..n) at its first two '_' into pod and namespace parts and the
 * rest. The parts come in that order for a log link, and the other way round
 * for a pod directory. Returns false when there are fewer than two '_'. */
static bool split3(const char *s, size_t n, size_t *a, size_t *b)
{
	const char *u1 = memchr(s, '_', n);
	if (!u1)
		return false;
	const char *u2 = memchr(u1 + 1, '_', n - (size_t)(u1 + 1 - s));
	if (!u2)
		return false;
	*a = (size_t)(u1 - s);
	*b = (size_t)(u2 - s);
	return true;
}

int cnames_parse_kubelet_log_name(const char *s, size_t len, struct cnames_kubelet_log *out)
{
	static const char SUFFIX[] = ".log";
	const size_t tail = 1 + CNAMES_ID_LEN + sizeof(SUFFIX) - 1; /* "-<id>.log" */
	size_t a, b;

	memset(out, 0, sizeof(*out));
	if (len <= tail || memcmp(s + len - 4, SUFFIX, 4) != 0 || s[len - tail] != '-')
		return -EINVAL;
	const char *id = s + len - tail + 1;
	size_t head = len - tail;
	if (!cnames_id_valid(id, CNAMES_ID_LEN) || !split3(s, head, &a, &b))
		return -EINVAL;
	const char *ns = s + a + 1, *ctr = s + b + 1;
	size_t nslen = b - a - 1, ctrlen = head - b - 1;
	if (!dns_part(s, a, PROCESS_POD_NAME_MAX, true) || !dns_part(ns, nslen, CNAMES_K8S_LABEL_MAX, false) ||
	    !dns_part(ctr, ctrlen, CNAMES_K8S_LABEL_MAX, false))
		return -EINVAL;
	put(out->id, id, CNAMES_ID_LEN);
	put(out->pod_name, s, a);
	put(out->pod_namespace, ns, nslen);
	put(out->container_name, ctr, ctrlen);
	return 0;
}

int cnames_parse_pod_dir_name(const char *s, size_t len, struct cnames_pod_dir *out)
{
	size_t a, b;

	memset(out, 0, sizeof(*out));
	if (!split3(s, len, &a, &b))
		return -EINVAL;
	const char *pod = s + a + 1, *uid = s + b + 1;
	size_t podlen = b - a - 1, uidlen = len - b - 1;
	if (!dns_part(s, a, CNAMES_K8S_LABEL_MAX, false) || !dns_part(pod, podlen, PROCESS_POD_NAME_MAX, true) ||
	    uidlen == 0 || uidlen > CNAMES_POD_UID_MAX)
		return -EINVAL;
	for (size_t i = 0; i < uidlen; i++)
		if (!((uid[i] >= '0' && uid[i] <= '9') || (uid[i] >= 'a' && uid[i] <= 'f') || uid[i] == '-'))
			return -EINVAL;
	put(out->pod_namespace, s, a);
	put(out->pod_name, pod, podlen);
	put(out->uid, uid, uidlen);
	return 0;
}
