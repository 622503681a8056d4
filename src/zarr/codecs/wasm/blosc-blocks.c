/*
 * Decoding a blosc 1 buffer a run of blocks at a time, from its blocks' bytes alone. scripts/build-wasm-codecs.sh
 * appends this file to its copy of c-blosc 1.21.3's blosc.c, so that it runs blosc's own header checks and block
 * decoder (blosc_d, static there): a block is refused exactly where blosc refuses it, with blosc's status.
 *
 * The caller (decoder-module.ts) copies into the module's memory only the bytes of the blocks it decodes next, and
 * passes `base`: the address that holds byte 0 of the buffer, were the whole buffer there. Each block is read only
 * from its start up to `ends[j]`, the start of the block that follows it in the buffer (or the buffer's end), which
 * the caller has copied: a block cannot reach bytes that are not there.
 */
#include <stdint.h>

#define DT64_EXPORT(name) __attribute__((export_name(name)))

/*
 * The checks blosc_run_decompression_with_context makes of a buffer's header before it decodes any block, with the
 * context they fill: 0 when the buffer (`compressed_size` bytes, headed by `header`) decodes into `capacity` bytes,
 * else blosc's negative status.
 */
static int dt64_blosc_header(struct blosc_context *context, const uint8_t *header, int32_t compressed_size, int32_t capacity) {
	context->compress = 0;
	context->compversion = header[1];
	context->header_flags = (uint8_t *)(header + 2);
	context->typesize = (int32_t)header[3];
	context->sourcesize = sw32_(header + 4);
	context->blocksize = sw32_(header + 8);
	context->compressedsize = sw32_(header + 12);
	if (context->compressedsize != compressed_size || context->sourcesize <= 0) return -1;
	if (context->blocksize <= 0 || context->blocksize > capacity || context->blocksize > BLOSC_MAX_BLOCKSIZE || context->typesize <= 0 ||
	    context->typesize > BLOSC_MAX_TYPESIZE) {
		return -1;
	}
	if (header[0] != BLOSC_VERSION_FORMAT || (*context->header_flags & 0x08)) return -1;
	context->nblocks = context->sourcesize / context->blocksize;
	context->leftover = context->sourcesize % context->blocksize;
	if (context->leftover > 0) context->nblocks++;
	if (context->sourcesize > capacity) return -1;
	if (*context->header_flags & BLOSC_MEMCPYED) {
		if (context->sourcesize + BLOSC_MAX_OVERHEAD != context->compressedsize) return -1;
	} else {
		int status = initialize_decompress_func(context);
		if (status != 0) return status;
		if (context->nblocks > (context->compressedsize - 16) / 4) return -1;
	}
	return 0;
}

/* The scratch memory blosc_d needs to decode a block of the buffer headed by `header`: as serial_blosc allocates it. */
DT64_EXPORT("blosc_scratch_bytes")
int32_t dt64_blosc_scratch_bytes(const uint8_t *header) {
	int32_t blocksize = sw32_(header + 8);
	return 2 * blocksize + (int32_t)header[3] * (int32_t)sizeof(int32_t);
}

/*
 * Decodes blocks [first, first + count) of the buffer headed by `header` (its first 16 bytes and block starts) into
 * `target`, block `first` at its start, with `scratch` (blosc_scratch_bytes, 32-byte aligned) for blosc_d's
 * temporaries: the bytes decoded, or blosc's negative status. `base` and `ends` are as the comment at the top says;
 * for a "memcpyed" buffer, a block's bytes are its decoded bytes, after the header.
 */
DT64_EXPORT("blosc_decode_blocks")
int32_t dt64_blosc_decode_blocks(const uint8_t *header, int32_t compressed_size, int32_t capacity, uintptr_t base, const int32_t *ends, int32_t first, int32_t count,
                                 uint8_t *target, uint8_t *scratch) {
	struct blosc_context context = {0};
	int status = dt64_blosc_header(&context, header, compressed_size, capacity);
	if (status < 0) return status;
	if (first < 0 || count <= 0 || first > context.nblocks - count) return -1;
	int memcpyed = (*context.header_flags & BLOSC_MEMCPYED) != 0;
	uint8_t *tmp = scratch;
	int32_t written = 0;
	for (int32_t j = first; j < first + count; j++) {
		int32_t bsize = context.blocksize;
		int32_t leftoverblock = 0;
		if (j == context.nblocks - 1 && context.leftover > 0) {
			bsize = context.leftover;
			leftoverblock = 1;
		}
		int32_t decoded;
		if (memcpyed) {
			fastcopy(target + written, (const uint8_t *)(base + BLOSC_MAX_OVERHEAD + (uintptr_t)j * context.blocksize), bsize);
			decoded = bsize;
		} else {
			/* blosc_d reads the block's splits from its start and stops at `compressedsize`: here, the block's end. */
			context.compressedsize = ends[j - first];
			decoded = blosc_d(&context, bsize, leftoverblock, (const uint8_t *)base, sw32_(header + 16 + 4 * j), target + written, tmp, tmp + context.blocksize);
		}
		if (decoded < 0) {
			written = decoded;
			break;
		}
		written += decoded;
	}
	return written;
}
