import { PassThrough, type Writable } from "node:stream";
import { tableFromIPC, type Table } from "apache-arrow";

/** Runs an export into a stream held in memory and reads what it wrote as an Arrow table (IPC output). */
export async function exportedArrow(run: (sink: Writable) => Promise<unknown>): Promise<Table> {
	const sink = new PassThrough();
	const parts: Buffer[] = [];
	sink.on("data", (chunk: Buffer) => parts.push(chunk));
	await run(sink);
	return tableFromIPC(Buffer.concat(parts));
}
