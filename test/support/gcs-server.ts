/**
 * A stand-in for Google Cloud Storage in tests (what STORAGE_EMULATOR_HOST points at): each folder of `root` is a
 * bucket; objects are served at `/<bucket>/<key>` (the XML API's path form) with single ranges, prefixes are
 * listed by the JSON API (`/storage/v1/b/<bucket>/o`, small pages); a private bucket wants `Bearer <token>`. It
 * also answers as a metadata server (`/computeMetadata/v1/...`) for GCE_METADATA_HOST when given a token to hand out.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { bucketKeys, listEntries } from "./bucket-folder.js";
import { objectRead } from "./byte-range.js";
import { sendAnswer, serveOnLoopback } from "./loopback-server.js";

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

export async function startGcsServer(options: GcsServerOptions): Promise<GcsServer> {
	const requests: GcsRequest[] = [];
	const pageSize = options.pageSize ?? 1000;

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const url = new URL(request.url ?? "/", "http://localhost");
		const answer = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
			requests.push({ method: request.method!, path: url.pathname, query: url.searchParams, authorization: request.headers.authorization, range: request.headers.range, status });
			sendAnswer(request, response, status, body, headers);
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
			const entries = listEntries(await bucketKeys(folder), prefix, delimiter);
			const page = entries.slice(start, start + pageSize);
			const body = {
				kind: "storage#objects",
				prefixes: page.filter((entry) => entry.isPrefix).map((entry) => entry.name),
				items: page.filter((entry) => !entry.isPrefix).map(({ name }) => ({ kind: "storage#object", name, bucket })),
				...(start + pageSize < entries.length ? { nextPageToken: String(start + pageSize) } : {}),
			};
			return answer(200, JSON.stringify(body), { "Content-Type": "application/json" });
		}
		const file = path.join(folder, ...rest);
		if (rest.length === 0 || rest.some((part) => part === "." || part === ".." || part === "") || !(await stat(file).catch(() => undefined))?.isFile()) {
			return answer(404, "<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchKey</Code></Error>");
		}
		const read = objectRead(await readFile(file), request.headers.range);
		if (read.status === 416) return answer(416, "<?xml version='1.0' encoding='UTF-8'?><Error><Code>InvalidRange</Code></Error>");
		return answer(read.status, read.body, read.headers);
	}

	const server = await serveOnLoopback(handle);
	return { host: `127.0.0.1:${server.port}`, requests, close: server.close };
}
