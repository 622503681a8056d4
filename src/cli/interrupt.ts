/**
 * The signals that end the CLI, each with the status a shell reports for it (128 + its number), and one line saying
 * so on stderr: the same exit whatever step the signal finds, with that step's own undoing first.
 */
import { writeStderrLine } from "./stderr-line.js";

const INTERRUPTS = [
	["SIGINT", 130],
	["SIGTERM", 143],
	["SIGHUP", 129],
] as const;

const ignore = () => undefined;

/**
 * Until the returned function is called, each of the signals runs `undo` (what the step must not leave behind), says
 * so and exits with its status, at once: a store being opened, or its time searched, over a server that does not
 * answer is waiting on a request that nothing else would end for minutes (its timeout, times its retries).
 */
export function exitOnInterrupt(undo: () => void = () => undefined): () => void {
	const handlers = INTERRUPTS.map(([signal, code]) => {
		const handler = () => {
			// Said first, and the signals caught (ignored) from now on: the undoing may take a while (a dataset of
			// thousands of files), and a second Ctrl-C meanwhile, with no listener left, would end the process at
			// once, leaving what the undoing had not removed yet.
			for (const [other] of INTERRUPTS) process.on(other, ignore);
			writeStderrLine(`dt64-export: interrupted by ${signal}`);
			undo();
			process.exit(code);
		};
		process.once(signal, handler);
		return [signal, handler] as const;
	});
	return () => {
		for (const [signal, handler] of handlers) process.off(signal, handler);
	};
}
