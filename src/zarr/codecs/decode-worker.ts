/**
 * A decode thread (see decoder-pool.ts): decodes each chunk it is sent with its own instance of the WebAssembly
 * decoders, into the buffer its encoded bytes came in, and hands that buffer back. A failure to decode is an
 * answer, not a crash: the message goes back with the buffer.
 */
import { parentPort } from "node:worker_threads";
import { Dt64ExportError, type ErrorCode } from "../../errors.js";
import { WasmDecoders, type WasmCodec } from "./wasm/decoder-module.js";

export interface DecodeRequest {
	readonly id: number;
	readonly codec: WasmCodec;
	/**
	 * The encoded bytes are its first `inputLength` bytes, and the decoded bytes go to its first bytes, up to
	 * `capacity`: the decoder copies the input out before it writes. Transferred there and back.
	 */
	readonly buffer: ArrayBuffer;
	readonly inputLength: number;
	readonly capacity: number;
}

export type DecodeAnswer = { readonly id: number; readonly buffer: ArrayBuffer } & ({ readonly length: number } | { readonly error: string; readonly code: ErrorCode });

const decoders = new WasmDecoders();

parentPort!.on("message", (request: DecodeRequest) => {
	const { id, codec, buffer, inputLength, capacity } = request;
	let answer: DecodeAnswer;
	try {
		answer = { id, buffer, length: decoders.decode(codec, new Uint8Array(buffer, 0, inputLength), new Uint8Array(buffer, 0, capacity)) };
	} catch (error) {
		answer = { id, buffer, error: (error as Error).message ?? String(error), code: error instanceof Dt64ExportError ? error.code : "CHUNK_CORRUPT" };
	}
	parentPort!.postMessage(answer, [buffer]);
});
