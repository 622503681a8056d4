/**
 * An abort while a remote store is opened, before any stage runs: its metadata probes, its consolidated metadata, a
 * bucket's listing, a zip's central directory, the range search of a time range, inspect. A server that accepts the
 * connection and never answers (or answers a byte at a time) holds the call no longer than the abort: it rejects at
 * once with Node's AbortError, the request cancelled (the server sees its socket closed), nothing written, nothing
 * left running. It used to wait out the request's 30 s timeout, times its 4 attempts.
 */
import { spawn } from "node:child_process";
import diagnostics from "node:diagnostics_channel";
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportDataset, exportSelection, exportTable, exportToFile, inspectStore, openTable, openTimeArray } from "../src/index.js";
import { BIN, REPO, tempDir } from "./support/cli.js";
import { startServer, type FaultRequest, type RequestRecord, type TestServer } from "./support/http-server.js";
import { writeStoredZip } from "./support/zip.js";

/**
 * How soon an abort must end a call: well before what it replaces, the held request's own timeout (30 s, times its 4
 * attempts), and long enough that a loaded machine's scheduling does not pass for a wait (it was 2 s, and 1 s for a
 * process to exit: under load a process may get no core for that long). Also the bound on the server seeing the
 * request's socket closed.
 */
const ABORT_WITHIN_MS = 10_000;
/** A request held this long is one that never ends: the abort must end it. */
const NEVER_MS = 600_000;

/** Which requests the server holds, and how: never answered, or answered a byte every 50 ms. */
let holding: { readonly matches: (request: FaultRequest) => boolean; readonly trickle: boolean } | undefined;
let served: string;
let server: TestServer;

/**
 * What this process's fetch (Node's undici) has done since the last `server.reset()`, as its diagnostics channels
 * tell: the requests it created (each attempt), and the URL paths of those whose response headers it has received.
 * An event for each, not a guess from the time the server has gone without a new request.
 */
const client = { created: 0, answered: [] as string[] };
const countCreated = () => client.created++;
const noteAnswered = (message: unknown) => client.answered.push(decodeURIComponent(String((message as { request: { path: string } }).request.path).split("?")[0]));

beforeAll(async () => {
	diagnostics.subscribe("undici:request:create", countCreated);
	diagnostics.subscribe("undici:request:headers", noteAnswered);
	served = tempDir("dt64-abort-opening-");
	fs.cpSync(path.join(REPO, "data/weather-station.zarr"), path.join(served, "weather.zarr"), { recursive: true });
	// A v2 group known by its consolidated metadata (HTTP cannot be listed): .zgroup, then .zmetadata.
	fs.mkdirSync(path.join(served, "v2.zarr"));
	fs.writeFileSync(path.join(served, "v2.zarr/.zgroup"), '{"zarr_format": 2}');
	fs.writeFileSync(path.join(served, "v2.zarr/.zmetadata"), '{"metadata": {".zgroup": {"zarr_format": 2}}, "zarr_consolidated_format": 1}');
	// A bucket (the S3 endpoint is this server, requests unsigned): a group without consolidated metadata, listed.
	fs.cpSync(path.join(REPO, "data/observations.zarr"), path.join(served, "bucket/observations.zarr"), { recursive: true });
	writeStoredZip(path.join(REPO, "data/weather-station.zarr"), path.join(served, "weather.zip"));
	server = await startServer(served, {
		faults: (request) => {
			if (holding === undefined || !holding.matches(request)) return undefined;
			return holding.trickle ? { trickleMs: 50 } : { delayMs: NEVER_MS };
		},
	});
});
afterAll(() => {
	diagnostics.unsubscribe("undici:request:create", countCreated);
	diagnostics.unsubscribe("undici:request:headers", noteAnswered);
	return server.close();
});

/** Forgets what the server and this process's fetch saw. */
function resetRequests(): void {
	server.reset();
	client.created = 0;
	client.answered = [];
}

/** The bucket's endpoint is the test server, read without credentials. */
const s3Options = () => ({ signRequests: false, env: { AWS_ENDPOINT_URL: server.url, AWS_REGION: "us-east-1" } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
	for (const deadline = Date.now() + timeoutMs; !condition(); await sleep(5)) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
	}
}

interface Held {
	readonly matches: (request: FaultRequest) => boolean;
	/** Answered a byte every 50 ms instead of never. */
	readonly trickle?: boolean;
}

/**
 * Runs `call` with a signal while the server holds the requests `held` matches; aborts once the first of them has
 * arrived (and, trickled, has been answering for a while), and checks what the abort does: the call rejects within
 * ABORT_WITHIN_MS with the AbortError (the reason as cause), the held request's socket is closed, and no request is
 * made once aborted (fetch creates none: requests created before it, sent alongside the held one, may reach the
 * server after it on a loaded machine). (What is left running is measured in a process of its own, below: the
 * server's side of the connections is in this one.)
 */
async function abortWhileHeld(held: Held, call: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
	resetRequests();
	callNumber++;
	holding = { matches: held.matches, trickle: held.trickle === true };
	const controller = new AbortController();
	const settled = call(controller.signal).then(
		() => ({ error: undefined as unknown }),
		(error: unknown) => ({ error }),
	);
	let request: RequestRecord | undefined;
	const isHeld = (record: RequestRecord) => held.matches({ ...record });
	try {
		await until(() => (request = server.requests.find(isHeld)) !== undefined, "the held request");
		// Trickled: once the client has its headers, so that the abort comes while the body is being read.
		if (held.trickle) await until(() => client.answered.includes(request!.path), "the held request's headers at the client");
		const reason = new Error("the caller went away");
		const abortedAt = performance.now();
		const asked = client.created;
		controller.abort(reason);
		const outcome = await Promise.race([settled, sleep(ABORT_WITHIN_MS).then(() => "still pending" as const)]);
		expect(outcome, `the call settles within ${ABORT_WITHIN_MS} ms of the abort`).not.toBe("still pending");
		expect(performance.now() - abortedAt).toBeLessThan(ABORT_WITHIN_MS);
		expect((outcome as { error: unknown }).error).toMatchObject({ name: "AbortError", code: "ABORT_ERR", cause: reason });
		// The request was cancelled, not left to its timeout: the server sees its connection closed.
		await until(() => request!.end !== undefined && server.inFlight === 0, "the held request's socket to close", ABORT_WITHIN_MS);
		expect(request!.status).toBe(held.trickle ? 200 : undefined);
		// Nothing more was asked of the server once aborted.
		expect(client.created).toBe(asked);
		expect(server.requests.filter(ofThisCall).length).toBeLessThanOrEqual(asked);
	} finally {
		holding = undefined;
	}
}

const named = (name: string) => (request: FaultRequest) => request.path.endsWith(`/${name}`);

/**
 * Which call of abortWhileHeld is running. Each call's store URL carries it in its query string (which an HTTP store
 * sends with every request it makes, as it would a token), so that the server's log is told apart from requests a call
 * before it created and aborted whose bytes reached the server only after it (on a loaded machine, seen as 8 requests
 * logged where 5 were created).
 */
let callNumber = 0;
/** A store on the test server, for the running call of abortWhileHeld. */
const at = (name: string) => `${server.url}/${name}?call=${callNumber}`;
/** The requests of the running call: tagged with it, or untagged (a bucket's, whose endpoint takes no query). */
const ofThisCall = (request: RequestRecord) => !request.query.includes("call=") || request.query === `?call=${callNumber}`;

/** The documents asked for together when a store's root is opened, its format unknown (store-tree.ts, layoutProbes). */
const ROOT_PROBES = ["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"];

describe("an abort while the store is opened rejects at once with the AbortError", () => {
	it("during the first metadata probe (zarr.json), the server never answering: from every export, openTable, openTimeArray and inspectStore", async () => {
		const out = tempDir("dt64-abort-out-");
		await abortWhileHeld({ matches: named("zarr.json") }, (signal) => exportToFile(at("weather.zarr"), path.join(out, "t.arrow"), { signal }));
		await abortWhileHeld({ matches: named("zarr.json") }, (signal) => exportTable(at("weather.zarr"), new PassThrough(), { signal }));
		await abortWhileHeld({ matches: named("zarr.json") }, (signal) => exportSelection(at("weather.zarr"), new PassThrough(), { start: "2023-06-01", signal }));
		await abortWhileHeld({ matches: named("zarr.json") }, (signal) => exportDataset(at("weather.zarr"), path.join(out, "ds"), { partitionBy: "month", signal }));
		await abortWhileHeld({ matches: named("zarr.json") }, (signal) => openTimeArray(at("weather.zarr"), { signal }));
		await abortWhileHeld({ matches: named("zarr.json") }, (signal) => openTable(at("weather.zarr"), { columns: ["a"], signal }));
		await abortWhileHeld({ matches: named("zarr.json") }, (signal) => inspectStore(at("weather.zarr"), { signal }));
		expect(fs.readdirSync(out)).toEqual([]);
	});

	it("during the first metadata probe, the server answering a byte every 50 ms", async () => {
		const out = tempDir("dt64-abort-out-");
		await abortWhileHeld({ matches: named("zarr.json"), trickle: true }, (signal) => exportToFile(at("weather.zarr"), path.join(out, "t.parquet"), { signal }));
		await abortWhileHeld({ matches: named("zarr.json"), trickle: true }, (signal) => inspectStore(at("weather.zarr"), { signal }));
		expect(fs.readdirSync(out)).toEqual([]);
	});

	it("during the read of a v2 group's consolidated metadata (.zmetadata), never answered or trickled", async () => {
		const out = tempDir("dt64-abort-out-");
		for (const trickle of [false, true]) {
			await abortWhileHeld({ matches: named(".zmetadata"), trickle }, (signal) => exportToFile(at("v2.zarr"), path.join(out, "t.arrow"), { signal }));
			await abortWhileHeld({ matches: named(".zmetadata"), trickle }, (signal) => inspectStore(at("v2.zarr"), { signal }));
		}
		expect(fs.readdirSync(out)).toEqual([]);
	});

	it("during a bucket's listing (s3:// ListObjectsV2, a group without consolidated metadata), never answered", async () => {
		const out = tempDir("dt64-abort-out-");
		const listing = (request: FaultRequest) => request.query.includes("list-type=2");
		await abortWhileHeld({ matches: listing }, (signal) => exportToFile("s3://bucket/observations.zarr", path.join(out, "t.arrow"), { ...s3Options(), signal }));
		await abortWhileHeld({ matches: listing }, (signal) => openTable("s3://bucket/observations.zarr", { ...s3Options(), columns: "all", signal }));
		await abortWhileHeld({ matches: listing }, (signal) => inspectStore("s3://bucket/observations.zarr", { ...s3Options(), signal }));
		expect(fs.readdirSync(out)).toEqual([]);
	});

	it("during a zip's first read over HTTP (its size, then its central directory), never answered", async () => {
		const out = tempDir("dt64-abort-out-");
		await abortWhileHeld({ matches: named("weather.zip") }, (signal) => exportToFile(at("weather.zip"), path.join(out, "t.arrow"), { signal }));
		// The size answered, the central directory held.
		const directory = (request: FaultRequest) => request.path.endsWith("/weather.zip") && request.range !== "bytes=0-0";
		await abortWhileHeld({ matches: directory }, (signal) => exportToFile(at("weather.zip"), path.join(out, "t.arrow"), { signal }));
		await abortWhileHeld({ matches: directory }, (signal) => inspectStore(at("weather.zip"), { signal }));
		expect(fs.readdirSync(out)).toEqual([]);
	});

	it("during the range search of a time range, before the stages run: its chunk probes never answered or trickled", async () => {
		const out = tempDir("dt64-abort-out-");
		const chunk = (request: FaultRequest) => /\/weather\.zarr\/c\/\d+$/.test(request.path);
		for (const trickle of [false, true]) {
			await abortWhileHeld({ matches: chunk, trickle }, (signal) => exportToFile(at("weather.zarr"), path.join(out, "t.arrow"), { start: "2023-06-01", end: "2023-07-01", signal }));
			await abortWhileHeld({ matches: chunk, trickle }, (signal) => exportDataset(at("weather.zarr"), path.join(out, "ds"), { start: "2023-06-01", partitionBy: "day", signal }));
		}
		expect(fs.readdirSync(out)).toEqual([]);
		// In chunk order, the rows the search chose are checked to be sorted before the stages run: from the chunks the
		// search read (the column read whole and kept), so nothing is asked of the server again, nothing to abort there.
		server.reset();
		await exportToFile(`${server.url}/weather.zarr`, path.join(out, "t.arrow"), { start: "2023-06-01", end: "2023-07-01", index: true, order: "chunk" });
		expect(server.requests.filter((request) => chunk(request) && request.attempt > 1)).toEqual([]);
	});

	it("inspect's reads of an array's first and last chunks", async () => {
		const chunk = (request: FaultRequest) => /\/weather\.zarr\/c\/\d+$/.test(request.path);
		await abortWhileHeld({ matches: chunk }, (signal) => inspectStore(at("weather.zarr"), { signal }));
	});
});

describe("the caller's destination failing while the store is opened", () => {
	/** A destination that reports its failure by emitting `error` (not destroyed), or by `destroy(error)`, once `fail` is called. */
	function failingDestination(how: "emit" | "destroy") {
		let bytes = 0;
		const destination = new Writable({
			write: (chunk: Buffer, _encoding, done) => {
				bytes += chunk.length;
				done();
			},
		});
		const broken = new Error("socket reset early");
		const fail = () => (how === "emit" ? destination.emit("error", broken) : destination.destroy(broken));
		return { destination, broken, fail, written: () => bytes };
	}

	it.each(["emit", "destroy"] as const)("%s: rejects at once as WRITE_FAILED (the error its cause), the opening's request cancelled, nothing written", async (how) => {
		for (const call of [
			(destination: Writable) => exportTable(`${server.url}/weather.zarr`, destination),
			(destination: Writable) => exportSelection(`${server.url}/weather.zarr`, destination, { start: "2023-06-01" }),
		]) {
			resetRequests();
			holding = { matches: named("zarr.json"), trickle: false };
			try {
				const { destination, broken, fail, written } = failingDestination(how);
				const settled = call(destination).then(
					() => ({ error: undefined as unknown }),
					(error: unknown) => ({ error }),
				);
				let request: RequestRecord | undefined;
				await until(() => (request = server.requests.find((record) => named("zarr.json")({ ...record }))) !== undefined, "the held request");
				// The root's other layout probes are asked for with its zarr.json (store-tree.ts, layoutProbes), and on a
				// loaded machine reach the server after it, even after the failure: asked for before it, they are no
				// request made once it came. The failure waits until all of them have arrived.
				await until(() => ROOT_PROBES.every((file) => server.requests.some((record) => named(file)({ ...record }))), "the root's layout probes");
				const asked = client.created;
				fail();
				const outcome = await Promise.race([settled, sleep(ABORT_WITHIN_MS).then(() => "still pending" as const)]);
				expect(outcome, `the call settles within ${ABORT_WITHIN_MS} ms of the failure (it resolved, or waited for the opening)`).not.toBe("still pending");
				expect((outcome as { error: unknown }).error).toMatchObject({ code: "WRITE_FAILED", message: "cannot write to the output stream: socket reset early", cause: broken });
				await until(() => request!.end !== undefined && server.inFlight === 0, "the held request's socket to close", ABORT_WITHIN_MS);
				expect(client.created).toBe(asked);
				expect(written()).toBe(0);
			} finally {
				holding = undefined;
			}
		}
	});
});

describe("what an abort while opening leaves behind", () => {
	it("nothing that keeps the process alive: a process making the calls ends as soon as they have rejected", async () => {
		holding = { matches: (request) => /\/(zarr\.json|\.zmetadata|weather\.zip|c\/\d+)$/.test(request.path) || request.query.includes("list-type=2"), trickle: false };
		const out = tempDir("dt64-abort-out-");
		const store = `${server.url}/weather.zarr`;
		const calls = [
			{ name: "exportToFile", args: [store, path.join(out, "t.arrow")] },
			{ name: "exportTable", args: [`${server.url}/v2.zarr`, "stream"] },
			{ name: "exportDataset", args: [`${server.url}/weather.zip`, path.join(out, "ds")], options: { partitionBy: "day" } },
			{ name: "exportToFile", args: ["s3://bucket/observations.zarr", path.join(out, "s.arrow")], options: s3Options() },
			{ name: "inspectStore", args: [store] },
		];
		try {
			const child = spawn(process.execPath, [path.join(REPO, "test/support/abort-while-opening.mjs"), JSON.stringify({ abortAfterMs: 300, calls })], { stdio: ["ignore", "pipe", "inherit"] });
			let stdout = "";
			let doneAt: number | undefined;
			child.stdout.on("data", (chunk: Buffer) => {
				stdout += chunk.toString();
				if (doneAt === undefined && stdout.includes("done\n")) doneAt = performance.now();
			});
			const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
			const outcome = await Promise.race([exited, sleep(calls.length * (300 + ABORT_WITHIN_MS) + 3000).then(() => "still running" as const)]);
			if (outcome === "still running") child.kill("SIGKILL");
			expect(outcome).toBe(0);
			const lines = stdout.trim().split("\n");
			expect(lines.pop()).toBe("done");
			for (const line of lines) expect(JSON.parse(line)).toMatchObject({ error: { name: "AbortError", code: "ABORT_ERR", cause: "the caller went away" } });
			expect(lines).toHaveLength(calls.length);
			// The process ended by itself once the last call rejected: no socket, timer or retry was left running.
			expect(performance.now() - doneAt!).toBeLessThan(ABORT_WITHIN_MS);
			expect(fs.readdirSync(out)).toEqual([]);
		} finally {
			holding = undefined;
		}
	});
});

describe("the CLI", () => {
	for (const [command, args] of [
		["an export", (store: string, out: string) => [store, "-o", path.join(out, "t.arrow")]],
		["a time range", (store: string, out: string) => [store, "--start", "2023-06-01", "-o", path.join(out, "t.arrow")]],
		["a dataset", (store: string, out: string) => [store, "--partition-by", "day", "-o", path.join(out, "ds")]],
		["inspect", (store: string) => ["inspect", store]],
	] as const) {
		it(`${command}: Ctrl-C (SIGINT) while the store is opened exits 130 at once, writing nothing`, async () => {
			server.reset();
			holding = { matches: named("zarr.json"), trickle: false };
			const out = tempDir("dt64-abort-cli-");
			try {
				const child = spawn(process.execPath, [BIN, ...args(`${server.url}/weather.zarr`, out)], { stdio: ["ignore", "pipe", "pipe"] });
				let stderr = "";
				child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
				const exited = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("close", (status, signal) => resolve({ status, signal })));
				await until(() => server.requests.some((record) => record.path.endsWith("/zarr.json")), "the metadata probe");
				const sentAt = performance.now();
				child.kill("SIGINT");
				const outcome = await Promise.race([exited, sleep(ABORT_WITHIN_MS).then(() => "still running" as const)]);
				if (outcome === "still running") child.kill("SIGKILL");
				expect(outcome).toEqual({ status: 130, signal: null });
				expect(performance.now() - sentAt).toBeLessThan(ABORT_WITHIN_MS);
				expect(stderr).toBe("dt64-export: interrupted by SIGINT\n");
				expect(fs.readdirSync(out)).toEqual([]);
			} finally {
				holding = undefined;
			}
		});
	}
});
