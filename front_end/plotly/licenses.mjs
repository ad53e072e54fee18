// The license texts of every npm package whose code is in the bundle (esbuild's metafile), for
// service/vendor/<bundle>.LICENSES.txt.
import fs from "node:fs";
import path from "node:path";

const meta = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const packages = new Set();
for (const output of Object.values(meta.outputs)) {
  for (const [input, info] of Object.entries(output.inputs)) {
    if (info.bytesInOutput === 0) continue;
    const parts = input.split("node_modules/");
    if (parts.length < 2) continue;
    const names = parts.at(-1).split("/");
    const name = names[0].startsWith("@") ? `${names[0]}/${names[1]}` : names[0];
    packages.add(parts.slice(0, -1).join("node_modules/") + "node_modules/" + name);
  }
}
const out = [];
for (const dir of [...packages].sort()) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  const file = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
  const text = file ? fs.readFileSync(path.join(dir, file), "utf8").trim() : `(no license file; package.json: ${pkg.license})`;
  out.push(`${pkg.name} ${pkg.version} — ${pkg.license}\n\n${text}\n`);
}
fs.writeFileSync(process.argv[3], out.join("\n" + "-".repeat(78) + "\n\n"));
console.log(`${packages.size} packages`);
