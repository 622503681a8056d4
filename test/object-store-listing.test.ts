/**
 * Listings of an object store's prefixes that do not list: refused (a caller without s3:ListBucket, which may read the
 * objects: test/support/s3-server.ts's `unlistableBuckets`) and answered 200 with something that is not a listing
 * (a captive portal's page, another service's document). Each is said as what it is, naming the listing, instead of
 * refused credentials or a group without members.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { inspectStore } from "../src/inspect.js";
import { openAzureStore } from "../src/store/azure-store.js";
import { openGcsStore } from "../src/store/gcs-store.js";
import { tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const KEY_ID = "AKIDLISTINGEXAMPLE01";
const SECRET = "listing-secret";
const CAPTIVE_PORTAL = "<html><body><h1>Captive portal: please log in</h1><p>Your session has expired.</p></body></html>";

const buckets = tempDir("dt64-listing-");
const home = tempDir("dt64-listing-home-");
let s3: S3Server;

beforeAll(async () => {
	for (const bucket of ["nolist", "portal"]) {
		// A group without consolidated metadata: its members are found by listing only.
		const group = path.join(buckets, bucket, "group.zarr");
		await writeGroup(group, "");
		await writeArray(group, "time", { shape: [10], chunks: [5], dataType: seconds, values: BigInt64Array.from({ length: 10 }, (_, i) => 1_600_000_000n + BigInt(i)), codecs: [LE] });
	}
	s3 = await startS3Server({
		root: buckets,
		users: { [KEY_ID]: { secret: SECRET } },
		unlistableBuckets: ["nolist"],
		// Only the listing is answered by the portal; every object is served.
		fault: (request) => (request.bucket === "portal" && request.query.get("list-type") === "2" ? { status: 200, body: CAPTIVE_PORTAL, headers: { "Content-Type": "text/html" } } : undefined),
	});
});
afterAll(async () => {
	await s3.close();
});

function env(): Record<string, string> {
	const blank = ["AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"];
	return { ...Object.fromEntries(blank.map((name) => [name, ""])), HOME: home, AWS_ENDPOINT_URL: s3.url, AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET };
}

const out = (name: string) => path.join(home, name);

describe("a bucket the caller may read but not list", () => {
	const refused =
		/^dt64-export: listing s3:\/\/nolist\/group\.zarr\/ was refused: GET \S+ failed: HTTP 403 Forbidden \(AccessDenied: access denied\): bucket "nolist" refused a request signed with credentials from the environment \(AWS_ACCESS_KEY_ID\); a caller may be allowed to read a bucket's objects but not to list them \(S3's s3:ListBucket, GCS's storage\.objects\.list, an Azure SAS without list permission\): without a listing, name the array \(--array\) or the variables \(--columns\) to export, or give the store consolidated metadata \[ACCESS_DENIED\]\n$/;

	it("an export that needs the group's members: the listing is named as refused, with what to do instead", async () => {
		for (const args of [[], ["--columns", "all", "--index"]]) {
			const result = await runCliAsync(["s3://nolist/group.zarr", "-o", out("n.arrow"), ...args], { env: env() });
			expect(result.status).toBe(1);
			expect(result.stderr).toMatch(refused);
			expect(fs.existsSync(out("n.arrow"))).toBe(false);
		}
		const named = await runCliAsync(["s3://nolist/group.zarr", "--array", "time", "-o", out("named.arrow"), "-q"], { env: env() });
		expect(named.stderr).toBe("");
		expect(named.status).toBe(0);
	});

	it("inspect shows the root group it read, and a note that its members could not be listed", async () => {
		const result = await runCliAsync(["inspect", "s3://nolist/group.zarr"], { env: env() });
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const text = result.stdout.toString();
		expect(text).toMatch(/^s3:\/\/nolist\/group\.zarr: S3 store, 1 node found by reading the root\n/);
		expect(text).toMatch(/^\/ +group$/m);
		expect(text).toContain("note: listing s3://nolist/group.zarr/ was refused, so only the root group is shown: a caller may be allowed to read a bucket's objects but not to list them");
		const report = await inspectStore("s3://nolist/group.zarr", { env: env() });
		expect(report.nodes.map((node) => node.path)).toEqual([""]);
	});
});

describe("a listing answered 200 with something that is not a listing", () => {
	it("S3: a captive portal's page is READ_FAILED naming the listing and how the answer starts, not an empty group", async () => {
		const expected =
			'dt64-export: listing s3://portal/group.zarr/: the service answered 200 with an answer starting "<html><body><h1>Captive portal: please log in</h1><p>Your se…", not an S3 listing (ListBucketResult): a proxy\'s or captive portal\'s page, or an endpoint of another service? [READ_FAILED]\n';
		for (const args of [["inspect", "s3://portal/group.zarr"], ["s3://portal/group.zarr", "-o", out("p.arrow")], ["s3://portal/group.zarr", "--columns", "all", "--index", "-o", out("p.arrow")]]) {
			const result = await runCliAsync(args, { env: env() });
			expect(result.stderr).toBe(expected);
			expect(result.status).toBe(1);
		}
	});

	const answering = (body: string, type: string) => (async () => new Response(body, { status: 200, headers: { "Content-Type": type } })) as typeof fetch;

	it("GCS: a page that is not the JSON API's listing", async () => {
		for (const body of [CAPTIVE_PORTAL, '{"error": "not here"}', "[]"]) {
			const bucket = await openGcsStore({ scheme: "gs", bucket: "data", prefix: "group.zarr" }, { signRequests: false, env: { STORAGE_EMULATOR_HOST: "http://127.0.0.1:9" }, fetch: answering(body, "text/html") });
			await expect(bucket.list("")).rejects.toMatchObject({ code: "READ_FAILED", message: expect.stringMatching(/^listing gs:\/\/data\/group\.zarr\/: the service answered 200 with an answer starting .*, not a Cloud Storage listing/) });
		}
		const listed = await openGcsStore({ scheme: "gs", bucket: "data", prefix: "group.zarr" }, { signRequests: false, env: { STORAGE_EMULATOR_HOST: "http://127.0.0.1:9" }, fetch: answering('{"kind": "storage#objects"}', "application/json") });
		expect(await listed.list("")).toEqual({ folders: [], files: [] });
	});

	it("Azure: an S3 listing from a misrouted endpoint is not an Azure Blob listing", async () => {
		const s3Listing = '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>public20</Name><Prefix>era.zarr/</Prefix><CommonPrefixes><Prefix>era.zarr/t2m/</Prefix></CommonPrefixes></ListBucketResult>';
		const bucket = await openAzureStore({ scheme: "az", bucket: "public20", prefix: "era.zarr" }, { signRequests: false, env: { AZURE_STORAGE_CONNECTION_STRING: "BlobEndpoint=http://127.0.0.1:9;" }, fetch: answering(s3Listing, "application/xml") });
		await expect(bucket.list("")).rejects.toMatchObject({ code: "READ_FAILED", message: expect.stringMatching(/^listing az:\/\/public20\/era\.zarr\/: the service answered 200 with an answer starting "<\?xml.*, not an Azure Blob listing \(EnumerationResults\)/) });
	});
});
