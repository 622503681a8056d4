import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// Refuses a dist/ older than src/: the CLI tests and the decode threads run the build (see the file).
		globalSetup: ["test/support/fresh-build.ts"],
		testTimeout: 60_000,
		hookTimeout: 120_000,
	},
});
