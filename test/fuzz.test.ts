/**
 * Mutation fuzzing of valid stores: random bytes of zarr.json and of chunk files are changed (fixed seed, so a
 * failure is reproducible), and every export must end in success or a clean refusal: a Dt64ExportError with a
 * one-line message, never another error type, a hang, or a temporary file left behind. The library is called in
 * process (thousands of cases); a sample of the same mutated stores then goes through the built CLI for the exit
 * code and stderr contract.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { mulberry32 } from "../scripts/lib/mulberry32.mjs";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import type { OutputFormat } from "../src/export-plan.js";
import { BIN, tempDir } from "./support/cli.js";
import { contractViolation, exportInProcess, tempFilesIn, type Outcome } from "./support/export-in-process.js";

// The decode threads, whatever the size of the stores here (small arrays otherwise decode on the calling thread);
// decode-in-thread.test.ts runs these tests again on the calling thread (it sets 0 before importing this file).
process.env.DT64_DECODE_THREADS ??= "2";

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_2024);
/** 200 × 11 stores ≈ 12 s of CPU; FUZZ_SEED and FUZZ_CASES_PER_STORE run other or longer sessions. */
const CASES_PER_STORE = Number(process.env.FUZZ_CASES_PER_STORE ?? 200);
const CLI_SAMPLE_SIZE = 30;
const CASE_TIMEOUT_MS = 10_000;

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const BE = { name: "bytes", configuration: { endian: "big" } };
const GZIP = { name: "gzip", configuration: { level: 1 } };
const ZSTD = { name: "zstd", configuration: { level: 3, checksum: false } };
const BLOSC = { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } };
const datetime = (unit: string, scale_factor = 1) => ({ name: "numpy.datetime64", configuration: { unit, scale_factor } });

/** A seeded generator (mulberry32): `next()` is uniform in [0, 1), `int(n)` in 0..n-1, `pick` one of `items`. */
function prng(seed: number) {
	const next = mulberry32(seed);
	const int = (n: number) => Math.floor(next() * n);
	return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)] };
}
type Random = ReturnType<typeof prng>;

function values(n: number, seed: number): BigInt64Array {
	const random = prng(seed);
	return BigInt64Array.from({ length: n }, (_, i) => (i % 13 === 5 ? NAT : BigInt(random.int(2 ** 31)) * 1000n - 10n ** 12n));
}

/** The valid stores that are mutated: every codec and layout the tool reads. */
const STORES: [name: string, spec: Record<string, unknown>][] = [
	["bytes-le", { shape: [200], chunks: [64], dataType: datetime("s"), codecs: [LE] }],
	["bytes-be-int-fill", { shape: [200], chunks: [50], dataType: datetime("ms", 10), codecs: [BE], fillValue: 12345n, omitChunks: (c: number[]) => c[0] === 2 }],
	["gzip", { shape: [200], chunks: [64], dataType: datetime("us"), codecs: [LE, GZIP] }],
	["zlib", { shape: [200], chunks: [64], dataType: datetime("ns"), codecs: [BE, { name: "zlib", configuration: { level: 1 } }] }],
	["zstd", { shape: [200], chunks: [64], dataType: datetime("s"), codecs: [LE, ZSTD] }],
	["blosc", { shape: [200], chunks: [64], dataType: datetime("s"), codecs: [LE, BLOSC] }],
	["crc32c", { shape: [200], chunks: [64], dataType: datetime("D"), codecs: [LE, { name: "crc32c" }] }],
	["transpose-2d", { shape: [12, 10], chunks: [5, 4], dataType: datetime("m"), codecs: [{ name: "transpose", configuration: { order: [1, 0] } }, LE, GZIP] }],
	["shard-end", { shape: [200], chunks: [100], dataType: datetime("s"), codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [25], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } }] }],
	["shard-start-2d", { shape: [12, 10], chunks: [6, 10], dataType: datetime("h"), codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [3, 5], codecs: [BE], index_codecs: [LE, { name: "crc32c" }], index_location: "start" } }] }],
	["v2-keys", { shape: [200], chunks: [64], dataType: datetime("s"), codecs: [LE, { name: "crc32c" }], chunkKeyEncoding: { name: "v2", configuration: { separator: "." } } }],
];

/** One mutated file of a store: new bytes, or null to delete it. */
interface Mutation {
	file: string;
	bytes: Uint8Array | null;
	what: string;
}

interface Case {
	id: number;
	store: number;
	mutation: Mutation;
	format: OutputFormat;
}

/** JSON values that break (or keep) a zarr.json member in every way the parser has to handle. */
const JSON_PALETTE: unknown[] = [null, true, false, 0, -1, 1, 2, 7, 2.5, -0.5, 1e300, 2 ** 53 + 2, "", "NaT", "s", "x", "bytes", [], {}, [0], [-1], [1, 2], [[1]], { name: "bytes" }, { name: 5 }, "default", "regular", "little", "big", "start", "end", "numpy.datetime64"];

function jsonPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
	const paths: (string | number)[][] = prefix.length > 0 ? [prefix] : [];
	if (Array.isArray(value)) value.forEach((item, i) => paths.push(...jsonPaths(item, [...prefix, i])));
	else if (typeof value === "object" && value !== null) for (const [key, item] of Object.entries(value)) paths.push(...jsonPaths(item, [...prefix, key]));
	return paths;
}

function mutateJsonValue(text: string, random: Random): { text: string; what: string } {
	const json = JSON.parse(text) as Record<string, unknown>;
	const paths = jsonPaths(json);
	const target = random.pick(paths);
	let parent: Record<string | number, unknown> = json;
	for (const key of target.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
	const key = target[target.length - 1];
	if (random.next() < 0.2 && !Array.isArray(parent)) {
		delete parent[key];
		return { text: JSON.stringify(json), what: `delete ${target.join(".")}` };
	}
	const current = parent[key];
	// Numbers nudged a little (chunk_shape 64 -> 65, an index_location flip is in the palette): near-valid stores.
	const value = typeof current === "number" && random.next() < 0.5 ? random.pick([current + 1, current - 1, current * 2, Math.floor(current / 2)]) : random.pick(JSON_PALETTE);
	parent[key] = value;
	return { text: JSON.stringify(json), what: `${target.join(".")} = ${JSON.stringify(value)}` };
}

function flipBytes(bytes: Uint8Array, random: Random, printable: boolean): { bytes: Uint8Array; what: string } {
	const out = Uint8Array.from(bytes);
	const flips = 1 + random.int(4);
	const at: number[] = [];
	for (let i = 0; i < flips && out.length > 0; i++) {
		const position = random.int(out.length);
		at.push(position);
		out[position] = printable ? 0x20 + random.int(0x5f) : out[position] ^ (1 + random.int(255));
	}
	return { bytes: out, what: `bytes at ${at.join(",")} changed` };
}

function mutateChunk(bytes: Uint8Array, random: Random): { bytes: Uint8Array | null; what: string } {
	const roll = random.next();
	if (roll < 0.6) return flipBytes(bytes, random, false);
	if (roll < 0.75) {
		const length = random.int(bytes.length);
		return { bytes: bytes.subarray(0, length), what: `truncated to ${length} bytes` };
	}
	if (roll < 0.85) {
		const extra = Uint8Array.from({ length: 1 + random.int(16) }, () => random.int(256));
		return { bytes: new Uint8Array([...bytes, ...extra]), what: `${extra.length} bytes appended` };
	}
	if (roll < 0.9) return { bytes: new Uint8Array(0), what: "emptied" };
	if (roll < 0.95) return { bytes: null, what: "deleted" };
	// A whole run of the header or trailer (sizes, magic numbers, index entries) overwritten.
	const out = Uint8Array.from(bytes);
	const start = random.next() < 0.5 ? 0 : Math.max(0, out.length - 24);
	for (let i = start; i < Math.min(out.length, start + 24); i++) if (random.next() < 0.3) out[i] = random.int(256);
	return { bytes: out, what: `bytes ${start}..${start + 24} scrambled` };
}

function listFiles(root: string, relative = ""): string[] {
	return fs.readdirSync(path.join(root, relative), { withFileTypes: true }).flatMap((entry) => {
		const child = relative ? `${relative}/${entry.name}` : entry.name;
		return entry.isDirectory() ? listFiles(root, child) : [child];
	});
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`hang: ${what} did not finish within ${ms} ms`)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const work = tempDir("dt64-fuzz-");
const roots: string[] = [];
const originals: Map<string, Uint8Array>[] = [];
const cases: Case[] = [];
const outcomes = new Map<number, Outcome>();

beforeAll(async () => {
	for (const [i, [name, spec]] of STORES.entries()) {
		const root = path.join(work, `${name}.zarr`);
		const size = (spec.shape as number[]).reduce((a, b) => a * b, 1);
		await writeArray(root, "", { values: values(size, i + 1), fillValue: "NaT", ...spec } as Parameters<typeof writeArray>[2]);
		roots.push(root);
		originals.push(new Map(listFiles(root).map((file) => [file, new Uint8Array(fs.readFileSync(path.join(root, file)))])));
	}
	const random = prng(SEED);
	for (let store = 0; store < STORES.length; store++) {
		const files = [...originals[store].keys()];
		const chunkFiles = files.filter((file) => file !== "zarr.json");
		for (let n = 0; n < CASES_PER_STORE; n++) {
			const roll = random.next();
			let mutation: Mutation;
			if (roll < 0.3) {
				const { bytes, what } = flipBytes(originals[store].get("zarr.json")!, random, random.next() < 0.5);
				mutation = { file: "zarr.json", bytes, what: `zarr.json: ${what}` };
			} else if (roll < 0.5) {
				const { text, what } = mutateJsonValue(new TextDecoder().decode(originals[store].get("zarr.json")), random);
				mutation = { file: "zarr.json", bytes: new TextEncoder().encode(text), what: `zarr.json: ${what}` };
			} else {
				const file = random.pick(chunkFiles);
				const { bytes, what } = mutateChunk(originals[store].get(file)!, random);
				mutation = { file, bytes, what: `${file}: ${what}` };
			}
			const format: OutputFormat = random.next() < 0.8 ? "arrow" : random.next() < 0.5 ? "arrow-stream" : "parquet";
			cases.push({ id: cases.length, store, mutation, format });
		}
	}
});

function apply(root: string, mutation: Mutation): void {
	const file = path.join(root, mutation.file);
	if (mutation.bytes === null) fs.rmSync(file);
	else fs.writeFileSync(file, mutation.bytes);
}

const describeCase = (c: Case) => `case ${c.id} (${STORES[c.store][0]}, ${c.format}) ${c.mutation.what}`;

describe(`fuzzing ${STORES.length} stores × ${CASES_PER_STORE} mutations (seed 0x${SEED.toString(16)})`, () => {
	/** Runs one case in process, then restores the store. */
	async function runCase(c: Case, outDir: string): Promise<{ outcome: Outcome; problems: string[] }> {
		const root = roots[c.store];
		apply(root, c.mutation);
		const target = path.join(outDir, `out.${c.format}`);
		let outcome: Outcome;
		try {
			outcome = await withTimeout(exportInProcess(root, target, { format: c.format }), CASE_TIMEOUT_MS, describeCase(c));
		} catch (error) {
			outcome = { ok: false, error };
		}
		const problems: string[] = [];
		const violation = outcome.ok ? undefined : contractViolation(outcome.error);
		if (violation !== undefined) problems.push(`${describeCase(c)}: ${violation.split("\n").slice(0, 4).join(" | ")}`);
		const left = fs.readdirSync(outDir);
		const expected = outcome.ok ? [path.basename(target)] : [];
		if (left.join() !== expected.join()) problems.push(`${describeCase(c)}: output folder holds ${JSON.stringify(left)}, expected ${JSON.stringify(expected)}`);
		for (const name of left) fs.rmSync(path.join(outDir, name));
		// Restore the store for the next case, and check that nothing else in it changed: an export that failed
		// mid-write once closed its output under a write still queued, which then landed in the chunk file opened next.
		fs.writeFileSync(path.join(root, c.mutation.file), originals[c.store].get(c.mutation.file)!);
		for (const [file, bytes] of originals[c.store]) {
			if (!fs.readFileSync(path.join(root, file)).equals(bytes)) problems.push(`${describeCase(c)}: ${file} of the store changed during the export`);
		}
		return { outcome, problems };
	}

	/**
	 * Every case run in process once, whichever test asks first: the CLI sample compares its exits with these
	 * outcomes, and tests run in any order (vitest's --sequence.shuffle ran the sample first, before any outcome).
	 */
	let inProcess: Promise<string[]> | undefined;
	function runInProcess(): Promise<string[]> {
		inProcess ??= (async () => {
			const outDir = path.join(work, "out");
			fs.mkdirSync(outDir);
			const violations: string[] = [];
			for (const c of cases) {
				const { outcome, problems } = await runCase(c, outDir);
				outcomes.set(c.id, outcome);
				violations.push(...problems);
			}
			return violations;
		})();
		return inProcess;
	}

	it("every run in process succeeds or throws a one-line Dt64ExportError, with no temporary file left", { timeout: 180_000 }, async () => {
		const violations = await runInProcess();
		const exported = cases.filter((c) => outcomes.get(c.id)!.ok).length;
		console.log(`fuzz: ${cases.length} cases, ${exported} exported, ${cases.length - exported} refused, ${violations.length} contract violations`);
		expect(violations.slice(0, 20)).toEqual([]);
		expect(cases.length - exported).toBeGreaterThan(cases.length / 4);
		expect(exported).toBeGreaterThan(cases.length / 20);
	});

	it(`a sample of ${CLI_SAMPLE_SIZE} mutated stores through the CLI: exit 0, or 1/2 with one line on stderr`, { timeout: 180_000 }, async () => {
		await runInProcess();
		expect(outcomes.size).toBe(cases.length);
		// Half the sample from exports that succeeded in process, half from refusals, spread over all stores.
		const succeeded = cases.filter((c) => outcomes.get(c.id)!.ok);
		const refused = cases.filter((c) => !outcomes.get(c.id)!.ok);
		const spread = (from: Case[], n: number) => Array.from({ length: Math.min(n, from.length) }, (_, i) => from[Math.floor((i * from.length) / Math.min(n, from.length))]);
		const sample = [...spread(succeeded, CLI_SAMPLE_SIZE / 3), ...spread(refused, CLI_SAMPLE_SIZE - CLI_SAMPLE_SIZE / 3)];
		const problems: string[] = [];
		const runOne = async (c: Case) => {
			const root = path.join(work, `cli-${c.id}.zarr`);
			fs.cpSync(roots[c.store], root, { recursive: true });
			apply(root, c.mutation);
			const outDir = path.join(work, `cli-out-${c.id}`);
			fs.mkdirSync(outDir);
			const target = path.join(outDir, `out.${c.format === "arrow-stream" ? "arrows" : c.format}`);
			const run = await spawnCli([root, "--to", c.format, "-o", target, "-q", "--concurrency", "2"]);
			const outcome = outcomes.get(c.id)!;
			const expectedStatus = outcome.ok ? 0 : (outcome.error as { kind?: string }).kind === "usage" ? 2 : 1;
			const lines = run.stderr.split("\n").filter((line) => line !== "");
			if (run.status !== expectedStatus) problems.push(`${describeCase(c)}: exit ${run.status} (signal ${run.signal}), expected ${expectedStatus}; stderr ${JSON.stringify(run.stderr.slice(0, 300))}`);
			if (run.status === 0 && run.stderr !== "") problems.push(`${describeCase(c)}: success with stderr ${JSON.stringify(run.stderr)}`);
			if (run.status !== 0 && (lines.length !== 1 || !lines[0].startsWith("dt64-export: ") || !run.stderr.endsWith("\n"))) {
				problems.push(`${describeCase(c)}: stderr is not one "dt64-export: " line: ${JSON.stringify(run.stderr.slice(0, 300))}`);
			}
			if (/^ {4}at /m.test(run.stderr)) problems.push(`${describeCase(c)}: stack trace on stderr`);
			const left = fs.readdirSync(outDir);
			if (tempFilesIn(outDir).length > 0 || left.length !== (run.status === 0 ? 1 : 0)) problems.push(`${describeCase(c)}: output folder holds ${JSON.stringify(left)}`);
		};
		// A few at a time: each spawn is mostly Node start-up.
		const queue = [...sample];
		await Promise.all(Array.from({ length: 4 }, async () => {
			for (let c = queue.shift(); c !== undefined; c = queue.shift()) await runOne(c);
		}));
		expect(problems).toEqual([]);
		expect(sample.length).toBe(CLI_SAMPLE_SIZE);
	});
});

function spawnCli(args: string[]): Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, DT64_DEBUG: "" }, stdio: ["ignore", "ignore", "pipe"] });
		const stderr: Buffer[] = [];
		child.stderr.on("data", (b: Buffer) => stderr.push(b));
		const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
		child.on("error", reject);
		child.on("close", (status, signal) => {
			clearTimeout(timer);
			resolve({ status, signal, stderr: Buffer.concat(stderr).toString() });
		});
	});
}
