// Loaded into a CLI process by the tests (--import): counts the threads the process starts (worker_threads.Worker) and
// the size of each WebAssembly module its main thread compiles, and says them on stderr as it exits, one line:
// `setup: {"threads":1,"modules":[632739]}`. A test tells from them whether the decoders were compiled (their
// module's size) or their threads started.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import workerThreads from "node:worker_threads";

if (workerThreads.isMainThread) {
	let threads = 0;
	const modules = [];
	const Worker = workerThreads.Worker;
	workerThreads.Worker = class CountedWorker extends Worker {
		constructor(...args) {
			super(...args);
			threads++;
		}
	};
	syncBuiltinESMExports();
	const { Module, compile, instantiate } = WebAssembly;
	const size = (source) => (source instanceof Module ? undefined : source.byteLength);
	function CountedModule(bytes, ...rest) {
		modules.push(size(bytes));
		return new Module(bytes, ...rest);
	}
	CountedModule.prototype = Module.prototype;
	// Module.imports, Module.exports, Module.customSections.
	Object.setPrototypeOf(CountedModule, Module);
	WebAssembly.Module = CountedModule;
	WebAssembly.compile = (bytes, ...rest) => {
		modules.push(size(bytes));
		return compile(bytes, ...rest);
	};
	WebAssembly.instantiate = (source, ...rest) => {
		const bytes = size(source);
		if (bytes !== undefined) modules.push(bytes);
		return instantiate(source, ...rest);
	};
	process.on("exit", () => fs.writeSync(2, `setup: ${JSON.stringify({ threads, modules })}\n`));
}
