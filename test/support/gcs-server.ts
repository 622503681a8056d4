/**
 * A stand-in for Google Cloud Storage in tests (what STORAGE_EMULATOR_HOST points at): each folder of `root` is a
 * bucket; objects are served at `/<bucket>/<key>` (the XML API's path form) with single ranges, prefixes are
 * listed by the JSON API (`/storage/v1/b/<bucket>/o`, small pages); a private bucket wants `Bearer <token>`. It
 * also answers as a metadata server (`/computeMetadata/v1/...`) for GCE_METADATA_HOST when given a token to hand out.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { readdir, readFile, stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";

export interface GcsServerOptions {
	readonly root: string;
	/** Buckets readable only with this bearer token. */
	readonly privateBuckets?: Readonly<Record<string, string>>;
	readonly pageSize?: number;
	/** The token the metadata endpoint hands out; without it, that endpoint is a 404. */
	readonly metadataToken?: string;
}

export interface GcsRequest {
	readonly method: string;
	readonly path: string;
	readonly query: URLSearchParams;
	readonly authorization: string | undefined;
	readonly range: string | undefined;
	readonly status: number;
}

export interface GcsServer {
	/** host:port, the form STORAGE_EMULATOR_HOST and GCE_METADATA_HOST take. */
	readonly host: string;
	readonly requests: GcsRequest[];
	close(): Promise<void>;
}

async function allKeys(folder: string, prefix = ""): Promise<string[]> {
	const keys: string[] = [];
	for (const entry of await readdir(folder, { withFileTypes: true })) {
		if (entry.isDirectory()) keys.push(...(await allKeys(path.join(folder, entry.name), `${prefix}${entry.name}/`)));
		else keys.push(`${prefix}${entry.name}`);
	}
	return keys.sort();
}

export async function startGcsServer(options: GcsServerOptions): Promise<GcsServer> {
	const requests: GcsRequest[] = [];
	const pageSize = options.pageSize ?? 1000;

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const url = new URL(request.url ?? "/", "http://localhost");
		const answer = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
			requests.push({ method: request.method!, path: url.pathname, query: url.searchParams, authorization: request.headers.authorization, range: request.headers.range, status });
			response.writeHead(status, { "Content-Length": String(Buffer.byteLength(body)), ...headers });
			response.end(request.method === "HEAD" ? undefined : body);
		};
		const error = (status: number, reason: string) => answer(status, JSON.stringify({ error: { code: status, message: reason, errors: [{ reason }] } }), { "Content-Type": "application/json" });

		if (url.pathname === "/computeMetadata/v1/instance/service-accounts/default/token") {
			if (options.metadataToken === undefined || request.headers["metadata-flavor"] !== "Google") return error(404, "notFound");
			return answer(200, JSON.stringify({ access_token: options.metadataToken, expires_in: 3599, token_type: "Bearer" }), { "Metadata-Flavor": "Google" });
		}
		const listing = /^\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
		const [bucket, ...rest] = (listing === null ? url.pathname.slice(1).split("/") : [listing[1]]).map(decodeURIComponent);
		const folder = path.join(options.root, bucket);
		if (bucket === "" || bucket.startsWith(".") || !(await stat(folder).catch(() => undefined))?.isDirectory()) {
			// The XML API (objects by path) names the missing bucket; the JSON API (listing) says notFound.
			return listing === null ? answer(404, "<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist.</Message></Error>") : error(404, "notFound");
		}
		const token = options.privateBuckets?.[bucket];
		if (token !== undefined && request.headers.authorization !== `Bearer ${token}`) return error(request.headers.authorization === undefined ? 401 : 403, "forbidden");
		if (listing !== null) {
			const prefix = url.searchParams.get("prefix") ?? "";
			const delimiter = url.searchParams.get("delimiter") ?? "";
			const start = Number(url.searchParams.get("pageToken") ?? "0");
			const entries: [string, boolean][] = [];
			for (const key of await allKeys(folder)) {
				if (!key.startsWith(prefix)) continue;
				const cut = delimiter === "" ? -1 : key.indexOf(delimiter, prefix.length);
				const name = cut === -1 ? key : key.slice(0, cut + 1);
				if (!entries.some(([seen]) => seen === name)) entries.push([name, cut !== -1]);
			}
			const page = entries.slice(start, start + pageSize);
			const body = {
				kind: "storage#objects",
				prefixes: page.filter(([, isPrefix]) => isPrefix).map(([name]) => name),
				items: page.filter(([, isPrefix]) => !isPrefix).map(([name]) => ({ kind: "storage#object", name, bucket })),
				...(start + pageSize < entries.length ? { nextPageToken: String(start + pageSize) } : {}),
			};
			return answer(200, JSON.stringify(body), { "Content-Type": "application/json" });
		}
		const file = path.join(folder, ...rest);
		if (rest.length === 0 || rest.some((part) => part === "." || part === ".." || part === "") || !(await stat(file).catch(() => undefined))?.isFile()) {
			return answer(404, "<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchKey</Code></Error>");
		}
		const bytes = await readFile(file);
		const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? "");
		if (range === null) return answer(200, bytes);
		const [first, last] = range[1] === "" ? [Math.max(0, bytes.length - Number(range[2])), bytes.length - 1] : [Number(range[1]), range[2] === "" ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1)];
		return answer(206, bytes.subarray(first, last + 1), { "Content-Range": `bytes ${first}-${last}/${bytes.length}` });
	}

	const server = createServer((request, response) => {
		void handle(request, response).catch((failure: Error) => {
			response.statusCode = 500;
			response.end(failure.message);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		host: `127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
