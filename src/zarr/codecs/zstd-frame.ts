import { Dt64ExportError } from "../../errors.js";

/** How many bytes a zstd buffer can decompress to, read from its frame and block headers (RFC 8878). */
export interface ZstdContentBound {
	readonly bytes: number;
	/** True when every frame declares its Frame_Content_Size; otherwise `bytes` is an upper bound. */
	readonly exact: boolean;
	/**
	 * Bytes past the decoded size that decoding in place needs (the encoded bytes at the end of the output buffer,
	 * see inPlaceMargin), or undefined when the buffer has an RLE block, which in place could decode wrong.
	 */
	readonly inPlaceMargin: number | undefined;
	/**
	 * The largest Window_Size of the frames (a single-segment frame's is its content size): what a decoder in steps
	 * keeps of a frame's output (see decoder-module.ts); 0 when there are only skippable frames.
	 */
	readonly largestWindow: number;
}

/** A zstd frame's magic number (RFC 8878 3.1.1). */
export const ZSTD_MAGIC = 0xfd2fb528;
const SKIPPABLE_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const MAX_BLOCK_BYTES = 128 * 1024;

/** Whether a frame's magic number is a skippable frame's (any of sixteen: its low four bits are free). */
export function isSkippableMagic(magic: number): boolean {
	return (magic & SKIPPABLE_MASK) >>> 0 === SKIPPABLE_MAGIC;
}

/** Window_Size from a frame's Window_Descriptor byte: a power of two from 1 KiB, and eighths of it. */
export function windowBytesOf(windowDescriptor: number): number {
	const base = 2 ** (10 + (windowDescriptor >> 3));
	return base + (base / 8) * (windowDescriptor & 0x07);
}

/** Bytes of a frame's Frame_Content_Size field, from its Frame_Header_Descriptor byte. */
export function contentSizeBytesOf(descriptor: number): number {
	const singleSegment = (descriptor & 0x20) !== 0;
	return [singleSegment ? 1 : 0, 2, 4, 8][descriptor >> 6];
}

/** Frame_Content_Size, read at `position` as a field of `fieldBytes` (2 bytes hold it less 256); none for 0. */
export function contentSizeAt(view: DataView, position: number, fieldBytes: number): number | undefined {
	if (fieldBytes === 1) return view.getUint8(position);
	if (fieldBytes === 2) return view.getUint16(position, true) + 256;
	if (fieldBytes === 4) return view.getUint32(position, true);
	if (fieldBytes === 8) return Number(view.getBigUint64(position, true));
	return undefined;
}

function refuse(what: string): never {
	throw new Dt64ExportError("CHUNK_CORRUPT", `zstd: ${what}`);
}

/**
 * Walks the frames of a zstd buffer without decompressing anything. A frame's declared Frame_Content_Size is
 * taken as is (the decoder allocates it, and fails if the content differs); a frame without one is bounded by
 * its blocks: raw and RLE blocks give their size, a compressed block at most Block_Maximum_Size (128 KiB). That
 * bound is loose: an encoder that splits blocks (zstd -19 does) writes compressed blocks far smaller than 128 KiB.
 */
export function zstdContentBound(bytes: Uint8Array): ZstdContentBound {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const need = (position: number, count: number, what: string) => {
		if (position + count > bytes.byteLength) refuse(`truncated ${what} at byte ${position} of ${bytes.byteLength}`);
	};
	let total = 0;
	let exact = true;
	let position = 0;
	// Every byte that is not the payload of a compressed or raw block: headers, checksums, skippable frames.
	let overhead = 0;
	let rle = false;
	let largestWindow = 0;
	if (bytes.byteLength === 0) refuse("empty chunk");
	while (position < bytes.byteLength) {
		need(position, 4, "frame magic number");
		const magic = view.getUint32(position, true);
		if (isSkippableMagic(magic)) {
			need(position + 4, 4, "skippable frame");
			const start = position;
			position += 8 + view.getUint32(position + 4, true);
			if (position > bytes.byteLength) refuse("truncated skippable frame");
			overhead += position - start;
			continue;
		}
		const frameStart = position;
		if (magic !== ZSTD_MAGIC) refuse(`not a zstd frame at byte ${position} (magic number 0x${magic.toString(16).padStart(8, "0")})`);
		position += 4;
		need(position, 1, "frame header");
		const descriptor = bytes[position++];
		const singleSegment = (descriptor & 0x20) !== 0;
		if ((descriptor & 0x08) !== 0) refuse("reserved bit set in the frame header");
		const hasChecksum = (descriptor & 0x04) !== 0;
		const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 0x03];
		let windowBytes = 0;
		if (!singleSegment) {
			need(position, 1, "window descriptor");
			windowBytes = windowBytesOf(bytes[position++]);
		}
		position += dictionaryIdBytes;
		const fcsBytes = contentSizeBytesOf(descriptor);
		need(position, fcsBytes, "frame content size");
		const contentBytes = contentSizeAt(view, position, fcsBytes);
		position += fcsBytes;
		if (singleSegment) windowBytes = contentBytes!;
		largestWindow = Math.max(largestWindow, windowBytes);
		overhead += position - frameStart;
		const blockMaximum = Math.min(windowBytes, MAX_BLOCK_BYTES);
		let blockBound = 0;
		for (let last = false; !last; ) {
			need(position, 3, "block header");
			const header = bytes[position] | (bytes[position + 1] << 8) | (bytes[position + 2] << 16);
			position += 3;
			last = (header & 1) === 1;
			const type = (header >> 1) & 3;
			const size = header >>> 3;
			if (type === 3) refuse(`reserved block type at byte ${position - 3}`);
			const stored = type === 1 ? 1 : size;
			need(position, stored, "block");
			position += stored;
			blockBound += type === 2 ? blockMaximum : size;
			overhead += 3;
			if (type === 1) rle = true;
		}
		if (hasChecksum) {
			need(position, 4, "content checksum");
			position += 4;
			overhead += 4;
		}
		if (contentBytes === undefined) exact = false;
		total += contentBytes ?? blockBound;
	}
	return { bytes: total, exact, inPlaceMargin: rle ? undefined : overhead + MAX_BLOCK_BYTES, largestWindow };
}

/*
 * Why the margin is safe. Decoding in place, the encoded bytes end where the output buffer ends, `margin` bytes
 * past the decoded size (zstd 1.5.4, ZSTD_decompressionMargin: headers, 3 bytes per block, checksums, skippable
 * frames, one block). The gap between the input still to read and the output written so far then starts at least
 * one block wide. A raw block copies its bytes forward by memmove: the gap stays. A compressed block is held by
 * zstd itself to the output below its own input (ZSTD_decompressFrame limits the block's end to `ip` when the two
 * overlap): it decodes, or fails; it never overwrites input it has not read. An RLE block writes up to 128 KiB
 * from one byte, which only a compressed block that decodes to less than its own size before it (no encoder makes
 * one, but the format allows it) could let reach input not yet read: buffers with RLE blocks are not decoded in
 * place. A failure in place is retried out of place (decoder-module.ts), so in place never refuses a valid chunk.
 */
