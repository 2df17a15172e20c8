/*
 * Strict base64 (RFC 4648 standard alphabet, '=' padding), as minisign and
 * signify write it.  Decoding accepts exactly one spelling of each byte
 * string: no whitespace, padding present and only at the end, unused low
 * bits zero.  Pure functions: no I/O, no allocation.
 */
#ifndef SEAL_B64_H
#define SEAL_B64_H

#include <stddef.h>
#include <stdint.h>

/* Length of the encoding of N bytes (without the NUL). */
#define B64_LEN(n)	((((n) + 2) / 3) * 4)

/* Encode N bytes of SRC into DST (CAP >= B64_LEN(n) + 1), NUL-terminated.
 * Returns the length written, or 0 if CAP is too small (DST untouched). */
size_t b64_encode(char *dst, size_t cap, const uint8_t *src, size_t n);

/* Decode SRC[0..SRCLEN) into exactly N bytes at DST.  0 if SRC is the
 * canonical encoding of N bytes; -1 otherwise (DST contents undefined). */
int b64_decode_exact(uint8_t *dst, size_t n, const char *src, size_t srclen);

#endif
