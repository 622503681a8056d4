/**
 * Throttling (429, 503: S3's SlowDown): the store narrows its requests in flight (RequestThrottle, as the AWS SDKs'
 * adaptive retry mode does) and backs off longer, and an export that still fails says that the service throttled it,
 * with S3's code, and what helps.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { HttpStore } from "../src/store/http-store.js";
import { RequestThrottle } from "../src/store/request-throttle.js";
import { tempDir } from "./support/cli.js";
import { sendAnswer, serveOnLoopback, type LoopbackServer } from "./support/loopback-server.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";

describe("RequestThrottle", () => {
	it("halves the requests in flight once per narrowing, and widens by one per run of successes", async () => {
		const throttle = new RequestThrottle();
		const tickets = await Promise.all(Array.from({ length: 8 }, () => throttle.admit()));
		expect(throttle.limit).toBe(Number.POSITIVE_INFINITY);
		// Eight sent together, all throttled: the first halves, the others were sent before that and do not.
		throttle.release(tickets[0], "throttled");
		expect(throttle.limit).toBe(4);
		for (const ticket of tickets.slice(1)) throttle.release(ticket, "throttled");
		expect(throttle.limit).toBe(4);
		// Sent under the narrowed limit and throttled again: halved again.
		const next = await Promise.all(Array.from({ length: 4 }, () => throttle.admit()));
		let fifthAdmitted = false;
		const fifth = Promise.resolve(throttle.admit()).then((ticket) => {
			fifthAdmitted = true;
			return ticket;
		});
		await new Promise((resolve) => setImmediate(resolve));
		expect(fifthAdmitted).toBe(false);
		throttle.release(next[0], "throttled");
		expect(throttle.limit).toBe(2);
		for (const ticket of next.slice(1)) throttle.release(ticket, "ok");
		throttle.release(await fifth, "ok");
		expect(throttle.limit).toBe(3);
	});

	it("a caller that gives up waiting is rejected and leaves no place taken", async () => {
		const throttle = new RequestThrottle();
		const first = await throttle.admit();
		throttle.release(first, "throttled");
		const held = await throttle.admit();
		const controller = new AbortController();
		let abort: (() => void) | undefined;
		const waiting = Promise.resolve(throttle.admit((run) => ((abort = run), () => undefined), () => controller.signal.reason));
		controller.abort(new Error("gave up"));
		abort!();
		await expect(waiting).rejects.toThrow("gave up");
		throttle.release(held, "ok");
		expect(await throttle.admit()).toBeDefined();
	});
});

describe("an HTTP service that throttles past 4 requests in flight", () => {
	let server: LoopbackServer;
	let inFlight = 0;
	let throttled = 0;
	beforeAll(async () => {
		server = await serveOnLoopback(async (request: IncomingMessage, response: ServerResponse) => {
			inFlight++;
			try {
				await new Promise((resolve) => setTimeout(resolve, 20));
				if (inFlight > 4) {
					throttled++;
					sendAnswer(request, response, 503, "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>");
				} else sendAnswer(request, response, 200, "chunk");
			} finally {
				inFlight--;
			}
		});
	});
	afterAll(() => server.close());

	it("64 reads at once all succeed: the store narrows to what the service takes", async () => {
		const store = new HttpStore(`http://127.0.0.1:${server.port}/data`, { retries: 5, backoffMs: 10 });
		const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => store.get(`/c/${i}`)));
		expect(answers.every((bytes) => new TextDecoder().decode(bytes) === "chunk")).toBe(true);
		// Each narrowing costs one round of refusals: far fewer than the 60 of each round of 64.
		expect(throttled).toBeLessThan(150);
	});
});

describe("S3 503 SlowDown to the end", () => {
	const buckets = tempDir("dt64-throttle-");
	let s3: S3Server;
	beforeAll(async () => {
		await writeArray(path.join(buckets, "busy", "t.zarr"), "", { shape: [4], chunks: [2], dataType: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, values: BigInt64Array.from([1n, 2n, 3n, 4n]), codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
		s3 = await startS3Server({ root: buckets, users: {}, publicBuckets: ["busy"], fault: (request) => (request.key === "t.zarr/c/1" ? { status: 503, code: "SlowDown", message: "Please reduce your request rate." } : undefined) });
	});
	afterAll(() => s3.close());

	it("the error names S3's code and what helps; the retries waited as a throttled service asks", async () => {
		const started = Date.now();
		const result = await runCliAsync(["s3://busy/t.zarr", "-o", path.join(buckets, "t.arrow"), "--no-sign-request", "--retries", "1"], {
			env: { AWS_ENDPOINT_URL: s3.url, AWS_REGION: "us-east-1", HOME: buckets, AWS_PROFILE: "", AWS_CONFIG_FILE: "", AWS_SHARED_CREDENTIALS_FILE: "" },
		});
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(
			/^dt64-export: GET \S+\/busy\/t\.zarr\/c\/1 failed after 2 attempts: HTTP 503 Service Unavailable \(SlowDown: reduce your request rate\); the service throttled the requests: fewer in flight \(--concurrency\), or more --retries \(each waits longer\), let it keep up \[READ_FAILED\]\n$/,
		);
		// One retry of a throttled request waits half a second at least (the base of 200 ms, five times, halved).
		expect(Date.now() - started).toBeGreaterThan(500);
		expect(s3.requests.filter((request) => request.key === "t.zarr/c/1").length).toBe(2);
	});
});
