/**
 * A row of zstd chunks decoded together, a band of rows at a time (see zarr/streamed-rows.ts for which rows): each
 * chunk is a zstd stream of its own, read from its file a piece at a time and decoded a window at a time, and each
 * band is filled with each chunk's next rows. The row is never held whole: a stream holds its frame's window (what
 * its matches may reach back to, 512 KiB for zarr-python's chunks of 8 MB), a piece of input and a window of output.
 *
 * decoders.c keeps one zstd context per instance of the module: each stream has an instance of its own, taken from
 * the thread's instances (kept between rows: a WebAssembly memory never shrinks, so a new one per row would only
 * add memory) and handed back when its row ends, well or not.
 *
 * Every check of a chunk decoded whole holds (bounded-wasm.ts, decoder-module.ts, chunk-decoder.ts): the frame's
 * declared content size is the chunk's (checked by its opener, which reads the header), zstd itself refuses content
 * that differs from it or from its checksum, no output past the chunk is ever asked for, the window is bounded by the
 * header's (zstd refuses a frame that asks for more), and after the frame there may only be skippable frames, as
 * the one-shot decoder skips them; anything else is refused as a corrupt chunk, named.
 */
import { Dt64ExportError } from "../../../errors.js";
import { readSync } from "node:fs";
import { isSkippableMagic } from "../zstd-frame.js";
import { decoderInstance, type DecoderExports } from "./decoder-module.js";

/** Reads a chunk's file at a position: readSync on its descriptor, on whichever thread streams it. */
export const readFileAt = (fd: number, bytes: Uint8Array, position: number): number => readSync(fd, bytes, 0, bytes.byteLength, position);

/** One chunk of a streamed row: its file, its frame, and where its rows go in a band. */
export interface StreamedChunk {
	/** The chunk's file, open for reading at positions (PositionedFile.fd), and its bytes. */
	readonly fd: number;
	readonly size: number;
	/** Where its zstd frame starts (after any skippable frames) and the window log its header declares. */
	readonly frameStart: number;
	readonly windowLog: number;
	/** The chunk as messages name it: `chunk <name>: cannot decode: …`. */
	readonly name: string;
	/** Its store key, for the error's fields, and its file, for a failed read's message. */
	readonly key: string;
	readonly file: string;
	/** Decoded bytes of the whole chunk, and of one of its rows along the first axis. */
	readonly chunkBytes: number;
	readonly partBytes: number;
	/** Of a row's bytes, those inside the array (fewer for an edge chunk along the second axis), and where they go. */
	readonly keptBytes: number;
	readonly offsetBytes: number;
}

/** A streamed row: its chunks, and the bytes of one array row (a band row). */
export interface StreamedRowSpec {
	readonly chunks: readonly StreamedChunk[];
	readonly rowBytes: number;
}

/** Encoded bytes read from a file at a time, and decoded bytes taken out of the module at a time. */
const PIECE_BYTES = 128 * 1024;
const WINDOW_BYTES = 128 * 1024;

/** An instance of the decoders with the regions a stream uses. */
interface StreamInstance {
	readonly exports: DecoderExports;
	readonly input: number;
	readonly output: number;
	/** ZSTD_outBuffer and ZSTD_inBuffer: three 32-bit words each. */
	readonly buffers: number;
	/** Room for the NaT positions of a window's values, one per value (nat_positions). */
	readonly positions: number;
}

/** The instances of this thread's streams, by compiled module; those of rows that ended wait here for the next. */
const idle = new WeakMap<object, StreamInstance[]>();

function takeInstance(module: object): StreamInstance {
	const kept = idle.get(module)?.pop();
	if (kept !== undefined) return kept;
	const exports = decoderInstance(module);
	const input = exports.alloc(PIECE_BYTES);
	const output = exports.alloc(WINDOW_BYTES);
	const buffers = exports.alloc(24);
	const positions = exports.alloc(WINDOW_BYTES / 2);
	if (input === 0 || output === 0 || buffers === 0 || positions === 0) throw new Dt64ExportError("TOO_LARGE", "out of WebAssembly memory for a zstd stream");
	return { exports, input, output, buffers, positions };
}

function giveBack(module: object, instance: StreamInstance): void {
	let list = idle.get(module);
	if (list === undefined) idle.set(module, (list = []));
	list.push(instance);
}

/** How many instances this thread keeps for streams of `module` (tests). */
export function idleStreamInstances(module: object): number {
	return idle.get(module)?.length ?? 0;
}

/** One chunk's stream. */
class ChunkStream {
	/** The next byte of the file to read, the bytes read and not yet decoded, and where they are. */
	#position: number;
	#staged = 0;
	#stagedAt = 0;
	/** Decoded bytes in the output window not yet taken, from #pendingAt. */
	#pending = 0;
	#pendingAt = 0;
	/** Decoded bytes taken so far, and whether zstd said the frame is over. */
	taken = 0;
	#frameDone = false;

	constructor(
		readonly chunk: StreamedChunk,
		readonly instance: StreamInstance,
		readonly readAt: (fd: number, bytes: Uint8Array, position: number) => number,
	) {
		this.#position = chunk.frameStart;
		if (instance.exports.zstd_stream_start(chunk.windowLog) < 0) throw this.#corrupt(`the chunk does not decompress (${lastError(instance.exports)})`);
	}

	/**
	 * The next `bytes` decoded bytes, into `target` from `at` (or dropped without a target), each piece scanned for
	 * NaT by `nat` where it is in the module's memory before it is copied out.
	 */
	take(target: Uint8Array | undefined, at: number, bytes: number, nat?: BandNaT): void {
		if (this.taken + bytes > this.chunk.chunkBytes) throw new Dt64ExportError("INTERNAL", `${this.chunk.name}: more asked of a streamed chunk than it holds`);
		const { exports, output } = this.instance;
		while (bytes > 0) {
			if (this.#pending > 0) {
				const count = Math.min(bytes, this.#pending);
				if (target !== undefined) nat?.scan(this.instance, output + this.#pendingAt, count, at);
				target?.set(new Uint8Array(exports.memory.buffer, output + this.#pendingAt, count), at);
				this.#pendingAt += count;
				this.#pending -= count;
				this.taken += count;
				at += count;
				bytes -= count;
				continue;
			}
			const produced = this.#step();
			if (produced === 0 && this.#frameDone) throw this.#corrupt(`the frame ends after ${this.taken} bytes of the chunk's ${this.chunk.chunkBytes}`);
		}
	}

	/**
	 * After the chunk's last byte: its frame must end (its checksum, if any, checked) and nothing may follow it in
	 * the file but skippable frames, which the one-shot decoder skips as well.
	 */
	finish(): void {
		while (!this.#frameDone) {
			if (this.#step() > 0) throw this.#corrupt(`the chunk decodes to more than its ${this.chunk.chunkBytes} bytes`);
		}
		let position = this.#position - this.#staged;
		const size = this.chunk.size;
		const head = new Uint8Array(8);
		while (position < size) {
			if (size - position < 8 || this.#read(head, position) < 8) throw this.#corrupt(`${size - position} bytes after the frame`);
			const view = new DataView(head.buffer);
			if (!isSkippableMagic(view.getUint32(0, true))) throw this.#corrupt(`${size - position} bytes after the frame that are not a skippable frame`);
			position += 8 + view.getUint32(4, true);
			if (position > size) throw this.#corrupt("truncated skippable frame");
		}
	}

	/** One call of zstd's streaming decoder, reading a piece of the file first when nothing is staged: the bytes it produced. */
	#step(): number {
		const { exports, input, output, buffers } = this.instance;
		if (this.#staged === 0) {
			const want = Math.min(PIECE_BYTES, this.chunk.size - this.#position);
			if (want <= 0) throw this.#corrupt("the chunk does not decompress (truncated input)");
			const read = this.#read(new Uint8Array(exports.memory.buffer, input, want), this.#position);
			if (read === 0) throw this.#corrupt(`the file ends at byte ${this.#position} of ${this.chunk.size}`);
			this.#position += read;
			this.#staged = read;
			this.#stagedAt = input;
		}
		new Uint32Array(exports.memory.buffer, buffers, 6).set([output, WINDOW_BYTES, 0, this.#stagedAt, this.#staged, 0]);
		const status = exports.zstd_stream_step(buffers, buffers + 12);
		if (status < 0) throw this.#corrupt(`the chunk does not decompress (${lastError(exports)})`);
		// The step may have grown the memory (zstd allocates the frame's window): the words are read anew.
		const words = new Uint32Array(exports.memory.buffer, buffers, 6);
		const produced = words[2];
		const consumed = words[5];
		this.#stagedAt += consumed;
		this.#staged -= consumed;
		this.#pendingAt = 0;
		this.#pending = produced;
		if (status === 0) this.#frameDone = true;
		if (produced === 0 && consumed === 0 && status !== 0 && this.#staged > 0) throw this.#corrupt("the chunk does not decompress (no progress)");
		return produced;
	}

	#read(bytes: Uint8Array, position: number): number {
		try {
			return this.readAt(this.chunk.fd, bytes, position);
		} catch (error) {
			if (error instanceof Dt64ExportError) throw error;
			throw new Dt64ExportError("READ_FAILED", `cannot read ${this.chunk.file}: ${(error as Error)?.message ?? String(error)}`, { key: this.chunk.key, cause: error });
		}
	}

	#corrupt(what: string): Dt64ExportError {
		return new Dt64ExportError("CHUNK_CORRUPT", `chunk ${this.chunk.name}: cannot decode: zstd: ${what}`, { key: this.chunk.key });
	}
}

/**
 * A row of chunks streamed on this thread: `fill` writes each band's rows in turn, the last band with `last`,
 * which decodes what is left of each chunk (its rows past the array's end, an edge chunk's) and checks it ends as it
 * must. `close` hands the instances back (also after a failure, or when the row is left unfinished).
 */
export class StreamedRow {
	readonly #streams: ChunkStream[] = [];
	readonly #module: object;
	readonly #rowBytes: number;
	#closed = false;

	/** `readAt`: reads a file at a position (readSync; tests stand in for it). */
	constructor(module: object, spec: StreamedRowSpec, readAt: (fd: number, bytes: Uint8Array, position: number) => number) {
		this.#module = module;
		this.#rowBytes = spec.rowBytes;
		try {
			for (const chunk of spec.chunks) {
				const instance = takeInstance(module);
				try {
					this.#streams.push(new ChunkStream(chunk, instance, readAt));
				} catch (error) {
					giveBack(module, instance);
					throw error;
				}
			}
		} catch (error) {
			this.close();
			throw error;
		}
	}

	/**
	 * Fills the first `rows` array rows of `band` with each chunk's next rows. With `scanNaT` (datetime64 counts,
	 * little endian), returns the increasing positions of the values that may be NaT: every NaT is among them (see
	 * nat-positions.ts and BandNaT).
	 */
	fill(band: Uint8Array, rows: number, last: boolean, scanNaT: boolean): Int32Array | null {
		if (this.#closed) throw new Dt64ExportError("INTERNAL", "a streamed row was asked for a band after it ended");
		const nat = scanNaT ? new BandNaT() : undefined;
		try {
			for (let row = 0; row < rows; row++) {
				const base = row * this.#rowBytes;
				for (const stream of this.#streams) {
					const { keptBytes, partBytes, offsetBytes } = stream.chunk;
					stream.take(band, base + offsetBytes, keptBytes, nat);
					if (partBytes > keptBytes) stream.take(undefined, 0, partBytes - keptBytes);
				}
			}
			if (last) {
				for (const stream of this.#streams) {
					const left = stream.chunk.chunkBytes - stream.taken;
					if (left > 0) stream.take(undefined, 0, left);
					stream.finish();
				}
				this.close();
			}
		} catch (error) {
			this.close();
			throw error;
		}
		return nat === undefined ? null : nat.positions(band);
	}

	/** Hands the streams' instances back: the row is over. */
	close(): void {
		if (this.#closed) return;
		this.#closed = true;
		for (const stream of this.#streams.splice(0)) giveBack(this.#module, stream.instance);
	}
}

/**
 * The values of a band that may be NaT (INT64_MIN in either byte order, as nat_positions tests each value), found as
 * the band is filled: each piece of a window is scanned by nat_positions where it is in the module's memory, before
 * it is copied into the band, instead of the band scanned again once filled. A value cut by a piece's edge (the
 * decoder's output does not end on whole values) is noted and tested in the band once it is filled.
 */
class BandNaT {
	/** Positions in the band, in the order found: increasing, as a band is filled in order. */
	readonly #found: number[] = [];
	/** Values cut by the edge of a piece: tested once the band is filled. */
	readonly #cut: number[] = [];

	/**
	 * Scans the `bytes` decoded bytes at `pointer` in `instance`'s memory, bound for byte `at` of the band. A value
	 * this piece starts but does not end is the next piece's to note: the next piece continues it.
	 */
	scan(instance: StreamInstance, pointer: number, bytes: number, at: number): void {
		const lead = Math.min(bytes, (8 - (at % 8)) % 8);
		if (lead > 0) this.#cut.push(Math.floor(at / 8));
		const whole = bytes - lead - ((bytes - lead) % 8);
		if (whole > 0) {
			// One position per value at most: there is always room (the region holds a window's values).
			const found = instance.exports.nat_positions(pointer + lead, whole, instance.positions, whole / 8);
			if (found < 0) throw new Dt64ExportError("INTERNAL", `no room for the NaT positions of ${whole} bytes`);
			const first = (at + lead) / 8;
			const positions = new Int32Array(instance.exports.memory.buffer, instance.positions, found);
			for (let k = 0; k < found; k++) this.#found.push(first + positions[k]);
		}
	}

	/** The positions of `band`'s values that may be NaT, increasing, once it is filled. */
	positions(band: Uint8Array): Int32Array {
		if (this.#cut.length === 0) return Int32Array.from(this.#found);
		const found = new Set(this.#found);
		for (const position of this.#cut) if (maybeNaT(band, position * 8)) found.add(position);
		return Int32Array.from(found).sort();
	}
}

/** Whether the 8 bytes at `at` of `bytes` are INT64_MIN in either byte order. */
function maybeNaT(bytes: Uint8Array, at: number): boolean {
	let rest = 0;
	for (let i = 1; i < 7; i++) rest |= bytes[at + i];
	return rest === 0 && ((bytes[at] === 0 && bytes[at + 7] === 0x80) || (bytes[at] === 0x80 && bytes[at + 7] === 0));
}

function lastError(exports: DecoderExports): string {
	const memory = new Uint8Array(exports.memory.buffer);
	const start = exports.last_error();
	let end = start;
	while (memory[end] !== 0) end++;
	return Buffer.from(memory.subarray(start, end)).toString("latin1");
}
