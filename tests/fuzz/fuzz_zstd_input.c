/* fuzz_zstd_input: libFuzzer harness for the compressed input path
 * (instream + line_reader over it, the record format's rule 5 (docs/record-format.md) across zstd and gzip).
 *
 * Input: byte 0 = mode, byte 1..2 = where to corrupt, the rest = text.
 *   mode % 4 == 0: the text as a file, whatever it is (magic decides);
 *   1: the text compressed the way gpur writes segments (segment_compress:
 *      zstd, a frame per ~2 MiB of lines), then one byte changed or the file
 *      cut at the corrupt position (none when it is 0xffff);
 *   2: the same with gzip (zlib); 3: zstd, whole, then restarted through
 *      instream_new_at at every frame start instream_restart_point names.
 * Checked: no crash or leak; an uncorrupted stream gives back exactly the
 * text's lines; a corrupted one gives a prefix of them, then ends (0 or
 * -EBADMSG), never more lines than the text has. Any difference abort()s. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "record/instream.h"
#include "record/line_reader.h"
#include "record/segment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 4096

static char dir[64];

/* The file's bytes at path, into a heap buffer (*n). */
static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 4096;
			b = realloc(b, cap);
		}
		size_t k = fread(b + *n, 1, cap - *n, f);
		if (!k)
			break;
		*n += k;
	}
	fclose(f);
	return b;
}

static int memfile(const uint8_t *p, size_t n)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || (n && write(fd, p, n) != (ssize_t)n))
		abort();
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Reads every line of fd through an instream; checks them against the
 * text's lines (a prefix when corrupt). */
static void check_lines(int fd, const uint8_t *text, size_t tn, bool exact, struct instream *given)
{
	struct instream *in = given ? given : instream_new(fd);
	struct line_reader lr;
	const char *line;
	size_t len, off = 0;
	int rc;

	line_reader_init_stream(&lr, in, CAP);
	while ((rc = line_reader_next(&lr, &line, &len)) == 1) {
		if (!exact)
			continue;
		/* The text's next line (lines over the cap are skipped by both). */
		for (;;) {
			if (off > tn)
				abort(); /* more lines than the text has */
			const uint8_t *nl = memchr(text + off, '\n', tn - off);
			size_t l = nl ? (size_t)(nl - (text + off)) : tn - off;
			size_t trimmed = l && text[off + l - 1] == '\r' ? l - 1 : l;
			size_t start = off;
			off += l + 1;
			if (trimmed > CAP)
				continue;
			/* A byte-order mark at the very start is not the line's. */
			if (start == 0 && trimmed >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
				start += 3;
				trimmed -= 3;
			}
			if (trimmed != len || memcmp(text + start, line, len) != 0)
				abort();
			break;
		}
	}
	if (exact && rc != 0)
		abort(); /* an intact stream ends cleanly */
	if (rc != 0 && rc != -EBADMSG)
		abort();
	line_reader_fini(&lr);
	instream_free(in);
}

static void corrupt(uint8_t *b, size_t *n, unsigned where, uint8_t with)
{
	if (where == 0xffff || !*n)
		return;
	if (with & 1)
		*n = where % *n; /* cut short */
	else
		b[where % *n] ^= (uint8_t)(with | 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 || size > (1u << 20))
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_zstd_input.%d", (int)getpid());
		mkdir(dir, 0700);
	}
	unsigned mode = data[0] % 4, where = (unsigned)data[1] << 8 | data[2];
	const uint8_t *text = data + 3;
	size_t tn = size - 3;
	char plain[128], zst[160];
	snprintf(plain, sizeof(plain), "%s/rec.jsonl.20251201T100000Z", dir);
	snprintf(zst, sizeof(zst), "%s.zst", plain);

	if (mode == 0) {
		int fd = memfile(text, tn);
		check_lines(fd, text, tn, false, NULL);
		close(fd);
		return 0;
	}
	uint8_t *b;
	size_t n;
	if (mode == 2) {
		uLongf cap = compressBound(tn) + 64;
		b = malloc(cap);
		z_stream z;
		memset(&z, 0, sizeof(z));
		if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		z.next_in = (Bytef *)(uintptr_t)text;
		z.avail_in = (uInt)tn;
		z.next_out = b;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			abort();
		n = z.total_out;
		deflateEnd(&z);
	} else {
		int fd = open(plain, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || (tn && write(fd, text, tn) != (ssize_t)tn))
			abort();
		close(fd);
		char err[256];
		if (segment_compress(plain, 1, err, sizeof(err)) != 0)
			abort();
		b = slurp(zst, &n);
		unlink(zst);
	}
	if (mode == 3) {
		/* Every frame start the stream names is a place to restart. */
		int fd = memfile(b, n);
		struct instream *in = instream_new(fd);
		char buf[65536];
		uint64_t raw, dec, last_raw = 0, last_dec = 0;
		ssize_t k;
		while ((k = instream_read(in, buf, sizeof(buf))) > 0) {
			instream_restart_point(in, &raw, &dec);
			if (raw != last_raw && dec <= tn) {
				int fd2 = memfile(b + raw, n - raw);
				check_lines(fd2, text + dec, tn - dec, dec == 0 || text[dec - 1] == '\n',
					    instream_new_at(fd2, INSTREAM_ZSTD));
				close(fd2);
				last_raw = raw;
				last_dec = dec;
			}
		}
		(void)last_dec;
		if (k != 0)
			abort();
		instream_free(in);
		close(fd);
		free(b);
		return 0;
	}
	bool intact = where == 0xffff;
	corrupt(b, &n, where, data[1]);
	int fd = memfile(b, n);
	/* An empty text compresses to a stream of no lines; a cut one may
	 * still decode to a prefix. */
	check_lines(fd, text, tn, intact, NULL);
	close(fd);
	free(b);
	return 0;
}
