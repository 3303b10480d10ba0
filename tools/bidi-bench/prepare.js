// bidi-bench: the body of a WebDriver script (arguments[0]: bytes) that
// builds the upload once per page, outside the timing: bench.html's pattern.
const n = arguments[0];
const a = new Uint8Array(n);
const seed = Math.min(n, 65536);
for (let i = 0; i < seed; i++) a[i] = (i * 31 + 7) & 255;
for (let have = seed; have < n; have *= 2) a.copyWithin(have, 0, Math.min(have, n - have));
window.bidiBenchBody = a;
return a.length;
