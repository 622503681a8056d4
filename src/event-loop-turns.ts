/**
 * Turns of the event loop for work that may never wait for I/O. Chunks that resolve at once (missing chunks, the
 * fill value; a shard's empty inner chunks; small chunk files read synchronously) chain promise callbacks from one
 * to the next: the microtask queue never empties, so the event loop never turns while they last. Nothing else runs
 * meanwhile: not a signal's handler (SIGTERM on a 1,000,000-chunk array with no chunk written waited the 16 s of the
 * whole export, and on a 10^9-chunk one forever), not a write's completion (the output's bytes pile up in memory,
 * its backpressure never comes), not a timer. Each caller asks `turn` between items; it lets the loop turn once
 * `TURN_MS` have passed since it last did.
 */

/** The time work may keep the event loop from turning: short enough for a signal to feel at once. */
export const TURN_MS = 20;

export class EventLoopTurns {
	#since = performance.now();

	/** Resolves after a turn of the event loop when TURN_MS have passed since the last one, at once otherwise. */
	turn(): Promise<void> | undefined {
		if (performance.now() - this.#since < TURN_MS) return undefined;
		return new Promise((resolve) =>
			setImmediate(() => {
				this.#since = performance.now();
				resolve();
			}),
		);
	}
}
