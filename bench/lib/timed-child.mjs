/**
 * Times a call of a checkout's built library in a child process of its own: the child imports its dist/index.js as
 * `api`, runs the call once (which loads the modules), then `runs` times timed in the same process, so that Node's
 * start and module loading, which a loaded machine makes slow and uneven, are left out.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";

/** The child's script around `defineRun`, source text that defines `run` from `api` and `args` (the strings given). */
const childScript = (defineRun) => `
const [dist, runs, ...args] = process.argv.slice(1);
const api = await import(dist);
${defineRun}
await run();
const times = [];
for (let i = 0; i < Number(runs); i++) {
	const started = performance.now();
	await run();
	times.push(performance.now() - started);
}
console.log(JSON.stringify({ times, maxRssKiB: process.resourceUsage().maxRSS }));
`;

/** The wall times in milliseconds of the `runs` timed runs, and the child's peak RSS in KiB. */
export function timeInChild(checkout, defineRun, args, { runs, env = process.env }) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ["--input-type=module", "-e", childScript(defineRun), path.join(checkout, "dist/index.js"), String(runs), ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (data) => (stdout += data));
		child.stderr.on("data", (data) => (stderr += data));
		child.on("close", (status) => {
			if (status !== 0) reject(new Error(`${checkout} ${args.join(" ")}: exit ${status}: ${stderr}`));
			else resolve(JSON.parse(stdout));
		});
	});
}
