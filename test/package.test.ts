/**
 * The package as a user gets it: `npm pack`, installed from the tarball in a fresh folder (dependencies from the
 * npm cache where it has them), then the CLI, an ESM import, a `require` and a type check of a consumer file.
 * Packed with --ignore-scripts: `npm test` has just built dist/, and a second build here would rewrite it under
 * the other test files.
 */
import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readArrow, REPO, tempDir } from "./support/cli.js";

const work = tempDir("dt64-package-");
const consumer = path.join(work, "consumer");
const installed = path.join(consumer, "node_modules", "dt64-export");
const STORE = path.join(REPO, "data/weather-station.zarr");
const SHARDED = path.join(REPO, "data/sharded-2d.zarr");
let install: { status: number | null; stdout: string; stderr: string };

function run(command: string, args: string[], options: SpawnSyncOptions = {}): { status: number | null; stdout: string; stderr: string } {
	const result = spawnSync(command, args, { cwd: consumer, encoding: "utf8", maxBuffer: 1 << 26, ...options });
	return { status: result.status, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** Runs `what`, failing with its output when it fails, and gives its stdout. */
function succeed(command: string, args: string[], options: SpawnSyncOptions = {}): string {
	const result = run(command, args, options);
	expect({ command: [command, ...args].join(" "), status: result.status, stderr: result.stderr }).toMatchObject({ status: 0 });
	return result.stdout;
}

beforeAll(() => {
	fs.mkdirSync(consumer);
	fs.writeFileSync(path.join(consumer, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }));
	const packed = JSON.parse(succeed("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: REPO })) as { filename: string }[];
	install = run("npm", ["install", path.join(work, packed[0].filename), "--prefer-offline", "--no-audit", "--no-fund"]);
	expect({ status: install.status, stderr: install.stderr }).toMatchObject({ status: 0 });
}, 120_000);

describe("the packed package, installed", () => {
	it("holds what it needs: LICENSE, the build, no dev dependency among its dependencies", () => {
		const manifest = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8"));
		expect(Object.keys(manifest.dependencies)).not.toContain("yargs");
		// npm 11 warns about (and skips) every dependency's install scripts: the package has none.
		for (const script of ["preinstall", "install", "postinstall", "prepare"]) expect(manifest.scripts[script], script).toBeUndefined();
		expect(install.stderr).not.toMatch(/install.scripts|allowScripts/i);
		expect(fs.readFileSync(path.join(installed, "LICENSE"), "utf8")).toMatch(/^MIT License/);
		expect(fs.existsSync(path.join(installed, "dist/bundle/dt64-export.cjs"))).toBe(true);
		// The README's quick start after `npm i -g` exports the sample stores it ships; its Scaling out names the
		// job templates of examples/.
		for (const sample of ["data/weather-station.zarr/zarr.json", "data/sharded-2d.zarr/zarr.json", "data/observations.zarr/zarr.json", "examples/slurm-array.sh", "examples/kubernetes-indexed-job.json", "examples/aws-batch-job-definition.json"]) {
			expect(fs.existsSync(path.join(installed, sample)), sample).toBe(true);
		}
		expect(fs.existsSync(path.join(consumer, "node_modules/yargs"))).toBe(false);
		// The embedded WebAssembly is typed `string`, not as an 800 kB literal type repeated in its declaration.
		const declarations = (fs.readdirSync(path.join(installed, "dist"), { recursive: true }) as string[]).filter((file) => file.endsWith(".d.ts"));
		for (const file of declarations) expect(fs.statSync(path.join(installed, "dist", file)).size, file).toBeLessThan(64 * 1024);
	});

	it("every source map resolves: each source's text is in the map (src/ is not shipped), the bundle's included", () => {
		const maps = (fs.readdirSync(path.join(installed, "dist"), { recursive: true }) as string[]).filter((file) => /\.c?js\.map$/.test(file));
		expect(maps).toContain(path.join("bundle", "dt64-export.cjs.map"));
		for (const file of maps) {
			const map = JSON.parse(fs.readFileSync(path.join(installed, "dist", file), "utf8")) as { sources: string[]; sourcesContent?: (string | null)[] };
			expect(map.sources.length, file).toBeGreaterThan(0);
			map.sources.forEach((source, i) => expect(typeof map.sourcesContent?.[i], `${file}: ${source}`).toBe("string"));
		}
		const bundleMap = JSON.parse(fs.readFileSync(path.join(installed, "dist/bundle/dt64-export.cjs.map"), "utf8")) as { sources: string[] };
		expect(bundleMap.sources).toContain("../../src/cli/main.ts");
	});

	it("runs the CLI: --help, and an export of data/", () => {
		const bin = path.join(consumer, "node_modules/.bin/dt64-export");
		expect(succeed(bin, ["--help"])).toMatch(/^dt64-export <store> \[options\]/);
		const out = path.join(consumer, "weather.arrow");
		succeed(bin, [STORE, "-o", out, "-q"]);
		expect(readArrow(out).numRows).toBe(17520);
		// zstd inside shards, by the WebAssembly file the bundle holds beside it: on the calling thread (a small
		// array), then on a decode thread (asked for), the worker's module found beside the bundle.
		for (const threads of ["", "1"]) {
			const sharded = path.join(consumer, `sharded${threads}.arrow`);
			succeed(bin, [SHARDED, "-o", sharded, "-q"], { env: { ...process.env, DT64_DECODE_THREADS: threads } });
			expect(readArrow(sharded).numRows).toBe(8760);
		}
	});

	it("holds the decoders' WebAssembly where the bundle and the library read it, and the library decodes with it", () => {
		const committed = fs.readFileSync(path.join(REPO, "src/zarr/codecs/wasm/decoders.wasm"));
		for (const copy of ["dist/bundle/decoders.wasm", "dist/zarr/codecs/wasm/decoders.wasm"]) expect(fs.readFileSync(path.join(installed, copy)).equals(committed), copy).toBe(true);
		for (const threads of ["", "1"]) {
			const out = path.join(consumer, `sharded-library${threads}.arrow`);
			const script = `import { exportToFile } from "dt64-export"; await exportToFile(${JSON.stringify(SHARDED)}, ${JSON.stringify(out)});`;
			succeed(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, DT64_DECODE_THREADS: threads } });
			expect(readArrow(out).numRows).toBe(8760);
		}
	});

	it("imports as ESM and loads with require", () => {
		const script = `const array = await openTimeArray(${JSON.stringify(STORE)}); console.log(array.metadata.shape.join());`;
		expect(succeed(process.execPath, ["--input-type=module", "-e", `import { openTimeArray } from "dt64-export"; ${script}`]).trim()).toBe("17520");
		expect(succeed(process.execPath, ["-e", `const { openTimeArray } = require("dt64-export"); (async () => { ${script} })();`]).trim()).toBe("17520");
	});

	it("type-checks a consumer's TypeScript against the shipped declarations, dependencies' declarations included (skipLibCheck off)", () => {
		fs.writeFileSync(
			path.join(consumer, "consumer.ts"),
			[
				'import { createTableExportStages, exportSelection, exportTable, exportToFile, inspectStore, openTable, openTimeArray, parseDatetime64Type, toArrowTimestamps } from "dt64-export";',
				'const array = await openTimeArray("store.zarr");',
				"const shape: readonly number[] = array.metadata.shape;",
				"console.log(shape);",
				// The README's `file:` URL store (a URL object stands for its href): the declarations said string only.
				'await openTimeArray(new URL("file:///data/store.zarr"));',
				// With exactOptionalPropertyTypes, an option left undefined (as the library takes it) type-checks too.
				'const cliUnit: "s" | "ms" | undefined = process.argv[2] === "ms" ? "ms" : undefined;',
				'await openTable("store.zarr", { columns: "all", group: undefined, signal: undefined, headers: undefined });',
				'createTableExportStages(await openTable("store.zarr", { columns: ["time"] }), { unit: cliUnit, index: undefined, onChunk: undefined, start: undefined, partitionBy: undefined });',
				'await exportToFile("store.zarr", "out.arrow", { unit: cliUnit, overwrite: undefined });',
				// `null` options are none, as README says and the calls take them at run time: the declarations said no.
				'await exportToFile("store.zarr", "out.arrow", null);',
				'await exportTable("store.zarr", process.stdout, null);',
				'await exportSelection("store.zarr", process.stdout, null);',
				'await inspectStore("store.zarr", null);',
				'await openTimeArray("store.zarr", null);',
				'toArrowTimestamps(new BigInt64Array(1), parseDatetime64Type({ name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }), null);',
				// Proves the declarations are read: with none (any), this line would not be an error.
				"// @ts-expect-error a store is named by a string or a URL",
				"await openTimeArray(42);",
			].join("\n"),
		);
		const tsconfig = { compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, exactOptionalPropertyTypes: true, noEmit: true, skipLibCheck: false }, files: ["consumer.ts"] };
		fs.writeFileSync(path.join(consumer, "tsconfig.json"), JSON.stringify(tsconfig));
		succeed(process.execPath, [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"]);
		// tsc reads apache-arrow's and the other dependencies' declarations: 10-15 s idle, over a minute when loaded.
	}, 180_000);
});
