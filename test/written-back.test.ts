/**
 * WrittenBackWriter: what the CLI writes in place (stdout, a FIFO) hands each pooled buffer back once the stream has
 * taken it, as the output file does; ends and destroys the stream only when it owns it.
 */
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { WrittenBackWriter } from "../src/output/written-back.js";

/** A stream that takes each write a turn later, as a pipe does, keeping copies of what it was given. */
class SlowSink extends Writable {
	readonly got: Buffer[] = [];
	constructor(readonly failAt = -1) {
		super();
	}
	override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
		setImmediate(() => {
			if (this.got.length === this.failAt) return callback(Object.assign(new Error("EIO: i/o error, write"), { code: "EIO", syscall: "write" }));
			this.got.push(Buffer.from(chunk));
			callback();
		});
	}
}

/** Past the writer's high-water mark: one chunk queued at a time, as an export's 8 MB chunks are. */
const SIZE = 2 * 1024 * 1024;

describe("WrittenBackWriter", () => {
	it("hands each buffer back once written, so the next chunks reuse them", async () => {
		const pool = new BufferPool();
		const sink = new SlowSink();
		const writer = new WrittenBackWriter(sink, pool, { endInner: false });
		expect(pool.writtenComeBack).toBe(true);
		let made = 0;
		const chunks = async function* () {
			for (let k = 0; k < 20; k++) {
				const buffer = pool.acquire(SIZE).fill(k);
				made++;
				yield buffer;
			}
		};
		await pipeline(Readable.from(chunks(), { objectMode: false, highWaterMark: 0 }), writer);
		expect(made).toBe(20);
		expect(sink.got.map((b) => b[0])).toEqual(Array.from({ length: 20 }, (_, k) => k));
		expect(sink.got.every((b, k) => b.length === SIZE && b[SIZE - 1] === k)).toBe(true);
		// Every chunk after the first few reused a buffer written before.
		expect(pool.reused).toBeGreaterThanOrEqual(17);
		// stdout is only written, never ended.
		expect(sink.writableEnded).toBe(false);
	});

	it("ends and destroys the stream it owns (a FIFO's), and fails with the stream's write error", async () => {
		const pool = new BufferPool();
		const owned = new SlowSink();
		const writer = new WrittenBackWriter(owned, pool, { endInner: true });
		await pipeline(Readable.from([pool.acquire(SIZE)]), writer);
		expect(owned.writableFinished).toBe(true);

		const failing = new SlowSink(1);
		const broken = new WrittenBackWriter(failing, pool, { endInner: true });
		const buffers = [pool.acquire(SIZE), pool.acquire(SIZE), pool.acquire(SIZE)];
		const free = pool.freeBytes;
		await expect(pipeline(Readable.from(buffers), broken)).rejects.toMatchObject({ code: "EIO", syscall: "write" });
		expect(failing.destroyed).toBe(true);
		// Only the buffer written came back: the one that failed may still be read by no one, but is not reused.
		expect(pool.freeBytes - free).toBeLessThanOrEqual(SIZE * 2);
	});
});
