/**
 * An http(s) store whose server is hostile (a multi-tenant service exports URLs its users give): redirects to other
 * addresses, headers that must not follow them, redirect loops, answers without end or that inflate, header values
 * that can never be sent. Each is refused at once with one line and a code, never retried, never held whole.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { parseHeaderOption } from "../src/cli/header-options.js";
import { HttpStore, MAX_METADATA_ANSWER_BYTES, MAX_REDIRECTS, type HttpStoreOptions } from "../src/store/http-store.js";
import { tempDir } from "./support/cli.js";
import { rejection } from "./support/thrown.js";
import { serveOnLoopback, type LoopbackServer } from "./support/loopback-server.js";
import { runCliAsync } from "./support/run-cli-async.js";

const FAST: HttpStoreOptions = { backoffMs: 1, timeoutMs: 5000 };
const served = tempDir("dt64-hostile-served-");
const work = tempDir("dt64-hostile-out-");
const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

interface Logged {
	path: string;
	headers: IncomingMessage["headers"];
}

/** A server with a request log; `answer` answers a path, or leaves it to the served folder (undefined). */
async function hostile(answer: (path: string, response: ServerResponse) => boolean): Promise<LoopbackServer & { log: Logged[]; url: string }> {
	const log: Logged[] = [];
	const server = await serveOnLoopback(async (request, response) => {
		const where = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
		log.push({ path: where, headers: request.headers });
		if (answer(where, response)) return;
		// The hostile servers' stores are the served folder's, under a first segment naming how they misbehave.
		const file = path.join(served, where.replace(/^\/(?:bomb|endless)\//, "/"));
		if (!file.startsWith(served) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
			response.writeHead(404).end();
			return;
		}
		const body = fs.readFileSync(file);
		response.writeHead(200, { "Content-Length": String(body.length) }).end(body);
	});
	return Object.assign(server, { log, url: `http://127.0.0.1:${server.port}` });
}

const redirect = (response: ServerResponse, location: string) => response.writeHead(302, { Location: location, "Content-Length": "0" }).end();

let elsewhere: Awaited<ReturnType<typeof hostile>>;
let origin: Awaited<ReturnType<typeof hostile>>;

beforeAll(async () => {
	await writeArray(path.join(served, "ws.zarr"), "", { shape: [4096], chunks: [4096], dataType: seconds, values: BigInt64Array.from({ length: 4096 }, (_, i) => BigInt(i)), codecs: [LE] });
	// Another origin (another port): where a hostile store's server sends its redirects.
	elsewhere = await hostile(() => false);
	origin = await hostile((where, response) => {
		const to = /^\/to-elsewhere(\/.*)$/.exec(where);
		if (to !== null) redirect(response, `${elsewhere.url}${to[1]}`);
		else if (where.startsWith("/same/")) redirect(response, where.slice("/same".length));
		else if (where.startsWith("/loop/")) redirect(response, where);
		else if (where.startsWith("/file/")) redirect(response, "file:///etc/passwd");
		else if (where === "/huge/x.zarr/zarr.json") {
			// A length no metadata document has, and then bytes without end (cut when the client goes).
			response.writeHead(200, { "Content-Length": String(10 * 2 ** 30) });
			response.write(Buffer.alloc(65536, 32));
		} else if (where === "/bomb/ws.zarr/c/0") {
			// 8 MiB of zeros in 8 KiB of gzip, although the request asked for identity: the chunk is 32 KiB decoded.
			const bomb = gzipSync(Buffer.alloc(8 * 2 ** 20));
			response.writeHead(200, { "Content-Encoding": "gzip", "Content-Length": String(bomb.length) }).end(bomb);
		} else if (where === "/endless/ws.zarr/c/0") {
			response.writeHead(200, { "Transfer-Encoding": "chunked" });
			const more = () => {
				if (!response.destroyed) response.write(Buffer.alloc(65536, 7), () => setImmediate(more));
			};
			more();
		} else return false;
		return true;
	});
});

afterAll(async () => {
	await origin.close();
	await elsewhere.close();
});

describe("redirects of an http(s) store", () => {
	it("by default are followed, but the headers given (and credentials in the URL) go to the store's origin only", async () => {
		const headers = { "X-Api-Key": "TENANT-SECRET-123", Authorization: "Bearer TENANT-BEARER-456" };
		const across = new HttpStore(`${origin.url}/to-elsewhere/ws.zarr`, { ...FAST, headers });
		expect(await across.get("/zarr.json")).toBeDefined();
		const there = elsewhere.log.filter((request) => request.path === "/ws.zarr/zarr.json");
		expect(there).toHaveLength(1);
		expect(there[0].headers["x-api-key"]).toBeUndefined();
		expect(there[0].headers.authorization).toBeUndefined();
		// The store's own origin gets them, before and after a redirect there.
		const within = new HttpStore(`http://user:pw@127.0.0.1:${origin.port}/same/ws.zarr`, { ...FAST, headers: { "X-Api-Key": "TENANT-SECRET-123" } });
		origin.log.length = 0;
		expect(await within.get("/zarr.json")).toBeDefined();
		expect(origin.log.map((request) => request.path)).toEqual(["/same/ws.zarr/zarr.json", "/ws.zarr/zarr.json"]);
		for (const request of origin.log) {
			expect(request.headers["x-api-key"]).toBe("TENANT-SECRET-123");
			expect(request.headers.authorization).toBe(`Basic ${Buffer.from("user:pw").toString("base64")}`);
		}
	});

	it('"same-origin" refuses one to another origin at once, naming it; "none" refuses any', async () => {
		elsewhere.log.length = 0;
		origin.log.length = 0;
		const sameOrigin = new HttpStore(`${origin.url}/to-elsewhere/ws.zarr`, { ...FAST, redirects: "same-origin" });
		const refused = await rejection(sameOrigin.get("/zarr.json"));
		expect(refused.code).toBe("READ_FAILED");
		expect(refused.message).toBe(
			`GET ${origin.url}/to-elsewhere/ws.zarr/zarr.json failed: HTTP 302 Found to ${elsewhere.url}/ws.zarr/zarr.json, not followed: \`redirects\` is "same-origin" and it points to another origin than ${origin.url}`,
		);
		expect(origin.log).toHaveLength(1);
		expect(elsewhere.log).toHaveLength(0);
		expect(await new HttpStore(`${origin.url}/same/ws.zarr`, { ...FAST, redirects: "same-origin" }).get("/zarr.json")).toBeDefined();
		const none = await rejection(new HttpStore(`${origin.url}/same/ws.zarr`, { ...FAST, redirects: "none" }).get("/zarr.json"));
		expect(none.message).toMatch(/HTTP 302 Found to .*\/ws\.zarr\/zarr\.json, not followed: `redirects` is "none"$/);
		expect(() => new HttpStore(origin.url, { redirects: "any" as never })).toThrow(/invalid redirects "any": expected "follow", "same-origin", "none"/);
	});

	it("a loop, or one to another scheme, fails at once: not retried as if the network failed", async () => {
		origin.log.length = 0;
		const loop = await rejection(new HttpStore(`${origin.url}/loop/ws.zarr`, FAST).get("/zarr.json"));
		expect(loop.code).toBe("READ_FAILED");
		expect(loop.message).toMatch(new RegExp(`not followed: more than ${MAX_REDIRECTS} redirects \\(a loop\\?\\)$`));
		expect(origin.log).toHaveLength(MAX_REDIRECTS + 1);
		origin.log.length = 0;
		const file = await rejection(new HttpStore(`${origin.url}/file/ws.zarr`, FAST).get("/zarr.json"));
		expect(file.message).toMatch(/HTTP 302 Found to file:\/\/\/etc\/passwd, not followed: only http\(s\) redirects are followed$/);
		expect(origin.log).toHaveLength(1);
	});

	it("--redirects on the CLI: a cross-origin chunk redirect is refused, and nothing reaches the other host", async () => {
		elsewhere.log.length = 0;
		const out = path.join(work, "refused.arrow");
		const result = await runCliAsync([`${origin.url}/to-elsewhere/ws.zarr`, "-o", out, "-q", "--redirects", "same-origin", "--retries", "0"]);
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/not followed: --redirects is "same-origin" and it points to another origin than http:\/\/127\.0\.0\.1:\d+ \[READ_FAILED\]\n$/);
		expect(elsewhere.log).toHaveLength(0);
		expect(fs.existsSync(out)).toBe(false);
	});
});

describe("header values that cannot be sent", () => {
	it("are refused before any request (USAGE), without printing the value", async () => {
		origin.log.length = 0;
		const error = await rejection(
			(async () => new HttpStore(`${origin.url}/ws.zarr`, { ...FAST, headers: { Authorization: "Bearer HDRSECRET2\u0001" } }).get("/zarr.json"))(),
		);
		expect(error.code).toBe("USAGE");
		expect(error.message).not.toContain("HDRSECRET2");
		expect(() => parseHeaderOption("Authorization: Bearer HDRSECRET2\u0001")).toThrow(/^invalid --header "Authorization": the value contains a control character/);
		const result = await runCliAsync([`${origin.url}/ws.zarr`, "-o", path.join(work, "h.arrow"), "--header", "X-Key: a\u007fb"]);
		expect(result.status).toBe(2);
		expect(result.stderr).toMatch(/^dt64-export: invalid --header "X-Key": the value contains a control character.* \[USAGE\]\n$/);
		expect(origin.log).toHaveLength(0);
		// Tab and Latin-1 are header text.
		expect(parseHeaderOption("X-Key: a\tb\u00e9")).toEqual(["X-Key", "a\tb\u00e9"]);
	});
});

describe("answers larger than anything the store reads", () => {
	it("a metadata document whose Content-Length passes the bound is refused at once (TOO_LARGE)", async () => {
		const error = await rejection(new HttpStore(`${origin.url}/huge/x.zarr`, FAST).get("/zarr.json"));
		expect(error.code).toBe("TOO_LARGE");
		expect(error.message).toBe(
			`GET ${origin.url}/huge/x.zarr/zarr.json: its Content-Length is ${10 * 2 ** 30} bytes: a metadata document over ${MAX_METADATA_ANSWER_BYTES / 2 ** 20} MiB is refused (it is JSON read whole)`,
		);
	});

	it.each(["bomb", "endless"])("a chunk answered with more than its largest encoded size (%s) is refused as it arrives, counted after Content-Encoding", async (kind) => {
		const error = await rejection(exportToFile(`${origin.url}/${kind}/ws.zarr`, path.join(work, `${kind}.arrow`), { retries: 3 }));
		expect(error.code).toBe("TOO_LARGE");
		expect(error.message).toMatch(new RegExp(`/${kind}/ws\\.zarr/c/0: over \\d+ bytes arrived: more than the \\d+ bytes its reader can use \\(a chunk's largest encoded size\\) is refused`));
		// Once: a refusal is not retried.
		expect(origin.log.filter((request) => request.path === `/${kind}/ws.zarr/c/0`)).toHaveLength(1);
	});
});
