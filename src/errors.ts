/**
 * Every failure the tool reports on purpose is a `Dt64ExportError`: a stable `code` for programs (tests, the CLI,
 * embedding hosts), a one-line message for people that describes the data (never a CLI flag: the CLI adds its
 * advice from the code), and the structured fields the code names (path, index, value...).
 */
import { jsonSafe } from "./json/json-safe.js";
import { safeMessageText } from "./message-text.js";

export type ErrorKind = "usage" | "data" | "io";

/**
 * The codes and what each means; the kind (usage errors exit 2, everything else 1) follows from the code.
 * README "Errors" documents the same table: keep both in step.
 */
export const ERROR_CODES = {
	/** An option's value or a combination of options is invalid (`option` names it). */
	USAGE: "usage",
	/** The group holds several time arrays and none was named (`candidates` lists them). */
	ARRAY_AMBIGUOUS: "usage",
	/** A group that cannot be listed (an HTTP store without consolidated metadata) and no array named. */
	ARRAY_UNNAMED: "usage",
	/** A named array or group is not in the store (`path`). */
	ARRAY_NOT_FOUND: "data",
	/** A column asked for is not an array of the group (`path`). */
	COLUMN_NOT_FOUND: "usage",
	/** An array asked for as a column has a data type or codec that cannot be a column (`path`). */
	COLUMN_UNSUPPORTED: "usage",
	/** The columns asked for do not make one table (shapes, names, chunk shapes differ). */
	COLUMNS_INCOMPATIBLE: "usage",
	/** The array's data type, codec or layout is one this tool does not export. */
	UNSUPPORTED: "data",
	/**
	 * A metadata document (zarr.json, .zarray, .zattrs, .zmetadata, fill_value...) is malformed (`path`: the document's
	 * store key, `temp/zarr.json`; `field`: the member, attribute or codec at fault, where one is).
	 */
	METADATA_INVALID: "data",
	/** A chunk's bytes do not decode to what the metadata says (`key`: its store key, its shard's for an inner chunk; `path`: the array). */
	CHUNK_CORRUPT: "data",
	/** A chunk is missing and the array has no fill value to stand for it (`key`, `path` as for CHUNK_CORRUPT). */
	CHUNK_MISSING: "data",
	/** A chunk, a row of chunks or a batch is too large to hold in memory. */
	TOO_LARGE: "data",
	/** A row of chunks is too large to assemble in C order; chunk order streams it. */
	BAND_TOO_LARGE: "data",
	/** A CF calendar that is not exported as instants: a model calendar (noleap, 360_day...) or a refused one. */
	CALENDAR_UNSUPPORTED: "data",
	/** A time range was asked of a time column that turns out not to be sorted. */
	TIME_NOT_SORTED: "data",
	/** A value is not a whole number of the target unit (`index`, `value`, `unit`). */
	TRUNCATION: "data",
	/** A value is outside the int64 range in the target unit (`index`, `value`, `unit`). */
	OVERFLOW: "data",
	/** A value that the data type cannot hold (a generic datetime64 holds only NaT; invalid text). */
	VALUE_INVALID: "data",
	/** The store location does not exist (`path`). */
	STORE_NOT_FOUND: "io",
	/** The location exists but is not a store this tool reads (`path`). */
	STORE_INVALID: "io",
	/**
	 * Reading from the store failed (a file system or network error, after retries) (`key`: the store key that failed;
	 * `path`: the store, or the array for a chunk, as for CHUNK_CORRUPT).
	 */
	READ_FAILED: "io",
	/** A server or bucket refused the credentials sent, or their absence (401, 403, an expired token) (`path`: the bucket). */
	ACCESS_DENIED: "io",
	/** An object store's credentials cannot be found or used (no variables, no such profile, an unsupported profile). */
	CREDENTIALS_MISSING: "io",
	/** The output file exists and overwriting was not asked for (`path`). */
	OUTPUT_EXISTS: "io",
	/** The output cannot be created where asked (a missing folder, a folder as file) (`path`). */
	OUTPUT_INVALID: "io",
	/** Writing the output failed (`path`: `stdout` or a file). */
	WRITE_FAILED: "io",
	/**
	 * A dataset folder cannot be committed (parts missing, a manifest unreadable or of another version, a part still
	 * being written), or a part cannot be written now: its lock is held by another run (`path`: the folder or the lock
	 * file; `value`: the lock's holder). Not OUTPUT_EXISTS: no overwriting makes it right, the other run must end first.
	 */
	DATASET_INVALID: "io",
	/**
	 * One of this package's own run-time files (its decoders' WebAssembly, its decode threads' module, parquet-wasm's
	 * WebAssembly) is not where its code looks for it: its modules were bundled into an app without them, or its
	 * install is incomplete (`path`: where it was looked for). Not a bug of the data, nor of the output.
	 */
	PACKAGE_FILE_MISSING: "io",
	/**
	 * The Node running the export lacks what it needs: WebAssembly (`--jitless`), the address space a WebAssembly
	 * memory reserves (under `ulimit -v`), or the global fetch remote stores are read with (`--no-experimental-fetch`).
	 * The message says which, and what to change. Not the data's fault, nor the package's.
	 */
	RUNTIME_UNSUPPORTED: "io",
	/** A dependency or this tool broke its own contract (a Parquet writer that loses rows): a bug to report. */
	INTERNAL: "io",
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The structured fields an error may carry, beside its code and message. */
export interface ErrorFields {
	/** The store, array, group, file or folder the error is about; for METADATA_INVALID, the document's store key. */
	readonly path?: string;
	/** The store key of a chunk (a shard's, for an inner chunk) or document, without a leading `/`: `temp/c/0`. */
	readonly key?: string;
	/** The metadata field or codec at fault. */
	readonly field?: string;
	/** The option at fault, as the library spells it (`timezone`, `columns`...). */
	readonly option?: string;
	/** The position of the refused value in its batch. */
	readonly index?: number;
	/** The refused value (an int64 count, an option value...). */
	readonly value?: unknown;
	/** The target unit of a refused conversion. */
	readonly unit?: string;
	/** The names to choose from (ARRAY_AMBIGUOUS). */
	readonly candidates?: readonly string[];
}

export interface ErrorOptions extends ErrorFields {
	readonly cause?: unknown;
}

// The fields are declared once, in ErrorFields: this merges them into the class (the constructor assigns them).
export interface Dt64ExportError extends ErrorFields {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: optional fields, each set by the constructor when given
export class Dt64ExportError extends Error {
	readonly code: ErrorCode;
	readonly kind: ErrorKind;

	constructor(code: ErrorCode, message: string, options: ErrorOptions = {}) {
		const { cause, ...fields } = options;
		// A message quotes the store's own text: escaped and bounded (see message-text.ts).
		super(safeMessageText(message), cause === undefined ? undefined : { cause });
		this.name = "Dt64ExportError";
		this.code = code;
		this.kind = ERROR_CODES[code];
		Object.assign(this, fields);
	}

	/**
	 * What `JSON.stringify(error)` writes (a structured logger): name, code, kind, message, the fields it carries
	 * (an int64 `value` as its decimal string: a bigint would make JSON.stringify throw), and its cause the same way
	 * (another error as its name, code and message).
	 */
	toJSON(): Record<string, unknown> {
		return { name: this.name, code: this.code, kind: this.kind, message: this.message, ...(jsonSafe(errorFieldsOf(this)) as object), ...(this.cause === undefined ? {} : { cause: causeAsJson(this.cause) }) };
	}
}

/** An error's cause in JSON: this package's error as itself, another error as its name, code and message. */
function causeAsJson(cause: unknown): unknown {
	if (cause instanceof Dt64ExportError || !(cause instanceof Error)) return jsonSafe(cause);
	const { code } = cause as NodeJS.ErrnoException;
	return { name: cause.name, ...(code === undefined ? {} : { code: jsonSafe(code) }), message: cause.message };
}

/** A `USAGE` error: an option's value or a combination of options is invalid. */
export class UsageError extends Dt64ExportError {
	constructor(message: string, options: ErrorOptions = {}) {
		super("USAGE", message, options);
		this.name = "UsageError";
	}
}

/** A message on one line: its line breaks, and the spaces around them, become one space. */
export function oneLine(text: string): string {
	return text.trim().replace(/\s*\n\s*/g, " ");
}

export function isDt64ExportError(error: unknown): error is Dt64ExportError {
	return error instanceof Dt64ExportError;
}

/**
 * A Node system error's reason without the suffix libuv appends (`, write`, `, open '/the/path'`): callers say
 * which file or stream failed in their own words, once.
 */
export function systemErrorReason(error: Error): string {
	const { syscall, path, dest } = error as NodeJS.ErrnoException & { dest?: string };
	if (syscall === undefined) return error.message;
	const suffix = `, ${syscall}${path === undefined ? "" : ` '${path}'`}${dest === undefined ? "" : ` -> '${dest}'`}`;
	return error.message.endsWith(suffix) ? error.message.slice(0, -suffix.length) : error.message;
}

/** A failed write, naming its target (`stdout`, or a file) and the reason. */
export function writeFailure(target: string, error: Error): Dt64ExportError {
	return new Dt64ExportError("WRITE_FAILED", `cannot write to ${target}: ${systemErrorReason(error)}`, { path: target, cause: error });
}

const FIELD_NAMES = ["path", "key", "field", "option", "index", "value", "unit", "candidates"] as const;

/** The structured fields an error carries (none for an error that is not a Dt64ExportError). */
export function errorFieldsOf(error: unknown): ErrorFields {
	const fields: Record<string, unknown> = {};
	if (error instanceof Dt64ExportError) for (const name of FIELD_NAMES) if (error[name] !== undefined) fields[name] = error[name];
	return fields;
}

/**
 * `error` with `context` (where it happened) before its message: a Dt64ExportError keeps its code and fields, any
 * other error gets `code`. `fields` add to or replace the inner error's.
 */
export function errorInContext(context: string, error: unknown, code: ErrorCode, fields: ErrorFields = {}): Dt64ExportError {
	const inner = error instanceof Dt64ExportError ? error : undefined;
	const message = error instanceof Error ? error.message : String(error);
	return new Dt64ExportError(inner?.code ?? code, `${context}: ${message}`, { ...errorFieldsOf(error), ...fields, cause: error });
}

/**
 * Gives a Dt64ExportError of one of `codes`, on its way up, the fields the code that raised it could not know and a
 * caller does (the metadata document a pure parser read, the array and store key of a chunk a codec decoded): the
 * same error, its message, cause and stack unchanged. `fill` adds only the fields it does not carry yet; `replace`
 * sets them (a chunk's key and array, over what a store or a decoder said of the bytes they read). Any other error is
 * left alone. Returns `error`, to be thrown again.
 */
export function withErrorFields(error: unknown, codes: readonly ErrorCode[], fields: ErrorFields, how: "fill" | "replace" = "fill"): unknown {
	if (!(error instanceof Dt64ExportError) || !codes.includes(error.code)) return error;
	for (const [name, value] of Object.entries(fields)) {
		if (value !== undefined && (how === "replace" || (error as unknown as Record<string, unknown>)[name] === undefined)) Object.assign(error, { [name]: value });
	}
	return error;
}
