import { Writable } from "node:stream";
import type { BufferPool } from "../memory/buffer-pool.js";

/**
 * Writes to a stream written in place (stdout, a FIFO, a device), handing each buffer of `pool` back once that
 * stream has taken it (its write callback), as the output file does (AtomicFileWriter): without it, every chunk
 * written to `-o -` was a new 8 MB buffer left to the collector (20M zstd values to stdout peaked at 162 MiB where
 * the same export to a file peaks under 100). One write at a time, each waiting for the stream's callback.
 *
 * `endInner`: ending this ends the stream too (a FIFO's or a device's); stdout is never ended, only written.
 */
export class WrittenBackWriter extends Writable {
	readonly #inner: Writable;
	readonly #pool: BufferPool;
	readonly #endInner: boolean;

	constructor(inner: Writable, pool: BufferPool, options: { endInner: boolean }) {
		super({ highWaterMark: 1 << 20 });
		this.#inner = inner;
		this.#pool = pool;
		this.#endInner = options.endInner;
		pool.expectWrittenBack();
		// The stream's own failures (outside a write's callback too) are this writer's, and end its pipeline.
		inner.on("error", (error) => this.destroy(error));
	}

	override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
		this.#inner.write(chunk, (error) => {
			if (!error) this.#pool.release(chunk);
			callback(error);
		});
	}

	override _final(callback: (error?: Error | null) => void): void {
		if (!this.#endInner) {
			callback();
			return;
		}
		this.#inner.end((error?: Error | null) => callback(error));
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		if (this.#endInner) this.#inner.destroy(error ?? undefined);
		callback(error);
	}
}
