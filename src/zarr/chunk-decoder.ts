import type { AbsolutePath, AsyncReadable, GetOptions } from "@zarrita/storage";
import * as zarr from "zarrita";
import { Dt64ExportError, errorInContext } from "../errors.js";
import type { BufferPool } from "../store/buffer-pool.js";
import type { CodecMetadata } from "./array-metadata.js";
import { installBoundedWasmCodecs } from "./codecs/bounded-wasm.js";
import { installCrc32cCodec } from "./codecs/crc32c.js";
import { markChunkShape } from "./codecs/decoded-size.js";
import { installNodeZlibCodecs } from "./codecs/node-zlib.js";
import { installVlenUtf8Codec } from "./codecs/vlen-utf8.js";
import type { ChunkValues } from "./chunk-values.js";
import { product, toCOrder } from "./grid.js";

/** The data types zarrita is asked to decode as; datetime64 chunks (and shard indexes) are int64 to it. */
export interface DecodedAs {
	/** zarrita's data type name. */
	readonly dataType: string;
	/** Bytes per decoded value, or `variable` for strings: bounds what decompressors may produce. */
	readonly valueBytes: number | "variable";
	/** Turns zarrita's decoded data into this package's values, where they differ (fixed-width strings). */
	readonly valuesOf?: (decoded: unknown) => ChunkValues;
}

const INT64: DecodedAs = { dataType: "int64", valueBytes: 8 };

const ZARRITA_FILL: Readonly<Record<string, unknown>> = { int64: 0n, uint64: 0n, string: "" };

/**
 * Decodes the encoded bytes of one chunk through zarrita's codec pipeline.
 *
 * zarrita refuses `numpy.datetime64` outright, and its pipeline is not exported on its own, so the chunk is
 * presented to it as the only chunk of an array (int64 for datetime64, the real data type otherwise) whose store
 * hands back the bytes given in the read options. What zarrita gets wrong is checked here: the decoded size, and
 * C order after `transpose`.
 */
export class ChunkDecoder<V extends ChunkValues = BigInt64Array> {
	readonly #array: zarr.Array<zarr.DataType, AsyncReadable>;
	readonly #origin: number[];
	readonly #size: number;
	readonly #valuesOf: ((decoded: unknown) => ChunkValues) | undefined;
	readonly #bufferPool: BufferPool | undefined;

	/**
	 * `bufferPool`: decompressors take their output buffers from it, and the encoded bytes given to `decode` are
	 * handed back to it once decoded into other memory (the decoder is then their last user; see BufferPool).
	 */
	constructor(
		readonly chunkShape: number[],
		codecs: CodecMetadata[],
		decodedAs: DecodedAs = INT64,
		bufferPool?: BufferPool,
	) {
		installNodeZlibCodecs();
		installBoundedWasmCodecs();
		installCrc32cCodec();
		installVlenUtf8Codec();
		// zarrita passes this very array to each codec as the chunk's shape: marked, it carries the value width.
		const shape = [...chunkShape];
		markChunkShape(shape, decodedAs.valueBytes, bufferPool);
		this.#bufferPool = bufferPool;
		const bytesInOptions: AsyncReadable = {
			async get(_key: AbsolutePath, options?: GetOptions) {
				return (options as { chunkBytes?: Uint8Array } | undefined)?.chunkBytes;
			},
		};
		this.#array = new zarr.Array(bytesInOptions, "/", {
			zarr_format: 3,
			node_type: "array",
			shape,
			data_type: decodedAs.dataType,
			chunk_grid: { name: "regular", configuration: { chunk_shape: shape } },
			chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
			codecs: codecs as zarr.CodecMetadata[],
			fill_value: ZARRITA_FILL[decodedAs.dataType] ?? 0,
			attributes: {},
		} as zarr.ArrayMetadata<zarr.DataType>);
		this.#origin = chunkShape.map(() => 0);
		this.#size = product(chunkShape);
		this.#valuesOf = decodedAs.valuesOf;
	}

	/** Returns the chunk's values in C order of the chunk shape. `key` names the chunk in messages. */
	async decode(bytes: Uint8Array, key: string): Promise<V> {
		let chunk: zarr.Chunk<zarr.DataType>;
		try {
			chunk = await this.#array.getChunk(this.#origin, { chunkBytes: bytes } as GetOptions);
		} catch (error) {
			const cause = (error as { cause?: unknown }).cause;
			const code = cause instanceof Dt64ExportError ? cause.code : "CHUNK_CORRUPT";
			throw new Dt64ExportError(code, `chunk ${key}: cannot decode: ${describeCodecError(error)}`, { key, cause: error });
		}
		const data = chunk.data as { buffer?: unknown };
		if (this.#bufferPool !== undefined && data.buffer !== bytes.buffer) this.#bufferPool.release(bytes);
		if (chunk.data.length !== this.#size) {
			throw new Dt64ExportError("CHUNK_CORRUPT", `chunk ${key}: decoded to ${chunk.data.length} values, expected ${this.#size} (chunk shape ${JSON.stringify(this.chunkShape)})`);
		}
		let values = chunk.data as unknown as V;
		if (this.#valuesOf !== undefined) {
			try {
				values = this.#valuesOf(chunk.data) as V;
			} catch (error) {
				throw errorInContext(`chunk ${key}`, error, "CHUNK_CORRUPT", { key });
			}
		}
		return toCOrder(values, this.chunkShape, chunk.stride);
	}
}

function describeCodecError(error: unknown): string {
	const cause = (error as { cause?: unknown }).cause;
	// The codecs of this package say what failed themselves; zarrita's "Failed to decode chunk via codec" adds nothing.
	if (cause instanceof Dt64ExportError) return cause.message;
	let message = (error as Error).message ?? String(error);
	if (cause instanceof Error && !message.includes(cause.message)) message += `: ${cause.message}`;
	return message.replace(/\s+/g, " ");
}
