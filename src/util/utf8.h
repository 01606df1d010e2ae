/* utf8: decoding with U+FFFD for invalid input, and making outside text safe
 * for JSON and for the terminal. */
#ifndef GPUR_UTF8_H
#define GPUR_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

#define UTF8_REPLACEMENT 0xFFFDu

/* Decodes one code point from s[0..n), where n >= 1, and returns the bytes
 * consumed (>= 1). Invalid input (a bad lead, a bad or missing continuation,
 * an overlong form, a surrogate, or a value over U+10FFFF) yields U+FFFD for
 * its maximal invalid prefix, as the Unicode standard recommends. */
size_t utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Encodes cp (at most 0x10FFFF) into out and returns its length, 1 to 4. */
size_t utf8_encode(uint32_t cp, char out[4]);
/* Appends s[0..n) to b with every invalid sequence replaced by U+FFFD,
 * stopping before the code point that would take the appended length past
 * max bytes. */
void utf8_append_valid(struct buf *b, const char *s, size_t n, size_t max);
/* Returns the length of the longest prefix of s[0..n), at most max bytes,
 * that does not split a valid UTF-8 sequence, so a character that does not
 * fit is left out whole. Invalid bytes are not sequences, so they are cut
 * at max. */
size_t utf8_trim(const char *s, size_t n, size_t max);
/* True for code points that must not reach a terminal as themselves. These
 * are the controls (C0, DEL, C1) and the format characters that reorder or
 * hide text: bidi embeddings, overrides and isolates, zero-width characters,
 * line and paragraph separators, the BOM, the soft hyphen, fillers,
 * deprecated format controls, interlinear annotations and tags. A process
 * must not be able to make its name read as someone else's. */
bool utf8_is_unsafe(uint32_t cp);
/* Appends s for display on a terminal. Control characters (C0, DEL, C1) and
 * invalid UTF-8 become U+FFFD. When utf8 is false they become '?' instead,
 * and so does every other non-ASCII character. */
void utf8_append_safe(struct buf *b, const char *s, size_t n, bool utf8);

#endif
