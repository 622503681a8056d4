// No dead code (DESIGN.md "Style"), checked by `npm run lint`: every function, constant or class that a module of
// src/ exports must be named in another file of the repository's code (src, test, scripts, bin, bench). One named
// only in its own file is a helper of that file (drop `export`); one named nowhere else in it either is dead (delete
// it). Names are matched as whole words, which errs on the side of silence (a name that another file uses for
// something else passes). Types are not checked: they are part of the signatures that use them.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

// The repository checked: this one, or the folder given (the test of this check gives one).
const root = process.argv[2] === undefined ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..") : path.resolve(process.argv[2]);
const FOLDERS = ["src", "test", "scripts", "bin", "bench"];
const CODE = /\.(ts|mjs|js|cjs)$/;
const EXPORTED_VALUE = /^export (?:async )?(?:function\*? ?|const |let |class )([A-Za-z_$][\w$]*)/gm;
const WORD = /[A-Za-z_$][\w$]*/g;

function* codeFiles(folder) {
	for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
		const file = path.join(folder, entry.name);
		if (entry.isDirectory() && entry.name !== "node_modules") yield* codeFiles(file);
		else if (entry.isFile() && CODE.test(entry.name)) yield file;
	}
}

/** Each code file's text, and in how many files each word occurs. */
const texts = new Map();
const filesNaming = new Map();
for (const folder of FOLDERS) {
	if (!fs.existsSync(path.join(root, folder))) continue;
	for (const file of codeFiles(path.join(root, folder))) {
		const text = fs.readFileSync(file, "utf8");
		texts.set(file, text);
		for (const word of new Set(text.match(WORD))) filesNaming.set(word, (filesNaming.get(word) ?? 0) + 1);
	}
}

const problems = [];
for (const [file, text] of texts) {
	if (!file.startsWith(path.join(root, "src") + path.sep) || !file.endsWith(".ts")) continue;
	for (const match of text.matchAll(EXPORTED_VALUE)) {
		const name = match[1];
		if (filesNaming.get(name) > 1) continue;
		const line = text.slice(0, match.index).split("\n").length;
		const uses = text.match(new RegExp(`(?<![\\w$])${name.replace(/\$/g, "\\$")}(?![\\w$])`, "g")).length;
		problems.push(`${path.relative(root, file)}:${line}: ${name} is exported but ${uses > 1 ? "used only in this file: drop `export`" : "used nowhere: delete it"}`);
	}
}
if (problems.length > 0) {
	console.error(problems.join("\n"));
	process.exit(1);
}
