/*
 * A decoder of the raw snappy format (a varint decoded length, then literal and copy elements), behind the C API
 * of snappy-c.h that c-blosc calls for its snappy compressor: snappy itself is C++, which this build leaves out.
 * Every length and offset is checked against the input and the output before a byte moves; the output must come
 * out exactly the length the preamble declares, and never past the caller's buffer. Compression is not provided
 * (this package only decodes): snappy_compress reports invalid input, which blosc treats as incompressible.
 */
#include <stdint.h>
#include <string.h>

#include "snappy-c.h"

/* Reads the varint decoded length (at most 32 bits, 5 bytes); returns the bytes it took, 0 when malformed. */
static size_t read_length(const uint8_t *in, size_t in_bytes, uint32_t *length) {
	uint32_t value = 0;
	for (size_t i = 0; i < in_bytes && i < 5; i++) {
		uint32_t byte = in[i];
		if (i == 4 && byte > 0x0f) return 0;
		value |= (byte & 0x7f) << (7 * i);
		if ((byte & 0x80) == 0) {
			*length = value;
			return i + 1;
		}
	}
	return 0;
}

snappy_status snappy_uncompress(const char *compressed, size_t compressed_length, char *uncompressed, size_t *uncompressed_length) {
	const uint8_t *in = (const uint8_t *)compressed;
	const uint8_t *end = in + compressed_length;
	uint8_t *out = (uint8_t *)uncompressed;
	uint32_t declared;
	size_t header = read_length(in, compressed_length, &declared);
	if (header == 0) return SNAPPY_INVALID_INPUT;
	if (declared > *uncompressed_length) return SNAPPY_BUFFER_TOO_SMALL;
	in += header;
	size_t at = 0;
	while (in < end) {
		uint8_t tag = *in++;
		size_t length, offset;
		switch (tag & 3) {
		case 0: /* literal: length - 1 in the tag, or in the 1 to 4 bytes after it */
			length = tag >> 2;
			if (length >= 60) {
				size_t extra = length - 59;
				if ((size_t)(end - in) < extra) return SNAPPY_INVALID_INPUT;
				length = 0;
				for (size_t i = 0; i < extra; i++) length |= (size_t)in[i] << (8 * i);
				in += extra;
			}
			/* `length` is one less than the literal's: compared so that the largest (2^32) cannot wrap. */
			if (length >= declared - at || length >= (size_t)(end - in)) return SNAPPY_INVALID_INPUT;
			length += 1;
			memcpy(out + at, in, length);
			in += length;
			at += length;
			continue;
		case 1: /* copy, 4 to 11 bytes, an 11-bit offset */
			if (end - in < 1) return SNAPPY_INVALID_INPUT;
			length = 4 + ((tag >> 2) & 7);
			offset = ((size_t)(tag >> 5) << 8) | in[0];
			in += 1;
			break;
		case 2: /* copy, 1 to 64 bytes, a 16-bit offset */
			if (end - in < 2) return SNAPPY_INVALID_INPUT;
			length = 1 + (tag >> 2);
			offset = (size_t)in[0] | ((size_t)in[1] << 8);
			in += 2;
			break;
		default: /* copy, 1 to 64 bytes, a 32-bit offset */
			if (end - in < 4) return SNAPPY_INVALID_INPUT;
			length = 1 + (tag >> 2);
			offset = (size_t)in[0] | ((size_t)in[1] << 8) | ((size_t)in[2] << 16) | ((size_t)in[3] << 24);
			in += 4;
			break;
		}
		if (offset == 0 || offset > at || declared - at < length) return SNAPPY_INVALID_INPUT;
		uint8_t *to = out + at;
		const uint8_t *from = to - offset;
		if (offset >= length) {
			memcpy(to, from, length);
		} else {
			/* The copy overlaps what it writes (a repeated pattern): byte by byte, as the format means it. */
			for (size_t i = 0; i < length; i++) to[i] = from[i];
		}
		at += length;
	}
	if (at != declared) return SNAPPY_INVALID_INPUT;
	*uncompressed_length = at;
	return SNAPPY_OK;
}

size_t snappy_max_compressed_length(size_t source_length) { return 32 + source_length + source_length / 6; }

snappy_status snappy_compress(const char *input, size_t input_length, char *compressed, size_t *compressed_length) {
	return SNAPPY_INVALID_INPUT;
}
