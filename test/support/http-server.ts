/**
 * A real HTTP server for store tests: serves a folder with single-range support, and lets a test inject the
 * failures a remote bucket produces (status codes, stalls, resets, truncated bodies) per request. It records
 * every request so tests can assert on what was sent and on how requests overlapped, never on wall time.
 */
import { createServer, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { readFile, stat } from "node:fs/promises";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import path from "node:path";
import { parseByteRange } from "./byte-range.js";

/** What the fault hook sees of a request. */
export interface FaultRequest {
	method: string;
	/** The decoded URL path, without the query string. */
	path: string;
	query: string;
	range: string | undefined;
	headers: IncomingHttpHeaders;
	/** 1 for the first request with this method and path, 2 for the next (a retry), and so on. */
	attempt: number;
}

/** Applied in this order: delay, then reset, then status, then the (possibly truncated or full) file. */
export interface Fault {
	/** Wait for this first (a gate the test opens once a condition holds: requests in flight, say), then for delayMs. */
	gate?: Promise<void>;
	/** Wait this long before answering. */
	delayMs?: number;
	/** Reset the TCP connection (RST) instead of answering. */
	resetConnection?: boolean;
	/** Answer with this status and an empty body instead of the file. */
	status?: number;
	/** Extra response headers, e.g. `Retry-After`. */
	headers?: Record<string, string>;
	/** Announce the full Content-Length, send half of the body, then close the connection. */
	truncateBody?: boolean;
	/** Answer a range request with 200 and the whole file, as some servers do. */
	ignoreRange?: boolean;
	/** Send the body one byte (or `trickleBytes`) every this many milliseconds (a server answering slowly), until the client goes. */
	trickleMs?: number;
	/** With `trickleMs`: the bytes sent each time. */
	trickleBytes?: number;
	/** Send this many bytes of the body, then nothing more (a stalled server), until the client goes. */
	stallAfterBytes?: number;
}

export interface RequestRecord extends FaultRequest {
	/** `performance.now()` when the request arrived and when its response ended or its connection closed. */
	start: number;
	end: number | undefined;
	/** The status sent, or undefined when the connection was reset before any answer. */
	status: number | undefined;
}

export interface ServerOptions {
	faults?: (request: FaultRequest) => Fault | undefined;
}

export interface TestServer {
	/** Base URL without a trailing slash, e.g. `http://127.0.0.1:43210`. */
	url: string;
	requests: RequestRecord[];
	/** The most requests that were ever in flight at once. */
	readonly maxInFlight: number;
	readonly inFlight: number;
	/** Forget the request log, attempt counts and the in-flight maximum. */
	reset(): void;
	close(): Promise<void>;
}

async function readServedFile(root: string, urlPath: string): Promise<Buffer | undefined> {
	const file = path.resolve(root, `.${urlPath}`);
	if (file !== root && !file.startsWith(root + path.sep)) return undefined;
	try {
		if (!(await stat(file)).isFile()) return undefined;
		return await readFile(file);
	} catch {
		return undefined;
	}
}

function sleep(ms: number, request: IncomingMessage): Promise<void> {
	return new Promise((resolve) => {
		// A client that gives up (timeout, abort) closes the socket; stop waiting for it.
		const closed = () => {
			clearTimeout(timer);
			resolve();
		};
		// A keep-alive socket carries many requests: each delay takes its listener off again, or they pile up on it.
		const timer = setTimeout(() => {
			request.socket.off("close", closed);
			resolve();
		}, ms);
		request.socket.once("close", closed);
	});
}

export async function startServer(root: string, options: ServerOptions = {}): Promise<TestServer> {
	const rootDir = path.resolve(root);
	const requests: RequestRecord[] = [];
	const attempts = new Map<string, number>();
	const sockets = new Set<Socket>();
	let inFlight = 0;
	let maxInFlight = 0;

	async function handle(req: IncomingMessage, res: ServerResponse, record: RequestRecord): Promise<void> {
		const fault = options.faults?.({ ...record });
		if (fault?.gate !== undefined) await fault.gate;
		if (req.socket.destroyed) return;
		if (fault?.delayMs !== undefined) await sleep(fault.delayMs, req);
		if (req.socket.destroyed) return;
		if (fault?.resetConnection) {
			req.socket.resetAndDestroy();
			return;
		}
		for (const [name, value] of Object.entries(fault?.headers ?? {})) res.setHeader(name, value);
		if (fault?.status !== undefined) {
			record.status = fault.status;
			res.writeHead(fault.status, STATUS_CODES[fault.status]);
			res.end();
			return;
		}
		if (record.method !== "GET" && record.method !== "HEAD") {
			record.status = 405;
			res.writeHead(405, { Allow: "GET, HEAD" }).end();
			return;
		}
		const body = await readServedFile(rootDir, record.path);
		if (body === undefined) {
			record.status = 404;
			res.writeHead(404).end();
			return;
		}
		res.setHeader("Accept-Ranges", "bytes");
		const range = fault?.ignoreRange ? undefined : parseByteRange(record.range, body.length);
		if (range === "unsatisfiable") {
			record.status = 416;
			res.writeHead(416, { "Content-Range": `bytes */${body.length}` }).end();
			return;
		}
		const part = range === undefined ? body : body.subarray(range.start, range.end + 1);
		record.status = range === undefined ? 200 : 206;
		res.writeHead(record.status, {
			"Content-Type": "application/octet-stream",
			"Content-Length": String(part.length),
			...(range === undefined ? {} : { "Content-Range": `bytes ${range.start}-${range.end}/${body.length}` }),
		});
		if (record.method === "HEAD") {
			res.end();
		} else if (fault?.truncateBody) {
			res.write(part.subarray(0, Math.floor(part.length / 2)), () => req.socket.destroy());
		} else if (fault?.stallAfterBytes !== undefined) {
			res.write(part.subarray(0, fault.stallAfterBytes));
		} else if (fault?.trickleMs !== undefined) {
			const step = fault.trickleBytes ?? 1;
			for (let offset = 0; offset < part.length; offset += step) {
				if (offset > 0) await sleep(fault.trickleMs, req);
				if (req.socket.destroyed) return;
				res.write(part.subarray(offset, offset + step));
			}
			res.end();
		} else {
			res.end(part);
		}
	}

	const server = createServer((req, res) => {
		const url = new URL(req.url ?? "/", "http://localhost");
		let decodedPath: string;
		try {
			decodedPath = decodeURIComponent(url.pathname);
		} catch {
			decodedPath = url.pathname;
		}
		const method = req.method ?? "GET";
		const attemptKey = `${method} ${decodedPath}`;
		const attempt = (attempts.get(attemptKey) ?? 0) + 1;
		attempts.set(attemptKey, attempt);
		const record: RequestRecord = {
			method,
			path: decodedPath,
			query: url.search,
			range: req.headers.range,
			headers: req.headers,
			attempt,
			start: performance.now(),
			end: undefined,
			status: undefined,
		};
		requests.push(record);
		inFlight += 1;
		maxInFlight = Math.max(maxInFlight, inFlight);
		res.once("close", () => {
			inFlight -= 1;
			record.end = performance.now();
		});
		handle(req, res, record).catch((error: unknown) => {
			res.destroy(error instanceof Error ? error : new Error(String(error)));
		});
	});
	server.on("connection", (socket) => {
		sockets.add(socket);
		socket.once("close", () => sockets.delete(socket));
	});

	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => resolve());
	});
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		get maxInFlight() {
			return maxInFlight;
		},
		get inFlight() {
			return inFlight;
		},
		reset() {
			requests.length = 0;
			attempts.clear();
			maxInFlight = inFlight;
		},
		close() {
			return new Promise<void>((resolve, reject) => {
				server.close((error) => (error ? reject(error) : resolve()));
				// Keep-alive connections from fetch would hold close() open.
				for (const socket of sockets) socket.destroy();
			});
		},
	};
}

/**
 * The most of `requests` that were in flight at once, from their arrival and end times: the server's own maximum
 * counts every request (a store's metadata probes, sent together, too), this one only those a test looks at.
 */
export function mostInFlight(requests: readonly RequestRecord[]): number {
	// At equal times an end comes before a start: a request that starts as another ends does not overlap it.
	const events = requests.flatMap((request) => [
		{ at: request.start, step: 1 },
		{ at: request.end ?? Infinity, step: -1 },
	]);
	events.sort((a, b) => a.at - b.at || a.step - b.step);
	let inFlight = 0;
	let most = 0;
	for (const { step } of events) most = Math.max(most, (inFlight += step));
	return most;
}
