/*
 * The decoders this package runs in WebAssembly: zstd, lz4 (numcodecs' framing: a 4-byte size, then one block)
 * and blosc 1, each decoding from one buffer of the module's memory into another of a size the caller bounds (zstd
 * and blosc also a window of output at a time), and each returning the decoder's own status. The caller
 * (decoder-module.ts) copies the input in and the output out with typed-array `set`, and turns a negative return into
 * an error naming the codec. Built by scripts/build-wasm-codecs.sh from Debian's sources of zstd, lz4, c-blosc and
 * zlib.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blosc.h"
#include "lz4.h"
#include "zstd.h"
#include "zstd_errors.h"

#define EXPORT(name) __attribute__((export_name(name)))

/* The last decoder error, as text the caller reads from memory: a NUL-terminated string. */
static const char *last_error = "";

EXPORT("last_error") const char *dt64_last_error(void) { return last_error; }

EXPORT("alloc") void *dt64_alloc(size_t bytes) { return malloc(bytes); }

EXPORT("release") void dt64_release(void *pointer) { free(pointer); }

/* Whether an 8-byte value is NaT (INT64_MIN) read in either byte order: little endian, or big endian unswapped. */
static inline int maybe_nat(uint64_t value) { return (value == 0x8000000000000000ull) | (value == 0x80ull); }

/*
 * The positions of the values at `values` that may be NaT, for chunks of datetime64 counts: the index of every
 * 8-byte value that is INT64_MIN in either byte order (little endian, or big endian before the export swaps it), in
 * increasing order, written to `positions`; returns how many, or -1 when `bytes` is not a whole number of values or
 * there are more than `room`. Every NaT is among them, whichever the byte order, so that the main thread checks only
 * these instead of scanning the chunk (it checks each: a value that is NaT in the other order only is not one).
 * Run on a decoded chunk while it is still in this module's memory. Runs of 16 values are first tested together
 * (a loop that vectorizes), and only a run holding a candidate is walked value by value.
 */
EXPORT("nat_positions") int32_t dt64_nat_positions(const unsigned char *values, size_t bytes, int32_t *positions, int32_t room) {
	if (bytes % 8 != 0) return -1;
	size_t count = bytes / 8, found = 0;
	for (size_t run = 0; run < count; run += 16) {
		size_t end = run + 16 < count ? run + 16 : count;
		uint64_t seen = 0;
		for (size_t i = run; i < end; i++) {
			uint64_t value;
			memcpy(&value, values + 8 * i, 8);
			seen |= (uint64_t)maybe_nat(value);
		}
		if (seen == 0) continue;
		for (size_t i = run; i < end; i++) {
			uint64_t value;
			memcpy(&value, values + 8 * i, 8);
			if (maybe_nat(value)) {
				if (found == (size_t)room) return -1;
				positions[found++] = (int32_t)i;
			}
		}
	}
	return (int32_t)found;
}

static ZSTD_DCtx *zstd_context;

/* The zstd decoder, made on first use; NULL (with last_error set) when there is no memory for it. */
static ZSTD_DCtx *zstd_decoder(void) {
	if (zstd_context == NULL) zstd_context = ZSTD_createDCtx();
	if (zstd_context == NULL) last_error = "out of memory";
	return zstd_context;
}

/*
 * Decodes every zstd frame of `source` into `target`: the decoded size, or -1 when zstd fails, including when the
 * output would pass `capacity` (a frame without a declared size is decoded block by block and stopped there).
 */
EXPORT("zstd_decode") int32_t dt64_zstd_decode(const void *source, size_t source_bytes, void *target, size_t capacity) {
	ZSTD_DCtx *decoder = zstd_decoder();
	if (decoder == NULL) return -1;
	size_t result = ZSTD_decompressDCtx(decoder, target, capacity, source, source_bytes);
	if (ZSTD_isError(result)) {
		last_error = ZSTD_getErrorName(result);
		return -1;
	}
	return (int32_t)result;
}

/*
 * Starts decoding zstd frames in steps (zstd_stream_step), refusing frames whose window is over 2^window_log_max
 * bytes: 0, or -1 when zstd fails. The caller has read the frames' windows from their headers and passes the
 * largest, so that a frame cannot make the decoder allocate more than the caller expects.
 */
EXPORT("zstd_stream_start") int32_t dt64_zstd_stream_start(int32_t window_log_max) {
	ZSTD_DCtx *decoder = zstd_decoder();
	if (decoder == NULL) return -1;
	size_t result = ZSTD_DCtx_reset(decoder, ZSTD_reset_session_only);
	if (!ZSTD_isError(result)) result = ZSTD_DCtx_setParameter(decoder, ZSTD_d_windowLogMax, window_log_max);
	if (ZSTD_isError(result)) {
		last_error = ZSTD_getErrorName(result);
		return -1;
	}
	return 0;
}

/*
 * One step of a decode started by zstd_stream_start: decodes from `input` (its bytes from `pos` to `size`) into
 * `output` (from its `pos` to its `size`) and moves both positions on. Returns 0 when a frame has been decoded and
 * flushed whole, 1 when it has not, -1 when zstd fails (corrupt data, a checksum or a declared size that does not
 * match). The output holds only what the caller takes next; zstd keeps the frame's window in its own memory.
 */
EXPORT("zstd_stream_step") int32_t dt64_zstd_stream_step(ZSTD_outBuffer *output, ZSTD_inBuffer *input) {
	size_t result = ZSTD_decompressStream(zstd_context, output, input);
	if (ZSTD_isError(result)) {
		last_error = ZSTD_getErrorName(result);
		return -1;
	}
	return result == 0 ? 0 : 1;
}

/*
 * Decodes one lz4 block into `target`, refusing output past `capacity`: the decoded size, or -1 when the block is
 * corrupt or would decode past it.
 */
EXPORT("lz4_decode") int32_t dt64_lz4_decode(const void *source, size_t source_bytes, void *target, size_t capacity) {
	int result = LZ4_decompress_safe((const char *)source, (char *)target, (int)source_bytes, (int)capacity);
	if (result < 0) {
		last_error = "corrupt compressed data";
		return -1;
	}
	return result;
}

/*
 * Whether a blosc 1 buffer's header matches it and `capacity`: its decoded size, or -1 (with last_error set) when
 * the header is shorter than blosc's, of another version, or says another compressed size or more than `capacity`.
 * Only the header's 16 bytes are read. blosc_decode checks this first; so does the caller of blosc-blocks.c.
 */
EXPORT("blosc_check") int32_t dt64_blosc_check(const void *source, size_t source_bytes, size_t capacity) {
	size_t nbytes = 0, cbytes = 0, blocksize = 0;
	if (source_bytes < BLOSC_MIN_HEADER_LENGTH) {
		last_error = "shorter than the blosc header";
		return -1;
	}
	blosc_cbuffer_sizes(source, &nbytes, &cbytes, &blocksize);
	if (cbytes != source_bytes || nbytes > capacity) {
		last_error = "header sizes do not match the chunk";
		return -1;
	}
	return (int32_t)nbytes;
}

/*
 * Decodes a blosc 1 buffer into `target` on this thread (no blosc threads): the decoded size, or -1 when blosc
 * reports a failure (a corrupt block, an output past `capacity`). Large buffers are decoded a run of blocks at a time
 * instead (blosc-blocks.c).
 */
EXPORT("blosc_decode") int32_t dt64_blosc_decode(const void *source, size_t source_bytes, void *target, size_t capacity) {
	int32_t nbytes = dt64_blosc_check(source, source_bytes, capacity);
	if (nbytes < 0) return -1;
	int result = blosc_decompress_ctx(source, target, capacity, 1);
	if (result < 0 || result != nbytes) {
		last_error = "corrupt compressed data";
		return -1;
	}
	return result;
}
