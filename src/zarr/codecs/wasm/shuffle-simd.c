/*
 * blosc's shuffle entry points (shuffle.h) for this WebAssembly build, in place of blosc's shuffle.c: that file
 * picks SSE2 or AVX2 code by probing an x86 CPU and, on any other target, falls back to byte-by-byte loops. Here the
 * byte unshuffle of 2-, 4- and 8-byte values (int16/32/64, float32/64: what Zarr arrays hold) runs on WebAssembly
 * SIMD (simd128): 16 values at a time, their byte planes interleaved in log2(typesize) rounds of unpacks. Other
 * sizes, the shuffles (compression, which this package never does) and the bitshuffles use blosc's generic code,
 * with the same handling of leftover bytes as shuffle.c.
 */
#include <stdint.h>
#include <string.h>
#include <wasm_simd128.h>

#include "bitshuffle-generic.h"
#include "shuffle-generic.h"
#include "shuffle.h"

/* Bytes 0-7 (lo) or 8-15 (hi) of two vectors, interleaved as 1-, 2- or 4-byte units: x86's punpckl / punpckh. */
#define LO8(a, b) wasm_i8x16_shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23)
#define HI8(a, b) wasm_i8x16_shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31)
#define LO16(a, b) wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11)
#define HI16(a, b) wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15)
#define LO32(a, b) wasm_i32x4_shuffle(a, b, 0, 4, 1, 5)
#define HI32(a, b) wasm_i32x4_shuffle(a, b, 2, 6, 3, 7)

/* Values j..j+15 of a block of `count` values: plane i (byte i of each value) starts at src + i * count. */
static void unshuffle2(const uint8_t *src, uint8_t *dest, size_t count, size_t j) {
	v128_t a0 = wasm_v128_load(src + j), a1 = wasm_v128_load(src + count + j);
	wasm_v128_store(dest + 2 * j, LO8(a0, a1));
	wasm_v128_store(dest + 2 * j + 16, HI8(a0, a1));
}

static void unshuffle4(const uint8_t *src, uint8_t *dest, size_t count, size_t j) {
	v128_t a0 = wasm_v128_load(src + j), a1 = wasm_v128_load(src + count + j);
	v128_t a2 = wasm_v128_load(src + 2 * count + j), a3 = wasm_v128_load(src + 3 * count + j);
	v128_t u0 = LO8(a0, a1), u1 = HI8(a0, a1), v0 = LO8(a2, a3), v1 = HI8(a2, a3);
	uint8_t *out = dest + 4 * j;
	wasm_v128_store(out, LO16(u0, v0));
	wasm_v128_store(out + 16, HI16(u0, v0));
	wasm_v128_store(out + 32, LO16(u1, v1));
	wasm_v128_store(out + 48, HI16(u1, v1));
}

static void unshuffle8(const uint8_t *src, uint8_t *dest, size_t count, size_t j) {
	v128_t a[8];
	for (int i = 0; i < 8; i++) a[i] = wasm_v128_load(src + i * count + j);
	/* Bytes 0-1, 2-3, 4-5, 6-7 of values 0-7 (lo) and 8-15 (hi). */
	v128_t p0 = LO8(a[0], a[1]), p1 = HI8(a[0], a[1]), q0 = LO8(a[2], a[3]), q1 = HI8(a[2], a[3]);
	v128_t r0 = LO8(a[4], a[5]), r1 = HI8(a[4], a[5]), s0 = LO8(a[6], a[7]), s1 = HI8(a[6], a[7]);
	/* Bytes 0-3 and 4-7 of values 0-3, 4-7, 8-11, 12-15. */
	v128_t t0 = LO16(p0, q0), t1 = HI16(p0, q0), t2 = LO16(p1, q1), t3 = HI16(p1, q1);
	v128_t w0 = LO16(r0, s0), w1 = HI16(r0, s0), w2 = LO16(r1, s1), w3 = HI16(r1, s1);
	uint8_t *out = dest + 8 * j;
	wasm_v128_store(out, LO32(t0, w0));
	wasm_v128_store(out + 16, HI32(t0, w0));
	wasm_v128_store(out + 32, LO32(t1, w1));
	wasm_v128_store(out + 48, HI32(t1, w1));
	wasm_v128_store(out + 64, LO32(t2, w2));
	wasm_v128_store(out + 80, HI32(t2, w2));
	wasm_v128_store(out + 96, LO32(t3, w3));
	wasm_v128_store(out + 112, HI32(t3, w3));
}

void blosc_internal_unshuffle(const size_t bytesoftype, const size_t blocksize, const uint8_t *_src, const uint8_t *_dest) {
	uint8_t *dest = (uint8_t *)_dest;
	void (*step)(const uint8_t *, uint8_t *, size_t, size_t) =
		bytesoftype == 8 ? unshuffle8 : bytesoftype == 4 ? unshuffle4 : bytesoftype == 2 ? unshuffle2 : NULL;
	size_t count = blocksize / bytesoftype;
	if (step == NULL || count < 16) {
		blosc_internal_unshuffle_generic(bytesoftype, blocksize, _src, dest);
		return;
	}
	size_t j = 0;
	for (; j + 16 <= count; j += 16) step(_src, dest, count, j);
	/* The last values (fewer than 16) one byte at a time, then the bytes after the last whole value as they are. */
	for (; j < count; j++) {
		for (size_t i = 0; i < bytesoftype; i++) dest[j * bytesoftype + i] = _src[i * count + j];
	}
	memcpy(dest + count * bytesoftype, _src + count * bytesoftype, blocksize - count * bytesoftype);
}

void blosc_internal_shuffle(const size_t bytesoftype, const size_t blocksize, const uint8_t *_src, const uint8_t *_dest) {
	blosc_internal_shuffle_generic(bytesoftype, blocksize, _src, (uint8_t *)_dest);
}

/* Bitshuffle handles whole groups of 8 values; a block of another count is stored as is (blosc's rule). */
static int bit_transpose(int64_t (*transpose)(const void *, void *, const size_t, const size_t, void *), const size_t bytesoftype, const size_t blocksize, const uint8_t *const _src, const uint8_t *_dest, const uint8_t *_tmp) {
	size_t count = blocksize / bytesoftype;
	if (count % 8 != 0) {
		memcpy((void *)_dest, _src, blocksize);
		return (int)count;
	}
	int result = (int)transpose(_src, (void *)_dest, count, bytesoftype, (void *)_tmp);
	memcpy((void *)(_dest + count * bytesoftype), _src + count * bytesoftype, blocksize - count * bytesoftype);
	return result;
}

int blosc_internal_bitshuffle(const size_t bytesoftype, const size_t blocksize, const uint8_t *const _src, const uint8_t *_dest, const uint8_t *_tmp) {
	return bit_transpose(blosc_internal_bshuf_trans_bit_elem_scal, bytesoftype, blocksize, _src, _dest, _tmp);
}

int blosc_internal_bitunshuffle(const size_t bytesoftype, const size_t blocksize, const uint8_t *const _src, const uint8_t *_dest, const uint8_t *_tmp) {
	return bit_transpose(blosc_internal_bshuf_untrans_bit_elem_scal, bytesoftype, blocksize, _src, _dest, _tmp);
}
