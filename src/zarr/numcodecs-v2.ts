import { Dt64ExportError, errorInContext } from "../errors.js";
import type { CodecMetadata } from "./array-metadata.js";
import { checksumLocation } from "./codecs/checksum32.js";
import { deltaRefusal } from "./codecs/delta.js";

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
	// numcodecs' CRC32 and Adler32: the checksum first (numcodecs 0.11, and 0.12+ by default), or last.
	["crc32", (c) => ({ name: "numcodecs.crc32", configuration: { location: checksumLocation("crc32", c.location) } })],
	["adler32", (c) => ({ name: "numcodecs.adler32", configuration: { location: checksumLocation("adler32", c.location) } })],
]);

/**
 * numcodecs filters whose decode gives back the stored bytes as they are: the lossy filters of data reduction, which
 * change values only when writing. `bitround` (xbitinfo's bit rounding) decodes by viewing the bytes as floats;
 * `quantize` views them as `astype` and casts to `dtype`, nothing when the two are one type (as numcodecs writes it
 * by default), a conversion otherwise, which is refused. Such a filter leaves the codec chain. The reason, when
 * refused.
 */
const IDENTITY_FILTERS: ReadonlyMap<string, (configuration: Record<string, unknown>) => string | undefined> = new Map([
	["bitround", (c: Record<string, unknown>) => (Number.isInteger(c.keepbits) && (c.keepbits as number) >= 0 ? undefined : `bitround keepbits ${JSON.stringify(c.keepbits)} is not a whole number >= 0`)],
	[
		"quantize",
		(c: Record<string, unknown>) => {
			const dtype = floatTypeOf(c.dtype);
			if (dtype === undefined) return `quantize dtype ${JSON.stringify(c.dtype)} is not a float type`;
			const astype = c.astype === undefined || c.astype === null ? dtype : floatTypeOf(c.astype);
			if (astype !== dtype) return `quantize stores ${JSON.stringify(c.astype)} and decodes it to ${JSON.stringify(c.dtype)}: a conversion, where only astype equal to dtype (decoding is then the identity) is read`;
			return undefined;
		},
	],
]);

/** A numpy float type string (`<f8`, `f4`, `=f2`, `float64`) as its byte order and size (`<f8`); undefined for others. */
function floatTypeOf(value: unknown): string | undefined {
	if (typeof value !== "string") return undefined;
	const named: Record<string, string> = { float16: "<f2", float32: "<f4", float64: "<f8", half: "<f2", single: "<f4", double: "<f8" };
	if (named[value] !== undefined) return named[value];
	const match = /^([<>=|]?)f([248])$/.exec(value);
	if (match === null) return undefined;
	return `${match[1] === ">" ? ">" : "<"}f${match[2]}`;
}

/**
 * numcodecs filters of the values rather than of their bytes, as the v3 array-to-array codecs (zarr-python 3's names)
 * that decode them, by id; `storedType` is the data type of the stored values. The reason, when refused.
 */
const ARRAY_FILTERS: ReadonlyMap<string, { name: string; refusal: (configuration: Record<string, unknown>, storedType: string) => string | undefined }> = new Map([["delta", { name: "numcodecs.delta", refusal: deltaRefusal }]]);

export const SUPPORTED_NUMCODECS: readonly string[] = [...NUMCODECS.keys()];

/**
 * A `filters` entry that is a filter of the values (ARRAY_FILTERS) as its v3 codec, refused (UNSUPPORTED, the
 * reason) when configured as this package does not read it; undefined for any other entry.
 */
export function numcodecArrayFilter(value: unknown, field: string, storedType: string): CodecMetadata | undefined {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
	const { id, ...configuration } = value as Record<string, unknown>;
	const filter = typeof id === "string" ? ARRAY_FILTERS.get(id) : undefined;
	if (filter === undefined) return undefined;
	const reason = filter.refusal(configuration, storedType);
	if (reason !== undefined) throw new Dt64ExportError("UNSUPPORTED", `${field}: ${reason}`, { field });
	return { name: filter.name, configuration };
}

/**
 * Whether a `filters` entry is one whose decode is the identity on the stored bytes (see IDENTITY_FILTERS), which
 * the chain then leaves out; refused (UNSUPPORTED, the reason) when it is such a filter configured to convert.
 */
export function isIdentityFilter(value: unknown, field: string): boolean {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
	const { id, ...configuration } = value as Record<string, unknown>;
	const check = typeof id === "string" ? IDENTITY_FILTERS.get(id) : undefined;
	if (check === undefined) return false;
	const reason = check(configuration);
	if (reason !== undefined) throw new Dt64ExportError("UNSUPPORTED", `${field}: ${reason}`, { field });
	return true;
}

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
		const identity = field.startsWith("filters") ? `; as filters, also ${[...ARRAY_FILTERS.keys(), ...IDENTITY_FILTERS.keys()].join(", ")}` : "";
		throw new Dt64ExportError("UNSUPPORTED", `${field}: codec id ${JSON.stringify(id)} is not supported (supported: ${SUPPORTED_NUMCODECS.join(", ")}${identity})`, { field });
	}
	try {
		return translate(configuration, itemBytes);
	} catch (error) {
		throw errorInContext(field, error, "UNSUPPORTED", { field });
	}
}
