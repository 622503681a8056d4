/**
 * A decode thread's warm-up: while it waits for its first chunk (the CLI loads and opens the store meanwhile, about
 * 13 ms), it decodes the warm-up frame (warm-up-frame.ts) a few times in steps, by the streaming decoder that decodes
 * chunks of 2 MiB or more, so that V8 has tiered up the decoders' hot functions when the first chunk comes, which would otherwise run in V8's baseline code (a fresh instance's first
 * 8 MB zstd chunk: 47-50 ms of CPU, 32-35 after a 256 KiB frame, 27-29 after 1 MiB; a warm one 6-7). One round at
 * a time, each in its own turn of the event loop: a chunk that arrives is taken at the end of the round under way
 * (about 1 ms in baseline code), and stops the warm-up. No V8 flags: they are the process's, not this package's.
 */
import { STEPPED_CAPACITY, type WasmDecoders } from "./decoder-module.js";
import { WARM_UP_DECODED_BYTES, WARM_UP_ZSTD_FRAME } from "./warm-up-frame.js";

/** Rounds of the frame decoded at most: 512 KiB of output. */
export const WARM_UP_ROUNDS = 16;

export class DecoderWarmUp {
	#rounds = 0;
	#stopped = false;
	#frame: { readonly input: Uint8Array; readonly output: Uint8Array } | undefined;

	constructor(
		private readonly decoders: WasmDecoders,
		readonly maxRounds = WARM_UP_ROUNDS,
	) {}

	/** Rounds decoded so far. */
	get rounds(): number {
		return this.#rounds;
	}

	/** Whether it has ended: stopped, or all its rounds decoded. */
	get ended(): boolean {
		return this.#stopped || this.#rounds >= this.maxRounds;
	}

	/** Starts the rounds, the first in the next turn of the event loop (after any message already waiting). */
	start(): void {
		setImmediate(() => this.#round());
	}

	/** No round from now on (a chunk came). */
	stop(): void {
		this.#stopped = true;
		this.#frame = undefined;
	}

	#round(): void {
		if (this.ended) {
			this.#frame = undefined;
			return;
		}
		this.#rounds++;
		// Room for a chunk decoded in steps: the frame (its window 1 KiB) goes through the streaming decoder, as an
		// 8 MB chunk does, not the one-shot decoder a frame decoded whole takes.
		this.#frame ??= { input: Buffer.from(WARM_UP_ZSTD_FRAME, "base64"), output: new Uint8Array(Math.max(STEPPED_CAPACITY, WARM_UP_DECODED_BYTES)) };
		try {
			this.decoders.decode("zstd", this.#frame.input, this.#frame.output, true);
		} catch {
			// Never the case of the frame committed (test/warm-up-frame.test.ts); the chunks say what is wrong, if anything.
			this.#stopped = true;
			return;
		}
		setImmediate(() => this.#round());
	}
}
