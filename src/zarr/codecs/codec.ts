import type { BufferPool } from "../../memory/buffer-pool.js";
import type { ChunkValues } from "../chunk-values.js";

/**
 * What a codec is told about the chunks it decodes. Every codec of a chunk gets the same spec, built once per
 * array from its metadata: nothing travels beside the shape (zarrita gives a codec only the shape array).
 */
export interface ChunkSpec {
	/** The chunk's shape, C order of the logical array. */
	readonly shape: readonly number[];
	/** The data type the chunk bytes hold (see VALUE_LAYOUTS in bytes.ts): `int64` for datetime64 counts. */
	readonly dataType: string;
	/** The most bytes a bytes-to-bytes codec may decode the chunk to (payload and a little slack, see decoded-size.ts). */
	readonly maxDecodedBytes: number;
	/** Where decompressors take their output buffers from (see BufferPool), if anywhere. */
	readonly bufferPool?: BufferPool;
	/** The values are datetime64/timedelta64 counts: decoders that can, say where NaT may be (nat-positions.ts). */
	readonly scanNaT?: boolean;
	/**
	 * The whole array is small, or each of its chunks is (see small-array.ts): decoders that would run on the decode
	 * threads decode on the calling thread instead, and no thread is started for it.
	 */
	readonly decodeHere?: boolean;
}

/** A decoded chunk: values, and where value (i0, i1, …) lies in them (`Σ i·stride`). */
export interface DecodedChunk {
	readonly data: ChunkValues;
	readonly shape: readonly number[];
	readonly stride: readonly number[];
	/** Bytes after the last whole value (a chunk of the wrong size), which the chunk decoder refuses. */
	readonly strayBytes?: number;
}

export interface ArrayToArrayCodec {
	readonly kind: "array_to_array";
	/** The shape of the array this codec stores: what the codecs after it are given. */
	readonly encodedShape: readonly number[];
	decode(chunk: DecodedChunk): DecodedChunk;
}

export interface ArrayToBytesCodec {
	readonly kind: "array_to_bytes";
	decode(bytes: Uint8Array): DecodedChunk;
}

export interface BytesToBytesCodec {
	readonly kind: "bytes_to_bytes";
	/** `signal`: the export's; a chunk that waits for a decode thread is never sent to one once it is aborted. */
	decode(bytes: Uint8Array, signal?: AbortSignal): Promise<Uint8Array> | Uint8Array;
	/**
	 * Set when the codec decodes into the buffer its encoded bytes came in, given a whole buffer of the spec's pool
	 * of at least this many bytes: a chunk then holds one buffer from its read to its output instead of two.
	 */
	readonly inputRoom?: number;
	/**
	 * Decodes into `target` (a part of a larger buffer: an inner chunk's place in its shard's, see ShardBands), never
	 * past it: the decoded length and, for datetime64 counts, where NaT may be (null: not known). Undefined, and
	 * nothing done, when the chunk's headers say it does not fit: `decode` then decodes it. The encoded bytes are the
	 * codec's from the call on (handed back to the spec's pool once decoded). Absent: a codec that cannot.
	 */
	decodeInto?(bytes: Uint8Array, target: Uint8Array, signal?: AbortSignal): Promise<{ readonly length: number; readonly natPositions: Int32Array | null }> | undefined;
	/** Whether `decodeInto`'s target must be a view of a SharedArrayBuffer (it decodes on a decode thread). */
	readonly sharedTarget?: boolean;
}

export type Codec = ArrayToArrayCodec | ArrayToBytesCodec | BytesToBytesCodec;

/** Makes a codec from its metadata `configuration` for chunks described by `spec`; throws on a configuration it cannot decode. */
export type CodecFactory = (configuration: Readonly<Record<string, unknown>>, spec: ChunkSpec) => Codec;
