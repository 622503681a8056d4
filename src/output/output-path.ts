import * as fs from "node:fs";
import { Dt64ExportError, systemErrorReason } from "../errors.js";

/**
 * What is at an output path (a file, a folder, a device), or undefined when nothing is. A path no output can be
 * created at is refused with OUTPUT_INVALID and the reason: a file where the path needs a folder
 * (`notes.txt/out.arrow`), a name too long, a loop of links, a folder it may not look into.
 */
export function statOutput(target: string): fs.Stats | undefined {
	try {
		return fs.statSync(target, { throwIfNoEntry: false });
	} catch (error) {
		const reason = (error as NodeJS.ErrnoException).code === "ENOTDIR" ? "a part of the path before it is a file, not a folder" : systemErrorReason(error as Error);
		throw new Dt64ExportError("OUTPUT_INVALID", `no output can be created at ${target}: ${reason}`, { path: target, cause: error });
	}
}
