/* gz: a gzip body deflated once per frame and closed per scrape. */
#include "serve/gz.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

int gz_open_deflate(struct gz_open *g, const char *text, size_t n, int level)
{
	z_stream z;

	memset(g, 0, sizeof(*g));
	buf_init(&g->data);
	memset(&z, 0, sizeof(z));
	/* Raw deflate, with negative window bits, because the gzip header and
	 * trailer are written here, so that the last block can be the
	 * scrape's. */
	if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	static const unsigned char HEADER[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 /* Unix */};
	buf_append(&g->data, HEADER, sizeof(HEADER));
	size_t bound = deflateBound(&z, (uLong)n) + 16;
	buf_reserve(&g->data, bound);
	z.next_in = (Bytef *)(uintptr_t)text;
	z.avail_in = (uInt)n;
	int rc;
	do {
		buf_reserve(&g->data, 4096);
		z.next_out = (Bytef *)g->data.data + g->data.len;
		z.avail_out = (uInt)(g->data.cap - g->data.len - 1);
		uInt before = z.avail_out;
		/* A sync flush ends on a byte boundary, without a final block. */
		rc = deflate(&z, Z_SYNC_FLUSH);
		g->data.len += before - z.avail_out;
	} while (rc == Z_OK && (z.avail_in > 0 || z.avail_out == 0));
	deflateEnd(&z);
	if (rc != Z_OK && rc != Z_BUF_ERROR) {
		buf_fini(&g->data);
		return -EIO;
	}
	g->crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), (const Bytef *)text, (uInt)n);
	g->len = n;
	return 0;
}

void gz_fini(struct gz_open *g)
{
	buf_fini(&g->data);
}

static void le32(char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (char)(v >> (8 * i) & 0xff);
}

size_t gz_close(const struct gz_open *g, const char *tail, size_t tn, char *out)
{
	size_t k = 0;

	/* A final stored block is BFINAL=1, BTYPE=00, then LEN and ~LEN. */
	out[k++] = 0x01;
	out[k++] = (char)(tn & 0xff);
	out[k++] = (char)(tn >> 8 & 0xff);
	out[k++] = (char)(~tn & 0xff);
	out[k++] = (char)(~tn >> 8 & 0xff);
	if (tn)
		memcpy(out + k, tail, tn);
	k += tn;
	uint32_t tcrc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), (const Bytef *)tail, (uInt)tn);
	le32(out + k, (uint32_t)crc32_combine(g->crc, tcrc, (z_off_t)tn));
	le32(out + k + 4, (uint32_t)((g->len + tn) & 0xffffffffu));
	return k + 8;
}
