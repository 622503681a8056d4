/**
 * An export to a connection whose reader goes away before the end (robust36: 2). Through a pipe (`| head`, in
 * test/cli.test.ts) that ends the export quietly, exit 0; through a socket the reader is a program that was sent a
 * file and got a truncated one: `-o -` to a Unix socket (a Node parent's `stdio: "pipe"`) whose reader closes it
 * mid-export exits 1 with one line (it exited 0 on EPIPE, as for a pipe; a TCP connection's reset, ECONNRESET, already
 * failed), and the library's export to a socket closed by its peer rejects. The output is megabytes, past a Unix
 * socket's buffers (about 200 kB), and the reader stops after its first bytes: nothing here depends on timing. A reset
 * after the last bytes were handed to the system is seen by no sender (see README, Limits).
 */
import { spawn } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportTable } from "../src/index.js";
import { BIN, tempDir } from "./support/cli.js";

const ROWS = 600_000;

/** A store whose Parquet export is about 4.8 MB: pseudo-random seconds, which no encoding packs small. */
async function largeStore(): Promise<string> {
	const store = path.join(tempDir(), "large.zarr");
	let state = 12345;
	const values = BigInt64Array.from({ length: ROWS }, () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return 946684800n + BigInt(state);
	});
	await writeArray(store, "", { shape: [ROWS], chunks: [100_000], values, dimensionNames: ["time"] });
	return store;
}

interface Exit {
	status: number | null;
	stderr: string;
	received: number;
}

/** The CLI writing `-o -` to `stdout` (a socket): its exit, once its reader has gone after `received` bytes. */
function exitOf(child: ReturnType<typeof spawn>, received: () => number): Promise<Exit> {
	let stderr = "";
	child.stderr!.on("data", (bytes: Buffer) => (stderr += bytes.toString()));
	return new Promise((resolve) => child.on("close", (status) => resolve({ status, stderr, received: received() })));
}

describe("-o - to a socket whose reader goes away before the end: exit 1, one line (a pipe's reader: exit 0)", () => {
	for (const format of ["parquet", "arrow"]) {
		it(`${format}: a Unix socket (a Node parent's stdio "pipe") closed by its reader after its first bytes`, async () => {
			const store = await largeStore();
			const child = spawn(process.execPath, [BIN, store, "--to", format, "-o", "-"], { stdio: ["ignore", "pipe", "pipe"] });
			let received = 0;
			child.stdout!.on("data", (bytes: Buffer) => {
				received += bytes.length;
				child.stdout!.destroy();
			});
			const exit = await exitOf(child, () => received);
			expect(exit.received).toBeGreaterThan(0);
			expect(exit.stderr).toMatch(/^dt64-export: cannot write to stdout: write (EPIPE|ECONNRESET) \[WRITE_FAILED\]\n$/);
			expect(exit.status).toBe(1);
		});
	}
});

describe("library: an export to a socket whose peer closes it after its first bytes rejects WRITE_FAILED", () => {
	for (const format of ["parquet", "arrow", "arrow-stream"] as const) {
		it(format, async () => {
			const store = await largeStore();
			// A Unix socket: its buffers (about 200 kB) hold a small part of the megabytes the export writes.
			const address = path.join(tempDir(), "reader.sock");
			const server = net.createServer((socket) => {
				socket.on("error", () => undefined);
				socket.once("data", () => socket.destroy());
			});
			await new Promise<void>((resolve) => server.listen(address, resolve));
			try {
				const connection = net.connect(address);
				await new Promise((resolve) => connection.once("connect", resolve));
				await expect(exportTable(store, connection, { format })).rejects.toMatchObject({ code: "WRITE_FAILED", message: expect.stringMatching(/^cannot write to the output stream: (read|write) (EPIPE|ECONNRESET)$/) });
			} finally {
				server.close();
			}
		});
	}
});
