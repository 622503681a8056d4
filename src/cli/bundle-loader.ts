/**
 * Loads the CLI bundle (dist/bundle/*.cjs, CommonJS chunks made by scripts/bundle-cli.mjs) with V8 code caches, so
 * that a run of the CLI deserializes the bytecode of its ~1 MB of JavaScript instead of compiling it: Node 20 has no
 * compile cache for modules, and an ES module cannot be given one, but a script can (vm.Script `cachedData`). The
 * chunks are plain CommonJS: Node's own require runs the same files (DT64_DEBUG=1 does, for its source maps), and
 * this loader only does what require would, with a cache: one module object per chunk, the chunk's source wrapped in
 * the function Node wraps a CommonJS module in, `require` of the chunk's siblings answered here and of anything else
 * (node:*, packages) by Node's require from the chunk's folder.
 *
 * A chunk's cache is `<chunk>.v8cache` beside it (code-cache.ts), made by the build. One that is missing, made for
 * another Node or source, damaged or rejected by V8 is not used: the chunk is compiled from its source, as it would
 * be without any cache. One that is missing, made for another Node or source or damaged is written again from that
 * compilation when the folder can be written (atomically: a temporary file renamed; a read-only install folder is
 * left as it is). Nothing else in the process changes: no loader hook, no V8 flag, no global.
 *
 * With DT64_DEBUG=1 the chunks are loaded by Node's require, which maps stacks through their source maps.
 * DT64_CODE_CACHE=0 loads without reading or writing caches. DT64_CODE_CACHE_REPORT=<file> appends one line per
 * chunk to that file, `<chunk> <status>` (used, rejected, invalid, missing, off; `+written` when it was rewritten):
 * how the tests see which way a chunk was loaded without changing the CLI's own output.
 */
import * as fs from "node:fs";
import { isAscii } from "node:buffer";
import { createRequire } from "node:module";
import * as path from "node:path";
import * as vm from "node:vm";
import { codeCacheSupported, decodeCodeCache, encodeCodeCache } from "./code-cache.js";

/** The file a chunk's cache is kept in. */
export function codeCacheFile(chunk: string): string {
	return `${chunk}.v8cache`;
}

/** The source of a chunk as Node's CommonJS loader compiles it: a function of the module's variables. */
function wrapChunkSource(source: string): string {
	return `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
}

/** The text of a chunk's bytes: ASCII (scripts/bundle-cli.mjs makes it so) as a one-byte string, else UTF-8. */
function chunkText(bytes: Buffer): string {
	return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

/** A compiled chunk, with the cache's file bytes it was compiled with. */
export function compileChunk(file: string, bytes: Buffer, cachedData?: Buffer): vm.Script {
	return new vm.Script(wrapChunkSource(chunkText(bytes)), { filename: file, ...(cachedData === undefined ? {} : { cachedData }) });
}

type CacheStatus = "used" | "rejected" | "invalid" | "missing" | "off";

interface ChunkModule {
	exports: Record<string, unknown>;
}

/** The chunks of one bundle folder, each loaded once. */
export class BundleLoader {
	readonly #folder: string;
	readonly #modules = new Map<string, ChunkModule>();
	readonly #cached: boolean;
	readonly #report: string | undefined;
	readonly #nodeRequire: NodeJS.Require | undefined;

	constructor(folder: string, env: NodeJS.ProcessEnv = process.env) {
		this.#folder = folder;
		// Stacks mapped to src/*.ts need Node's own loader, which reads the chunks' source maps (vm.Script does not).
		this.#nodeRequire = env.DT64_DEBUG === "1" ? createRequire(path.join(folder, "bundle-loader")) : undefined;
		this.#cached = env.DT64_CODE_CACHE !== "0" && codeCacheSupported();
		this.#report = env.DT64_CODE_CACHE_REPORT || undefined;
	}

	/** The exports of the chunk `name` (a file of the folder), loaded now if it was not. */
	require(name: string): Record<string, unknown> {
		if (this.#nodeRequire !== undefined) return this.#nodeRequire(`./${name}`) as Record<string, unknown>;
		const file = path.join(this.#folder, name);
		const loaded = this.#modules.get(file);
		if (loaded !== undefined) return loaded.exports;
		const module: ChunkModule = { exports: {} };
		// Registered before it runs, as require does: a chunk that a chunk it requires requires again gets its exports so far.
		this.#modules.set(file, module);
		const bytes = fs.readFileSync(file);
		const [cachedData, status] = this.#readCache(file, bytes);
		const script = compileChunk(file, bytes, cachedData);
		const used: CacheStatus = cachedData === undefined ? status : script.cachedDataRejected === true ? "rejected" : "used";
		const nodeRequire = createRequire(file);
		const chunkRequire = (specifier: string) => (isSibling(specifier) ? this.require(specifier.slice(2)) : nodeRequire(specifier));
		(script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, chunkRequire, module, file, path.dirname(file));
		// Not one V8 rejected: that is a run with other V8 flags (--max-old-space-size is one), which would take turns
		// with the usual runs at rewriting it. Such a run compiles its chunks as it would without any cache.
		const written = (used === "missing" || used === "invalid") && this.#writeCache(file, bytes, script);
		if (this.#report !== undefined) this.#reportStatus(`${name} ${used}${written ? "+written" : ""}\n`);
		return module.exports;
	}

	#readCache(file: string, bytes: Buffer): [Buffer | undefined, CacheStatus] {
		if (!this.#cached) return [undefined, "off"];
		let cache: Buffer;
		try {
			cache = fs.readFileSync(codeCacheFile(file));
		} catch {
			return [undefined, "missing"];
		}
		const data = decodeCodeCache(cache, bytes);
		return data === undefined ? [undefined, "invalid"] : [data, "used"];
	}

	/** Writes the cache of a chunk compiled without one, when the folder lets it; whether it did. */
	#writeCache(file: string, bytes: Buffer, script: vm.Script): boolean {
		const target = codeCacheFile(file);
		const temporary = `${target}.${process.pid}.tmp`;
		let fd: number;
		try {
			// Made with its chunk's permissions (less the umask), never more: written under the running process's umask
			// (000 in a service), the cache of code the CLI runs became writable by anyone (trial 25, finding 03).
			fd = fs.openSync(temporary, "wx", fs.statSync(file).mode & 0o666);
		} catch {
			// A read-only install folder (or another run's file): the cache is simply not kept, and not even made.
			return false;
		}
		try {
			try {
				fs.writeFileSync(fd, encodeCodeCache(bytes, script.createCachedData()));
			} finally {
				fs.closeSync(fd);
			}
			fs.renameSync(temporary, target);
			return true;
		} catch {
			fs.rmSync(temporary, { force: true });
			return false;
		}
	}

	#reportStatus(line: string): void {
		try {
			fs.appendFileSync(this.#report as string, line);
		} catch {
			// A report that cannot be written is not the CLI's failure.
		}
	}
}

/** Whether a chunk requires another chunk of its bundle (`./name.cjs`), as the bundler writes it. */
function isSibling(specifier: string): boolean {
	return specifier.startsWith("./") && specifier.endsWith(".cjs") && !specifier.includes("/", 2);
}
