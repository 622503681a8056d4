import { Readable } from "node:stream";

/**
 * An object-mode Readable over an async generator: one item is pulled per `_read`, and only when the consumer reads
 * (no high-water mark: nothing is pulled ahead, so the generator runs only as fast as the consumer reads and what it
 * reads ahead is its own choice, e.g. the chunks a TableReader has in flight; an item buffered here would hold one
 * more chunk of memory whenever the output lags). Its failure destroys the stream, and destroying the stream aborts
 * `signal` (cancelling reads in flight) and closes the generator (running its `finally`).
 */
export class GeneratorReadable<T> extends Readable {
	readonly #abort = new AbortController();
	#items: AsyncGenerator<T> | undefined;

	constructor() {
		super({ objectMode: true, highWaterMark: 0 });
	}

	/** Aborted when the stream is destroyed: what the generator reads with should stop too. */
	protected get signal(): AbortSignal {
		return this.#abort.signal;
	}

	/** Sets the items this stream emits; called once, from the subclass constructor. */
	protected pullFrom(items: AsyncGenerator<T>): void {
		this.#items = items;
	}

	override _read(): void {
		this.#items!.next().then(
			({ value, done }) => {
				this.push(done ? null : value);
			},
			(error: unknown) => this.destroy(error as Error),
		);
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		this.#abort.abort();
		if (this.#items === undefined) {
			callback(error);
			return;
		}
		this.#items.return(undefined).then(
			() => callback(error),
			() => callback(error),
		);
	}
}
