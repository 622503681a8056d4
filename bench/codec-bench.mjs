// The codec section of `npm run bench`: stores written by real producers (bench/lib/codec-stores.py, Debian's
// /usr/bin/python3 with numcodecs and zarr-python 2.13), each exported by dt64-export and read by two references,
// alternated in one run: numcodecs' C decoders in a 2-thread pool (bench/reference-codecs.py), and zarr-python
// 2.13 itself for the v2 stores. Prints times, the ratios and peak RSS, and how peak RSS grows with length.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const PYTHON = "/usr/bin/python3";
const M = 1_000_000;
/** Bump when the stores change, so that cached ones are rebuilt. */
const FORMAT = 1;

export const CODEC_CASES = [
	{ name: "v2-blosc-lz4", store: "v2-blosc-lz4", zarrPython: true },
	{ name: "v2-zstd", store: "v2-zstd", zarrPython: true },
	{ name: "v2-lz4", store: "v2-lz4", zarrPython: true },
	{ name: "v3-zstd", store: "v3-zstd" },
	{ name: "v3-blosc-zstd", store: "v3-blosc-zstd" },
	{ name: "v3-sharded-zstd", store: "v3-sharded-zstd" },
	// A time range cutting shards (7.8M of the 20M rows; 2023-12-01 and 2024-03-01T12:34:56.789 in ns for the reference).
	{ name: "v3-sharded-range", store: "v3-sharded-zstd", exportArgs: ["--start", "2023-12-01", "--end", "2024-03-01T12:34:56.789", "--time-sorted"], referenceArgs: ["--range", "1701388800000000000", "1709296496789000000"] },
	{ name: "v3-gzip", store: "v3-gzip" },
	{ name: "v3-raw", store: "v3-raw" },
	{ name: "3d-zstd-C", store: "v3-3d-zstd", exportArgs: ["--index"], referenceArgs: ["--order", "C"] },
	{ name: "3d-zstd-chunk", store: "v3-3d-zstd", exportArgs: ["--index", "--order", "chunk"], referenceArgs: ["--order", "chunk"] },
];
export const CODEC_RSS_CASES = [
	{ name: "v3-zstd-5M", store: "v3-zstd", length: 5 * M },
	{ name: "v3-zstd-50M", store: "v3-zstd", length: 50 * M },
];

export const TARGET_VS_C = 1.0;
export const TARGET_VS_ZARR_PYTHON = 0.5;
export const RSS_LIMIT_MIB = 100;

/** Whether Debian's python has numcodecs and zarr (the producers and references of this section). */
export function codecPythonVersions() {
	const probe = spawnSync(PYTHON, ["-c", "import numcodecs, zarr, numpy; print(numcodecs.__version__, zarr.__version__, numpy.__version__)"], { encoding: "utf8" });
	return probe.status === 0 ? probe.stdout.trim() : null;
}

/** The cached store `name` of `length` values, written on first use. */
export function ensureCodecStore(cacheDir, root, name, length, log) {
	const folder = path.join(cacheDir, `codecs-v${FORMAT}-${length}`);
	const dir = path.join(folder, `${name}.zarr`);
	if (!fs.existsSync(path.join(dir, ".done"))) {
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(folder, { recursive: true });
		log(`writing ${name} (${length / M}M values) with ${PYTHON} bench/lib/codec-stores.py`);
		const made = spawnSync(PYTHON, [path.join(root, "bench", "lib", "codec-stores.py"), folder, name, String(length)], { encoding: "utf8" });
		if (made.status !== 0) throw new Error(`codec-stores.py ${name}: ${made.stderr.trim()}`);
		fs.writeFileSync(path.join(dir, ".done"), "");
	}
	return dir;
}

export const referenceCommand = (root, store, output, args = []) => [PYTHON, [path.join(root, "bench", "reference-codecs.py"), store, output, "--threads", "2", ...args]];
export const zarrPythonCommand = (root, store, output) => [PYTHON, [path.join(root, "bench", "reference-codecs.py"), store, output, "--zarr-python"]];
