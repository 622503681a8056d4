/**
 * Object stores as the input of every feature (issue 17): time ranges, parts and tables with their index columns
 * read from s3:// (test/support/s3-server.ts, which verifies Signature V4) give the bytes a local export gives.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { listDataset } from "../src/output/dataset-files.js";
import { WHOLE_CHECK_VALUES } from "../src/select/time-search.js";
import { tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";

const KEY_ID = "AKIDSELECTEXAMPLE001";
const SECRET = "select-secret-Never-Printed";
const buckets = tempDir("dt64-select-buckets-");
const GRID = "test/fixtures/scale/hourly-grid.zarr";
let s3: S3Server;
const HOURS_CHUNK = 10_000;
/** Longer than a time column read whole to check it sorted (WHOLE_CHECK_VALUES): it is searched. */
const HOURS = 1_100_000;

beforeAll(async () => {
	const hours = BigInt64Array.from({ length: HOURS }, (_, i) => BigInt(Date.UTC(2021, 0, 20) / 1000) + BigInt(i) * 3600n);
	await writeArray(path.join(buckets, "data", "hours.zarr"), "", { shape: [hours.length], chunks: [HOURS_CHUNK], values: hours, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }] });
	fs.cpSync(GRID, path.join(buckets, "data", "hourly-grid.zarr"), { recursive: true });
	s3 = await startS3Server({ root: buckets, users: { [KEY_ID]: { secret: SECRET } } });
});
afterAll(() => s3?.close());

/** Signed requests to the test server, and none of the machine's own AWS settings. */
function env(): Record<string, string> {
	const blank = ["AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "DT64_EXPORT_HEADER"];
	return { ...Object.fromEntries(blank.map((name) => [name, ""])), HOME: buckets, AWS_ENDPOINT_URL: s3.url, AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET };
}

/** Exports `args` from the local store and from the same store in the bucket; both must succeed. */
async function both(store: string, args: string[], output: (side: string) => string): Promise<void> {
	const runs = await Promise.all([runCliAsync([path.join(buckets, "data", store), ...args, "-o", output("local"), "-q"], { env: env() }), runCliAsync([`s3://data/${store}`, ...args, "-o", output("remote"), "-q"], { env: env() })]);
	for (const run of runs) {
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
	}
}

describe("s3:// as the input of time ranges, parts and tables", () => {
	it("--start/--end on a datetime64 array known sorted: the local export's bytes, the chunks outside the range never fetched", async () => {
		const out = tempDir();
		const before = s3.requests.length;
		await both("hours.zarr", ["--start", "2021-02-03T05:00", "--end", "2021-02-04T07:00", "--time-sorted"], (side) => path.join(out, `${side}.arrow`));
		expect(fs.readFileSync(path.join(out, "remote.arrow")).equals(fs.readFileSync(path.join(out, "local.arrow")))).toBe(true);
		const chunks = new Set(s3.requests.slice(before).filter((request) => request.key.startsWith("hours.zarr/c/")).map((request) => request.key));
		const chunkCount = HOURS / HOURS_CHUNK;
		expect(HOURS).toBeGreaterThan(WHOLE_CHECK_VALUES);
		expect(chunks.size).toBeLessThan(2 + 2 * Math.ceil(Math.log2(chunkCount)) + 2);
		expect(s3.requests.slice(before).every((request) => request.user === KEY_ID)).toBe(true);
	});

	it("a table with --index over its CF time coordinate, with a range: the local export's bytes", async () => {
		const out = tempDir();
		await both("hourly-grid.zarr", ["--columns", "t2m", "--index", "--start", "2020-12-30T05:00", "--end", "2021-01-02", "--to", "parquet"], (side) => path.join(out, `${side}.parquet`));
		expect(fs.readFileSync(path.join(out, "remote.parquet")).equals(fs.readFileSync(path.join(out, "local.parquet")))).toBe(true);
	});

	it("--part K/3 with --partition-by day: the same files, byte for byte, and both commit", async () => {
		const out = tempDir();
		const args = ["--columns", "t2m", "--index", "--start", "2021-01-01", "--to", "parquet", "--partition-by", "day"];
		for (const k of [0, 1, 2]) await both("hourly-grid.zarr", [...args, "--part", `${k}/3`], (side) => path.join(out, side));
		for (const side of ["local", "remote"]) expect((await runCliAsync(["commit", path.join(out, side)])).status).toBe(0);
		const local = listDataset(path.join(out, "local")).dataFiles;
		expect(local.length).toBeGreaterThan(3);
		expect(listDataset(path.join(out, "remote")).dataFiles).toEqual(local);
		for (const file of local) expect(fs.readFileSync(path.join(out, "remote", file)).equals(fs.readFileSync(path.join(out, "local", file))), file).toBe(true);
	});
});
