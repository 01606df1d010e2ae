/* instream: plain, zstd and gzip input by magic bytes, decoded as read. */
#include "record/instream.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "util/xalloc.h"

#define INSTREAM_RAW (128u << 10)

struct instream {
	int fd;
	enum instream_kind kind;
	const volatile sig_atomic_t *cancel;
	unsigned char *raw;     /* compressed bytes read, not yet decoded */
	size_t raw_pos, raw_len;
	bool raw_eof;
	uint64_t raw_used;      /* raw bytes consumed by the decoder, or handed out as they are */
	uint64_t dec_total;     /* decoded bytes handed out */
	uint64_t frame_raw, frame_dec; /* the latest restart point */
	bool in_frame;          /* for zstd, a frame is begun and not finished */
	bool failed;
	ZSTD_DStream *zd;
	z_stream gz;
	bool gz_init, gz_end;   /* a gzip member ended, and another may follow */
};

enum instream_kind instream_sniff(const unsigned char *p, size_t n)
{
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F && p[3] == 0xFD)
		return INSTREAM_ZSTD;
	if (n >= 2 && p[0] == 0x1F && p[1] == 0x8B)
		return INSTREAM_GZIP;
	return INSTREAM_PLAIN;
}

/* Reads more raw input after what is left. Returns 0 or -errno, and sets
 * raw_eof at the end. */
static int fill_raw(struct instream *s)
{
	if (s->raw_pos > 0 && s->raw_pos < s->raw_len)
		memmove(s->raw, s->raw + s->raw_pos, s->raw_len - s->raw_pos);
	s->raw_len -= s->raw_pos;
	s->raw_pos = 0;
	while (s->raw_len < INSTREAM_RAW) {
		ssize_t n;
		if (s->cancel && *s->cancel)
			return -EINTR;
		n = read(s->fd, s->raw + s->raw_len, INSTREAM_RAW - s->raw_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			s->raw_eof = true;
			break;
		}
		s->raw_len += (size_t)n;
		break;
	}
	return 0;
}

static struct instream *make(int fd)
{
	struct instream *s = xcalloc(1, sizeof(*s));

	s->fd = fd;
	s->raw = xmalloc(INSTREAM_RAW);
	return s;
}

static int start_decoder(struct instream *s)
{
	if (s->kind == INSTREAM_ZSTD) {
		s->zd = ZSTD_createDStream();
		if (!s->zd)
			return -ENOMEM;
		ZSTD_initDStream(s->zd);
	} else if (s->kind == INSTREAM_GZIP) {
		/* 16 asks for a gzip wrapper, and 15 is the largest window. */
		if (inflateInit2(&s->gz, 16 + MAX_WBITS) != Z_OK)
			return -ENOMEM;
		s->gz_init = true;
	}
	return 0;
}

struct instream *instream_new(int fd)
{
	struct instream *s = make(fd);

	/* The magic bytes decide, and a short file is plain. */
	while (s->raw_len < 4 && !s->raw_eof)
		if (fill_raw(s) < 0)
			break;
	s->kind = instream_sniff(s->raw, s->raw_len);
	if (start_decoder(s) < 0)
		s->failed = true;
	return s;
}

struct instream *instream_new_at(int fd, enum instream_kind kind)
{
	struct instream *s = make(fd);

	s->kind = kind;
	if (start_decoder(s) < 0)
		s->failed = true;
	return s;
}

void instream_free(struct instream *s)
{
	if (!s)
		return;
	ZSTD_freeDStream(s->zd);
	if (s->gz_init)
		inflateEnd(&s->gz);
	free(s->raw);
	free(s);
}

static ssize_t read_plain(struct instream *s, unsigned char *out, size_t n)
{
	if (s->raw_pos < s->raw_len) {
		size_t k = s->raw_len - s->raw_pos < n ? s->raw_len - s->raw_pos : n;
		memcpy(out, s->raw + s->raw_pos, k);
		s->raw_pos += k;
		return (ssize_t)k;
	}
	for (;;) {
		if (s->cancel && *s->cancel)
			return -EINTR;
		ssize_t k = read(s->fd, out, n);
		if (k < 0 && errno == EINTR)
			continue;
		return k < 0 ? -errno : k;
	}
}

/* Decodes until some output, a frame's end, or the end of the input. */
static ssize_t read_zstd(struct instream *s, unsigned char *out, size_t n)
{
	ZSTD_outBuffer ob = {out, n, 0};

	for (;;) {
		if (s->raw_pos >= s->raw_len && !s->raw_eof) {
			int e = fill_raw(s);
			if (e < 0)
				return e;
		}
		if (s->raw_pos >= s->raw_len && s->raw_eof) {
			/* The input ended inside a frame, so it was cut short. */
			return s->in_frame ? -EBADMSG : 0;
		}
		if (!s->in_frame) {
			s->frame_raw = s->raw_used;
			s->frame_dec = s->dec_total;
			s->in_frame = true;
		}
		ZSTD_inBuffer ib = {s->raw + s->raw_pos, s->raw_len - s->raw_pos, 0};
		size_t r = ZSTD_decompressStream(s->zd, &ob, &ib);
		s->raw_pos += ib.pos;
		s->raw_used += ib.pos;
		if (ZSTD_isError(r))
			return -EBADMSG;
		if (r == 0)
			s->in_frame = false; /* the next byte starts a frame */
		if (ob.pos > 0 || r == 0) {
			if (ob.pos == 0)
				continue; /* an empty frame */
			return (ssize_t)ob.pos;
		}
	}
}

static ssize_t read_gzip(struct instream *s, unsigned char *out, size_t n)
{
	s->gz.next_out = out;
	s->gz.avail_out = (uInt)(n > (1u << 30) ? (1u << 30) : n);
	for (;;) {
		if (s->raw_pos >= s->raw_len && !s->raw_eof) {
			int e = fill_raw(s);
			if (e < 0)
				return e;
		}
		if (s->raw_pos >= s->raw_len && s->raw_eof)
			return s->gz_end ? 0 : -EBADMSG;
		if (s->gz_end) {
			/* Another member follows, as after cat a.gz b.gz, and it must be gzip. */
			if (s->raw[s->raw_pos] != 0x1F)
				return -EBADMSG;
			inflateReset(&s->gz);
			s->gz_end = false;
		}
		s->gz.next_in = s->raw + s->raw_pos;
		s->gz.avail_in = (uInt)(s->raw_len - s->raw_pos);
		int r = inflate(&s->gz, Z_NO_FLUSH);
		size_t used = (size_t)(s->gz.next_in - (s->raw + s->raw_pos));
		s->raw_pos += used;
		s->raw_used += used;
		if (r == Z_STREAM_END)
			s->gz_end = true;
		else if (r != Z_OK && r != Z_BUF_ERROR)
			return -EBADMSG;
		size_t got = (size_t)(s->gz.next_out - out);
		if (got > 0)
			return (ssize_t)got;
		if (r == Z_BUF_ERROR && s->raw_eof && s->raw_pos >= s->raw_len)
			return -EBADMSG;
	}
}

ssize_t instream_read(struct instream *s, void *out, size_t n)
{
	ssize_t k;

	if (s->failed)
		return -EBADMSG;
	if (n == 0)
		return 0;
	switch (s->kind) {
	case INSTREAM_ZSTD:
		k = read_zstd(s, out, n);
		break;
	case INSTREAM_GZIP:
		k = read_gzip(s, out, n);
		break;
	default:
		k = read_plain(s, out, n);
		if (k > 0)
			s->raw_used += (uint64_t)k;
		break;
	}
	if (k == -EBADMSG)
		s->failed = true;
	if (k > 0)
		s->dec_total += (uint64_t)k;
	return k;
}

enum instream_kind instream_kind(const struct instream *s)
{
	return s->kind;
}

void instream_restart_point(const struct instream *s, uint64_t *raw_off, uint64_t *dec_off)
{
	switch (s->kind) {
	case INSTREAM_PLAIN:
		*raw_off = s->raw_used;
		*dec_off = s->dec_total;
		break;
	case INSTREAM_ZSTD:
		/* Between frames the next one starts where the input stands. */
		*raw_off = s->in_frame ? s->frame_raw : s->raw_used;
		*dec_off = s->in_frame ? s->frame_dec : s->dec_total;
		break;
	default:
		*raw_off = 0;
		*dec_off = 0;
		break;
	}
}

void instream_set_cancel(struct instream *s, const volatile sig_atomic_t *cancel)
{
	s->cancel = cancel;
}
