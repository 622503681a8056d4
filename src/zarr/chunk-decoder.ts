import { abortError } from "../abort.js";
import { natPositionsOf } from "../convert/nat-positions.js";
import { Dt64ExportError, errorInContext } from "../errors.js";
import { copyOfBytes } from "../memory/copy-of-bytes.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import type { CodecMetadata } from "./array-metadata.js";
import { maxDecodedBytes } from "./codecs/decoded-size.js";
import type { DecodedChunk } from "./codecs/codec.js";
import { createDecodePipeline, type DecodePipeline } from "./codecs/pipeline.js";
import type { ChunkValues } from "./chunk-values.js";
import { product, toCOrder } from "./grid.js";

/** The data type a chunk's bytes are decoded as; datetime64 chunks (and shard indexes) are int64 counts. */
export interface DecodedAs {
	/** The data type of the chunk bytes (see bytes.ts): `int64`, `float32`, `string`, `v2:U<n>`… */
	readonly dataType: string;
	/** Bytes per decoded value, or `variable` for strings: bounds what decompressors may produce. */
	readonly valueBytes: number | "variable";
	/** Turns the decoded values into this package's values, where they differ (fixed-width strings). */
	readonly valuesOf?: (decoded: unknown) => ChunkValues;
	/** The values are datetime64/timedelta64 counts, whose NaT the conversion looks for (see ChunkSpec.scanNaT). */
	readonly scanNaT?: boolean;
}

const INT64: DecodedAs = { dataType: "int64", valueBytes: 8 };

/**
 * Decodes the encoded bytes of one chunk through this package's own codec pipeline (codecs/), and checks what
 * every chunk must be: its exact number of values, in C order of the chunk shape.
 */
export class ChunkDecoder<V extends ChunkValues = BigInt64Array> {
	readonly #pipeline: DecodePipeline;
	readonly #size: number;
	readonly #valuesOf: ((decoded: unknown) => ChunkValues) | undefined;
	readonly #bufferPool: BufferPool | undefined;
	/** What a buffer the encoded bytes are read into should hold (GetOptions.room): its chunk decodes into it. */
	readonly inputRoom: number | undefined;

	/**
	 * `bufferPool`: decompressors take their output buffers from it, and the encoded bytes given to `decode` are
	 * handed back to it once decoded into other memory (the decoder is then their last user; see BufferPool).
	 * `decodeHere`: the chunks belong to a small array, or are small, decoded on the calling thread (see ChunkSpec.decodeHere).
	 */
	constructor(
		readonly chunkShape: number[],
		codecs: CodecMetadata[],
		decodedAs: DecodedAs = INT64,
		bufferPool?: BufferPool,
		decodeHere = false,
	) {
		this.#pipeline = createDecodePipeline(codecs, {
			shape: [...chunkShape],
			dataType: decodedAs.dataType,
			maxDecodedBytes: maxDecodedBytes(chunkShape, decodedAs.valueBytes),
			bufferPool,
			scanNaT: decodedAs.scanNaT,
			decodeHere,
		});
		this.#bufferPool = bufferPool;
		this.inputRoom = this.#pipeline.inputRoom;
		this.#size = product(chunkShape);
		this.#valuesOf = decodedAs.valuesOf;
	}

	/**
	 * Returns the chunk's values in C order of the chunk shape. `name` names it in messages (its store key, or its
	 * shard's and where in it); the error's `key` and `path` are set where the chunk is read (chunk-source.ts).
	 * `signal`: the export's; once it is aborted, a chunk that waits for a decode thread is not decoded (AbortError).
	 */
	async decode(bytes: Uint8Array, name: string, signal?: AbortSignal): Promise<V> {
		let chunk: DecodedChunk;
		try {
			chunk = await this.#pipeline(bytes, signal);
		} catch (error) {
			if (signal?.aborted === true) throw abortError(signal);
			// The decoders' own files failing to load (package-file.ts) says nothing of this chunk: it is not named.
			if (error instanceof Dt64ExportError && error.code === "PACKAGE_FILE_MISSING") throw error;
			throw errorInContext(`chunk ${name}: cannot decode`, error, "CHUNK_CORRUPT");
		}
		const data = chunk.data as { buffer?: unknown };
		if (this.#bufferPool !== undefined && data.buffer !== bytes.buffer) this.#bufferPool.release(bytes);
		let values = chunk.data as V;
		if (this.#valuesOf !== undefined) {
			try {
				values = this.#valuesOf(chunk.data) as V;
			} catch (error) {
				throw errorInContext(`chunk ${name}`, error, "CHUNK_CORRUPT");
			}
		}
		const stray = chunk.strayBytes ?? 0;
		if (values.length !== this.#size || stray !== 0) {
			// Stray bytes are named only when the count alone looks right.
			const strayNote = values.length === this.#size ? `, and ${stray} bytes after the last value` : "";
			throw new Dt64ExportError("CHUNK_CORRUPT", `chunk ${name}: decoded to ${values.length} values, expected ${this.#size} (chunk shape ${JSON.stringify(this.chunkShape)})${strayNote}`);
		}
		const ordered = toCOrder(values, this.chunkShape, chunk.stride);
		// Reordered into new memory (after a transpose codec): the decoded buffer is dead.
		if (this.#bufferPool !== undefined && ordered !== values && !Array.isArray(values)) this.#bufferPool.release(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
		return ordered;
	}

	/**
	 * Whether `decodeInto` can be used: fixed-size values a codec decodes into a target (see DecodePipeline.decodeInto),
	 * with `sharedTarget` saying whether that target must be a view of a SharedArrayBuffer.
	 */
	get decodesInto(): boolean {
		return this.#pipeline.decodeInto !== undefined && this.#valuesOf === undefined;
	}

	get sharedTarget(): boolean {
		return this.#pipeline.sharedTarget === true;
	}

	/**
	 * Decodes the chunk into `target`, exactly its values' bytes (a part of a larger buffer: an inner chunk's place
	 * in its shard's), with every check `decode` makes, named as it names them; returns where NaT may be among its
	 * values (positions in the chunk), or null when not known. A chunk whose headers say it does not fit is decoded
	 * as `decode` does, then copied. Only where `decodesInto`.
	 */
	async decodeInto(bytes: Uint8Array, target: Uint8Array, name: string, signal?: AbortSignal): Promise<Int32Array | null> {
		let chunk: DecodedChunk | undefined;
		try {
			chunk = await this.#pipeline.decodeInto!(bytes, target, signal);
		} catch (error) {
			if (signal?.aborted === true) throw abortError(signal);
			if (error instanceof Dt64ExportError && error.code === "PACKAGE_FILE_MISSING") throw error;
			throw errorInContext(`chunk ${name}: cannot decode`, error, "CHUNK_CORRUPT");
		}
		if (chunk === undefined) {
			// Bytes read into the target itself are copied out first: they are not the pool's to take back alone. A copy
			// of its own (copyOfBytes): the target of a shard decoded on this thread is the pool's Buffer, whose slice()
			// is a view, which `decode` then said dead to the pool (its place, values still to come and be written).
			const own = bytes.buffer === target.buffer ? copyOfBytes(bytes) : bytes;
			const values = (await this.decode(own, name, signal)) as unknown as Exclude<ChunkValues, string[]>;
			const decoded = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
			target.set(decoded);
			const positions = natPositionsOf(values) ?? null;
			this.#bufferPool?.release(decoded);
			return positions;
		}
		const values = chunk.data as Exclude<ChunkValues, string[]>;
		const stray = chunk.strayBytes ?? 0;
		if (values.length !== this.#size || stray !== 0) {
			const strayNote = values.length === this.#size ? `, and ${stray} bytes after the last value` : "";
			throw new Dt64ExportError("CHUNK_CORRUPT", `chunk ${name}: decoded to ${values.length} values, expected ${this.#size} (chunk shape ${JSON.stringify(this.chunkShape)})${strayNote}`);
		}
		const ordered = toCOrder(values as V, this.chunkShape, chunk.stride) as unknown as Exclude<ChunkValues, string[]>;
		if (ordered.buffer !== target.buffer || ordered.byteOffset !== target.byteOffset) {
			// Copied or reordered by a codec (big endian, a transpose): its values are put where they belong.
			target.set(new Uint8Array(ordered.buffer, ordered.byteOffset, ordered.byteLength));
		}
		return natPositionsOf(ordered) ?? null;
	}
}
