/**
 * `--part K/N`: which slice of the rows this process exports. Slices are balanced in chunks and aligned on
 * them, so that N processes running the same command with K = 0..N-1 read disjoint chunks and write disjoint rows
 * whose union is the whole export.
 */
import { UsageError } from "../errors.js";
import type { RowRange } from "./time-search.js";

export interface Part {
	/** 0-based. */
	readonly index: number;
	readonly count: number;
}

/** The largest N accepted: file names hold 5 digits, and more processes than that is a mistake. */
export const MAX_PARTS = 99_999;

function checkPart(index: number, count: number, source: string): Part {
	if (!Number.isSafeInteger(count) || count < 1 || count > MAX_PARTS) throw new UsageError(`${source}: the number of parts must be 1 to ${MAX_PARTS}, got ${count}`, { option: "part" });
	if (!Number.isSafeInteger(index) || index < 0 || index >= count) throw new UsageError(`${source}: part ${index} does not exist among ${count} parts (0 to ${count - 1})`, { option: "part" });
	return { index, count };
}

function integer(text: string | undefined): number {
	return text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * An array job's variable as a whole number: one that is not set (a job run outside an array, or a container that
 * drops it) or not a number is said so by name, not as the `NaN` it would read as.
 */
function variable(env: NodeJS.ProcessEnv, name: string, where: string): number {
	const text = env[name];
	if (text === undefined || text.trim() === "") throw new UsageError(`${where}: ${name} is not set (a job run outside an array job, or an environment that drops it); use \`part\` K/N`, { option: "part" });
	const value = integer(text);
	if (Number.isNaN(value)) throw new UsageError(`${where}: ${name}=${JSON.stringify(text)} is not a whole number`, { option: "part", value: text });
	return value;
}

/** `K/N` as written on the command line. */
export function parsePart(text: string): Part {
	const match = /^(\d+)\/(\d+)$/.exec(text.trim());
	if (match === null) throw new UsageError(`part ${JSON.stringify(text)}: expected K/N (0-based, e.g. 3/16) or auto`, { option: "part", value: text });
	return checkPart(Number(match[1]), Number(match[2]), `part ${text}`);
}

/** The batch engines whose array jobs `--part auto` understands, by the variables they set. */
const ENGINES: readonly { name: string; index: string; detect: (env: NodeJS.ProcessEnv, parts?: number) => Part }[] = [
	{
		name: "Kubernetes Indexed Job",
		index: "JOB_COMPLETION_INDEX",
		detect: (env, parts) => {
			// Kubernetes exports the index only; the count is the Job's `completions`, given as `parts`.
			if (parts === undefined) {
				throw new UsageError("part auto: JOB_COMPLETION_INDEX is set (Kubernetes Indexed Job) but Kubernetes does not export the count: give it as `parts` (the Job's completions)", { option: "part" });
			}
			return checkPart(variable(env, "JOB_COMPLETION_INDEX", "part auto"), parts, "part auto (JOB_COMPLETION_INDEX, `parts`)");
		},
	},
	{
		name: "AWS Batch array job",
		index: "AWS_BATCH_JOB_ARRAY_INDEX",
		detect: (env) => checkPart(variable(env, "AWS_BATCH_JOB_ARRAY_INDEX", "part auto"), variable(env, "AWS_BATCH_JOB_ARRAY_SIZE", "part auto"), "part auto (AWS_BATCH_JOB_ARRAY_INDEX, AWS_BATCH_JOB_ARRAY_SIZE)"),
	},
	{
		name: "Cloud Run job",
		index: "CLOUD_RUN_TASK_INDEX",
		detect: (env) => checkPart(variable(env, "CLOUD_RUN_TASK_INDEX", "part auto"), variable(env, "CLOUD_RUN_TASK_COUNT", "part auto"), "part auto (CLOUD_RUN_TASK_INDEX, CLOUD_RUN_TASK_COUNT)"),
	},
	{
		name: "Slurm job array",
		index: "SLURM_ARRAY_TASK_ID",
		detect: (env) => {
			// Task ids run from SLURM_ARRAY_TASK_MIN (`--array=1-8` starts at 1); ids with gaps or steps (`1-9:2`) are not
			// K = 0..N-1 once shifted, which the range check below refuses.
			const min = env.SLURM_ARRAY_TASK_MIN === undefined ? 0 : variable(env, "SLURM_ARRAY_TASK_MIN", "part auto");
			const where = "part auto (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN)";
			if (env.SLURM_ARRAY_TASK_STEP !== undefined && integer(env.SLURM_ARRAY_TASK_STEP) !== 1) {
				throw new UsageError(`${where}: a job array with a step (SLURM_ARRAY_TASK_STEP=${env.SLURM_ARRAY_TASK_STEP}) has gaps between task ids; use a contiguous range (sbatch --array=0-7) or \`part\` K/N`, { option: "part" });
			}
			return checkPart(variable(env, "SLURM_ARRAY_TASK_ID", "part auto") - min, variable(env, "SLURM_ARRAY_TASK_COUNT", "part auto"), where);
		},
	},
];

/** "an AWS Batch array job", "a Slurm job array". */
const article = (name: string) => (/^[AEIOU]/i.test(name) ? "an" : "a");

/**
 * `--part auto`: K and N from the environment of the batch engine running this process. Exactly one engine's
 * index variable must be set; `parts` (--parts) is needed for Kubernetes, and must agree with the count elsewhere.
 */
export function partFromEnvironment(env: NodeJS.ProcessEnv, parts?: number): Part {
	const present = ENGINES.filter((engine) => env[engine.index] !== undefined && env[engine.index] !== "");
	if (present.length === 0) {
		throw new UsageError(`part auto: no array job index in the environment (${ENGINES.map((engine) => `${engine.index} for ${article(engine.name)} ${engine.name}`).join(", ")}); use \`part\` K/N`, { option: "part" });
	}
	if (present.length > 1) {
		throw new UsageError(`part auto: ambiguous, several array job indexes are set (${present.map((engine) => `${engine.index}=${env[engine.index]}`).join(", ")}); use \`part\` K/N`, { option: "part" });
	}
	const part = present[0].detect(env, parts);
	if (parts !== undefined && parts !== part.count) throw new UsageError(`parts ${parts} disagrees with the ${present[0].name}'s count ${part.count}`, { option: "parts", value: parts });
	return part;
}

/**
 * The rows of part K of N within `rows`: the chunks along axis 0 that `rows` touches are split into N runs whose
 * lengths differ by at most one chunk, and each part keeps its run's rows inside `rows` (empty when N exceeds the
 * chunks).
 */
export function partRows(rows: RowRange, chunkRows: number, part: Part): RowRange {
	if (rows.end <= rows.start) return { start: rows.start, end: rows.start };
	const firstChunk = Math.floor(rows.start / chunkRows);
	const chunks = Math.ceil(rows.end / chunkRows) - firstChunk;
	const from = firstChunk + Math.floor((part.index * chunks) / part.count);
	const to = firstChunk + Math.floor(((part.index + 1) * chunks) / part.count);
	const start = Math.min(rows.end, Math.max(rows.start, from * chunkRows));
	const end = Math.min(rows.end, Math.max(rows.start, to * chunkRows));
	return { start, end: Math.max(start, end) };
}
