import { Dt64ExportError } from "../errors.js";

export type ChunkKeyEncoder = (coords: readonly number[]) => string;

/** The v3 chunk key encodings: `default` (`c/1/2`, or `c.1.2`) and `v2` (`1.2`, `0` for a 0-d array). `where` names the zarr.json in messages. */
export function chunkKeyEncoder(encoding: unknown, where: string): ChunkKeyEncoder {
	const { name, configuration } = (encoding ?? {}) as { name?: unknown; configuration?: { separator?: unknown } };
	const separator = configuration?.separator ?? (name === "v2" ? "." : "/");
	if (separator !== "/" && separator !== ".") {
		throw new Dt64ExportError("METADATA_INVALID", `${where}: chunk_key_encoding: separator must be "/" or ".", got ${JSON.stringify(separator)}`, { field: "chunk_key_encoding" });
	}
	if (name === "default") return (coords) => ["c", ...coords].join(separator);
	if (name === "v2") return (coords) => (coords.length === 0 ? "0" : coords.join(separator));
	throw new Dt64ExportError("METADATA_INVALID", `${where}: chunk_key_encoding: unknown name ${JSON.stringify(name)} (expected "default" or "v2")`, { field: "chunk_key_encoding" });
}
