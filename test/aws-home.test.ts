/**
 * The AWS files are found under an absolute home folder only (trial 25, finding 09): an empty HOME (`env HOME= ...`)
 * or a relative one made `~/.aws/credentials` the working folder's `.aws/credentials`, whose keys (and a config's
 * endpoint_url) then signed and sent the requests. Such a HOME counts as unset: the account's home folder is used.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveAwsSettings } from "../src/store/aws-settings.js";
import { tempDir } from "./support/cli.js";

describe("the AWS files' home folder", () => {
	it("an empty or relative HOME never reads the working folder's .aws files", async () => {
		const work = tempDir("dt64-aws-home-");
		fs.mkdirSync(path.join(work, ".aws"));
		fs.writeFileSync(path.join(work, ".aws/credentials"), "[default]\naws_access_key_id = FROMCWD\naws_secret_access_key = secret\n");
		fs.writeFileSync(path.join(work, ".aws/config"), "[default]\nendpoint_url = https://attacker.example\n");
		fs.mkdirSync(path.join(work, "rel/.aws"), { recursive: true });
		fs.copyFileSync(path.join(work, ".aws/credentials"), path.join(work, "rel/.aws/credentials"));
		const before = process.cwd();
		const processHome = process.env.HOME;
		process.chdir(work);
		// As `env HOME= dt64-export ...` runs it: os.homedir() then answers "" too.
		process.env.HOME = "";
		try {
			for (const HOME of ["", "  ", "rel"]) {
				const found = await resolveAwsSettings({ signRequests: true, env: { HOME } }).then(
					(settings) => [settings.credentials?.accessKeyId, settings.endpoint?.href],
					(error: { code?: string }) => [error.code, undefined],
				);
				expect(found[0], JSON.stringify(HOME)).not.toBe("FROMCWD");
				expect(found[1], JSON.stringify(HOME)).not.toBe("https://attacker.example/");
			}
			// An absolute HOME is read, as before.
			const settings = await resolveAwsSettings({ signRequests: true, env: { HOME: work } });
			expect(settings.credentials?.accessKeyId).toBe("FROMCWD");
		} finally {
			process.chdir(before);
			if (processHome === undefined) delete process.env.HOME;
			else process.env.HOME = processHome;
		}
	});
});
