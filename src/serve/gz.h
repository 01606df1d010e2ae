/* gz: a gzip body made once per frame and finished per scrape. The frame's
 * text is deflated once into an open gzip member, a header and deflate
 * blocks ending on a byte boundary. Each scrape closes it with its own short
 * tail as a final stored block and the trailer, which holds the CRC-32 and
 * length of the whole. One valid single-member gzip stream then costs a
 * scrape a memcpy and a CRC of a few dozen bytes (RFC 1951 §3.2.4,
 * RFC 1952). */
#ifndef GPUR_GZ_H
#define GPUR_GZ_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/* The longest a tail may be, since a stored block's LEN is 16 bits. */
#define GZ_MAX_TAIL 65535u
/* The bytes gz_close writes besides the tail itself. */
#define GZ_CLOSE_OVERHEAD 13u

struct gz_open {
	struct buf data;   /* gzip header and deflate(text), not final */
	uint32_t crc;      /* CRC-32 of text */
	uint64_t len;      /* text's length */
};

/* Deflates text[0..n) into g. g->data is initialised here, and gz_fini frees
 * it. Returns 0, or -ENOMEM or -EIO when zlib fails, and g is then empty. */
int gz_open_deflate(struct gz_open *g, const char *text, size_t n, int level);
void gz_fini(struct gz_open *g);
/* Writes the closing bytes for g with tail[0..tn), where tn <= GZ_MAX_TAIL,
 * into out, which has room for tn + GZ_CLOSE_OVERHEAD bytes, and returns the
 * count. g->data followed by these bytes is the gzip of text followed by
 * tail. */
size_t gz_close(const struct gz_open *g, const char *tail, size_t tn, char *out);

#endif
