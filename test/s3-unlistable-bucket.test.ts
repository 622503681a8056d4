/**
 * s3:// buckets the caller may read but not list (no s3:ListBucket: a GetObject-only role, a public bucket whose
 * policy grants reading objects only). AWS answers a key that does not exist with 403 AccessDenied there, not 404:
 * test/support/s3-server.ts does so for its `unlistableBuckets`. Metadata probes (a v2 store's zarr.json, a v3
 * store's .zarray) read such a 403 as absent; a chunk answered so is an error unless --forbidden-as-missing
 * (library: forbiddenAsMissing) reads it as missing. Every export is compared with the export of the same folder.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { Dt64ExportError } from "../src/errors.js";
import { exportToFile } from "../src/export.js";
import { exportSelection } from "../src/export-selection.js";
import { inspectStore } from "../src/inspect.js";
import { readRawInt64, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startS3Server, type S3Fault, type S3Server } from "./support/s3-server.js";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const KEY_ID = "AKIDGETONLYEXAMPLE01";
const SECRET = "get-only-secret";
const V2_FIXTURES = path.join(import.meta.dirname, "fixtures", "v2");

const buckets = tempDir("dt64-unlistable-");
const work = tempDir("dt64-unlistable-out-");
const home = tempDir("dt64-unlistable-home-");
let s3: S3Server;
/** Answers chosen requests otherwise (see S3ServerOptions.fault), while a test sets it. */
let fault: ((request: { bucket: string; key: string }) => S3Fault | undefined) | undefined;

const VALUES = BigInt64Array.from({ length: 400 }, (_, i) => (i % 7 === 3 ? NAT : 1_600_000_000n + BigInt(i) * 60n));
const sharding = { name: "sharding_indexed", configuration: { chunk_shape: [50], codecs: [LE], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } };

beforeAll(async () => {
	for (const bucket of ["getonly", "objects-only"]) {
		const root = path.join(buckets, bucket);
		// zarr-python 2 stores: every chunk written, and one whose chunk 1 was never written (fill value NaT).
		fs.cpSync(path.join(V2_FIXTURES, "ns-raw.zarr"), path.join(root, "v2.zarr"), { recursive: true });
		fs.cpSync(path.join(V2_FIXTURES, "days-nat-string.zarr"), path.join(root, "v2-sparse.zarr"), { recursive: true });
		// v3: chunks 1 and 3 never written; a sharded array whose shard 1 was never written.
		await writeArray(path.join(root, "sparse.zarr"), "", { shape: [400], chunks: [100], dataType: seconds, values: VALUES, codecs: [LE], omitChunks: ([c]: number[]) => c === 1 || c === 3 });
		await writeArray(path.join(root, "sharded.zarr"), "", { shape: [400], chunks: [200], dataType: seconds, values: VALUES, codecs: [sharding], omitChunks: ([c]: number[]) => c === 1 });
	}
	s3 = await startS3Server({ root: buckets, users: { [KEY_ID]: { secret: SECRET } }, publicBuckets: ["objects-only"], unlistableBuckets: ["getonly", "objects-only"], fault: (request) => fault?.(request) });
});
afterAll(async () => {
	await s3.close();
});

/** Only these settings, none of the machine's. */
function env(extra: Record<string, string> = {}): Record<string, string> {
	const blank = ["AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "DT64_EXPORT_FORBIDDEN_AS_MISSING"];
	return { ...Object.fromEntries(blank.map((name) => [name, ""])), HOME: home, AWS_ENDPOINT_URL: s3.url, AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, ...extra };
}

let counter = 0;
const outFile = () => path.join(work, `out${counter++}.arrow`);

/**
 * Exports `s3://<bucket>/<store>` and the same folder with `args`, and expects the same bytes and `stderr` (the
 * warning of the chunks read as missing under --forbidden-as-missing); gives the remote output.
 */
async function expectSameAsLocal(bucket: string, store: string, args: string[], stderr: string | RegExp = ""): Promise<string> {
	const local = outFile();
	const remote = outFile();
	const localRun = await runCliAsync([path.join(buckets, bucket, store), "-o", local, "-q"]);
	expect(localRun.stderr).toBe("");
	const result = await runCliAsync([`s3://${bucket}/${store}`, "-o", remote, "-q", ...args], { env: env() });
	if (typeof stderr === "string") expect(result.stderr).toBe(stderr);
	else expect(result.stderr).toMatch(stderr);
	expect(result.status).toBe(0);
	expect(fs.readFileSync(remote).equals(fs.readFileSync(local))).toBe(true);
	return remote;
}

const refused = (bucket: string, key: string) => s3.requests.filter((request) => request.bucket === bucket && request.key === key && request.status === 403);

describe("metadata probes answered 403 by a bucket that cannot be listed", () => {
	it("a Zarr v2 store is read: its zarr.json probe (403) is absent, its .zarray is read", async () => {
		const before = s3.requests.length;
		await expectSameAsLocal("getonly", "v2.zarr", []);
		expect(refused("getonly", "v2.zarr/zarr.json").length).toBeGreaterThan(0);
		expect(s3.requests.slice(before).every((request) => request.user === KEY_ID)).toBe(true);
	});

	it("a sparse Zarr v2 store with --forbidden-as-missing: the missing chunk is the fill value", async () => {
		const out = await expectSameAsLocal("getonly", "v2-sparse.zarr", ["--forbidden-as-missing"], /^dt64-export: warning: 1 chunk answered 403 AccessDenied was read as missing, the fill value \(--forbidden-as-missing\): 1; /);
		expect(readRawInt64(out)[2]).toBeNull();
		expect(refused("getonly", "v2-sparse.zarr/1").length).toBeGreaterThan(0);
	});

	it("a store that is not there: ACCESS_DENIED saying the bucket answers 403 for missing keys, not ARRAY_NOT_FOUND", async () => {
		const result = await runCliAsync(["s3://getonly/nothing-here.zarr", "-o", outFile()], { env: env() });
		expect(result.status).toBe(1);
		expect(result.stderr.split("\n")).toHaveLength(2);
		expect(result.stderr).toMatch(
			/^dt64-export: s3:\/\/getonly\/nothing-here\.zarr: no Zarr metadata could be read \(zarr\.json, \.zarray, \.zgroup, \.zmetadata answered 403 AccessDenied\); a bucket that does not let the caller list it \(no s3:ListBucket\) answers 403 for keys that do not exist, so the store may be missing or the credentials refused: GET \S+ failed: HTTP 403 Forbidden \(AccessDenied: access denied\): bucket "getonly" refused a request signed with credentials from the environment \(AWS_ACCESS_KEY_ID\) \[ACCESS_DENIED\]\n$/,
		);
		await expect(inspectStore("s3://getonly/nothing-here.zarr", { env: env() })).rejects.toMatchObject({ code: "ACCESS_DENIED", path: "s3://getonly" });
	});

	it("a public bucket that grants reading objects only, unsigned: the v2 store is read", async () => {
		const local = outFile();
		const remote = outFile();
		await runCliAsync([path.join(buckets, "objects-only", "v2.zarr"), "-o", local, "-q"]);
		const result = await runCliAsync(["s3://objects-only/v2.zarr", "-o", remote, "-q", "--no-sign-request"], { env: env() });
		expect(result.stderr).toBe("");
		expect(fs.readFileSync(remote).equals(fs.readFileSync(local))).toBe(true);
	});
});

describe("chunks answered 403 by a bucket that cannot be listed", () => {
	it("without --forbidden-as-missing: ACCESS_DENIED naming the chunk, why it may be missing and the flag; no output", async () => {
		const out = outFile();
		const result = await runCliAsync(["s3://getonly/sparse.zarr", "-o", out], { env: env() });
		expect(result.status).toBe(1);
		expect(result.stderr.split("\n")).toHaveLength(2);
		expect(result.stderr).toMatch(
			/^dt64-export: GET \S+\/getonly\/sparse\.zarr\/c\/1 failed: HTTP 403 Forbidden \(AccessDenied: access denied\): bucket "getonly" refused a request signed with credentials from the environment \(AWS_ACCESS_KEY_ID\); a bucket that does not let the caller list it \(no s3:ListBucket\) answers 403 for keys that do not exist, so chunk c\/1 may be one that was never written \(the fill value\): --forbidden-as-missing reads such chunks as missing \[ACCESS_DENIED\]\n$/,
		);
		expect(fs.existsSync(out)).toBe(false);
	});

	it("with --forbidden-as-missing: the chunks never written are the fill value, as from the folder, counted on stderr even with -q", async () => {
		const out = await expectSameAsLocal(
			"getonly",
			"sparse.zarr",
			["--forbidden-as-missing"],
			"dt64-export: warning: 2 chunks answered 403 AccessDenied were read as missing, the fill value (--forbidden-as-missing): c/1, c/3; a chunk never written and one these credentials may not read answer alike\n",
		);
		const expected = Array.from(VALUES, (value, i) => (Math.floor(i / 100) === 1 || Math.floor(i / 100) === 3 || value === NAT ? null : value));
		expect(readRawInt64(out)).toEqual(expected);
	});

	it("a shard never written: ACCESS_DENIED naming the shard without the option, the fill value with it", async () => {
		const result = await runCliAsync(["s3://getonly/sharded.zarr", "-o", outFile()], { env: env() });
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/\/getonly\/sharded\.zarr\/c\/1 \(bytes=-\d+\) failed: HTTP 403 Forbidden .*; a bucket that does not let the caller list it \(no s3:ListBucket\) answers 403 for keys that do not exist, so shard c\/1 may be one that was never written \(the fill value\): --forbidden-as-missing reads such chunks as missing \[ACCESS_DENIED\]\n$/);
		await expectSameAsLocal("getonly", "sharded.zarr", ["--forbidden-as-missing"], /^dt64-export: warning: 1 chunk answered 403 AccessDenied was read as missing, the fill value \(--forbidden-as-missing\): c\/1; /);
	});

	it("the library: forbiddenAsMissing reads them as missing; without it the error names the option", async () => {
		const out = outFile();
		await exportToFile("s3://getonly/sparse.zarr", out, { env: env(), forbiddenAsMissing: true });
		expect(readRawInt64(out).filter((value) => value === null).length).toBeGreaterThanOrEqual(200);
		const error = await exportToFile("s3://getonly/sparse.zarr", outFile(), { env: env() }).then(
			() => undefined,
			(reason: unknown) => reason,
		);
		expect(error).toBeInstanceOf(Dt64ExportError);
		expect(error).toMatchObject({ code: "ACCESS_DENIED", option: "forbiddenAsMissing", path: "s3://getonly" });
		expect((error as Error).message).toContain("`forbiddenAsMissing`");
	});

	it("--json counts the chunks read as missing (forbiddenChunks), 0 when none; the library's summaries too", async () => {
		const sparse = await runCliAsync(["s3://getonly/sparse.zarr", "-o", outFile(), "-q", "--json", "--forbidden-as-missing"], { env: env() });
		expect(sparse.status).toBe(0);
		expect(JSON.parse(sparse.stdout)).toMatchObject({ rows: 400, forbiddenChunks: 2 });
		const whole = await runCliAsync(["s3://getonly/v2.zarr", "-o", outFile(), "-q", "--json", "--forbidden-as-missing"], { env: env() });
		expect(whole.stderr).toBe("");
		expect(JSON.parse(whole.stdout)).toMatchObject({ forbiddenChunks: 0 });
		const table = await exportToFile("s3://getonly/sparse.zarr", outFile(), { env: env(), forbiddenAsMissing: true });
		expect(table.store.forbiddenAsMissing?.count).toBe(2);
		const summary = await exportSelection("s3://getonly/sparse.zarr", fs.createWriteStream(outFile()), { env: env(), forbiddenAsMissing: true, start: "2020-09-13T12:30:00" });
		expect(summary.forbiddenChunks).toBe(2);
	});

	it("commit sums the parts' chunks read as missing (their manifests record them) into --json and _SUCCESS, and warns as the parts did", async () => {
		const folder = path.join(work, `dataset${counter++}`);
		// Part 0 reads chunks 0 and 1 (c/1 never written), part 1 chunks 2 and 3 (c/3).
		for (const part of ["0/2", "1/2"]) {
			const result = await runCliAsync(["s3://getonly/sparse.zarr", "--part", part, "-o", folder, "--to", "parquet", "-q", "--forbidden-as-missing"], { env: env() });
			expect(result.status, result.stderr).toBe(0);
			expect(result.stderr).toMatch(/^dt64-export: warning: 1 chunk answered 403 AccessDenied was read as missing/);
		}
		const manifests = [0, 1].map((k) => JSON.parse(fs.readFileSync(path.join(folder, "_parts", `part-${k}-of-2.json`), "utf8")));
		expect(manifests.map((manifest) => [manifest.forbiddenChunks, manifest.forbiddenKeys])).toEqual([[1, ["c/1"]], [1, ["c/3"]]]);
		const json = await runCliAsync(["commit", folder, "--json"]);
		expect(json.status, json.stderr).toBe(0);
		expect(JSON.parse(json.stdout)).toMatchObject({ committed: true, rows: 400, forbiddenChunks: 2 });
		expect(json.stderr).toBe("dt64-export: warning: 2 chunks answered 403 AccessDenied were read as missing, the fill value (--forbidden-as-missing): c/1, c/3; a chunk never written and one these credentials may not read answer alike\n");
		expect(JSON.parse(fs.readFileSync(path.join(folder, "_SUCCESS"), "utf8"))).toMatchObject({ forbiddenChunks: 2 });
		const quiet = await runCliAsync(["commit", folder, "-q"]);
		expect(quiet.stderr).toBe(json.stderr);
		// Parts run without the option record nothing, and commit says nothing of them.
		const plain = path.join(work, `dataset${counter++}`);
		for (const part of ["0/2", "1/2"]) expect((await runCliAsync([path.join(buckets, "getonly", "sparse.zarr"), "--part", part, "-o", plain, "--to", "parquet", "-q"])).status).toBe(0);
		const commit = await runCliAsync(["commit", plain, "--json"]);
		expect(commit.stderr).toBe("");
		expect(JSON.parse(commit.stdout).forbiddenChunks).toBeUndefined();
	});

	it("a 403 that names a KMS action is an object that exists: its message is S3's, and it stays an error with the option", async () => {
		const denial = "User: arn:aws:iam::123456789012:user/reader is not authorized to perform: kms:Decrypt on the resource associated with this ciphertext because no identity-based policy allows the kms:Decrypt action";
		fault = (request) => (request.key === "v2.zarr/1" ? { status: 403, code: "AccessDenied", message: denial } : undefined);
		try {
			for (const args of [[], ["--forbidden-as-missing"]]) {
				const out = outFile();
				const result = await runCliAsync(["s3://getonly/v2.zarr", "-o", out, ...args], { env: env() });
				expect(result.status).toBe(1);
				expect(result.stderr.split("\n")).toHaveLength(2);
				expect(result.stderr).toContain(`(AccessDenied: access denied; S3 says: ${JSON.stringify(denial)}): bucket "getonly" refused`);
				expect(result.stderr).not.toContain("never written");
				expect(result.stderr).toMatch(/\[ACCESS_DENIED\]\n$/);
				expect(fs.existsSync(out)).toBe(false);
			}
		} finally {
			fault = undefined;
		}
	});

	it("a 403 that is refused credentials (a wrong secret) stays that, whatever the option", async () => {
		const result = await runCliAsync(["s3://getonly/sparse.zarr", "-o", outFile(), "--forbidden-as-missing"], { env: env({ AWS_SECRET_ACCESS_KEY: "wrong" }) });
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: GET \S+ failed: HTTP 403 Forbidden \(SignatureDoesNotMatch: .*\) \[ACCESS_DENIED\]\n$/);
	});

	it("--forbidden-as-missing with a store that is not s3:// is a warning that it does nothing", async () => {
		const result = await runCliAsync([path.join(buckets, "getonly", "sparse.zarr"), "-o", outFile(), "-q", "--forbidden-as-missing"]);
		expect(result.status).toBe(0);
		expect(result.stderr).toMatch(/^dt64-export: warning: --forbidden-as-missing does nothing here: it applies to s3:\/\/ stores/);
	});
});
