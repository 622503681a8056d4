/**
 * The batch-engine examples of the README's "Scaling out" (examples/): each parses, and its command, run here as
 * the engine would run it (its index variables set, its placeholders filled with a local store and folder), writes
 * every part of one dataset that `commit` accepts.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { BIN, REPO, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";

const work = tempDir("dt64-examples-");
const examples = path.join(REPO, "examples");

/** A small store with the columns the examples name: hourly `time` over 2020-12-30..2022-01-02, and `t2m`. */
const store = (async () => {
	const location = path.join(work, "t2m.zarr");
	const hours = 24 * 369;
	const t0 = BigInt(Date.UTC(2020, 11, 30) / 1000);
	await writeArray(location, "time", { shape: [hours], chunks: [500], values: BigInt64Array.from({ length: hours }, (_, i) => t0 + BigInt(i) * 3600n) });
	await writeArray(location, "t2m", { shape: [hours], chunks: [700], values: Float32Array.from({ length: hours }, (_, i) => 270 + (i % 24)), dataType: "float32", fillValue: 0 });
	return location;
})();

/** The dt64-export arguments of a command that starts with `npx --yes dt64-export@<version>`. */
function exportArguments(command: string[]): string[] {
	expect(command.slice(0, 2)).toEqual(["npx", "--yes"]);
	expect(command[2]).toMatch(/^dt64-export@\d+\.\d+\.\d+$/);
	return command.slice(3);
}

async function runParts(args: string[], envOf: (k: number) => Record<string, string>, count: number, folder: string): Promise<void> {
	const runs = await Promise.all(Array.from({ length: count }, (_, k) => runCliAsync(args, { env: envOf(k) })));
	for (const run of runs) expect({ status: run.status, stderr: run.stderr }).toMatchObject({ status: 0 });
	const commit = await runCliAsync(["commit", folder, "--json"]);
	expect(commit.status, commit.stderr).toBe(0);
	// 2021 has 8,760 hours: the range [2021-01-01, 2022-01-01) exactly.
	expect(JSON.parse(commit.stdout.toString())).toMatchObject({ parts: count, rows: 8760, minTime: { iso: "2021-01-01T00:00:00" }, maxTime: { iso: "2021-12-31T23:00:00" } });
	expect(fs.readdirSync(folder).filter((name) => name.startsWith("year="))).toEqual(["year=2021"]);
}

describe("examples/", () => {
	it("kubernetes-indexed-job.json: an Indexed Job whose completions are --parts, each index one part", async () => {
		const job = JSON.parse(fs.readFileSync(path.join(examples, "kubernetes-indexed-job.json"), "utf8"));
		expect(job).toMatchObject({ apiVersion: "batch/v1", kind: "Job", spec: { completionMode: "Indexed" } });
		const container = job.spec.template.spec.containers[0];
		const args = exportArguments([...container.command, ...container.args]);
		expect(args[args.indexOf("--parts") + 1]).toBe(String(job.spec.completions));
		const folder = path.join(tempDir(), "out");
		// Kubernetes expands $(NAME) from the container's env; here to a local store and folder.
		const values: Record<string, string> = { STORE: await store, OUT: folder };
		expect(Object.keys(values).sort()).toEqual(container.env.map((variable: { name: string }) => variable.name).sort());
		const local = args.map((arg) => arg.replace(/\$\((\w+)\)/g, (_, name: string) => values[name]));
		await runParts(local, (k) => ({ JOB_COMPLETION_INDEX: String(k) }), job.spec.completions, folder);
	});

	it("aws-batch-job-definition.json: a job definition an array job runs, K and N from AWS_BATCH_JOB_ARRAY_*", async () => {
		const definition = JSON.parse(fs.readFileSync(path.join(examples, "aws-batch-job-definition.json"), "utf8"));
		expect(definition.type).toBe("container");
		const args = exportArguments(definition.containerProperties.command);
		const folder = path.join(tempDir(), "out");
		// AWS Batch substitutes Ref::<parameter> from the job's parameters (the definition's as defaults).
		const parameters: Record<string, string> = { store: await store, output: folder };
		expect(Object.keys(parameters).sort()).toEqual(Object.keys(definition.parameters).sort());
		const local = args.map((arg) => (arg.startsWith("Ref::") ? parameters[arg.slice(5)] : arg));
		const size = 4;
		await runParts(local, (k) => ({ AWS_BATCH_JOB_ARRAY_INDEX: String(k), AWS_BATCH_JOB_ARRAY_SIZE: String(size) }), size, folder);
	});

	it("slurm-array.sh: a bash script each array task runs, K and N from SLURM_ARRAY_*", async () => {
		const script = path.join(examples, "slurm-array.sh");
		expect(spawnSync("bash", ["-n", script]).status).toBe(0);
		const [, first, last] = /^#SBATCH --array=(\d+)-(\d+)$/m.exec(fs.readFileSync(script, "utf8"))!;
		const count = Number(last) - Number(first) + 1;
		const folder = path.join(tempDir(), "out");
		const env = (k: number) => ({
			STORE: "",
			OUT: folder,
			DT64_EXPORT: `${process.execPath} ${BIN}`,
			SLURM_ARRAY_TASK_ID: String(Number(first) + k),
			SLURM_ARRAY_TASK_MIN: first,
			SLURM_ARRAY_TASK_COUNT: String(count),
		});
		const location = await store;
		const runs = await Promise.all(
			Array.from(
				{ length: count },
				(_, k) =>
					new Promise<{ status: number | null; stderr: string }>((resolve) => {
						const child = spawn("bash", [script], { env: { ...process.env, ...env(k), STORE: location }, stdio: ["ignore", "ignore", "pipe"] });
						let stderr = "";
						child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
						child.once("close", (status) => resolve({ status, stderr }));
					}),
			),
		);
		for (const run of runs) expect(run).toMatchObject({ status: 0 });
		const commit = await runCliAsync(["commit", folder, "--json"]);
		expect(commit.status, commit.stderr).toBe(0);
		expect(JSON.parse(commit.stdout.toString())).toMatchObject({ parts: count, rows: 8760 });
	});
});
