/**
 * The 3-D zstd store of the tests of streamed rows (C order) and streamed chunks (chunk order), and what they observe
 * of an export: how many rows of chunks it streamed, and the process's open files.
 */
import * as fs from "node:fs";
import { writeArray } from "../../scripts/lib/zarr-writer.mjs";
import { rowsStreamed } from "../../src/zarr/codecs/off-thread.js";

export const NAT = -(2n ** 63n);
/** 7 × 5 × 32768 values in chunks of 4 × 2 × 32768 (2 MiB, the smallest streamed): a 2 × 3 grid, cut along both first axes. */
export const SHAPE = [7, 5, 32768];
export const CHUNKS = [4, 2, 32768];
export const ZSTD = [
	{ name: "bytes", configuration: { endian: "little" } },
	{ name: "zstd", configuration: { level: 0, checksum: false } },
];
export const RAW = [{ name: "bytes", configuration: { endian: "little" } }];

/** Whether this test file runs its exports' decoding on decode threads (DT64_DECODE_THREADS=0: on the calling thread). */
export const streamsOnThreads = (): boolean => process.env.DT64_DECODE_THREADS !== "0";

/** Milliseconds since 2020, a NaT every 997 values. */
export function storeValues(): BigInt64Array {
	const count = SHAPE.reduce((a, b) => a * b, 1);
	return BigInt64Array.from({ length: count }, (_, i) => (i % 997 === 5 ? NAT : 1_577_836_800_000n + BigInt(i) * 1000n));
}

export interface StoreOptions {
	readonly codecs?: object[];
	readonly omitChunks?: (coords: number[]) => boolean;
	readonly corruptChunk?: (coords: number[], bytes: Uint8Array) => Uint8Array;
	readonly checksum?: boolean;
}

/** A skippable zstd frame of 3 bytes of content (magic 0x184D2A50). */
const SKIPPABLE_FRAME = Buffer.from([0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);

/** StoreOptions.corruptChunk: the chunks at index 1 along the second axis with a skippable frame before and after their frame. */
export const skippableFramesAround = (coords: number[], bytes: Uint8Array): Uint8Array => (coords[1] === 1 ? Buffer.concat([SKIPPABLE_FRAME, bytes, SKIPPABLE_FRAME]) : bytes);

/**
 * StoreOptions.corruptChunk: chunk [0, 1, 0]'s frame declares 4 KiB more than the chunk holds (its content size,
 * at byte 6 of a frame whose header has a 4-byte size field), so that it is no frame to stream.
 */
export function declaringMoreThanHeld(coords: number[], bytes: Uint8Array): Uint8Array {
	if (coords[0] !== 0 || coords[1] !== 1) return bytes;
	const copy = Uint8Array.from(bytes);
	const view = new DataView(copy.buffer);
	view.setUint32(6, view.getUint32(6, true) + 4096, true);
	return copy;
}

/** Writes at `root` a group with the 3-D datetime64[ms] array `time` over `dimensionNames` (zstd unless `codecs`): `root`. */
export async function writeTimeStore(root: string, dimensionNames: string[], options: StoreOptions = {}): Promise<string> {
	const codecs = options.codecs ?? (options.checksum === true ? [ZSTD[0], { name: "zstd", configuration: { level: 0, checksum: true } }] : ZSTD);
	await writeArray(root, "time", {
		shape: SHAPE,
		chunks: CHUNKS,
		values: storeValues(),
		dataType: { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 1 } },
		dimensionNames,
		codecs,
		omitChunks: options.omitChunks,
		corruptChunk: options.corruptChunk,
	});
	return root;
}

/** How many rows of chunks were streamed, where this test file streams them, since `before` (a rowsStreamed()). */
export function rowsStreamedSince(before: ReturnType<typeof rowsStreamed>): number {
	const after = rowsStreamed();
	return streamsOnThreads() ? after.onThreads - before.onThreads : after.here - before.here;
}

/** `run`'s result, and how many rows of chunks were streamed while it ran. */
export async function streamedDuring<T>(run: () => Promise<T>): Promise<{ result: T; streamed: number }> {
	const before = rowsStreamed();
	const result = await run();
	return { result, streamed: rowsStreamedSince(before) };
}

export const openFiles = (): number => fs.readdirSync("/proc/self/fd").length;

/**
 * The count of open files once it is back to `count`, or after 2 s: a stream left mid-row closes its files once the
 * band already asked for is answered.
 */
export async function openFilesOnceBackTo(count: number): Promise<number> {
	for (let wait = 0; wait < 200 && openFiles() > count; wait++) await new Promise((resolve) => setTimeout(resolve, 10));
	return openFiles();
}
