#!/usr/bin/env node
/**
 * Adds to package-lock.json the platform-specific optional packages (native binaries for other
 * operating systems and CPUs) that `npm install` on a machine whose registry mirror hides them leaves
 * out, so that `npm ci` accepts the lock file on every platform. Each entry records the version the
 * parent package asks for, its os/cpu/libc and the registry's integrity hash, read with `npm view`;
 * npm then skips it on platforms it does not fit and verifies it where it does.
 *
 * Usage: node scripts/complete-lockfile.mjs   (after any npm install that changed the lock file)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;
let added = 0;

for (const [location, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location === '' ? '' : `${location}/`;
    const candidates = [`${base}node_modules/${name}`, `node_modules/${name}`];
    if (candidates.some((candidate) => packages[candidate] !== undefined)) continue;
    // The exact version when the registry has it; else (a mirror holding only some versions) the
    // platform fields of the newest one, which do not change between versions, and no integrity.
    const info = npmView(`${name}@${range}`) ?? npmView(name);
    if (info === undefined || (info.os === undefined && info.cpu === undefined)) continue; // not a platform package: leave it to npm
    const exact = info.version === range;
    packages[`node_modules/${name}`] = {
      version: range,
      ...(exact && info['dist.integrity'] !== undefined ? { integrity: info['dist.integrity'] } : {}),
      ...(info.cpu === undefined ? {} : { cpu: [info.cpu].flat() }),
      ...(info.engines === undefined ? {} : { engines: info.engines }),
      ...(info.libc === undefined ? {} : { libc: [info.libc].flat() }),
      ...(info.license === undefined ? {} : { license: info.license }),
      optional: true,
      ...(info.os === undefined ? {} : { os: [info.os].flat() }),
      ...(entry.dev ? { dev: true } : {}),
    };
    added++;
  }
}

/** `npm view` of a package spec, or undefined when the registry does not have it. */
function npmView(spec) {
  try {
    const view = JSON.parse(
      execFileSync('npm', ['view', spec, 'version', 'os', 'cpu', 'libc', 'dist.integrity', 'license', 'engines', '--json'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    return Array.isArray(view) ? view.at(-1) : view;
  } catch {
    return undefined;
  }
}

const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform package(s)`);
