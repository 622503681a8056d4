/**
 * Importing the library leaves the host's globals as they were (embedding trial): apache-arrow's tslib defined
 * about 30 helpers (`__awaiter`, `__extends`...) on globalThis, replacing a host's own. Each case runs in a fresh
 * Node process, since the test runner's has loaded apache-arrow already.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const library = new URL("../dist/index.js", import.meta.url).href;
const store = fileURLToPath(new URL("../data/sharded-2d.zarr", import.meta.url));

/** Runs `body` (an ES module's text after the library is imported as `lib`) in a fresh process; its JSON output. */
function inFreshProcess(prelude: string, body: string): unknown {
	const source = `${prelude}
const before = new Set(Object.getOwnPropertyNames(globalThis));
const lib = await import(${JSON.stringify(library)});
${body}
const added = Object.getOwnPropertyNames(globalThis).filter((name) => !before.has(name));
console.log(JSON.stringify({ added, ...(typeof extra === "undefined" ? {} : extra) }));`;
	const output = execFileSync(process.execPath, ["--input-type=module", "-e", source], { encoding: "utf8", env: { ...process.env, DT64_DECODE_THREADS: "1" } });
	return JSON.parse(output.trim().split("\n").at(-1) as string);
}

describe("the host's globals", () => {
	it("importing the library adds none", () => {
		expect(inFreshProcess("", "")).toEqual({ added: [] });
	});

	it("a host's own global of a tslib helper's name is kept, value and all", () => {
		const result = inFreshProcess('globalThis.__awaiter = "the host\'s";', "const extra = { value: globalThis.__awaiter };");
		expect(result).toEqual({ added: [], value: "the host's" });
	});

	it("exports to Arrow IPC and Parquet (its WebAssembly loaded, a decode thread) add none either", () => {
		const body = `
const { mkdtempSync, rmSync } = await import("node:fs");
const { tmpdir } = await import("node:os");
const { join } = await import("node:path");
const dir = mkdtempSync(join(tmpdir(), "globals-"));
await lib.exportToFile(${JSON.stringify(store)}, join(dir, "a.arrow"));
await lib.exportToFile(${JSON.stringify(store)}, join(dir, "a.parquet"), { format: "parquet" });
rmSync(dir, { recursive: true });
const extra = { exported: true };`;
		expect(inFreshProcess("", body)).toEqual({ added: [], exported: true });
	});
});
