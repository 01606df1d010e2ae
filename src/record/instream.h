/* instream: the bytes of one recording file, whatever its encoding: plain,
 * zstd or gzip, told apart by the first bytes (magic), never by the name.
 * Compressed input is decoded as it is read (memory: a few hundred KiB, not
 * the file). A stream that stops decoding ends with -EBADMSG after every
 * byte that decoded; the caller counts that as a torn line. */
#ifndef GPUR_INSTREAM_H
#define GPUR_INSTREAM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum instream_kind { INSTREAM_PLAIN, INSTREAM_ZSTD, INSTREAM_GZIP };

struct instream;

/* Reads from fd (kept by the caller), which is positioned at the start of a
 * file or, with kind given (see instream_new_at), at a restart point. The
 * kind is found from the first bytes. NULL only when out of memory. */
struct instream *instream_new(int fd);
/* As instream_new, but the bytes at fd's position are of kind (a zstd
 * stream restarting at a frame boundary, or plain text at a line start). */
struct instream *instream_new_at(int fd, enum instream_kind kind);
void instream_free(struct instream *s);
/* Up to n decoded bytes into out: the count, 0 at the end, or -errno
 * (-EBADMSG: the compressed data is corrupt or cut short; -EINTR when
 * *cancel is set during a blocked read). */
ssize_t instream_read(struct instream *s, void *out, size_t n);
enum instream_kind instream_kind(const struct instream *s);
/* The latest place decoding can restart at: its raw offset from where the
 * stream was opened, and the decoded offset (bytes handed out since the
 * open) it corresponds to. Plain: where the stream is now. zstd: the start of
 * the frame last begun (a read returns at each frame's end, so a caller
 * that looks after every read sees every frame start). gzip: the open. */
void instream_restart_point(const struct instream *s, uint64_t *raw_off, uint64_t *dec_off);
void instream_set_cancel(struct instream *s, const volatile sig_atomic_t *cancel);
/* The kind of a file from its first bytes (n of them at p). */
enum instream_kind instream_sniff(const unsigned char *p, size_t n);

#endif
