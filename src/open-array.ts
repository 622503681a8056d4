import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { AbsolutePath } from "@zarrita/storage";
import { Dt64ExportError, UsageError } from "./errors.js";
import { openStore, type OpenedStore, type OpenStoreOptions } from "./store/open-store.js";
import { isTimeArray, parseNodeJson, parseTimeArrayMetadata, type NodeMetadata, type TimeArrayMetadata } from "./zarr/array-metadata.js";
import { createChunkSource, type ChunkSource } from "./zarr/chunk-source.js";

/** An array ready to export: its validated metadata, and where its decoded chunks come from. */
export interface TimeArray {
	readonly store: OpenedStore;
	readonly metadata: TimeArrayMetadata;
	readonly chunks: ChunkSource;
	/** The default column name: the last path segment, `.zarr` dropped. */
	readonly name: string;
}

export interface OpenArrayOptions extends OpenStoreOptions {
	/** Path of the array inside the store; found automatically when the store holds exactly one datetime64. */
	array?: string;
}

/** Normalizes `--array`: a relative path of plain segments that cannot leave the store. */
export function normalizeArrayPath(input: string): string {
	let decoded: string;
	try {
		decoded = decodeURIComponent(input);
	} catch {
		throw new UsageError(`--array ${JSON.stringify(input)}: not a valid path`);
	}
	if (decoded.includes("\\") || decoded.includes("\0") || path.posix.isAbsolute(decoded) || /^[A-Za-z]:/.test(decoded)) {
		throw new UsageError(`--array ${JSON.stringify(input)}: must be a relative path inside the store`);
	}
	const segments = decoded.split("/").filter((segment) => segment !== "" && segment !== ".");
	if (segments.some((segment) => segment === "..")) {
		throw new UsageError(`--array ${JSON.stringify(input)}: must not leave the store (no "..")`);
	}
	return segments.join("/");
}

async function readNode(opened: OpenedStore, nodePath: string): Promise<NodeMetadata | undefined> {
	const key = `/${nodePath ? `${nodePath}/` : ""}zarr.json` as AbsolutePath;
	const where = `${opened.location}${nodePath ? `/${nodePath}` : ""}/zarr.json`;
	let bytes: Uint8Array | undefined;
	try {
		bytes = await opened.store.get(key);
	} catch (error) {
		throw new Dt64ExportError(`${where}: cannot read: ${(error as Error).message}`, { kind: "io" });
	}
	if (bytes === undefined) return undefined;
	return parseNodeJson(new TextDecoder().decode(bytes), nodePath, where);
}

/** The paths of all datetime64 arrays below a local folder store. */
async function findTimeArrays(opened: OpenedStore, root: string): Promise<string[]> {
	const found: string[] = [];
	const walk = async (relative: string): Promise<void> => {
		const entries = await fs.readdir(path.join(opened.directory!, relative), { withFileTypes: true });
		for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
			if (!entry.isDirectory()) continue;
			const child = relative ? `${relative}/${entry.name}` : entry.name;
			const node = await readNode(opened, child).catch(() => undefined);
			if (node === undefined) continue;
			if (node.kind === "group") await walk(child);
			else if (isTimeArray(node)) found.push(child);
		}
	};
	await walk(root);
	return found;
}

export function columnNameFor(storeLocation: string, arrayPath: string): string {
	const source = arrayPath || storeLocation.replace(/[?#].*$/, "");
	const last = source.split(/[\\/]/).filter((part) => part.length > 0).pop() ?? "time";
	return last.replace(/\.zarr(?:\.zip)?$/i, "").replace(/\.zip$/i, "") || "time";
}

export async function openTimeArray(location: string, options: OpenArrayOptions = {}): Promise<TimeArray> {
	const opened = await openStore(location, options);
	let arrayPath = options.array === undefined ? "" : normalizeArrayPath(options.array);
	let node = await readNode(opened, arrayPath);
	if (node === undefined) {
		throw new Dt64ExportError(`${location}${arrayPath ? `/${arrayPath}` : ""}: no zarr.json (not a Zarr v3 array or group)`);
	}
	if (node.kind === "group") {
		if (opened.directory === undefined) {
			throw new UsageError(`${location}${arrayPath ? `/${arrayPath}` : ""} is a group: name the array with --array`);
		}
		const candidates = await findTimeArrays(opened, arrayPath);
		if (candidates.length === 0) throw new Dt64ExportError(`${location}: the group holds no numpy.datetime64 array`);
		if (candidates.length > 1) {
			throw new UsageError(`${location}: the group holds several datetime64 arrays, choose one with --array: ${candidates.join(", ")}`);
		}
		arrayPath = candidates[0];
		node = (await readNode(opened, arrayPath))!;
	}
	const where = `${location}${arrayPath ? `/${arrayPath}` : ""}/zarr.json`;
	const metadata = parseTimeArrayMetadata(node, where);
	return { store: opened, metadata, chunks: createChunkSource(opened.store, metadata, where), name: columnNameFor(location, arrayPath) };
}
