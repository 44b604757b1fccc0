// Empties dist/ before a build, keeping the committed .gitkeep: the Go
// package in this directory embeds dist/, and an embed pattern must match
// something even before the first frontend build.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const dist = new URL('../dist/', import.meta.url).pathname;
mkdirSync(dist, { recursive: true });
for (const name of readdirSync(dist)) {
  if (name !== '.gitkeep') rmSync(join(dist, name), { recursive: true, force: true });
}
