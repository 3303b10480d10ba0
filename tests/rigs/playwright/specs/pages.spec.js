// Pages, navigation and page.route (Fetch.enable) through the wrapper.
const { test, expect } = require('@playwright/test');

test('a page loads and evaluates', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveTitle('rig page');
  expect(await page.evaluate(() => 6 * 7)).toBe(42);
});

test('page.route answers a request the server never sees', async ({ page }) => {
  await page.route('**/data.json', (route) => route.fulfill({ json: { source: 'route' } }));
  await page.goto('/');
  const data = await page.evaluate(() => fetch('/data.json').then((r) => r.json()));
  expect(data.source).toBe('route');
});
