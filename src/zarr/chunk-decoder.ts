import type { AbsolutePath, AsyncReadable, GetOptions } from "@zarrita/storage";
import * as zarr from "zarrita";
import { Dt64ExportError } from "../errors.js";
import type { CodecMetadata } from "./array-metadata.js";
import { installBoundedWasmCodecs } from "./codecs/bounded-wasm.js";
import { installCrc32cCodec } from "./codecs/crc32c.js";
import { installNodeZlibCodecs } from "./codecs/node-zlib.js";
import { product, toCOrder } from "./grid.js";

/**
 * Decodes the encoded bytes of one chunk through zarrita's codec pipeline, as int64.
 *
 * zarrita refuses `numpy.datetime64` outright, and its pipeline is not exported on its own, so the chunk is
 * presented to it as the only chunk of an int64 array whose store hands back the bytes given in the read
 * options. What zarrita gets wrong is checked here: the decoded size, and C order after `transpose`.
 */
export class ChunkDecoder {
	readonly #array: zarr.Array<"int64", AsyncReadable>;
	readonly #origin: number[];
	readonly #size: number;

	constructor(
		readonly chunkShape: number[],
		codecs: CodecMetadata[],
	) {
		installNodeZlibCodecs();
		installBoundedWasmCodecs();
		installCrc32cCodec();
		const bytesInOptions: AsyncReadable = {
			async get(_key: AbsolutePath, options?: GetOptions) {
				return (options as { chunkBytes?: Uint8Array } | undefined)?.chunkBytes;
			},
		};
		this.#array = new zarr.Array(bytesInOptions, "/", {
			zarr_format: 3,
			node_type: "array",
			shape: chunkShape,
			data_type: "int64",
			chunk_grid: { name: "regular", configuration: { chunk_shape: chunkShape } },
			chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
			codecs: codecs as zarr.CodecMetadata[],
			fill_value: 0n,
			attributes: {},
		} as zarr.ArrayMetadata<"int64">);
		this.#origin = chunkShape.map(() => 0);
		this.#size = product(chunkShape);
	}

	/** Returns the chunk's values in C order of the chunk shape. `key` names the chunk in messages. */
	async decode(bytes: Uint8Array, key: string): Promise<BigInt64Array> {
		let chunk: zarr.Chunk<"int64">;
		try {
			chunk = await this.#array.getChunk(this.#origin, { chunkBytes: bytes } as GetOptions);
		} catch (error) {
			throw new Dt64ExportError(`chunk ${key}: cannot decode: ${describeCodecError(error)}`);
		}
		if (chunk.data.length !== this.#size) {
			throw new Dt64ExportError(`chunk ${key}: decoded to ${chunk.data.length} values, expected ${this.#size} (chunk shape ${JSON.stringify(this.chunkShape)})`);
		}
		return toCOrder(chunk.data, this.chunkShape, chunk.stride);
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
