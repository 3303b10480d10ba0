// The rig's tests, in one session: a fetch() upload of a 4 MiB
// (RIG_UPLOAD_MIB) Uint8Array first, timed while the session has set up
// nothing of its own on the network (under BiDi the mapper has already sent
// Network.enable: DESIGN.md §6); then a click, a console message seen as a
// BiDi log.entryAdded event, and a browser.mock answering a request the
// server never sees (the last two need BiDi and are skipped without it).
'use strict';

const MIB = Number(process.env.RIG_UPLOAD_MIB || 4);

describe('the rig page', () => {
  beforeEach(async () => {
    await browser.url(`${process.env.RIG_URL}/`);
  });

  it(`fetch() uploads a ${MIB} MiB Uint8Array`, async () => {
    const r = await browser.execute(async (mib) => {
      const body = new Uint8Array(mib << 20);
      for (let i = 0; i < body.length; i += 4096) body[i] = i & 255;
      const t0 = performance.now();
      const res = await fetch('/upload', { method: 'POST', body });
      const json = await res.json();
      return { bytes: json.bytes, ms: performance.now() - t0 };
    }, MIB);
    expect(r.bytes).toBe(MIB << 20);
    console.log(`upload ${r.bytes} bytes in ${r.ms.toFixed(1)} ms: ${(r.bytes * 8 / r.ms / 1000).toFixed(1)} Mbps` +
      ` (${browser.isBidi ? 'BiDi' : 'classic'})`);
  });

  it('a click adds a list item', async () => {
    await expect($$('#list li')).toBeElementsArrayOfSize(0);
    await $('#add').click();
    await expect($$('#list li')).toBeElementsArrayOfSize(1);
    await expect($('#list li')).toHaveText('clicked');
  });

  it('console.log in the page arrives as a log.entryAdded event', async function () {
    if (!browser.isBidi) this.skip();
    const seen = [];
    const onEntry = (e) => seen.push(e.text);
    await browser.sessionSubscribe({ events: ['log.entryAdded'] });
    browser.on('log.entryAdded', onEntry);
    try {
      await browser.execute(() => console.log('rig console', 6 * 7));
      await browser.waitUntil(() => seen.includes('rig console 42'), { timeout: 10000, timeoutMsg: `log entries: ${JSON.stringify(seen)}` });
    } finally {
      browser.off('log.entryAdded', onEntry);
    }
  });

  it('browser.mock answers a request the server never sees', async function () {
    if (!browser.isBidi) this.skip();
    const mock = await browser.mock('**/data.json');
    mock.respond({ source: 'mock' });
    try {
      const data = await browser.execute(() => fetch('/data.json').then((r) => r.json()));
      expect(data.source).toBe('mock');
    } finally {
      await mock.restore();
    }
  });
});
