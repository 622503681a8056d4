/**
 * The manifest a part writes once all its files are in place (`_parts/part-K-of-N.json`), and the digest of the
 * options that decide a dataset's content: `commit` accepts the parts only if they all ran the same export.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { OverflowNulls } from "../convert/overflow-nulls.js";
import { Dt64ExportError } from "../errors.js";
import type { RowRange } from "../select/time-search.js";
import { AtomicFileWriter } from "./atomic-file.js";
import { makeFolder } from "./make-folder.js";

export const MANIFEST_VERSION = 1;

export interface ManifestFile {
	/** Relative to the dataset folder, `/` separators. */
	readonly path: string;
	readonly rows: number;
}

/** The table a part's slice was cut from, as the part opened it: its dimensions' names and lengths. */
export interface SlicedTable {
	readonly dimensions: readonly string[];
	readonly shape: readonly number[];
}

export interface PartManifest {
	readonly version: number;
	readonly part: number;
	readonly parts: number;
	readonly optionsDigest: string;
	/** The options digested, for a person comparing two parts. */
	readonly options: Record<string, unknown>;
	readonly files: readonly ManifestFile[];
	readonly rows: number;
	/**
	 * Per column, the values written as null because they were outside int64 in its unit (`onOverflow: "null"`);
	 * only columns with some. Absent from the manifests of earlier versions of this package: none counted.
	 */
	readonly overflowNulls?: OverflowNulls;
	/**
	 * With `forbiddenAsMissing` (`--forbidden-as-missing`): the chunks this part read as missing because S3 answered
	 * 403 AccessDenied (see ForbiddenChunks), and the first keys of them, for commit's warning. Absent when the part
	 * ran without it, and from the manifests of earlier versions of this package: none counted.
	 */
	readonly forbiddenChunks?: number;
	readonly forbiddenKeys?: readonly string[];
	/**
	 * With `dropInvalidDates`: the rows the part left out because their time coordinate held a date the proleptic
	 * Gregorian calendar lacks. Absent when the export does not leave them out (the parts of a dataset agree: their
	 * options digest says it).
	 */
	readonly droppedInvalidDates?: number;
	/** The time column's unit, and its smallest and largest values (int64 as decimal text, and as ISO 8601), if any. */
	readonly timeUnit: string | null;
	readonly minTime: { readonly value: string; readonly iso: string } | null;
	readonly maxTime: { readonly value: string; readonly iso: string } | null;
	/**
	 * The table as this part saw it, and the rows along its first axis the part read: the parts of one dataset cut
	 * their slices from the same table, one after the other (commit checks both). Absent from the manifests of
	 * earlier versions of this package: not checked.
	 */
	readonly table?: SlicedTable;
	readonly rowRange?: RowRange;
}

function canonical(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(canonical);
	if (typeof value === "object" && value !== null) {
		return Object.fromEntries(
			Object.keys(value)
				.sort()
				.filter((key) => (value as Record<string, unknown>)[key] !== undefined)
				.map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
		);
	}
	return typeof value === "bigint" ? value.toString() : value;
}

/** The options as stored (keys sorted, undefined dropped, bigints as text), and their SHA-256. */
export function digestOptions(options: Record<string, unknown>): { options: Record<string, unknown>; digest: string } {
	const stored = canonical(options) as Record<string, unknown>;
	return { options: stored, digest: process.getBuiltinModule("node:crypto").createHash("sha256").update(JSON.stringify(stored)).digest("hex") };
}

/**
 * Writes a small JSON file all or nothing, or rejects (`WRITE_FAILED`): a manifest or `_SUCCESS` that could not be
 * written (a full disk) must fail its run, not pass for written.
 */
export async function writeJsonFile(target: string, value: unknown): Promise<void> {
	makeFolder(path.dirname(target));
	const file = new AtomicFileWriter(target, { overwrite: true });
	await new Promise<void>((resolve, reject) => {
		file.on("error", reject);
		// `end`'s callback is called with the error of a failed write, before the "error" event: not a success.
		file.end(`${JSON.stringify(value, null, "\t")}\n`, (error?: Error | null) => (error ? reject(error) : resolve()));
	});
}

export function readManifest(file: string): PartManifest {
	let manifest: PartManifest;
	try {
		manifest = JSON.parse(fs.readFileSync(file, "utf8")) as PartManifest;
	} catch (error) {
		throw new Dt64ExportError("DATASET_INVALID", `${file}: not a readable part manifest (${(error as Error).message})`, { path: file, cause: error });
	}
	const valid =
		typeof manifest === "object" &&
		manifest !== null &&
		manifest.version === MANIFEST_VERSION &&
		Number.isSafeInteger(manifest.part) &&
		Number.isSafeInteger(manifest.parts) &&
		typeof manifest.optionsDigest === "string" &&
		Array.isArray(manifest.files) &&
		manifest.files.every((entry) => typeof entry?.path === "string" && Number.isSafeInteger(entry.rows)) &&
		(manifest.table === undefined ||
			(typeof manifest.table === "object" &&
				manifest.table !== null &&
				Array.isArray(manifest.table.dimensions) &&
				manifest.table.dimensions.every((name) => typeof name === "string") &&
				Array.isArray(manifest.table.shape) &&
				manifest.table.shape.length === manifest.table.dimensions.length &&
				manifest.table.shape.every((length) => Number.isSafeInteger(length) && length >= 0))) &&
		(manifest.rowRange === undefined ||
			(typeof manifest.rowRange === "object" &&
				manifest.rowRange !== null &&
				Number.isSafeInteger(manifest.rowRange.start) &&
				Number.isSafeInteger(manifest.rowRange.end) &&
				manifest.rowRange.start <= manifest.rowRange.end)) &&
		(manifest.droppedInvalidDates === undefined || (Number.isSafeInteger(manifest.droppedInvalidDates) && manifest.droppedInvalidDates >= 0)) &&
		(manifest.overflowNulls === undefined || (typeof manifest.overflowNulls === "object" && manifest.overflowNulls !== null && Object.values(manifest.overflowNulls).every(Number.isSafeInteger))) &&
		(manifest.forbiddenChunks === undefined || (Number.isSafeInteger(manifest.forbiddenChunks) && manifest.forbiddenChunks >= 0)) &&
		(manifest.forbiddenKeys === undefined || (Array.isArray(manifest.forbiddenKeys) && manifest.forbiddenKeys.every((key) => typeof key === "string")));
	if (!valid) throw new Dt64ExportError("DATASET_INVALID", `${file}: not a part manifest of version ${MANIFEST_VERSION}`, { path: file });
	return manifest;
}
