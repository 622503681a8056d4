// The whitespace rules the code follows, checked for every source, test and script (`npm run lint`): indentation
// with tabs (a line starts with a space only inside a block comment, ` * ...`), no trailing whitespace, a final
// newline. Biome's formatter is not used: it would rewrap most files, and this is the part of the style they share.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const FOLDERS = ["src", "test", "scripts", "bin", "bench"];
const CODE = /\.(ts|mjs|js)$/;

function* codeFiles(folder) {
	for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
		const file = path.join(folder, entry.name);
		if (entry.isDirectory() && entry.name !== "node_modules") yield* codeFiles(file);
		else if (entry.isFile() && CODE.test(entry.name)) yield file;
	}
}

const problems = [];
for (const folder of FOLDERS) {
	if (!fs.existsSync(path.join(root, folder))) continue;
	for (const file of codeFiles(path.join(root, folder))) {
		const text = fs.readFileSync(file, "utf8");
		const where = (line) => `${path.relative(root, file)}:${line + 1}`;
		if (text.length > 0 && !text.endsWith("\n")) problems.push(`${where(text.split("\n").length - 1)}: no newline at the end of the file`);
		text.split("\n").forEach((line, i) => {
			if (/[ \t]+$/.test(line)) problems.push(`${where(i)}: trailing whitespace`);
			if (line.startsWith(" ") && !line.trimStart().startsWith("*")) problems.push(`${where(i)}: indented with spaces (the code uses tabs)`);
		});
	}
}
for (const problem of problems) console.error(problem);
process.exit(problems.length === 0 ? 0 : 1);
