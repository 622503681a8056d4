/**
 * An object store that stops sending (robust36: 1): s3://, gs:// and az:// are read through the HTTP store's
 * requests, so `--timeout` (`timeoutMs`) ends an attempt that receives nothing, answer or body, which the retry
 * policy retries as any transient failure, and the export then fails with one line, READ_FAILED; a body that keeps
 * coming, however slowly, is read whole. The bucket is a plain file server (path-style s3:// requests, unsigned)
 * whose faults stall or trickle. Nothing is timed: a stalled answer comes after an hour, so only the timeout can end
 * the request within the test's.
 */
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seconds, writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportTable } from "../src/index.js";
import { tempDir } from "./support/cli.js";
import { type Fault, type FaultRequest, startServer, type TestServer } from "./support/http-server.js";
import { runCliAsync } from "./support/run-cli-async.js";

const HOUR_MS = 3_600_000;
let server: TestServer;
let fault: ((request: FaultRequest) => Fault | undefined) | undefined;

beforeAll(async () => {
	const root = tempDir();
	const values = BigInt64Array.from({ length: 300 }, (_, i) => 1_600_000_000n + BigInt(i) * 60n);
	await writeArray(path.join(root, "bucket", "times.zarr"), "", { shape: [300], chunks: [100], dataType: seconds, values, codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
	server = await startServer(root, { faults: (request) => fault?.(request) });
});
afterAll(async () => {
	await server.close();
});

const URL = "s3://bucket/times.zarr";
const isChunk1 = (request: FaultRequest) => request.path === "/bucket/times.zarr/c/1";
const env = () => ({ AWS_ENDPOINT_URL: server.url, AWS_REGION: "us-east-1" });

async function exported(options: { timeoutMs: number; retries: number }): Promise<number> {
	const sink = new PassThrough();
	let bytes = 0;
	sink.on("data", (piece: Buffer) => (bytes += piece.length));
	await exportTable(URL, sink, { format: "arrow", signRequests: false, env: env(), ...options });
	return bytes;
}

describe("s3:// reads that stall fail as a timeout, retried; a trickle is read whole", () => {
	it("library: a chunk never answered fails each attempt after timeoutMs 200, then READ_FAILED, one line", async () => {
		fault = (request) => (isChunk1(request) ? { delayMs: HOUR_MS } : undefined);
		server.reset();
		await expect(exported({ timeoutMs: 200, retries: 1 })).rejects.toMatchObject({
			code: "READ_FAILED",
			message: `GET ${server.url}/bucket/times.zarr/c/1 failed after 2 attempts: timed out: no response within 200 ms`,
		});
		expect(server.requests.filter(isChunk1)).toHaveLength(2);
	});

	it("library: a body that stops after 10 bytes fails the same way, saying how much came", async () => {
		fault = (request) => (isChunk1(request) ? { stallAfterBytes: 10 } : undefined);
		await expect(exported({ timeoutMs: 200, retries: 0 })).rejects.toMatchObject({
			code: "READ_FAILED",
			message: `GET ${server.url}/bucket/times.zarr/c/1 failed after 1 attempt: timed out: no bytes for 200 ms (10 bytes of the body read)`,
		});
	});

	it("library: a body trickling 16 bytes every 50 ms is read whole under timeoutMs 500, with no retry", async () => {
		fault = (request) => (isChunk1(request) ? { trickleMs: 50, trickleBytes: 16 } : undefined);
		server.reset();
		expect(await exported({ timeoutMs: 500, retries: 0 })).toBeGreaterThan(2400);
		expect(server.requests.filter(isChunk1)).toHaveLength(1);
	});

	it("CLI: --timeout 1 --retries 1, a chunk never answered: exit 1, one line naming the timeout", async () => {
		fault = (request) => (isChunk1(request) ? { delayMs: HOUR_MS } : undefined);
		const out = path.join(tempDir(), "stalled.arrow");
		const result = await runCliAsync([URL, "--no-sign-request", "--timeout", "1", "--retries", "1", "-o", out], { env: env() });
		expect(result.stderr).toBe(`dt64-export: GET ${server.url}/bucket/times.zarr/c/1 failed after 2 attempts: timed out: no response within 1000 ms [READ_FAILED]\n`);
		expect(result.status).toBe(1);
	});

	it("CLI: --timeout 0 is no limit, and a negative one is refused", async () => {
		fault = (request) => (isChunk1(request) ? { trickleMs: 50, trickleBytes: 64 } : undefined);
		const out = path.join(tempDir(), "unbounded.arrow");
		const result = await runCliAsync([URL, "--no-sign-request", "--timeout", "0", "-o", out, "-q"], { env: env() });
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const refused = await runCliAsync([URL, "--no-sign-request", "--timeout", "-1", "-o", out], { env: env() });
		expect(refused.status).toBe(2);
	});
});
