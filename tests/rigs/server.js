// The example rigs' web server: a page with a download link and a button
// that adds a list item, /data.json, POST /upload (answers with the body's
// size and sha256) and /file (4 MiB).
// A rig starts it itself unless RIG_URL names one already running.
'use strict';
const crypto = require('node:crypto');
const http = require('node:http');

const DOWNLOAD = Buffer.alloc(4 << 20, 7);

function start() {
  const server = http.createServer((req, res) => {
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    req.on('data', (c) => { bytes += c.length; hash.update(c); });
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/upload') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ bytes, sha256: hash.digest('hex') }));
      } else if (req.url === '/file') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="rig.bin"' });
        res.end(DOWNLOAD);
      } else if (req.url === '/data.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"source":"server"}');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><title>rig page</title><style>li{padding:2px;border:1px solid #ccc}</style>' +
          '<a id="download" href="/file">download</a>' +
          '<button id="add" onclick="document.getElementById(\'list\').insertAdjacentHTML(\'beforeend\', \'<li>clicked</li>\')">add</button>' +
          '<ul id="list"></ul>');
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  })));
}

module.exports = { start };
