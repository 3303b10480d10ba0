// An upload of a 16 MiB (RIG_TRANSFER_MIB) Uint8Array with fetch() (the
// body Network.enable copies) and a download, through the wrapper.
const fs = require('node:fs');
const { test, expect } = require('@playwright/test');

const MIB = Number(process.env.RIG_TRANSFER_MIB || 16);

test(`fetch() uploads a ${MIB} MiB Uint8Array`, async ({ page }) => {
  await page.goto('/');
  const r = await page.evaluate(async (mib) => {
    const body = new Uint8Array(mib << 20);
    for (let i = 0; i < body.length; i += 4096) body[i] = i & 255;
    const t0 = performance.now();
    const res = await fetch('/upload', { method: 'POST', body });
    const json = await res.json();
    return { ...json, ms: performance.now() - t0 };
  }, MIB);
  expect(r.bytes).toBe(MIB << 20);
  console.log(`upload ${r.bytes} bytes in ${r.ms.toFixed(1)} ms: ${(r.bytes * 8 / r.ms / 1000).toFixed(1)} Mbps`);
});

test('a download arrives whole', async ({ page }) => {
  await page.goto('/');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const file = await download.path();
  expect(fs.statSync(file).size).toBe(4 << 20);
  expect(download.suggestedFilename()).toBe('rig.bin');
});
