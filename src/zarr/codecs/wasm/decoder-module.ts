import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Dt64ExportError, systemErrorReason } from "../../../errors.js";
import { packageFileMissing } from "../../../package-file.js";
import { zstdContentBound, type ZstdContentBound } from "../zstd-frame.js";
import { readBloscBlocks, type BloscBlocks } from "./blosc-blocks.js";
import { DECODERS_WASM_SUBJECT, decodersWasmFile } from "./decoders-file.js";
import { Region } from "./region.js";
import { StagedInput } from "./staged-input.js";
import { positionsRoom, WindowedOutput, type DecodedLength } from "./windowed-output.js";

export type { DecodedLength } from "./windowed-output.js";

/** The decoders of decoders.c, by codec name. */
export type WasmCodec = "zstd" | "lz4" | "blosc";

/** The part of the WebAssembly JS API used here (the compiler's Node libraries do not declare it). */
interface WebAssemblyApi {
	Module: { new (bytes: Uint8Array): object; imports(module: object): { module: string; name: string }[] };
	Instance: new (module: object, imports: Record<string, Record<string, () => number>>) => { exports: unknown };
}
const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

/** What an instance of decoders.c exports. */
export interface DecoderExports {
	readonly memory: { readonly buffer: ArrayBuffer };
	alloc(bytes: number): number;
	release(pointer: number): void;
	last_error(): number;
	zstd_decode(source: number, sourceBytes: number, target: number, capacity: number): number;
	lz4_decode(source: number, sourceBytes: number, target: number, capacity: number): number;
	blosc_decode(source: number, sourceBytes: number, target: number, capacity: number): number;
	zstd_stream_start(windowLogMax: number): number;
	zstd_stream_step(output: number, input: number): number;
	blosc_check(source: number, sourceBytes: number, capacity: number): number;
	blosc_scratch_bytes(header: number): number;
	blosc_decode_blocks(header: number, compressedBytes: number, capacity: number, base: number, ends: number, first: number, count: number, target: number, scratch: number): number;
	nat_positions(values: number, bytes: number, positions: number, room: number): number;
	lz4_steps_bytes(): number;
	lz4_steps_start(state: number, inputBytes: number, outputBytes: number): void;
	lz4_steps_run(state: number, input: number, available: number, final: number, buffer: number, window: number): number;
}

/** lz4-steps.c: the bytes of history before its window, and its statuses. */
const LZ4_HISTORY = 65536;
const LZ4_STEPS = { done: 0, outputFull: 1, needInput: 2, zeroOffset: -2 } as const;

/**
 * The bytes of the decoders' WebAssembly at `file` (by default beside this module, see decoders-file.ts); a file
 * that cannot be read is named, with the reason.
 */
export function readDecoderBytes(file: URL = decodersWasmFile()): Uint8Array {
	try {
		return readFileSync(file);
	} catch (error) {
		throw packageFileMissing(DECODERS_WASM_SUBJECT, `cannot be read at ${fileURLToPath(file)} (${systemErrorReason(error as Error)})`, fileURLToPath(file), error);
	}
}

let compiled: object | undefined;

/**
 * A WasmDecoders (`module`: as another thread compiled it), or PACKAGE_FILE_MISSING when its WebAssembly does not
 * compile or instantiate (a truncated or foreign decoders.wasm): the package's file is at fault, not a chunk, on
 * the calling thread and on a decode thread alike.
 */
export function loadWasmDecoders(module?: object): WasmDecoders {
	try {
		return new WasmDecoders(module);
	} catch (error) {
		if (error instanceof Dt64ExportError) throw error;
		const where = module === undefined ? fileURLToPath(decodersWasmFile()) : undefined;
		throw packageFileMissing(DECODERS_WASM_SUBJECT, `cannot be loaded (${(error as Error)?.message ?? String(error)})`, where, error);
	}
}

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
 * A new instance of the decoders' compiled `module`: its own memory and its own zstd context (decoders.c keeps one
 * per instance), for a chunk streamed beside others on one thread (streamed-row.ts).
 */
export function decoderInstance(module: object): DecoderExports {
	return new webAssembly.Instance(module, wasiStubs(module)).exports as DecoderExports;
}

/** Options of a WasmDecoders (tests set a small window to decode small chunks in steps). */
export interface WasmDecoderOptions {
	/**
	 * The output a chunk decoded in steps is written to the module's memory in, a window at a time: 512 KiB. Chunks
	 * of at least four windows are decoded so (see WasmDecoders).
	 */
	readonly windowBytes?: number;
}

const WINDOW_BYTES = 512 * 1024;
/** A chunk is decoded in steps from this many windows of output on: below, the memory saved is small. */
const WINDOWS_TO_STEP = 4;

/**
 * One instance of the decoders: the encoded bytes are copied into its memory with `set`, decoded there by the C
 * decoder, and the decoded bytes copied out with `set`. Each call is synchronous; an instance serves one thread (a
 * decode worker, or the calling thread where no worker is used).
 *
 * A WebAssembly memory never shrinks, so what a decode needs of it at once is what the thread holds from then on.
 * Large chunks are therefore decoded in steps, a window of output (512 KiB) at a time, each window copied out before
 * the next is decoded: zstd from its streaming decoder, which keeps the frame's window (what its matches may reach
 * back to, 512 KiB for zarr-python's 8 MB chunks) and takes the encoded bytes piece by piece (staged-input.ts);
 * blosc a run of blocks at a time, each run from its blocks' bytes alone (blosc-blocks.c); lz4 by a decoder of this
 * package's (lz4-steps.c) that keeps the 64 KiB its matches may reach back to, its input staged as zstd's. A thread
 * then holds about 2 MiB for a zstd or lz4 chunk of 8 MB and a few blocks for blosc, where it held the decoded size
 * and more (9.4, 17.3 and 14.3 MiB for the bench's zstd, lz4 and blosc-lz4 chunks of 8 MB).
 *
 * Other chunks are decoded whole. zstd then decodes in place: its encoded bytes are copied to the end of the output
 * region, which needs a margin of a block or so past the decoded size instead of a second region of the encoded
 * size (see zstd-frame.ts).
 */
export class WasmDecoders {
	/** The compiled module these decoders are an instance of: it can be posted to another thread. */
	readonly module: object;
	readonly #exports: DecoderExports;
	readonly #input: Region;
	readonly #output: Region;
	readonly #positions: Region;
	/** zstd's ZSTD_outBuffer and ZSTD_inBuffer for zstd_stream_step: three 32-bit words each. */
	readonly #streamBuffers: Region;
	/** A blosc buffer's header and block starts, and the ends of the blocks of a run (blosc-blocks.c). */
	readonly #header: Region;
	readonly #ends: Region;
	readonly #scratch: Region;
	readonly #windowBytes: number;
	#decodedInSteps = 0;

	/**
	 * `module`: the decoders' compiled WebAssembly.Module, as another thread compiled it (see decoder-pool.ts);
	 * without it, this thread compiles them once.
	 */
	constructor(module?: object, options: WasmDecoderOptions = {}) {
		this.module = module ?? (compiled ??= new webAssembly.Module(readDecoderBytes()));
		this.#exports = new webAssembly.Instance(this.module, wasiStubs(this.module)).exports as DecoderExports;
		this.#input = new Region(this.#exports);
		this.#output = new Region(this.#exports);
		this.#positions = new Region(this.#exports);
		this.#streamBuffers = new Region(this.#exports);
		this.#header = new Region(this.#exports);
		this.#ends = new Region(this.#exports);
		this.#scratch = new Region(this.#exports);
		this.#windowBytes = options.windowBytes ?? WINDOW_BYTES;
		if (!Number.isInteger(this.#windowBytes) || this.#windowBytes < 8 || this.#windowBytes % 8 !== 0) {
			throw new Dt64ExportError("INTERNAL", `invalid decode window of ${this.#windowBytes} bytes: a multiple of 8`);
		}
	}

	/**
	 * Decodes `input` (for lz4, numcodecs' framing: the decoded size, then one block) into the start of `output`
	 * and returns the decoded length; output past `output.byteLength` is refused by the decoder itself. The two may
	 * share memory: no output is written over input not yet copied in. With `scanNaT` (chunks of datetime64 counts)
	 * it also says where NaT may be among the decoded values (see nat-positions.ts).
	 */
	decode(codec: WasmCodec, input: Uint8Array, output: Uint8Array, scanNaT = false): DecodedLength {
		const capacity = output.byteLength;
		// The frames are walked once, for decoding in steps and in place alike.
		const frames = codec === "zstd" ? readZstdFrames(input) : undefined;
		if (this.#mayStep(capacity)) {
			const stepped = codec === "zstd" ? this.#decodeZstdInSteps(frames, input, output, scanNaT) : codec === "blosc" ? this.#decodeBloscInBlocks(input, output, scanNaT) : this.#decodeLz4InSteps(input, output, scanNaT);
			if (stepped !== undefined) {
				this.#decodedInSteps++;
				return stepped;
			}
		}
		const decoded = (codec === "zstd" ? this.#decodeZstdInPlace(frames, input, capacity) : undefined) ?? this.#decodeApart(codec, input, capacity);
		if (decoded.length < 0) throw this.#corrupt(codec);
		// Scanned here, where the values were just written, rather than after the copy by the thread that converts.
		const natPositions = scanNaT ? this.#natPositions(decoded.target, decoded.length) : null;
		output.set(new Uint8Array(this.#exports.memory.buffer, decoded.target, decoded.length));
		return { length: decoded.length, natPositions };
	}

	/**
	 * Decodes the first `inputLength` bytes of `buffer` into its first bytes, up to `capacity`, as `decode` does; the
	 * whole buffer is the decoder's to use meanwhile (a decode thread's, or a buffer of the pool decoded where it is).
	 *
	 * A chunk that may be decoded in steps is first moved to end where the output may end (`capacity`). Its output,
	 * written from the start, then reaches its encoded bytes only near the end of a chunk that compresses evenly,
	 * and the decoder stages a piece of input at a time instead of all the bytes the output would otherwise overwrite
	 * (staged-input.ts: 0.5 MB at most for the bench's zstd chunks of 8 MB in 6.9 MB). The buffer's bytes past
	 * `capacity` (up to its size class) are left untouched, so that they never take memory. The move costs 0.2 ms a
	 * chunk of 7 MB. `offset`: the same within the region of `buffer` that starts there (an inner chunk's place in
	 * its shard's buffer, see ShardBands), whose bytes past `capacity` are another's.
	 */
	decodeInBuffer(codec: WasmCodec, buffer: ArrayBufferLike, inputLength: number, capacity: number, scanNaT = false, offset = 0): DecodedLength {
		let input = new Uint8Array(buffer, offset, inputLength);
		if (this.#mayStep(capacity) && capacity > inputLength) {
			const start = capacity - inputLength;
			new Uint8Array(buffer, offset, capacity).copyWithin(start, 0, inputLength);
			input = new Uint8Array(buffer, offset + start, inputLength);
		}
		return this.decode(codec, input, new Uint8Array(buffer, offset, capacity), scanNaT);
	}

	/** Whether a chunk with room for `capacity` bytes is decoded in steps if its headers allow. */
	#mayStep(capacity: number): boolean {
		return capacity >= WINDOWS_TO_STEP * this.#windowBytes;
	}

	/** How many chunks these decoders decoded in steps, a window at a time. */
	get decodedInSteps(): number {
		return this.#decodedInSteps;
	}

	/** The bytes of the module's memory: all it has ever needed at once, as a WebAssembly memory never shrinks. */
	get memoryBytes(): number {
		return this.#exports.memory.buffer.byteLength;
	}

	/**
	 * zstd decoded a window at a time; undefined when a frame's window is over half the output (decoding in steps
	 * would hold more than decoding whole) or the frames cannot be read (the one-shot decoder then says why).
	 * Stricter than the one-shot decoder in one way, as libzstd's streaming decoder (and `zstd -d`) is: a frame whose
	 * matches reach further back than its declared window is refused (the one-shot decoder holds the whole output and
	 * never checks the reach). Only a corrupt or hand-made frame does that.
	 */
	#decodeZstdInSteps(frames: ZstdContentBound | undefined, input: Uint8Array, output: Uint8Array, scanNaT: boolean): DecodedLength | undefined {
		if (frames === undefined) return undefined;
		const { largestWindow } = frames;
		if (largestWindow > output.byteLength / 2) return undefined;
		const exports = this.#exports;
		// No frame may ask for a larger window than the headers declare (zstd's floor is 2^10).
		if (exports.zstd_stream_start(Math.max(10, Math.ceil(Math.log2(Math.max(1, largestWindow))))) < 0) throw this.#corrupt("zstd");
		const window = this.#output.ensure(this.#windowBytes);
		const buffers = this.#streamBuffers.ensure(24);
		this.#positions.ensure(4 * positionsRoom(this.#windowBytes));
		const staged = new StagedInput(input, this.#input, exports);
		const taken = new WindowedOutput("zstd", exports, output, scanNaT, this.#positions);
		// Output written at byte n of `output` lands on input byte n + overlap, when the two are views of one buffer.
		const overlap = overlapOf(input, output);
		const piece = this.#windowBytes / 2;
		for (;;) {
			if (staged.staged < piece) staged.stageThrough(staged.end + piece);
			new Uint32Array(exports.memory.buffer, buffers, 6).set([window, this.#windowBytes, 0, staged.pointer, staged.staged, 0]);
			const status = exports.zstd_stream_step(buffers, buffers + 12);
			if (status < 0) throw this.#corrupt("zstd");
			// The step may have grown the memory (zstd allocates the frame's window): the words are read anew.
			const words = new Uint32Array(exports.memory.buffer, buffers, 6);
			const produced = words[2];
			const consumed = words[5];
			staged.consume(consumed);
			if (produced > 0) {
				if (overlap !== undefined) staged.stageThrough(overlap + taken.length + produced);
				taken.take(window, produced);
			}
			if (status === 0 && staged.consumed === input.byteLength) return taken.result();
			if (produced === 0 && consumed === 0) {
				if (staged.complete) throw new Dt64ExportError("CHUNK_CORRUPT", "zstd: the chunk does not decompress (truncated input)");
				staged.stageThrough(staged.end + piece);
			}
		}
	}

	/**
	 * blosc decoded a run of blocks at a time (blosc-blocks.c), each run from its blocks' bytes, staged as zstd's
	 * input is; undefined when the header or block starts do not describe the buffer, or it is small (it is then
	 * decoded whole, and blosc says what is wrong).
	 */
	#decodeBloscInBlocks(input: Uint8Array, output: Uint8Array, scanNaT: boolean): DecodedLength | undefined {
		const blocks = readBloscBlocks(input);
		const capacity = output.byteLength;
		if (blocks === undefined || blocks.nbytes > capacity || blocks.nbytes < WINDOWS_TO_STEP * this.#windowBytes) return undefined;
		const exports = this.#exports;
		const run = Math.max(1, Math.floor(this.#windowBytes / blocks.blocksize));
		const header = this.#header.ensure(blocks.headerBytes);
		const ends = this.#ends.ensure(4 * run);
		const target = this.#output.ensure(Math.min(run * blocks.blocksize, blocks.nbytes));
		this.#positions.ensure(4 * positionsRoom(run * blocks.blocksize));
		new Uint8Array(exports.memory.buffer, header, blocks.headerBytes).set(input.subarray(0, blocks.headerBytes));
		// The checks blosc_decode makes first, with its messages.
		if (exports.blosc_check(header, input.byteLength, capacity) < 0) throw this.#corrupt("blosc");
		const scratch = this.#scratch.ensure(exports.blosc_scratch_bytes(header));
		// Room up front for the largest run's bytes (the region then seldom grows, and never piecemeal).
		let largest = 0;
		for (let first = 0; first < blocks.count; first += run) largest = Math.max(largest, runEnd(blocks, first, run) - blocks.restStarts[first]);
		this.#input.ensure(largest);
		const staged = new StagedInput(input, this.#input, exports);
		const taken = new WindowedOutput("blosc", exports, output, scanNaT, this.#positions);
		const overlap = overlapOf(input, output);
		for (let first = 0; first < blocks.count; first += run) {
			const count = Math.min(run, blocks.count - first);
			staged.dropBefore(blocks.restStarts[first]);
			staged.stageThrough(runEnd(blocks, first, count));
			new Int32Array(exports.memory.buffer, ends, count).set(blocks.ends.subarray(first, first + count));
			// The address byte 0 of the buffer would have: the staged bytes are where their offsets in it say.
			const base = (staged.pointer - staged.consumed) | 0;
			const decoded = exports.blosc_decode_blocks(header, input.byteLength, capacity, base, ends, first, count, target, scratch);
			const expected = Math.min((first + count) * blocks.blocksize, blocks.nbytes) - first * blocks.blocksize;
			if (decoded !== expected) throw new Dt64ExportError("CHUNK_CORRUPT", "blosc: the chunk does not decompress (corrupt compressed data)");
			if (overlap !== undefined) staged.stageThrough(overlap + taken.length + decoded);
			taken.take(target, decoded);
		}
		return taken.result();
	}

	/**
	 * lz4 (numcodecs' framing: the decoded size, then one block) decoded a window at a time by lz4-steps.c, which
	 * keeps the 64 KiB a match may reach back to before its window and takes the block's bytes piece by piece, staged
	 * as zstd's are; undefined when the chunk is small (it is then decoded whole). A block is accepted and decoded
	 * as liblz4 decodes it whole, but for a match offset of 0, which is refused (see lz4-steps.c).
	 */
	#decodeLz4InSteps(input: Uint8Array, output: Uint8Array, scanNaT: boolean): DecodedLength | undefined {
		const declared = this.#lz4Declared(input, output.byteLength);
		if (declared < WINDOWS_TO_STEP * this.#windowBytes) return undefined;
		const exports = this.#exports;
		const block = input.subarray(4);
		const state = this.#streamBuffers.ensure(exports.lz4_steps_bytes());
		const buffer = this.#output.ensure(LZ4_HISTORY + this.#windowBytes);
		this.#positions.ensure(4 * positionsRoom(this.#windowBytes));
		exports.lz4_steps_start(state, block.byteLength, declared);
		const staged = new StagedInput(block, this.#input, exports);
		const taken = new WindowedOutput("lz4", exports, output.subarray(0, declared), scanNaT, this.#positions);
		const overlap = overlapOf(block, output);
		const piece = this.#windowBytes / 2;
		for (;;) {
			if (staged.staged < piece) staged.stageThrough(staged.end + piece);
			const status = exports.lz4_steps_run(state, staged.pointer, staged.staged, staged.complete ? 1 : 0, buffer, this.#windowBytes);
			const [consumed, produced, at] = new Uint32Array(exports.memory.buffer, state, 3);
			staged.consume(consumed);
			if (produced > 0) {
				if (overlap !== undefined) staged.stageThrough(overlap + taken.length + produced);
				taken.take(buffer + LZ4_HISTORY + at, produced);
			}
			if (status === LZ4_STEPS.done) {
				if (taken.length !== declared) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: the block decodes to ${taken.length} bytes, its header says ${declared}`);
				return taken.result();
			}
			if (status === LZ4_STEPS.zeroOffset) throw new Dt64ExportError("CHUNK_CORRUPT", "lz4: the chunk does not decompress (a match offset of 0)");
			if (status < 0) throw new Dt64ExportError("CHUNK_CORRUPT", "lz4: the chunk does not decompress (corrupt compressed data)");
			if (status === LZ4_STEPS.needInput) staged.stageThrough(staged.end + piece);
		}
	}

	/** The decoded size numcodecs' lz4 framing declares: its first 4 bytes, little endian; refused over `capacity`. */
	#lz4Declared(input: Uint8Array, capacity: number): number {
		if (input.byteLength < 4) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: ${input.byteLength} bytes, shorter than the 4-byte size header`);
		const declared = new DataView(input.buffer, input.byteOffset, 4).getUint32(0, true);
		if (declared > capacity) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: chunk declares ${declared} bytes, more than the ${capacity} it may hold`);
		return declared;
	}

	#corrupt(codec: WasmCodec): Dt64ExportError {
		return new Dt64ExportError("CHUNK_CORRUPT", `${codec}: the chunk does not decompress (${this.#lastError()})`);
	}

	/** The positions of possible NaT among the values at `values` (see DecodedLength.natPositions). */
	#natPositions(values: number, bytes: number): Int32Array | null {
		const room = positionsRoom(bytes);
		const positions = this.#positions.ensure(4 * room);
		const found = this.#exports.nat_positions(values, bytes, positions, room);
		return found < 0 ? null : new Int32Array(this.#exports.memory.buffer, positions, found).slice();
	}

	/**
	 * zstd decoded where its input lies, at the end of the output region; undefined where that is not safe or
	 * fails, or the frames cannot be read, and the chunk is then decoded apart (which also says why a corrupt chunk
	 * fails).
	 */
	#decodeZstdInPlace(frames: ZstdContentBound | undefined, input: Uint8Array, capacity: number): { target: number; length: number } | undefined {
		const margin = frames?.inPlaceMargin;
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
		const declared = this.#lz4Declared(input, capacity);
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

/**
 * Where output written at byte n of `output` lands among the bytes of `input` (at n + the answer), when the two are
 * views of one buffer that overlap; undefined when they do not share bytes.
 */
function overlapOf(input: Uint8Array, output: Uint8Array): number | undefined {
	if (input.buffer !== output.buffer) return undefined;
	const apart = input.byteOffset + input.byteLength <= output.byteOffset || output.byteOffset + output.byteLength <= input.byteOffset;
	return apart ? undefined : output.byteOffset - input.byteOffset;
}

/** Where the bytes of blocks [first, first + count) end in a blosc buffer: the largest of their ends. */
function runEnd(blocks: BloscBlocks, first: number, count: number): number {
	let end = 0;
	for (let j = first; j < Math.min(first + count, blocks.count); j++) end = Math.max(end, blocks.ends[j]);
	return end;
}

/** The frames of a zstd chunk as zstdContentBound reads them; undefined when they cannot be read. */
function readZstdFrames(input: Uint8Array): ZstdContentBound | undefined {
	try {
		return zstdContentBound(input);
	} catch {
		return undefined;
	}
}
