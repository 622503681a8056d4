import { formatInspectReport, inspectReportToJson, inspectStore } from "../inspect.js";
import { adviceFor } from "./error-advice.js";
import { collectHeaders } from "./header-options.js";
import { exitOnInterrupt } from "./interrupt.js";
import { writeToStdout } from "./closed-reader.js";
import type { RedirectPolicy } from "../store/http-store.js";

export interface InspectArgs {
	store: string;
	json: boolean;
	header: string[];
	retries?: number;
	timeout?: number;
	redirects?: RedirectPolicy;
	signRequest: boolean;
	forbiddenAsMissing: boolean;
	followLinksOutside: boolean;
}

/** `dt64-export inspect <store> [--json]`: the report on stdout. */
export async function runInspect(args: InspectArgs): Promise<void> {
	const headers = collectHeaders(args.header);
	// Inspect writes nothing until its report: a signal ends it at once, a request to a server that does not answer with it.
	exitOnInterrupt();
	const report = await inspectStore(args.store, { headers, retries: args.retries, timeoutMs: args.timeout === undefined ? undefined : args.timeout * 1000, redirects: args.redirects, signRequests: args.signRequest, forbiddenAsMissing: args.forbiddenAsMissing, followLinksOutside: args.followLinksOutside });
	const text = args.json ? `${inspectReportToJson(report)}\n` : formatInspectReport(report, { advise: adviceFor });
	await writeToStdout(text);
}
