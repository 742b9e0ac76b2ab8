import type { CodeRunnerLimits } from './limits.js';
import type { Sandbox } from './sandbox.js';

// Starts the line appended to the candidate's source; the harness checks the syntax of what comes before.
const EXPORT_LINE = '\n;module.exports = ';

/** The candidate's file in the run's directory: its source, then a line that exports the entry. */
export function jsCandidateFile(code: string, entry: string): string {
  // Appended after the source, so its line numbers stay the candidate's own. Top-level
  // declarations and CommonJS exports both work.
  return `${code}${EXPORT_LINE}typeof ${entry} === 'function' ? ${entry} : module.exports[${JSON.stringify(entry)}];\n`;
}

/**
 * The command that runs the harness (after the prefix that isolates it). Memory: `--max-old-space-size` bounds the JS heap, and
 * RLIMIT_DATA (through prlimit) bounds the rest, Buffers included. RLIMIT_AS is no good for Node:
 * V8 and WebAssembly reserve large virtual ranges they never touch, so an address-space limit
 * breaks them long before memory is really short; RLIMIT_DATA only counts writable memory.
 */
export function jsCommand(sandbox: Sandbox, dir: string, limits: CodeRunnerLimits): string[] {
  const node = [process.execPath, '--no-addons', `--max-old-space-size=${limits.memoryMb}`];
  if (sandbox.nodePermission !== null) {
    // Reads only in the run's directory; no writes, child processes or workers.
    node.push(sandbox.nodePermission, `--allow-fs-read=${dir}/*`);
    if (sandbox.nodeDisableWarning) node.push('--disable-warning=ExperimentalWarning');
  }
  node.push(`${dir}/harness.cjs`);
  const rlimits = sandbox.prlimit ? ['prlimit', `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`, `--data=${limits.memoryMb * 1024 * 1024}`, `--fsize=${limits.fileMb * 1024 * 1024}`, '--'] : [];
  return [...rlimits, ...node];
}

/**
 * The Node harness (CommonJS). It guards the network and child processes first (a second layer
 * under the network namespace, and the only one where there is none), reads the arguments of
 * every case from stdin, loads the candidate, calls the entry once per case and writes one JSON
 * line per event on fd 3 (see harness-events.ts).
 */
export const JS_HARNESS = String.raw`'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

const emit = (event) => fs.writeSync(3, JSON.stringify(event) + '\n');

class NetworkDeniedError extends Error {
  constructor(what) {
    super('network access is denied in the code runner (' + what + ')');
    this.name = 'NetworkDeniedError';
    this.code = 'ERR_NETWORK_DENIED';
  }
}
const denyNetwork = (what) =>
  function denied() {
    emit({ t: 'denied', what });
    throw new NetworkDeniedError(what);
  };
const denySpawn = (what) =>
  function denied() {
    const error = new Error('starting processes is denied in the code runner (' + what + ')');
    error.code = 'ERR_ACCESS_DENIED';
    throw error;
  };
const replace = (object, label, names, deny) => {
  for (const name of names) {
    try {
      if (object && typeof object[name] === 'function') object[name] = deny(label + '.' + name);
    } catch {
      // A frozen export stays; the namespace still has no network.
    }
  }
};

// Every TCP client (http, https, tls, fetch's undici) ends in Socket#connect, every server in listen.
const net = require('node:net');
replace(net.Socket.prototype, 'net.Socket', ['connect'], denyNetwork);
replace(net.Server.prototype, 'net.Server', ['listen'], denyNetwork);
replace(net, 'net', ['connect', 'createConnection'], denyNetwork);
replace(require('node:http'), 'http', ['request', 'get'], denyNetwork);
replace(require('node:https'), 'https', ['request', 'get'], denyNetwork);
replace(require('node:http2'), 'http2', ['connect'], denyNetwork);
replace(require('node:tls'), 'tls', ['connect'], denyNetwork);
replace(require('node:dgram').Socket.prototype, 'dgram.Socket', ['bind', 'connect', 'send'], denyNetwork);
const dns = require('node:dns');
const lookups = ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCname', 'resolveMx', 'resolveNs', 'resolveTxt', 'resolveSrv', 'reverse'];
for (const [object, label] of [[dns, 'dns'], [dns.promises, 'dns.promises'], [dns.Resolver.prototype, 'dns.Resolver'], [dns.promises.Resolver.prototype, 'dns.promises.Resolver']]) {
  replace(object, label, lookups, denyNetwork);
}
replace(globalThis, 'globalThis', ['fetch', 'WebSocket', 'EventSource'], denyNetwork);
replace(require('node:child_process'), 'child_process', ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'], denySpawn);
replace(require('node:worker_threads'), 'worker_threads', ['Worker'], denySpawn);
Module.syncBuiltinESMExports();

const isNetworkDenied = (error) => error instanceof NetworkDeniedError || (error instanceof Error && error.cause instanceof NetworkDeniedError);
const kindOf = (error) => {
  if (isNetworkDenied(error)) return 'network';
  if (error instanceof RangeError && /allocation failed/i.test(error.message)) return 'memory';
  return 'error';
};
const describe = (error) => {
  if (!(error instanceof Error)) return 'threw a non-Error: ' + String(error);
  const frames = String(error.stack || '').split('\n').filter((line) => line.includes('candidate.cjs')).slice(0, 5);
  return [error.name + ': ' + error.message, ...frames].join('\n');
};
const encode = (value) => {
  if (value === undefined) return { error: 'returned undefined, which is not a JSON value' };
  try {
    const json = JSON.stringify(value);
    return json === undefined ? { error: 'returned a ' + typeof value + ', which is not a JSON value' } : { json };
  } catch (error) {
    return { error: 'returned a value that is not JSON: ' + error.message };
  }
};

const syntaxError = (error) => {
  // vm's stack starts with the place, the source line and a caret, then the message.
  const lines = String(error.stack || error).split('\n');
  const message = lines.find((line) => /^[A-Za-z]*Error: /.test(line)) || String(error);
  return [message + ' (' + lines[0] + ')', ...lines.slice(1, 3)].join('\n').trimEnd();
};

const fatal = (error) => {
  emit({ t: 'fatal', kind: kindOf(error), error: describe(error) });
  process.exit(70);
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

async function main() {
  const input = JSON.parse(fs.readFileSync(0, 'utf8'));
  const file = path.join(__dirname, 'candidate.cjs');
  const text = fs.readFileSync(file, 'utf8');
  try {
    // Compiled as CommonJS compiles it, with no text around it that an error could point into.
    vm.compileFunction(text.slice(0, text.lastIndexOf(${JSON.stringify(EXPORT_LINE)})), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: 'candidate.cjs' });
  } catch (error) {
    return emit({ t: 'load', kind: 'syntax', error: syntaxError(error) });
  }
  let entry;
  try {
    entry = require(file);
  } catch (error) {
    return emit({ t: 'load', kind: kindOf(error), error: describe(error) });
  }
  if (typeof entry !== 'function') {
    return emit({ t: 'load', kind: 'error', error: input.entry + ' is not a function the code defines (found ' + typeof entry + ')' });
  }
  for (const [i, args] of input.args.entries()) {
    const started = performance.now();
    try {
      const result = encode(await entry(...args));
      const ms = performance.now() - started;
      emit(result.error === undefined ? { t: 'case', i, ok: true, json: result.json, ms } : { t: 'case', i, ok: false, kind: 'error', error: result.error, ms });
    } catch (error) {
      emit({ t: 'case', i, ok: false, kind: kindOf(error), error: describe(error), ms: performance.now() - started });
    }
  }
}

main().then(
  () => {
    emit({ t: 'done' });
    process.exit(0);
  },
  fatal,
);
`;
