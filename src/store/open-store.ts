import * as fs from "node:fs";
import type { AsyncReadable } from "@zarrita/storage";
import ZipFileStore from "@zarrita/storage/zip";
import { Dt64ExportError } from "../errors.js";
import { DirectoryStore } from "./directory-store.js";
import { HttpStore, redactUrl } from "./http-store.js";

export interface OpenedStore {
	readonly store: AsyncReadable;
	readonly kind: "directory" | "zip" | "http";
	/** The local folder, when the store is one: the only kind that can be listed for `--array` discovery. */
	readonly directory?: string;
	readonly location: string;
}

export interface OpenStoreOptions {
	/** Sent with every HTTP request (auth); never printed. */
	headers?: Record<string, string>;
	/** Retries of a failed HTTP request (429, 5xx, resets, timeouts). */
	retries?: number;
}

/** Opens a store from what a user types: a folder, a `.zip` file, or an http(s) URL. */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<OpenedStore> {
	if (/^https?:\/\//i.test(location)) {
		const overrides = options.headers ? { headers: options.headers } : undefined;
		if (/\.zip(?:$|[?#])/i.test(location)) {
			return { store: ZipFileStore.fromUrl(location, { overrides }) as AsyncReadable, kind: "zip", location };
		}
		return { store: new HttpStore(location, { headers: options.headers, retries: options.retries }), kind: "http", location: redactUrl(location) };
	}
	let stat: fs.Stats;
	try {
		stat = await fs.promises.stat(location);
	} catch {
		throw new Dt64ExportError(`store not found: ${location}`, { kind: "io" });
	}
	if (stat.isDirectory()) return { store: new DirectoryStore(location), kind: "directory", directory: location, location };
	if (stat.isFile() && /\.zip$/i.test(location)) {
		const blob = await fs.openAsBlob(location);
		return { store: ZipFileStore.fromBlob(blob) as AsyncReadable, kind: "zip", location };
	}
	throw new Dt64ExportError(`not a Zarr store: ${location} (expected a folder, a .zip file or an http(s):// URL)`);
}
