// wasi_run.mjs - run a wasm32-wasi program under node's WASI (node 20:
// node --experimental-wasi-unstable-preview1 tests/wasi_run.mjs prog.wasm args...).
// The program sees the environment and, as its only folders, the current one
// (".", where build/ is) and ../shared (the data), both read-write; it exits
// with the program's own status (a trap: node's error, status 1). mk/cross.mk's
// cross-wasm runs the suites so.
//
// The program runs in a child node process that tells this one its status.
// Why: node itself once died under CI ("abort: Invalid bytecode", then
// SIGSEGV) after the suite had printed "0 failed". Wasm code cannot kill node
// (a trap is a JavaScript error, status 1), so a child killed by a signal is
// node's crash, not the program's: after the program's status arrived that
// status stands; before it, the program runs once more, and a second crash
// fails with the signal's status (128 + N), as a shell would report it.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { fork } from 'node:child_process';
import { constants } from 'node:os';
import { WASI } from 'node:wasi';

const [prog, ...args] = process.argv.slice(2);
if (!prog) {
    console.error('usage: node --experimental-wasi-unstable-preview1 wasi_run.mjs prog.wasm [args...]');
    process.exit(2);
}

async function runHere() {
    const preopens = { '.': '.' };
    if (existsSync('../shared')) preopens['../shared'] = '../shared';
    const wasi = new WASI({ version: 'preview1', args: [prog, ...args], env: process.env, preopens,
                            returnOnExit: true });
    const module = await WebAssembly.compile(await readFile(prog));
    // getImportObject: node 20; wasiImport: older ones (Debian 12's node 18)
    const imports = wasi.getImportObject ? wasi.getImportObject()
                                         : { wasi_snapshot_preview1: wasi.wasiImport };
    const instance = await WebAssembly.instantiate(module, imports);
    return wasi.start(instance);
}

function runChild() {
    return new Promise((resolve) => {
        let status = null;
        const child = fork(new URL(import.meta.url).pathname, process.argv.slice(2),
                           { stdio: 'inherit', env: { ...process.env, WASI_RUN_CHILD: '1' } });
        child.on('message', (m) => { if (m && typeof m.status === 'number') status = m.status; });
        child.on('exit', (code, signal) => resolve({ code, signal, status }));
    });
}

// WASI_RUN_CRASH=before|after: the child kills itself with SIGSEGV before
// the program runs (on every attempt) or after it has sent its status, so
// tests/test_harness.sh can check both paths above.
const crash = process.env.WASI_RUN_CRASH;
if (process.env.WASI_RUN_CHILD) {
    if (crash === 'before') process.kill(process.pid, 'SIGSEGV');
    const status = await runHere();
    process.send({ status }, () => {
        if (crash === 'after') process.kill(process.pid, 'SIGSEGV');
        process.exitCode = status; process.disconnect();
    });
} else {
    for (let attempt = 1; ; attempt++) {
        const r = await runChild();
        if (r.status !== null) {
            if (r.signal) console.error(`wasi_run: node died of ${r.signal} after ${prog} ended with status ${r.status}: that status stands`);
            process.exitCode = r.status;
            break;
        }
        if (!r.signal) { process.exitCode = r.code ?? 1; break; } // a trap or node's own error
        const rc = 128 + (constants.signals[r.signal] ?? 0);
        console.error(`wasi_run: node died of ${r.signal} while ${prog} ran (node's crash: wasm code cannot kill it)` +
                      (attempt < 2 ? '; running it once more' : `; twice: exit ${rc}`));
        if (attempt >= 2) { process.exitCode = rc; break; }
    }
}
