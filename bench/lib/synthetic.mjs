// Synthetic datetime64 data and 1-D Zarr v3 stores for the benchmarks, written directly (a chunk of a 1-D array is
// a subarray of the values) because the general writer (scripts/lib/zarr-writer.mjs) pads and copies chunk by chunk.
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import * as zlib from "node:zlib";
import { mulberry32 } from "../../scripts/lib/mulberry32.mjs";

const gzip = promisify(zlib.gzip);
const TWO_32 = 4_294_967_296;
const INT32_MIN = -2_147_483_648;

/** Bump when the data or layout changes, so that cached stores are rebuilt. */
export const STORE_FORMAT_VERSION = 1;


/**
 * Increasing counts with jitter and about `natRate` NaT: count(i) = (start + floor(i * step) + jitter) * multiplier, where
 * the part in brackets stays a safe integer and the multiplication by `multiplier` (< 2^20) is done on the two
 * 32-bit words, so that values past 2^53 (picoseconds) are exact.
 */
export function makeCounts({ length, start, step, jitter, multiplier = 1, natRate = 0.01, seed = 1 }) {
	const values = new BigInt64Array(length);
	const words = new Int32Array(values.buffer);
	const next = mulberry32(seed);
	for (let i = 0; i < length; i++) {
		if (next() < natRate) {
			words[2 * i] = 0;
			words[2 * i + 1] = INT32_MIN;
			continue;
		}
		const k = start + Math.floor(i * step) + Math.round((next() * 2 - 1) * jitter);
		const hi = Math.floor(k / TWO_32);
		const lo = k - hi * TWO_32;
		const loProduct = lo * multiplier;
		const loWord = loProduct % TWO_32;
		words[2 * i] = loWord | 0;
		words[2 * i + 1] = hi * multiplier + (loProduct - loWord) / TWO_32;
	}
	return values;
}

const EPOCH_2000_S = 946_684_800;

/** Data for each source unit: hourly-ish observation times (days for D, months for M). */
export const SERIES = {
	s: { unit: "s", scaleFactor: 1, start: EPOCH_2000_S, step: 3600, jitter: 300 },
	D: { unit: "D", scaleFactor: 1, start: -10_000_000, step: 1, jitter: 0 },
	"10us": { unit: "us", scaleFactor: 10, start: EPOCH_2000_S * 100_000, step: 360_000_000, jitter: 30_000_000 },
	us: { unit: "us", scaleFactor: 1, start: EPOCH_2000_S * 100_000, step: 360_000_000, jitter: 30_000_000, multiplier: 10 },
	// ps only reaches +-106 days around 1970 in int64: 0.35 s steps from -35 days, exact multiples of 1000 ps (auto -> ns
	// is then exact, no --allow-truncate needed).
	ps: { unit: "ps", scaleFactor: 1, start: -3_500_000_000_000_000, step: 350_000_000, jitter: 30_000_000, multiplier: 1000 },
	// Months: +-10,000 years around 1970, each month repeated about 40 times.
	M: { unit: "M", scaleFactor: 1, start: -120_000, step: 0.024, jitter: 0 },
};

export function seriesCounts(name, length, seed = 1) {
	const { start, step, jitter, multiplier } = SERIES[name];
	return makeCounts({ length, start, step, jitter, multiplier, seed });
}

function arrayMetadata({ length, chunk, unit, scaleFactor, codec }) {
	const codecs = [{ name: "bytes", configuration: { endian: "little" } }];
	if (codec === "gzip") codecs.push({ name: "gzip", configuration: { level: 1 } });
	return {
		zarr_format: 3,
		node_type: "array",
		shape: [length],
		data_type: { name: "numpy.datetime64", configuration: { unit, scale_factor: scaleFactor } },
		chunk_grid: { name: "regular", configuration: { chunk_shape: [chunk] } },
		chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
		fill_value: "NaT",
		codecs,
		attributes: {},
		storage_transformers: [],
	};
}

function directorySize(dir) {
	let total = 0;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		total += entry.isDirectory() ? directorySize(full) : fs.statSync(full).size;
	}
	return total;
}

/**
 * Builds `<cacheDir>/<name>.zarr` unless a complete store of the same spec is there. Returns its path and size.
 * A marker file written last tells a complete store from one interrupted half way.
 */
export async function ensureStore(cacheDir, spec, log = () => {}) {
	const dir = path.join(cacheDir, `${spec.name}.zarr`);
	const marker = path.join(dir, ".bench-complete");
	const wanted = JSON.stringify({ version: STORE_FORMAT_VERSION, ...spec });
	if (fs.existsSync(marker) && fs.readFileSync(marker, "utf8") === wanted) return { dir, bytesOnDisk: directorySize(dir) - wanted.length, built: false };
	log(`building ${dir} (${spec.length.toLocaleString("en")} values, ${spec.codec})`);
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(path.join(dir, "c"), { recursive: true });
	const series = SERIES[spec.series];
	const values = seriesCounts(spec.series, spec.length, spec.seed ?? 1);
	fs.writeFileSync(path.join(dir, "zarr.json"), JSON.stringify(arrayMetadata({ ...spec, unit: series.unit, scaleFactor: series.scaleFactor }), null, 2));
	const chunks = Math.ceil(spec.length / spec.chunk);
	// Gzip a few chunks at a time on the thread pool. The last chunk is padded with the fill value, as Zarr stores it.
	const writeChunk = async (c) => {
		const offset = c * spec.chunk;
		const n = Math.min(spec.chunk, spec.length - offset);
		let raw = new Uint8Array(values.buffer, offset * 8, n * 8);
		if (n < spec.chunk) {
			const padded = new BigInt64Array(spec.chunk).fill(-(2n ** 63n));
			padded.set(values.subarray(offset, offset + n));
			raw = new Uint8Array(padded.buffer);
		}
		const bytes = spec.codec === "gzip" ? await gzip(raw, { level: 1 }) : raw;
		fs.writeFileSync(path.join(dir, "c", String(c)), bytes);
	};
	const pending = new Set();
	for (let c = 0; c < chunks; c++) {
		const p = writeChunk(c).finally(() => pending.delete(p));
		pending.add(p);
		if (pending.size >= 4) await Promise.race(pending);
	}
	await Promise.all(pending);
	fs.writeFileSync(marker, wanted);
	return { dir, bytesOnDisk: directorySize(dir) - wanted.length, built: true };
}
