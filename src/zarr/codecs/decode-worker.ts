/**
 * A decode thread (see decoder-pool.ts): decodes each chunk it is sent with its own instance of the WebAssembly
 * decoders, into the buffer its encoded bytes came in, and hands that buffer back. A failure to decode is an
 * answer, not a crash: the message goes back with the buffer.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Dt64ExportError, errorFieldsOf, type ErrorCode, type ErrorFields } from "../../errors.js";
import { loadWasmDecoders, type WasmCodec, type WasmDecoders } from "./wasm/decoder-module.js";

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
	readonly buffer: ArrayBuffer;
	readonly inputLength: number;
	readonly capacity: number;
	/** The values are datetime64 counts: say where NaT may be among them (DecodedLength.natPositions). */
	readonly scanNaT: boolean;
}

/** A refusal goes back as its message, code and fields: the main thread makes the same Dt64ExportError of them. */
export type DecodeAnswer = { readonly id: number; readonly buffer: ArrayBuffer } & (
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

parentPort!.on("message", (message: DecodeRequest | ModuleGift) => {
	if (!("id" in message)) {
		decoders = loadWasmDecoders(message.module);
		return;
	}
	const { id, codec, buffer, inputLength, capacity, scanNaT } = message;
	let answer: DecodeAnswer;
	try {
		if (decoders === undefined) throw new Dt64ExportError("INTERNAL", `${codec}: a chunk came before the decoders`);
		answer = { id, buffer, ...decoders.decodeInBuffer(codec, buffer, inputLength, capacity, scanNaT) };
	} catch (error) {
		answer = { id, buffer, error: (error as Error).message ?? String(error), code: error instanceof Dt64ExportError ? error.code : "CHUNK_CORRUPT", fields: errorFieldsOf(error) };
	}
	const natPositions = "natPositions" in answer ? answer.natPositions : null;
	parentPort!.postMessage(answer, natPositions === null ? [buffer] : [buffer, natPositions.buffer as ArrayBuffer]);
});
