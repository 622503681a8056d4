// A stand-in decode thread for test/decoder-pool.test.ts that takes its time: it "compiles" a module as
// module-echo-worker.mjs does, then holds each chunk for DT64_TEST_DECODE_MS milliseconds, blocking as a real decode
// does (the chunks sent meanwhile wait in its queue), and answers with a length that counts the chunks it decoded.
import { parentPort, workerData } from "node:worker_threads";

const ms = Number(process.env.DT64_TEST_DECODE_MS ?? "20");
const sleeper = new Int32Array(new SharedArrayBuffer(4));
let decoded = 0;
if (!(workerData?.module instanceof WebAssembly.Module) && workerData?.awaitModule !== true) {
	parentPort.postMessage({ compiled: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) });
}
parentPort.on("message", (message) => {
	if (!("id" in message)) return;
	Atomics.wait(sleeper, 0, 0, ms);
	decoded++;
	parentPort.postMessage({ id: message.id, buffer: message.buffer, length: decoded }, [message.buffer]);
});
