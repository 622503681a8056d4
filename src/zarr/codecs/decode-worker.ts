/**
 * A decode thread (see decoder-pool.ts): decodes each chunk it is sent with its own instance of the WebAssembly
 * decoders, into the output buffer it was handed, and hands that buffer back. A failure to decode is an answer, not
 * a crash: the message goes back with the buffer.
 */
import { parentPort } from "node:worker_threads";
import { Dt64ExportError, type ErrorCode } from "../../errors.js";
import { WasmDecoders, type WasmCodec } from "./wasm/decoder-module.js";

export interface DecodeRequest {
	readonly id: number;
	readonly codec: WasmCodec;
	/** The encoded bytes: its first `inputLength` bytes. Transferred there and back. */
	readonly input: ArrayBuffer;
	readonly inputLength: number;
	/** Where the decoded bytes go: its first bytes, up to `capacity`. Transferred there and back. */
	readonly output: ArrayBuffer;
	readonly capacity: number;
}

export type DecodeAnswer = { readonly id: number; readonly input: ArrayBuffer; readonly output: ArrayBuffer } & ({ readonly length: number } | { readonly error: string; readonly code: ErrorCode });

const decoders = new WasmDecoders();

parentPort!.on("message", (request: DecodeRequest) => {
	const { id, codec, input, inputLength, output, capacity } = request;
	let answer: DecodeAnswer;
	try {
		answer = { id, input, output, length: decoders.decode(codec, new Uint8Array(input, 0, inputLength), new Uint8Array(output, 0, capacity)) };
	} catch (error) {
		answer = { id, input, output, error: (error as Error).message ?? String(error), code: error instanceof Dt64ExportError ? error.code : "CHUNK_CORRUPT" };
	}
	parentPort!.postMessage(answer, [input, output]);
});
