/* line_reader: JSON Lines framing from a file descriptor, as the record
 * format's rule 5 says (docs/record-format.md). Lines end at \n with one
 * trailing \r dropped, a last line without \n counts, a UTF-8 BOM at the
 * start is ignored, and a line longer than the cap is skipped without ever
 * being held whole. It uses the cap plus one read chunk of memory.
 *
 * With objects on (line_reader_objects), a JSON object printed over several
 * lines, as `jq .` and the original gpur's --json print it, comes back as
 * one "line". That line is the lines from one that opens an object at column
 * 0 and leaves it open up to the one that closes it, joined by \n, under the
 * same cap; a longer object is skipped and counted as oversized, never held
 * whole. A line at column 0 that starts with '{' while an object is still
 * open ends that object where it stands, as a torn record that is returned
 * as it is so that the caller skips it, and is then read afresh. Memory is
 * then twice the cap plus one read chunk. */
#ifndef GPUR_LINE_READER_H
#define GPUR_LINE_READER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct instream;

struct line_reader {
	int fd;
	struct instream *in; /* when set, bytes come decoded from it and not from fd */
	size_t cap;   /* longest line kept, in bytes */
	char *chunk;  /* read buffer */
	size_t pos, len;
	struct buf line;
	int eof;           /* 1 after end of file, -errno after a read error */
	uint64_t bof_done;  /* the BOM check is done */
	uint64_t oversized; /* lines skipped for length */
	uint64_t lineno;    /* lines returned or skipped so far */
	uint64_t torn;      /* a piece of line cut off by a decoding error, not returned */
	uint64_t consumed;  /* bytes taken from the chunk so far, which is the offset of the next line */
	const volatile sig_atomic_t *cancel; /* when set, a read blocked by a signal gives up with -EINTR */
	uint64_t first_line; /* the line number, from 1, where the last line or object returned began */
	uint64_t nlines;     /* the lines the last line or object returned spans */
	/* Objects over several lines (line_reader_objects). */
	bool objects;
	struct buf rec;   /* the object being joined */
	bool held;        /* a line read but not yet returned, in line */
	const char *held_line;
	size_t held_len;
	uint64_t held_lineno;
};

/* fd stays the caller's. */
void line_reader_init(struct line_reader *lr, int fd, size_t cap);
/* Reads plain, zstd or gzip from in, which the caller keeps, instead. A piece
 * of a line before a decoding error (-EBADMSG) is not returned but counted in
 * torn. */
void line_reader_init_stream(struct line_reader *lr, struct instream *in, size_t cap);
void line_reader_fini(struct line_reader *lr);
/* Turns on the joining of objects printed over several lines, described
 * above. */
void line_reader_objects(struct line_reader *lr);
/* Reads the next line. Returns 1 with *line and *len set, valid until the
 * next call; 0 at the end of the file; or -errno on a read error, after every
 * line before it was returned. */
int line_reader_next(struct line_reader *lr, const char **line, size_t *len);

#endif
