import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dt64ExportError, UsageError } from "../src/errors.js";
import { parseHeaderOption } from "../src/cli/header-options.js";
import { HttpStore, redactUrl, WholeObjectTooLarge, type HttpStoreOptions, type RetryInfo } from "../src/store/http-store.js";
import { startServer } from "./support/http-server.js";
import { serveFolder } from "./support/served-folder.js";

const SECRET = "Bearer SECRET123";
const CHUNK = Uint8Array.from({ length: 256 }, (_, i) => i);
const FAST: HttpStoreOptions = { backoffMs: 1, timeoutMs: 2000 };

let root: string;

beforeAll(async () => {
	root = await mkdtemp(path.join(tmpdir(), "dt64-http-"));
	await mkdir(path.join(root, "data.zarr", "c"), { recursive: true });
	await mkdir(path.join(root, "data.zarr", "odd name"), { recursive: true });
	await writeFile(path.join(root, "data.zarr", "zarr.json"), '{"zarr_format":3}');
	await writeFile(path.join(root, "data.zarr", "c", "0"), CHUNK);
	await writeFile(path.join(root, "data.zarr", "odd name", "ü#?.bin"), "odd");
	await writeFile(path.join(root, "secret.txt"), "outside the store");
});
const http = serveFolder(() => root);

afterAll(async () => {
	await rm(root, { recursive: true, force: true });
});

function store(options: HttpStoreOptions = {}, base = `${http.server.url}/data.zarr`): HttpStore {
	return new HttpStore(base, { ...FAST, ...options });
}

async function failure(promise: Promise<unknown>): Promise<Dt64ExportError> {
	const error = await promise.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(Dt64ExportError);
	return error as Dt64ExportError;
}

describe("HttpStore reads", () => {
	it("gets an existing key under the base path", async () => {
		const bytes = await store().get("/c/0");
		expect(bytes).toEqual(CHUNK);
		expect(http.server.requests.map((r) => [r.method, r.path, r.range])).toEqual([["GET", "/data.zarr/c/0", undefined]]);
	});

	it("joins the same way with a trailing slash on the base", async () => {
		expect(await store({}, `${http.server.url}/data.zarr/`).get("/zarr.json")).toEqual(
			new TextEncoder().encode('{"zarr_format":3}'),
		);
		expect(http.server.requests[0].path).toBe("/data.zarr/zarr.json");
	});

	it("returns undefined for a 404 without retrying", async () => {
		const retries: RetryInfo[] = [];
		expect(await store({ onRetry: (info) => retries.push(info) }).get("/c/9")).toBeUndefined();
		expect(http.server.requests).toHaveLength(1);
		expect(retries).toEqual([]);
	});

	it("percent-encodes each key segment", async () => {
		expect(new TextDecoder().decode(await store().get("/odd name/ü#?.bin"))).toBe("odd");
		expect(http.server.requests[0].path).toBe("/data.zarr/odd name/ü#?.bin");
	});

	it("refuses keys that would leave the store", async () => {
		await expect(store().get("/../secret.txt")).rejects.toBeInstanceOf(UsageError);
		await expect(store().get("/c/./0")).rejects.toBeInstanceOf(UsageError);
		expect(http.server.requests).toHaveLength(0);
	});

	it("reads a byte range by offset and length", async () => {
		expect(await store().getRange("/c/0", { offset: 10, length: 5 })).toEqual(CHUNK.subarray(10, 15));
		expect(http.server.requests[0].range).toBe("bytes=10-14");
		expect(http.server.requests[0].status).toBe(206);
	});

	it("reads a suffix", async () => {
		expect(await store().getRange("/c/0", { suffixLength: 16 })).toEqual(CHUNK.subarray(240));
		expect(http.server.requests[0].range).toBe("bytes=-16");
	});

	it("returns undefined for a range of a missing key", async () => {
		expect(await store().getRange("/c/9", { offset: 0, length: 4 })).toBeUndefined();
		expect(await store().getRange("/c/9", { suffixLength: 4 })).toBeUndefined();
	});

	it("cuts the range out of a 200 from a server that ignores Range", async () => {
		http.fault = () => ({ ignoreRange: true });
		expect(await store().getRange("/c/0", { offset: 100, length: 3 })).toEqual(Uint8Array.of(100, 101, 102));
		expect(await store().getRange("/c/0", { suffixLength: 2 })).toEqual(Uint8Array.of(254, 255));
		expect(http.server.requests.map((r) => r.status)).toEqual([200, 200]);
	});

	it("cuts the range out of a 206 that covers more than asked, and refuses one that starts later", async () => {
		let start = 0;
		const fakeFetch: typeof fetch = async () =>
			new Response(CHUNK.subarray(start), {
				status: 206,
				headers: { "Content-Range": `bytes ${start}-255/256`, "Content-Length": String(256 - start) },
			});
		const retries: RetryInfo[] = [];
		const s = new HttpStore("https://bucket.example/data.zarr", { ...FAST, fetch: fakeFetch, onRetry: (i) => retries.push(i) });
		start = 8;
		expect(await s.getRange("/c/0", { offset: 10, length: 2 })).toEqual(Uint8Array.of(10, 11));
		start = 12;
		const error = await failure(s.getRange("/c/0", { offset: 10, length: 2 }));
		expect(error.message).toBe(
			"GET https://bucket.example/data.zarr/c/0 (bytes=10-11) failed: the server sent bytes from 12, after the requested offset 10",
		);
		expect(retries).toEqual([]);
	});

	it("says a 206 to a request for the whole object is one, naming its Content-Range (trial 26: 06; it said 'failed: HTTP 206 Partial Content')", async () => {
		const fakeFetch: typeof fetch = async () => new Response(CHUNK.subarray(0, 10), { status: 206, headers: { "Content-Range": "bytes 0-9/256", "Content-Length": "10" } });
		const retries: RetryInfo[] = [];
		const s = new HttpStore("https://bucket.example/data.zarr", { ...FAST, fetch: fakeFetch, onRetry: (i) => retries.push(i) });
		const error = await failure(s.get("/c/0"));
		expect(error.message).toBe("GET https://bucket.example/data.zarr/c/0 failed: HTTP 206 Partial Content (Content-Range bytes 0-9/256) to a request for the whole object, which asked for no range");
		expect(retries).toEqual([]);
	});

	it("falls back to a full GET when a suffix longer than the object gets 416", async () => {
		http.fault = (request) => (request.range?.startsWith("bytes=-") ? { status: 416 } : undefined);
		expect(await store().getRange("/c/0", { suffixLength: 1000 })).toEqual(CHUNK);
		expect(http.server.requests.map((r) => [r.range, r.status])).toEqual([
			["bytes=-1000", 416],
			[undefined, 200],
		]);
	});

	it("sends the configured headers and asks for an unencoded body", async () => {
		const s = store({ headers: { Authorization: SECRET, "X-Api-Key": "k" } });
		await s.get("/c/0");
		await s.getRange("/c/0", { offset: 0, length: 1 });
		for (const { headers } of http.server.requests) {
			expect(headers.authorization).toBe(SECRET);
			expect(headers["x-api-key"]).toBe("k");
			expect(headers["accept-encoding"]).toBe("identity");
		}
		expect(http.server.requests).toHaveLength(2);
	});

	it("keeps the base URL's query string on every request and redacts it in errors", async () => {
		const base = `${http.server.url}/data.zarr?sig=TOKEN42&se=2030`;
		const s = store({ retries: 0 }, base);
		await s.get("/zarr.json");
		await s.getRange("/c/0", { offset: 1, length: 1 });
		expect(http.server.requests.map((r) => r.query)).toEqual(["?sig=TOKEN42&se=2030", "?sig=TOKEN42&se=2030"]);

		http.fault = () => ({ status: 500 });
		const error = await failure(s.get("/c/0"));
		expect(error.message).toBe(`GET ${http.server.url}/data.zarr/c/0?… failed after 1 attempt: HTTP 500 Internal Server Error`);
		expect(redactUrl(base)).toBe(`${http.server.url}/data.zarr?…`);
	});

	it("sends URL credentials as Basic auth instead of in the URL", async () => {
		const base = new URL(`${http.server.url}/data.zarr`);
		base.username = "user";
		base.password = "p@ss";
		const s = store({}, base.href);
		expect(s.url).toBe(`${http.server.url}/data.zarr`);
		await s.get("/zarr.json");
		expect(http.server.requests[0].headers.authorization).toBe(`Basic ${Buffer.from("user:p@ss").toString("base64")}`);
	});
});

describe("HttpStore retries", () => {
	it("retries a 503 and then succeeds, reporting the retry", async () => {
		http.fault = (request) => (request.attempt === 1 ? { status: 503 } : undefined);
		const retries: RetryInfo[] = [];
		expect(await store({ onRetry: (info) => retries.push(info) }).get("/c/0")).toEqual(CHUNK);
		expect(http.server.requests.map((r) => r.status)).toEqual([503, 200]);
		expect(retries).toHaveLength(1);
		expect(retries[0]).toMatchObject({ key: "/c/0", attempt: 1, reason: "HTTP 503 Service Unavailable" });
		expect(retries[0].delayMs).toBeGreaterThanOrEqual(0);
	});

	it("retries 429 and honours a short Retry-After", async () => {
		http.fault = (request) => (request.attempt === 1 ? { status: 429, headers: { "Retry-After": "0" } } : undefined);
		expect(await store().get("/c/0")).toEqual(CHUNK);
		expect(http.server.requests.map((r) => r.status)).toEqual([429, 200]);
	});

	it("a Retry-After past the longest wait is said, not answered with advice to retry more (trial 26: 05)", async () => {
		http.fault = () => ({ status: 429, headers: { "Retry-After": "100000" } });
		const error = await failure(store({ retries: 0 }).get("/c/0"));
		expect(error.message).toBe(
			`GET ${http.server.url}/data.zarr/c/0 failed after 1 attempt: HTTP 429 Too Many Requests; the server asked to wait 28 hours before trying again (Retry-After), longer than the 20 s waited between attempts: run the export once it takes requests again`,
		);
		http.fault = () => ({ status: 503, headers: { "Retry-After": "10" } });
		expect((await failure(store({ retries: 0 }).get("/c/0"))).message).toMatch(/HTTP 503 Service Unavailable; the service throttled the requests: fewer in flight/);
	});

	it("fails after retries + 1 attempts with one line naming the key and no header value", async () => {
		http.fault = () => ({ status: 500 });
		const retries: RetryInfo[] = [];
		const s = store({ retries: 3, headers: { Authorization: SECRET }, onRetry: (info) => retries.push(info) });
		const error = await failure(s.get("/c/3"));
		expect(error.kind).toBe("io");
		expect(error.message).toBe(`GET ${http.server.url}/data.zarr/c/3 failed after 4 attempts: HTTP 500 Internal Server Error`);
		expect(error.message).not.toContain("SECRET123");
		expect(error.message).not.toContain("\n");
		expect(JSON.stringify(retries)).not.toContain("SECRET123");
		expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
		expect(http.server.requests).toHaveLength(4);
		expect(http.server.requests.every((r) => r.headers.authorization === SECRET)).toBe(true);
	});

	it("names the range in the error of a range read", async () => {
		http.fault = () => ({ status: 502 });
		const error = await failure(store({ retries: 1 }).getRange("/c/0", { offset: 8, length: 8 }));
		expect(error.message).toBe(`GET ${http.server.url}/data.zarr/c/0 (bytes=8-15) failed after 2 attempts: HTTP 502 Bad Gateway`);
	});

	it("does not retry 403 and does not take it for a missing key", async () => {
		http.fault = () => ({ status: 403 });
		const error = await failure(store({ headers: { Authorization: SECRET } }).get("/c/0"));
		expect(error.message).toMatch(/^GET \S+\/data\.zarr\/c\/0 failed: HTTP 403 Forbidden \(access denied/);
		expect(error.message).not.toContain("SECRET123");
		expect(http.server.requests).toHaveLength(1);
	});

	it("a host that does not resolve (ENOTFOUND) fails at once, naming the host, without a retry", async () => {
		const attempts: string[] = [];
		const notFound: typeof fetch = async (input) => {
			attempts.push(String(input));
			const dns = Object.assign(new Error("getaddrinfo ENOTFOUND no-such-host.invalid"), { code: "ENOTFOUND", hostname: "no-such-host.invalid" });
			throw new TypeError("fetch failed", { cause: dns });
		};
		const retries: RetryInfo[] = [];
		const error = await failure(new HttpStore("http://no-such-host.invalid/data.zarr", { ...FAST, retries: 3, fetch: notFound, onRetry: (info) => retries.push(info) }).get("/zarr.json"));
		expect(error.code).toBe("READ_FAILED");
		expect(error.message).toBe("GET http://no-such-host.invalid/data.zarr/zarr.json failed: host no-such-host.invalid not found (ENOTFOUND): check the URL or endpoint, and this machine's DNS");
		expect(attempts).toHaveLength(1);
		expect(retries).toEqual([]);
	});

	it("a port Node's fetch refuses (the Fetch standard's bad ports, 5060 here) fails at once and says so", async () => {
		const retries: RetryInfo[] = [];
		const error = await failure(new HttpStore("http://127.0.0.1:5060/data.zarr", { ...FAST, retries: 3, onRetry: (info) => retries.push(info) }).get("/zarr.json"));
		expect(error.code).toBe("READ_FAILED");
		expect(error.message).toMatch(/^GET http:\/\/127\.0\.0\.1:5060\/data\.zarr\/zarr\.json failed: Node's fetch refuses to connect to port 5060 \(a port the Fetch standard blocks\)/);
		expect(retries).toEqual([]);
	});

	it("retries a reset connection", async () => {
		http.fault = (request) => (request.attempt === 1 ? { resetConnection: true } : undefined);
		const retries: RetryInfo[] = [];
		expect(await store({ onRetry: (info) => retries.push(info) }).get("/c/0")).toEqual(CHUNK);
		expect(http.server.requests).toHaveLength(2);
		expect(retries[0].reason).toMatch(/ECONNRESET|closed/);
	});

	it("gives up on connections that keep resetting with a one-line error", async () => {
		http.fault = () => ({ resetConnection: true });
		const error = await failure(store({ retries: 2 }).get("/c/0"));
		expect(error.message).toMatch(/^GET \S+\/data\.zarr\/c\/0 failed after 3 attempts: \S.*$/);
		expect(http.server.requests).toHaveLength(3);
	});

	it("retries an attempt that times out", async () => {
		http.fault = (request) => (request.attempt === 1 ? { delayMs: 3000 } : undefined);
		const retries: RetryInfo[] = [];
		// Long enough that a loaded machine still answers the second attempt in time.
		const s = store({ timeoutMs: 500, onRetry: (info) => retries.push(info) });
		expect(await s.get("/c/0")).toEqual(CHUNK);
		expect(retries.map((r) => r.reason)).toEqual(["timed out: no response within 500 ms"]);
		expect(http.server.requests).toHaveLength(2);
	});

	it("the timeout is of an attempt without progress: a body that keeps coming is read however long it takes (trial 19: 07)", async () => {
		// 17 bytes, one every 80 ms: over 1.2 s in all, never 600 ms without a byte (room for a loaded machine).
		http.fault = () => ({ trickleMs: 80 });
		const retries: RetryInfo[] = [];
		const started = performance.now();
		expect(new TextDecoder().decode(await store({ timeoutMs: 600, onRetry: (info) => retries.push(info) }).get("/zarr.json"))).toBe('{"zarr_format":3}');
		expect(performance.now() - started).toBeGreaterThan(1200);
		expect(retries).toEqual([]);
		expect(http.server.requests).toHaveLength(1);
	});

	it("waits on a slow body as long as bytes keep arriving: the timeout is for a server that sends nothing", async () => {
		// 8 pieces 150 ms apart: over 1 s in all, past the 500 ms a whole-attempt deadline allowed.
		http.fault = () => ({ trickleMs: 150, trickleBytes: 32 });
		const retries: RetryInfo[] = [];
		expect(await store({ timeoutMs: 500, onRetry: (info) => retries.push(info) }).get("/c/0")).toEqual(CHUNK);
		expect(retries).toEqual([]);
		expect(http.server.requests).toHaveLength(1);
	});

	it("a range answered with a whole object over maxWhole fails once its Content-Length says so, before its body", async () => {
		// Not timed: the first answer's body trickles 32 bytes an hour, so a read that waited for it would end in a
		// timeout (or the test's), never in WholeObjectTooLarge; refused from its Content-Length, it takes none of it.
		let answers = 0;
		http.fault = () => (answers++ === 0 ? { ignoreRange: true, trickleMs: 3_600_000, trickleBytes: 32 } : { ignoreRange: true });
		const error = await store().readRange("/c/0", 0, 1, { maxWhole: 100 }).catch((reason: unknown) => reason);
		expect(error).toBeInstanceOf(WholeObjectTooLarge);
		expect(error).toMatchObject({ bytes: 256, sizeKnown: true });
		expect(http.server.requests).toHaveLength(1);
		// Within the limit, the whole object is kept as before.
		expect((await store().readRange("/c/0", 0, 1, { maxWhole: 256 }))?.whole).toEqual(CHUNK);
	});

	it("a server that never answers fails each attempt after timeoutMs, retried, then one line saying so (robust36: 1)", async () => {
		// Not timed: the server answers after an hour, so only the 200 ms timeout ends the request within the test's.
		http.fault = () => ({ delayMs: 3_600_000 });
		const retries: RetryInfo[] = [];
		const error = await failure(store({ timeoutMs: 200, retries: 1, onRetry: (info) => retries.push(info) }).get("/c/0"));
		expect(error.message).toMatch(/^GET \S+\/data\.zarr\/c\/0 failed after 2 attempts: timed out: no response within 200 ms$/);
		expect(error).toMatchObject({ code: "READ_FAILED" });
		expect(retries.map((r) => r.reason)).toEqual(["timed out: no response within 200 ms"]);
		expect(http.server.requests).toHaveLength(2);
	});

	it("a body that stalls forever fails after timeoutMs; one trickling a byte every 50 ms is read whole within 500 ms (robust36: 1)", async () => {
		http.fault = () => ({ stallAfterBytes: 10 });
		const error = await failure(store({ timeoutMs: 200, retries: 0 }).get("/c/0"));
		expect(error.message).toMatch(/ failed after 1 attempt: timed out: no bytes for 200 ms \(10 bytes of the body read\)$/);
		http.fault = () => ({ trickleMs: 50 });
		const retries: RetryInfo[] = [];
		expect(new TextDecoder().decode(await store({ timeoutMs: 500, onRetry: (info) => retries.push(info) }).get("/zarr.json"))).toBe('{"zarr_format":3}');
		expect(retries).toEqual([]);
	});

	it("timeoutMs 0 sets no limit: an answer that comes late is waited for (robust36: 1)", async () => {
		// Longer than a 1 ms timeout would wait, and no timer is armed at all: nothing here depends on timing.
		http.fault = (request) => (request.attempt === 1 ? { delayMs: 300, trickleMs: 50, trickleBytes: 64 } : undefined);
		const retries: RetryInfo[] = [];
		expect(await store({ timeoutMs: 0, onRetry: (info) => retries.push(info) }).get("/c/0")).toEqual(CHUNK);
		expect(retries).toEqual([]);
		expect(http.server.requests).toHaveLength(1);
	});

	it("retries a body that stops arriving, saying how much of it came", async () => {
		http.fault = (request) => (request.attempt === 1 ? { stallAfterBytes: 100 } : undefined);
		const retries: RetryInfo[] = [];
		expect(await store({ timeoutMs: 500, onRetry: (info) => retries.push(info) }).get("/c/0")).toEqual(CHUNK);
		expect(retries.map((r) => r.reason)).toEqual(["timed out: no bytes for 500 ms (100 bytes of the body read)"]);
		expect(http.server.requests).toHaveLength(2);
	});

	it("retries a body cut short by the server", async () => {
		http.fault = (request) => (request.attempt === 1 ? { truncateBody: true } : undefined);
		const retries: RetryInfo[] = [];
		expect(await store({ onRetry: (info) => retries.push(info) }).get("/c/0")).toEqual(CHUNK);
		expect(http.server.requests).toHaveLength(2);
		expect(retries[0].reason).toMatch(/^body truncated/);
	});

	it("retries a body shorter than its Content-Length", async () => {
		let calls = 0;
		const fakeFetch: typeof fetch = async () => {
			calls += 1;
			const body = calls === 1 ? CHUNK.subarray(0, 100) : CHUNK;
			return new Response(body, { status: 200, headers: { "Content-Length": String(CHUNK.length) } });
		};
		const retries: RetryInfo[] = [];
		const s = new HttpStore("https://bucket.example/data.zarr", { ...FAST, fetch: fakeFetch, onRetry: (i) => retries.push(i) });
		expect(await s.get("/c/0")).toEqual(CHUNK);
		expect(retries.map((r) => r.reason)).toEqual(["body truncated (100 of 256 bytes)"]);
	});

	it("stops at once when the caller aborts, without retrying", async () => {
		http.fault = () => ({ delayMs: 10_000 });
		const controller = new AbortController();
		const retries: RetryInfo[] = [];
		const pending = store({ onRetry: (info) => retries.push(info) }).get("/c/0", { signal: controller.signal });
		await expect.poll(() => http.server.requests.length).toBe(1);
		controller.abort();
		await expect(pending).rejects.toMatchObject({ name: "AbortError" });
		expect(retries).toEqual([]);
		expect(http.server.requests).toHaveLength(1);
	});

	it("stops during the backoff when the caller aborts", async () => {
		http.fault = () => ({ status: 503 });
		const controller = new AbortController();
		const s = store({
			backoffMs: 60_000,
			onRetry: () => queueMicrotask(() => controller.abort()),
		});
		await expect(s.get("/c/0", { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
		expect(http.server.requests).toHaveLength(1);
	});

	it("does not start when the signal is already aborted", async () => {
		await expect(store().get("/c/0", { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
		expect(http.server.requests).toHaveLength(0);
	});
});

describe("test server", () => {
	it("serves requests concurrently and counts the overlap", async () => {
		http.fault = () => ({ delayMs: 50 });
		const s = store();
		await Promise.all([s.get("/c/0"), s.get("/zarr.json"), s.getRange("/c/0", { suffixLength: 1 })]);
		expect(http.server.maxInFlight).toBe(3);
		expect(http.server.inFlight).toBe(0);
		const [a, b] = http.server.requests;
		expect(a.start).toBeLessThan(b.end as number);
		expect(b.start).toBeLessThan(a.end as number);
	});

	it("answers HEAD and unsatisfiable ranges", async () => {
		const head = await fetch(`${http.server.url}/data.zarr/c/0`, { method: "HEAD" });
		expect(head.status).toBe(200);
		expect(head.headers.get("content-length")).toBe("256");
		const beyond = await fetch(`${http.server.url}/data.zarr/c/0`, { headers: { Range: "bytes=300-310" } });
		expect(beyond.status).toBe(416);
		await beyond.body?.cancel();
	});
});

describe("HttpStore options", () => {
	it("refuses invalid options up front", () => {
		expect(() => new HttpStore("ftp://host/x")).toThrow(UsageError);
		expect(() => new HttpStore("not a url")).toThrow(UsageError);
		expect(() => new HttpStore("https://h/x", { retries: -1 })).toThrow(/retries/);
		expect(() => new HttpStore("https://h/x", { timeoutMs: -1 })).toThrow(/timeout/);
		expect(() => new HttpStore("https://h/x", { timeoutMs: Number.POSITIVE_INFINITY })).toThrow(/timeout/);
		expect(() => new HttpStore("https://h/x", { headers: { Range: "bytes=0-1" } })).toThrow(/Range/);
		expect(() => new HttpStore("https://h/x", { headers: { "Bad Name": "v" } })).toThrow(UsageError);
		const badValue = () => new HttpStore("https://h/x", { headers: { Authorization: "SECRET123\nX: y" } });
		expect(badValue).toThrow(UsageError);
		expect(badValue).not.toThrow(/SECRET123/);
	});
});

describe("parseHeaderOption", () => {
	it("splits at the first colon and trims", () => {
		expect(parseHeaderOption("Authorization: Bearer abc:def")).toEqual(["Authorization", "Bearer abc:def"]);
		expect(parseHeaderOption("  x-goog-user-project:proj  ")).toEqual(["x-goog-user-project", "proj"]);
	});

	it.each([
		["SECRET123", /no ":"/],
		[": SECRET123", /name before ":" is empty/],
		["Bad Name: SECRET123", /not a valid HTTP header name/],
		["Authorization:   ", /"Authorization": the value is empty/],
		["Authorization: SECRET123\r\nX: y", /line break/],
	])("refuses %j without repeating it", (input, message) => {
		let error: unknown;
		try {
			parseHeaderOption(input);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(UsageError);
		expect((error as Error).message).toMatch(message);
		expect((error as Error).message).not.toContain("SECRET123");
	});
});

describe("HttpStore under one caller signal", () => {
	it("many requests waiting to retry under one signal (a brief outage) add one listener to it: no MaxListenersExceededWarning", async () => {
		// Each key answered 503 three times, then served: every request waits to retry, at about the same time.
		let outage = true;
		const own = await startServer(root, { faults: (request) => (outage || request.attempt <= 3 ? { status: 503 } : undefined) });
		const warnings: string[] = [];
		const onWarning = (warning: Error) => warnings.push(warning.name);
		process.on("warning", onWarning);
		try {
			const controller = new AbortController();
			// Keys of their own (requests for one key are one request).
			await mkdir(path.join(root, "many"), { recursive: true });
			for (let i = 0; i < 24; i++) await writeFile(path.join(root, "many", String(i)), CHUNK);
			const s = store({ backoffMs: 100, retries: 6 }, `${own.url}/many`);
			outage = false;
			const all = await Promise.all(Array.from({ length: 24 }, (_, i) => s.get(`/${i}`, { signal: controller.signal })));
			expect(all.every((bytes) => bytes !== undefined && bytes.length === CHUNK.length)).toBe(true);
			expect(own.requests.filter((request) => request.status === 503).length).toBe(72);
			await new Promise((resolve) => setImmediate(resolve));
			expect(warnings).not.toContain("MaxListenersExceededWarning");
			// The waits stop at the abort all the same.
			outage = true;
			const pending = Array.from({ length: 24 }, (_, i) => s.get(`/${i}`, { signal: controller.signal }).then(() => "done", (error: unknown) => (error as Error).name));
			setTimeout(() => controller.abort(), 120);
			expect((await Promise.all(pending)).every((outcome) => outcome !== "done")).toBe(true);
			await new Promise((resolve) => setImmediate(resolve));
			expect(warnings).not.toContain("MaxListenersExceededWarning");
		} finally {
			process.off("warning", onWarning);
			await own.close();
		}
	});

	it("many requests in flight under one signal add one listener to it: no MaxListenersExceededWarning; an abort still stops them all", async () => {
		// A server of its own: the requests aborted here must not reach the other tests' http.server.
		let slow = false;
		const own = await startServer(root, { faults: () => (slow ? { delayMs: 2000 } : undefined) });
		const warnings: string[] = [];
		const onWarning = (warning: Error) => warnings.push(warning.name);
		process.on("warning", onWarning);
		try {
			const controller = new AbortController();
			const s = store({}, `${own.url}/data.zarr`);
			const all = await Promise.all(Array.from({ length: 24 }, () => s.get("/c/0", { signal: controller.signal })));
			expect(all.every((bytes) => bytes !== undefined && bytes.length === CHUNK.length)).toBe(true);
			slow = true;
			const pending = Array.from({ length: 24 }, () => s.get("/c/0", { signal: controller.signal }).then(() => "done", (error: unknown) => (error as Error).name));
			setTimeout(() => controller.abort(), 50);
			const outcomes = await Promise.all(pending);
			expect(outcomes.every((outcome) => outcome !== "done")).toBe(true);
			// Warnings are emitted on the next tick.
			await new Promise((resolve) => setImmediate(resolve));
			expect(warnings).not.toContain("MaxListenersExceededWarning");
		} finally {
			process.off("warning", onWarning);
			await own.close();
		}
	});
});
