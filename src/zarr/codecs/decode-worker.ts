/**
 * A decode thread (see decoder-pool.ts): decodes each chunk it is sent with its own instance of the WebAssembly
 * decoders, into the buffer its encoded bytes came in, and hands that buffer back. A failure to decode is an
 * answer, not a crash: the message goes back with the buffer.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Dt64ExportError, errorFieldsOf, type ErrorCode, type ErrorFields } from "../../errors.js";
import { loadWasmDecoders, type DecodedLength, type WasmCodec, type WasmDecoders } from "./wasm/decoder-module.js";
import { readFileAt, StreamedRow, type StreamedRowSpec } from "./wasm/streamed-row.js";

/**
 * What a thread is started with: the compiled decoders, once an earlier thread has compiled them; or, while another
 * thread is compiling them, `awaitModule`: the module then comes as the thread's first message (a ModuleGift).
 */
export interface DecodeThreadData {
	readonly module?: object;
	readonly awaitModule?: boolean;
}

/** The compiled decoders, sent to a thread started to wait for them, before any chunk. */
export interface ModuleGift {
	readonly module: object;
}

/** The compiled decoders, sent once by a thread that compiled them, for the threads started after it. */
export interface CompiledAnswer {
	readonly compiled: object;
}

export interface DecodeRequest {
	readonly id: number;
	readonly codec: WasmCodec;
	/**
	 * The encoded bytes are its first `inputLength` bytes, and the decoded bytes go to its first bytes, up to
	 * `capacity` (WasmDecoders.decodeInBuffer: the whole buffer is the decoder's meanwhile). Transferred there and back.
	 */
	readonly buffer?: ArrayBuffer;
	readonly inputLength: number;
	readonly capacity: number;
	/** The values are datetime64 counts: say where NaT may be among them (DecodedLength.natPositions). */
	readonly scanNaT: boolean;
	/**
	 * Where the decoded bytes go instead, when set: `capacity` bytes of this shared buffer from `targetOffset` on (an
	 * inner chunk's place in its shard's buffer, see ShardBands). `buffer` then only brings the encoded bytes, and
	 * goes back untouched; without `buffer`, the encoded bytes are the first `inputLength` bytes of that region, and
	 * decode where they are (WasmDecoders.decodeInBuffer at that offset).
	 */
	readonly target?: SharedArrayBuffer;
	readonly targetOffset?: number;
}

/**
 * A row of zstd chunks streamed on this thread (wasm/streamed-row.ts): opened, asked for its bands in turn (each
 * answered as a DecodeRequest is, `length` the band's bytes), and closed, by the last band or by a close.
 */
export type StreamMessage =
	| { readonly stream: "open"; readonly row: number; readonly spec: StreamedRowSpec }
	| { readonly stream: "band"; readonly id: number; readonly row: number; readonly buffer: ArrayBuffer; readonly rows: number; readonly last: boolean; readonly scanNaT: boolean }
	| { readonly stream: "close"; readonly row: number };

/** A refusal goes back as its message, code and fields: the main thread makes the same Dt64ExportError of them. */
export type DecodeAnswer = { readonly id: number; readonly buffer?: ArrayBuffer } & (
	| { readonly length: number; readonly natPositions: Int32Array | null }
	| { readonly error: string; readonly code: ErrorCode; readonly fields: ErrorFields }
);

const data = (workerData as DecodeThreadData | undefined) ?? {};
let decoders: WasmDecoders | undefined;
if (data.awaitModule !== true) {
	decoders = loadWasmDecoders(data.module);
	// A WebAssembly.Module posted to another thread shares its compiled code (and its optimized tier, once compiled):
	// a later thread neither compiles the decoders again nor runs them unoptimized while it tiers up.
	if (data.module === undefined) parentPort!.postMessage({ compiled: decoders.module } satisfies CompiledAnswer);
}

/** The rows streamed on this thread, or why one could not be opened (said by its first band). */
const rows = new Map<number, StreamedRow | Error>();

function onStream(message: StreamMessage): void {
	if (message.stream === "open") {
		try {
			if (decoders === undefined) throw new Dt64ExportError("INTERNAL", "zstd: a streamed row came before the decoders");
			rows.set(message.row, new StreamedRow(decoders.module, message.spec, readFileAt));
		} catch (error) {
			rows.set(message.row, error as Error);
		}
		return;
	}
	const row = rows.get(message.row);
	if (message.stream === "close") {
		if (row instanceof StreamedRow) row.close();
		rows.delete(message.row);
		return;
	}
	const { id, buffer } = message;
	let answer: DecodeAnswer;
	try {
		if (row === undefined) throw new Dt64ExportError("INTERNAL", "zstd: a band of a streamed row not opened");
		if (row instanceof Error) throw row;
		answer = { id, buffer, length: buffer.byteLength, natPositions: row.fill(new Uint8Array(buffer), message.rows, message.last, message.scanNaT) };
	} catch (error) {
		rows.delete(message.row);
		if (row instanceof StreamedRow) row.close();
		answer = { id, buffer, error: (error as Error).message ?? String(error), code: error instanceof Dt64ExportError ? error.code : "CHUNK_CORRUPT", fields: errorFieldsOf(error) };
	}
	if (message.last) rows.delete(message.row);
	const natPositions = "natPositions" in answer ? answer.natPositions : null;
	parentPort!.postMessage(answer, natPositions === null ? [buffer] : [buffer, natPositions.buffer as ArrayBuffer]);
}

parentPort!.on("message", (message: DecodeRequest | ModuleGift | StreamMessage) => {
	if ("stream" in message) {
		onStream(message);
		return;
	}
	if (!("id" in message)) {
		decoders = loadWasmDecoders(message.module);
		return;
	}
	const { id, codec, buffer, inputLength, capacity, scanNaT, target, targetOffset } = message;
	let answer: DecodeAnswer;
	try {
		if (decoders === undefined) throw new Dt64ExportError("INTERNAL", `${codec}: a chunk came before the decoders`);
		let decoded: DecodedLength;
		if (target === undefined) decoded = decoders.decodeInBuffer(codec, buffer!, inputLength, capacity, scanNaT);
		else if (buffer === undefined) decoded = decoders.decodeInBuffer(codec, target, inputLength, capacity, scanNaT, targetOffset ?? 0);
		else decoded = decoders.decode(codec, new Uint8Array(buffer, 0, inputLength), new Uint8Array(target, targetOffset ?? 0, capacity), scanNaT);
		answer = { id, buffer, ...decoded };
	} catch (error) {
		answer = { id, buffer, error: (error as Error).message ?? String(error), code: error instanceof Dt64ExportError ? error.code : "CHUNK_CORRUPT", fields: errorFieldsOf(error) };
	}
	const natPositions = "natPositions" in answer ? answer.natPositions : null;
	const transfer = [buffer, natPositions?.buffer as ArrayBuffer | undefined].filter((moved) => moved !== undefined);
	parentPort!.postMessage(answer, transfer);
});
