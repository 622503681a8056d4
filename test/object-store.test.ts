/**
 * s3:// and gs:// stores end to end: the real CLI and library against test/support/s3-server.ts (which verifies
 * Signature V4 with its own code) and test/support/gcs-server.ts (STORAGE_EMULATOR_HOST), over stores written by
 * scripts/lib/zarr-writer.mjs. Every run is isolated from the machine's own AWS and Google configuration.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { PassThrough } from "node:stream";
import { exportTable, exportToFile } from "../src/export.js";
import { inspectStore } from "../src/inspect.js";
import { openTimeArray } from "../src/open-array.js";
import { collectHeaders } from "../src/cli/header-options.js";
import { parseAbfsUrl } from "../src/store/azure-store.js";
import { openGcsStore } from "../src/store/gcs-store.js";
import { openStore } from "../src/store/open-store.js";
import { readArrow, readRawInt64, tempDir } from "./support/cli.js";
import { rejection } from "./support/thrown.js";
import { startAzureServer, type AzureServer } from "./support/azure-server.js";
import { startGcsServer, type GcsServer } from "./support/gcs-server.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";
import { sampleCounts } from "./support/sample-counts.js";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

const KEY_ID = "AKIDTESTEXAMPLE0001";
const SECRET = "s3cr3t/Key+Value-Th4t-Must-Never-Show";
const TOKEN_KEY_ID = "ASIATESTEXAMPLE0002";
const TOKEN_SECRET = "t0ken-secret-Never-Printed";
const SESSION_TOKEN = "SessionToken//Never+Printed==";
const EXPIRED_KEY_ID = "ASIATESTEXPIRED0003";
const PROFILE_KEY_ID = "AKIDPROFILEEXAMPLE04";
const PROFILE_SECRET = "profile-secret-Never-Printed";
const GCS_TOKEN = "ya29.gcs-token-Never-Printed";
const SAS_SIGNATURE = "sasSig+Never/Printed=";
const SAS = `sv=2021-08-06&ss=b&srt=co&sp=rl&se=2099-01-01T00:00:00Z&sig=${encodeURIComponent(SAS_SIGNATURE)}`;
const EXPIRED_SAS = `sv=2021-08-06&ss=b&srt=co&sp=rl&se=2020-01-01T00:00:00Z&sig=${encodeURIComponent(SAS_SIGNATURE)}`;
const SECRETS = [SECRET, TOKEN_SECRET, SESSION_TOKEN, PROFILE_SECRET, GCS_TOKEN, SAS_SIGNATURE, encodeURIComponent(SAS_SIGNATURE)];

const buckets = tempDir("dt64-buckets-");
const work = tempDir("dt64-objstore-out-");
const home = tempDir("dt64-home-");
let s3: S3Server;
let gcs: GcsServer;
let azure: AzureServer;
let slowDown: ((request: { method: string; key: string; attempt: number }) => number | undefined) | undefined;

function values(n: number, seed = 11): BigInt64Array {
	return sampleCounts(n, seed, { every: 11, at: 3 });
}

const INPUT = values(1000);
const SHARDED = values(4000, 5);
const sharding = { name: "sharding_indexed", configuration: { chunk_shape: [100], codecs: [LE, { name: "zstd", configuration: { level: 1 } }], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } };

beforeAll(async () => {
	for (const bucket of ["private", "open"]) {
		await writeArray(path.join(buckets, bucket, "plain.zarr"), "", { shape: [1000], chunks: [128], dataType: seconds, values: INPUT, codecs: [LE, { name: "gzip", configuration: { level: 1 } }] });
	}
	await writeArray(path.join(buckets, "private", "sharded.zarr"), "", { shape: [4000], chunks: [1000], dataType: seconds, values: SHARDED, codecs: [sharding] });
	// Chunks 2 and 5 were never written (zarr's "empty chunk" rule): the bucket answers 404 for them.
	await writeArray(path.join(buckets, "private", "holes.zarr"), "", { shape: [1000], chunks: [128], dataType: seconds, values: INPUT, codecs: [LE, { name: "gzip", configuration: { level: 1 } }], omitChunks: ([c]: number[]) => c === 2 || c === 5 });
	// A group with more children than one listing page, and no consolidated metadata: found by listing only.
	const group = path.join(buckets, "private", "group.zarr");
	await writeGroup(group, "");
	await writeArray(group, "time", { shape: [300], chunks: [100], dataType: seconds, values: INPUT.subarray(0, 300), codecs: [LE] });
	for (const name of ["a", "b", "c", "d", "e"]) {
		await writeArray(group, `obs/${name}`, { shape: [300], chunks: [300], dataType: "int32", fillValue: 0, values: new Int32Array(300).fill(name.charCodeAt(0)), codecs: [LE] });
	}
	fs.cpSync(path.join(buckets, "private"), path.join(buckets, "gcs-private"), { recursive: true });
	fs.cpSync(path.join(buckets, "private"), path.join(buckets, "az-private"), { recursive: true });
	s3 = await startS3Server({
		root: buckets,
		publicBuckets: ["open"],
		pageSize: 2,
		users: {
			[KEY_ID]: { secret: SECRET },
			[TOKEN_KEY_ID]: { secret: TOKEN_SECRET, sessionToken: SESSION_TOKEN },
			[EXPIRED_KEY_ID]: { secret: TOKEN_SECRET, sessionToken: SESSION_TOKEN, expired: true },
			[PROFILE_KEY_ID]: { secret: PROFILE_SECRET },
		},
		fault: (request) => slowDown?.(request),
	});
	gcs = await startGcsServer({ root: buckets, privateBuckets: { "gcs-private": GCS_TOKEN }, pageSize: 2, metadataToken: GCS_TOKEN });
	azure = await startAzureServer({ root: buckets, account: "devaccount", privateContainers: { "az-private": SAS_SIGNATURE }, pageSize: 2 });
});
afterAll(async () => {
	await s3.close();
	await gcs.close();
	await azure.close();
});

/** The environment of a run: none of the machine's cloud settings, only these. */
function cloudEnv(extra: Record<string, string> = {}): Record<string, string> {
	const blank = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "GOOGLE_OAUTH_ACCESS_TOKEN", "STORAGE_EMULATOR_HOST", "GCE_METADATA_HOST", "DT64_EXPORT_HEADER", "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING"];
	return { ...Object.fromEntries(blank.map((name) => [name, ""])), HOME: home, AWS_ENDPOINT_URL: s3.url, ...extra };
}

const signedEnv = (extra: Record<string, string> = {}) => cloudEnv({ AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, ...extra });

let counter = 0;
const outFile = () => path.join(work, `out${counter++}.arrow`);

function expectNoSecret(...texts: (string | Buffer)[]): void {
	for (const text of texts) {
		const shown = Buffer.isBuffer(text) ? text.toString("latin1") : text;
		for (const secret of SECRETS) expect(shown).not.toContain(secret);
	}
}

/**
 * Exports `store` (a folder in `buckets/private`) locally and `url` remotely with the same `args`, and expects the
 * same bytes; gives the remote output and how many S3 requests preceded the remote run.
 */
async function expectSameAsLocal(store: string, url: string, args: string[], env: Record<string, string>): Promise<{ remote: string; before: number }> {
	const local = outFile();
	const remote = outFile();
	const localRun = await runCliAsync([path.join(buckets, "private", store), "-o", local, ...args]);
	expect(localRun.stderr).toBe("");
	expect(localRun.status).toBe(0);
	const before = s3.requests.length;
	const result = await runCliAsync([url, "-o", remote, ...args], { env });
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
	expect(fs.readFileSync(remote).equals(fs.readFileSync(local))).toBe(true);
	return { remote, before };
}

describe("s3:// with Signature V4", () => {
	it("a signed export equals the local export, byte for byte, every request signed", async () => {
		const { before } = await expectSameAsLocal("plain.zarr", "s3://private/plain.zarr", ["-q"], signedEnv());
		const requests = s3.requests.slice(before);
		expect(requests.length).toBeGreaterThan(8);
		expect(requests.every((request) => request.user === KEY_ID)).toBe(true);
	});

	it("a chunk the bucket does not hold (404) is the fill value, as in a folder; the library reads s3:// too", async () => {
		const { remote, before } = await expectSameAsLocal("holes.zarr", "s3://private/holes.zarr", ["-q"], signedEnv());
		const expected = Array.from(INPUT, (value, i) => (Math.floor(i / 128) === 2 || Math.floor(i / 128) === 5 ? NAT : value));
		expect(readRawInt64(remote).map((value) => value ?? NAT)).toEqual(expected);
		const missing = s3.requests.slice(before).filter((request) => request.status === 404).map((request) => request.key);
		// Besides the v2 documents probed with zarr.json (all at once), only the two chunks.
		expect(missing.sort()).toEqual(["holes.zarr/.zarray", "holes.zarr/.zattrs", "holes.zarr/.zgroup", "holes.zarr/.zmetadata", "holes.zarr/c/2", "holes.zarr/c/5"]);

		// The library's exportToFile takes the same URL and environment and writes the same bytes.
		const library = outFile();
		await exportToFile("s3://private/holes.zarr", library, { env: signedEnv() });
		expect(fs.readFileSync(library).equals(fs.readFileSync(remote))).toBe(true);
	});

	it("reads a sharded array by signed byte ranges", async () => {
		const before = s3.requests.length;
		const out = outFile();
		const result = await runCliAsync(["s3://private/sharded.zarr", "-o", out, "-q"], { env: signedEnv() });
		expect(result.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(SHARDED));
		const shardReads = s3.requests.slice(before).filter((request) => request.key.startsWith("sharded.zarr/c/"));
		expect(shardReads.length).toBeGreaterThan(4);
		expect(shardReads.every((request) => request.range !== undefined && request.status === 206 && request.user === KEY_ID)).toBe(true);
	});

	it("a session token from the environment is sent and signed", async () => {
		const out = outFile();
		const result = await runCliAsync(["s3://private/plain.zarr", "-o", out, "-q"], { env: cloudEnv({ AWS_ACCESS_KEY_ID: TOKEN_KEY_ID, AWS_SECRET_ACCESS_KEY: TOKEN_SECRET, AWS_SESSION_TOKEN: SESSION_TOKEN }) });
		expect(result.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT));
	});

	it("a wrong secret: one line naming the bucket and the credential source, exit 1, no output", async () => {
		const out = outFile();
		const result = await runCliAsync(["s3://private/plain.zarr", "-o", out], { env: signedEnv({ AWS_SECRET_ACCESS_KEY: `${SECRET}x` }) });
		expect(result.status).toBe(1);
		expect(result.stderr.split("\n")).toHaveLength(2);
		expect(result.stderr).toMatch(/^dt64-export: GET \S+ failed: HTTP 403 Forbidden \(SignatureDoesNotMatch: .*\): bucket "private" refused a request signed with credentials from the environment \(AWS_ACCESS_KEY_ID\) \[ACCESS_DENIED\]\n$/);
		expect(fs.existsSync(out)).toBe(false);
		expectNoSecret(result.stderr, result.stdout);
	});

	it("credentials passed in the env option (per call): a refusal says they came from the env option, not from the environment", async () => {
		const refused = await rejection(exportTable("s3://private/plain.zarr", new PassThrough(), { env: signedEnv({ AWS_SECRET_ACCESS_KEY: `${SECRET}x` }) }));
		expect(refused).toMatchObject({ code: "ACCESS_DENIED", path: "s3://private", message: expect.stringMatching(/refused a request signed with credentials from the env option \(AWS_ACCESS_KEY_ID\)$/) });
		expectNoSecret(refused.message);
		const array = await openTimeArray("s3://private/plain.zarr", { env: signedEnv() });
		expect(array.metadata.shape).toEqual([1000]);
	});

	it("the env option without keys never falls through to this process's own AWS files (its identity), unless it names them", async () => {
		// The service's own ~/.aws/credentials, valid for the bucket: what a tenant's env without keys fell back to.
		const serviceHome = tempDir("dt64-service-home-");
		fs.mkdirSync(path.join(serviceHome, ".aws"));
		fs.writeFileSync(path.join(serviceHome, ".aws", "credentials"), `[default]\naws_access_key_id = ${PROFILE_KEY_ID}\naws_secret_access_key = ${PROFILE_SECRET}\n`);
		const processHome = process.env.HOME;
		process.env.HOME = serviceHome;
		try {
			const tenant = { AWS_ENDPOINT_URL: s3.url, AWS_REGION: "us-east-1" };
			const refused = await rejection(exportTable("s3://private/plain.zarr", new PassThrough(), { env: tenant }));
			expect(refused).toMatchObject({ code: "CREDENTIALS_MISSING", option: "signRequests" });
			expect(refused.message).toMatch(/^no AWS credentials found in the env option, which names no AWS files \(HOME, AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE or AWS_PROFILE\), so this process's own are not read/);
			// Named, they are read: a HOME, or a profile (of this process's files).
			for (const named of [{ HOME: serviceHome }, { AWS_PROFILE: "default" }]) {
				const array = await openTimeArray("s3://private/plain.zarr", { env: { ...tenant, ...named } });
				expect(array.metadata.shape).toEqual([1000]);
			}
		} finally {
			process.env.HOME = processHome;
		}
	});

	it("the env option without a token never asks the machine's metadata server (its identity), unless it names one", async () => {
		const asked: string[] = [];
		const recording = (async (input: string | URL | Request) => {
			asked.push(String(input));
			return new Response("{}", { status: 404 });
		}) as typeof fetch;
		await openGcsStore({ scheme: "gs", bucket: "data", prefix: "" }, { signRequests: true, env: {}, envOrigin: "the env option", fetch: recording });
		expect(asked).toEqual([]);
		await openGcsStore({ scheme: "gs", bucket: "data", prefix: "" }, { signRequests: true, env: { GCE_METADATA_HOST: "127.0.0.1:9" }, envOrigin: "the env option", fetch: recording });
		expect(asked).toEqual(["http://127.0.0.1:9/computeMetadata/v1/instance/service-accounts/default/token"]);
	});

	it("temporary credentials that expire during the export and are renewed in the AWS files: read again, and the request sent once more", async () => {
		const profileHome = tempDir("dt64-renewed-home-");
		fs.mkdirSync(path.join(profileHome, ".aws"));
		const credentials = path.join(profileHome, ".aws", "credentials");
		fs.writeFileSync(credentials, `[default]\naws_access_key_id = ${EXPIRED_KEY_ID}\naws_secret_access_key = ${TOKEN_SECRET}\naws_session_token = ${SESSION_TOKEN}\n`);
		// Whatever refreshes them rewrites the file once the export has read it: before its first request is answered.
		let renewedAt: number | undefined;
		slowDown = () => {
			if (renewedAt === undefined) {
				renewedAt = s3.requests.length;
				fs.writeFileSync(credentials, `[default]\naws_access_key_id = ${PROFILE_KEY_ID}\naws_secret_access_key = ${PROFILE_SECRET}\n`);
			}
			return undefined;
		};
		try {
			const out = outFile();
			const result = await runCliAsync(["s3://private/plain.zarr", "-o", out, "-q"], { env: cloudEnv({ HOME: profileHome }) });
			expect(result.stderr).toBe("");
			expect(result.status).toBe(0);
			expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT));
			const requests = s3.requests.slice(renewedAt);
			// The expired credentials answered 400 ExpiredToken (a refused signature names no user): the store's layout
			// probes, sent together; each was sent once more, and every later request, with the renewed ones.
			const expired = requests.filter((request) => request.status === 400);
			expect(requests[0]).toMatchObject({ status: 400, user: undefined });
			expect(expired.every((request) => request.user === undefined)).toBe(true);
			expect(expired.length).toBeLessThanOrEqual(5);
			const renewed = requests.slice(expired.length);
			expect(renewed.every((request) => request.user === PROFILE_KEY_ID)).toBe(true);
			for (const request of expired) expect(renewed.filter((again) => again.key === request.key)).toHaveLength(1);
		} finally {
			slowDown = undefined;
		}
	});

	it("s3:// keys are verbatim: ? and # are key characters; an empty segment (//) is refused, never read as another prefix", async () => {
		fs.cpSync(path.join(buckets, "private", "plain.zarr"), path.join(buckets, "private", "runs", "q?r#s", "plain.zarr"), { recursive: true });
		const out = outFile();
		const result = await runCliAsync(["s3://private/runs/q?r#s/plain.zarr", "-o", out, "-q"], { env: signedEnv() });
		expect(result.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT));
		for (const location of ["s3://private//plain.zarr", "s3://private/runs//q?r#s/plain.zarr", "s3://private//"]) {
			const refused = await runCliAsync([location, "-o", outFile()], { env: signedEnv() });
			expect(refused.status).toBe(2);
			expect(refused.stderr).toBe(`dt64-export: invalid store URL ${JSON.stringify(location)}: an empty path segment (//): keys with empty segments cannot be named, and reading them as one / would read another prefix [USAGE]\n`);
		}
		// gsutil reads ? as a wildcard, and an Azure URL's query is its SAS token: refused there, as before.
		await expect(openStore("gs://gcs-private/runs/q?r/plain.zarr", { env: cloudEnv() })).rejects.toMatchObject({ code: "USAGE", message: expect.stringContaining("without ? or #") });
	});

	it("s3:// keys with ? and #: the dataset's options and the column keep them, so two stores differing there are two stores", async () => {
		for (const name of ["k?x#y.zarr", "k"]) fs.cpSync(path.join(buckets, "private", "plain.zarr"), path.join(buckets, "private", "names", name), { recursive: true });
		const folder = path.join(work, `dataset${counter++}`);
		const part0 = await runCliAsync(["s3://private/names/k?x#y.zarr", "--part", "0/2", "-o", folder, "--to", "parquet", "-q"], { env: signedEnv() });
		expect(part0.stderr).toBe("");
		const manifest = JSON.parse(fs.readFileSync(path.join(folder, "_parts", "part-0-of-2.json"), "utf8"));
		expect(manifest.options.store).toBe("k?x#y.zarr");
		const out = outFile();
		expect((await runCliAsync(["s3://private/names/k?x#y.zarr", "-o", out, "-q"], { env: signedEnv() })).status).toBe(0);
		expect(readArrow(out).schema.fields.map((field) => field.name)).toEqual(["k?x#y"]);
		// Part 1 of the other store: another export, refused (it was taken for the same store, and committed).
		const part1 = await runCliAsync(["s3://private/names/k", "--part", "1/2", "-o", folder, "--to", "parquet", "-q"], { env: signedEnv() });
		expect(part1.status).toBe(1);
		expect(part1.stderr).toContain(`holds part 0/2 of another export than this run of part 1/2, with other options: store "k?x#y.zarr" (this run: "k")`);
	});

	it("an expired session token: one line, exit 1", async () => {
		const result = await runCliAsync(["s3://private/plain.zarr", "-o", outFile()], { env: cloudEnv({ AWS_ACCESS_KEY_ID: EXPIRED_KEY_ID, AWS_SECRET_ACCESS_KEY: TOKEN_SECRET, AWS_SESSION_TOKEN: SESSION_TOKEN }) });
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: GET \S+ failed: HTTP 400 Bad Request \(ExpiredToken: the session token has expired\): bucket "private" refused a request signed with credentials from the environment \(AWS_ACCESS_KEY_ID with AWS_SESSION_TOKEN\) \[ACCESS_DENIED\]\n$/);
		expectNoSecret(result.stderr, result.stdout);
	});

	it("--no-sign-request: refused by a private bucket in one line, exit 1; a public bucket is read unsigned", async () => {
		const refused = await runCliAsync(["s3://private/plain.zarr", "-o", outFile(), "--no-sign-request"], { env: signedEnv() });
		expect(refused.status).toBe(1);
		// S3 refuses every key of a private bucket to an unsigned request, the probes for metadata included.
		expect(refused.stderr).toMatch(
			/^dt64-export: s3:\/\/private\/plain\.zarr: no Zarr metadata could be read \(zarr\.json, \.zarray, \.zgroup, \.zmetadata answered 403 AccessDenied\); .* so the store may be missing or the credentials refused: GET \S+ failed: HTTP 403 Forbidden \(AccessDenied: access denied\): bucket "private" refused an unsigned request \(--no-sign-request\) \[ACCESS_DENIED\]\n$/,
		);
		const before = s3.requests.length;
		const out = outFile();
		const result = await runCliAsync(["s3://open/plain.zarr", "-o", out, "-q", "--no-sign-request"], { env: cloudEnv() });
		expect(result.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT));
		// Every request unsigned, and answered (the v2 documents probed with zarr.json are absent from this v3 store).
		expect(s3.requests.slice(before).every((request) => request.user === undefined && (request.status === 200 || (request.status === 404 && /\/\.z(array|attrs|group|metadata)$/.test(request.key))))).toBe(true);
		// The library takes the same choice as an option; its refusal has a code and names the bucket.
		const array = await openTimeArray("s3://open/plain.zarr", { signRequests: false, env: cloudEnv() });
		expect(array.metadata.shape).toEqual([1000]);
		await expect(openTimeArray("s3://private/plain.zarr", { signRequests: false, env: cloudEnv() })).rejects.toMatchObject({ code: "ACCESS_DENIED", path: "s3://private", option: "signRequests" });
		await expect(openTimeArray("s3://private/plain.zarr", { env: signedEnv({ AWS_SECRET_ACCESS_KEY: "wrong" }) })).rejects.toMatchObject({ code: "ACCESS_DENIED", path: "s3://private" });
	});

	it("no credentials anywhere is one line that says what to set", async () => {
		await expect(openStore("s3://private/plain.zarr", { env: cloudEnv() })).rejects.toMatchObject({ code: "CREDENTIALS_MISSING", message: expect.stringMatching(/^no AWS credentials found in the env option or the AWS files: set AWS_ACCESS_KEY_ID/) });
		const result = await runCliAsync(["s3://private/plain.zarr", "-o", outFile()], { env: cloudEnv() });
		expect(result.status).toBe(1);
		// Said once: the library's words, then the flag (it said the same thing twice in two ways).
		expect(result.stderr).toMatch(/; a public bucket needs none when requests are sent unsigned \(--no-sign-request\) \[CREDENTIALS_MISSING\]\n$/);
		expect(result.stderr.match(/public bucket/g)).toHaveLength(1);
	});

	it("retries 503 SlowDown and exports the exact values", async () => {
		// Each chunk's first request in this test (earlier tests read the same keys) is answered 503 SlowDown.
		const seen = new Set<string>();
		slowDown = (request) => (request.key.includes("/c/") && !seen.has(request.key) && seen.add(request.key) ? 503 : undefined);
		const before = s3.requests.length;
		try {
			const out = outFile();
			const result = await runCliAsync(["s3://private/plain.zarr", "-o", out, "-q"], { env: signedEnv() });
			expect(result.stderr).toBe("");
			expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT));
			const chunk3 = s3.requests.slice(before).filter((request) => request.key === "plain.zarr/c/3");
			expect(chunk3.map((request) => request.status)).toEqual([503, 200]);
		} finally {
			slowDown = undefined;
		}
	});

	it("AWS_PROFILE from a temporary ~/.aws folder, and from AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE", async () => {
		const profileHome = tempDir("dt64-aws-home-");
		fs.mkdirSync(path.join(profileHome, ".aws"));
		fs.writeFileSync(path.join(profileHome, ".aws", "credentials"), `[default]\naws_access_key_id = WRONGKEY\naws_secret_access_key = wrong\n\n[team]\naws_access_key_id = ${PROFILE_KEY_ID}\naws_secret_access_key = ${PROFILE_SECRET}\n`);
		fs.writeFileSync(path.join(profileHome, ".aws", "config"), `[profile team]\nregion = us-east-1\ns3 =\n  addressing_style = path\n`);
		const before = s3.requests.length;
		const out = outFile();
		const result = await runCliAsync(["s3://private/plain.zarr", "-o", out, "-q"], { env: cloudEnv({ HOME: profileHome, AWS_PROFILE: "team" }) });
		expect(result.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT));
		expect(s3.requests.slice(before).every((request) => request.user === PROFILE_KEY_ID)).toBe(true);

		const elsewhere = tempDir("dt64-aws-files-");
		fs.writeFileSync(path.join(elsewhere, "creds"), `[team]\naws_access_key_id = ${PROFILE_KEY_ID}\naws_secret_access_key = ${PROFILE_SECRET}x\n`);
		fs.writeFileSync(path.join(elsewhere, "conf"), "[profile team]\nregion = us-east-1\n");
		const wrong = await runCliAsync(["s3://private/plain.zarr", "-o", outFile()], {
			env: cloudEnv({ AWS_PROFILE: "team", AWS_SHARED_CREDENTIALS_FILE: path.join(elsewhere, "creds"), AWS_CONFIG_FILE: path.join(elsewhere, "conf") }),
		});
		expect(wrong.status).toBe(1);
		expect(wrong.stderr).toContain(`refused a request signed with credentials from profile "team" in ${path.join(elsewhere, "creds")}`);
		expectNoSecret(wrong.stderr);

		const missing = await runCliAsync(["s3://private/plain.zarr", "-o", outFile()], { env: cloudEnv({ HOME: profileHome, AWS_PROFILE: "nobody" }) });
		expect(missing.status).toBe(1);
		expect(missing.stderr).toMatch(/^dt64-export: AWS profile "nobody" not found in .*credentials or .*config \[CREDENTIALS_MISSING\]\n$/);
	});

	it("a profile's services section gives the endpoint (AWS SDK service-specific endpoints), below AWS_ENDPOINT_URL", async () => {
		const profileHome = tempDir("dt64-aws-services-");
		fs.mkdirSync(path.join(profileHome, ".aws"));
		const config = [
			"[profile svc]",
			"region = us-east-1",
			`aws_access_key_id = ${PROFILE_KEY_ID}`,
			`aws_secret_access_key = ${PROFILE_SECRET}`,
			"endpoint_url = http://127.0.0.1:1",
			"services = local-s3",
			"",
			"[services local-s3]",
			"dynamodb =",
			"  endpoint_url = http://127.0.0.1:2",
			"s3 =",
			`  endpoint_url = ${s3.url}`,
			"",
		].join("\n");
		fs.writeFileSync(path.join(profileHome, ".aws", "config"), config);
		const before = s3.requests.length;
		const out = outFile();
		const result = await runCliAsync(["s3://private/plain.zarr", "-o", out, "-q", "--retries", "0"], { env: cloudEnv({ HOME: profileHome, AWS_PROFILE: "svc", AWS_ENDPOINT_URL: "" }) });
		expect(result.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT));
		expect(s3.requests.slice(before).every((request) => request.user === PROFILE_KEY_ID)).toBe(true);

		// A services section the file does not have: refused, not AWS itself.
		fs.writeFileSync(path.join(profileHome, ".aws", "config"), config.replace("services = local-s3", "services = elsewhere"));
		const unknown = await runCliAsync(["s3://private/plain.zarr", "-o", outFile()], { env: cloudEnv({ HOME: profileHome, AWS_PROFILE: "svc", AWS_ENDPOINT_URL: "" }) });
		expect(unknown.status).toBe(2);
		expect(unknown.stderr).toMatch(/^dt64-export: profile "svc" in \S+config names services "elsewhere", but the file has no \[services elsewhere\] section \[USAGE\]\n$/);
		expectNoSecret(unknown.stderr);
	});

	it("a bucket that does not exist (404 NoSuchBucket) is STORE_NOT_FOUND naming the bucket, not a missing array", async () => {
		const result = await runCliAsync(["s3://no-such-bucket/x.zarr", "-o", outFile()], { env: signedEnv() });
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(`dt64-export: s3://no-such-bucket: the bucket does not exist at ${s3.url} (NoSuchBucket) [STORE_NOT_FOUND]\n`);
		await expect(inspectStore("s3://no-such-bucket/x.zarr", { env: signedEnv() })).rejects.toMatchObject({ code: "STORE_NOT_FOUND", path: "s3://no-such-bucket" });
		const inspected = await runCliAsync(["inspect", "s3://no-such-bucket", "--json"], { env: signedEnv() });
		expect(inspected.stderr).toMatch(/the bucket does not exist .*\[STORE_NOT_FOUND\]\n$/);
	});

	it("a table (--columns, --index) from a bucket equals the same table from the folder", async () => {
		await expectSameAsLocal("group.zarr", "s3://private/group.zarr", ["--columns", "time,obs/a", "--index", "-q"], signedEnv());
	});

	it("a group without consolidated metadata is found by listing, page after page", async () => {
		const before = s3.requests.length;
		const report = await inspectStore("s3://private/group.zarr", { env: signedEnv() });
		expect(report).toMatchObject({ storeKind: "s3", discovery: "listing", store: "s3://private/group.zarr" });
		expect(report.nodes.map((node) => node.path)).toEqual(["", "obs", "obs/a", "obs/b", "obs/c", "obs/d", "obs/e", "time"]);
		const listings = s3.requests.slice(before).filter((request) => request.query.get("list-type") === "2");
		expect(listings.filter((request) => request.query.get("prefix") === "group.zarr/obs/").length).toBe(3);
		expect(listings.some((request) => request.query.has("continuation-token"))).toBe(true);
		// The arrays' own prefixes (their chunks) are never listed.
		expect(listings.some((request) => request.query.get("prefix") === "group.zarr/time/")).toBe(false);

		const out = outFile();
		const result = await runCliAsync(["s3://private/group.zarr", "-o", out, "-q"], { env: signedEnv() });
		expect(result.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT.subarray(0, 300)));
		const text = await runCliAsync(["inspect", "s3://private/group.zarr"], { env: signedEnv() });
		expect(text.stdout.toString()).toMatch(/^s3:\/\/private\/group\.zarr: S3 store, 8 nodes found by listing the bucket\n/);
	});
});

describe("gs:// against STORAGE_EMULATOR_HOST", () => {
	it("reads a public bucket anonymously and lists a group page after page", async () => {
		const env = cloudEnv({ STORAGE_EMULATOR_HOST: gcs.host });
		const out = outFile();
		const before = gcs.requests.length;
		const result = await runCliAsync(["gs://open/plain.zarr", "-o", out, "-q"], { env });
		expect(result.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(INPUT));
		expect(gcs.requests.slice(before).every((request) => request.authorization === undefined)).toBe(true);
		const report = await inspectStore("gs://gcs-private/group.zarr", { env: { ...env, GOOGLE_OAUTH_ACCESS_TOKEN: GCS_TOKEN } });
		expect(report).toMatchObject({ storeKind: "gs", discovery: "listing" });
		expect(report.nodes.map((node) => node.path)).toEqual(["", "obs", "obs/a", "obs/b", "obs/c", "obs/d", "obs/e", "time"]);
		expect(gcs.requests.some((request) => request.query.has("pageToken"))).toBe(true);
	});

	it("a bucket that does not exist (XML API 404 NoSuchBucket) is STORE_NOT_FOUND", async () => {
		const result = await runCliAsync(["gs://no-such-bucket/x.zarr", "-o", outFile()], { env: cloudEnv({ STORAGE_EMULATOR_HOST: gcs.host }) });
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: gs:\/\/no-such-bucket: the bucket does not exist at http:\/\/\S+ \(NoSuchBucket\) \[STORE_NOT_FOUND\]\n$/);
	});

	it("a private bucket: the bearer token from GOOGLE_OAUTH_ACCESS_TOKEN or the metadata server; without one, one line naming the bucket", async () => {
		const out = outFile();
		const withToken = await runCliAsync(["gs://gcs-private/sharded.zarr", "-o", out, "-q"], { env: cloudEnv({ STORAGE_EMULATOR_HOST: gcs.host, GOOGLE_OAUTH_ACCESS_TOKEN: GCS_TOKEN }) });
		expect(withToken.stderr).toBe("");
		expect(readRawInt64(out).map((value) => value ?? NAT)).toEqual(Array.from(SHARDED));
		const fromMetadata = await openTimeArray(`gs://gcs-private/plain.zarr`, { env: cloudEnv({ STORAGE_EMULATOR_HOST: gcs.host, GCE_METADATA_HOST: gcs.host }) });
		expect(fromMetadata.metadata.shape).toEqual([1000]);
		const without = await runCliAsync(["gs://gcs-private/plain.zarr", "-o", outFile()], { env: cloudEnv({ STORAGE_EMULATOR_HOST: gcs.host }) });
		expect(without.status).toBe(1);
		expect(without.stderr).toMatch(/^dt64-export: GET \S+ failed: HTTP 401 Unauthorized \(forbidden\): bucket "gcs-private" refused a request with no credentials \(anonymous requests\) \[ACCESS_DENIED\]\n$/);
	});
});

describe("az:// and abfs:// with a SAS token", () => {
	const connection = () => `BlobEndpoint=${azure.endpoint};SharedAccessSignature=${SAS}`;

	it("reads a private container with the connection string's SAS token, by ranges, and lists a group page after page", async () => {
		await expectSameAsLocal("sharded.zarr", "az://az-private/sharded.zarr", ["-q"], cloudEnv({ AZURE_STORAGE_CONNECTION_STRING: connection() }));
		expect(azure.requests.filter((request) => request.path.includes("/sharded.zarr/c/")).every((request) => request.status === 206)).toBe(true);
		const report = await inspectStore("abfs://az-private@devaccount.dfs.core.windows.net/group.zarr", { env: cloudEnv({ AZURE_STORAGE_CONNECTION_STRING: connection() }) });
		expect(report).toMatchObject({ storeKind: "az", discovery: "listing", store: "az://az-private/group.zarr" });
		expect(report.nodes.map((node) => node.path)).toEqual(["", "obs", "obs/a", "obs/b", "obs/c", "obs/d", "obs/e", "time"]);
		expect(azure.requests.some((request) => request.query.get("comp") === "list" && request.query.get("marker") === "2")).toBe(true);
	});

	it("an expired SAS token from AZURE_STORAGE_SAS_TOKEN: one line naming the container and the token's source, exit 1", async () => {
		const result = await runCliAsync(["az://az-private/plain.zarr", "-o", outFile()], {
			env: cloudEnv({ AZURE_STORAGE_CONNECTION_STRING: `BlobEndpoint=${azure.endpoint}`, AZURE_STORAGE_SAS_TOKEN: `?${EXPIRED_SAS}` }),
		});
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: GET \S+\?… failed: HTTP 403 Forbidden \(AuthenticationFailed\): container "az-private" refused a request with a SAS token from AZURE_STORAGE_SAS_TOKEN \[ACCESS_DENIED\]\n$/);
		expectNoSecret(result.stderr, result.stdout);
	});

	it("a container that does not exist (404 ContainerNotFound) is STORE_NOT_FOUND", async () => {
		const result = await runCliAsync(["az://no-such-container/x.zarr", "-o", outFile()], { env: cloudEnv({ AZURE_STORAGE_CONNECTION_STRING: connection() }) });
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: az:\/\/no-such-container: the container does not exist at http:\/\/\S+ \(ContainerNotFound\) \[STORE_NOT_FOUND\]\n$/);
	});

	it("abfs URLs name the container and the account", () => {
		expect(parseAbfsUrl("abfss://data@myaccount.dfs.core.windows.net/era5/t.zarr/")).toEqual({ url: { scheme: "az", bucket: "data", prefix: "era5/t.zarr" }, account: "myaccount" });
		expect(() => parseAbfsUrl("abfs://data/era5")).toThrow(/expected abfs:\/\/<container>@<account>/);
	});
});

describe("secrets stay out of argv and out of every output", () => {
	it("--header @file: parsed per line, later headers replace earlier ones, errors name the line and never the value", () => {
		const file = path.join(work, "headers.txt");
		fs.writeFileSync(file, `# tokens\nAuthorization: Bearer ${GCS_TOKEN}\n\nX-Api-Key: ${SECRET}\n`);
		expect(collectHeaders(["X-Api-Key: old", "X-Other: 1", `@${file}`])).toEqual({ "X-Api-Key": SECRET, "X-Other": "1", Authorization: `Bearer ${GCS_TOKEN}` });
		fs.writeFileSync(file, `Authorization: Bearer ok\n${SECRET}\n`);
		expect(() => collectHeaders([`@${file}`])).toThrow(`--header @${file} line 2: expected "Name: value" (no ":" found)`);
		fs.writeFileSync(file, `Bad Name: ${SECRET}\n`);
		expect(() => collectHeaders([`@${file}`])).toThrow(/line 1: the name before ":" is not a valid HTTP header name$/);
	});

	it("no secret in stderr, stdout or the written files, whether the export succeeds or fails", async () => {
		const headerFile = path.join(work, "secret-headers.txt");
		fs.writeFileSync(headerFile, `X-Amz-Meta-Test: ${SESSION_TOKEN}\n`);
		const out = outFile();
		const runs = [
			await runCliAsync(["s3://private/plain.zarr", "-o", out, "--progress", "--header", `@${headerFile}`], { env: cloudEnv({ AWS_ACCESS_KEY_ID: TOKEN_KEY_ID, AWS_SECRET_ACCESS_KEY: TOKEN_SECRET, AWS_SESSION_TOKEN: SESSION_TOKEN }) }),
			await runCliAsync(["inspect", "s3://private/group.zarr", "--json"], { env: signedEnv({ DT64_EXPORT_HEADER: `X-Amz-Meta-Test: ${SESSION_TOKEN}` }) }),
			await runCliAsync(["inspect", "s3://private/plain.zarr"], { env: signedEnv({ AWS_SECRET_ACCESS_KEY: PROFILE_SECRET }) }),
			await runCliAsync(["gs://gcs-private/plain.zarr", "-o", outFile(), "--progress"], { env: cloudEnv({ STORAGE_EMULATOR_HOST: gcs.host, GOOGLE_OAUTH_ACCESS_TOKEN: `${GCS_TOKEN}x` }) }),
			await runCliAsync(["inspect", "az://az-private/plain.zarr", "--json"], { env: cloudEnv({ AZURE_STORAGE_CONNECTION_STRING: `BlobEndpoint=${azure.endpoint};SharedAccessSignature=${SAS}` }) }),
			await runCliAsync(["az://az-private/plain.zarr", "-o", outFile(), "--progress"], { env: cloudEnv({ AZURE_STORAGE_CONNECTION_STRING: `BlobEndpoint=${azure.endpoint};SharedAccessSignature=${SAS.replace("sig=", "sig=x")}` }) }),
		];
		expect(runs.map((run) => run.status)).toEqual([0, 0, 1, 1, 0, 1]);
		for (const run of runs) expectNoSecret(run.stderr, run.stdout);
		expectNoSecret(fs.readFileSync(out));
	});
});
