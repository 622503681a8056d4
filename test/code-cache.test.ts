/**
 * The CLI's chunks are loaded with the V8 code caches the build makes beside them (src/cli/bundle-loader.ts,
 * code-cache.ts): a valid cache is given to V8 and taken; a cache that is damaged, made for another Node or for
 * another source is never given to V8 (which checks none of that itself), the chunk is compiled from its source
 * with the very same output, and the cache is written again; one that V8 rejects (other V8 flags) is not rewritten;
 * a folder that cannot be written keeps its files. Each run reports how each chunk was loaded in the file
 * DT64_CODE_CACHE_REPORT names, which leaves the CLI's own output alone.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { codeCacheKey, decodeCodeCache, encodeCodeCache } from "../src/cli/code-cache.js";
import { REPO, tempDir } from "./support/cli.js";

describe("a code cache file", () => {
	const source = Buffer.from("exports.answer = 42;\n");
	const data = Buffer.from(Array.from({ length: 300 }, (_, k) => (k * 7) & 0xff));
	const file = encodeCodeCache(source, data);

	it("gives back V8's data for the source it was made from", () => {
		expect(decodeCodeCache(file, source)?.equals(data)).toBe(true);
	});

	it("gives nothing for another source, even of the same length", () => {
		expect(decodeCodeCache(file, Buffer.from("exports.answer = 43;\n"))).toBeUndefined();
		expect(decodeCodeCache(file, Buffer.from("exports.answer = 4;\n"))).toBeUndefined();
	});

	it("gives nothing when damaged: a byte of the data, of the header, the end cut off, bytes added", () => {
		for (const at of [file.length - 1, file.length - data.length, 3, 30, 40]) {
			const damaged = Buffer.from(file);
			damaged[at] ^= 0x01;
			expect([at, decodeCodeCache(damaged, source)]).toEqual([at, undefined]);
		}
		expect(decodeCodeCache(file.subarray(0, file.length - 1), source)).toBeUndefined();
		expect(decodeCodeCache(Buffer.concat([file, Buffer.of(0)]), source)).toBeUndefined();
		expect(decodeCodeCache(Buffer.alloc(0), source)).toBeUndefined();
	});

	it("gives nothing when made for another Node", () => {
		const key = Buffer.from(codeCacheKey(), "latin1");
		const at = file.indexOf(key);
		expect(at).toBeGreaterThan(0);
		const other = Buffer.from(file);
		other.write(codeCacheKey().replace(process.version, process.version.replace(/\d/, (digit) => String((Number(digit) + 1) % 10))), at, "latin1");
		expect(decodeCodeCache(other, source)).toBeUndefined();
	});
});

/** A copy of the CLI as installed: bin/ and dist/bundle/, package.json, the repository's node_modules. */
function installCli(folder: string): string {
	fs.cpSync(path.join(REPO, "bin"), path.join(folder, "bin"), { recursive: true });
	fs.cpSync(path.join(REPO, "dist", "bundle"), path.join(folder, "dist", "bundle"), { recursive: true });
	fs.copyFileSync(path.join(REPO, "package.json"), path.join(folder, "package.json"));
	fs.symlinkSync(path.join(REPO, "node_modules"), path.join(folder, "node_modules"));
	return folder;
}

interface Run {
	status: number | null;
	stdout: string;
	stderr: string;
	/** The output file's bytes, as base64, when the command writes one. */
	output?: string;
	/** chunk -> how it was loaded (bundle-loader.ts's report). */
	chunks: Record<string, string>;
}

const work = tempDir("dt64-code-cache-");
const DATA = path.join(REPO, "data");
const COMMANDS: Record<string, string[]> = {
	version: ["--version"],
	inspect: ["inspect", path.join(DATA, "observations.zarr")],
	arrow: [path.join(DATA, "weather-station.zarr"), "-o", "OUT.arrow", "-q"],
	parquet: [path.join(DATA, "observations.zarr"), "--columns", "time,temperature,station", "-o", "OUT.parquet", "-q"],
	// zstd on a decode thread, whose module (an ES module of its own) the bundle's chunks start.
	threads: [path.join(DATA, "sharded-2d.zarr"), "-o", "OUT.arrow", "-q"],
	refused: [path.join(DATA, "nothing-here.zarr"), "-o", "OUT.arrow"],
};

let runs = 0;
function run(installed: string, command: string, options: { nodeArgs?: string[]; env?: Record<string, string> } = {}): Run {
	const report = path.join(work, `report-${runs}.txt`);
	const output = path.join(work, `out-${runs++}`);
	const args = COMMANDS[command].map((arg) => arg.replace("OUT", output));
	const env: NodeJS.ProcessEnv = { ...process.env, DT64_CODE_CACHE_REPORT: report, DT64_DECODE_THREADS: command === "threads" ? "1" : "0", ...options.env };
	delete env.DT64_DEBUG;
	const result = spawnSync(process.execPath, [...(options.nodeArgs ?? []), path.join(installed, "bin", "dt64-export.js"), ...args], { encoding: "utf8", env });
	const written = args.find((arg) => arg.startsWith(output));
	const chunks = Object.fromEntries(
		(fs.existsSync(report) ? fs.readFileSync(report, "utf8") : "")
			.split("\n")
			.filter((line) => line !== "")
			.map((line) => line.split(" ")),
	);
	return {
		status: result.status,
		stdout: result.stdout,
		stderr: result.stderr,
		...(written === undefined || !fs.existsSync(written) ? {} : { output: fs.readFileSync(written).toString("base64") }),
		chunks,
	};
}

/** A run's result without the report: what a user sees. */
const seen = ({ chunks: _, ...rest }: Run) => rest;
const cacheFiles = (installed: string) => fs.readdirSync(path.join(installed, "dist", "bundle")).filter((file) => file.endsWith(".v8cache"));
const chunkOf = (installed: string, prefix: string) => {
	const found = fs.readdirSync(path.join(installed, "dist", "bundle")).find((file) => file.startsWith(prefix) && file.endsWith(".cjs"));
	if (found === undefined) throw new Error(`no chunk ${prefix}*.cjs`);
	return found;
};

describe("the CLI with its code caches", () => {
	const pristine = installCli(path.join(work, "pristine"));
	const expected: Record<string, Run> = {};

	beforeAll(() => {
		for (const command of Object.keys(COMMANDS)) expected[command] = run(pristine, command);
	}, 60_000);

	it("has a cache beside every chunk, and every command takes the caches of the chunks it loads", () => {
		const chunks = fs.readdirSync(path.join(pristine, "dist", "bundle")).filter((file) => file.endsWith(".cjs"));
		expect(chunks.length).toBeGreaterThan(5);
		expect(cacheFiles(pristine).sort()).toEqual(chunks.map((chunk) => `${chunk}.v8cache`).sort());
		for (const [command, result] of Object.entries(expected)) {
			expect(Object.keys(result.chunks), command).toContain("dt64-export.cjs");
			expect(Object.values(result.chunks).every((status) => status === "used"), `${command}: ${JSON.stringify(result.chunks)}`).toBe(true);
		}
		expect(expected.version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
		expect(expected.refused.status).toBe(1);
		expect(expected.parquet.output?.length).toBeGreaterThan(100);
	});

	it("compiles a chunk whose cache is damaged, for another Node or of another source with the same output, and writes the cache again", () => {
		const installed = installCli(path.join(work, "damaged"));
		const bundle = path.join(installed, "dist", "bundle");
		const damaged = {
			"dt64-export.cjs": (file: Buffer) => {
				file[file.length - 100] ^= 0x10;
			},
			[chunkOf(installed, "boolean-coding-")]: (file: Buffer) => {
				const at = file.indexOf(Buffer.from(`node ${process.version}`, "latin1"));
				file.write("X", at + 5, "latin1");
			},
			[chunkOf(installed, "Arrow.node-")]: (file: Buffer, chunk: string) => {
				// A cache made from another source of the same length: V8 would take it (it checks the length only).
				const other = fs.readFileSync(path.join(bundle, chunk));
				other[other.length - 2] ^= 0x01;
				const data = decodeCodeCache(file, fs.readFileSync(path.join(bundle, chunk))) as Buffer;
				encodeCodeCache(other, data).copy(file);
			},
			[chunkOf(installed, "errors-")]: (file: Buffer) => file.fill(0, 0, 8),
		};
		for (const [chunk, damage] of Object.entries(damaged)) {
			const cache = path.join(bundle, `${chunk}.v8cache`);
			const bytes = fs.readFileSync(cache);
			damage(bytes, chunk);
			fs.writeFileSync(cache, bytes);
		}
		fs.rmSync(path.join(bundle, `${chunkOf(installed, "iso8601-")}.v8cache`));
		const rewritten = [...Object.keys(damaged), chunkOf(installed, "iso8601-")];

		// An export: it loads every chunk damaged here (--version no longer loads apache-arrow's).
		const first = run(installed, "arrow");
		expect(seen(first)).toEqual(seen(expected.arrow));
		for (const chunk of rewritten) expect([chunk, first.chunks[chunk]]).toEqual([chunk, chunk.startsWith("iso8601-") ? "missing+written" : "invalid+written"]);
		for (const [chunk, status] of Object.entries(first.chunks)) if (!rewritten.includes(chunk)) expect([chunk, status]).toEqual([chunk, "used"]);
		// Written again: the next runs take every cache, and give what the pristine copy gives.
		for (const command of Object.keys(COMMANDS)) {
			const again = run(installed, command);
			expect(seen(again), command).toEqual(seen(expected[command]));
			expect(Object.values(again.chunks).every((status) => status === "used"), `${command}: ${JSON.stringify(again.chunks)}`).toBe(true);
		}
		expect(fs.readdirSync(bundle).filter((file) => file.endsWith(".tmp"))).toEqual([]);
	}, 60_000);

	it("writes a cache with its chunk's permissions whatever the umask: never writable by others (trial 25, finding 03)", () => {
		const installed = installCli(path.join(work, "umask"));
		const bundle = path.join(installed, "dist", "bundle");
		const chunk = chunkOf(installed, "iso8601-");
		fs.chmodSync(path.join(bundle, chunk), 0o644);
		fs.rmSync(path.join(bundle, `${chunk}.v8cache`));
		const result = spawnSync("/bin/sh", ["-c", `umask 000; exec '${process.execPath}' '${path.join(installed, "bin", "dt64-export.js")}' "$@"`, "sh", ...COMMANDS.arrow.map((arg) => arg.replace("OUT", path.join(work, "umask-out")))], {
			env: { ...process.env, DT64_DECODE_THREADS: "0" },
		});
		expect(result.status).toBe(0);
		expect((fs.statSync(path.join(bundle, `${chunk}.v8cache`)).mode & 0o777).toString(8)).toBe("644");
	});

	it("compiles every chunk of every command from its source, with the same output, when each cache is damaged", () => {
		const installed = installCli(path.join(work, "all-damaged"));
		for (const file of cacheFiles(installed)) {
			const cache = path.join(installed, "dist", "bundle", file);
			const bytes = fs.readFileSync(cache);
			bytes[bytes.length - 1] ^= 0x80;
			fs.writeFileSync(cache, bytes);
		}
		for (const command of Object.keys(COMMANDS)) {
			const result = run(installed, command, { env: { DT64_CODE_CACHE: "0" } });
			expect(seen(result), command).toEqual(seen(expected[command]));
			expect(Object.values(result.chunks).every((status) => status === "off"), command).toBe(true);
		}
		const before = cacheFiles(installed).map((file) => fs.readFileSync(path.join(installed, "dist", "bundle", file)).toString("base64"));
		for (const command of Object.keys(COMMANDS)) {
			const result = run(installed, command);
			expect(seen(result), command).toEqual(seen(expected[command]));
			expect(Object.values(result.chunks).every((status) => status === "used" || status === "invalid+written"), `${command}: ${JSON.stringify(result.chunks)}`).toBe(true);
		}
		expect(cacheFiles(installed).map((file) => fs.readFileSync(path.join(installed, "dist", "bundle", file)).toString("base64"))).not.toEqual(before);
	}, 60_000);

	it("leaves a cache that V8 rejects (a run with other V8 flags) as it is, with the same output", () => {
		const installed = installCli(path.join(work, "flags"));
		const before = cacheFiles(installed).map((file) => fs.readFileSync(path.join(installed, "dist", "bundle", file)).toString("base64"));
		const result = run(installed, "inspect", { nodeArgs: ["--max-old-space-size=1000"] });
		expect(seen(result)).toEqual(seen(expected.inspect));
		expect(Object.values(result.chunks).every((status) => status === "rejected"), JSON.stringify(result.chunks)).toBe(true);
		expect(cacheFiles(installed).map((file) => fs.readFileSync(path.join(installed, "dist", "bundle", file)).toString("base64"))).toEqual(before);
	}, 30_000);

	it.skipIf(process.getuid?.() === 0)("uses the caches of a folder it cannot write, and leaves it as it is when they do not fit", () => {
		const installed = installCli(path.join(work, "read-only"));
		const bundle = path.join(installed, "dist", "bundle");
		const cache = path.join(bundle, "dt64-export.cjs.v8cache");
		const bytes = fs.readFileSync(cache);
		bytes[bytes.length - 1] ^= 0x80;
		fs.writeFileSync(cache, bytes);
		fs.chmodSync(bundle, 0o555);
		try {
			const result = run(installed, "version");
			expect(seen(result)).toEqual(seen(expected.version));
			expect(result.chunks["dt64-export.cjs"]).toBe("invalid");
			expect(fs.readFileSync(cache).equals(bytes)).toBe(true);
		} finally {
			fs.chmodSync(bundle, 0o755);
		}
	});
});
