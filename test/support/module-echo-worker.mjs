// A stand-in decode thread for test/decoder-pool.test.ts: it "compiles" a module (an empty WebAssembly module) when
// it was started without one and posts it as decode-worker.ts does, or waits for one as its first message when
// started with awaitModule; each chunk is answered with a length saying how the thread got its module: 0 compiled
// its own, 1 given at start, 2 sent as a message (-1: a chunk came before any module, which the pool must prevent).
import { parentPort, workerData } from "node:worker_threads";

let how = -1;
if (workerData?.module instanceof WebAssembly.Module) how = 1;
else if (workerData?.awaitModule !== true) {
	parentPort.postMessage({ compiled: new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])) });
	how = 0;
}
parentPort.on("message", (message) => {
	if (!("id" in message)) {
		if (message.module instanceof WebAssembly.Module) how = 2;
		return;
	}
	const { id, buffer } = message;
	parentPort.postMessage({ id, buffer, length: how }, [buffer]);
});
