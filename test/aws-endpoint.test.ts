/**
 * Where s3:// requests go, in the order of the AWS SDKs' "service-specific endpoints" (and the AWS CLI's own
 * tests of it, tests/functional/configured_endpoint_urls): AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the s3
 * endpoint_url of the profile's [services name] section, the profile's endpoint_url; none of them with
 * ignore_configured_endpoint_urls. A config file in a temporary folder, no request made.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parseIni } from "../src/store/ini-file.js";
import { resolveAwsSettings } from "../src/store/aws-settings.js";
import { tempDir } from "./support/cli.js";

const PROFILE = [
	"[profile svc]",
	"aws_access_key_id = AKIDSERVICES",
	"aws_secret_access_key = secret",
	"endpoint_url = https://global.profile.example",
	"services = local",
	"",
	"[services local]",
	"dynamodb =",
	"  endpoint_url = https://dynamodb.services.example",
	"s3 =",
	"  addressing_style = path",
	"  endpoint_url = https://s3.services.example",
	"",
].join("\n");

/** The endpoint resolved for `config` (profile svc) and the environment `extra`, or the error. */
async function endpointFor(config: string, extra: Record<string, string> = {}): Promise<string | undefined> {
	const folder = tempDir("dt64-aws-endpoint-");
	fs.writeFileSync(path.join(folder, "config"), config);
	const env = { HOME: folder, AWS_CONFIG_FILE: path.join(folder, "config"), AWS_SHARED_CREDENTIALS_FILE: path.join(folder, "none"), AWS_PROFILE: "svc", ...extra };
	const settings = await resolveAwsSettings({ signRequests: true, env });
	return settings.endpoint?.href;
}

describe("the S3 endpoint of a profile", () => {
	it("the services section's s3 endpoint_url: over the profile's endpoint_url, under AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_S3", async () => {
		expect(await endpointFor(PROFILE)).toBe("https://s3.services.example/");
		expect(await endpointFor(PROFILE.replace("endpoint_url = https://global.profile.example\n", ""))).toBe("https://s3.services.example/");
		expect(await endpointFor(PROFILE, { AWS_ENDPOINT_URL: "https://global.env.example" })).toBe("https://global.env.example/");
		expect(await endpointFor(PROFILE, { AWS_ENDPOINT_URL: "https://global.env.example", AWS_ENDPOINT_URL_S3: "https://s3.env.example" })).toBe("https://s3.env.example/");
		// A services section with settings for other services (or other s3 settings) only leaves the profile's.
		expect(await endpointFor(PROFILE.replace("  endpoint_url = https://s3.services.example\n", ""))).toBe("https://global.profile.example/");
	});

	it("ignore_configured_endpoint_urls (profile or environment) goes to AWS itself", async () => {
		expect(await endpointFor(PROFILE.replace("services = local", "services = local\nignore_configured_endpoint_urls = true"))).toBeUndefined();
		expect(await endpointFor(PROFILE, { AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: "TRUE", AWS_ENDPOINT_URL: "https://global.env.example" })).toBeUndefined();
		await expect(endpointFor(PROFILE, { AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: "yes" })).rejects.toMatchObject({ code: "USAGE", message: 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: expected true or false, got "yes"' });
	});

	it("a services section that is not in the file, or whose endpoint is not a URL, is refused", async () => {
		await expect(endpointFor(PROFILE.replace("services = local", "services = other"))).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/names services "other", but the file has no \[services other\] section$/) });
		await expect(endpointFor(PROFILE.replace("https://s3.services.example", "s3.services.example"))).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/^s3 endpoint_url of \[services local\] in \S+: not an absolute/) });
	});
});

describe("parseIni", () => {
	it("keeps a nested block's settings as parent.key, and only under a key without a value", () => {
		const sections = parseIni("[services x]\ns3 =\n  endpoint_url = http://a\n  # comment\nregion = r\n  stray = ignored\n[profile p]\nendpoint_url = http://b\n");
		expect([...sections.get("services x")!]).toEqual([
			["s3", ""],
			["s3.endpoint_url", "http://a"],
			["region", "r"],
		]);
		expect(sections.get("profile p")?.get("endpoint_url")).toBe("http://b");
	});
});
