/* fdinfo_parse: the DRM client keys of one fdinfo text, which are the
 * kernel's drm-usage-stats keys and each driver's own, as docs/drm-fdinfo.md
 * lists them. Lines come from kvparse, which trims the spaces and TABs on
 * either side of the value, since amdgpu and v3d print "key: \tvalue".
 * Prefixes are matched longest first, so drm-engine-capacity- is never read
 * as an engine called "capacity-x", nor drm-total-cycles- as a region
 * "cycles-x". */
#include "drm/fdinfo_parse.h"

#include <errno.h>
#include <string.h>

#include "util/kvparse.h"

enum kind { K_NS, K_CYCLES, K_TOTAL, K_CAPACITY, K_MAXFREQ, K_PCT };

struct prefix {
	const char *text;
	bool engine;
	int kind; /* enum kind for an engine, enum fdinfo_mem for a region */
};

/* Longest first where one is a prefix of another. */
static const struct prefix PREFIXES[] = {
	{"drm-engine-capacity-", true, K_CAPACITY},
	{"drm-total-cycles-", true, K_TOTAL},
	{"drm-purgeable-", false, FDINFO_MEM_PURGEABLE},
	{"drm-resident-", false, FDINFO_MEM_RESIDENT},
	{"drm-maxfreq-", true, K_MAXFREQ},
	{"drm-engine-", true, K_NS},
	{"drm-cycles-", true, K_CYCLES},
	{"drm-shared-", false, FDINFO_MEM_SHARED},
	{"drm-memory-", false, FDINFO_MEM_DEPRECATED},
	{"drm-active-", false, FDINFO_MEM_ACTIVE},
	{"drm-total-", false, FDINFO_MEM_TOTAL},
};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
	       c == '-';
}

/* Copies s[0..n) as a name (engine, region, driver) into out. Returns false
 * when it is empty, too long or holds anything but letters, digits, '_', '.'
 * and '-'. */
static bool take_name(const char *s, size_t n, char out[FDINFO_NAMELEN])
{
	if (n == 0 || n >= FDINFO_NAMELEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_char(s[i]))
			return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/* The class of an amdgpu ring name: gfx0 → gfx, sdma1 → sdma, comp_1.0.0 →
 * comp. Returns the length of the class, or n when the name is no ring
 * name. */
static size_t ring_class(const char *s, size_t n)
{
	size_t k = n;
	bool digit = false;

	while (k > 1 && ((s[k - 1] >= '0' && s[k - 1] <= '9') || s[k - 1] == '.' || s[k - 1] == '_')) {
		digit |= s[k - 1] >= '0' && s[k - 1] <= '9';
		k--;
	}
	return digit ? k : n;
}

/* Copies "dddd:bb:dd.f" in either case into out in lowercase. The domain has
 * 4 to 6 hex digits, because VMD domains pass 0xffff. */
static bool take_pdev(const char *s, size_t n, char out[16])
{
	size_t d = 0;

	while (d < n && kvparse_hexval(s[d]) >= 0)
		d++;
	if (d < 4 || d > 6 || n != d + 8)
		return false;
	const char *r = s + d;
	if (r[0] != ':' || kvparse_hexval(r[1]) < 0 || kvparse_hexval(r[2]) < 0 || r[3] != ':' ||
	    kvparse_hexval(r[4]) < 0 || kvparse_hexval(r[5]) < 0 || r[6] != '.' || r[7] < '0' || r[7] > '7')
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = (s[i] >= 'A' && s[i] <= 'F') ? (char)(s[i] - 'A' + 'a') : s[i];
	out[n] = '\0';
	return true;
}

/* Reads legacy amdgpu "42.17%" into hundredths. The kernel printed the
 * hundredths with %d and no padding, so "3.8%" is 3.08 %. */
static bool take_pct(const char *s, size_t n, uint64_t *centi)
{
	uint64_t whole = 0, frac = 0;
	ssize_t k = kvparse_u64(s, n, 1000000, &whole);

	if (k <= 0)
		return false;
	size_t i = (size_t)k;
	if (i < n && s[i] == '.') {
		ssize_t f = kvparse_u64(s + i + 1, n - i - 1, 99, &frac);
		if (f <= 0)
			return false;
		i += 1 + (size_t)f;
	}
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i + 1 != n || s[i] != '%')
		return false;
	*centi = whole * 100 + frac;
	return true;
}

static struct fdinfo_parsed_engine *engine_slot(struct fdinfo_parsed *p, const char *name)
{
	for (size_t i = 0; i < p->nengines; i++)
		if (strcmp(p->engines[i].name, name) == 0)
			return &p->engines[i];
	if (p->nengines == FDINFO_MAX_ENGINES)
		return NULL;
	struct fdinfo_parsed_engine *en = &p->engines[p->nengines++];
	memset(en, 0, sizeof(*en));
	memcpy(en->name, name, strlen(name) + 1);
	return en;
}

static struct fdinfo_parsed_region *region_slot(struct fdinfo_parsed *p, const char *name)
{
	for (size_t i = 0; i < p->nregions; i++)
		if (strcmp(p->regions[i].name, name) == 0)
			return &p->regions[i];
	if (p->nregions == FDINFO_MAX_REGIONS)
		return NULL;
	struct fdinfo_parsed_region *r = &p->regions[p->nregions++];
	memset(r, 0, sizeof(*r));
	memcpy(r->name, name, strlen(name) + 1);
	return r;
}

static uint64_t *engine_field(struct fdinfo_parsed_engine *en, int kind)
{
	switch (kind) {
	case K_NS:
		return &en->ns;
	case K_CYCLES:
		return &en->cycles;
	case K_TOTAL:
		return &en->total_cycles;
	case K_CAPACITY:
		return &en->capacity;
	case K_MAXFREQ:
		return &en->maxfreq_hz;
	default:
		return &en->pct_centi;
	}
}

/* Takes one engine value. A ring key, folded into its class, adds to what the
 * class has, and the class's own key is taken once. Timestamps (total
 * cycles) and frequencies are not sums, so the first wins. */
static bool add_engine(struct fdinfo_parsed *p, const char *key, size_t klen, int kind, uint64_t v)
{
	char name[FDINFO_NAMELEN];
	bool fold = kind == K_PCT || (p->have_driver && strcmp(p->driver, "amdgpu") == 0);
	size_t n = fold ? ring_class(key, klen) : klen;
	bool exact = n == klen;

	if (!take_name(key, klen, name))
		return false;
	name[n] = '\0';
	struct fdinfo_parsed_engine *en = engine_slot(p, name);
	if (!en)
		return false;
	unsigned bit = 1u << kind;
	uint64_t *f = engine_field(en, kind);
	bool sums = kind == K_NS || kind == K_CYCLES || kind == K_CAPACITY || kind == K_PCT;
	if ((exact && (en->exact & bit)) || (!sums && (en->have & bit)))
		return false;
	if ((en->have & bit) && *f > UINT64_MAX - v)
		return false;
	*f = (en->have & bit) ? *f + v : v;
	en->have |= bit;
	if (exact)
		en->exact |= bit;
	if (kind == K_NS || kind == K_PCT)
		en->rings++;
	return true;
}

static bool add_region(struct fdinfo_parsed *p, const char *key, size_t klen, int slot, uint64_t v)
{
	char name[FDINFO_NAMELEN];

	if (!take_name(key, klen, name))
		return false;
	struct fdinfo_parsed_region *r = region_slot(p, name);
	if (!r || (r->have & (1u << slot)))
		return false;
	r->bytes[slot] = v;
	r->have |= 1u << slot;
	return true;
}

/* Takes a drm-<prefix><name> line, and returns false when it was left out. */
static bool take_prefixed(struct fdinfo_parsed *p, const struct kvparse_kv *kv, const struct prefix *px, size_t rest)
{
	static const enum kvparse_unit ENGINE_UNITS[] = {
		[K_NS] = KVPARSE_UNIT_NS,         [K_CYCLES] = KVPARSE_UNIT_NONE, [K_TOTAL] = KVPARSE_UNIT_NONE,
		[K_CAPACITY] = KVPARSE_UNIT_NONE, [K_MAXFREQ] = KVPARSE_UNIT_HZ,  [K_PCT] = KVPARSE_UNIT_NONE,
	};
	uint64_t v;
	enum kvparse_unit unit = px->engine ? ENGINE_UNITS[px->kind] : KVPARSE_UNIT_BYTES;

	if (kvparse_value(kv->val, kv->vlen, unit, &v) != 0)
		return false;
	if (px->engine && px->kind == K_CAPACITY && v == 0)
		return false; /* drm-usage-stats says "0 is not allowed" */
	if (px->engine)
		return add_engine(p, kv->key + rest, kv->klen - rest, px->kind, v);
	return add_region(p, kv->key + rest, kv->klen - rest, px->kind, v);
}

/* Takes lines of the legacy amdgpu format, "vram mem: N kB" and
 * "gfx0: 42.17%". Returns true when the line was one, and *ok says whether
 * it was taken or left out. */
static bool take_legacy(struct fdinfo_parsed *p, const struct kvparse_kv *kv, bool *ok)
{
	static const char MEM[] = " mem";
	uint64_t v;
	size_t ml = sizeof(MEM) - 1;

	if (kv->klen > ml && memcmp(kv->key + kv->klen - ml, MEM, ml) == 0) {
		*ok = kvparse_value(kv->val, kv->vlen, KVPARSE_UNIT_BYTES, &v) == 0 &&
		      add_region(p, kv->key, kv->klen - ml, FDINFO_MEM_DEPRECATED, v);
		return true;
	}
	if (kv->vlen && kv->val[kv->vlen - 1] == '%' && !(kv->klen >= 4 && memcmp(kv->key, "drm-", 4) == 0)) {
		*ok = take_pct(kv->val, kv->vlen, &v) && add_engine(p, kv->key, kv->klen, K_PCT, v);
		return true;
	}
	return false;
}

static void take_line(struct fdinfo_parsed *p, const struct kvparse_kv *kv, bool *legacy_marks)
{
	bool ok = true;
	size_t rest;

	if (kvparse_key_is(kv, "drm-driver")) {
		ok = !p->have_driver && take_name(kv->val, kv->vlen, p->driver);
		p->have_driver |= ok;
	} else if (kvparse_key_is(kv, "drm-client-id")) {
		ok = !p->have_client_id && kvparse_value(kv->val, kv->vlen, KVPARSE_UNIT_NONE, &p->client_id) == 0;
		p->have_client_id |= ok;
	} else if (kvparse_key_is(kv, "drm-pdev") || kvparse_key_is(kv, "pdev")) {
		ok = !p->pdev[0] && take_pdev(kv->val, kv->vlen, p->pdev);
		*legacy_marks |= ok && kv->klen == 4;
	} else if (kvparse_key_is(kv, "pasid")) {
		ok = !p->have_pasid && kvparse_value(kv->val, kv->vlen, KVPARSE_UNIT_NONE, &p->pasid) == 0;
		p->have_pasid |= ok;
	} else if (kvparse_key_prefix(kv, "drm-", NULL)) {
		for (size_t i = 0; i < sizeof(PREFIXES) / sizeof(PREFIXES[0]); i++)
			if (kvparse_key_prefix(kv, PREFIXES[i].text, &rest)) {
				ok = take_prefixed(p, kv, &PREFIXES[i], rest);
				break;
			}
	} else if (take_legacy(p, kv, &ok)) {
		*legacy_marks |= ok;
	}
	if (!ok)
		p->ignored++;
}

int fdinfo_parse(const char *buf, size_t len, struct fdinfo_parsed *out)
{
	struct kvparse_iter it;
	struct kvparse_kv kv;
	bool legacy_marks = false;

	memset(out, 0, sizeof(*out));
	kvparse_iter_init(&it, buf, len);
	while (kvparse_next(&it, ':', &kv))
		take_line(out, &kv, &legacy_marks);
	if (!out->have_driver && out->have_pasid && legacy_marks) {
		/* 5.14–5.18 amdgpu has no client id, but the pasid names one VM,
		 * which is one drm_file system-wide. */
		out->legacy = true;
		memcpy(out->driver, "amdgpu", sizeof("amdgpu"));
		out->have_driver = true;
		out->client_id = out->pasid;
		out->have_client_id = true;
	}
	return out->have_driver && out->have_client_id ? 0 : -ENODATA;
}

uint64_t fdinfo_parse_capacity(const struct fdinfo_parsed_engine *en)
{
	if ((en->have & FDINFO_HAVE_CAPACITY) && en->capacity)
		return en->capacity;
	return en->rings ? en->rings : 1;
}

bool fdinfo_parse_resident(const struct fdinfo_parsed_region *r, uint64_t *bytes)
{
	if (r->have & (1u << FDINFO_MEM_RESIDENT)) {
		*bytes = r->bytes[FDINFO_MEM_RESIDENT];
		return true;
	}
	if (r->have & (1u << FDINFO_MEM_DEPRECATED)) {
		*bytes = r->bytes[FDINFO_MEM_DEPRECATED];
		return true;
	}
	return false;
}

bool fdinfo_parse_total(const struct fdinfo_parsed_region *r, uint64_t *bytes)
{
	if (!(r->have & (1u << FDINFO_MEM_TOTAL)))
		return false;
	*bytes = r->bytes[FDINFO_MEM_TOTAL];
	return true;
}
