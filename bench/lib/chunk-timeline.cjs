// Preloaded (`node --require bench/lib/chunk-timeline.cjs`) by bench/first-chunks.mjs: records when each chunk was
// sent to a decode thread and when its answer came back (ms since the process started, performance.now()), from
// the decode requests (`id` and `codec`) posted to worker_threads Workers and the answers they emit, and writes
// them as JSON to the file DT64_CHUNK_TIMELINE names when the process exits. Measures; changes nothing.
const { Worker } = require("node:worker_threads");
const fs = require("node:fs");

const sent = new Map();
const chunks = [];
const postMessage = Worker.prototype.postMessage;
Worker.prototype.postMessage = function (message, transfer) {
	if (message !== null && typeof message === "object" && typeof message.id === "number" && typeof message.codec === "string") sent.set(message.id, performance.now());
	return postMessage.call(this, message, transfer);
};
const emit = Worker.prototype.emit;
Worker.prototype.emit = function (event, answer, ...rest) {
	if (event === "message" && answer !== null && typeof answer === "object" && sent.has(answer.id)) {
		chunks.push({ id: answer.id, sent: sent.get(answer.id), back: performance.now() });
		sent.delete(answer.id);
	}
	return emit.call(this, event, answer, ...rest);
};
process.on("exit", () => {
	if (process.env.DT64_CHUNK_TIMELINE) fs.writeFileSync(process.env.DT64_CHUNK_TIMELINE, JSON.stringify({ chunks: chunks.sort((a, b) => a.id - b.id), exit: performance.now() }));
});
