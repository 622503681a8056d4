/**
 * A process of its own that makes library calls against a server that holds their requests, aborts each after
 * `abortAfterMs`, and prints each call's rejection (a JSON line), then `done`, then returns: whatever the calls left
 * running (a socket, a timer, a retry) keeps the process alive past that line, which the parent measures.
 * argv[2]: JSON `{ abortAfterMs, calls: [{ name, args, options }] }`, `name` one of CALLS (the built package's),
 * `args` its arguments before the options, which get the signal.
 */
import { PassThrough } from "node:stream";
import { exportDataset, exportTable, exportToFile, inspectStore } from "../../dist/index.js";

const CALLS = { exportDataset, exportTable, exportToFile, inspectStore };

const { abortAfterMs, calls } = JSON.parse(process.argv[2]);
for (const { name, args, options } of calls) {
	const controller = new AbortController();
	const timer = setTimeout(() => controller.abort("the caller went away"), abortAfterMs);
	// A destination stream stands for the word "stream" among the arguments.
	const argumentsOf = args.map((arg) => (arg === "stream" ? new PassThrough() : arg));
	try {
		await CALLS[name](...argumentsOf, { ...options, signal: controller.signal });
		console.log(JSON.stringify({ name, resolved: true }));
	} catch (error) {
		console.log(JSON.stringify({ name, error: { name: error.name, code: error.code, cause: error.cause } }));
	}
	clearTimeout(timer);
}
console.log("done");
