/* utf8: decoding with U+FFFD for invalid input, and making outside text safe
 * for JSON and for the terminal. */
#ifndef GPUR_UTF8_H
#define GPUR_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define UTF8_REPLACEMENT 0xFFFDu

/* Decode one code point from s[0..n), n >= 1. Returns the bytes consumed
 * (>= 1). Invalid input (bad lead, bad or missing continuation, overlong form,
 * surrogate, > U+10FFFF) yields U+FFFD for its maximal invalid prefix, as the
 * Unicode standard recommends. */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Encode cp (<= 0x10FFFF) into out; returns 1..4. */
size_t utf8_encode(uint32_t cp, char out[4]);
/* Append s[0..n) to b with every invalid sequence replaced by U+FFFD, stopping
 * before the code point that would take the appended length past max bytes. */
void utf8_append_valid(struct buf *b, const char *s, size_t n, size_t max);
/* Length of the longest prefix of s[0..n) of at most max bytes that does not
 * split a valid UTF-8 sequence: a character that does not fit is left out
 * whole. Invalid bytes are not sequences: they are cut at max. */
size_t utf8_trim(const char *s, size_t n, size_t max);
/* True for code points that must not reach a terminal as themselves:
 * controls (C0, DEL, C1), and format characters that reorder or hide text
 * (bidi embeddings, overrides and isolates, zero-width characters, line and
 * paragraph separators, the BOM, the soft hyphen, fillers, deprecated format
 * controls, interlinear annotations, tags): a process must not be able to
 * make its name read as someone else's. */
bool utf8_is_unsafe(uint32_t cp);
/* Append s for display on a terminal: control characters (C0, DEL, C1) and
 * invalid UTF-8 become U+FFFD ('?' when !utf8, where every non-ASCII
 * character also becomes '?'). */
void utf8_append_safe(struct buf *b, const char *s, size_t n, bool utf8);

#endif
