import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// Refuses a dist/ older than src/: the CLI tests and the decode threads run the build (see the file).
		globalSetup: ["test/support/fresh-build.ts"],
		// Hang detectors: what a test checks never depends on them. A loaded 2-core machine runs the heaviest tests for
		// 30-40 s (time-range's refusal of an unsorted skipped block: 29 s at a load of 12, 38.6 s at 15-37), which a
		// 60 s cap left too little margin.
		testTimeout: 180_000,
		hookTimeout: 300_000,
	},
});
