// Uploads of in-memory bodies with fetch(), as a file store's client does:
// the bodies Network.enable without maxPostDataSize copies into its events.
const { test, expect } = require('@playwright/test');

const MIB = Number(process.env.RIG_UPLOAD_MIB || 8);

for (const kind of ['Uint8Array', 'ArrayBuffer']) {
  test(`fetch() uploads ${MIB} MiB as ${kind}, twice`, async ({ page }) => {
    await page.goto('/');
    const r = await page.evaluate(async ({ mib, kind }) => {
      const u8 = new Uint8Array(mib << 20);
      for (let i = 0; i < u8.length; i += 4096) u8[i] = i & 255;
      const out = [];
      for (let n = 0; n < 2; n++) {
        const res = await fetch('/upload', { method: 'POST', body: kind === 'Uint8Array' ? u8 : u8.buffer });
        out.push((await res.json()).bytes);
      }
      return out;
    }, { mib: MIB, kind });
    expect(r).toEqual([MIB << 20, MIB << 20]);
  });
}

test('a page renders a list and a screenshot of it', async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => {
    const ul = document.getElementById('list');
    for (let i = 0; i < 500; i++) ul.insertAdjacentHTML('beforeend', `<li>item ${i}</li>`);
  });
  await expect(page.locator('#list li')).toHaveCount(500);
  expect((await page.screenshot({ fullPage: true })).length).toBeGreaterThan(1000);
});
