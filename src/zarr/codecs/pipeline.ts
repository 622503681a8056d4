import { recordNatPositions } from "../../convert/nat-positions.js";
import { Dt64ExportError } from "../../errors.js";
import type { CodecMetadata } from "../array-metadata.js";
import type { ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkSpec, DecodedChunk } from "./codec.js";
import { bytesCodec } from "./bytes.js";
import { CODECS } from "./codec-map.js";

interface Named<C> {
	readonly name: string;
	readonly codec: C;
}

/**
 * Decodes the encoded bytes of one chunk into its values (in the strides the codecs leave them in); `inputRoom`
 * is the first codec's to decode (see BytesToBytesCodec.inputRoom): what a buffer the encoded bytes are read into
 * should hold.
 */
export type DecodePipeline = ((bytes: Uint8Array, signal?: AbortSignal) => Promise<DecodedChunk>) & {
	readonly inputRoom?: number;
	/**
	 * Decodes into `target` (see BytesToBytesCodec.decodeInto): the chunk whose values are then views of it (unless
	 * the array-to-bytes codec copies them: big endian); undefined when the chunk does not fit it, nothing done.
	 * Present for a chain of one bytes-to-bytes codec that can, after the array-to-bytes codec and nothing else.
	 */
	readonly decodeInto?: (bytes: Uint8Array, target: Uint8Array, signal?: AbortSignal) => Promise<DecodedChunk | undefined>;
	/** Whether decodeInto's target must be a view of a SharedArrayBuffer. */
	readonly sharedTarget?: boolean;
};

/**
 * The codec chain of an array as one decode function: array-to-array codecs, one array-to-bytes codec (`bytes`
 * when none is named), then bytes-to-bytes codecs, run in reverse. Each codec is made once, with the spec of the
 * array it is handed (transpose changes the shape the later codecs see). Errors name the codec that failed.
 */
export function createDecodePipeline(codecs: readonly CodecMetadata[], spec: ChunkSpec): DecodePipeline {
	const arrayToArray: Named<ArrayToArrayCodec>[] = [];
	let arrayToBytes: Named<ArrayToBytesCodec> | undefined;
	const bytesToBytes: Named<BytesToBytesCodec>[] = [];
	let current = spec;
	for (const { name, configuration } of codecs) {
		const factory = CODECS.get(name);
		if (factory === undefined) throw new Dt64ExportError("UNSUPPORTED", `unknown codec ${JSON.stringify(name)}`);
		const codec = factory(configuration ?? {}, current);
		const misplaced = (what: string) => new Dt64ExportError("METADATA_INVALID", `codec ${JSON.stringify(name)} (${what}) is out of place in ${JSON.stringify(codecs.map((c) => c.name))}`, { field: name });
		if (codec.kind === "array_to_array") {
			if (arrayToBytes !== undefined) throw misplaced("array to array");
			arrayToArray.push({ name, codec });
			current = { ...current, shape: codec.encodedShape };
		} else if (codec.kind === "array_to_bytes") {
			if (arrayToBytes !== undefined) throw misplaced("a second array to bytes codec");
			arrayToBytes = { name, codec };
		} else {
			if (arrayToBytes === undefined) arrayToBytes = { name: "bytes", codec: bytesCodec({}, current) as ArrayToBytesCodec };
			bytesToBytes.push({ name, codec });
		}
	}
	const toValues = arrayToBytes ?? { name: "bytes", codec: bytesCodec({}, current) as ArrayToBytesCodec };
	const decode = async (encoded: Uint8Array, signal?: AbortSignal) => {
		let bytes = encoded;
		for (let i = bytesToBytes.length - 1; i >= 0; i--) bytes = await step(bytesToBytes[i].name, () => bytesToBytes[i].codec.decode(bytes, signal));
		let chunk = await step(toValues.name, () => toValues.codec.decode(bytes));
		for (let i = arrayToArray.length - 1; i >= 0; i--) chunk = await step(arrayToArray[i].name, () => arrayToArray[i].codec.decode(chunk));
		return chunk;
	};
	const only = bytesToBytes.length === 1 && arrayToArray.length === 0 ? bytesToBytes[0] : undefined;
	if (only?.codec.decodeInto === undefined) return Object.assign(decode, { inputRoom: bytesToBytes.at(-1)?.codec.inputRoom });
	const decodeInto = async (encoded: Uint8Array, target: Uint8Array, signal?: AbortSignal) => {
		const decoded = await step(only.name, () => only.codec.decodeInto!(encoded, target, signal));
		if (decoded === undefined) return undefined;
		const bytes = target.subarray(0, decoded.length);
		if (decoded.natPositions !== null) recordNatPositions(bytes, decoded.natPositions);
		return step(toValues.name, () => toValues.codec.decode(bytes));
	};
	return Object.assign(decode, { inputRoom: only.codec.inputRoom, decodeInto, sharedTarget: only.codec.sharedTarget === true });
}

/** Runs one codec step; an error that is not this package's own says which codec raised it. */
async function step<T>(name: string, run: () => T | Promise<T>): Promise<T> {
	try {
		return await run();
	} catch (error) {
		if (error instanceof Dt64ExportError) throw error;
		const message = ((error as Error)?.message ?? String(error)).replace(/\s+/g, " ");
		throw new Dt64ExportError("CHUNK_CORRUPT", `${name}: ${message}`, { cause: error });
	}
}
