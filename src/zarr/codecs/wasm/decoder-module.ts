import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Dt64ExportError, systemErrorReason } from "../../../errors.js";
import { capacityFor } from "../../../memory/buffer-pool.js";
import { zstdContentBound } from "../zstd-frame.js";

/** The decoders of decoders.c, by codec name. */
export type WasmCodec = "zstd" | "lz4" | "blosc";

/** The part of the WebAssembly JS API used here (the compiler's Node libraries do not declare it). */
interface WebAssemblyApi {
	Module: { new (bytes: Uint8Array): object; imports(module: object): { module: string; name: string }[] };
	Instance: new (module: object, imports: Record<string, Record<string, () => number>>) => { exports: unknown };
}
const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

interface DecoderExports {
	readonly memory: { readonly buffer: ArrayBuffer };
	alloc(bytes: number): number;
	release(pointer: number): void;
	last_error(): number;
	zstd_decode(source: number, sourceBytes: number, target: number, capacity: number): number;
	lz4_decode(source: number, sourceBytes: number, target: number, capacity: number): number;
	blosc_decode(source: number, sourceBytes: number, target: number, capacity: number): number;
	nat_positions(values: number, bytes: number, positions: number, room: number): number;
}

/** What a decode gives: the decoded length, and where NaT may be among the decoded values. */
export interface DecodedLength {
	readonly length: number;
	/**
	 * With `scanNaT`: the increasing positions of the 8-byte values that are NaT in either byte order (every NaT is
	 * among them); null when not asked, when the bytes are not whole values, or when more than one in 16 may be NaT
	 * (the caller then scans itself).
	 */
	readonly natPositions: Int32Array | null;
}

/**
 * The decoders' WebAssembly (scripts/build-wasm-codecs.sh), beside this module: in src/, in dist/ and in the CLI
 * bundle's folder (`npm run build` copies it to both). Read from its file, not embedded as base64 in a module, which
 * cost each decode thread 3-6 MiB and a few ms to parse and decode.
 */
export const DECODERS_WASM = new URL("./decoders.wasm", import.meta.url);

/** The bytes of the decoders' WebAssembly at `file`; a missing or unreadable file is named, with the reason. */
export function readDecoderBytes(file: URL = DECODERS_WASM): Uint8Array {
	try {
		return readFileSync(file);
	} catch (error) {
		throw new Dt64ExportError("INTERNAL", `the zstd, lz4 and blosc decoders' WebAssembly ${fileURLToPath(file)} cannot be read (${systemErrorReason(error as Error)}): reinstall dt64-export, or run npm run build in its checkout`);
	}
}

let compiled: object | undefined;

/**
 * The WASI calls the C library links (blosc's error printing): nothing is printed or opened; each answers ENOSYS,
 * which the C code treats as a failed write it does not depend on.
 */
function wasiStubs(module: object): Record<string, Record<string, () => number>> {
	const imports: Record<string, Record<string, () => number>> = {};
	for (const { module: from, name } of webAssembly.Module.imports(module)) (imports[from] ??= {})[name] = () => 52;
	return imports;
}

/**
 * A buffer in the module's memory, kept between decodes and grown when a chunk needs more: to the size class of
 * what is needed (see capacityFor), so that chunks a few bytes apart do not each free and allocate a new one. A
 * WebAssembly memory never shrinks, and the allocator could not reuse the freed space for the larger region: a
 * 6.6 MB region grown by bytes at a time took the memory from 15.8 to 22.3 MiB over the chunks of one store.
 */
class Region {
	pointer = 0;
	capacity = 0;

	constructor(private readonly exports: DecoderExports) {}

	ensure(bytes: number): number {
		if (bytes > this.capacity) {
			if (this.pointer !== 0) this.exports.release(this.pointer);
			this.capacity = capacityFor(Math.max(bytes, 64 * 1024));
			this.pointer = this.exports.alloc(this.capacity);
			if (this.pointer === 0) {
				this.capacity = 0;
				throw new Dt64ExportError("TOO_LARGE", `out of WebAssembly memory for ${bytes} bytes`);
			}
		}
		return this.pointer;
	}
}

/**
 * One instance of the decoders: the encoded bytes are copied into its memory with one `set`, decoded there by the C
 * decoder into a region bounded by the caller's capacity, and copied out with one `set`. Each call is synchronous;
 * an instance serves one thread (a decode worker, or the calling thread where no worker is used).
 *
 * zstd decodes in place: its encoded bytes are copied to the end of the output region, which needs a margin of a
 * block or so past the decoded size instead of a second region of the encoded size (see zstd-frame.ts). A
 * WebAssembly memory never shrinks, so the input region a thread never needs is memory it never holds: 7 MiB a
 * thread for chunks of 8 MB.
 */
export class WasmDecoders {
	/** The compiled module these decoders are an instance of: it can be posted to another thread. */
	readonly module: object;
	readonly #exports: DecoderExports;
	readonly #input: Region;
	readonly #output: Region;
	readonly #positions: Region;

	/**
	 * `module`: the decoders' compiled WebAssembly.Module, as another thread compiled it (see decoder-pool.ts);
	 * without it, this thread compiles them once.
	 */
	constructor(module?: object) {
		this.module = module ?? (compiled ??= new webAssembly.Module(readDecoderBytes()));
		this.#exports = new webAssembly.Instance(this.module, wasiStubs(this.module)).exports as DecoderExports;
		this.#input = new Region(this.#exports);
		this.#output = new Region(this.#exports);
		this.#positions = new Region(this.#exports);
	}

	/**
	 * Decodes `input` (for lz4, numcodecs' framing: the decoded size, then one block) into the start of `output`
	 * and returns the decoded length; output past `output.byteLength` is refused by the decoder itself. The two may
	 * share memory: the input is copied in whole before any output is written. With `scanNaT` (chunks of datetime64
	 * counts) it also says where NaT may be among the decoded values (see nat-positions.ts).
	 */
	decode(codec: WasmCodec, input: Uint8Array, output: Uint8Array, scanNaT = false): DecodedLength {
		const capacity = output.byteLength;
		const decoded = (codec === "zstd" ? this.#decodeZstdInPlace(input, capacity) : undefined) ?? this.#decodeApart(codec, input, capacity);
		if (decoded.length < 0) throw new Dt64ExportError("CHUNK_CORRUPT", `${codec}: the chunk does not decompress (${this.#lastError()})`);
		// Scanned here, where the values were just written, rather than after the copy by the thread that converts.
		const natPositions = scanNaT ? this.#natPositions(decoded.target, decoded.length) : null;
		output.set(new Uint8Array(this.#exports.memory.buffer, decoded.target, decoded.length));
		return { length: decoded.length, natPositions };
	}

	/** The positions of possible NaT among the values at `values` (see DecodedLength.natPositions). */
	#natPositions(values: number, bytes: number): Int32Array | null {
		const room = Math.floor(bytes / 8 / 16) + 16;
		const positions = this.#positions.ensure(4 * room);
		const found = this.#exports.nat_positions(values, bytes, positions, room);
		return found < 0 ? null : new Int32Array(this.#exports.memory.buffer, positions, found).slice();
	}

	/**
	 * zstd decoded where its input lies, at the end of the output region; undefined where that is not safe or
	 * fails, and the chunk is then decoded apart (which also says why a corrupt chunk fails).
	 */
	#decodeZstdInPlace(input: Uint8Array, capacity: number): { target: number; length: number } | undefined {
		let margin: number | undefined;
		try {
			margin = zstdContentBound(input).inPlaceMargin;
		} catch {
			return undefined;
		}
		if (margin === undefined || input.byteLength > capacity + margin) return undefined;
		const target = this.#output.ensure(capacity + margin);
		// At the very end of the region, whatever its size class: the more room before the input, the better.
		const source = target + this.#output.capacity - input.byteLength;
		new Uint8Array(this.#exports.memory.buffer, source, input.byteLength).set(input);
		const length = this.#exports.zstd_decode(source, input.byteLength, target, capacity);
		return length < 0 ? undefined : { target, length };
	}

	/** The encoded bytes in a region of their own, decoded into the output region. */
	#decodeApart(codec: WasmCodec, input: Uint8Array, capacity: number): { target: number; length: number } {
		const source = this.#input.ensure(input.byteLength);
		const target = this.#output.ensure(capacity);
		new Uint8Array(this.#exports.memory.buffer, source, input.byteLength).set(input);
		let length: number;
		if (codec === "zstd") length = this.#exports.zstd_decode(source, input.byteLength, target, capacity);
		else if (codec === "blosc") length = this.#exports.blosc_decode(source, input.byteLength, target, capacity);
		else length = this.#decodeLz4(input, source, target, capacity);
		return { target, length };
	}

	/** numcodecs' lz4: a little-endian uint32 decoded size, then one block that must decode to exactly that. */
	#decodeLz4(input: Uint8Array, source: number, target: number, capacity: number): number {
		if (input.byteLength < 4) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: ${input.byteLength} bytes, shorter than the 4-byte size header`);
		const declared = new DataView(input.buffer, input.byteOffset, 4).getUint32(0, true);
		if (declared > capacity) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: chunk declares ${declared} bytes, more than the ${capacity} it may hold`);
		const length = this.#exports.lz4_decode(source + 4, input.byteLength - 4, target, declared);
		if (length >= 0 && length !== declared) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: the block decodes to ${length} bytes, its header says ${declared}`);
		return length;
	}

	#lastError(): string {
		const memory = new Uint8Array(this.#exports.memory.buffer);
		const start = this.#exports.last_error();
		let end = start;
		while (memory[end] !== 0) end++;
		return Buffer.from(memory.subarray(start, end)).toString("latin1");
	}
}
