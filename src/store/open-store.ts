import { startsAsNetcdf } from "./netcdf-signature.js";
import { checkGlobalFetch } from "../runtime-support.js";
import { absolutePath } from "../absolute-path.js";
import { envOriginOf } from "./env-origin.js";
import { proxiesOf } from "./proxy-fetch.js";
import * as fs from "node:fs";
import type { AbsolutePath, AsyncReadable } from "./readable.js";
import { throwIfAborted } from "../abort.js";
import { Dt64ExportError, systemErrorReason, UsageError } from "../errors.js";
import { BufferPool } from "../memory/buffer-pool.js";
import { DirectoryStore } from "./directory-store.js";
import { checkStoreLocation, localStorePath } from "./store-location.js";
import type { BucketStore } from "./bucket-store.js";
import { parseBucketUrl, type BucketUrl } from "./bucket-url.js";
import { openAzureStore, parseAbfsUrl } from "./azure-store.js";
import { openGcsStore } from "./gcs-store.js";
import { HttpStore, redactUrl, type RedirectPolicy } from "./http-store.js";
import { HttpZipReader } from "./http-zip-reader.js";
import { ForbiddenChunks } from "./forbidden-chunks.js";
import { MetadataDocuments } from "./metadata-documents.js";
import { startsAsZip } from "./zip-signature.js";
import { PastEndOfZip, ZipFileBytes } from "./zip-file-bytes.js";
import { ZipStore, type ZipBytes } from "./zip-store.js";
import { readCentralDirectory } from "./zip-central-directory.js";
import type { ZipIndex } from "./zip-index.js";
import type { ListPrefix } from "./prefix-listing.js";
import { openS3Store } from "./s3-store.js";

export interface OpenedStore {
	readonly store: AsyncReadable;
	readonly kind: "directory" | "zip" | "http" | BucketStore["kind"];
	/** Read over HTTP (an http store, or a zip read by ranges): reads wait on latency, not on local disks and CPUs. */
	readonly remote: boolean;
	/** Lists an object store's prefixes (s3://, gs://, az://), the way its groups are found without consolidated metadata. */
	readonly list?: ListPrefix;
	/** The local folder, when the store is one: it is listed by walking it (see store-tree.ts). */
	readonly directory?: string;
	/**
	 * The names of a zip store's node documents (`zarr.json`, `.zarray`, `.zgroup`; local or remote), the other kind
	 * that can be listed: by them (store-tree.ts), as a folder is by its files. Its other entries are in its index.
	 */
	readonly entries?: readonly string[];
	/** The zip's single top folder that holds the store (`zip -r store.zip store.zarr`): paths start inside it. */
	readonly zipFolder?: string;
	readonly location: string;
	/**
	 * Present when chunks of this store answered 403 AccessDenied are read as missing (OpenStoreOptions.forbiddenAsMissing,
	 * s3:// only): the chunks so read, counted for the export's summary.
	 */
	readonly forbiddenAsMissing?: ForbiddenChunks;
	/** What it was opened under (OpenStoreOptions.signal): the reads that open its arrays and tables go with it. */
	readonly signal?: AbortSignal;
	/** Its metadata documents, each read once while the export that opened it opens its arrays (see metadata-documents.ts). */
	readonly documents: MetadataDocuments;
}

export interface OpenStoreOptions {
	/** Sent with every HTTP request (auth); never printed. */
	headers?: Record<string, string> | undefined;
	/** Retries of a failed HTTP request (429, 5xx, resets, timeouts). */
	retries?: number | undefined;
	/**
	 * How long an HTTP request may wait for the server's next bytes (its response, then each piece of the body) before
	 * the attempt counts as failed and is retried; default 30 000 ms. Never a limit on the whole download.
	 */
	timeoutMs?: number | undefined;
	/**
	 * Which redirects an http(s):// store follows: `"follow"` (default) any, `"same-origin"` only to the store URL's
	 * origin, `"none"` none (HttpStoreOptions.redirects). Object stores follow none whatever this says. `headers` go
	 * to the store URL's origin only.
	 */
	redirects?: RedirectPolicy | undefined;
	/**
	 * False sends object store requests without credentials (the AWS CLI's `--no-sign-request`): public buckets.
	 * Default true: credentials from the environment, as each cloud's own tools find them.
	 */
	signRequests?: boolean | undefined;
	/**
	 * Where credentials, regions and endpoints are looked up, as variables of these names (`AWS_ACCESS_KEY_ID`...):
	 * per-call credentials; default `process.env`. Messages then say the credentials came from the env option. The
	 * HTTP proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, see proxy-fetch.ts) are read there too.
	 */
	env?: NodeJS.ProcessEnv | undefined;
	/**
	 * s3:// only: a chunk answered 403 AccessDenied is a missing chunk (the fill value), as a 404 is. S3 answers so for
	 * a key that does not exist when the caller may not list the bucket (no s3:ListBucket), so a sparse array is read
	 * whole; but a chunk refused for another reason reads as the fill value too. Default false: such a 403 is an
	 * error (ACCESS_DENIED) that says so. Google Cloud Storage and Azure answer 404 for a missing object.
	 */
	forbiddenAsMissing?: boolean | undefined;
	/**
	 * A local folder only: a symbolic link in the store (a chunk file, a metadata document, a folder of them) that
	 * leads out of the store's folder is followed. Default false: reading one is READ_FAILED naming the key, so that a
	 * store a user uploaded (an extracted tar or zip keeps its links) cannot export another file the process may read.
	 * For a store whose files are links into a cache elsewhere (git-annex, DVC). Links inside the store are followed.
	 */
	followLinksOutside?: boolean | undefined;
	/**
	 * Cuts short the requests of opening (metadata probes, consolidated metadata, listings, a zip's central directory,
	 * the values read to open a CF time array): an abort rejects the opening with Node's AbortError at once, the
	 * request in flight cancelled. A zip read over HTTP (its reader takes no signal per read) reads under it as long
	 * as it is open.
	 */
	signal?: AbortSignal | undefined;
}

/** The store options of the package's own stages: a caller's (OpenStoreOptions) and the pipeline's `bufferPool`. */
export interface StoreSettings extends OpenStoreOptions {
	/**
	 * Buffers for chunks (see BufferPool): a folder store reads whole chunk files into them, and decompressors of
	 * arrays opened with these options inflate into them. Only for exports whose output hands written buffers back.
	 */
	bufferPool?: BufferPool | undefined;
}

type OpenBucket = typeof openS3Store;

const OBJECT_STORES: Readonly<Record<string, OpenBucket>> = { s3: openS3Store, gs: openGcsStore, az: openAzureStore };

/** The bucket (container) and prefix of an object store URL, and how to open a prefix of that bucket. */
function objectStoreOf(scheme: string, location: string): { url: BucketUrl; open: OpenBucket } | undefined {
	if (scheme === "abfs" || scheme === "abfss") {
		// The account is in the URL's host: every prefix of it opens on that account.
		const { url, account } = parseAbfsUrl(location);
		return { url, open: (prefix, options) => openAzureStore(prefix, options, account) };
	}
	const open = OBJECT_STORES[scheme];
	return open === undefined ? undefined : { url: parseBucketUrl(location), open };
}

/** Opens a store from what a user types: a folder, a `.zip` file, an http(s) URL, or an s3://, gs://, az:// or abfs:// URL. */
export async function openStore(location: string, options: StoreSettings = {}): Promise<OpenedStore> {
	checkStoreLocation(location);
	const { signal } = options;
	if (signal !== undefined && !(signal instanceof AbortSignal)) throw new UsageError("invalid signal: an AbortSignal", { option: "signal" });
	// Only the package's own stages give a pool (StoreSettings): from a caller it was a TypeError at the first chunk read.
	if (options.bufferPool !== undefined && !(options.bufferPool instanceof BufferPool)) throw new UsageError("bufferPool is internal to dt64-export's own stages: leave it out", { option: "bufferPool" });
	throwIfAborted(signal);
	location = localStorePath(location) ?? location;
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) checkGlobalFetch(redactUrl(location));
	if (/^https?:\/\//i.test(location)) {
		if (/\.zip(?:$|[?#])/i.test(location)) {
			const reader = httpZipReader(location, options);
			return openZip(reader, reader.shownAs, true, signal);
		}
		const store = new HttpStore(location, { headers: options.headers, retries: options.retries, timeoutMs: options.timeoutMs, redirects: options.redirects, fetch: proxiesOf(options.env ?? process.env)?.fetch });
		return { store, kind: "http", remote: true, location: redactUrl(location), signal, documents: new MetadataDocuments(store, signal) };
	}
	const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1].toLowerCase();
	if (scheme !== undefined) {
		const objectStore = objectStoreOf(scheme, location);
		if (objectStore === undefined) throw new UsageError(`unsupported store URL scheme "${scheme}://": expected s3://, gs://, az://, abfs://, http:// or https://`);
		const { url, open } = objectStore;
		const env = options.env ?? process.env;
		const storeOptions = { headers: options.headers, retries: options.retries, timeoutMs: options.timeoutMs, fetch: proxiesOf(env)?.fetch, signRequests: options.signRequests ?? true, env, envOrigin: envOriginOf(options.env), signal };
		if (/\.zip$/i.test(url.prefix)) {
			// A zip object is read by ranges from the store of its folder.
			const name = url.prefix.split("/").pop()!;
			const folder = await open({ ...url, prefix: url.prefix.slice(0, -name.length).replace(/\/$/, "") }, storeOptions);
			const reader = new HttpZipReader(folder.store, `/${name}` as AbsolutePath, `${folder.location}/${name}`, signal);
			return openZip(reader, reader.shownAs, true, signal);
		}
		const bucket = await open(url, storeOptions);
		const forbiddenAsMissing = bucket.kind === "s3" && options.forbiddenAsMissing === true ? new ForbiddenChunks() : undefined;
		return { store: bucket.store, kind: bucket.kind, remote: true, list: bucket.list, location: bucket.location, forbiddenAsMissing, signal, documents: new MetadataDocuments(bucket.store, signal) };
	}
	// Resolved once, now: the files are opened at this absolute path whatever the working folder becomes meanwhile (a
	// program embedding the library may `process.chdir`); messages name the location as given.
	const absolute = absolutePath(location);
	let stat: fs.Stats;
	try {
		stat = await fs.promises.stat(absolute);
	} catch {
		throw new Dt64ExportError("STORE_NOT_FOUND", `store not found: ${location}`, { path: location });
	}
	if (stat.isDirectory()) {
		const store = new DirectoryStore(location, options.bufferPool, options.followLinksOutside === true, absolute);
		return { store, kind: "directory", remote: false, directory: absolute, location, signal, documents: new MetadataDocuments(store, signal, options.bufferPool) };
	}
	// A zip is known by its name, or by its first bytes (a zip named store.bin, a link without the extension).
	if (stat.isFile() && (/\.zip$/i.test(location) || (await sniffZip(absolute)))) {
		return openZip(new ZipFileBytes(absolute), location, false, signal);
	}
	if (stat.isFile() && (await startsAsNetcdf(absolute))) {
		throw new Dt64ExportError("STORE_INVALID", `not a Zarr store: ${location} is a netCDF (or HDF5) file; xarray converts one to a Zarr store: xr.open_dataset(file).to_zarr(store)`, { path: location });
	}
	const what = stat.isFile() ? "a file that is not a zip file either" : "neither a folder nor a file";
	throw new Dt64ExportError("STORE_INVALID", `not a Zarr store: ${location} is ${what} (expected a folder, a zip file or an http(s):// URL)`, { path: location });
}

/** Whether a file not named .zip is one; a file that cannot be read is READ_FAILED, saying why (permission denied). */
async function sniffZip(file: string): Promise<boolean> {
	try {
		return await startsAsZip(file);
	} catch (error) {
		throw new Dt64ExportError("READ_FAILED", `cannot read ${file}: ${systemErrorReason(error as Error)}`, { path: file, cause: error });
	}
}

/** The documents a zip is listed by: a node's (v3, v2 array, v2 group). */
const ZIP_LISTING_DOCUMENTS = ["zarr.json", ".zarray", ".zgroup"];

/** The documents that make a folder a Zarr node (v3, v2 array, v2 group) or a store with consolidated metadata. */
const NODE_DOCUMENTS = ["zarr.json", ".zarray", ".zgroup", ".zmetadata"];

/**
 * A zip made with `zip -r store.zip store.zarr` holds everything under one folder; zarr-python's ZipStore puts
 * the store at the top. Both are read: a single top folder holding a node's document (with none at the top) is
 * removed.
 */
function stripTopFolder(entries: ZipIndex): { entries: ZipIndex; folder?: string } {
	if (NODE_DOCUMENTS.some((name) => entries.has(name))) return { entries };
	let top: string | undefined;
	for (const name of entries.names()) {
		top ??= name.split("/")[0];
		if (!name.startsWith(`${top}/`)) return { entries };
	}
	if (top === undefined || !NODE_DOCUMENTS.some((name) => entries.has(`${top}/${name}`))) return { entries };
	return { entries: entries.renamed((name) => (name.length === top.length + 1 ? undefined : name.slice(top.length + 1))), folder: top };
}

/** A zip file at an http(s) URL, read by ranges through the HTTP store of its folder (query string kept). */
function httpZipReader(location: string, options: OpenStoreOptions): HttpZipReader {
	let url: URL;
	try {
		url = new URL(location);
	} catch {
		throw new UsageError("invalid store URL: expected an absolute http:// or https:// URL");
	}
	const name = url.pathname.split("/").pop() ?? "";
	if (name === "") throw new UsageError(`${redactUrl(url)}: the URL of a zip store must name a file`);
	const folder = new URL(url.href);
	folder.pathname = url.pathname.slice(0, url.pathname.length - name.length);
	const store = new HttpStore(folder, { headers: options.headers, retries: options.retries, timeoutMs: options.timeoutMs, redirects: options.redirects, fetch: proxiesOf(options.env ?? process.env)?.fetch });
	return new HttpZipReader(store, `/${decodeURIComponent(name)}` as AbsolutePath, redactUrl(url), options.signal);
}

/**
 * Opens a zip store: its central directory read now, into a compact index (zip-central-directory.ts), so that a
 * file that is not a zip fails here with one clear line, then its entries read by this package's ZipStore (one read
 * per entry, reads coalesced).
 */
async function openZip(bytes: ZipBytes, location: string, remote: boolean, signal: AbortSignal | undefined): Promise<OpenedStore> {
	let store: ZipStore;
	let zipFolder: string | undefined;
	try {
		const length = await bytes.getLength();
		const stripped = stripTopFolder(await readCentralDirectory(bytes, length, location, signal));
		zipFolder = stripped.folder;
		store = new ZipStore(bytes, stripped.entries, location, length);
	} catch (error) {
		// Cut short, the central directory says nothing about the file.
		throwIfAborted(signal);
		if (error instanceof Dt64ExportError) throw error;
		const why = error instanceof PastEndOfZip ? `its central directory points at ${error.message}` : (error as Error).message;
		throw new Dt64ExportError("STORE_INVALID", `${location}: not a readable zip file (${why})`, { path: location, cause: error });
	}
	// Its nodes' documents, which list it (store-tree.ts): not every chunk's name, which the index holds compactly.
	const documents: string[] = [];
	for (const name of store.entries.names()) if (ZIP_LISTING_DOCUMENTS.some((file) => name === file || name.endsWith(`/${file}`))) documents.push(name);
	return { store, kind: "zip", remote, entries: documents, ...(zipFolder === undefined ? {} : { zipFolder }), location, signal, documents: new MetadataDocuments(store, signal) };
}
