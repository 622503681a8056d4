/**
 * The zstd, lz4 and blosc decoders (src/zarr/codecs/wasm/, built from Debian's C sources) against the outputs of the
 * reference encoders: numcodecs' C zstd, lz4 and c-blosc (test/golden/make_codec_fixtures.py wrote them, with
 * test/fixtures/codecs/cases.json), over chunk sizes, every blosc compressor and shuffle, small blocks with a short
 * last one, and incompressible data (blosc "memcpyed"). Each chunk is decoded on the calling thread and on the
 * decode threads, through the codecs of the pipeline. The committed WebAssembly is checked to be what
 * scripts/build-wasm-codecs.sh builds, where its compiler and the Debian sources are at hand.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CODECS } from "../src/zarr/codecs/codec-map.js";
import type { BytesToBytesCodec } from "../src/zarr/codecs/codec.js";
import { readDecoderBytes, WasmDecoders, type WasmCodec } from "../src/zarr/codecs/wasm/decoder-module.js";
import { decodersWasmFile } from "../src/zarr/codecs/wasm/decoders-file.js";
import { Dt64ExportError } from "../src/errors.js";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { thrown } from "./support/thrown.js";

const REPO = path.resolve(import.meta.dirname, "..");
const FIXTURES = path.join(REPO, "test", "fixtures", "codecs");

interface Case {
	name: string;
	codec: WasmCodec;
	configuration: Record<string, unknown>;
	values: number;
	random: boolean;
	/** Bytes per value of the typesize cases (int16, int32, float32), whose decoded bytes are stored beside them. */
	typesize?: number;
}
const { cases } = JSON.parse(fs.readFileSync(path.join(FIXTURES, "cases.json"), "utf8")) as { cases: Case[] };

/** The data of make_codec_fixtures.py: value(i) = 1.7e18 + i * 1e9 + (i * 7919) % 1000. */
function expectedBytes(c: Case): Uint8Array {
	if (c.random || c.typesize !== undefined) return new Uint8Array(fs.readFileSync(path.join(FIXTURES, `${c.name}.raw`)));
	const values = BigInt64Array.from({ length: c.values }, (_, i) => 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000_000n + BigInt((i * 7919) % 1000));
	return new Uint8Array(values.buffer);
}
const encoded = (c: Case) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, `${c.name}.bin`)));

describe("decoders against numcodecs' encoders", () => {
	it("covers every blosc compressor and shuffle, 2-, 4- and 8-byte values, zstd levels, lz4, three sizes and incompressible data", () => {
		const blosc = cases.filter((c) => c.codec === "blosc");
		expect(new Set(blosc.map((c) => c.configuration.cname))).toEqual(new Set(["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]));
		expect(new Set(blosc.map((c) => c.configuration.shuffle))).toEqual(new Set(["noshuffle", "shuffle", "bitshuffle", undefined]));
		expect(new Set(cases.map((c) => c.values))).toEqual(new Set([1, 1000, 20011, 5003]));
		expect(new Set(blosc.map((c) => c.typesize ?? 8))).toEqual(new Set([2, 4, 8]));
		expect(cases.length).toBe(84);
	});

	const decoders = new WasmDecoders();
	const whole = decoders;
	for (const c of cases) {
		it(`${c.name} on the calling thread`, () => {
			const expected = expectedBytes(c);
			const output = new Uint8Array(expected.byteLength + 64);
			const length = decoders.decode(c.codec, encoded(c), output).length;
			expect(length).toBe(expected.byteLength);
			expect(Buffer.compare(output.subarray(0, length), expected)).toBe(0);
		});
	}

	it("every case through the pipeline's codecs, on the decode threads, into a buffer pool", async () => {
		const pool = new BufferPool();
		await Promise.all(
			cases.map(async (c) => {
				const expected = expectedBytes(c);
				const codec = CODECS.get(c.codec)!(c.configuration, { shape: [c.values], dataType: "int64", maxDecodedBytes: expected.byteLength + 64, bufferPool: pool }) as BytesToBytesCodec;
				const decoded = await codec.decode(encoded(c));
				expect(Buffer.compare(decoded, expected), c.name).toBe(0);
			}),
		);
	});

	it("every case decoded in steps (a window of 1 KiB): blosc a run of blocks at a time, apart and in one buffer with its output", () => {
		const stepped = new WasmDecoders(undefined, { windowBytes: 1024 });
		let blosc = 0;
		let lz4 = 0;
		for (const c of cases) {
			const expected = expectedBytes(c);
			const capacity = expected.byteLength + 64;
			const output = new Uint8Array(capacity);
			const before = stepped.decodedInSteps;
			const length = stepped.decode(c.codec, encoded(c), output, true).length;
			expect(Buffer.compare(output.subarray(0, length), expected), c.name).toBe(0);
			if (c.codec === "blosc" && expected.byteLength >= 4096) {
				expect(stepped.decodedInSteps, c.name).toBe(before + 1);
				blosc++;
			}
			if (c.codec === "lz4" && expected.byteLength >= 4096) {
				expect(stepped.decodedInSteps, c.name).toBe(before + 1);
				lz4++;
			}
			const buffer = new ArrayBuffer(Math.max(capacity, encoded(c).byteLength));
			new Uint8Array(buffer).set(encoded(c));
			const inBuffer = stepped.decodeInBuffer(c.codec, buffer, encoded(c).byteLength, capacity, true);
			expect(Buffer.compare(new Uint8Array(buffer, 0, inBuffer.length), expected), c.name).toBe(0);
		}
		expect(blosc).toBeGreaterThan(40);
		expect(lz4).toBe(5);
	});

	it("a decoder refuses output past its buffer, and corrupt input, with the decoder's own status, whole and in steps", () => {
		const stepped = new WasmDecoders(undefined, { windowBytes: 1024 });
		for (const c of cases.filter((c) => c.values === 1000 && c.configuration.shuffle !== "noshuffle")) for (const decoders of [whole, stepped]) {
			const expected = expectedBytes(c);
			expect(() => decoders.decode(c.codec, encoded(c), new Uint8Array(expected.byteLength - 8)), c.name).toThrow(new RegExp(`^${c.codec}: `));
			const corrupt = encoded(c).map((byte, i, all) => (i > 20 && i < all.length - 4 ? byte ^ 0x55 : byte));
			let decodedLength = -1;
			try {
				decodedLength = decoders.decode(c.codec, corrupt, new Uint8Array(expected.byteLength + 64)).length;
			} catch (error) {
				expect((error as Error).message, c.name).toMatch(new RegExp(`^${c.codec}: `));
			}
			// lz4 and zstd without a checksum may decode garbage of the right length; never more than the buffer.
			expect(decodedLength).toBeLessThanOrEqual(expected.byteLength + 64);
		}
	});

	it("a blosc chunk with any one byte changed gets the same answer decoded in steps as decoded whole: the bytes, or blosc's error", () => {
		const stepped = new WasmDecoders(undefined, { windowBytes: 1024 });
		const answer = (decoders: WasmDecoders, bytes: Uint8Array, capacity: number) => {
			const output = new Uint8Array(capacity);
			try {
				return createHash("sha256").update(output.subarray(0, decoders.decode("blosc", bytes, output).length)).digest("hex");
			} catch (error) {
				return (error as Error).message;
			}
		};
		let compared = 0;
		for (const c of cases.filter((c) => c.codec === "blosc" && c.values === 1000)) {
			const bytes = encoded(c);
			const capacity = expectedBytes(c).byteLength + 64;
			for (let at = 0; at < bytes.byteLength; at += 7) {
				const changed = bytes.slice();
				changed[at] ^= at < 16 ? 0x01 : 0xa5;
				expect(answer(stepped, changed, capacity), `${c.name} byte ${at}`).toBe(answer(whole, changed, capacity));
				compared++;
			}
		}
		expect(compared).toBeGreaterThan(1000);
	});
});

describe("blosc-snappy (snappy-decode.c, this package's own snappy decoder)", () => {
	it("refuses every single-byte corruption it cannot decode with blosc's status, and never writes past the chunk", () => {
		const decoders = new WasmDecoders();
		for (const c of cases.filter((c) => c.configuration.cname === "snappy" && c.values === 1000)) {
			const expected = expectedBytes(c);
			const bytes = encoded(c);
			for (let at = 16; at < bytes.byteLength; at += 3) {
				const corrupt = bytes.slice();
				corrupt[at] ^= 0xff;
				const output = new Uint8Array(expected.byteLength + 64);
				try {
					expect(decoders.decode("blosc", corrupt, output).length, `${c.name} byte ${at}`).toBe(expected.byteLength);
				} catch (error) {
					expect((error as Error).message, `${c.name} byte ${at}`).toMatch(/^blosc: the chunk does not decompress/);
				}
			}
		}
	});
});

const clang = spawnSync("clang-19", ["--version"]).status === 0;
const sources = fs.existsSync("/tmp/dt64-export-wasm-codecs/sources/c-blosc_1.21.3+ds.orig.tar.xz");

describe("the committed WebAssembly", () => {
	it("is read from its file beside the decoders' module; a missing file is named, with the reason", () => {
		expect(Buffer.from(readDecoderBytes()).subarray(0, 4).toString("latin1")).toBe("\0asm");
		expect(decodersWasmFile().pathname.endsWith("/src/zarr/codecs/wasm/decoders.wasm")).toBe(true);
		const missing = new URL("./no-such-decoders.wasm", decodersWasmFile());
		expect(() => readDecoderBytes(missing)).toThrow(Dt64ExportError);
		expect(thrown(() => readDecoderBytes(missing))).toMatchObject({ code: "PACKAGE_FILE_MISSING", path: fileURLToPath(missing) });
		expect(() => readDecoderBytes(missing)).toThrow(/^dt64-export's decoders\.wasm \(its zstd, lz4 and blosc decoders' WebAssembly\) cannot be read at \/.*no-such-decoders\.wasm \(ENOENT: no such file or directory\): /);
	});

	it.skipIf(!clang || !sources)(
		`is what scripts/build-wasm-codecs.sh builds${clang && sources ? "" : " (skipped: needs clang-19, lld-19, wasi-libc and the Debian sources fetched by a first run of the script)"}`,
		() => {
			const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dt64-wasm-")), "decoders.wasm");
			const build = spawnSync("bash", [path.join(REPO, "scripts", "build-wasm-codecs.sh"), out], { encoding: "utf8" });
			expect(build.stderr).toBe("");
			expect(fs.readFileSync(out).equals(fs.readFileSync(path.join(REPO, "src", "zarr", "codecs", "wasm", "decoders.wasm")))).toBe(true);
		},
		180_000,
	);
});
