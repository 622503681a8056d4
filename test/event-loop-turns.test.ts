/**
 * Chunks that wait for no I/O (trial 24, finding 06): an array whose chunks are all missing (zarr-python 3 writes
 * none for a time axis still all NaT), a shard of empty inner chunks. Each chunk's promise resolved at once, so the
 * event loop never turned while they lasted: SIGTERM on a 1,000,000-chunk array waited for the whole export, and on
 * a larger one forever; timers and the output's write callbacks waited too. The chunk sources now let the loop turn
 * every TURN_MS.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportToFile } from "../src/index.js";
import { BIN, tempDir } from "./support/cli.js";

/** The preload that has the CLI signal itself at a line of its stderr (signal-on-stderr.mjs). */
const SIGNAL_ON_STDERR = path.join(import.meta.dirname, "support/signal-on-stderr.mjs");

/** The CLI on `args` (stdout ignored), its stderr gathered; `env` added to the test's. */
function spawnCli(args: string[], env: Record<string, string> = {}) {
	const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
	let stderr = "";
	const matched: { pattern: RegExp; resolve: () => void }[] = [];
	child.stderr.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
		for (const wait of matched) if (wait.pattern.test(stderr)) wait.resolve();
	});
	return {
		child,
		stderr: () => stderr,
		exited: new Promise<number | null>((resolve) => child.once("exit", resolve)),
		/** Resolves once stderr matches `pattern` (an event, not a poll): the test's timeout is the only limit. */
		until: (pattern: RegExp) => new Promise<void>((resolve) => (pattern.test(stderr) ? resolve() : matched.push({ pattern, resolve }))),
	};
}

/**
 * A v3 datetime64[s] array of `length` values in chunks of one, NaT fill, `codecs` as given, no chunk written; with
 * `shape`, of that shape instead.
 */
function emptyArray(name: string, length: number, codecs: unknown[], chunkShape = [1], shape = [length]): string {
	const store = path.join(tempDir(), name);
	fs.mkdirSync(store, { recursive: true });
	const metadata = {
		zarr_format: 3,
		node_type: "array",
		shape,
		data_type: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
		chunk_grid: { name: "regular", configuration: { chunk_shape: chunkShape } },
		chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
		fill_value: "NaT",
		codecs,
		attributes: {},
	};
	fs.writeFileSync(path.join(store, "zarr.json"), JSON.stringify(metadata));
	return store;
}

/** Exports `store` (to `file`), and counts the chunks read by the time a timer set at the first chunk runs. */
async function chunksBeforeATimer(store: string, file = "out.arrow"): Promise<{ atTimer: number | undefined; total: number }> {
	let read = 0;
	let total = 0;
	let atTimer: number | undefined;
	await exportToFile(store, path.join(tempDir(), file), {
		onChunk: (index, chunks) => {
			read = index;
			total = chunks;
			if (index === 1) setTimeout(() => (atTimer = read), 0);
		},
	});
	return { atTimer, total };
}

describe("the event loop turns while chunks wait for no I/O", () => {
	it("missing chunks: a timer set at the first chunk runs long before the last", async () => {
		// 2-D, each chunk read on its own: runs of missing chunks (a 1-D array's, an N-d array's whole rows of chunks)
		// are read as one band each, 65,536 values at a time, and 200,000 of them end before the loop has to turn (the
		// SIGTERM test below reads runs); rows of 100,000 chunks are more than a run may hold.
		const store = emptyArray("missing.zarr", 200_000, [{ name: "bytes", configuration: { endian: "little" } }], [1, 1], [2, 100_000]);
		const { atTimer, total } = await chunksBeforeATimer(store);
		expect(total).toBe(200_000);
		// Before: the timer ran once every chunk was read (the whole export in one turn of the loop).
		expect(atTimer).toBeDefined();
		expect(atTimer!).toBeLessThan(total / 2);
	});

	it("a shard of empty inner chunks (index entries 2^64 - 1): the same", async () => {
		const length = 200_000;
		const store = emptyArray("empty-shard.zarr", length, [
			{ name: "sharding_indexed", configuration: { chunk_shape: [1], codecs: [{ name: "bytes", configuration: { endian: "little" } }], index_codecs: [{ name: "bytes", configuration: { endian: "little" } }], index_location: "end" } },
		], [length]);
		fs.mkdirSync(path.join(store, "c"));
		fs.writeFileSync(path.join(store, "c", "0"), Buffer.alloc(length * 16, 0xff));
		const { atTimer, total } = await chunksBeforeATimer(store);
		expect(total).toBe(length);
		expect(atTimer).toBeDefined();
		expect(atTimer!).toBeLessThan(total / 2);
	});

	it("the CLI ends on SIGTERM during a 10^9-chunk array of missing chunks: exit 143, no output left", async () => {
		const store = emptyArray("huge.zarr", 1_000_000_000, [{ name: "bytes", configuration: { endian: "little" } }]);
		const out = path.join(tempDir(), "huge.parquet");
		const cli = spawnCli([BIN, store, "-o", out, "--progress"]);
		// Once chunks are being read: the progress line says so (10^9 chunks cannot all be read before the signal).
		await cli.until(/rows/);
		cli.child.kill("SIGTERM");
		// Before: the signal waited for the end of an export of 10^9 chunks (hours): the test's timeout.
		expect(await cli.exited).toBe(143);
		expect(cli.stderr()).toMatch(/dt64-export: interrupted by SIGTERM\n$/);
		expect(fs.readdirSync(path.dirname(out))).toEqual([]);
	}, 60_000);

	it("the CLI ends on SIGTERM while small chunk files are read at once into Parquet (trial 24, finding 12)", async () => {
		const store = emptyArray("small.zarr", 4_000_000, [{ name: "bytes", configuration: { endian: "little" } }], [1000]);
		fs.mkdirSync(path.join(store, "c"));
		for (let k = 0; k < 4000; k++) {
			const values = BigInt64Array.from({ length: 1000 }, (_, i) => BigInt(k * 1000 + i));
			fs.writeFileSync(path.join(store, "c", String(k)), new Uint8Array(values.buffer));
		}
		const out = path.join(tempDir(), "small.parquet");
		// SIGTERM from the CLI itself at its first progress line (its first chunk read), so that the signal arrives while
		// chunks are being read whatever the CPU this process gets (the test sending it could come after the 4,000).
		const cli = spawnCli(["--import", SIGNAL_ON_STDERR, BIN, store, "-o", out, "--progress"], { DT64_TEST_SIGNAL_AFTER: "chunks \\d" });
		expect(await cli.exited).toBe(143);
		expect(cli.stderr()).toMatch(/dt64-export: interrupted by SIGTERM\n$/);
		// The last progress line before the signal's: before, every chunk was read first (4000/4000).
		const counts = [...cli.stderr().matchAll(/chunks ([\d,]+)\/([\d,]+)/g)].map((match) => Number(match[1].replaceAll(",", "")));
		expect(counts.length).toBeGreaterThan(0);
		expect(counts[counts.length - 1]).toBeLessThan(4000);
		expect(fs.readdirSync(path.dirname(out))).toEqual([]);
	}, 60_000);
});
