import { Dt64ExportError, errorInContext } from "../errors.js";
import type { CodecMetadata } from "./array-metadata.js";

/**
 * The numcodecs configurations a Zarr v2 `.zarray` names as `compressor` or `filters` (`{"id": "zlib",
 * "level": 1}`), as the v3 bytes-to-bytes codecs that decode the same bytes. Translating to the v3 names, rather
 * than to zarrita's `numcodecs.*` aliases, means a v2 chunk goes through exactly the codecs (and the bounded,
 * checked replacements of this package) that a v3 chunk does, and inspect shows them the same way.
 */
/** `itemBytes`: the size of one stored value, blosc's `typesize`. */
type Translate = (configuration: Record<string, unknown>, itemBytes: number) => CodecMetadata;

/** numcodecs numbers blosc's shuffle; v3 names it. AUTOSHUFFLE (-1) is byte shuffle for items over one byte. */
const BLOSC_SHUFFLE_NAMES: ReadonlyMap<unknown, string> = new Map<unknown, string>([
	[-1, "shuffle"],
	[0, "noshuffle"],
	[1, "shuffle"],
	[2, "bitshuffle"],
]);

const NUMCODECS: ReadonlyMap<string, Translate> = new Map<string, Translate>([
	["zlib", (c) => ({ name: "zlib", configuration: { level: c.level ?? 1 } })],
	["gzip", (c) => ({ name: "gzip", configuration: { level: c.level ?? 1 } })],
	["zstd", (c) => ({ name: "zstd", configuration: { level: c.level ?? 0, checksum: c.checksum === true } })],
	["lz4", (c) => ({ name: "lz4", configuration: { acceleration: c.acceleration ?? 1 } })],
	[
		"blosc",
		(c, itemBytes) => {
			const shuffle = BLOSC_SHUFFLE_NAMES.get(c.shuffle ?? 1);
			if (shuffle === undefined) throw new Error(`blosc shuffle ${JSON.stringify(c.shuffle)} is not one of -1, 0, 1, 2`);
			return { name: "blosc", configuration: { cname: c.cname ?? "lz4", clevel: c.clevel ?? 5, shuffle, typesize: itemBytes, blocksize: c.blocksize ?? 0 } };
		},
	],
	[
		"crc32c",
		(c) => {
			// numcodecs' CRC32C appends its checksum, as v3 crc32c does; `location: "start"` would put it first.
			if (c.location !== undefined && c.location !== "end") throw new Error(`crc32c location ${JSON.stringify(c.location)} is not supported (only "end")`);
			return { name: "crc32c" };
		},
	],
]);

export const SUPPORTED_NUMCODECS: readonly string[] = [...NUMCODECS.keys()];

/**
 * One `compressor` or `filters` entry as a v3 codec. `field` (e.g. `compressor`, `filters[0]`) names it in
 * messages; `itemBytes` is the size of one stored value.
 */
export function numcodecToV3(value: unknown, field: string, itemBytes: number): CodecMetadata {
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		throw new Dt64ExportError("METADATA_INVALID", `${field} must be a {"id": ...} object or null, got ${JSON.stringify(value)}`, { field });
	}
	const { id, ...configuration } = value as Record<string, unknown>;
	const translate = typeof id === "string" ? NUMCODECS.get(id) : undefined;
	if (translate === undefined) {
		throw new Dt64ExportError("UNSUPPORTED", `${field}: codec id ${JSON.stringify(id)} is not supported (supported: ${SUPPORTED_NUMCODECS.join(", ")})`);
	}
	try {
		return translate(configuration, itemBytes);
	} catch (error) {
		throw errorInContext(field, error, "UNSUPPORTED", { field });
	}
}
