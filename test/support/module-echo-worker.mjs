// A stand-in decode thread for test/decoder-pool.test.ts: it "compiles" a module (an empty WebAssembly module) when
// it was started without one and posts it as decode-worker.ts does; each chunk is answered with a length saying
// whether the thread was given the module (1) or compiled its own (0).
import { parentPort, workerData } from "node:worker_threads";

const given = workerData?.module;
if (given === undefined) parentPort.postMessage({ compiled: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) });
parentPort.on("message", ({ id, buffer }) => {
	parentPort.postMessage({ id, buffer, length: given instanceof WebAssembly.Module ? 1 : 0 }, [buffer]);
});
