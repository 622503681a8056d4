/**
 * A small S3-compatible server for tests, written from the AWS documentation ("Signature Version 4 signing
 * process", "ListObjectsV2", "GetObject"): each folder of `root` is a bucket, requests are path-style, and every
 * signed request is verified here with code of its own (it shares nothing with src/store/sigv4.ts), so that a
 * signer that is wrong in the same way on both sides cannot pass. Unsigned requests are served for public
 * buckets only. Listing pages are small on purpose (`pageSize`), so that pagination is exercised.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { bucketKeys, listEntries } from "./bucket-folder.js";
import { objectRead } from "./byte-range.js";
import { sendAnswer, serveOnLoopback } from "./loopback-server.js";

export interface S3User {
	readonly secret: string;
	/** When set, requests must carry it as x-amz-security-token. */
	readonly sessionToken?: string;
	/** The session token has expired: requests are answered 400 ExpiredToken, as S3 does. */
	readonly expired?: boolean;
}

export interface S3Request {
	readonly method: string;
	readonly bucket: string;
	readonly key: string;
	readonly query: URLSearchParams;
	readonly range: string | undefined;
	/** The access key id of a verified signature; undefined for an unsigned request. */
	readonly user: string | undefined;
	readonly status: number;
	/** 1 for the first request with this method, path and query, 2 for the next (a retry)... */
	readonly attempt: number;
}

export interface S3ServerOptions {
	readonly root: string;
	readonly users: Readonly<Record<string, S3User>>;
	readonly publicBuckets?: readonly string[];
	/**
	 * Buckets whose callers may read objects but not list them (no s3:ListBucket: a GetObject-only role, a public
	 * bucket whose policy grants reading objects only): a key that does not exist is answered 403 AccessDenied, not
	 * 404 NoSuchKey, as AWS answers it ("GetObject", Permissions), and ListObjectsV2 is refused.
	 */
	readonly unlistableBuckets?: readonly string[];
	readonly region?: string;
	/** Keys and common prefixes per ListObjectsV2 page (S3's own is 1000). */
	readonly pageSize?: number;
	/**
	 * Answer this request otherwise; sees the request before it is served (and before its signature is checked). A
	 * status alone is an error document (503 SlowDown, others InternalError); an S3Fault says what to send.
	 */
	readonly fault?: (request: { method: string; bucket: string; key: string; query: URLSearchParams; attempt: number }) => number | S3Fault | undefined;
}

/** An injected answer: an error document of this code and message, or this body, with these headers. */
export interface S3Fault {
	readonly status: number;
	readonly code?: string;
	readonly message?: string;
	/** Sent as is instead of an error document. */
	readonly body?: string;
	readonly headers?: Record<string, string>;
}

export interface S3Server {
	readonly url: string;
	readonly requests: S3Request[];
	close(): Promise<void>;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** RFC 3986 encoding byte by byte, as the signing documentation describes it. */
function uriEncode(text: string, keepSlash: boolean): string {
	let out = "";
	for (const byte of Buffer.from(text, "utf8")) {
		const char = String.fromCharCode(byte);
		if (UNRESERVED.test(char) || (keepSlash && char === "/")) out += char;
		else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
	}
	return out;
}

function sha256(data: string): string {
	return createHash("sha256").update(data).digest("hex");
}

function hmac(key: Buffer | string, data: string): Buffer {
	return createHmac("sha256", key).update(data).digest();
}

function errorXml(code: string, message: string): string {
	return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>test</RequestId></Error>`;
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** Why the request's signature is not valid, or its user when it is. */
function verify(request: IncomingMessage, rawPath: string, rawQuery: string, users: Readonly<Record<string, S3User>>, region: string): { user: string } | { status: number; code: string } {
	const authorization = request.headers.authorization ?? "";
	const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
	if (match === null) return { status: 400, code: "AuthorizationHeaderMalformed" };
	const [, keyId, day, scopeRegion, signedHeaders, signature] = match;
	const user = users[keyId];
	if (user === undefined) return { status: 403, code: "InvalidAccessKeyId" };
	if (scopeRegion !== region) return { status: 400, code: "AuthorizationHeaderMalformed" };
	const names = signedHeaders.split(";");
	for (const required of ["host", "x-amz-date", "x-amz-content-sha256"]) if (!names.includes(required)) return { status: 403, code: "AccessDenied" };
	for (const name of Object.keys(request.headers)) if (name.startsWith("x-amz-") && !names.includes(name)) return { status: 403, code: "AccessDenied" };
	const date = String(request.headers["x-amz-date"]);
	const when = Date.UTC(+date.slice(0, 4), +date.slice(4, 6) - 1, +date.slice(6, 8), +date.slice(9, 11), +date.slice(11, 13), +date.slice(13, 15));
	if (!/^\d{8}T\d{6}Z$/.test(date) || date.slice(0, 8) !== day || Math.abs(Date.now() - when) > 15 * 60_000) return { status: 403, code: "RequestTimeTooSkewed" };
	const canonicalPath = rawPath
		.split("/")
		.map((segment) => uriEncode(decodeURIComponent(segment), false))
		.join("/");
	const query = rawQuery === "" ? [] : rawQuery.split("&").map((pair) => {
		const equals = pair.indexOf("=");
		const [name, value] = equals === -1 ? [pair, ""] : [pair.slice(0, equals), pair.slice(equals + 1)];
		return `${uriEncode(decodeURIComponent(name), false)}=${uriEncode(decodeURIComponent(value), false)}`;
	});
	query.sort();
	const headerLines = names.map((name) => `${name}:${String(request.headers[name] ?? "").trim().replace(/ +/g, " ")}\n`).join("");
	const canonical = `${request.method}\n${canonicalPath}\n${query.join("&")}\n${headerLines}\n${signedHeaders}\n${String(request.headers["x-amz-content-sha256"])}`;
	const scope = `${day}/${scopeRegion}/s3/aws4_request`;
	const toSign = `AWS4-HMAC-SHA256\n${date}\n${scope}\n${sha256(canonical)}`;
	let key = hmac(`AWS4${user.secret}`, day);
	for (const part of [scopeRegion, "s3", "aws4_request"]) key = hmac(key, part);
	const expected = Buffer.from(createHmac("sha256", key).update(toSign).digest("hex"));
	if (!timingSafeEqual(expected, Buffer.from(signature))) return { status: 403, code: "SignatureDoesNotMatch" };
	if (user.sessionToken !== undefined) {
		if (request.headers["x-amz-security-token"] !== user.sessionToken) return { status: 400, code: "InvalidToken" };
		if (user.expired) return { status: 400, code: "ExpiredToken" };
	}
	return { user: keyId };
}

async function listObjects(bucketFolder: string, query: URLSearchParams, pageSize: number): Promise<string> {
	const prefix = query.get("prefix") ?? "";
	const delimiter = query.get("delimiter") ?? "";
	const after = query.has("continuation-token") ? Buffer.from(query.get("continuation-token")!, "base64").toString("utf8") : "";
	const ordered = listEntries(await bucketKeys(bucketFolder), prefix, delimiter).filter(({ name }) => name > after);
	const page = ordered.slice(0, pageSize);
	const truncated = ordered.length > pageSize;
	const body = [
		`<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`,
		`<Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${pageSize}</MaxKeys><IsTruncated>${truncated}</IsTruncated>`,
		...page.map(({ name, isPrefix }) => (isPrefix ? `<CommonPrefixes><Prefix>${escapeXml(name)}</Prefix></CommonPrefixes>` : `<Contents><Key>${escapeXml(name)}</Key></Contents>`)),
		truncated ? `<NextContinuationToken>${Buffer.from(page[page.length - 1].name).toString("base64")}</NextContinuationToken>` : "",
		"</ListBucketResult>",
	];
	return body.join("");
}

export async function startS3Server(options: S3ServerOptions): Promise<S3Server> {
	const region = options.region ?? "us-east-1";
	const requests: S3Request[] = [];
	const attempts = new Map<string, number>();
	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const raw = request.url ?? "/";
		const question = raw.indexOf("?");
		const rawPath = question === -1 ? raw : raw.slice(0, question);
		const rawQuery = question === -1 ? "" : raw.slice(question + 1);
		const query = new URLSearchParams(rawQuery);
		const [, bucket = "", ...rest] = rawPath.split("/").map((segment) => decodeURIComponent(segment));
		const key = rest.join("/");
		const id = `${request.method} ${raw}`;
		const attempt = (attempts.get(id) ?? 0) + 1;
		attempts.set(id, attempt);
		let user: string | undefined;
		const answer = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
			requests.push({ method: request.method!, bucket, key, query, range: request.headers.range, user, status, attempt });
			sendAnswer(request, response, status, body, headers);
		};
		const fail = (status: number, code: string) => answer(status, request.method === "HEAD" ? "" : errorXml(code, code), { "Content-Type": "application/xml" });

		const injected = options.fault?.({ method: request.method!, bucket, key, query, attempt });
		if (typeof injected === "number") return fail(injected, injected === 503 ? "SlowDown" : "InternalError");
		if (injected !== undefined) {
			const code = injected.code ?? "InternalError";
			const body = injected.body ?? errorXml(code, escapeXml(injected.message ?? code));
			return answer(injected.status, request.method === "HEAD" ? "" : body, { "Content-Type": "application/xml", ...injected.headers });
		}
		if (request.headers.authorization !== undefined) {
			const verdict = verify(request, rawPath, rawQuery, options.users, region);
			if ("code" in verdict) return fail(verdict.status, verdict.code);
			user = verdict.user;
		}
		const bucketFolder = path.join(options.root, bucket);
		const isBucket = bucket !== "" && !bucket.startsWith(".") && (await stat(bucketFolder).catch(() => undefined))?.isDirectory();
		if (!isBucket) return fail(404, "NoSuchBucket");
		if (user === undefined && !(options.publicBuckets ?? []).includes(bucket)) return fail(403, "AccessDenied");
		if (request.method !== "GET" && request.method !== "HEAD") return fail(405, "MethodNotAllowed");
		const unlistable = (options.unlistableBuckets ?? []).includes(bucket);
		if (key === "" && query.get("list-type") === "2") {
			if (unlistable) return fail(403, "AccessDenied");
			return answer(200, await listObjects(bucketFolder, query, options.pageSize ?? 1000), { "Content-Type": "application/xml" });
		}
		const file = path.join(bucketFolder, ...key.split("/"));
		if (key === "" || key.split("/").some((part) => part === ".." || part === ".") || !(await stat(file).catch(() => undefined))?.isFile()) {
			return unlistable ? fail(403, "AccessDenied") : fail(404, "NoSuchKey");
		}
		const read = objectRead(await readFile(file), request.headers.range);
		return read.status === 416 ? fail(416, "InvalidRange") : answer(read.status, read.body, read.headers);
	}

	const server = await serveOnLoopback(handle, (error) => errorXml("InternalError", error.message));
	return { url: `http://127.0.0.1:${server.port}`, requests, close: server.close };
}
