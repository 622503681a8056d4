/**
 * Starts the decode threads while the CLI's modules load, when the command line exports a local store whose
 * chunks they will decode. A thread takes 40-50 ms to start (its isolate, the decoders compiled), and the CLI about
 * 65 ms to load before it parses the command line and opens the store: started from the bin script, before the
 * CLI is imported, the thread is created 60-90 ms after the process instead of 130-195, and is ready when the first
 * chunk is read (measured on 2 cores, alternated x9-15: v3 zstd 0.73 -> 0.71 s, sharded zstd 0.72 -> 0.70, 3-D zstd
 * in chunk order 1.09 -> 1.04).
 *
 * Only a guess from the arguments and the metadata files, made before the command line is parsed: the export
 * decides again when it opens its arrays (codecs/bounded-wasm.ts), and a guess either way costs no more than the
 * thread's start. So it only starts threads for what it can see for sure: a local folder holding a Zarr array (or a
 * group with the arrays named by --array or --columns) whose codecs include zstd, lz4 or blosc and which is not a
 * small array nor one of small chunks (decoded on the calling thread, see small-array.ts). Any doubt (a URL, a zip file, metadata it cannot
 * read, a data type it does not know, another command, --help) starts nothing. This module imports no more than
 * the decode threads need, so that the bin script loads it in a few milliseconds.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { warmDecodeThreads } from "../zarr/codecs/off-thread.js";
import { decodesHere } from "../zarr/small-array.js";

/** The metadata names of the codecs decoded on the decode threads (see codecs/codec-map.ts). */
export const THREAD_CODEC_NAMES: ReadonlySet<string> = new Set(["zstd", "numcodecs.zstd", "lz4", "numcodecs.lz4", "blosc", "numcodecs.blosc"]);

/** Arguments after which nothing is exported. */
const NOT_AN_EXPORT = new Set(["inspect", "commit", "completion", "--help", "--version", "--get-yargs-completions"]);

/** Whether an argument asks for help or the version: `--help`, `--help=true`, `-h`, or `-h` among short flags (`-qh`). */
function notAnExport(arg: string): boolean {
	return NOT_AN_EXPORT.has(arg) || /^--(?:help|version)=/.test(arg) || /^-[a-zA-Z]*h[a-zA-Z]*$/.test(arg);
}

/** Starts the decode threads now when `argv` (the arguments after the script's name) exports what they decode. */
export function startDecodeThreadsEarly(argv: readonly string[]): void {
	if (!exportDecodesOnThreads(argv)) return;
	try {
		warmDecodeThreads();
	} catch {
		// A decoder file that is missing (PACKAGE_FILE_MISSING): the export refuses the array when it opens it, and
		// the CLI reports that as any other error, not as a stack trace from before it started.
	}
}

/** Whether `argv` exports, from a local store, an array whose chunks decode on the decode threads (see above). */
export function exportDecodesOnThreads(argv: readonly string[]): boolean {
	if (argv.some(notAnExport) || outputRefused(argv)) return false;
	// The store: the first argument that is a local folder with Zarr metadata (an option's value is none).
	for (const store of argv) {
		if (store.startsWith("-") || store.includes("://")) continue;
		const root = readNode(store);
		if (root !== undefined) return root.kind === "array" ? decodesOnThreads(root.metadata) : groupDecodesOnThreads(argv, store);
	}
	return false;
}

/** Whether the arrays of the group at `store` that `argv` names (--array, --columns) decode on the threads. */
function groupDecodesOnThreads(argv: readonly string[], store: string): boolean {
	const columns = optionValues(argv, "columns");
	// "all" as the whole value, as the CLI reads it (in a list, it is a column's name).
	if (columns.some((list) => list.trim() === "all")) return childFolders(store).some(arrayOnThreads);
	const names = [...optionValues(argv, "array"), ...columns.flatMap((list) => list.split(","))].map((name) => name.trim()).filter((name) => name !== "");
	return names.some((name) => arrayOnThreads(path.join(store, name)));
}

/**
 * Whether the export will be refused before it reads anything (checkFileOutput): `-o` names a regular file that
 * exists, and no `--force` (nor `-f` among short flags) is given (OUTPUT_EXISTS), or a folder, force or not, and no
 * option writes a dataset there (OUTPUT_INVALID). No thread is then started for it.
 */
function outputRefused(argv: readonly string[]): boolean {
	const forced = argv.some((arg) => arg === "--force" || arg.startsWith("--force=") || /^-[a-zA-Z]*f[a-zA-Z]*$/.test(arg));
	const dataset = DATASET_OPTIONS.some((name) => argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`)));
	const outputs = [...optionValues(argv, "output"), ...argv.flatMap((arg, at) => (arg === "-o" && at + 1 < argv.length ? [argv[at + 1]] : arg.startsWith("-o=") ? [arg.slice(3)] : []))];
	return outputs.some((output) => {
		try {
			const existing = output === "-" ? undefined : fs.statSync(output, { throwIfNoEntry: false });
			return (!forced && existing?.isFile() === true) || (!dataset && existing?.isDirectory() === true);
		} catch {
			return false;
		}
	});
}

/** The options that write `-o` as a dataset folder (one of them names the folder's output; see the README's options). */
const DATASET_OPTIONS = ["partition-by", "part", "parts", "max-rows-per-file"];

/** Whether `folder` holds an array whose chunks decode on the decode threads. */
function arrayOnThreads(folder: string): boolean {
	const node = readNode(folder);
	return node?.kind === "array" && decodesOnThreads(node.metadata);
}

/** The values given to `--name`, as `--name value` or `--name=value`. */
function optionValues(argv: readonly string[], name: string): string[] {
	const values: string[] = [];
	argv.forEach((arg, at) => {
		if (arg === `--${name}` && at + 1 < argv.length) values.push(argv[at + 1]);
		else if (arg.startsWith(`--${name}=`)) values.push(arg.slice(name.length + 3));
	});
	return values;
}

function childFolders(folder: string): string[] {
	try {
		return fs
			.readdirSync(folder, { withFileTypes: true })
			.filter((entry) => entry.isDirectory())
			.map((entry) => path.join(folder, entry.name));
	} catch {
		return [];
	}
}

type ZarrNode = { kind: "array"; metadata: Record<string, unknown> } | { kind: "group" };

/** The node at `folder` from its metadata file (v3 zarr.json, v2 .zarray or .zgroup); undefined when unreadable. */
function readNode(folder: string): ZarrNode | undefined {
	const v3 = readJson(path.join(folder, "zarr.json"));
	if (v3 !== undefined) {
		if (v3.node_type === "array") return { kind: "array", metadata: v3 };
		return v3.node_type === "group" ? { kind: "group" } : undefined;
	}
	const v2 = readJson(path.join(folder, ".zarray"));
	if (v2 !== undefined) return { kind: "array", metadata: v2 };
	return readJson(path.join(folder, ".zgroup")) === undefined ? undefined : { kind: "group" };
}

/** The largest metadata document read to guess ahead (an array's zarr.json is a few KiB). */
const PEEKED_DOCUMENT_MAX_BYTES = 1 << 20;

function readJson(file: string): Record<string, unknown> | undefined {
	try {
		// A regular file only: reading a FIFO would block here, before the CLI could say anything. A large one is left
		// to the export, which refuses one too large (MAX_METADATA_BYTES) before reading it: a guess is not worth it.
		const stats = fs.statSync(file, { throwIfNoEntry: false });
		if (stats === undefined || !stats.isFile() || stats.size > PEEKED_DOCUMENT_MAX_BYTES) return undefined;
		const value: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
		return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
	} catch {
		return undefined;
	}
}

/** Whether an array's metadata (v3 or v2) names a codec of the decode threads and its values are not small. */
function decodesOnThreads(metadata: Record<string, unknown>): boolean {
	const shape = metadata.shape;
	if (!Array.isArray(shape) || !shape.every((size) => Number.isSafeInteger(size) && size >= 0)) return false;
	const valueBytes = valueBytesOf(metadata.data_type ?? metadata.dtype);
	if (valueBytes === undefined || decodesHere(shape as number[], valueBytes, readChunkShape(metadata))) return false;
	return namesCodec(metadata.codecs) || namesCodec(metadata.compressor) || namesCodec(metadata.filters);
}

/**
 * The shape of the chunks an array is read in (v2 `chunks`, v3 `chunk_grid`, a shard's inner chunks), or undefined
 * when the metadata does not say it plainly.
 */
function readChunkShape(metadata: Record<string, unknown>): number[] | undefined {
	const grid = metadata.chunk_grid as { configuration?: { chunk_shape?: unknown } } | undefined;
	const sharding = Array.isArray(metadata.codecs) ? (metadata.codecs as { name?: unknown; configuration?: { chunk_shape?: unknown } }[]).find((codec) => codec?.name === "sharding_indexed") : undefined;
	const shape = sharding?.configuration?.chunk_shape ?? grid?.configuration?.chunk_shape ?? metadata.chunks;
	return Array.isArray(shape) && shape.every((size) => Number.isSafeInteger(size) && size > 0) ? (shape as number[]) : undefined;
}

/** Whether a codec list or codec (sharding's inner codecs included) names one of THREAD_CODEC_NAMES. */
function namesCodec(value: unknown): boolean {
	if (Array.isArray(value)) return value.some(namesCodec);
	if (typeof value !== "object" || value === null) return false;
	const codec = value as Record<string, unknown>;
	const name = codec.name ?? codec.id;
	if (typeof name === "string" && THREAD_CODEC_NAMES.has(name)) return true;
	const configuration = codec.configuration as Record<string, unknown> | undefined;
	return namesCodec(configuration?.codecs) || namesCodec(configuration?.index_codecs);
}

/**
 * The bytes of one value of a v3 data type or a v2 dtype, "variable" for strings and objects of any length, or
 * undefined for what this guess does not know (the export then starts its threads itself, if any).
 */
export function valueBytesOf(dataType: unknown): number | "variable" | undefined {
	const name = typeof dataType === "object" && dataType !== null ? (dataType as { name?: unknown }).name : dataType;
	if (typeof name !== "string") return undefined;
	if (name === "bool") return 1;
	if (name === "numpy.datetime64" || name === "numpy.timedelta64") return 8;
	if (name === "string" || name === "variable_length_utf8" || name === "|O") return "variable";
	const v3 = /^(?:u?int(8|16|32|64)|float(16|32|64)|complex(64|128))$/.exec(name);
	if (v3 !== null) return Number(v3[1] ?? v3[2] ?? v3[3]) / 8;
	const v2 = /^[<>|=]([biufcmM])(\d+)(?:\[\w+\])?$/.exec(name);
	return v2 === null ? undefined : Number(v2[2]);
}
