/**
 * Chunks that cost no I/O (missing ones, read as the fill value; small files read on this thread, see
 * directory-store.ts) are read and converted by promise continuations alone, which never give the event loop a
 * turn: signals (the CLI's SIGTERM, SIGINT), timers (a caller's abort) and other I/O then wait until the export ends,
 * 16 s for a million missing chunks, hours for a billion. A read of a chunk first gives the loop a turn once this
 * long has passed since the last one it gave: a few microseconds every TURN_MS.
 */
const TURN_MS = 20;

let lastTurn = performance.now();

/** Resolves at once, or after one turn of the event loop (setImmediate) when TURN_MS have passed since the last. */
export function eventLoopTurn(): Promise<void> | undefined {
	const now = performance.now();
	if (now - lastTurn < TURN_MS) return undefined;
	lastTurn = now;
	return new Promise((resolve) => setImmediate(resolve));
}
