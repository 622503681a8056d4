import * as fs from "node:fs";
import type { AsyncReadable } from "@zarrita/storage";
import ZipFileStore from "@zarrita/storage/zip";
import { Dt64ExportError } from "../errors.js";
import type { BufferPool } from "./buffer-pool.js";
import { DirectoryStore } from "./directory-store.js";
import { HttpStore, redactUrl } from "./http-store.js";
import { HttpZipReader } from "./http-zip-reader.js";

type ZipEntries = NonNullable<NonNullable<ConstructorParameters<typeof ZipFileStore>[1]>["transformEntries"]> extends (
	entries: infer E,
) => unknown
	? E
	: never;

export interface OpenedStore {
	readonly store: AsyncReadable;
	readonly kind: "directory" | "zip" | "http";
	/** Read over HTTP (an http store, or a zip read by ranges): reads wait on latency, not on local disks and CPUs. */
	readonly remote: boolean;
	/** The local folder, when the store is one: it is listed by walking it (see store-tree.ts). */
	readonly directory?: string;
	/** The file names of a zip store (local or remote), the other kind that can be listed. */
	readonly entries?: readonly string[];
	readonly location: string;
}

export interface OpenStoreOptions {
	/** Sent with every HTTP request (auth); never printed. */
	headers?: Record<string, string>;
	/** Retries of a failed HTTP request (429, 5xx, resets, timeouts). */
	retries?: number;
	/**
	 * Buffers for chunks (see BufferPool): a folder store reads whole chunk files into them, and decompressors of
	 * arrays opened with these options inflate into them. Only for exports whose output hands written buffers back.
	 */
	bufferPool?: BufferPool;
}

/** Opens a store from what a user types: a folder, a `.zip` file, or an http(s) URL. */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<OpenedStore> {
	if (/^https?:\/\//i.test(location)) {
		if (/\.zip(?:$|[?#])/i.test(location)) {
			const reader = new HttpZipReader(location, { headers: options.headers, retries: options.retries });
			return openZip((transformEntries) => new ZipFileStore(reader, { transformEntries }), redactUrl(location), true);
		}
		return { store: new HttpStore(location, { headers: options.headers, retries: options.retries }), kind: "http", remote: true, location: redactUrl(location) };
	}
	let stat: fs.Stats;
	try {
		stat = await fs.promises.stat(location);
	} catch {
		throw new Dt64ExportError("STORE_NOT_FOUND", `store not found: ${location}`, { path: location });
	}
	if (stat.isDirectory()) return { store: new DirectoryStore(location, options.bufferPool), kind: "directory", remote: false, directory: location, location };
	if (stat.isFile() && /\.zip$/i.test(location)) {
		const blob = await fs.openAsBlob(location);
		return openZip((transformEntries) => ZipFileStore.fromBlob(blob, { transformEntries }), location, false);
	}
	throw new Dt64ExportError("STORE_INVALID", `not a Zarr store: ${location} (expected a folder, a .zip file or an http(s):// URL)`, { path: location });
}

/**
 * A zip made with `zip -r store.zip store.zarr` holds everything under one folder; zarr-python's ZipStore puts
 * the store at the top. Both are read: a single top folder holding a zarr.json (with none at the top) is removed.
 */
function stripTopFolder(entries: ZipEntries): ZipEntries {
	if ("zarr.json" in entries || ".zmetadata" in entries) return entries;
	const names = Object.keys(entries);
	const top = names[0]?.split("/")[0];
	if (top === undefined || !names.every((name) => name.startsWith(`${top}/`)) || !(`${top}/zarr.json` in entries || `${top}/.zmetadata` in entries)) {
		return entries;
	}
	const stripped: ZipEntries = {};
	for (const name of names) {
		const inner = name.slice(top.length + 1);
		if (inner !== "") stripped[inner] = entries[name];
	}
	return stripped;
}

async function openZip(create: (transformEntries: (entries: ZipEntries) => ZipEntries) => ZipFileStore, location: string, remote: boolean): Promise<OpenedStore> {
	let names: string[] = [];
	const zip = create((entries) => {
		const stripped = stripTopFolder(entries);
		names = Object.keys(stripped).filter((name) => !name.endsWith("/"));
		return stripped;
	});
	try {
		// Reads the central directory now, so that a file that is not a zip fails here with one clear line.
		await zip.has("/zarr.json");
	} catch (error) {
		if (error instanceof Dt64ExportError) throw error;
		throw new Dt64ExportError("STORE_INVALID", `${location}: not a readable zip file (${(error as Error).message})`, { path: location, cause: error });
	}
	return { store: zip as AsyncReadable, kind: "zip", remote, entries: names, location };
}
