import ZipFileStore from "@zarrita/storage/zip";
import type { AbsolutePath } from "@zarrita/storage";
import { Dt64ExportError, UsageError } from "../errors.js";
import { HttpStore, redactUrl } from "./http-store.js";

type ZipReader = ConstructorParameters<typeof ZipFileStore>[0];

export interface HttpZipReaderOptions {
	headers?: Record<string, string>;
	retries?: number;
}

/**
 * The bytes of a remote .zip file for unzipit, read by HTTP Range through `HttpStore`, so that a zip store gets
 * the same retries, header handling and redacted messages as a folder store over HTTP. (@zarrita/storage's own
 * reader does not retry, and its errors print the URL with its query string.)
 */
export class HttpZipReader implements ZipReader {
	readonly #url: URL;
	readonly #file: HttpStore;
	readonly #key: AbsolutePath;
	readonly #headers: Record<string, string>;
	readonly #retries: number;
	#length: Promise<number> | undefined;

	constructor(url: string, options: HttpZipReaderOptions = {}) {
		let parsed: URL;
		try {
			parsed = new URL(url);
		} catch {
			throw new UsageError("invalid store URL: expected an absolute http:// or https:// URL");
		}
		const name = parsed.pathname.split("/").pop() ?? "";
		if (name === "") throw new UsageError(`${redactUrl(parsed)}: the URL of a zip store must name a file`);
		this.#url = parsed;
		// The store's base is the folder of the file, with the query (a signed URL's token) kept for every request.
		const folder = new URL(parsed.href);
		folder.pathname = parsed.pathname.slice(0, parsed.pathname.length - name.length);
		this.#file = new HttpStore(folder, { headers: options.headers, retries: options.retries });
		this.#key = `/${decodeURIComponent(name)}` as AbsolutePath;
		this.#headers = options.headers ?? {};
		this.#retries = options.retries ?? 3;
	}

	getLength(): Promise<number> {
		this.#length ??= this.#size();
		return this.#length;
	}

	async read(offset: number, length: number): Promise<Uint8Array<ArrayBuffer>> {
		if (length === 0) return new Uint8Array(0);
		const bytes = await this.#file.getRange(this.#key, { offset, length });
		if (bytes === undefined) throw new Dt64ExportError("READ_FAILED", `${redactUrl(this.#url)}: not found (HTTP 404)`);
		if (bytes.length !== length) {
			throw new Dt64ExportError("READ_FAILED", `${redactUrl(this.#url)}: got ${bytes.length} bytes at offset ${offset}, expected ${length}`);
		}
		return new Uint8Array(bytes);
	}

	/**
	 * The file's size, from the Content-Range of a one-byte GET: unzipit reads the central directory from the end.
	 * Not HEAD: a presigned URL is signed for one method, and some servers answer HEAD differently.
	 */
	async #size(): Promise<number> {
		const url = new URL(this.#url.href);
		const headers = new Headers(this.#headers);
		if ((url.username !== "" || url.password !== "") && !headers.has("authorization")) {
			headers.set("Authorization", `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`);
		}
		url.username = "";
		url.password = "";
		url.hash = "";
		headers.set("Range", "bytes=0-0");
		const what = `GET ${redactUrl(url)} (bytes=0-0)`;
		const attempts = this.#retries + 1;
		let reason = "";
		for (let attempt = 1; attempt <= attempts; attempt++) {
			if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(5000, 200 * 2 ** (attempt - 2))));
			let response: Response;
			try {
				response = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
			} catch (error) {
				// fetch's own message can repeat the URL, query string included.
				reason = (error as Error).name === "TimeoutError" ? "timed out" : "network error";
				continue;
			}
			await response.body?.cancel();
			if (response.status === 404) throw new Dt64ExportError("STORE_NOT_FOUND", `store not found: ${redactUrl(url)} (HTTP 404)`, { path: redactUrl(url) });
			if (response.status === 408 || response.status === 429 || response.status >= 500) {
				reason = `HTTP ${response.status}`;
				continue;
			}
			if (response.status !== 200 && response.status !== 206) throw new Dt64ExportError("READ_FAILED", `${what} failed: HTTP ${response.status}`);
			const total = /\/(\d+)$/.exec(response.headers.get("content-range") ?? "")?.[1];
			const length = Number(response.status === 206 ? (total ?? Number.NaN) : (response.headers.get("content-length") ?? Number.NaN));
			if (!Number.isSafeInteger(length) || length < 0) {
				throw new Dt64ExportError("READ_FAILED", `${what}: the server did not send the file's size, which reading a zip by ranges needs`);
			}
			return length;
		}
		throw new Dt64ExportError("READ_FAILED", `${what} failed after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${reason}`);
	}
}
