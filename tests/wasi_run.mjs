// wasi_run.mjs - run a wasm32-wasi program under node's WASI (node 20:
// node --experimental-wasi-unstable-preview1 tests/wasi_run.mjs prog.wasm args...).
// The program sees the environment and, as its only folders, the current one
// (".", where build/ is) and ../shared (the data), both read-write; it exits
// with the program's own status (a trap: node's error, status 1). mk/cross.mk's cross-wasm runs the suites so.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [prog, ...args] = process.argv.slice(2);
if (!prog) {
    console.error('usage: node --experimental-wasi-unstable-preview1 wasi_run.mjs prog.wasm [args...]');
    process.exit(2);
}
const preopens = { '.': '.' };
if (existsSync('../shared')) preopens['../shared'] = '../shared';
const wasi = new WASI({ version: 'preview1', args: [prog, ...args], env: process.env, preopens,
                        returnOnExit: true });
const module = await WebAssembly.compile(await readFile(prog));
// getImportObject: node 20; wasiImport: older ones (Debian 12's node 18)
const imports = wasi.getImportObject ? wasi.getImportObject()
                                     : { wasi_snapshot_preview1: wasi.wasiImport };
const instance = await WebAssembly.instantiate(module, imports);
process.exitCode = wasi.start(instance);
