// bidi-bench: the body of a WebDriver script (arguments[0]: the transfer's
// id) that posts prepare.js's Uint8Array to the sink with fetch(); resolves
// {bytes: the sink's count, ms: the page's time for it}.
const t0 = performance.now();
return fetch('/upload?trial=' + encodeURIComponent(arguments[0]), { method: 'POST', body: window.bidiBenchBody })
  .then((r) => r.json())
  .then((j) => ({ bytes: j.bytes, ms: performance.now() - t0 }));
