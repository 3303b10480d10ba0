#!/usr/bin/env node
// repeat-log: a big cdpproxy log from a small real one, for measuring cdplog:
// the log IN repeated until OUT has SIZE bytes, each copy later in time, on
// connections and sessions of its own (ids renamed), so that sessions and
// pending commands keep turning over as in a long run.
// usage: node tools/repeat-log.js IN OUT [SIZE, default 1GiB]
'use strict';
const fs = require('node:fs');

const [inPath, outPath, sizeArg] = process.argv.slice(2);
if (!inPath || !outPath) {
  console.error('usage: node tools/repeat-log.js IN OUT [SIZE_BYTES]');
  process.exit(2);
}
const size = Number(sizeArg || 2 ** 30);
const lines = fs.readFileSync(inPath, 'utf8').split('\n').filter(Boolean);
const recs = lines.map((l) => JSON.parse(l));
const t0 = Math.min(...recs.map((r) => r.t));
const span = Math.max(...recs.map((r) => r.t)) - t0 + 1000000;
const conns = Math.max(...recs.map((r) => r.conn)) || 1;
const ids = new Set(recs.flatMap((r) => [r.session, r.targetId]).filter((s) => typeof s === 'string' && s.length >= 16));
const idRe = ids.size ? new RegExp([...ids].join('|'), 'g') : null;
const fd = fs.openSync(outPath, 'w');
let written = 0;
for (let k = 0; written < size; k++) {
  const tag = k.toString(16).padStart(8, '0');
  const chunk = lines.map((l, i) => {
    const r = recs[i];
    let s = idRe ? l.replace(idRe, (id) => tag + id.slice(8)) : l;
    s = s.replace(/^\{"t":\d+/, `{"t":${r.t + k * span}`);
    if (r.conn) s = s.replace(/"conn":\d+/, `"conn":${r.conn + k * conns}`);
    return s;
  }).join('\n') + '\n';
  fs.writeSync(fd, chunk);
  written += Buffer.byteLength(chunk);
}
fs.closeSync(fd);
console.log(`${outPath}: ${written} bytes`);
