/* instream: the bytes of one recording file, whatever its encoding. Plain,
 * zstd and gzip are told apart by their first bytes (magic), never by the
 * name. Compressed input is decoded as it is read, in a few hundred KiB of
 * memory rather than the whole file. A stream that stops decoding ends with
 * -EBADMSG after every byte that decoded, and the caller counts that as a
 * torn line. */
#ifndef GPUR_INSTREAM_H
#define GPUR_INSTREAM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum instream_kind { INSTREAM_PLAIN, INSTREAM_ZSTD, INSTREAM_GZIP };

struct instream;

/* Reads from fd, which the caller keeps. fd is positioned at the start of a
 * file, and the kind is found from the first bytes; instream_new_at starts at
 * a restart point instead. Returns NULL only when out of memory. */
struct instream *instream_new(int fd);
/* As instream_new, but the bytes at fd's position are of the given kind: a
 * zstd stream restarting at a frame boundary, or plain text at a line start. */
struct instream *instream_new_at(int fd, enum instream_kind kind);
void instream_free(struct instream *s);
/* Reads up to n decoded bytes into out. Returns the count, 0 at the end, or
 * -errno: -EBADMSG when the compressed data is corrupt or cut short, and
 * -EINTR when *cancel is set during a blocked read. */
ssize_t instream_read(struct instream *s, void *out, size_t n);
enum instream_kind instream_kind(const struct instream *s);
/* The latest place where decoding can restart: its raw offset from where the
 * stream was opened, and the decoded offset (bytes handed out since the open)
 * that it corresponds to. For plain text it is where the stream is now. For
 * zstd it is the start of the frame last begun; a read returns at each
 * frame's end, so a caller that looks after every read sees every frame
 * start. For gzip it is where the stream was opened. */
void instream_restart_point(const struct instream *s, uint64_t *raw_off, uint64_t *dec_off);
void instream_set_cancel(struct instream *s, const volatile sig_atomic_t *cancel);
/* The kind of a file, from its first n bytes at p. */
enum instream_kind instream_sniff(const unsigned char *p, size_t n);

#endif
