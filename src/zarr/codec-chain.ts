/**
 * An array's codec chain, checked before any data is read: every codec one this package decodes, and where
 * `sharding_indexed` stands, with the layout of its shards. One rule for a shard read from the store (chunk-source.ts)
 * and a shard that is the inner chunk of another one (nested sharding, nested-shard.ts).
 */
import { Dt64ExportError } from "../errors.js";
import type { CodecMetadata } from "./array-metadata.js";
import { CODECS } from "./codecs/codec-map.js";
import { permutationOf } from "./codecs/transpose.js";

export const SHARDING = "sharding_indexed";

const LITTLE_ENDIAN_BYTES: CodecMetadata = { name: "bytes", configuration: { endian: "little" } };

function isPermutation(order: unknown, rank: number): boolean {
	if (order === "C" || order === "F") return true;
	return Array.isArray(order) && order.length === rank && [...order].sort((a, b) => a - b).every((axis, i) => axis === i);
}

/**
 * Every codec must be one this package decodes (or sharding, which is read by the chunk source), with a configuration
 * it reads as written (an endian other than little or big, or a transpose order that is not a permutation, is refused).
 */
export function checkCodecs(codecs: unknown, field: string, rank: number, where: string): CodecMetadata[] {
	if (!Array.isArray(codecs) || codecs.some((c) => typeof c !== "object" || c === null || typeof (c as CodecMetadata).name !== "string")) {
		throw new Dt64ExportError("METADATA_INVALID", `${where}: ${field} must be a list of {"name": ...} objects, got ${JSON.stringify(codecs)}`, { field });
	}
	for (const codec of codecs as CodecMetadata[]) {
		if (codec.name === SHARDING) continue;
		if (!CODECS.has(codec.name)) throw new Dt64ExportError("UNSUPPORTED", `${where}: unknown codec ${JSON.stringify(codec.name)}`);
		const configuration = (codec.configuration ?? {}) as Record<string, unknown>;
		if (codec.name === "bytes" && configuration.endian !== undefined && configuration.endian !== "little" && configuration.endian !== "big") {
			throw new Dt64ExportError("METADATA_INVALID", `${where}: bytes codec endian must be "little" or "big", got ${JSON.stringify(configuration.endian)}`, { field: "bytes" });
		}
		if (codec.name === "transpose" && !isPermutation(configuration.order, rank)) {
			throw new Dt64ExportError("METADATA_INVALID", `${where}: transpose codec order must be a permutation of the ${rank} axes, got ${JSON.stringify(configuration.order)}`, { field: "transpose" });
		}
	}
	return codecs as CodecMetadata[];
}

/** A chain holding `sharding_indexed`: the array -> array codecs before it (transposes), the codec, the bytes -> bytes codecs after it. */
export interface ShardingInChain {
	readonly before: readonly CodecMetadata[];
	readonly sharding: CodecMetadata;
	readonly after: readonly CodecMetadata[];
}

/**
 * Where `sharding_indexed` stands in a checked chain, or undefined when it holds none. Only array -> array codecs
 * (transposes) may come before it, as before any array -> bytes codec (METADATA_INVALID otherwise).
 */
export function shardingInChain(codecs: readonly CodecMetadata[], where: string): ShardingInChain | undefined {
	const at = codecs.findIndex((codec) => codec.name === SHARDING);
	if (at === -1) return undefined;
	const before = codecs.slice(0, at);
	const misplaced = before.find((codec) => codec.name !== "transpose");
	if (misplaced !== undefined) {
		const chain = JSON.stringify(codecs.map((codec) => codec.name));
		throw new Dt64ExportError("METADATA_INVALID", `${where}: codec ${JSON.stringify(misplaced.name)} cannot come before ${SHARDING}, only array -> array codecs (transpose) can (codecs ${chain})`, { field: misplaced.name });
	}
	return { before, sharding: codecs[at], after: codecs.slice(at + 1) };
}

/**
 * Where each axis of a shard went through the array -> array codecs before `sharding_indexed` (transposes): axis i
 * of the shard as the sharding codec receives it, and as its `chunk_shape` and index are laid out, is the array's
 * axis `stored[i]`.
 */
function storedAxes(before: readonly CodecMetadata[], rank: number): number[] {
	let stored = Array.from({ length: rank }, (_, axis) => axis);
	for (const codec of before) {
		const order = permutationOf(codec.configuration?.order, rank);
		stored = order.map((axis) => stored[axis]);
	}
	return stored;
}

/** How a shard of `shardShape` is cut, in the array's axes and in the axes the shard stores them in. */
export interface ShardingLayout {
	/** The array's axis of each axis of the shard as stored (see storedAxes). */
	readonly stored: readonly number[];
	/** The inner chunk shape, in the array's axes. */
	readonly innerShape: number[];
	/** Inner chunks per shard along each of the array's axes, and along each stored axis (the index's shape). */
	readonly perShard: number[];
	readonly storedPerShard: number[];
	/** The inner chunks' codecs (default `bytes` little endian), and the index's (default `bytes`, `crc32c`), checked. */
	readonly innerCodecs: CodecMetadata[];
	readonly indexCodecs: CodecMetadata[];
	readonly location: "start" | "end";
}

/**
 * The layout of the shards of `shardShape` (the array's axes) that `sharding` cuts, after the transposes `before`:
 * `chunk_shape`, the index and the inner chunks are in the transposed axes (the spec's codec chain: sharding receives
 * the array the transposes encoded). Refused when the configuration is not one the spec allows.
 */
export function shardingLayout(sharding: CodecMetadata, before: readonly CodecMetadata[], shardShape: readonly number[], where: string): ShardingLayout {
	const configuration = sharding.configuration ?? {};
	const rank = shardShape.length;
	const stored = storedAxes(before, rank);
	const storedShard = stored.map((axis) => shardShape[axis]);
	const storedInner = configuration.chunk_shape as number[];
	if (!Array.isArray(storedInner) || storedInner.length !== rank || storedInner.some((n) => !Number.isSafeInteger(n) || n <= 0)) {
		throw new Dt64ExportError("METADATA_INVALID", `${where}: ${SHARDING}.chunk_shape must be ${rank} positive integers, got ${JSON.stringify(storedInner)}`, { field: SHARDING });
	}
	if (storedInner.some((n, axis) => storedShard[axis] % n !== 0)) {
		const transposed = before.length === 0 ? "" : ` (${JSON.stringify(shardShape)} transposed by the codecs before ${SHARDING})`;
		throw new Dt64ExportError("METADATA_INVALID", `${where}: shard shape ${JSON.stringify(storedShard)}${transposed} is not a multiple of the inner chunk shape ${JSON.stringify(storedInner)}`, { field: SHARDING });
	}
	const innerShape = new Array<number>(rank);
	stored.forEach((axis, i) => (innerShape[axis] = storedInner[i]));
	const innerCodecs = checkCodecs(configuration.codecs ?? [LITTLE_ENDIAN_BYTES], `${SHARDING}.codecs`, rank, where);
	const indexCodecs = checkCodecs(configuration.index_codecs ?? [LITTLE_ENDIAN_BYTES, { name: "crc32c" }], `${SHARDING}.index_codecs`, rank + 1, where);
	const location = configuration.index_location ?? "end";
	if (location !== "start" && location !== "end") {
		throw new Dt64ExportError("METADATA_INVALID", `${where}: ${SHARDING}.index_location must be "start" or "end", got ${JSON.stringify(location)}`, { field: SHARDING });
	}
	const perShard = shardShape.map((n, axis) => n / innerShape[axis]);
	return { stored, innerShape, perShard, storedPerShard: stored.map((axis) => perShard[axis]), innerCodecs, indexCodecs, location };
}
